"""Compiled message updates of the dense affinity-propagation engine (:mod:`.ap_messages`).

The damped availabilities (eq. 14) and responsibilities (eq. 25) in one or two passes over the
(n, n) arrays, without the whole-array temporaries of the numpy form. Every value is the float
numpy computes (and scikit-learn, whose loop the numpy form follows): the same operations in the
same order, numpy's rules for NaN, -inf and the sign of zero in ``maximum`` and ``clip``, the
column sums added row after row from the first row, and no fast-math. Compiled with numba
(``cache=True``), imported at the first iteration.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def responsibilities(S_hat: np.ndarray, A: np.ndarray, R: np.ndarray, damping: float) -> None:
    """R <- damping * R + (1 - damping) * (s_hat(i, j) - max_{k != j} (s_hat(i, k) + a(i, k))),
    row by row (rows may be longer than they are many: chooser networks)."""
    n, m = S_hat.shape
    keep = 1.0 - damping
    for i in range(n):
        s, a, r = S_hat[i], A[i], R[i]
        best, first, second = _top_two(a, s)
        for j in range(m):
            t = s[j] - (second if j == best else first)
            r[j] = r[j] * damping + t * keep


@numba.njit(cache=True)
def _top_two(a: np.ndarray, s: np.ndarray) -> tuple[int, float, float]:
    """numpy's arg max of a + s (the first largest; the first NaN), its value, and the max over
    the other entries (NaN if one is; -inf if there is none)."""
    m = a.size
    best, first, second = 0, a[0] + s[0], -np.inf
    for j in range(1, m):
        v = a[j] + s[j]
        if v > first:
            second = first
            first = v
            best = j
        elif v > second:
            second = v
        elif v != v:
            break
    else:
        if first == first:
            return best, first, second
    # a NaN: the slow way, as numpy does it (numba's arg max returns the first NaN, as numpy's)
    row = a + s
    best = int(np.argmax(row))
    first = row[best]
    second = -np.inf
    for j in range(m):
        if j != best:
            v = a[j] + s[j]
            if v != v:
                return best, first, v
            if v > second:
                second = v
    return best, first, second


@numba.njit(cache=True)
def availabilities(R: np.ndarray, A: np.ndarray, damping: float) -> None:
    """A <- damping * A + (1 - damping) * alpha(R) for square R, A (eq. 14):
    alpha_ij = min(0, r_jj + sum_{k not in {i, j}} max(r_kj, 0)), alpha_jj = sum_{k != j} max(r_kj, 0)."""
    n = R.shape[0]
    keep = 1.0 - damping
    col = np.empty(n)
    for i in range(n):                # column sums of max(R, 0) with R's diagonal, row by row
        r = R[i]
        for j in range(n):
            x = r[j]
            p = x if (i == j or x > 0.0 or x != x) else 0.0
            col[j] = p if i == 0 else col[j] + p
    for i in range(n):
        r, a = R[i], A[i]
        for j in range(n):
            x = r[j]
            if i == j:
                q = x - col[j]
            else:
                q = (x if (x > 0.0 or x != x) else 0.0) - col[j]
                if q < 0.0:           # np.clip(q, 0, inf): NaN and -0.0 stay
                    q = 0.0
            a[j] = a[j] * damping - q * keep
