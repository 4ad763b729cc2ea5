"""MPCK-means and PCK-means (Bilenko, Basu & Mooney 2004, "Integrating constraints and metric
learning in semi-supervised clustering", ICML).

PCK-means (their eq. 2, after Basu, Banerjee & Mooney 2004; Lu & Leen's soft-CKmeans, eq. C.1)::

    J = 1/2 sum_i ||x_i - mu_{l_i}||^2 + sum_{(i,j) in M} w_ij [l_i != l_j]
        + sum_{(i,j) in C} wbar_ij [l_i = l_j]

MPCK-means (eq. 3) gives each cluster h a metric A_h and scales the penalties by distances::

    J = sum_i ( ||x_i - mu_{l_i}||^2_{A_{l_i}} + eps tr(A_{l_i} V) - log det A_{l_i} )
        + sum_M w_ij f_M(i, j) [l_i != l_j] + sum_C wbar_ij f_C(i, j) [l_i = l_j]
    f_M(i, j) = 1/2 ||x_i - x_j||^2_{A_{l_i}} + 1/2 ||x_i - x_j||^2_{A_{l_j}}        (eq. 4)
    f_C(i, j) = tr(A_{l_i} R) - ||x_i - x_j||^2_{A_{l_i}}                             (eq. 5, see below)

The paper's f_C uses ||x' - x''||^2_A for the pair of points farthest apart under A; it depends on
A, so the closed-form metric update (eq. 6) is then not the minimiser and the objective can rise.
We use the fixed matrix R with tr(A R) >= ||x - y||^2_A for every pair and every admissible A:
R = diag(r^2) (r: each coordinate's range) for diagonal metrics, which is the paper's quantity for
the data's bounding box, and R = d diag(r^2) for full ones (Cauchy-Schwarz). Then f_C >= 0,
R - (x_i - x_j)(x_i - x_j)^T is positive semi-definite, the update below is the exact minimiser and
J never increases. ``eps tr(A V)`` (V = diag of the data's variances) keeps the update finite for a
cluster whose scatter is singular (one point, or fewer points than dimensions).

Variants (section 5 of the paper): ``metric_scope="shared"`` is MPCK-means-S, one A for all
clusters, A = N (sum_h S_h)^{-1} (the joint minimiser of eq. 3 in A; the log det and ridge terms
are then the same for every cluster). ``cannot_link_penalty="farthest"`` is the paper's f_C: the
first term is ||x' - x''||^2_{A_h} for the pair farthest apart under A_h (exact search,
``farthest_pair``, O(n^2 d) a cluster and step), and the M-step uses that pair of the E-step's
metric as the paper's update does; J can then rise after an M-step, and a diagonal (eigenvalue) of
S_h that goes negative is clipped to the ridge.

A step is the M-step then the E-step of the paper's algorithm:

* M-step: mu_h = mean of cluster h (``pairlab.centroids.cluster_means``) and (eq. 6)
  A_h = |X_h| S_h^{-1}, S_h = sum_{i in h} (x_i - mu_h)(x_i - mu_h)^T + eps |X_h| V
  + sum_{M violated, i in h} 1/2 w_ij d_ij d_ij^T + sum_{C violated in h} wbar_ij (R - d_ij d_ij^T);
  a diagonal metric takes the diagonal of S_h (eq. 7).
* E-step: the points, in a random order (or data order), each take the cluster minimising J with
  every other point's current label (iterated conditional modes; ``pairwise_sweep.sweep``).
  At iteration 0 there are no labels yet and a partner counts only once it has been placed.

Initialisation (section 4): the neighbourhoods are the must-link components with at least two
points. With lambda >= k of them, the k centres are the centroids of neighbourhoods picked by
weighted farthest-first traversal (weight = size); with fewer, all their centroids, then a point
cannot-linked to every neighbourhood (if any), then random perturbations of the global centroid
(normal, 0.1 x each coordinate's standard deviation). Metrics start at the identity.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pairlab import Algorithm, Param, State, hookimpl
from pairlab.centroids import MAX_ITER, MEANS_INIT, N_CLUSTERS, cluster_means, starting_centers
from pairlab.explanation import Bars, Explanation, component_labels

from .kmeans import _sq_distances
from .pairwise_sweep import LinkCosts, link_graphs, point_costs, sweep

__all__ = ["MPCKMeans", "PCKMeans", "farthest_pair", "neighbourhood_centers"]

_CITATION = ("Bilenko, Basu & Mooney (2004), Integrating constraints and metric learning in "
             "semi-supervised clustering, ICML")


def neighbourhood_centers(X: np.ndarray, chunklet_index: np.ndarray, cannot_link: np.ndarray, k: int,
                          rng: np.random.Generator) -> np.ndarray:
    """The paper's initial centres from the must-link neighbourhoods (see the module docstring)."""
    d = X.shape[1]
    sizes = np.bincount(chunklet_index)
    hoods = np.flatnonzero(sizes >= 2)
    sums = np.zeros((sizes.size, d))
    np.add.at(sums, chunklet_index, X)
    centroids = sums[hoods] / sizes[hoods, None]
    weight = sizes[hoods].astype(float)
    if hoods.size >= k:  # weighted farthest-first traversal
        chosen = [int(np.argmax(weight))]
        nearest = ((centroids - centroids[chosen[0]]) ** 2).sum(axis=1)
        for _ in range(1, k):
            score = weight * nearest
            score[chosen] = -1.0
            c = int(np.argmax(score))
            chosen.append(c)
            nearest = np.minimum(nearest, ((centroids - centroids[c]) ** 2).sum(axis=1))
        return centroids[chosen].copy()
    centers = list(centroids)
    if hoods.size and len(cannot_link):
        # a point cannot-linked to every neighbourhood starts a cluster of its own
        hood_of = np.full(sizes.size, -1)
        hood_of[hoods] = np.arange(hoods.size)
        a, b = chunklet_index[cannot_link[:, 0]], chunklet_index[cannot_link[:, 1]]
        for i, other in ((cannot_link[:, 0], b), (cannot_link[:, 1], a)):
            for p in np.unique(i):
                if len(centers) >= k:
                    break
                touched = np.unique(hood_of[other[i == p]])
                if np.count_nonzero(touched >= 0) == hoods.size and hood_of[chunklet_index[p]] < 0:
                    centers.append(X[p].copy())
    mean, std = X.mean(axis=0), X.std(axis=0)
    while len(centers) < k:
        centers.append(mean + 0.1 * std * rng.normal(size=d))
    return np.array(centers[:k], dtype=float)


def _assignment_param(default: str) -> Param:
    return Param("assignment", str, default, "E-step: a pass from the previous labels (icm: the "
                 "authors' WekaUT code; J never increases), a pass from no labels where a partner "
                 "counts once placed (fresh: active-semi-supervised-clustering), or both passes "
                 "keeping the one with the lower J (best; J never increases)",
                 choices=("best", "icm", "fresh"))


class PCKMeans(Algorithm):
    """PCK-means: k-means with soft must-link / cannot-link penalties (Bilenko et al. eq. 2).

    State: ``labels``, ``objective`` J, ``model["centers"]`` (= ``means``) used for the assignment.
    With no links it is Lloyd's k-means (the ``kmeans`` plugin) from the same centres.
    ``predict_proba`` gives one-hot nearest-centre rows (no links apply to unseen points).
    """

    name = "pck-means"
    title = "PCK-means (pairwise constrained k-means)"
    citation = _CITATION + "; Basu, Banerjee & Mooney (2004), SDM"
    accepts_means_init = True
    mean_keys = ("means", "centers")
    params = (
        N_CLUSTERS,
        MAX_ITER,
        Param("must_link_weight", float, 1.0, "w: cost of a violated must-link (times its confidence)",
              low=0.0),
        Param("cannot_link_weight", float, 1.0, "w-bar: cost of a violated cannot-link (times its "
              "confidence)", low=0.0),
        Param("init", str, "neighbourhoods", "initial centres: the paper's must-link neighbourhoods, "
              "or k-means++", choices=("neighbourhoods", "k-means++")),
        Param("order", str, "random", "order of the assignment pass: random in every pass (the "
              "paper) or data order", choices=("random", "data")),
        MEANS_INIT,
        _assignment_param("icm"),
    )
    objective_name = "PCK-means objective"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ml, self._cl = link_graphs(self.constraints, self.params["must_link_weight"],
                                         self.params["cannot_link_weight"])

    # -- pieces the metric variant overrides --------------------------------------------------
    def _initial_metrics(self) -> np.ndarray | None:
        return None

    def _base(self, centers: np.ndarray, metrics: np.ndarray | None) -> np.ndarray:
        """(n, k) cost of each point in each cluster, links aside."""
        return 0.5 * _sq_distances(self.X, centers)

    def _costs(self, metrics: np.ndarray | None) -> LinkCosts:
        return LinkCosts(ml=lambda e, partner: np.broadcast_to(self._ml.weight[e, None],
                                                               (e.size, self._k)),
                         cl=lambda e: np.broadcast_to(self._cl.weight[e, None], (e.size, self._k)))

    def _link_objective(self, labels: np.ndarray, metrics: np.ndarray | None) -> float:
        ml, cl = self._ml, self._cl
        broken = labels[ml.pairs[:, 0]] != labels[ml.pairs[:, 1]]
        same = labels[cl.pairs[:, 0]] == labels[cl.pairs[:, 1]]
        return float(ml.pair_weight[broken].sum() + cl.pair_weight[same].sum())

    def _update_metrics(self, labels: np.ndarray, centers: np.ndarray,
                        previous: np.ndarray | None) -> np.ndarray | None:
        return None

    # -- shared machinery ---------------------------------------------------------------------
    @property
    def _k(self) -> int:
        return self.params["n_clusters"]

    def _initial_centers(self) -> np.ndarray:
        # "neighbourhoods" is not a seeding rule starting_centers knows: it returns None
        centers = starting_centers(self.X, self._k, self.params["means_init"], self.params["init"],
                                   self.rng)
        if centers is not None:
            return centers
        c = self.constraints
        return neighbourhood_centers(self.X, c.chunklet_index, c.cannot_link, self._k, self.rng)

    def _order(self) -> np.ndarray:
        todo = self._ml.constrained
        return self.rng.permutation(todo) if self.params["order"] == "random" else todo

    @staticmethod
    def _model(centers: np.ndarray, metrics: np.ndarray | None) -> dict[str, np.ndarray]:
        model = {"centers": centers, "means": centers}
        if metrics is not None:
            model["metrics"] = metrics
            model["covariances"] = np.linalg.inv(metrics)  # A_h^{-1}: the cluster's spread, drawn
        return model

    def _state(self, iteration: int, centers: np.ndarray, metrics: np.ndarray | None,
               previous: np.ndarray, parts: tuple[np.ndarray, LinkCosts] | None = None) -> State:
        base, costs = parts if parts is not None else self._parts(centers, metrics)
        labels = sweep(base, previous, self._order(), self._ml, self._cl, costs)
        objective = float(base[np.arange(labels.size), labels].sum()) + \
            self._link_objective(labels, metrics)
        return State(iteration, labels, objective=objective, objective_name=self.objective_name,
                     model=self._model(centers, metrics))

    def _parts(self, centers: np.ndarray, metrics: np.ndarray | None) -> tuple[np.ndarray, LinkCosts]:
        """The pass's inputs under centres and metrics: own costs (n, k) and the link costs."""
        return self._base(centers, metrics), self._costs(metrics)

    def initialize(self) -> State:
        return self._state(0, self._initial_centers(), self._initial_metrics(),
                           np.full(self.dataset.n_samples, -1))

    phases = ("update centres", "assign points")

    def half_step(self, state: State) -> State:
        """The M-step: centres (and metrics) for the state's labels; the labels not yet moved."""
        centers = cluster_means(self.X, state.labels, state.model["centers"])
        metrics = self._update_metrics(state.labels, centers, state.model.get("metrics"))
        return State(state.iteration + 1, state.labels, objective=None,
                     objective_name=self.objective_name, model=self._model(centers, metrics),
                     phase=self.phases[0])

    def finish_step(self, half: State) -> State:
        """The E-step under the half-state's centres (and metrics): an assignment pass from the
        previous labels (``icm``), from no labels (``fresh``), or both, keeping the lower J (``best``)."""
        centers, metrics = np.asarray(half.model["centers"]), half.model.get("metrics")
        mode = self.params["assignment"]
        none = np.full(self.dataset.n_samples, -1)
        parts = self._parts(centers, metrics)
        if mode == "fresh":
            return self._state(half.iteration, centers, metrics, none, parts)
        icm = self._state(half.iteration, centers, metrics, np.asarray(half.labels), parts)
        if mode == "icm":
            return icm
        fresh = self._state(half.iteration, centers, metrics, none, parts)
        return fresh if fresh.objective < icm.objective else icm

    def explain(self, state: State, index: int) -> Explanation:
        """The point's cost of each cluster given every other point's label: what the assignment
        pass compares when it visits the point (J restricted to the point's terms)."""
        metrics = state.model.get("metrics")
        centers = np.asarray(state.model["centers"])
        base = self._base(centers, metrics)
        labels = np.asarray(state.labels)
        cost = point_costs(base, labels, np.array([index]), self._ml, self._cl, self._costs(metrics))[0]
        names = component_labels(cost.size)
        best = int(cost.argmin())
        own = Bars("the point's own term", names, base[index], best, lower_is_better=True,
                   term="distance")
        total = Bars("cost with its links' penalties", names, cost, best, lower_is_better=True)
        links = Bars("link term: the links' penalties", names, cost - base[index], best,
                     lower_is_better=True, term="link term")
        return Explanation(index, state.phase or "assign points", self._equation, (total, own, links),
                           text="The pass visits the points in turn; each takes its cheapest cluster "
                                "given the others' current labels.")

    _equation = "l_i = argmin_h 1/2 ||x_i − μ_h||² + Σ_ML w [h ≠ l_j] + Σ_CL w̄ [h = l_j]"

    def converged(self, previous: State, current: State) -> bool:
        return bool(np.array_equal(previous.labels, current.labels))

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """One-hot rows: each unseen point's cheapest cluster (no links apply to it)."""
        X = np.asarray(X, dtype=float)
        saved, self.X = self.X, X
        try:
            base = self._base(np.asarray(state.model["centers"]), state.model.get("metrics"))
        finally:
            self.X = saved
        out = np.zeros_like(base)
        out[np.arange(X.shape[0]), base.argmin(axis=1)] = 1.0
        return out


class MPCKMeans(PCKMeans):
    """MPCK-means: PCK-means with one learned metric per cluster (Bilenko et al. eqs. 3-7).

    The state's model adds ``metrics`` (k, d, d), the A_h of its assignment, and ``covariances``
    = A_h^{-1} for the canvas. ``predict_proba`` assigns unseen points by
    ``||x - mu_h||^2_{A_h} + eps tr(A_h V) - log det A_h`` (one-hot).
    """

    name = "mpck-means"
    title = "MPCK-means (metric pairwise constrained k-means)"
    citation = _CITATION
    params = (
        *(p for p in PCKMeans.params if p.name != "assignment"),
        _assignment_param("best"),
        Param("metric", str, "diagonal", "per-cluster metric: diagonal or full matrix",
              choices=("diagonal", "full")),
        Param("eps", float, 1e-4, "ridge eps tr(A V) that keeps a singular cluster's metric finite",
              low=0.0, low_open=True),
        Param("metric_scope", str, "per-cluster", "one metric per cluster (MPCK-means) or one shared "
              "by all clusters (the paper's MPCK-means-S)", choices=("per-cluster", "shared")),
        Param("cannot_link_penalty", str, "bound", "f_C: a fixed bound tr(A R) over the data's "
              "bounding box (J never increases) or the paper's distance of the farthest pair under "
              "A (eq. 5; J can rise)", choices=("bound", "farthest")),
    )
    objective_name = "MPCK-means objective"
    phases = ("update centres and metrics", "assign points")
    _equation = ("l_i = argmin_h ||x_i − μ_h||²_{A_h} + ε tr(A_h V) − log det A_h + Σ_ML w f_M [h ≠ l_j]"
                 " + Σ_CL w̄ f_C [h = l_j]")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        X = self.X
        self._var = X.var(axis=0)
        self._var = np.where(self._var > 0, self._var, 1.0)  # a constant coordinate
        r2 = np.ptp(X, axis=0) ** 2
        d = X.shape[1]
        self._R = np.diag(r2) * (1.0 if self.params["metric"] == "diagonal" else float(d))
        self._ml_diff = X[self._ml.pairs[:, 0]] - X[self._ml.pairs[:, 1]]
        self._cl_diff = X[self._cl.pairs[:, 0]] - X[self._cl.pairs[:, 1]]

    def _initial_metrics(self) -> np.ndarray:
        return np.repeat(np.eye(self.X.shape[1])[None], self._k, axis=0)

    @staticmethod
    def _quad(diff: np.ndarray, metrics: np.ndarray) -> np.ndarray:
        """(m, k) values diff_m^T A_h diff_m."""
        return np.einsum("md,hde,me->mh", diff, metrics, diff, optimize=True)

    def _constants(self, metrics: np.ndarray) -> np.ndarray:
        """eps tr(A_h V) - log det A_h per cluster."""
        _, logdet = np.linalg.slogdet(metrics)
        trace = np.einsum("hdd,d->h", metrics, self._var)
        return self.params["eps"] * trace - logdet

    def _base(self, centers: np.ndarray, metrics: np.ndarray) -> np.ndarray:
        X = self.X
        out = np.empty((X.shape[0], centers.shape[0]))
        for h in range(centers.shape[0]):
            diff = X - centers[h]
            out[:, h] = np.einsum("nd,nd->n", diff @ metrics[h], diff)
        return out + self._constants(metrics)[None, :]

    def _costs(self, metrics: np.ndarray) -> LinkCosts:
        dm = self._quad(self._ml_diff, metrics)  # (pairs, k)
        dc = self._quad(self._cl_diff, metrics)
        top = self._cl_top(metrics)[0]
        ml, cl = self._ml, self._cl

        def ml_cost(e: np.ndarray, partner: np.ndarray) -> np.ndarray:
            d = dm[ml.pair[e]]
            return ml.weight[e, None] * 0.5 * (d + d[np.arange(e.size), partner][:, None])

        def cl_cost(e: np.ndarray) -> np.ndarray:
            return cl.weight[e, None] * (top[None, :] - dc[cl.pair[e]])

        return LinkCosts(ml=ml_cost, cl=cl_cost)

    def _link_objective(self, labels: np.ndarray, metrics: np.ndarray) -> float:
        ml, cl = self._ml, self._cl
        li, lj = labels[ml.pairs[:, 0]], labels[ml.pairs[:, 1]]
        broken = np.flatnonzero(li != lj)
        dm = self._quad(self._ml_diff[broken], metrics)
        rows = np.arange(broken.size)
        f_m = 0.5 * (dm[rows, li[broken]] + dm[rows, lj[broken]])
        ci, cj = labels[cl.pairs[:, 0]], labels[cl.pairs[:, 1]]
        same = np.flatnonzero(ci == cj)
        dc = self._quad(self._cl_diff[same], metrics)
        top = self._cl_top(metrics)[0]
        h = ci[same]
        f_c = top[h] - dc[np.arange(same.size), h]
        return float(ml.pair_weight[broken] @ f_m + cl.pair_weight[same] @ f_c)

    def _cl_top(self, metrics: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """f_C's first term per cluster and the matrix R_h it is tr(A_h R_h) of: (k,), (k, d, d).

        ``bound``: R_h = R (module docstring). ``farthest``: R_h = d' d'^T for the pair (x', x'')
        farthest apart under A_h (eq. 5), so tr(A_h R_h) = ||x' - x''||^2_{A_h}.
        """
        if self.params["cannot_link_penalty"] == "bound":
            return np.einsum("hde,de->h", metrics, self._R), np.broadcast_to(self._R, metrics.shape)
        tops, mats = np.empty(metrics.shape[0]), np.empty(metrics.shape)
        for h, A in enumerate(metrics):
            tops[h], diff = farthest_pair(self.X, A)
            mats[h] = np.outer(diff, diff)
        return tops, mats

    def _update_metrics(self, labels: np.ndarray, centers: np.ndarray,
                        previous: np.ndarray) -> np.ndarray:
        """Eq. 6 (full) or its diagonal, eq. 7: A_h = |X_h| S_h^{-1}; an empty cluster keeps A_h."""
        X, k, d = self.X, self._k, self.X.shape[1]
        counts = np.bincount(labels, minlength=k)
        S = np.zeros((k, d, d))
        resid = X - centers[labels]
        for h in np.flatnonzero(counts):
            r = resid[labels == h]
            S[h] = r.T @ r
        S += self.params["eps"] * counts[:, None, None] * np.diag(self._var)[None]
        ml, cl = self._ml, self._cl
        li, lj = labels[ml.pairs[:, 0]], labels[ml.pairs[:, 1]]
        broken = np.flatnonzero(li != lj)
        if broken.size:
            outer = 0.5 * ml.pair_weight[broken, None, None] * (
                self._ml_diff[broken, :, None] * self._ml_diff[broken, None, :])
            np.add.at(S, li[broken], outer)
            np.add.at(S, lj[broken], outer)
        ci, cj = labels[cl.pairs[:, 0]], labels[cl.pairs[:, 1]]
        same = np.flatnonzero(ci == cj)
        if same.size:
            diff = self._cl_diff[same]
            R = self._cl_top(previous)[1][ci[same]]  # the paper takes the farthest pair of the E-step
            term = cl.pair_weight[same, None, None] * (R - diff[:, :, None] * diff[:, None, :])
            np.add.at(S, ci[same], term)
        metrics = np.array(previous, dtype=float)
        if self.params["metric_scope"] == "shared":
            # MPCK-means-S: one A minimises the sum of every cluster's terms, A = N (sum_h S_h)^{-1}
            S = np.repeat(S.sum(axis=0, keepdims=True), k, axis=0)
            counts = np.full(k, labels.size)
        floor = self.params["eps"] * self._var.min()
        for h in np.flatnonzero(counts):
            if self.params["metric"] == "diagonal":
                # the farthest pair under the old A_h need not be the widest in each coordinate: a
                # negative diagonal is clipped to the ridge (bound: never needed)
                metrics[h] = np.diag(counts[h] / np.maximum(np.diag(S[h]), counts[h] * floor))
            else:
                w, v = np.linalg.eigh(0.5 * (S[h] + S[h].T))
                w = np.maximum(w, counts[h] * floor)  # as above; a no-op for the bound
                metrics[h] = counts[h] * (v / w) @ v.T
                metrics[h] = 0.5 * (metrics[h] + metrics[h].T)
        return metrics


def farthest_pair(X: np.ndarray, A: np.ndarray, chunk: int = 2048) -> tuple[float, np.ndarray]:
    """max_{i,j} ||x_i - x_j||^2_A and x_i - x_j for that pair (exact, O(n^2 d) in row chunks)."""
    w, v = np.linalg.eigh(A)
    Y = X @ (v * np.sqrt(np.maximum(w, 0.0)))  # ||x - y||^2_A = ||Y_x - Y_y||^2
    sq = (Y ** 2).sum(axis=1)
    best, pair = -1.0, (0, 0)
    for start in range(0, Y.shape[0], chunk):
        block = sq[start:start + chunk, None] + sq[None, :] - 2.0 * Y[start:start + chunk] @ Y.T
        i, j = np.unravel_index(int(block.argmax()), block.shape)
        if block[i, j] > best:
            best, pair = float(block[i, j]), (start + int(i), int(j))
    diff = X[pair[0]] - X[pair[1]]
    return float(diff @ A @ diff), diff


@hookimpl
def pairlab_algorithms():
    return [PCKMeans, MPCKMeans]
