"""Compiled assignment pass of soft-CKmeans (:meth:`.cop_kmeans.SoftCOPKMeans.assign`).

The pass visits the constrained points one by one (each choice prices the links to the partners
already placed), so it cannot be vectorised; as a Python loop it was 93 % of a soft-CKmeans fit
(profiled on PPC Fig. 10's artificial set 3). The kernel computes the same numbers in the same
order as the NumPy expressions it replaces, bit for bit: the sum of the placed must-link weights
as ``ndarray.sum`` forms it (:func:`numpy_sum`: NumPy's pairwise summation), the per-cluster
sums as ``np.bincount`` does (in order), and ties go to the nearer centre, then the lower index
(the stable ``argsort`` of the distances). Compiled with numba
(``cache=True``), no fast-math.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["numpy_sum", "soft_pass"]

_BLOCK = 128  # NumPy's PW_BLOCKSIZE


@numba.njit(cache=True)
def _block(a: np.ndarray, lo: int, n: int) -> float:
    """NumPy's pairwise sum of ``a[lo:lo + n]`` for n <= 128 (numpy's loops_utils.h)."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r = np.empty(8)
    for j in range(8):
        r[j] = a[lo + j]
    i = 8
    while i < n - (n % 8):
        for j in range(8):
            r[j] += a[lo + i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@numba.njit(cache=True)
def _pairwise(a: np.ndarray, lo: int, n: int) -> float:
    """NumPy's pairwise sum of ``a[lo:lo + n]``: blocks of <= 128 summed by :func:`_block`, longer
    runs split at ``n2 = n // 2 - (n // 2) % 8`` and the halves added; evaluated with an explicit
    stack (post-order) instead of recursion."""
    tasks = np.empty((256, 3), dtype=np.int64)  # (lo, n, combine?)
    values = np.empty(256)
    nt, nv = 1, 0
    tasks[0, 0], tasks[0, 1], tasks[0, 2] = lo, n, 0
    while nt > 0:
        nt -= 1
        t_lo, t_n, combine = tasks[nt, 0], tasks[nt, 1], tasks[nt, 2]
        if combine:
            nv -= 1
            values[nv - 1] = values[nv - 1] + values[nv]
        elif t_n <= _BLOCK:
            values[nv] = _block(a, t_lo, t_n)
            nv += 1
        else:
            n2 = t_n // 2
            n2 -= n2 % 8
            tasks[nt, 0], tasks[nt, 1], tasks[nt, 2] = 0, 0, 1
            tasks[nt + 1, 0], tasks[nt + 1, 1], tasks[nt + 1, 2] = t_lo + n2, t_n - n2, 0
            tasks[nt + 2, 0], tasks[nt + 2, 1], tasks[nt + 2, 2] = t_lo, n2, 0
            nt += 3
    return values[0]


@numba.njit(cache=True)
def numpy_sum(a: np.ndarray) -> float:
    """``a.sum()`` of a contiguous float64 vector as NumPy (2.x) forms it: its pairwise sum
    (tests/test_cop_kmeans.py checks the equality bit for bit on the installed NumPy)."""
    return _pairwise(a, 0, a.size)


@numba.njit(cache=True)
def soft_pass(d2: np.ndarray, labels: np.ndarray, todo: np.ndarray, ml_ptr: np.ndarray,
              ml_idx: np.ndarray, ml_w: np.ndarray, cl_ptr: np.ndarray, cl_idx: np.ndarray,
              cl_w: np.ndarray, w: float) -> None:
    """Table 1's pass with priced links (Lu & Leen 2007, eq. C.1), in place on ``labels``: each
    point of ``todo`` in turn takes the cluster h minimising ``1/2 d2[i, h] + w (sum of placed
    must-link partner weights outside h) + w (sum of placed cannot-link partner weights in h)``.
    The must-link and cannot-link adjacencies are CSR arrays (ptr, indices, weights)."""
    n, k = d2.shape
    assigned = np.full(n, -1, dtype=np.int64)
    placed_w = np.empty(ml_idx.size)
    binm = np.empty(k)
    binc = np.empty(k)
    for t in range(todo.size):
        i = todo[t]
        binm[:] = 0.0
        m = 0
        for p in range(ml_ptr[i], ml_ptr[i + 1]):
            c = assigned[ml_idx[p]]
            if c >= 0:
                placed_w[m] = ml_w[p]
                m += 1
                binm[c] += ml_w[p]
        total = numpy_sum(placed_w[:m])
        binc[:] = 0.0
        for p in range(cl_ptr[i], cl_ptr[i + 1]):
            c = assigned[cl_idx[p]]
            if c >= 0:
                binc[c] += cl_w[p]
        best = -1
        best_cost = 0.0
        for h in range(k):
            cost = 0.5 * d2[i, h]
            cost += w * (total - binm[h])
            cost += w * binc[h]
            if (best < 0 or cost < best_cost
                    or (cost == best_cost and d2[i, h] < d2[i, best])):
                best, best_cost = h, cost
        assigned[i] = best
        labels[i] = best
