"""Compiled message updates of the chooser network (:class:`.ap_choosers.ChooserAP`).

The same floats as the numpy form they replace (kept in the docstrings of ``ChooserAP``): the same
operations in the same order, numpy's rules for NaN and the sign of zero in ``maximum`` (the
second argument on a tie) and ``clip`` (NaN and a zero in range stay), column sums added row
after row from 0.0 (as ``np.sum(axis=0)``), group sums as ``np.add.reduceat`` adds them (the
group's first row plus numpy's pairwise sum of the others), no fast-math. One or two passes
over the (r, n) arrays instead of numpy's whole-array temporaries and fancy-indexed copies;
compiled with numba (``cache=True``).
"""

from __future__ import annotations

import numba
import numpy as np

from .numpy_sums import pairwise_sum


@numba.njit(cache=True, inline="always")
def _maximum(x: float, c: float) -> float:
    """np.maximum(x, c): x when larger or NaN, else c (c on a tie, so the sign of c's zero)."""
    return x if (x > c or x != x) else c


@numba.njit(cache=True, inline="always")
def _clip(x: float, low: float, high: float) -> float:
    """np.clip(x, low, high): NaN and values in range (a zero's sign too) stay."""
    if x < low:
        return low
    if x > high:
        return high
    return x


@numba.njit(cache=True)
def chooser_availabilities(R: np.ndarray, A: np.ndarray, self_row: np.ndarray, p: float,
                           damping: float) -> None:
    """A <- damping A - (1 - damping) t with SCAP's alpha (penalty p; inf: affinity propagation):
    own entries t = max(max(r_own, -p) - c_j, -p), others t = clip(max(r_ij, 0) - c_j, 0, inf),
    c_j the column sum of max(r, 0) with max(r_own, -p) at the own entry."""
    r, n = R.shape
    keep = 1.0 - damping
    low = -p
    col = np.zeros(n)
    for i in range(r):
        for j in range(n):
            x = R[i, j]
            col[j] += _maximum(x, low) if self_row[j] == i else _maximum(x, 0.0)
    for i in range(r):
        for j in range(n):
            x = R[i, j]
            if self_row[j] == i:
                q = _maximum(_maximum(x, low) - col[j], low)
            else:
                q = _maximum(x, 0.0) - col[j]
                if q < 0.0:
                    q = 0.0
            A[i, j] = A[i, j] * damping - q * keep


@numba.njit(cache=True)
def cannot_link_messages(A: np.ndarray, R: np.ndarray, S: np.ndarray, S_hat: np.ndarray,
                         gamma: np.ndarray, second: np.ndarray, by_first: np.ndarray,
                         starts: np.ndarray, linked_rows: np.ndarray, q_cap: float) -> None:
    """gamma rows h and h + half (the two directions of one cannot-link) in place:
    gamma_h = clip(-(alpha + rho of chooser second[h] - old gamma of the other direction), -q, 0);
    then S_hat[row] = S[row] + the sum of the row's gamma rows (in ``by_first`` order)."""
    m, n = gamma.shape
    half = m // 2
    for h in range(half):
        a, b = second[h], second[h + half]
        for j in range(n):
            old_h, old_o = gamma[h, j], gamma[h + half, j]
            gamma[h, j] = _clip(-((A[a, j] + R[a, j]) - old_o), -q_cap, 0.0)
            gamma[h + half, j] = _clip(-((A[b, j] + R[b, j]) - old_h), -q_cap, 0.0)
    acc = np.empty(n)
    rest = np.empty(n)
    for g in range(starts.size):
        end = starts[g + 1] if g + 1 < starts.size else by_first.size
        group_sum(gamma, by_first[starts[g]:end], acc, rest)
        target = linked_rows[g]
        for j in range(n):
            S_hat[target, j] = S[target, j] + acc[j]


@numba.njit(cache=True)
def group_sum(X: np.ndarray, rows: np.ndarray, acc: np.ndarray, rest: np.ndarray) -> None:
    """acc = np.add.reduceat's sum of the rows ``rows`` of X: the first row plus numpy's pairwise
    sum of the others (``pairwise_sum``: from 0.0 one by one below 8 terms, eight interleaved
    partial sums up to 128, halves above). The first row is copied element by element: numba's
    broadcasting slice assignment (``acc[:] = X[rows[0]]``) compiled its shape check and error
    message, about 4 s of a cold first SSAP-G fit."""
    first = X[rows[0]]
    for j in range(acc.size):
        acc[j] = first[j]
    count = rows.size - 1
    if count == 0:
        return
    if count < 8:
        rest[:] = 0.0
        for k in range(1, rows.size):
            row = X[rows[k]]
            for j in range(rest.size):
                rest[j] += row[j]
        for j in range(acc.size):
            acc[j] += rest[j]
        return
    col = np.empty(count)
    for j in range(acc.size):
        for k in range(count):
            col[k] = X[rows[k + 1], j]
        acc[j] += pairwise_sum(col, 0, count)


@numba.njit(cache=True)
def best_columns(A: np.ndarray, R: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """cols[np.argmax(A[:, cols] + R[:, cols], axis=1)] (the first largest; the first NaN)."""
    r = A.shape[0]
    out = np.empty(r, dtype=np.intp)
    for i in range(r):
        best = cols[0]
        top = A[i, best] + R[i, best]
        if top == top:
            for c in cols[1:]:
                v = A[i, c] + R[i, c]
                if v > top:
                    top, best = v, c
                elif v != v:
                    best = c
                    break
        out[i] = best
    return out
