"""Finished trials on disk: appended to a log, checked when read back.

A trial is one record: a JSON header line (key, encoding, payload length and SHA-256, when it was
written, and the trial's wall and CPU seconds when they were measured), the payload (JSON for sweep
rows, pickle for a recipe's trial, which may hold arrays) and a newline. Each store object appends
its records to a log file of its own, ``root/log/<time>-<pid>-<token>.log``, opened on its first
write; reading, the newest record of a key wins (a ``fresh`` run's records replace the older
ones). A log whose records have all been replaced by newer ones is deleted when a writing store
closes, unless another process still holds it open for writing.

Why a log and not a file per trial (the layout before 27 Nov 2026, still read: ``root/ab/<key>.trial``):
creating a file per trial made the file system's journal and the disk work for every trial, and on
the development machine (a virtual machine) that slowed the trials themselves: 20 ms trials
between which a trial file was written were slow (30-40 ms) 46 % of the time against 31 % when
the same records were appended to one file and 35 % with nothing written (in the third of three
such measurements, with the host slow most of the time, 71 %, 64 % and 69 %; docs/sweeps.md,
Measured, eighth session). Appending a record is one ``write`` system call on a file already open.

Crashes: a record is written with one ``write`` call; a process killed mid-write leaves a torn last
record, which readers ignore (its trial is computed again), as they ignore the last record of a
log another process is still writing. Records are not fsynced: after a power loss a record the disk
had not written fails its checksum or is torn and is recomputed, which is all a sweep needs (an
fsync per trial cost 8.6 ms, 40 % of a 20 ms trial). A record whose header, length or checksum
does not match (a disk error, a hand edit) is reported as corrupt and its trial computed again; it
is never silently used. A log damaged in the middle (a header that is not one) is renamed
``*.corrupt`` (kept for inspection) after its intact records before the damage are copied to the
reading store's own log.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import pickle
import secrets
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["Recorded", "StoreWriter", "TrialStore"]

_SUFFIX = ".trial"      # the per-trial files of stores written before the log
_LOG_DIR = "log"
_LOG_SUFFIX = ".log"
#: ``json.dumps(v, sort_keys=True)`` without building an encoder each call (the same text)
_SORTED_JSON = json.JSONEncoder(sort_keys=True)


class Recorded(NamedTuple):
    """A stored trial's measured time, as the worker saw it (header fields ``wall_seconds`` and
    ``cpu_seconds``)."""

    wall: float
    cpu: float


class _Entry(NamedTuple):
    """Where a key's newest record is: its ``written`` stamp, the log and the record's offset."""

    written: int
    path: str
    offset: int


class TrialStore:
    """Trials keyed by content hash under ``root`` (``root/log/*.log``; older stores' files
    ``root/ab/abcdef....trial`` are still read)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.corrupt: list[str] = []  # keys of records found damaged (and not used) by get()
        self._root = str(self.root)
        self._token = secrets.token_hex(4)
        self._lock = threading.RLock()   # a StoreWriter appends from its thread
        self._index: dict[str, _Entry] | None = None   # built on first read
        self._scanned: set[str] = set()  # logs read into the index
        self._fd: int | None = None      # this store's own log, once it wrote
        self._log = ""
        self._size = 0

    def path(self, key: str) -> Path:
        """Where a store written before the log kept ``key``'s file."""
        return self.root / key[:2] / f"{key}{_SUFFIX}"

    # -- reading ---------------------------------------------------------------------------
    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, value)`` for a stored, intact trial; ``(False, None)`` otherwise.

        A damaged record is left out and its key recorded in :attr:`corrupt` (a damaged old
        per-trial file is renamed to ``*.corrupt``).
        """
        found, value, _took = self.get_record(key)
        return found, value

    def get_record(self, key: str) -> tuple[bool, Any, Recorded | None]:
        """:meth:`get` with the trial's recorded time (None for a record written without one)."""
        with self._lock:
            entry = self._entries().get(key)
        if entry is None:
            return self._get_file(key)
        try:
            with open(entry.path, "rb") as f:
                f.seek(entry.offset)
                head = f.readline()
                length = _header(head)["length"]
                raw = head + f.read(length)
            return (True, *_decode(raw, key))
        except (OSError, ValueError, KeyError, TypeError, pickle.UnpicklingError, EOFError,
                RecursionError):
            self.corrupt.append(key)
            with self._lock:
                if self._entries().get(key) == entry:
                    del self._entries()[key]
            return False, None, None

    def _get_file(self, key: str) -> tuple[bool, Any, Recorded | None]:
        """A trial from an older store's own file (``root/ab/<key>.trial``)."""
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

    def __contains__(self, key: str) -> bool:
        with self._lock:
            if key in self._entries():
                return True
        return self.path(key).is_file()

    def keys(self) -> list[str]:
        """The keys with a record (not checked) or an older store's file, sorted."""
        with self._lock:
            found = set(self._entries())
        if self.root.is_dir():
            found |= {p.name[:-len(_SUFFIX)] for p in self.root.glob(f"*/*{_SUFFIX}")}
        return sorted(found)

    def _entries(self) -> dict[str, _Entry]:
        """The index of the logs (read on first use; the caller holds the lock)."""
        if self._index is None:
            self._index = {}
            folder = os.path.join(self._root, _LOG_DIR)
            try:
                names = sorted(n for n in os.listdir(folder) if n.endswith(_LOG_SUFFIX))
            except (FileNotFoundError, NotADirectoryError):
                names = []
            for name in names:
                self._scan(os.path.join(folder, name))
        return self._index

    def _scan(self, path: str) -> None:
        """Index the records of one log; a torn last record is left out, damage in the middle
        sets the log aside (its intact records before the damage copied to this store's log)."""
        assert self._index is not None
        self._scanned.add(path)
        found: list[tuple[str, _Entry]] = []
        damaged = None
        try:
            f = open(path, "rb")
        except OSError:
            return
        with f:
            offset = 0
            while True:
                head = f.readline()
                if not head.endswith(b"\n"):
                    break                   # the end, or a torn last record
                try:
                    header = _header(head)
                    key, written = header["key"], header["written"]
                    if not isinstance(key, str) or isinstance(written, bool) \
                            or not isinstance(written, int):
                        raise ValueError("bad key or stamp")
                except (ValueError, KeyError, TypeError, RecursionError):
                    damaged = offset
                    break
                end = offset + len(head) + header["length"]
                f.seek(end)
                last = f.read(1)
                if not last:
                    break                   # torn: the payload is not all there
                if last != b"\n":
                    damaged = offset
                    break
                found.append((key, _Entry(written, path, offset)))
                offset = end + 1
        if damaged is not None and path != self._log:
            self.corrupt.append(f"{os.path.basename(path)} at byte {damaged}")
            self._salvage(path, found)
            return
        for key, entry in found:
            self._index_entry(key, entry)

    def _index_entry(self, key: str, entry: _Entry) -> None:
        """Index ``entry`` unless the key has a newer record (the caller built the index)."""
        assert self._index is not None
        old = self._index.get(key)
        if old is None or entry.written >= old.written:
            self._index[key] = entry

    def _salvage(self, path: str, found: list[tuple[str, _Entry]]) -> None:
        """Copy a damaged log's intact records to this store's log; set the log aside."""
        with open(path, "rb") as f:
            for key, entry in found:
                f.seek(entry.offset)
                head = f.readline()
                record = head + f.read(_header(head)["length"] + 1)
                self._append(key, entry.written, record)
        _set_aside(Path(path))

    # -- writing ---------------------------------------------------------------------------
    def put(self, key: str, value: Any, *, encoding: str = "json",
            took: Recorded | None = None) -> Any:
        """Store ``value`` (with its time ``took``, if measured); return it as read back (so a
        fresh trial and a resumed one reach the caller in the same form)."""
        data, back = self.encode(key, value, encoding, took)
        self.write(key, data)
        return back

    def encode(self, key: str, value: Any, encoding: str = "json",
               took: Recorded | None = None) -> tuple[bytes, Any]:
        """The record's bytes for ``value`` and the value as it will read back (what :meth:`put`
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
                                  "sha256": hashlib.sha256(payload).hexdigest(),
                                  "written": time.time_ns()}
        if took is not None:
            header["wall_seconds"], header["cpu_seconds"] = _seconds(took.wall), _seconds(took.cpu)
        return _SORTED_JSON.encode(header).encode() + b"\n" + payload + b"\n", back

    def write(self, key: str, data: bytes) -> None:
        """Append a record made by :meth:`encode` to this store's log (one ``write`` call; a
        write that fails is cut off again, so the log never holds half a record before a
        whole one)."""
        self._append(key, None, data)

    def _append(self, key: str, written: int | None, record: bytes) -> None:
        """Append ``record`` and index it if the index is built (``written`` None: read from its
        header, which only an index needs)."""
        with self._lock:
            if self._fd is None:
                self._open_log()
            fd, offset = self._fd, self._size
            try:
                view = memoryview(record)
                while view:
                    view = view[os.write(fd, view):]
            except BaseException:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, offset)
                raise
            self._size = offset + len(record)
            if self._index is not None:
                if written is None:
                    written = _header(record[:record.index(b"\n") + 1])["written"]
                self._index_entry(key, _Entry(written, self._log, offset))

    def _open_log(self) -> None:
        folder = os.path.join(self._root, _LOG_DIR)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{time.time_ns():x}-{os.getpid()}-{self._token}{_LOG_SUFFIX}")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        _flock(fd, wait=True)  # held while this store writes: never collected
        self._fd, self._log, self._size = fd, path, 0
        if self._index is not None:
            self._scanned.add(path)

    def close(self) -> None:
        """Close this store's log and delete the logs all of whose records are replaced by
        newer ones (none that another process holds open for writing)."""
        with self._lock:
            if self._fd is None:
                return
            try:
                if self._index is None:
                    self._entries()
                live = {e.path for e in self._index.values()}
                for path in sorted(self._scanned - live - {self._log}):
                    _delete_if_idle(path)
            finally:
                os.close(self._fd)
                self._fd = None

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)


def _flock(fd: int, *, wait: bool) -> bool:
    """An exclusive advisory lock on an open log (none where fcntl does not exist): True if
    taken."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: logs are then never collected
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _delete_if_idle(path: str) -> None:
    """Delete a log unless a store holds it open for writing."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        if _flock(fd, wait=False):
            with contextlib.suppress(OSError):
                os.unlink(path)
    finally:
        os.close(fd)


def _set_aside(path: Path) -> None:
    """Rename a damaged file to ``*.corrupt`` (``*.corrupt-N`` when that name is taken)."""
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


def _header(head: bytes) -> dict[str, Any]:
    """A header line parsed and its shape checked (one flat object with a length >= 0)."""
    if head.count(b"[") + head.count(b"{") > 100:  # a sane header is one flat object
        raise ValueError("header nested too deeply")
    header = json.loads(head)
    if not isinstance(header, dict):
        raise ValueError("header is not an object")
    length = header["length"]
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise ValueError("bad length")
    return header


def _decode(raw: bytes, key: str) -> tuple[Any, Recorded | None]:
    head, sep, payload = raw.partition(b"\n")
    if not sep:
        raise ValueError("no header")
    header = _header(head)
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
    """Writes a store's records on one background thread, at most ``behind`` records behind.

    :meth:`put` encodes the value and returns it as read back at once; the record is written while
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
