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

from .numpy_sums import numpy_sum

__all__ = ["numpy_sum", "soft_pass"]

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
