"""Trial seeds for many trials at once, bit for bit those of :func:`.grid.trial_seed`.

:func:`.grid.trial_seed` is ``SeedSequence([seed, crc32(name), trial]).generate_state(1, uint64)
>> 1``; building a ``SeedSequence`` per trial cost 64.5 us a seed (three seeds a trial, 0.2-0.4 s
of a 1,000-trial sweep; docs/sweeps.md, Measured). :func:`trial_seeds` runs the same hash (numpy's
``SeedSequence``, after O'Neill's ``seed_seq`` alternative: pool of 4 32-bit words, ``hashmix``
and ``mix``) on uint32 arrays, one element a trial: 0.8 us a seed for a cell's 1,000 trials.
The tests compare it with ``SeedSequence`` over random seeds, names and trial indices.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

__all__ = ["trial_seeds"]

_POOL = 4
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_MASK = 0xFFFFFFFF


def _words(n: int) -> list[int]:
    """A non-negative int as little-endian 32-bit words, as ``SeedSequence`` splits its entropy
    (0 is one word)."""
    if n < 0:
        raise ValueError(f"a seed must be >= 0, got {n}")
    out = [n & _MASK]
    n >>= 32
    while n:
        out.append(n & _MASK)
        n >>= 32
    return out


class _Hash:
    """``hashmix`` with its running constant (the constant's sequence does not depend on data)."""

    def __init__(self, init: int, mult: int) -> None:
        self.const, self.mult = init, mult

    def __call__(self, value: np.ndarray) -> np.ndarray:
        value = value ^ np.uint32(self.const)
        self.const = (self.const * self.mult) & _MASK
        value = value * np.uint32(self.const)
        return value ^ (value >> np.uint32(16))


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
    return result ^ (result >> np.uint32(16))


def trial_seeds(seed: int, name: str, trials: Sequence[int] | np.ndarray) -> list[int]:
    """``[trial_seed(seed, name, t) for t in trials]`` (63-bit ints), computed for all at once."""
    t = np.asarray(trials, dtype=np.int64)
    if t.ndim != 1 or (t.size and (t.min() < 0 or t.max() > _MASK)):
        raise ValueError("trial indices must be a flat sequence of ints in [0, 2**32)")
    n = t.size
    fixed = [*_words(int(seed)), zlib.crc32(name.encode())]
    entropy = [np.full(n, w, dtype=np.uint32) for w in fixed] + [t.astype(np.uint32)]
    hashmix = _Hash(_INIT_A, _MULT_A)
    zero = np.zeros(n, dtype=np.uint32)
    pool = [hashmix(entropy[i] if i < len(entropy) else zero) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, len(entropy)):
        for dst in range(_POOL):
            pool[dst] = _mix(pool[dst], hashmix(entropy[src]))
    state = _Hash(_INIT_B, _MULT_B)
    low, high = state(pool[0]).astype(np.uint64), state(pool[1]).astype(np.uint64)
    return [int(v) for v in ((high << np.uint64(32)) | low) >> np.uint64(1)]
