"""Safe output files: check that a path can be written, and write text atomically (temp file + rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import InvalidInputError

__all__ = ["atomic_write_text", "check_writable_file"]


def check_writable_file(path: str | os.PathLike[str]) -> Path:
    """Refuse, with a clear error, an output path that cannot be written as a regular file.

    A directory, a device or a pipe (``/dev/full``, ``/dev/stdout``: the atomic rename would
    replace the device node), a missing or read-only folder. Callers check before long work, so
    nothing computed is lost to a typo in the output path.
    """
    path = Path(path)
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "a device or other special file"
        raise InvalidInputError(f"cannot write {str(path)!r}: it is {kind}; give a file path.")
    parent = path.parent if str(path.parent) else Path(".")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", dir=parent)
    except OSError as exc:
        raise InvalidInputError(
            f"cannot write {str(path)!r}: {exc.strerror or exc} ({str(parent)!r}); choose a "
            "folder that exists and that you can write to."
        ) from None
    os.close(fd)
    os.unlink(probe)
    return path


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so readers never see half."""
    path = check_writable_file(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        # mkstemp creates the file private (0600); give it the mode a plain open() would have
        # (or keep the mode of the file being replaced).
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
