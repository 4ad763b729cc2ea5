"""The passes of RDP-means' Algorithm 1 (Khashabi et al. 2015, section 4.3): divergences, the
lambda heuristics, link scores, and the push / window / pull sweeps with their cost model.

Every sweep makes the choices of the literal point-by-point Algorithm 1 (tests compare them); they
differ only in how the link terms -xi1 f_ki + xi2 s_ik are kept up to date.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from pairlab import Constraints
from pairlab.errors import InvalidInputError

__all__ = ["Geometry", "Links", "farthest_first_lambda", "kth_mean_distance_lambda"]

DIVERGENCES = ("sqeuclidean", "euclidean", "kl")
LAMBDA_HEURISTICS = ("farthest_first", "kth_mean_distance")
XI_MAX = 1e150
#: Largest n * K the score tables may hold (two float64 tables of this size: 256 MiB).
TABLE_LIMIT = 1 << 24
#: Stale rows among this many upcoming visits are refreshed together (push sweeps).
BLOCK = 256
#: Visits decided together by a push sweep with exact link weights (:func:`sweep_windows`): the
#: first window's length, the shortest window, and the settling rounds after which the next window
#: is twice as long (<= ROUNDS_LOW) or half as long (>= ROUNDS_HIGH).
WINDOW = 4096
MIN_WINDOW = 2048
ROUNDS_LOW = 2
ROUNDS_HIGH = 4


# -- divergences ------------------------------------------------------------------------------
class Geometry:
    """The data in a divergence's representation, and D(y_i, c) for one centre or assigned centres.

    For ``kl`` the rows are Laplace-smoothed and normalised; otherwise the data are used as given.
    ``to_center`` computes one column of the distance table elementwise, so the value for (i, k) is
    the same whichever way the table is built.
    """

    def __init__(self, X: np.ndarray, divergence: str, smoothing: float) -> None:
        self.divergence = divergence
        self.smoothing = smoothing
        self.Y = self.transform(X, name="X")
        self._logY = np.log(self.Y) if divergence == "kl" else None

    def transform(self, X: np.ndarray, name: str = "X") -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if self.divergence != "kl":
            return X
        if X.size and X.min() < 0:
            raise InvalidInputError(
                f"divergence='kl' models count data, but {name} has negative values (minimum "
                f"{X.min():g}); give non-negative counts or use divergence='sqeuclidean'."
            )
        P = X + self.smoothing
        return P / P.sum(axis=1, keepdims=True)

    def to_center(self, c: np.ndarray) -> np.ndarray:
        """D(y_i, c) for every row i, shape (n,)."""
        Y = self.Y
        if self.divergence == "kl":
            return np.einsum("ij,ij->i", Y, self._logY - np.log(c))
        if Y.shape[1] > 32:
            diff = Y - c
            d2 = np.einsum("ij,ij->i", diff, diff)
        else:  # a loop over few columns is much faster than a reduction along a short axis
            d2 = Y[:, 0] - c[0]
            d2 *= d2
            for j in range(1, Y.shape[1]):
                t = Y[:, j] - c[j]
                t *= t
                d2 += t
        return np.sqrt(d2) if self.divergence == "euclidean" else d2

    def assigned(self, centers: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """D(y_i, centers[labels[i]]) for every row i."""
        if self.divergence == "kl":
            return np.einsum("ij,ij->i", self.Y, self._logY - np.log(centers)[labels])
        diff = self.Y - centers[labels]
        if diff.shape[1] > 32:
            d2 = np.einsum("ij,ij->i", diff, diff)
        else:
            d2 = diff[:, 0] * diff[:, 0]
            for j in range(1, diff.shape[1]):
                d2 += diff[:, j] * diff[:, j]
        return np.sqrt(d2) if self.divergence == "euclidean" else d2

    def pairwise(self, Y: np.ndarray, centers: np.ndarray) -> np.ndarray:
        """D(Y_i, centers_k) for new rows, shape (m, K)."""
        if self.divergence == "kl":
            return (Y * np.log(Y)).sum(axis=1)[:, None] - Y @ np.log(centers).T
        diff = Y[:, None, :] - centers[None, :, :]
        d2 = (diff * diff).sum(axis=2)
        return np.sqrt(d2) if self.divergence == "euclidean" else d2


def farthest_first_lambda(geometry: Geometry, k: int) -> float:
    """Kulis & Jordan's farthest-first heuristic for lambda given a target number of clusters k.

    T starts as {global mean}; k times, find the point farthest from T (distance to T = smallest
    divergence to a member), record that distance and add the point. lambda is the distance found
    in round k. Deterministic (no randomness).
    """
    Y = geometry.Y
    dist = geometry.to_center(Y.mean(axis=0))
    lam = 0.0
    for r in range(k):
        j = int(dist.argmax())
        lam = float(dist[j])
        if r + 1 < k:
            dist = np.minimum(dist, geometry.to_center(Y[j]))
    return lam


def kth_mean_distance_lambda(geometry: Geometry, k: int) -> float:
    """The authors' code: lambda is the k-th largest divergence of a point to the data mean."""
    dist = geometry.to_center(geometry.Y.mean(axis=0))
    return float(np.partition(dist, dist.size - k)[dist.size - k])


# -- links ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Links:
    """Symmetric signed link weights in CSR form: +xi1_scale * c for may-links, -xi2_scale * c for
    may-not-links, so that the link part of D - xi1 f + xi2 s is -xi * (row sum over a cluster)."""

    matrix: sp.csr_matrix
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    weight_sums: np.ndarray  # W_i = sum_j |w_ij|: xi * W_i bounds how far links move a row
    exact: bool  # every partial sum of weights is exact, so update order cannot matter
    indptr_list: list[int] = field(repr=False, compare=False)  # indptr for per-point lookups

    @classmethod
    def build(cls, constraints: Constraints, scale_ml: float, scale_cl: float) -> Links | None:
        n = constraints.n_samples
        w = np.concatenate([scale_ml * constraints.ml_confidence,
                            -scale_cl * constraints.cl_confidence])
        pairs = np.vstack([constraints.must_link, constraints.cannot_link])
        keep = w != 0
        if not keep.any():
            return None
        pairs, w = pairs[keep], w[keep]
        A = sp.csr_matrix((np.concatenate([w, w]),
                           (np.concatenate([pairs[:, 0], pairs[:, 1]]),
                            np.concatenate([pairs[:, 1], pairs[:, 0]]))), shape=(n, n))
        A.sort_indices()
        indptr = A.indptr.astype(np.intp)
        rows = np.repeat(np.arange(n), np.diff(indptr))
        weight_sums = np.bincount(rows, np.abs(A.data), minlength=n)
        scaled = A.data * 4096.0  # multiples of 2**-12 below 2**40 add up exactly in any order
        exact = bool(np.all(scaled == np.round(scaled)) and np.abs(scaled).sum() < 2.0**52)
        return cls(A, indptr, A.indices.astype(np.intp), A.data, weight_sums, exact, indptr.tolist())

    @property
    def n_entries(self) -> int:
        return int(self.data.size)

    def scores(self, labels: np.ndarray, n_clusters: int) -> np.ndarray:
        """H[i, k] = sum of i's link weights to points with label k, shape (n, K)."""
        n = self.indptr.size - 1
        small = self.indices.size < 2**31 - 1  # 32-bit indices spare scipy a conversion
        itype = np.int32 if small else np.int64
        cols = labels.astype(itype, copy=False)[self.indices]
        indptr = self.indptr.astype(itype) if small else self.indptr
        M = sp.csr_matrix((self.data, cols, indptr), shape=(n, n_clusters))
        return M.toarray()  # adds up each row's entries in CSR order

    def moved_scores(self, H: np.ndarray | None, before: np.ndarray, after: np.ndarray,
                     n_clusters: int) -> np.ndarray:
        """Scores for labels ``after``, updated from the scores ``H`` for ``before`` when that is
        exact and cheaper (H may have fewer columns), else computed afresh."""
        if H is None or not self.exact:
            return self.scores(after, n_clusters)
        moved = np.flatnonzero(before != after)
        starts, stops = self.indptr[moved], self.indptr[moved + 1]
        deg = stops - starts
        total = int(deg.sum())
        if 2 * total > self.data.size:
            return self.scores(after, n_clusters)
        n = H.shape[0]
        out = np.zeros((n, n_clusters))
        out[:, :H.shape[1]] = H
        if total == 0:
            return out
        # A is symmetric: the partners' change is A[:, moved] @ (onehot(after) - onehot(before))
        step = np.zeros((moved.size, n_clusters))
        step[np.arange(moved.size), after[moved]] = 1.0
        step[np.arange(moved.size), before[moved]] = -1.0
        out += self.matrix[moved].T @ step
        return out


# -- one pass of Algorithm 1 ------------------------------------------------------------------
@dataclass
class PassContext:
    """Everything a pass needs; a pass can stop after any point and resume (``trace_every``).

    ``table`` holds D. ``mode`` says how links enter. "push": ``scores`` holds H at the current
    labels, updated at a moving point's partners. "pull": a point whose decision links could
    change (see :func:`certain_points`) counts its link scores when it is visited.
    """

    number: int                # 1 for the first pass
    xi: float                  # the xi of this pass
    mode: str                  # "push" or "pull"
    order: np.ndarray          # the random visiting order
    position: int              # next index into ``order``
    start_labels: np.ndarray   # labels when the pass began (numbering of the previous state)
    start_scores: np.ndarray | None  # link scores H for start_labels (n, K0), if known
    labels: np.ndarray         # current labels (int64, raw cluster ids)
    centers: np.ndarray        # (capacity, d); the first ``n_clusters`` rows are in use
    n_clusters: int
    table: np.ndarray          # (n, capacity); +inf in unused columns
    minima: tuple[np.ndarray, ...] | None = None  # certain_points(...) if already computed
    scores: np.ndarray | None = None  # push with links: H at ``labels``, transposed (capacity, n)

    def snapshot(self) -> dict[str, Any]:
        return {
            "number": self.number, "xi": self.xi, "mode": self.mode, "order": self.order,
            "position": self.position, "start_labels": self.start_labels,
            "start_scores": self.start_scores, "centers": self.centers[: self.n_clusters].copy(),
            "table": self.table.copy(),
            "scores": None if self.scores is None else self.scores.copy(),
        }


def _check_table(n: int, n_columns: int) -> None:
    if n * n_columns > TABLE_LIMIT:
        raise InvalidInputError(
            f"RDP-means would need {n_columns} clusters for {n} points, beyond its memory limit "
            f"of n * K <= {TABLE_LIMIT}; lambda is too small for this data: increase lambda_ "
            "(or lower k)."
        )


def _ensure_capacity(ctx: PassContext, needed: int) -> None:
    cap = ctx.table.shape[1]
    if needed <= cap:
        return
    n = ctx.table.shape[0]
    _check_table(n, needed)
    new_cap = max(needed, min(2 * cap, TABLE_LIMIT // n))
    table = np.full((n, new_cap), np.inf)
    table[:, :cap] = ctx.table
    centers = np.zeros((new_cap, ctx.centers.shape[1]))
    centers[:cap] = ctx.centers
    ctx.table, ctx.centers = table, centers
    if ctx.scores is not None:
        scores = np.zeros((new_cap, n))
        scores[:cap] = ctx.scores
        ctx.scores = scores


def _open_cluster(ctx: PassContext, i: int, geometry: Geometry) -> np.ndarray:
    """Add a cluster centred on point i (Algorithm 1: C <- C u {x_i}); return its D column."""
    k = ctx.n_clusters
    _ensure_capacity(ctx, k + 1)
    ctx.centers[k] = geometry.Y[i]
    column = geometry.to_center(geometry.Y[i])
    ctx.table[:, k] = column
    ctx.n_clusters = k + 1
    return column


def _lower_rows(best: list, bestval: list, column: np.ndarray, k: int) -> tuple[list, list]:
    """Row minima after column k was added: strictly smaller values win (argmin's tie rule)."""
    b, v = np.array(best), np.array(bestval)
    lower = column < v
    b[lower] = k
    v[lower] = column[lower]
    return b.tolist(), v.tolist()


def sweep_push(ctx: PassContext, stop: int, lam: float, geometry: Geometry,
               links: Links | None) -> None:
    """Visit ``ctx.order[ctx.position:stop]`` one point at a time (Algorithm 1's inner loop).

    Point i goes to argmin_k G[i, k], G = D - xi * H, when that value is < lambda, else to a new
    cluster centred on it. ``ctx.table`` holds D and ``ctx.scores`` H (None without links).
    Moving point i from a to b changes H only at i's partners, in columns a and b (two sparse
    updates of the link weights themselves, exact when ``links.exact``), and marks their rows
    stale. Row minima of G are kept for every point: all at once when the sweep starts, for all
    rows when a cluster opens (its H column is 0: it is empty), and, when a stale point comes up,
    for it and the stale points among the next ``BLOCK`` visits in one vectorised argmin (a row
    touched again before its visit is stale again). Every choice is argmin's, with its
    first-index tie rule, on the row D[i] - xi * H[i] as it is at the visit. With exact link
    weights the same choices come faster from :func:`sweep_windows`.
    """
    if ctx.scores is not None and links.exact:
        sweep_windows(ctx, stop, lam, geometry, links)
        return
    n = ctx.labels.size
    table, H = ctx.table, ctx.scores
    K = ctx.n_clusters
    xi = ctx.xi

    def rows_of(points):  # G at ``points`` (an index array or slice), columns :K
        rows = table[points, :K]
        return rows if H is None else rows - xi * H[:K, points].T

    G = rows_of(slice(None))
    best_np = G.argmin(axis=1)
    best, bestval = best_np.tolist(), G[np.arange(n), best_np].tolist()
    stale_buf = bytearray(n)  # stale_buf[i] == 1: row i changed since its minimum was taken
    stale = np.frombuffer(stale_buf, dtype=bool)
    labels = ctx.labels.tolist()
    if H is not None:
        indptr, indices, data = links.indptr_list, links.indices, links.data
    order = ctx.order[ctx.position:stop]
    for pos, i in enumerate(order.tolist()):
        if stale_buf[i]:
            block = order[pos:pos + BLOCK]
            block = block[stale[block]]
            rows = rows_of(block)
            arg = rows.argmin(axis=1)
            for j, b, v in zip(block.tolist(), arg.tolist(),
                               rows[np.arange(block.size), arg].tolist(), strict=True):
                best[j] = b
                bestval[j] = v
            stale[block] = False
        k, value = best[i], bestval[i]
        if not value < lam:
            k = K
            column = _open_cluster(ctx, i, geometry)
            table, H = ctx.table, ctx.scores
            K += 1
            best, bestval = _lower_rows(best, bestval, column, k)
        a = labels[i]
        if k != a:
            labels[i] = k
            if H is not None:
                s, e = indptr[i], indptr[i + 1]
                if s != e:
                    nb = indices[s:e]
                    w = data[s:e]
                    col = H[a]
                    col[nb] -= w
                    col = H[k]
                    col[nb] += w
                    stale[nb] = True
    ctx.labels[:] = labels
    ctx.position = stop


def sweep_windows(ctx: PassContext, stop: int, lam: float, geometry: Geometry, links: Links) -> None:
    """:func:`sweep_push` for exact link weights (``links.exact``): a window of visits at a time.

    With exact weights every H[i, k] is an exact sum whatever the order of the updates, so the
    row point i has at its visit, D[i] - xi * H[i], can be computed before the visit: it is the
    row at the window's start plus the weights of i's partners that move earlier in the window.
    A window is the next visits (``WINDOW`` at first; twice as many after a window settled in at
    most ``ROUNDS_LOW`` rounds, half as many, at least ``MIN_WINDOW``, after one that needed
    ``ROUNDS_HIGH`` or more), cut before the first point that would open a cluster (which is then
    handled on its own). Its visits are settled by :func:`_settle_window`; the moves it confirms
    are applied to H together and the next window starts after them. The
    arithmetic of each row is the sequential loop's, so the choices are identical; the Python
    work follows the number of windows and of settling rounds, not of visits or moves.
    """
    n = ctx.labels.size
    K = ctx.n_clusters
    xi = ctx.xi
    labels = ctx.labels
    order = ctx.order
    rank = np.empty(n, dtype=np.intp)  # rank[i]: position of point i in the visiting order
    rank[order] = np.arange(n)
    pos = ctx.position
    size = WINDOW
    while pos < stop:
        W = order[pos:min(pos + size, stop)]
        D = ctx.table[W, :K]
        Hk = np.take(ctx.scores[:K], W, axis=1)  # (K, m), C order: H of the window's rows now
        frm = labels[W]
        choice = _choices(D - xi * Hk.T, lam)
        opens = np.flatnonzero(choice < 0)
        if opens.size and opens[0] == 0:  # Algorithm 1: C <- C u {x_i}
            i = int(W[0])
            _open_cluster(ctx, i, geometry)
            _move(ctx, links, i, int(labels[i]), K)
            K += 1
            pos += 1
            continue
        end = int(opens[0]) if opens.size else W.size
        target, end, rounds, lists = _settle_window(W, D, Hk, frm, choice, end, pos, rank, xi,
                                                    lam, links)
        if rounds <= ROUNDS_LOW and end == W.size:  # few dependent moves: try a longer window
            size = min(2 * size, n)
        elif rounds >= ROUNDS_HIGH:
            size = max(size // 2, MIN_WINDOW)
        movers = np.flatnonzero(target >= 0)
        if movers.size:
            flat = ctx.scores.ravel()
            for to, fr, partners, weights in _mover_lists(lists, target, frm, n):
                np.add.at(flat, to + partners, weights)
                np.subtract.at(flat, fr + partners, weights)
            labels[W[movers]] = target[movers]
        pos += end
    ctx.position = stop


def _settle_window(W: np.ndarray, D: np.ndarray, Hk: np.ndarray, frm: np.ndarray,
                   choice: np.ndarray, end: int, pos: int, rank: np.ndarray, xi: float,
                   lam: float, links: Links) -> tuple[np.ndarray, int, int, list]:
    """Algorithm 1's choices for the visits ``W[:end]`` of a window, by a fixpoint iteration.

    ``choice`` holds every visit's choice from the rows at the window's start (D - xi * Hk.T;
    Hk is (K, m) and is updated in place). The choice at visit p depends only on the moves of
    earlier visits that are p's partners, so iterate: propagate the moves that changed since the
    last round (move to the new target, undo the old one) to the rows of later partners in the
    window, and choose again for those rows only. When no move changes, every visit's row holds
    exactly the earlier visits' moves, i.e. the sequential rows, so its choice is Algorithm 1's
    (the argument is induction along the window; it needs at most one round per visit, and a
    few when chains of dependent moves are short). A visit that would open a cluster moves the
    window's end before it. Returns the target of each visit (-1: stays), the end, the number
    of rounds, and each round's partner lists (for :func:`_mover_lists`).
    """
    m = W.size
    flat = Hk.ravel()
    target = np.where(choice != frm, choice, -1)
    target[end:] = -1
    done = np.full(m, -1)  # the target whose weights are in Hk
    changed = np.flatnonzero(target >= 0)
    last = np.full(m, -1)  # the round in which each visit's target last changed
    lists = []
    while changed.size:
        last[changed] = len(lists)
        rows = links.matrix[W[changed]]
        sizes = np.diff(rows.indptr)
        lists.append((changed, rows, sizes, last))
        at = rank[rows.indices] - pos  # the partners' positions in the window
        src = np.repeat(changed, sizes)
        hit = np.flatnonzero((at > src) & (at < end))
        if hit.size:
            t, w, src = at[hit], rows.data[hit], src[hit]
            f, new, old = frm[src] * m + t, target[src], done[src]
            for sign, cols in ((1.0, new), (-1.0, old)):  # move to the new target, undo the old
                sel = cols >= 0
                if sel.all():
                    np.add.at(flat, cols * m + t, sign * w)
                    np.subtract.at(flat, f, sign * w)
                elif sel.any():
                    np.add.at(flat, cols[sel] * m + t[sel], sign * w[sel])
                    np.subtract.at(flat, f[sel], sign * w[sel])
        done[changed] = target[changed]
        if not hit.size:
            break
        mask = np.zeros(m, dtype=bool)
        mask[t] = True
        rows_at = np.flatnonzero(mask)  # the rows that changed, window positions ascending
        again = _choices(D[rows_at] - xi * Hk[:, rows_at].T, lam)
        choice[rows_at] = again
        opens = rows_at[again < 0]
        if opens.size and opens[0] < end:
            end = int(opens[0])
        target[rows_at] = np.where(again != frm[rows_at], again, -1)
        target[end:] = -1
        changed = np.flatnonzero(target[:end] != done[:end])
    target[end:] = -1
    return target, end, len(lists), lists


def _mover_lists(lists: list, target: np.ndarray, frm: np.ndarray, n: int):
    """For the window's confirmed moves, (to, from, partners, weights) per settling round: the
    flat indices ``to + partners`` / ``from + partners`` into H (capacity, n) and the weights.
    Each mover's partner list is taken from the round in which its target last changed, so
    every move is applied once, with the lists already gathered."""
    for r, (changed, rows, sizes, last) in enumerate(lists):
        keep = (last[changed] == r) & (target[changed] >= 0)
        if not keep.any():
            continue
        points = changed[keep]
        if keep.all():
            partners, weights = rows.indices, rows.data
        else:
            entries = np.repeat(keep, sizes)
            partners, weights = rows.indices[entries], rows.data[entries]
        yield (np.repeat(target[points] * n, sizes[keep]), np.repeat(frm[points] * n, sizes[keep]),
               partners, weights)


def _choices(rows: np.ndarray, lam: float) -> np.ndarray:
    """Algorithm 1's choice for each row of G: argmin (first index on ties) if its value is
    < lambda, else -1 (open a cluster)."""
    arg = rows.argmin(axis=1)
    return np.where(rows[np.arange(arg.size), arg] < lam, arg, -1)


def _move(ctx: PassContext, links: Links, i: int, a: int, k: int) -> None:
    """Move point i from cluster a to k: H changes at i's partners, in columns a and k."""
    ctx.labels[i] = k
    s, e = links.indptr_list[i], links.indptr_list[i + 1]
    nb, w = links.indices[s:e], links.data[s:e]
    col = ctx.scores[a]
    col[nb] -= w
    col = ctx.scores[k]
    col[nb] += w


def certain_points(table: np.ndarray, K: int, lam: float, bound: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row minimum, its index, the second smallest value, and which rows links cannot decide.

    Links move D[i, k] - xi h_ik by at most xi W_i relative to another column (h_ik - h_il <= W_i)
    and |xi h_ik| <= xi W_i, so when the two smallest D values are more than ``bound`` = xi W_i
    apart and the smallest is more than ``bound`` away from lambda, point i's choice is the one
    without links. A relative slack of 1e-9 keeps rounding on the safe side.
    """
    sub = table[:, :K]
    best = sub.argmin(axis=1)
    bestval = sub[np.arange(sub.shape[0]), best]
    second = np.partition(sub, 1, axis=1)[:, 1] if K > 1 else np.full(sub.shape[0], np.inf)
    return best, bestval, second, _certain(bestval, second, lam, bound)


def _certain(bestval: np.ndarray, second: np.ndarray, lam: float, bound: np.ndarray) -> np.ndarray:
    margin = bound * (1 + 1e-9) + 1e-9 * (np.abs(bestval) + abs(lam))
    return (second - bestval > margin) & (np.abs(bestval - lam) > margin)


def sweep_pull(ctx: PassContext, stop: int, lam: float, geometry: Geometry, links: Links) -> None:
    """The same visits as :func:`sweep_push` with ``ctx.table`` holding D only.

    A point that links cannot sway (:func:`certain_points`) takes its row minimum; any other adds
    -xi times its link scores, counted from its partners' current labels, to its D row. Nothing
    is propagated when a point moves, which makes this the cheaper loop when points move a lot
    and xi is small (the early passes).
    """
    labels_np = ctx.labels
    K = ctx.n_clusters
    xi = ctx.xi
    bound = xi * links.weight_sums
    if ctx.minima is None:
        ctx.minima = certain_points(ctx.table, K, lam, bound)
    best_np, bestval_np, second_np, certain_np = ctx.minima
    ctx.minima = None
    best, bestval, certain = best_np.tolist(), bestval_np.tolist(), certain_np.tolist()
    labels = labels_np.tolist()
    indptr = links.indptr.tolist()
    indices, data = links.indices, links.data
    table = ctx.table
    for i in ctx.order[ctx.position:stop].tolist():
        if certain[i]:
            k, value = best[i], bestval[i]
        else:
            row = table[i, :K]
            s, e = indptr[i], indptr[i + 1]
            if s != e:
                row = row - xi * np.bincount(labels_np[indices[s:e]], data[s:e], minlength=K)
            k = int(row.argmin())
            value = row[k]
        if not value < lam:
            k = K
            column = _open_cluster(ctx, i, geometry)
            table = ctx.table
            K += 1
            lower = column < bestval_np
            second_np = np.where(lower, bestval_np, np.minimum(second_np, column))
            best_np[lower] = k
            bestval_np[lower] = column[lower]
            certain_np = _certain(bestval_np, second_np, lam, bound)
            best, bestval, certain = best_np.tolist(), bestval_np.tolist(), certain_np.tolist()
        if k != labels[i]:
            labels[i] = k
            labels_np[i] = k
    ctx.position = stop


def push_cost(n: int, moves: int, mean_degree: float, exact: bool = False) -> float:
    """Rough cost (microseconds) of a push sweep beyond a DP-means sweep. Exact weights
    (:func:`sweep_windows`): vectorised work per link of a moving point, and per window.
    Otherwise the updates at a moving point's partners, one at a time, and the block refreshes
    of the stale rows they leave."""
    if exact:
        return 0.03 * moves * mean_degree + 50.0 * n / WINDOW
    stale_visits = 0.5 * n * -math.expm1(-moves * mean_degree / max(n, 1))
    return 5.0 * moves + 15.0 * min(stale_visits, n / BLOCK)


def pull_cost(n_uncertain: int) -> float:
    """Rough cost (microseconds) of a pull sweep beyond a DP-means sweep: link scores counted for
    every point links could sway."""
    return 3.5 * n_uncertain
