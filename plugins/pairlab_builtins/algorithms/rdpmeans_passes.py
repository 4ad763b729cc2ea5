"""The passes of RDP-means' Algorithm 1 (Khashabi et al. 2015, section 4.3): divergences, the
lambda heuristics, link scores, and the push / pull sweeps with their cost model.

Every sweep makes the choices of the literal point-by-point Algorithm 1 (tests compare them); they
differ only in how the link terms -xi1 f_ki + xi2 s_ik are kept up to date.
"""

from __future__ import annotations

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
#: Largest n * K the score tables may hold (two float64 tables of this size: 2 GiB; at
#: n = 10^6 that is 134 clusters, room for the first pass's extra ones, issue 37).
TABLE_LIMIT = 1 << 27


def _kernels():
    """The compiled loops (imported on first use: numba costs a third of a second to import)."""
    from . import rdpmeans_kernels
    return rdpmeans_kernels


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

    def to_center(self, c: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
        """D(y_i, c) for every row i (or the rows of ``rows``), shape (n,)."""
        Y = self.Y[rows]
        if self.divergence == "kl":
            return np.einsum("ij,ij->i", Y, self._logY[rows] - np.log(c))
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

    def fill_table(self, table: np.ndarray, centers: np.ndarray, chunk: int = 8192) -> None:
        """table[i, k] = D(y_i, centers[k]) for k < len(centers), written a block of rows at a time
        (the values of :meth:`to_center`; column by column the writes would stride through the
        whole table once per centre, which at n = 10^6 cost a fifth of a pass, issue 37)."""
        n, K = table.shape[0], centers.shape[0]
        block = np.empty((min(chunk, n), K))
        for start in range(0, n, chunk):
            rows = slice(start, min(start + chunk, n))
            out = block[: rows.stop - start]
            for k in range(K):
                out[:, k] = self.to_center(centers[k], rows)
            table[rows, :K] = out

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
    indices: np.ndarray  # partners, in partner_index_type(n)
    data: np.ndarray
    weight_sums: np.ndarray  # W_i = sum_j |w_ij|: xi * W_i bounds how far links move a row
    exact: bool  # every partial sum of weights is exact, so update order cannot matter
    indptr_list: list[int] = field(repr=False, compare=False)  # indptr for per-point lookups
    # the weights as integer ``steps`` of ``unit`` for the push sweep (see :func:`_integer_steps`)
    unit: float = field(repr=False, compare=False)
    steps: np.ndarray = field(repr=False, compare=False)

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
        unit, steps = _integer_steps(A.data, weight_sums) if exact else (1.0, A.data)
        indices = A.indices.astype(partner_index_type(n))
        return cls(A, indptr, indices, A.data, weight_sums, exact, indptr.tolist(), unit, steps)

    @property
    def n_entries(self) -> int:
        return int(self.data.size)

    def scores(self, labels: np.ndarray, n_clusters: int) -> np.ndarray:
        """H[i, k] = sum of i's link weights to points with label k, shape (n, K); each row's
        entries added in CSR order."""
        labels = _checked_labels(labels, n_clusters)
        out = np.zeros((self.indptr.size - 1, n_clusters))
        _kernels().row_scores(self.indptr, self.indices, self.data, labels, out, False)
        return out

    def step_scores(self, labels: np.ndarray, n_clusters: int) -> np.ndarray:
        """The link scores as the push sweep keeps them: S[k, i] = H[i, k] / unit, shape (K, n),
        in the type of ``steps`` (with float weights, unit 1: the transpose of :meth:`scores`)."""
        labels = _checked_labels(labels, n_clusters)
        out = np.zeros((n_clusters, self.indptr.size - 1), dtype=self.steps.dtype)
        _kernels().row_scores(self.indptr, self.indices, self.steps, labels, out, True)
        return out

    def within(self, S: np.ndarray, labels: np.ndarray) -> float:
        """sum_i H[i, labels[i]] (each within-cluster link twice) from :meth:`step_scores`; the
        same float as from :meth:`scores`, since integer steps make every partial sum exact."""
        total = S[labels, np.arange(labels.size)].sum()
        return float(total) if S.dtype.kind == "f" else float(total) * self.unit

    def moved_scores(self, S: np.ndarray | None, before: np.ndarray, after: np.ndarray,
                     n_clusters: int) -> np.ndarray:
        """:meth:`step_scores` for labels ``after``, updated from those for ``before`` (``S``,
        perhaps with fewer rows) when that is exact and cheaper, else computed afresh."""
        if S is None or not self.exact:
            return self.step_scores(after, n_clusters)
        before = _checked_labels(before, S.shape[0])
        after = _checked_labels(after, n_clusters)
        moved = np.flatnonzero(before != after)
        if 2 * int((self.indptr[moved + 1] - self.indptr[moved]).sum()) > self.data.size:
            return self.step_scores(after, n_clusters)
        out = np.zeros((n_clusters, S.shape[1]), dtype=self.steps.dtype)
        out[:S.shape[0]] = S
        _kernels().apply_moves(moved, before, after, self.indptr, self.indices, self.steps, out)
        return out


def partner_index_type(n: int) -> type:
    """The type of ``Links.indices``: the smallest the compiled loops read that holds every point
    index, uint16 up to 65,536 points, else int32 (n < 2**31). A moving point's partners are
    fetched from a random place, so fewer bytes make its updates faster (about 10% of an
    RDP-means pass with many moves at n = 20,000; docs/algorithms/rdpmeans.md)."""
    return np.uint16 if n <= 1 << 16 else np.int32


def _checked_labels(labels: np.ndarray, n_clusters: int) -> np.ndarray:
    """``labels`` as int64, each in [0, n_clusters) (the compiled loops do not check indices)."""
    labels = np.asarray(labels, dtype=np.int64)
    if labels.size and not (0 <= labels.min() and labels.max() < n_clusters):
        raise ValueError(f"labels must lie in [0, {n_clusters}) for {n_clusters} score columns")
    return labels


def _integer_steps(data: np.ndarray, weight_sums: np.ndarray) -> tuple[float, np.ndarray]:
    """Exact weights (multiples of 2**-12, ``Links.exact``) as integer ``steps`` of the largest
    power of two ``unit`` that divides them all, in the smallest integer type that holds every
    row's sum of |steps|; (1.0, data) when even int32 cannot.

    Link scores kept as integers (int16 for up to 32,767 unit links a point) are the same exact
    values as float sums, in a table a quarter or half the size: the push sweep's updates
    land at random rows, and a smaller table keeps them in cache.
    """
    for m in range(13):  # ends at m = 12 at the latest: the weights are exact
        unit = 2.0**-m
        q = data / unit
        if np.all(q == np.round(q)):
            break
    bound = float(weight_sums.max(initial=0.0)) / unit
    for dtype in (np.int16, np.int32):
        if bound <= np.iinfo(dtype).max:
            return unit, q.astype(dtype)
    return 1.0, data


# -- one pass of Algorithm 1 ------------------------------------------------------------------
@dataclass
class PassContext:
    """Everything a pass needs; a pass can stop after any point and resume (``trace_every``).

    ``table`` holds D. ``mode`` says how links enter. "push": ``scores`` holds the link scores at
    the current labels as :meth:`Links.step_scores` does, (capacity, n), updated at a moving
    point's partners. "pull": a point whose decision links could change (see
    :func:`certain_points`) counts its link scores when it is visited.
    """

    number: int                # 1 for the first pass
    xi: float                  # the xi of this pass
    mode: str                  # "push" or "pull"
    order: np.ndarray          # the random visiting order
    position: int              # next index into ``order``
    start_labels: np.ndarray   # labels when the pass began (numbering of the previous state)
    start_scores: np.ndarray | None  # Links.step_scores for start_labels (K0, n), if known
    labels: np.ndarray         # current labels (int64, raw cluster ids)
    centers: np.ndarray        # (capacity, d); the first ``n_clusters`` rows are in use
    n_clusters: int
    table: np.ndarray          # (n, capacity); +inf in unused columns
    minima: tuple[np.ndarray, ...] | None = None  # certain_points(...) if already computed
    scores: np.ndarray | None = None  # push with links: step scores at ``labels``, (capacity, n)

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
        scores = np.zeros((new_cap, n), dtype=ctx.scores.dtype)
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


_NO_SCORES = np.zeros((1, 1))
_NO_LINKS = (np.zeros(1, dtype=np.intp), np.zeros(0, dtype=np.int32), np.zeros(0))


def sweep_push(ctx: PassContext, stop: int, lam: float, geometry: Geometry,
               links: Links | None) -> None:
    """Visit ``ctx.order[ctx.position:stop]`` one point at a time (Algorithm 1's inner loop).

    Point i goes to argmin_k G[i, k], G = D - xi * H, when that value is < lambda, else to a new
    cluster centred on it. ``ctx.table`` holds D and ``ctx.scores`` H as step scores (None
    without links or with xi = 0). Moving point i from a to b changes H only at i's partners, in
    clusters a and b, so a visit costs O(K) and a move O(i's links)
    (:func:`.rdpmeans_kernels.push_visits`).
    """
    visits = _kernels().push_visits
    linked = ctx.scores is not None
    unit = links.unit if linked else 1.0
    indptr, indices, steps = (links.indptr, links.indices, links.steps) if linked else _NO_LINKS
    pos, forced = ctx.position, -1
    while pos < stop:
        H = ctx.scores if linked else _NO_SCORES
        pos = visits(ctx.order, pos, stop, ctx.table, ctx.n_clusters, ctx.xi, lam, ctx.labels,
                     H, unit, indptr, indices, steps, linked, forced)
        if pos < stop:  # Algorithm 1: C <- C u {x_i}; the loop resumes with x_i in it
            forced = ctx.n_clusters
            _open_cluster(ctx, int(ctx.order[pos]), geometry)
    ctx.position = stop


def certain_points(table: np.ndarray, K: int, lam: float, bound: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row minimum, its index, the second smallest value, and which rows links cannot decide.

    Links move D[i, k] - xi h_ik by at most xi W_i relative to another column (h_ik - h_il <= W_i)
    and |xi h_ik| <= xi W_i, so when the two smallest D values are more than ``bound`` = xi W_i
    apart and the smallest is more than ``bound`` away from lambda, point i's choice is the one
    without links. A relative slack of 1e-9 keeps rounding on the safe side.
    """
    n = table.shape[0]
    best, bestval, second = np.empty(n, dtype=np.int64), np.empty(n), np.empty(n)
    _kernels().row_minima(table, K, best, bestval, second)
    return best, bestval, second, _certain(bestval, second, lam, bound)


def _certain(bestval: np.ndarray, second: np.ndarray, lam: float, bound: np.ndarray) -> np.ndarray:
    margin = bound * (1 + 1e-9) + 1e-9 * (np.abs(bestval) + abs(lam))
    return (second - bestval > margin) & (np.abs(bestval - lam) > margin)


def sweep_pull(ctx: PassContext, stop: int, lam: float, geometry: Geometry, links: Links) -> None:
    """The same visits as :func:`sweep_push` with ``ctx.table`` holding D only.

    A point that links cannot sway (:func:`certain_points`) takes its row minimum; any other
    counts its link scores from its partners' current labels at its visit
    (:func:`.rdpmeans_kernels.pull_visits`). Nothing is propagated when a point moves, which makes
    this the cheaper loop when many points move and few can be swayed (the early passes).
    """
    visits = _kernels().pull_visits
    xi = ctx.xi
    bound = xi * links.weight_sums
    if ctx.minima is None:
        ctx.minima = certain_points(ctx.table, ctx.n_clusters, lam, bound)
    best, bestval, second, certain = ctx.minima
    ctx.minima = None
    pos = ctx.position
    while pos < stop:
        scratch = np.empty(ctx.n_clusters)
        pos = visits(ctx.order, pos, stop, ctx.table, ctx.n_clusters, xi, lam, ctx.labels,
                     best, bestval, certain, links.indptr, links.indices, links.data, scratch)
        if pos < stop:  # Algorithm 1: C <- C u {x_i}; every row's minimum may change
            i = int(ctx.order[pos])
            k = ctx.n_clusters
            column = _open_cluster(ctx, i, geometry)
            lower = column < bestval
            second = np.where(lower, bestval, np.minimum(second, column))
            best[lower] = k
            bestval[lower] = column[lower]
            certain = _certain(bestval, second, lam, bound)
            ctx.labels[i] = k
            pos += 1
    ctx.position = stop


def push_cost(moves: int, mean_degree: float) -> float:
    """Rough cost (microseconds) of a push sweep beyond a DP-means sweep: two updates per link of
    a moving point, at random rows."""
    return 0.01 * moves * mean_degree


def pull_cost(n: int, n_clusters: int, n_uncertain: int, moves: int, mean_degree: float) -> float:
    """Rough cost (microseconds) of a pull sweep beyond a DP-means sweep: the two smallest
    distances of every row (:func:`certain_points`), link scores counted for every point links
    could sway, and the scores for the next pass (the moves' updates, or all links row by row
    when that is cheaper)."""
    ends = min(0.01 * moves * mean_degree, 0.0025 * n * mean_degree)
    return 0.001 * n * n_clusters + 0.005 * n_uncertain * mean_degree + ends
