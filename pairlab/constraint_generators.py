"""Constraint generators: pairs sampled from ground-truth labels (the papers' protocol)."""

from __future__ import annotations

import numpy as np

from .constraints import Constraints
from .errors import InvalidInputError

__all__ = ["random_pairs"]


def _sample_pairs(y: np.ndarray, count: int, same: bool, rng: np.random.Generator,
                  exclude: set[int]) -> list[tuple[int, int]]:
    n = y.size
    counts = np.bincount(y)
    available = int((counts * (counts - 1)).sum() // 2)
    if not same:
        available = n * (n - 1) // 2 - available
    if count > available:
        kind = "must-links" if same else "cannot-links"
        raise InvalidInputError(f"asked for {count} {kind}, but the labels allow only {available}.")
    out: list[tuple[int, int]] = []
    seen = set(exclude)
    while len(out) < count:
        need = count - len(out)
        i = rng.integers(n, size=4 * need + 16)
        j = rng.integers(n, size=4 * need + 16)
        for a, b in zip(i.tolist(), j.tolist(), strict=True):
            if a == b or (y[a] == y[b]) != same:
                continue
            a, b = min(a, b), max(a, b)
            key = a * n + b
            if key in seen:
                continue
            seen.add(key)
            out.append((a, b))
            if len(out) == count:
                break
    return out


def random_pairs(y: np.ndarray, n_must_link: int, n_cannot_link: int,
                 rng: np.random.Generator) -> Constraints:
    """Distinct random pairs: must-links within a class, cannot-links across classes.

    Pairs are drawn uniformly among pairs with the required relation, without repetition.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise InvalidInputError("labels must be 1-D")
    if n_must_link < 0 or n_cannot_link < 0:
        raise InvalidInputError("the numbers of links must be >= 0")
    _, y = np.unique(y, return_inverse=True)
    ml = _sample_pairs(y, n_must_link, True, rng, set())
    cl = _sample_pairs(y, n_cannot_link, False, rng, set())
    return Constraints(ml or None, cl or None, n_samples=y.size)
