"""PPC's mean-field fixed point (Lu & Leen 2007, eq. 3.5 with the factor 2 of section 5.2.2).

``mean_field_sweeps`` runs the coordinate ascent one colour class at a time (nodes of a class
share no relation, so updating a class at once is the paper's sequential scan in another order;
a 4-neighbour grid has two classes, the checkerboard). Each update sets

    Q_i(k) <- exp(U_i(k) + 2 sum_j W_ij Q_j(k)) / norm,

the exact maximiser of the mean-field free energy (eq. 3.3) over Q_i with the others fixed, so the
free energy never decreases.

**Only stale nodes are recomputed** (issue 37). The update of node i is a function of its
neighbours' Q alone: if none of them has moved since i was last updated, recomputing i gives its
current Q bit for bit, and if they moved a little, i's field moved by at most 2 sum_j |W_ij|
|dQ_j|. A sweep recomputes only the nodes whose field may have moved by more than eps = tol / 8
(bookkeeping in ``_Staleness``); a node skipped would move by at most e^{tol/2} - 1 < tol, so the
stopping rule (no Q_i(k) moves by more than ``tol``) means what it meant with full sweeps. With
tol = 0 only nodes whose inputs did not change at all are skipped, and Q, the per-sweep change and
the number of sweeps equal those of full sweeps bit for bit (``tests/test_ppc_mean_field.py``
compares with ``active_set=False``). On a large image most nodes settle within a few sweeps while
a few fronts move on, so late sweeps touch few nodes (the bench's first E-step: a median of 0.3%
of a class's nodes at 512 x 512, 3.8% at 64 x 64; docs/algorithms/ppc.md). The bookkeeping has a
fixed cost per class update, so graphs whose colour classes average fewer than
:data:`ACTIVE_MIN_CLASS` nodes are swept whole (the same result at tol = 0, within tol otherwise).
Stale rows are multiplied by :func:`_rows_times`, which adds each row's entries in scipy's order.

Row sums are explicit column additions (not a BLAS product, whose summation order may depend on
the number of rows), so a node's update does not depend on which other nodes share its sweep.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["mean_field_sweeps"]

#: a class with at least this share of stale nodes is recomputed whole (its other nodes get the
#: same bits again; one product over the class is cheaper than gathering most of its rows)
_WHOLE = 0.5

#: ``active_set=None`` tracks stale nodes only when the colour classes hold this many nodes on
#: average: the bookkeeping costs some 20 small array operations a class update whatever the
#: number of stale nodes, more than recomputing a small class whole (one EM iteration on the
#: bench's texture grid, CPU: 64 x 64, 80 x 80 and 90 x 90 slower with stale nodes, 96 x 96 and
#: larger faster; docs/algorithms/ppc.md)
ACTIVE_MIN_CLASS = 4096


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


def _row_entries(W: sp.csr_matrix, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions in ``W.indices`` / ``W.data`` of the entries of the rows ``nodes``, and each
    row's entry count."""
    starts = W.indptr[nodes]
    counts = W.indptr[nodes + 1] - starts
    ends = np.cumsum(counts)
    return np.repeat(starts - (ends - counts), counts) + np.arange(ends[-1] if ends.size else 0), counts


#: stale rows up to this many are multiplied by :func:`_rows_times` (on the 512 x 512 grid it
#: took 0.09 ms for 10 or 100 rows against scipy's 0.16-0.19 ms, and lost from about 1,000 rows)
_GATHER_ROWS = 512


def _set_rows(a: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``a[rows] = values`` for a C-contiguous 2-D float array, each row moved as one item (numpy's
    2-D fancy assignment is several times slower for narrow rows)."""
    row = np.dtype((np.void, a.dtype.itemsize * a.shape[1]))
    a.view(row).reshape(-1)[rows] = np.ascontiguousarray(values, dtype=a.dtype).view(row).reshape(-1)


def _rows_times(W2: sp.csr_matrix, rows: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """``W2[rows] @ Q`` without building the sub-matrix (scipy's row indexing costs ~0.1 ms of
    fixed work, more than the product for a few rows). Each row's entries are added one after
    the other from 0, in their stored order, as scipy's CSR product adds them, so the result is
    the same bit for bit: one pass over the rows per entry rank (a grid's rows have at most 4),
    a row without an entry of that rank adding an exact 0. Many rows (scipy's loop is then
    faster) and rows of very unequal lengths (the passes would do more than twice the work) go
    to scipy."""
    if rows.size > _GATHER_ROWS:
        return W2[rows] @ Q
    starts = W2.indptr[rows]
    counts = W2.indptr[rows + 1] - starts
    high = int(counts.max(initial=0))
    if high * rows.size > 2 * int(counts.sum()) + 64:
        return W2[rows] @ Q
    out = np.zeros((rows.size, Q.shape[1]))
    last = W2.data.size - 1
    for rank in range(high):
        pos = starts + rank
        weight = W2.data.take(np.minimum(pos, last))
        short = counts <= rank
        if short.any():
            pos = np.minimum(pos, last)
            weight[short] = 0.0                        # Q is finite: adds an exact 0
        out += weight[:, None] * Q.take(W2.indices.take(pos), axis=0)
    return out


class _Staleness:
    """Which nodes a sweep must recompute, with a bound on how far the others would move.

    ``pending[i]`` bounds how much node i's field 2 sum_j W_ij Q_j(k) has moved (in any k) since i
    was last updated, from the moves its neighbours have passed on; a neighbour passes its moves on
    once they add up to more than ``theta`` (a move of 0 is never passed on), so the part not yet
    passed on adds at most ``eps`` = theta max_i 2 sum_j |W_ij|. Node i is recomputed when
    ``pending[i] > eps``. A node skipped has a field within 2 eps of the one it was computed from,
    so eq. 3.5 would move its Q_i(k) by at most Q_i(k) (e^{4 eps} - 1).
    """

    def __init__(self, W: sp.csr_matrix, eps: float) -> None:
        self.W, self.eps = W, eps
        self.weight = 2.0 * np.abs(W.data)
        reach = float(np.asarray(abs(W).sum(axis=1)).max(initial=0.0)) * 2.0
        self.theta = eps / reach if reach > 0 else np.inf
        self.pending = np.full(W.shape[0], np.inf)     # nothing has been computed yet
        self.unsent = np.zeros(W.shape[0])

    def rows(self, sl: slice) -> np.ndarray:
        return np.flatnonzero(self.pending[sl] > self.eps)

    def updated(self, nodes: np.ndarray | slice, moved: np.ndarray) -> None:
        """``nodes`` were recomputed and their Q moved by ``moved`` (max over k)."""
        self.pending[nodes] = 0.0
        self.unsent[nodes] += moved
        if isinstance(nodes, slice):
            nodes = np.arange(nodes.start, nodes.stop)
        send = nodes[self.unsent[nodes] > self.theta]
        if send.size:
            at, counts = _row_entries(self.W, send)
            amount = np.repeat(self.unsent[send], counts)
            np.add.at(self.pending, self.W.indices[at], self.weight[at] * amount)
            self.unsent[send] = 0.0


def mean_field_sweeps(W: sp.csr_matrix, blocks: list[tuple[slice, sp.csr_matrix]], U: np.ndarray,
                      Q: np.ndarray, max_iter: int, tol: float, shift_once: bool,
                      active_set: bool | None = None) -> tuple[np.ndarray, int]:
    """Eq. 3.5 swept one colour class at a time until no Q_i(k) moves by more than ``tol`` or
    ``max_iter`` sweeps; returns (Q, sweeps).

    ``W`` is the symmetric weight matrix with nodes sorted by colour; ``blocks`` holds each class's
    slice of nodes and its rows of 2 W. ``shift_once``: exp(U - max U) * exp(2 W Q) cannot
    overflow (2 sum_j |W_ij| moderate), so exp(U) is taken once. ``active_set=False`` recomputes
    every node in every sweep (the reference); ``None`` (the default) chooses stale nodes when the
    classes average at least :data:`ACTIVE_MIN_CLASS` nodes. With ``active_set`` a node is
    recomputed only when its field may have moved by more than eps = tol / 8 since its last
    update; a node skipped would move by at most e^{tol / 2} - 1 < tol, so the stopping rule is
    unchanged; with tol = 0 only nodes whose inputs did not change at all are skipped and the
    result is the reference's, bit for bit.
    """
    if active_set is None:
        active_set = W.shape[0] >= ACTIVE_MIN_CLASS * max(len(blocks), 1)
    Q = Q.copy()
    P0 = np.exp(U - _row_max(U)[:, None]) if shift_once else None
    # finite even for tol = inf, so that every node (pending = inf) is computed in the first sweep
    stale = _Staleness(W, min(tol / 8.0, np.finfo(float).max)) if active_set else None
    it = 0
    while it < max_iter:
        it += 1
        delta = 0.0
        for sl, W2 in blocks:
            rows = stale.rows(sl) if stale is not None else None
            if rows is not None and rows.size == 0:
                continue
            if rows is None or rows.size >= _WHOLE * (sl.stop - sl.start):
                idx: slice | np.ndarray = sl                   # the whole class
                new = W2 @ Q                                   # the field 2 sum_j W_ij Q_j(k)
            else:
                idx = rows + sl.start                          # its stale nodes
                new = _rows_times(W2, rows, Q)
            if P0 is not None:                                 # in place: no temporaries
                np.exp(new, out=new)
                new *= P0[idx] if isinstance(idx, slice) else P0.take(idx, axis=0)
            else:
                new += U[idx] if isinstance(idx, slice) else U.take(idx, axis=0)
                new -= _row_max(new)[:, None]
                np.exp(new, out=new)
            _normalise_rows(new)
            whole = isinstance(idx, slice)
            old = Q[idx] if whole else Q.take(idx, axis=0)  # a view (whole class) or a copy
            old -= new
            np.abs(old, out=old)
            moved = _row_max(old)
            delta = max(delta, float(moved.max()))
            if whole:
                Q[idx] = new
            else:
                _set_rows(Q, idx, new)
            if stale is not None:
                stale.updated(idx, moved)
        if delta <= tol:
            break
    return Q, it
