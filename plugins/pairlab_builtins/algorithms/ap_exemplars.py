"""Compiled exemplar rules of the dense affinity-propagation engine (:mod:`.ap_messages`).

Both rules of :func:`.ap_messages.identify_exemplars` for a non-empty sorted set ``cols`` of
self-exemplars, each a loop over the entries it needs with no (n, n) temporaries:

* :func:`paper_exemplars` -- Arzeno & Vikalo, end of section 3: point i picks
  arg max_{k in cols} alpha_ik + rho_ik;
* :func:`refined_exemplars` -- Frey & Dueck's reference code, exactly scikit-learn's loop:
  nearest self-exemplar by s, each cluster's medoid by within-cluster similarity sums, assign
  again; with each row's most similar columns (:func:`top_columns`, kept while S is fixed) most
  points find their exemplar without reading S;

and, while no self-exemplar has emerged, :func:`best_candidates` (each row's arg max of
alpha + rho, or the point itself).

Every arg max is numpy's (and scikit-learn's): the first largest value, the first NaN if there
is one, the first entry when all are -inf. The sums add the same terms in the same order as
scikit-learn, so the floats, and hence the exemplars, are the same bit for bit. Compiled with
numba (``cache=True``: compiled once per machine, then loaded from ``__pycache__``); no fastmath,
so every addition rounds as numpy's. S is read along rows in increasing column order where it
can be: scattered reads of a large S cost about three times as much.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _argmax_at(row: np.ndarray, cols: np.ndarray) -> int:
    """Position q of numpy's arg max of row[cols] (the first largest; the first NaN)."""
    top = row[cols[0]]
    if top != top:
        return 0
    best = 0
    for q in range(1, cols.size):
        v = row[cols[q]]
        if v > top:
            top = v
            best = q
        elif v != v:
            return q
    return best


@numba.njit(cache=True)
def _argmax_in_order(row: np.ndarray, cols: np.ndarray, positions: np.ndarray, best: int,
                     top: float) -> int:
    """numpy's arg max of row[cols] over ``positions`` (visited in any order), started from the
    position ``best`` holding ``top``: the smallest position of the largest value, or the
    smallest position of a NaN (``best`` = cols.size and ``top`` = -inf start from nothing)."""
    k = cols.size
    nan = k
    for q in positions:
        v = row[cols[q]]
        if v > top or (v == top and q < best):
            best, top = q, v
        elif v != v and q < nan:
            nan = q
    return nan if nan < k else best


@numba.njit(cache=True)
def top_columns(S: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's min(m, n) most similar columns and their similarities: the first entries of
    the row's columns ordered by decreasing S, smaller index first on ties (numpy's arg max is
    the first of them). A row holding a NaN gets the column -1 (no list)."""
    n = S.shape[0]
    m = min(m, n)
    cols = np.empty((n, m), dtype=np.int64)
    vals = np.empty((n, m))
    if m == 0:
        return cols, vals
    for i in range(n):
        row, c, v = S[i], cols[i], vals[i]
        filled = 0
        for j in range(n):
            x = row[j]
            if x != x:
                c[0] = -1
                break
            if filled == m and not x > v[m - 1]:
                continue
            p = filled if filled < m else m - 1      # (the last one drops out)
            while p > 0 and v[p - 1] < x:           # after every larger or equal value
                c[p], v[p] = c[p - 1], v[p - 1]
                p -= 1
            c[p], v[p] = j, x
            if filled < m:
                filled += 1
    return cols, vals


@numba.njit(cache=True)
def _listed_argmax(top_c: np.ndarray, top_v: np.ndarray, at: np.ndarray) -> int:
    """numpy's arg max over positions q of the columns j with at[j] = q >= 0 (smallest q on
    equal values) when a row's list (:func:`top_columns`) settles it, else -1."""
    best, top = -1, 0.0
    for t in range(top_c.size):
        j = top_c[t]
        if j < 0:
            return -1
        q = at[j]
        if best < 0:
            if q >= 0:
                best, top = q, top_v[t]
        elif top_v[t] != top:
            return best
        elif 0 <= q < best:
            best = q
    return -1                         # the list ends: a column past it may hold the same value


@numba.njit(cache=True)
def _argmax_sum(a: np.ndarray, r: np.ndarray, cols: np.ndarray) -> tuple[int, float]:
    """Position q of numpy's arg max of a[cols] + r[cols] (the first largest; the first NaN),
    and that value."""
    top = a[cols[0]] + r[cols[0]]
    best = 0
    if top == top:
        for q in range(1, cols.size):
            j = cols[q]
            v = a[j] + r[j]
            if v > top:
                top = v
                best = q
            elif v != v:
                top = v
                best = q
                break
    return best, top


@numba.njit(cache=True)
def paper_exemplars(A: np.ndarray, R: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Each point's exemplar: the first arg max over ``cols`` of A[i, c] + R[i, c] (numpy's
    rules); every self-exemplar in ``cols`` is its own."""
    n, k = A.shape[0], cols.size
    c = np.empty(n, dtype=np.int64)
    for i in range(n):
        c[i] = cols[_argmax_sum(A[i], R[i], cols)[0]]
    for q in range(k):
        c[cols[q]] = cols[q]
    return c


@numba.njit(cache=True)
def best_candidates(A: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Each point's best candidate while no self-exemplar has emerged: the first arg max of
    A[i] + R[i] over every column, or i itself when its own value is at least as large (numpy's
    ``where(diag >= top, i, argmax)``)."""
    n = A.shape[0]
    every = np.arange(n)
    c = np.empty(n, dtype=np.int64)
    for i in range(n):
        best, top = _argmax_sum(A[i], R[i], every)
        c[i] = i if A[i, i] + R[i, i] >= top else best
    return c


@numba.njit(cache=True)
def refined_exemplars(S: np.ndarray, cols: np.ndarray, top_c: np.ndarray,
                      top_v: np.ndarray) -> np.ndarray:
    """Frey & Dueck's exemplars for the self-exemplars ``cols`` (sorted, non-empty).

    Each point joins its most similar self-exemplar (the first on ties) and each self-exemplar
    its own cluster; each cluster's exemplar moves to the member j with the largest
    sum_{i in cluster} s(i, j), the first j on ties; points join their most similar refined
    exemplar (ties to the earlier cluster) and refined exemplars their own clusters.
    scikit-learn's ``np.sum(S[ii[:, None], ii], axis=0)`` adds the rows one after the other in
    increasing i, and so do the sums here (from 0.0, which changes no comparison).

    ``top_c``, ``top_v`` are :func:`top_columns` of S (or (n, 0) arrays): a point whose list
    holds an exemplar takes it from the list. Otherwise S is read; in the second assignment a
    point whose first exemplar stayed compares it with the moved exemplars only (it was the first
    arg max over the columns that stayed, so among them it still is).
    """
    n, k = S.shape[0], cols.size
    at = np.full(n, -1, dtype=np.int64)          # column -> position in cols / refined
    for q in range(k):
        at[cols[q]] = q
    lab = np.empty(n, dtype=np.int64)
    for i in range(n):
        q = _listed_argmax(top_c[i], top_v[i], at)
        lab[i] = q if q >= 0 else _argmax_at(S[i], cols)
    for q in range(k):
        lab[cols[q]] = q
    # the members of each cluster, in increasing index, one cluster after the other
    fill = np.zeros(k + 1, dtype=np.int64)
    for i in range(n):
        fill[lab[i] + 1] += 1
    for q in range(k):
        fill[q + 1] += fill[q]
    starts = fill[:k].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[fill[lab[i]]] = i
        fill[lab[i]] += 1
    sums = np.empty(n)
    refined = np.empty(k, dtype=np.int64)
    for q in range(k):
        members = order[starts[q]:fill[q]]
        acc = sums[:members.size]
        acc[:] = 0.0
        for i in members:
            row = S[i]
            for t in range(members.size):
                acc[t] += row[members[t]]
        refined[q] = members[np.argmax(acc)]   # numba's: numpy's rules, NaN included
    stays = refined == cols
    c = np.empty(n, dtype=np.int64)
    if stays.all():                    # the same exemplars: the same assignment
        for i in range(n):
            c[i] = cols[lab[i]]
        return c
    for j in cols:                     # at: column -> position in refined
        at[j] = -1
    for q in range(k):
        at[refined[q]] = q
    # the positions of the refined exemplars (all, and the moved ones) in increasing column
    by_index = np.empty(k, dtype=np.int64)
    moved_by_index = np.empty(k - stays.sum(), dtype=np.int64)
    t = u = 0
    for j in range(n):
        q = at[j]
        if q >= 0:
            by_index[t] = q
            t += 1
            if not stays[q]:
                moved_by_index[u] = q
                u += 1
    for i in range(n):
        best = _listed_argmax(top_c[i], top_v[i], at)
        if best < 0:
            row = S[i]
            q = lab[i]
            if stays[q] and row[cols[q]] == row[cols[q]]:   # (then no NaN in the row's columns)
                best = _argmax_in_order(row, refined, moved_by_index, q, row[cols[q]])
            else:
                best = _argmax_in_order(row, refined, by_index, k, -np.inf)
        c[i] = refined[best]
    for q in range(k):
        c[refined[q]] = refined[q]
    return c
