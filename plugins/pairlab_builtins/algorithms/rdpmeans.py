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
  normalised to distributions p_i and D(p, mu) = sum_j p_j log(p_j / mu_j), the multinomial's
  Bregman divergence in the likelihood exp(-D(x, mu)) f(x) of eq. 14; centres are means of the
  p_i (section 4.4), so eq. 20 with this D is the multinomial RDP-means of Table 4.
* xi is capped at 1e150 so that a long run never overflows to inf (the cap is far beyond the point
  where links dominate every distance).

Speed: Algorithm 1 keeps the centres fixed during a pass, so a pass starts from a table of
D(x_i, mu_k) (n x K, vectorised) and visiting a point needs one row. The visits themselves run in
compiled loops (:mod:`.rdpmeans_kernels`, numba), one point at a time exactly as printed. The links
(a scipy CSR matrix, never a dense n x n one) enter in one of two ways that make the same choices:
``push`` keeps the link scores H (each point's link weight into each cluster; as integer steps
when the weights allow, see ``Links.steps``) and updates two columns at a moving point's partners;
``pull`` decides the points links cannot sway from D alone and counts the links of the others at
their visit. A cost model picks push or pull per pass; H is carried from pass to pass. The passes
and divergences are in :mod:`.rdpmeans_passes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from pairlab import Algorithm, Constraints, Dataset, Param, State, hookimpl
from pairlab.errors import InvalidInputError
from pairlab.explanation import Bars, Explanation

from . import rdpmeans_passes
from .rdpmeans_passes import (
    DIVERGENCES,
    LAMBDA_HEURISTICS,
    XI_MAX,
    Geometry,
    Links,
    PassContext,
    _check_table,
    certain_points,
    farthest_first_lambda,
    kth_mean_distance_lambda,
    pull_cost,
    push_cost,
    sweep_pull,
    sweep_push,
)

__all__ = ["DPMeans", "RDPMeans"]


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
        """Link scores for ``labels`` as :meth:`Links.step_scores` gives them, (K, n), from the
        last two states' cache or computed afresh."""
        if self.links is None:
            return None
        H = self._cached_scores(labels)
        if H is None:
            H = self.links.step_scores(np.asarray(labels), n_clusters)
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
            link = -xi * 0.5 * self.links.within(H, labels) + 0.0  # no -0.0
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
        cap = max(K0 + 1, min(max(8, 2 * K0), rdpmeans_passes.TABLE_LIMIT // n))
        table = np.full((n, cap), np.inf)
        self.geometry.fill_table(table, centers)
        mode, H, minima = "push", None, None
        if self.links is not None and (xi != 0.0 or self.xi_of_pass(number + 1) != 0.0):
            H = self._scores(state.labels, K0)  # kept from the step that made ``state``
        scores = None
        if H is not None and xi != 0.0:
            mode, minima = self._choose_mode(state, table, K0, xi)
            if mode == "push":  # the sweep updates its own copy of H
                scores = np.zeros((cap, n), dtype=self.links.steps.dtype)
                scores[:K0] = H
        cbuf = np.zeros((cap, centers.shape[1]))
        cbuf[:K0] = centers
        return PassContext(number, xi, mode, self.rng.permutation(n), 0, np.asarray(state.labels),
                           H, labels, cbuf, K0, table, minima, scores)

    def _choose_mode(self, state: State, table: np.ndarray, K: int, xi: float
                     ) -> tuple[str, tuple[np.ndarray, ...] | None]:
        """Push or pull for this pass, from an estimate of its moves (every point in the first
        pass; the previous pass's; when those were many, the points whose nearest centre is not
        their cluster's) and the number of points links can sway; either gives the same
        assignments."""
        if self._force_mode is not None:
            return self._force_mode, None
        n = table.shape[0]
        first = not state.extras.get("pass", 0)
        moves = n if first else int(state.extras.get("n_changed", n))
        degree = self.links.n_entries / n
        bound = xi * self.links.weight_sums
        # a point links cannot sway has its smallest D more than xi W_i below lambda (or as far
        # above, where it opens a cluster: rare), so points with xi W_i >= lambda are uncertain
        swayable = int(np.count_nonzero(bound >= self.lambda_value))
        if 4 * moves <= n and push_cost(moves, degree) < pull_cost(n, K, swayable, moves, degree):
            return "push", None
        minima = certain_points(table, K, self.lambda_value, bound)
        if not first:  # many moved last pass: this pass's estimate, the nearest centres changed
            moves = int(np.count_nonzero(minima[0] != state.labels))
        if pull_cost(n, K, n - int(minima[3].sum()), moves, degree) < push_cost(moves, degree):
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
            H = ctx.scores[:K]
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
        if H is not None and not keep.all():
            H = H[keep]
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

    def explain(self, state: State, index: int) -> Explanation:
        """The K + 1 costs of section 4.3 for point i under this state's centres, labels and xi:
        D(x_i, mu_k) - xi1 f_ki + xi2 s_ik for each cluster k, and lambda for a new cluster (the
        choice Algorithm 1 would make if it visited i next)."""
        centers = np.asarray(state.model["centers"])
        K = centers.shape[0]
        d = self.geometry.pairwise(self.geometry.Y[index:index + 1], centers)[0]
        xi = float(state.extras.get("xi", 0.0))
        link = np.zeros(K)
        if self.links is not None:
            lo, hi = self.links.indptr[index], self.links.indptr[index + 1]
            partners = self.links.indices[lo:hi]
            link = np.bincount(np.asarray(state.labels)[partners], self.links.data[lo:hi], minlength=K)[:K]
        costs = np.append(d - xi * link, self.lambda_value)
        labels = [f"k={k}" for k in range(K)] + ["new"]
        best = int(costs.argmin())
        return Explanation(
            point=index, phase="assignment pass",
            equation="Algorithm 1 (section 4.3): z_i = argmin_k D(x_i, μ_k) − ξ₁ f_ki + ξ₂ s_ik, "
                     "or a new cluster when every cost is ≥ λ",
            bars=(Bars("cost of each choice", labels, costs, best, lower_is_better=True),
                  Bars("distance: divergence D(x_i, μ_k) (new: 0)", labels, np.append(d, 0.0), best,
                       lower_is_better=True, term="distance"),
                  Bars("link term −ξ(f_ki − s_ik) (new: 0)", labels, np.append(-xi * link, 0.0), best,
                       lower_is_better=True, term="link term"),
                  Bars("new-cluster penalty λ", labels, np.append(np.zeros(K), self.lambda_value), best,
                       lower_is_better=True, term="penalty λ")),
            text=f"ξ = {xi:.3g}; f_ki / s_ik count the point's may-links / may-not-links in cluster k.")

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
