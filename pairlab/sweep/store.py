"""Finished trials on disk: one file per trial, written atomically, checked when read back.

A trial file is one JSON header line (key, encoding, payload length and SHA-256, and the trial's
wall and CPU seconds when they were measured) followed by the payload: JSON for sweep rows, pickle
for a recipe's trial (which may hold arrays). Files written before the times were recorded have no
time fields and still load (their time is unknown: :meth:`TrialStore.get_record` gives None). A file whose
header, length or checksum does not match (a truncated write, a hand edit, a disk error) is
reported as corrupt and its trial is computed again; it is never silently used.

Files are written to a temporary name and renamed, so a reader (or a process killed mid-write)
never leaves half a file under a trial's name. They are not fsynced: after a power loss a file the
disk had not written yet fails its checksum and is recomputed, which is all a sweep needs, while an
fsync per trial cost 8.6 ms (measured on the development machine's disk under load, 40% of a 20 ms
trial).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import pickle
import secrets
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["Recorded", "StoreWriter", "TrialStore"]

_SUFFIX = ".trial"
#: ``json.dumps(v, sort_keys=True)`` without building an encoder each call (the same text)
_SORTED_JSON = json.JSONEncoder(sort_keys=True)


class Recorded(NamedTuple):
    """A stored trial's measured time, as the worker saw it (header fields ``wall_seconds`` and
    ``cpu_seconds``)."""

    wall: float
    cpu: float


class TrialStore:
    """Trials keyed by content hash under ``root`` (``root/ab/abcdef....trial``)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.corrupt: list[str] = []  # keys of files found damaged (and set aside) by get()
        self._root = str(self.root)
        self._folders: set[str] = set()  # folders made (or found) by write()
        self._token = secrets.token_hex(4)
        self._count = itertools.count()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{_SUFFIX}"

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, value)`` for a stored, intact trial; ``(False, None)`` otherwise.

        A damaged file is renamed to ``*.corrupt`` (kept for inspection) and recorded in
        :attr:`corrupt`.
        """
        found, value, _took = self.get_record(key)
        return found, value

    def get_record(self, key: str) -> tuple[bool, Any, Recorded | None]:
        """:meth:`get` with the trial's recorded time (None for a file written without one)."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return False, None, None
        except OSError:  # a folder or an unreadable file under the trial's name
            raw = b""
        try:
            value, took = _decode(raw, key)
        except (ValueError, KeyError, TypeError, pickle.UnpicklingError, EOFError, RecursionError):
            self.corrupt.append(key)
            _set_aside(path)
            return False, None, None
        return True, value, took

    def put(self, key: str, value: Any, *, encoding: str = "json",
            took: Recorded | None = None) -> Any:
        """Store ``value`` (with its time ``took``, if measured) atomically (temporary file,
        rename); return it as read back (so a fresh trial and a resumed one reach the caller in
        the same form)."""
        data, back = self.encode(key, value, encoding, took)
        self.write(key, data)
        return back

    def encode(self, key: str, value: Any, encoding: str = "json",
               took: Recorded | None = None) -> tuple[bytes, Any]:
        """The file's bytes for ``value`` and the value as it will read back (what :meth:`put`
        returns), without touching the disk."""
        if encoding == "json":
            text = _SORTED_JSON.encode(value)
            payload, back = text.encode(), json.loads(text)
        elif encoding == "pickle":
            payload = pickle.dumps(value, protocol=4)
            back = pickle.loads(payload)
        else:
            raise ValueError(f"unknown encoding {encoding!r}")
        header: dict[str, Any] = {"key": key, "encoding": encoding, "length": len(payload),
                                  "sha256": hashlib.sha256(payload).hexdigest()}
        if took is not None:
            header["wall_seconds"], header["cpu_seconds"] = _seconds(took.wall), _seconds(took.cpu)
        return _SORTED_JSON.encode(header).encode() + b"\n" + payload, back

    def write(self, key: str, data: bytes) -> None:
        """Write a trial file's bytes atomically: a temporary file in the same folder, renamed.

        Five system calls (open, write, close, unlink, rename) and a ``mkdir`` once per folder,
        on plain strings (a ``Path`` per call cost more than the calls' Python side). The file a
        trial had (``fresh``) is unlinked before the rename: on ext4 a rename that replaces a
        file starts writing the new file to disk at once (``auto_da_alloc``), 2.3-2.6 ms of
        wall and 0.26-0.29 ms of CPU a file against 0.18-0.26 and 0.10-0.14 ms with the unlink
        (docs/sweeps.md, Measured). The name holds the old whole file, then none, then the new
        whole file; never part of one.
        """
        folder = f"{self._root}/{key[:2]}"
        path = f"{folder}/{key}{_SUFFIX}"
        # unique in this process (counter) and among processes (pid, random token); O_EXCL
        # never opens a file another writer holds
        tmp = f"{folder}/.{key}{_SUFFIX}.{os.getpid()}-{self._token}-{next(self._count)}"
        if folder not in self._folders:
            os.makedirs(folder, exist_ok=True)
            self._folders.add(folder)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileNotFoundError:  # the folder was removed since: make it again
            os.makedirs(folder, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)  # see the docstring: a rename must not replace a file
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    def __contains__(self, key: str) -> bool:
        return self.path(key).is_file()


def _set_aside(path: Path) -> None:
    """Rename a damaged trial to ``*.corrupt`` (``*.corrupt-N`` when that name is taken)."""
    target = path.with_suffix(".corrupt")
    n = 0
    while target.exists() or target.is_symlink():
        n += 1
        target = path.with_suffix(f".corrupt-{n}")
    os.replace(path, target)


def _seconds(v: Any) -> float:
    """A recorded time: a finite, non-negative number of seconds (else the header is damaged)."""
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
        raise ValueError(f"a trial's time must be a finite number of seconds >= 0, got {v!r}")
    return float(v)


def _recorded(header: dict[str, Any]) -> Recorded | None:
    """The header's time fields: both or neither (a file from before times were recorded)."""
    wall, cpu = header.get("wall_seconds"), header.get("cpu_seconds")
    if wall is None and cpu is None:
        return None
    return Recorded(_seconds(wall), _seconds(cpu))


def _decode(raw: bytes, key: str) -> tuple[Any, Recorded | None]:
    head, sep, payload = raw.partition(b"\n")
    if not sep:
        raise ValueError("no header")
    if head.count(b"[") + head.count(b"{") > 100:  # a sane header is one flat object
        raise ValueError("header nested too deeply")
    header = json.loads(head)
    if header["key"] != key or header["length"] != len(payload):
        raise ValueError("header does not match")
    if hashlib.sha256(payload).hexdigest() != header["sha256"]:
        raise ValueError("checksum mismatch")
    took = _recorded(header)
    if header["encoding"] == "json":
        return json.loads(payload), took
    if header["encoding"] == "pickle":
        return pickle.loads(payload), took
    raise ValueError("unknown encoding")


class StoreWriter:
    """Writes a store's trial files on one background thread, at most ``behind`` files behind.

    :meth:`put` encodes the value and returns it as read back at once; the file is written while
    the next trial runs (the engine does so when trials run in other processes; with trials in
    this thread it uses ``behind=0``: a writer thread beside a running trial cost it more than
    the write, docs/sweeps.md). A put that finds ``behind`` writes pending waits for the oldest, so a crash
    of this process loses at most ``behind`` finished trials besides those running (a rerun
    computes them again); ``behind=0`` writes synchronously. :meth:`close` waits for every write
    and raises the first write error (a full disk stops the run, as a synchronous write would).
    """

    def __init__(self, store: TrialStore, behind: int = 1) -> None:
        self.store, self.behind = store, behind
        self._pending: list[Any] = []
        self._pool: Any = None

    def put(self, key: str, value: Any, *, encoding: str = "json",
            took: Recorded | None = None) -> Any:
        data, back = self.store.encode(key, value, encoding, took)
        if self.behind <= 0:
            self.store.write(key, data)
            return back
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="pairlab-store")
        while len(self._pending) >= self.behind:
            self._pending.pop(0).result()
        self._pending.append(self._pool.submit(self.store.write, key, data))
        return back

    def close(self) -> None:
        """Wait for every pending write (raising the first that failed) and end the thread."""
        try:
            while self._pending:
                self._pending.pop(0).result()
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
