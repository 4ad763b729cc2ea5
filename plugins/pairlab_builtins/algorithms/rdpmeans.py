"""RDP-means (Khashabi, Wieting, Liu & Liang 2015) and its baseline DP-means (Kulis & Jordan 2012).

RDP-means is the small-variance limit of TVClust, a Dirichlet-process mixture whose side
information E (may-links E_ij = 1, may-not-links E_ij = 0) is a noisy view of the clustering
(section 3). Letting the variance go to zero turns the Gibbs sampler into Algorithm 1: visit the
points one at a time in a random order and put x_i in the cluster k minimising

    D(x_i, mu_k) - xi1 * f_ki + xi2 * s_ik                                     (section 4.3)

(f_ki: x_i's may-link partners in k, s_ik: its may-not-link partners in k, both counted against
the current assignments), or in a new cluster centred on x_i when every value is >= lambda; then
move the centres to their clusters' means (section 4.4) and drop empty clusters. xi1 and xi2 are
``xi1 * xi`` and ``xi2 * xi`` where xi starts at ``xi0`` and is multiplied by ``xi_rate`` after
every pass (section 4.5); with xi = 0 the algorithm is DP-means.

Choices made here (see docs/algorithms/rdpmeans.md):

* Objective (eq. 20). Read literally, sum_k sum_{i in I_k} f_ki counts each may-link inside a
  cluster twice (once from each end), and Algorithm 1's move of one point, which weighs each of
  its links once, can increase that quantity (a counter-example is in the tests). The Gibbs
  conditional (19) comes from a likelihood over pairs i < j, so the energy Algorithm 1 descends
  counts each link once:
      sum_i D(x_i, mu_{z_i}) + lambda K - xi1 sum_{may-links together} c + xi2 sum_{may-not together} c
  This is what ``State.objective`` reports, for the whole data, after every pass; with a fixed xi
  and a Bregman divergence it never increases.
* Per-link weights: a link's confidence c in [0, 1] (pairlab.Constraints) multiplies its term;
  with the default confidence 1 this is the paper's model exactly.
* Divergences: ``sqeuclidean`` (the Gaussian's Bregman divergence, the paper's model), ``euclidean``
  (what the authors' code used; the mean does not minimise it, so the objective may rise) and
  ``kl`` for count data (section 5.3): rows plus ``smoothing`` (Laplace, 0.3 in the paper) are
  normalised to distributions p_i and D(p, mu) = sum_j p_j log(p_j / mu_j); centres are means of
  the p_i.
* xi is capped at 1e150 so that a long run never overflows to inf (the cap is far beyond the point
  where links dominate every distance).

Speed: Algorithm 1 keeps the centres fixed during a pass, so a pass starts from a table of
D(x_i, mu_k) (n x K, vectorised) and visiting a point needs one row. The links (a scipy CSR matrix,
never a dense n x n one) enter in one of two ways that make the same choices: ``push`` keeps the
link scores H (each point's link weight into each cluster) and updates two columns at a moving
point's partners; ``pull`` decides the points links cannot sway from D alone and counts the links
of the others at their visit. With exact weights (``Links.exact``) a push pass decides windows of
visits at once (:func:`sweep_windows`). A cost model picks push or pull per pass; H is carried
from pass to pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from pairlab import Algorithm, Constraints, Dataset, Param, State, hookimpl
from pairlab.errors import InvalidInputError

__all__ = ["DPMeans", "RDPMeans", "farthest_first_lambda", "kth_mean_distance_lambda"]

DIVERGENCES = ("sqeuclidean", "euclidean", "kl")
LAMBDA_HEURISTICS = ("farthest_first", "kth_mean_distance")
XI_MAX = 1e150
#: Largest n * K the score tables may hold (two float64 tables of this size: 256 MiB).
TABLE_LIMIT = 1 << 24
#: Stale rows among this many upcoming visits are refreshed together (push sweeps).
BLOCK = 256
#: Visits decided together by a push sweep with exact link weights (:func:`sweep_windows`).
WINDOW = 1024


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
    A window is the next visits, up to ``WINDOW`` of them (twice as many as the last window
    kept, at least 32; cut before the first point that would open a cluster, which is then
    handled on its own). Every visit gets a tentative choice from the
    rows at the start; the moves these choices make correct the rows of later partners in the
    window, and the corrected rows give every visit its choice again. Up to the first visit
    whose choice changed, every choice is Algorithm 1's (each saw only earlier, confirmed
    moves); those moves are applied to H together and the next window starts at that visit.
    The arithmetic of each row is the sequential loop's, so the choices are identical; the
    Python work follows the number of windows, not of visits or moves.
    """
    n = ctx.labels.size
    K = ctx.n_clusters
    xi = ctx.xi
    labels = ctx.labels
    order = ctx.order
    rank = np.empty(n, dtype=np.intp)  # rank[i]: position of point i in the visiting order
    rank[order] = np.arange(n)
    indptr, indices, data = links.indptr_list, links.indices, links.data
    pos = ctx.position
    size = WINDOW
    while pos < stop:
        W = order[pos:min(pos + size, stop)]
        Hw = ctx.scores[:K, W].T
        choice = _choices(ctx.table[W, :K] - xi * Hw, lam)
        opens = np.flatnonzero(choice < 0)
        if opens.size and opens[0] == 0:  # Algorithm 1: C <- C u {x_i}
            i = int(W[0])
            _open_cluster(ctx, i, geometry)
            _move(ctx, links, i, int(labels[i]), K)
            K += 1
            pos += 1
            continue
        end = int(opens[0]) if opens.size else W.size
        movers = np.flatnonzero(choice[:end] != labels[W[:end]])
        if movers.size:
            points = W[movers].tolist()
            spans = [(indptr[i], indptr[i + 1]) for i in points]
            partners = np.concatenate([indices[a:b] for a, b in spans])
            weights = np.concatenate([data[a:b] for a, b in spans])
            sizes = [b - a for a, b in spans]
            to_col = np.repeat(choice[movers], sizes)
            from_col = np.repeat(labels[W[movers]], sizes)
            src = np.repeat(movers, sizes)
            at = rank[partners] - pos  # the partners' positions in the window
            hit = (at > src) & (at < end)
            if hit.any():  # the rows of later partners get corrected
                t, w = at[hit], weights[hit]
                corr = np.zeros((W.size, K))
                flat = corr.ravel()
                np.add.at(flat, t * K + to_col[hit], w)
                np.subtract.at(flat, t * K + from_col[hit], w)
                mask = np.zeros(W.size, dtype=bool)
                mask[t] = True
                touched = np.flatnonzero(mask)  # window positions, ascending
                again = _choices(ctx.table[W[touched], :K] - xi * (Hw[touched] + corr[touched]), lam)
                changed = np.flatnonzero(again != choice[touched])
                if changed.size:
                    end = int(touched[changed[0]])
            m = int(np.searchsorted(movers, end))  # movers before ``end`` are confirmed
            if m:
                cut = int(sum(sizes[:m]))
                flat = ctx.scores.ravel()
                np.add.at(flat, to_col[:cut] * n + partners[:cut], weights[:cut])
                np.subtract.at(flat, from_col[:cut] * n + partners[:cut], weights[:cut])
                done = W[movers[:m]]
                labels[done] = choice[movers[:m]]
        pos += end
        size = min(WINDOW, max(32, 2 * end))  # a window cut short suggests a shorter next one
    ctx.position = stop


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


# -- the plugins ------------------------------------------------------------------------------
_COMMON_PARAMS = (
    Param("lambda_", float, None, "cluster penalty lambda (None: derived from k by lambda_heuristic)",
          low=0.0, low_open=True, nullable=True),
    Param("k", int, 3, "target number of clusters, used to derive lambda when lambda_ is None", low=1),
    Param("lambda_heuristic", str, "farthest_first",
          "how lambda follows from k: farthest_first (Kulis & Jordan, the paper's choice) or "
          "kth_mean_distance (k-th largest distance to the data mean, the authors' code)",
          choices=LAMBDA_HEURISTICS),
    Param("divergence", str, "sqeuclidean",
          "Bregman divergence: sqeuclidean (Gaussian, the paper's model), euclidean (the authors' "
          "code) or kl (count data, section 5.3)", choices=DIVERGENCES),
    Param("smoothing", float, 0.3, "Laplace smoothing added to counts for divergence='kl'",
          low=0.0, low_open=True),
    Param("max_iter", int, 300, "maximum number of passes", low=1),
    Param("stable_passes", int, 20,
          "stop when the assignments have not changed for this many passes (section 5)", low=1),
    Param("trace_every", int, 0,
          "0: one state per pass; m > 0: also a state every m point visits (for teaching)", low=0),
)


class RDPMeans(Algorithm):
    """Relational DP-means (Algorithm 1 of Khashabi et al.): DP-means with soft may-links and
    may-not-links whose weight xi grows geometrically, pass after pass.

    States: one per pass (``trace_every=0``) with ``labels`` numbered 0..K-1, ``model["centers"]``
    (K, d) (for ``kl``: distributions over the d features) and ``objective`` = eq. 20 with every
    link counted once, evaluated with the xi of that pass (state 0: xi0). ``extras`` holds
    ``xi``, ``xi1``, ``xi2``, ``lambda``, ``pass``, ``n_changed`` (points that moved),
    ``unchanged_passes`` and the objective's ``terms``. With ``trace_every=m`` a step visits m
    points and the intermediate states show the pass in progress (labels as raw cluster ids,
    emptied clusters still present, centres fixed until the pass ends).
    """

    name = "rdpmeans"
    title = "RDP-means (relational DP-means)"
    citation = ("Khashabi, Wieting, Liu & Liang (2015), Clustering with side information: from a "
                "probabilistic model to a deterministic algorithm, arXiv:1508.06235")
    uses_constraints = True
    params = (
        *_COMMON_PARAMS[:3],
        Param("xi0", float, 0.001, "initial weight xi of the links (section 5: 0.001)", low=0.0),
        Param("xi_rate", float, 2.0, "xi is multiplied by this after every pass (section 5: 2)",
              low=0.0),
        Param("xi1", float, 1.0, "may-link weight xi1 = xi1 * xi (sections 4.3, 4.5)", low=0.0),
        Param("xi2", float, 1.0, "may-not-link weight xi2 = xi2 * xi (sections 4.3, 4.5)", low=0.0),
        *_COMMON_PARAMS[3:],
    )

    objective_name = "RDP-means objective (eq. 20, each link once)"

    def __init__(self, dataset: Dataset, constraints: Constraints | None = None,
                 params: Mapping[str, Any] | None = None,
                 rng: np.random.Generator | None = None) -> None:
        super().__init__(dataset, constraints, params, rng)
        p = self.params
        self.geometry = Geometry(self.X, p["divergence"], p["smoothing"])
        self.links = self._build_links()
        self._lambda: float | None = None
        self._scores_cache: list[tuple[np.ndarray, np.ndarray]] = []
        self._force_mode: str | None = None  # tests: "push" or "pull" instead of the cost model

    def _build_links(self) -> Links | None:
        p = self.params
        return Links.build(self.constraints, p["xi1"], p["xi2"])

    # -- parameters derived once ------------------------------------------------------------
    @property
    def lambda_value(self) -> float:
        if self._lambda is None:
            lam = self.params["lambda_"]
            if lam is None:
                k, n = self.params["k"], self.dataset.n_samples
                if k > n:
                    raise InvalidInputError(
                        f"k={k} exceeds the number of points ({n}); lower k or give lambda_."
                    )
                heuristic = self.params["lambda_heuristic"]
                fn = farthest_first_lambda if heuristic == "farthest_first" else kth_mean_distance_lambda
                lam = fn(self.geometry, k)
                if not lam > 0:
                    raise InvalidInputError(
                        f"lambda_heuristic={heuristic!r} with k={k} gives lambda = {lam:g}: the data "
                        "have too few distinct points for k; lower k or give lambda_ > 0."
                    )
            self._lambda = float(lam)
        return self._lambda

    def xi_of_pass(self, number: int) -> float:
        """xi used in pass ``number`` (1-based): xi0 * xi_rate**(number - 1); pass 0 means xi0."""
        xi0, rate = self.params["xi0"], self.params["xi_rate"]
        if number <= 1 or xi0 == 0.0:
            return xi0
        try:
            return min(xi0 * rate ** (number - 1), XI_MAX)
        except OverflowError:
            return XI_MAX

    # -- link scores, cached for the state that was produced last ----------------------------
    def _cached_scores(self, labels: np.ndarray) -> np.ndarray | None:
        for cached_labels, H in self._scores_cache:
            if cached_labels is labels:
                self._remember(labels, H)
                return H
        return None

    def _scores(self, labels: np.ndarray, n_clusters: int) -> np.ndarray | None:
        """Link scores H for ``labels``, from the last two states' cache or computed afresh."""
        if self.links is None:
            return None
        H = self._cached_scores(labels)
        if H is None:
            H = self.links.scores(np.asarray(labels), n_clusters)
            self._remember(labels, H)
        return H

    def _remember(self, labels: np.ndarray, H: np.ndarray) -> None:
        # two entries: a step's input and output (stepping twice from one state stays cheap)
        self._scores_cache = [*[e for e in self._scores_cache if e[0] is not labels][-1:], (labels, H)]

    # -- objective (eq. 20, each link once) -------------------------------------------------
    def _objective(self, labels: np.ndarray, centers: np.ndarray, n_nonempty: int, xi: float,
                   H: np.ndarray | None) -> tuple[float, dict[str, float]]:
        div = float(self.geometry.assigned(centers, labels).sum())
        penalty = self.lambda_value * n_nonempty
        link = 0.0
        if H is not None and xi != 0.0:
            link = -xi * 0.5 * float(H[np.arange(labels.size), labels].sum()) + 0.0  # no -0.0
        return div + penalty + link, {"divergence": div, "penalty": penalty, "links": link}

    def _state(self, iteration: int, labels: np.ndarray, centers: np.ndarray, objective: float,
               terms: dict[str, float], extras: dict[str, Any]) -> State:
        xi = extras["xi"]
        extras = {**extras, "xi1": self.params.get("xi1", 0.0) * xi,
                  "xi2": self.params.get("xi2", 0.0) * xi, "lambda": self.lambda_value,
                  "terms": terms}
        return State(iteration, labels, objective=objective, objective_name=self.objective_name,
                     model={"centers": centers}, extras=extras)

    # -- stepper protocol ---------------------------------------------------------------------
    def initialize(self) -> State:
        """Algorithm 1's initialisation: every point in one cluster, centred on the data mean."""
        n = self.dataset.n_samples
        labels = np.zeros(n, dtype=np.int64)
        centers = self.geometry.Y.mean(axis=0, keepdims=True)
        xi = self.xi_of_pass(0)
        H = self._scores(labels, 1) if xi != 0.0 or self.xi_of_pass(1) != 0.0 else None
        objective, terms = self._objective(labels, centers, 1, xi, H)
        return self._state(0, labels, centers, objective, terms,
                           {"xi": xi, "pass": 0, "n_changed": 0, "unchanged_passes": 0})

    def _start_pass(self, state: State) -> PassContext:
        labels = np.array(state.labels, dtype=np.int64)
        centers = np.asarray(state.model["centers"], dtype=float)
        K0, n = centers.shape[0], labels.size
        if centers.ndim != 2 or centers.shape[1] != self.geometry.Y.shape[1] or labels.max() >= K0:
            raise InvalidInputError(
                f"the state has labels up to {labels.max()} and centres of shape {centers.shape}; "
                f"expected at least {labels.max() + 1} centres of dimension {self.geometry.Y.shape[1]}."
            )
        number = int(state.extras.get("pass", state.iteration)) + 1
        xi = self.xi_of_pass(number)
        _check_table(n, K0 + 1)
        cap = max(K0 + 1, min(max(8, 2 * K0), TABLE_LIMIT // n))
        table = np.full((n, cap), np.inf)
        for k in range(K0):
            table[:, k] = self.geometry.to_center(centers[k])
        mode, H, minima = "push", None, None
        if self.links is not None and (xi != 0.0 or self.xi_of_pass(number + 1) != 0.0):
            H = self._scores(state.labels, K0)  # kept from the step that made ``state``
        scores = None
        if H is not None and xi != 0.0:
            mode, minima = self._choose_mode(state, table, K0, xi)
            if mode == "push":  # the sweep updates its own copy of H
                scores = np.zeros((cap, n))
                scores[:K0] = H.T
        cbuf = np.zeros((cap, centers.shape[1]))
        cbuf[:K0] = centers
        return PassContext(number, xi, mode, self.rng.permutation(n), 0, np.asarray(state.labels),
                           H, labels, cbuf, K0, table, minima, scores)

    def _choose_mode(self, state: State, table: np.ndarray, K: int, xi: float
                     ) -> tuple[str, tuple[np.ndarray, ...] | None]:
        """Push or pull for this pass, from the moves of the previous pass (all points before the
        first) and the number of points links can sway; either gives the same assignments."""
        if self._force_mode is not None:
            return self._force_mode, None
        n = table.shape[0]
        moves = int(state.extras.get("n_changed", n)) if state.extras.get("pass", 0) else n
        push = push_cost(n, moves, self.links.n_entries / n, self.links.exact)
        # a point links cannot sway has its smallest D more than xi W_i below lambda (or as far
        # above, where it opens a cluster: rare), so points with xi W_i >= lambda are uncertain
        swayable = int(np.count_nonzero(xi * self.links.weight_sums >= self.lambda_value))
        if push < pull_cost(max(n // 20, swayable)):
            return "push", None
        minima = certain_points(table, K, self.lambda_value, xi * self.links.weight_sums)
        if pull_cost(n - int(minima[3].sum())) < push:
            return "pull", minima
        return "push", None

    def _resume_pass(self, state: State) -> PassContext:
        snap = state.extras["pass_context"]
        centers = snap["centers"]
        table = snap["table"].copy()
        cbuf = np.zeros((table.shape[1], centers.shape[1]))
        cbuf[: centers.shape[0]] = centers
        scores = None if snap["scores"] is None else snap["scores"].copy()
        return PassContext(snap["number"], snap["xi"], snap["mode"], snap["order"], snap["position"],
                           snap["start_labels"], snap["start_scores"],
                           np.array(state.labels, dtype=np.int64), cbuf, centers.shape[0], table,
                           scores=scores)

    def step(self, state: State) -> State:
        """One pass of Algorithm 1 (or the next ``trace_every`` point visits of it)."""
        ctx = self._resume_pass(state) if "pass_context" in state.extras else self._start_pass(state)
        n = ctx.labels.size
        m = self.params["trace_every"]
        stop = n if m == 0 else min(n, ctx.position + m)
        first = ctx.position
        sweep = sweep_pull if ctx.mode == "pull" else sweep_push
        sweep(ctx, stop, self.lambda_value, self.geometry, self.links)
        K = ctx.n_clusters
        labels, start = ctx.labels, ctx.start_labels
        H = None
        if ctx.scores is not None and self.links.exact:  # kept up to date by the push sweep
            H = ctx.scores[:K].T
        elif ctx.start_scores is not None:
            H = self.links.moved_scores(ctx.start_scores, start, labels, K)
        counts = np.bincount(labels, minlength=K)
        if ctx.position < n:  # mid-pass trace state: centres have not moved yet
            centers = ctx.centers[:K].copy()
            objective, terms = self._objective(labels, centers, int((counts > 0).sum()), ctx.xi, H)
            extras = {"xi": ctx.xi, "pass": ctx.number - 1, "visited": ctx.order[first:stop],
                      "n_changed": int((labels != start).sum()),
                      "unchanged_passes": state.extras.get("unchanged_passes", 0),
                      "pass_context": ctx.snapshot()}
            return self._state(state.iteration + 1, labels, centers, objective, terms, extras)
        # end of the pass: centres to the means, empty clusters removed, labels renumbered
        keep = counts > 0
        remap = np.cumsum(keep) - 1
        new_labels = remap[labels]
        onehot = sp.csr_matrix((np.ones(n), (new_labels, np.arange(n))), shape=(int(keep.sum()), n))
        centers = (onehot @ self.geometry.Y) / counts[keep][:, None]
        if H is not None:
            H = np.ascontiguousarray(H[:, keep])
        n_changed = int((labels != start).sum())
        unchanged = int(state.extras.get("unchanged_passes", 0)) + 1 if n_changed == 0 else 0
        if n_changed == 0 and np.array_equal(new_labels, state.labels):
            new_labels = state.labels  # same array: the cached link scores stay valid
        if H is not None:
            self._remember(new_labels, H)
        objective, terms = self._objective(new_labels, centers, centers.shape[0], ctx.xi, H)
        extras = {"xi": ctx.xi, "pass": ctx.number, "n_changed": n_changed,
                  "unchanged_passes": unchanged, "sweep": ctx.mode}
        if m:
            extras["visited"] = ctx.order[first:stop]
        return self._state(state.iteration + 1, new_labels, centers, objective, terms, extras)

    def converged(self, previous: State, current: State) -> bool:
        """Section 5: the assignments did not change for ``stable_passes`` passes in a row."""
        if "pass_context" in current.extras:
            return False
        return int(current.extras.get("unchanged_passes", 0)) >= self.params["stable_passes"]

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """Hard assignment of unseen points to the nearest centre (the gamma -> inf limit)."""
        centers = np.asarray(state.model["centers"])
        D = self.geometry.pairwise(self.geometry.transform(X), centers)
        out = np.zeros(D.shape)
        out[np.arange(D.shape[0]), D.argmin(axis=1)] = 1.0
        return out


class DPMeans(RDPMeans):
    """DP-means (Kulis & Jordan 2012): RDP-means without side information (xi = 0), with the same
    random visiting order, lambda heuristics, divergences and stopping rule."""

    name = "dpmeans"
    title = "DP-means"
    citation = ("Kulis & Jordan (2012), Revisiting k-means: new algorithms via Bayesian "
                "nonparametrics, ICML")
    uses_constraints = False
    params = _COMMON_PARAMS
    objective_name = "DP-means objective"

    def _build_links(self) -> Links | None:
        return None

    def xi_of_pass(self, number: int) -> float:
        return 0.0


@hookimpl
def pairlab_algorithms():
    return [RDPMeans, DPMeans]
