"""NumPy's summation order, compiled: the pairwise sum ``ndarray.sum`` and ``np.add.reduceat`` use
for float64 (numpy/_core/src/umath/loops_utils.h.src), so compiled kernels that replace NumPy
expressions give the same floats bit for bit (tests/test_cop_kmeans.py checks :func:`numpy_sum`
against ``ndarray.sum`` on the installed NumPy; tests/test_ssap_kernels.py the group sums against
``np.add.reduceat``)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["numpy_sum", "pairwise_sum"]

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
def pairwise_sum(a: np.ndarray, lo: int, n: int) -> float:
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
    return pairwise_sum(a, 0, a.size)
