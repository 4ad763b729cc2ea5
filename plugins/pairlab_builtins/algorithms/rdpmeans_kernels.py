"""Compiled inner loops of RDP-means' passes (Algorithm 1 of Khashabi et al. 2015, section 4.3).

Both loops visit ``order[start:stop]`` one point at a time, exactly as the printed algorithm does,
and stop early at the first point whose every cost is >= lambda: opening a cluster (a new column
of the distance table, perhaps a larger table) is left to the caller, which then resumes the loop
at that point with ``forced`` (push) or after it (pull). Every value is computed with the same
floating-point operations as numpy's ``table[i, :K] - xi * h`` and ``argmin`` (first index on
ties), without fast-math, so the choices do not depend on which loop ran.

Compiled with numba on first use (``cache=True`` keeps the machine code across processes).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

#: Visits ahead whose row of the distance table is prefetched (see :func:`push_visits`).
AHEAD = 16
#: Visits ahead whose choice is guessed, to prefetch a likely mover's links (:func:`push_visits`).
GUESS_AHEAD = 8
#: Guesses are made only this many visits after the last move (rare moves: no guessing).
GUESS_WINDOW = 256
#: Bytes in a cache line (64 on x86-64 and most ARM cores; only the prefetches' stride).
LINE = 64


@intrinsic
def _prefetch(typingctx, array, index):
    """Ask the CPU to load ``array.ravel()[index]``'s cache line (LLVM's prefetch: read, keep in
    all cache levels); no effect on any value."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        pointer = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [pointer.type], fnty)
        builder.call(fn, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@numba.njit(inline="always")
def _choice(row: np.ndarray, scores: np.ndarray, K: int, xi: float, unit: float,
            linked: bool) -> tuple[int, float]:
    """argmin_k row[k] - xi * (scores[k] * unit) over k < K (the first on ties) and its value;
    without ``linked`` the scores are not read."""
    k = 0
    best = row[0] - xi * (scores[0] * unit) if linked else row[0]
    for c in range(1, K):
        v = row[c] - xi * (scores[c] * unit) if linked else row[c]
        if v < best:
            k = c
            best = v
    return k, best


@numba.njit(inline="always")
def _move(H: np.ndarray, a: int, k: int, indices: np.ndarray, steps: np.ndarray, s: int,
          e: int) -> None:
    """A point whose links are entries s:e of the CSR arrays moves from cluster a to k: each
    partner j's H[a, j] loses and H[k, j] gains the link's ``steps`` entry."""
    from_row = H[a]
    to_row = H[k]
    for t in range(s, e):
        j = indices[t]
        w = steps[t]
        from_row[j] -= w
        to_row[j] += w


@numba.njit(cache=True)
def push_visits(order: np.ndarray, start: int, stop: int, table: np.ndarray, K: int, xi: float,
                lam: float, labels: np.ndarray, H: np.ndarray, unit: float, indptr: np.ndarray,
                indices: np.ndarray, steps: np.ndarray, linked: bool, forced: int) -> int:
    """Visit points with the link scores kept up to date ("push").

    ``H`` (capacity, n) holds the scores cluster by cluster in multiples of ``unit`` (integers, or
    floats with unit 1), so i's score for cluster k is H[k, i] * unit, exactly. Point i takes
    argmin_k table[i, k] - xi * H[k, i] * unit over k < K. When it moves from a to k, each partner
    j's H[a, j] loses and H[k, j] gains the link's ``steps`` entry (the updates of one move stay in
    two rows, which makes this layout the faster one). ``forced`` >= 0 sends the first visit to
    that cluster (just opened for it). Without ``linked`` H and the CSR arrays are unused.
    Returns the position of the first point that must open a cluster, or ``stop``.

    The visiting order is known, so the table row of the visit ``AHEAD`` places on is prefetched:
    the rows are scattered over the table, and the moves' updates push them out of cache. And
    while points are moving (a move in the last ``GUESS_WINDOW`` visits), the choice of the visit
    ``GUESS_AHEAD`` places on is guessed from the scores as they are now; if that point looks
    like moving, its links (a few hundred bytes at a random place) are prefetched. A wrong guess
    costs a prefetch, never a choice: the visit itself decides afresh.
    """
    flat = table.ravel()
    width = table.shape[1]
    last_move = start - GUESS_WINDOW
    for p in range(start, stop):
        if p + AHEAD < stop:
            _prefetch(flat, order[p + AHEAD] * width)
        if linked and p - last_move < GUESS_WINDOW and p + GUESS_AHEAD < stop:
            q = order[p + GUESS_AHEAD]
            k, best = _choice(table[q], H[:, q], K, xi, unit, True)
            if k != labels[q] or not best < lam:
                for e in range(indptr[q], indptr[q + 1], LINE // indices.itemsize):
                    _prefetch(indices, e)
                for e in range(indptr[q], indptr[q + 1], LINE // steps.itemsize):
                    _prefetch(steps, e)
        i = order[p]
        if p == start and forced >= 0:
            k = forced
        else:
            k, best = _choice(table[i], H[:, i], K, xi, unit, linked)
            if not best < lam:
                return p
        a = labels[i]
        if k != a:
            labels[i] = k
            last_move = p
            if linked:
                _move(H, a, k, indices, steps, indptr[i], indptr[i + 1])
    return stop


@numba.njit(cache=True)
def pull_visits(order: np.ndarray, start: int, stop: int, table: np.ndarray, K: int, xi: float,
                lam: float, labels: np.ndarray, best: np.ndarray, bestval: np.ndarray,
                certain: np.ndarray, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                scratch: np.ndarray) -> int:
    """Visit points, counting link scores at the visit ("pull").

    A point that links cannot sway (``certain``) takes its row minimum ``best`` / ``bestval``;
    any other counts its partners' weights per cluster in CSR order (as ``np.bincount`` does)
    and takes argmin_k table[i, k] - xi * count_k. ``scratch`` holds at least K floats.
    Returns the position of the first point that must open a cluster, or ``stop``.
    """
    for p in range(start, stop):
        i = order[p]
        if certain[i]:
            k = best[i]
            value = bestval[i]
        else:
            s, e = indptr[i], indptr[i + 1]
            if s != e:
                for c in range(K):
                    scratch[c] = 0.0
                for t in range(s, e):
                    scratch[labels[indices[t]]] += data[t]
            k, value = _choice(table[i], scratch, K, xi, 1.0, s != e)
        if not value < lam:
            return p
        labels[i] = k
    return stop


@numba.njit(cache=True)
def row_scores(indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray, labels: np.ndarray,
               out: np.ndarray, by_cluster: bool) -> None:
    """out[i, labels[j]] (or out[labels[j], i] ``by_cluster``) += w_ij over each row's entries
    in CSR order (scipy's ``toarray`` of the same sparse matrix adds them in this order too)."""
    for i in range(indptr.size - 1):
        for e in range(indptr[i], indptr[i + 1]):
            if by_cluster:
                out[labels[indices[e]], i] += weights[e]
            else:
                out[i, labels[indices[e]]] += weights[e]


@numba.njit(cache=True)
def apply_moves(moved: np.ndarray, before: np.ndarray, after: np.ndarray, indptr: np.ndarray,
                indices: np.ndarray, steps: np.ndarray, H: np.ndarray) -> None:
    """The push sweep's updates (H is (clusters, n)) for points ``moved`` from ``before`` to
    ``after``, all at once."""
    for t in range(moved.size):
        i = moved[t]
        _move(H, before[i], after[i], indices, steps, indptr[i], indptr[i + 1])


@numba.njit(cache=True)
def row_minima(table: np.ndarray, K: int, best: np.ndarray, bestval: np.ndarray,
               second: np.ndarray) -> None:
    """Per row of table[:, :K]: the first arg min, the minimum and the second smallest value
    (equal to the minimum on a tie; +inf with one column), as argmin and np.partition give."""
    for i in range(table.shape[0]):
        b = 0
        v = table[i, 0]
        s = np.inf
        for c in range(1, K):
            x = table[i, c]
            if x < v:
                s = v
                v = x
                b = c
            elif x < s:
                s = x
        best[i] = b
        bestval[i] = v
        second[i] = s
