"""Results of functions of read-only arrays, kept by the arrays' identity.

The teaching app draws every frame from the same data: the true classes, the data's view and the
links do not change with the iteration (a :class:`~pairlab.Dataset` and a
:class:`~pairlab.Constraints` keep their arrays read-only). What is computed from those arrays
alone (class codes, link segments) is kept here instead of being computed for every pane of
every frame. Nothing that depends on a state is kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["FrozenMemo", "is_frozen"]


def is_frozen(a: object) -> bool:
    """Whether ``a`` is an array whose values cannot change: it and every array it is a view of
    are read-only (a read-only view of a writeable array is not frozen)."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return a is None or isinstance(a, bytes)


class FrozenMemo:
    """The last ``size`` results of ``func(*arrays)`` for frozen arrays (:func:`is_frozen`),
    recognised by identity (the arrays are kept alive with the result, so an id is never
    reused while its entry lasts). Arguments that are not frozen are computed every time."""

    def __init__(self, func: Callable[..., Any], size: int = 8) -> None:
        self.func = func
        self.size = size
        self._entries: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}
        self._lock = threading.Lock()

    def __call__(self, *arrays: Any) -> Any:
        if not all(is_frozen(a) for a in arrays):
            return self.func(*arrays)
        key = tuple(id(a) for a in arrays)
        with self._lock:
            hit = self._entries.get(key)
        if hit is not None:
            return hit[1]
        result = self.func(*arrays)
        with self._lock:
            while len(self._entries) >= self.size:
                del self._entries[next(iter(self._entries))]
            self._entries[key] = (arrays, result)
        return result
