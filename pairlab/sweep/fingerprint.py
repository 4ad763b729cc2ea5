"""A fingerprint of the code behind a stored trial, so that editing a plugin recomputes its trials.

Version numbers alone miss the usual case of a researcher editing a recipe or an algorithm in an
editable install: the version stays, the stored numbers no longer come from the code. A trial's key
therefore also hashes the source of the package that provides it (every ``.py`` file of the
top-level package of its module) and of pairlab itself.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from pathlib import Path

__all__ = ["code_fingerprint"]


@functools.cache
def _package_digest(top: str) -> str:
    module = sys.modules.get(top)  # always imported: its algorithm, data set or recipe is loaded
    if module is None:
        return "unknown"
    paths = getattr(module, "__path__", None)
    if paths:  # a package: every Python file below it
        roots = [Path(p) for p in paths]
        files = sorted({(str(f.relative_to(r)), f) for r in roots for f in r.rglob("*.py")
                        if "__pycache__" not in f.parts})
    else:  # a single module
        file = getattr(module, "__file__", None)
        if not file:
            return "unknown"
        files = [(Path(file).name, Path(file))]
    digest = hashlib.sha256()
    for rel, path in files:
        digest.update(rel.encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def code_fingerprint(*modules: str) -> dict[str, str]:
    """SHA-256 (16 hex characters) of the source of pairlab and of the top-level package of each
    of ``modules`` (dotted module names), by package name."""
    tops = ["pairlab", *(m.split(".")[0] for m in modules if m)]
    return {top: _package_digest(top) for top in dict.fromkeys(tops)}
