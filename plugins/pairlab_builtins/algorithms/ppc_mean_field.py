"""PPC's mean-field fixed point (Lu & Leen 2007, eq. 3.5 with the factor 2 of section 5.2.2).

``mean_field_sweeps`` runs the coordinate ascent one colour class at a time (nodes of a class
share no relation, so updating a class at once is the paper's sequential scan in another order;
a 4-neighbour grid has two classes, the checkerboard). Each update sets

    Q_i(k) <- exp(U_i(k) + 2 sum_j W_ij Q_j(k)) / norm,

the exact maximiser of the mean-field free energy (eq. 3.3) over Q_i with the others fixed, so the
free energy never decreases.

**Only stale nodes are recomputed** (issue 37). The update of node i is a function of its
neighbours' Q alone, so if no neighbour's Q has changed since i was last updated, recomputing i
gives its current Q bit for bit. A sweep therefore recomputes only the nodes with a neighbour
whose Q moved (by any amount: the test is ``!= 0``, not a threshold), and its result, the
per-sweep change and the number of sweeps are those of full sweeps, bit for bit
(``tests/test_ppc_mean_field.py`` compares with ``active_set=False``). On a large image most
nodes settle after a few sweeps while a few fronts move on, so late sweeps touch a few hundred
nodes instead of all of them.

Row sums are explicit column additions (not a BLAS product, whose summation order may depend on
the number of rows), so a node's update does not depend on which other nodes share its sweep.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["mean_field_sweeps"]


def _row_max(a: np.ndarray) -> np.ndarray:
    """Row maxima of an (n, M) array, column by column (numpy's axis=1 reduction is slow for small M)."""
    m = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        np.maximum(m, a[:, k], out=m)
    return m


def _normalise_rows(p: np.ndarray) -> None:
    """p /= its row sums, in place; the sums are taken column by column (a fixed order per row)."""
    s = p[:, 0].copy()
    for k in range(1, p.shape[1]):
        s += p[:, k]
    p /= s[:, None]


def _neighbours(W: sp.csr_matrix, nodes: np.ndarray) -> np.ndarray:
    """Column indices of the rows ``nodes`` of W (with repeats)."""
    starts, ends = W.indptr[nodes], W.indptr[nodes + 1]
    counts = ends - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=W.indices.dtype)
    offsets = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(total)
    return W.indices[offsets]


def mean_field_sweeps(W: sp.csr_matrix, blocks: list[tuple[slice, sp.csr_matrix]], U: np.ndarray,
                      Q: np.ndarray, max_iter: int, tol: float, shift_once: bool,
                      active_set: bool = True) -> tuple[np.ndarray, int]:
    """Eq. 3.5 swept one colour class at a time until no Q_i(k) moves by more than ``tol`` or
    ``max_iter`` sweeps; returns (Q, sweeps).

    ``W`` is the symmetric weight matrix with nodes sorted by colour; ``blocks`` holds each class's
    slice of nodes and its rows of 2 W. ``shift_once``: exp(U - max U) * exp(2 W Q) cannot
    overflow (2 sum_j |W_ij| moderate), so exp(U) is taken once. ``active_set=False`` recomputes
    every node in every sweep (the reference; same result bit for bit).
    """
    Q = Q.copy()
    n = Q.shape[0]
    P0 = np.exp(U - _row_max(U)[:, None]) if shift_once else None
    stale = np.ones(n, dtype=bool)
    it = 0
    while it < max_iter:
        it += 1
        delta = 0.0
        for sl, W2 in blocks:
            rows = np.flatnonzero(stale[sl]) if active_set else None
            if rows is not None and rows.size == 0:
                continue
            if rows is None or rows.size == sl.stop - sl.start:
                idx: slice | np.ndarray = sl                   # the whole class
                new = W2 @ Q                                   # the field 2 sum_j W_ij Q_j(k)
            else:
                idx = rows + sl.start                          # its stale nodes
                new = W2[rows] @ Q
            if P0 is not None:                                 # in place: no temporaries
                np.exp(new, out=new)
                new *= P0[idx]
            else:
                new += U[idx]
                new -= _row_max(new)[:, None]
                np.exp(new, out=new)
            _normalise_rows(new)
            old = Q[idx]                    # a view (whole class) or a copy (stale nodes)
            old -= new
            np.abs(old, out=old)
            moved = _row_max(old)
            delta = max(delta, float(moved.max()))
            Q[idx] = new
            if active_set:
                stale[idx] = False
                nodes = np.arange(sl.start, sl.stop) if isinstance(idx, slice) else idx
                stale[_neighbours(W, nodes[moved > 0.0])] = True
        if delta <= tol:
            break
    return Q, it
