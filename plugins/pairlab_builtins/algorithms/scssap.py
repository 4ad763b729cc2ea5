"""Soft-constraint semi-supervised affinity propagation (SCSSAP), Algorithm 1.

Arzeno & Vikalo (2015), "Semi-supervised affinity propagation with soft instance-level
constraints", IEEE TPAMI 37(5). The family has three plugins, one module each:

* ``scssap`` -- Algorithm 1: the availabilities alpha (eq. 14) and responsibilities rho (eq. 25)
  of affinity propagation for all pairs, plus a cannot-link message gamma (eq. 17) and a
  must-link message omega (eq. 20) for every constrained *ordered* pair (i, k) and every
  candidate exemplar j, folded into the modified similarity s_hat of eq. 24.
* ``scssap-metric`` (:mod:`.scssap_metric`) -- Algorithm 2 (section 5.2): SCSSAP alternated
  with diagonal per-cluster (or global) metric learning, closed forms eq. 32 (regulariser eq. 29)
  and eq. 33 (eq. 30).
* ``affinity-propagation`` (:mod:`.affinity_propagation`) -- Frey & Dueck (2007): the
  unsupervised baseline, with their update order (responsibilities, then availabilities),
  termination and exemplar refinement, i.e. exactly scikit-learn's ``AffinityPropagation``.

The messages are computed in :mod:`.ap_messages`. Notation follows the paper: ``A`` holds alpha,
``R`` rho, ``S`` the similarity s(i, j) with the preferences on its diagonal.

Choices where the paper is silent or misprinted (each is also in docs/algorithms/scssap.md):

* Algorithm 1 prints the availability update with rho_ij^(t-1) where eq. 14 has rho_jj; eq. 14
  is the affinity propagation update the paper says it reduces to for q = 0, so we use rho_jj.
* Algorithm 1 prints Psi = {k : alpha_ik + rho_ik > 0}; the text after it defines the exemplars
  as the self-exemplars {k : alpha_kk + rho_kk > 0}. We use the text (a point-dependent Psi
  could assign points to non-exemplars). A self-exemplar is its own exemplar (factor E_k, eq. 3).
* One factor per *unordered* link (the paper counts 2N(|C| + |M|) messages, |.| unordered), so
  the objective of eq. 6 charges a broken cannot-link q_c once (at the shared exemplar) and a
  broken must-link q_m twice (at each of the two exemplars j where c_ij != c_mj).
* gamma and omega are not damped (Algorithm 1 damps only alpha and rho).
* Penalties are capped at 2 n (max s - min s) + 1 inside the messages (see
  :meth:`MessageEngine.set_similarity`): with q = inf the printed updates grow without bound
  (about t^2, docs/algorithms/scssap.md); the cap leaves the maximiser of eq. 6 unchanged.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from pairlab import Algorithm, Param, State, hookimpl
from pairlab.constraints import Constraints
from pairlab.errors import InvalidInputError
from pairlab.explanation import Explanation

from .ap_messages import (
    _EPS,
    _TINY,
    Engine,
    LinkSet,
    MessageEngine,
    _check_memory,
    available_memory,
    squared_distances,
)
from .ap_params import (
    AFFINITY,
    CONVERGENCE_ITER,
    MAX_ITER,
    N_NEIGHBORS,
    PAPER_RULE,
    PENALTIES,
    PREFERENCE,
    REFINE_RULE,
    TOL,
    damping,
    exemplar_rule,
)
from .ap_sparse import (
    EdgeGraph,
    SparseMessageEngine,
    knn_graph,
    pair_squared_distances,
    sparse_memory,
    top_similarity_graph,
)
from .explain_ap import ap_explain

__all__ = ["COMMON_PARAMS", "SCSSAP"]

# -- the plugins ----------------------------------------------------------------------------------
#: What affinity-propagation and SCSSAP share besides the damping and the exemplar rule.
COMMON_PARAMS: tuple[Param, ...] = (PREFERENCE, MAX_ITER, CONVERGENCE_ITER, TOL, AFFINITY)

# above this n the default preference (median of all n^2 similarities) is estimated from pairs
_EXACT_MEDIAN_N = 2048
_MEDIAN_SAMPLE = 1 << 20

class SCSSAP(Algorithm):
    """Soft-constraint semi-supervised affinity propagation, Algorithm 1 of Arzeno & Vikalo.

    Each step is one iteration of Algorithm 1. States: ``labels`` numbered 0..k-1 in increasing
    order of the exemplars' indices, ``model["exemplars"]`` the index of each point's exemplar
    (the canvas draws a line from each point to it; there is no separate ``centers`` entry, which
    would mark the exemplars twice), ``extras["exemplar_indices"]`` the sorted exemplars,
    ``objective`` the net similarity of eq. 6. Before any self-exemplar exists (iteration 0 and usually the
    first few iterations) each point's exemplar is its best current candidate
    arg max_k (alpha_ik + rho_ik), ties to itself, and candidates are their own exemplars, so
    every state is a valid clustering.

    Termination (:meth:`converged`): the self-exemplars unchanged for ``convergence_iter``
    iterations with at least one of them (and more than ``convergence_iter`` iterations done,
    as scikit-learn), or, with ``tol > 0``, no message changing by ``tol``; ``max_iter`` caps it.

    The seed (``random_state`` of the estimator) draws the tiny noise Frey & Dueck and
    scikit-learn add to S to break ties: s += (eps * s + 100 * tiny) * N(0, 1).
    """

    name = "scssap"
    title = "SCSSAP (soft-constraint semi-supervised affinity propagation)"
    citation = ("Arzeno & Vikalo (2015), Semi-supervised affinity propagation with soft "
                "instance-level constraints, IEEE TPAMI 37(5):1041-1052")
    uses_constraints = True
    params = (
        damping(0.75, "0.75 in the paper, section 4.1"),
        *PENALTIES,
        *COMMON_PARAMS,
        N_NEIGHBORS,
        exemplar_rule("paper", {"paper": PAPER_RULE, "refine": REFINE_RULE}),
    )
    order: ClassVar[str] = "scssap"
    objective_name: ClassVar[str] = "net similarity (eq. 6)"

    # -- construction ----------------------------------------------------------------------------
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._noise_seed = int(self.rng.integers(2**63 - 1))
        pref = self.params["preference"]
        if pref is not None and not math.isfinite(pref):
            raise InvalidInputError(f"preference must be a finite number or None, got {pref}.")
        if self.params.get("affinity") == "precomputed":
            n, d = self.X.shape
            if n != d:
                raise InvalidInputError(
                    f"affinity='precomputed' needs X to be the (n, n) similarity matrix, got shape "
                    f"{self.X.shape}; use affinity='euclidean' for feature vectors."
                )
        self._engine: Engine | None = None
        self._last: State | None = None

    def _links(self) -> tuple[LinkSet, LinkSet]:
        n = self.dataset.n_samples
        c = self.constraints if self.uses_constraints else Constraints.empty(n)
        ml = LinkSet.build(c.must_link, c.ml_confidence, self.params.get("q_ml", 0.0), n)
        cl = LinkSet.build(c.cannot_link, c.cl_confidence, self.params.get("q_cl", 0.0), n)
        return ml, cl

    def certain_links(self) -> tuple[np.ndarray, np.ndarray]:
        """Links with an infinite penalty (q = inf and a positive confidence) are enforced."""
        if not self.uses_constraints:
            return super().certain_links()
        c, p = self.constraints, self.params
        return ((c.ml_confidence > 0) & (p.get("q_ml", 0.0) == math.inf),
                (c.cl_confidence > 0) & (p.get("q_cl", 0.0) == math.inf))

    def similarity_matrix(self) -> np.ndarray:
        """s(i, j) before preferences: -|x_i - x_j|^2, or X itself when precomputed.

        Subclasses may override this (and :meth:`pair_similarity`) to use another similarity.
        """
        if self.params["affinity"] == "precomputed":
            return np.array(self.X, dtype=float)
        D = squared_distances(self.X)
        np.negative(D, out=D)
        return D

    def pair_similarity(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """s(i, j) of :meth:`similarity_matrix` for the given pairs only (the sparse path)."""
        if self.params.get("affinity") == "precomputed":
            return np.asarray(self.X, dtype=float)[rows, cols]
        D = pair_squared_distances(self.X, rows, cols)
        np.negative(D, out=D)
        return D

    # -- the graph of the sparse path ------------------------------------------------------------
    def _link_pairs(self) -> np.ndarray:
        c = self.constraints
        if not self.uses_constraints or c.n_must_link + c.n_cannot_link == 0:
            return np.empty((0, 2), dtype=np.int64)
        return np.vstack([np.reshape(c.must_link, (-1, 2)), np.reshape(c.cannot_link, (-1, 2))])

    def _graph(self) -> EdgeGraph | None:
        """The k-nearest-neighbour graph plus every linked pair, or None (dense messages)."""
        k = self.params.get("n_neighbors")
        if k is None:
            return None
        if self.params.get("affinity") == "precomputed":
            return top_similarity_graph(self.X, k, self._link_pairs())
        return knn_graph(self.X, k, self._link_pairs())

    def _median(self, S: np.ndarray, graph: EdgeGraph | None) -> float:
        """The default preference: the median of all n^2 similarities (zero diagonal included).

        Dense, and on a complete graph, exactly (scikit-learn's). On a sparse graph the preference
        must not depend on k, so it is still the median over all pairs: exact for precomputed
        similarities and n <= 2048, beyond that estimated from 2^20 pairs drawn uniformly with
        replacement (diagonal included; the sample median's quantile has standard error
        0.5 / 2^10, i.e. it lies within about +/-0.1 percentile points of the true median's).
        """
        n = self.dataset.n_samples
        if graph is None or graph.complete:
            return float(np.median(S))
        if self.params.get("affinity") == "precomputed" or n <= _EXACT_MEDIAN_N:
            return float(np.median(self.similarity_matrix()))
        rng = np.random.default_rng([self._noise_seed, 1])
        i, j = rng.integers(n, size=(2, _MEDIAN_SAMPLE))
        return float(np.median(self.pair_similarity(i, j)))

    def _finish_similarity(self, S: np.ndarray, graph: EdgeGraph | None = None) -> np.ndarray:
        """Put the preferences on the diagonal and add the tie-breaking noise, in place.

        ``S`` is (n, n), or one value per edge of ``graph``; the noise is drawn in the same
        (row-major) order, so a complete graph gets exactly the dense noise.
        """
        pref = self.params["preference"]
        if pref is None:
            pref = self._median(S, graph)
        if graph is None:
            n = S.shape[0]
            S.flat[:: n + 1] = pref
        else:
            S[graph.diag] = pref
        noise = np.random.default_rng(self._noise_seed).standard_normal(S.shape)
        noise *= _EPS * S + _TINY * 100
        S += noise
        return S

    def _similarity(self, graph: EdgeGraph | None) -> np.ndarray:
        """The finished similarity of the current metric: (n, n), or per edge of ``graph``."""
        if graph is None:
            return self._finish_similarity(self.similarity_matrix())
        if graph.complete:   # the dense matrix row by row: the same rounding as the dense path
            return self._finish_similarity(self.similarity_matrix().ravel(), graph)
        return self._finish_similarity(self.pair_similarity(graph.row, graph.col), graph)

    def _n_square(self) -> int:
        # S, S_hat (a copy when there are links), A and R, and the copies of A and R that
        # track_change keeps for tol > 0
        return 6

    def _new_engine(self) -> Engine:
        n = self.dataset.n_samples
        ml, cl = self._links()
        graph = self._graph()
        if graph is None:
            _check_memory(self.name, n, self._n_square(), ml.size + cl.size)
            return MessageEngine(self._similarity(None), ml, cl, self.params["damping"],
                                 self.order)
        need, have = sparse_memory(graph, ml, cl), available_memory()
        if have is not None and need > have:
            raise InvalidInputError(
                f"{self.name} with n_neighbors={self.params['n_neighbors']} needs about "
                f"{need / 2**30:.1f} GiB for its {graph.nnz} edges and the link messages, but only "
                f"{have / 2**30:.1f} GiB of memory is available; use a smaller n_neighbors or "
                "fewer links, or free memory.")
        return SparseMessageEngine(graph, self._similarity(graph), ml, cl,
                                   self.params["damping"], self.order)

    def _start(self) -> None:
        """(Re)build the engine at iteration 0."""
        n = self.dataset.n_samples
        if self._engine is None:
            self._engine = self._new_engine()
        else:
            self._engine.reset()
        self._previous_mask = np.zeros(n, dtype=bool)
        self._stable = 0

    def _advance(self) -> tuple[float | None, np.ndarray]:
        change = self._engine.iterate(track_change=self.params["tol"] > 0)
        mask = self._engine.self_exemplars()
        self._stable = self._stable + 1 if np.array_equal(mask, self._previous_mask) else 1
        self._previous_mask = mask
        return change, mask

    def _sync(self, state: State) -> None:
        """Bring the engine to ``state`` (replaying from iteration 0 if it was elsewhere)."""
        if self._last is state and self._engine is not None:
            return
        self._start()
        for _ in range(state.iteration):
            self._advance()

    # -- states ------------------------------------------------------------------------------------
    def _extra_info(self) -> dict[str, Any]:
        """Subclass hook: more entries for ``State.extras``."""
        return {}

    def _regularizer_total(self) -> float:
        """Subclass hook: what the objective subtracts besides the link penalties."""
        return 0.0

    def _state(self, iteration: int, mask: np.ndarray, change: float | None) -> State:
        c = self._engine.clustering(mask, self.params["exemplar_rule"])
        model = {"exemplars": c.exemplars}
        info = {
            "exemplar_indices": c.centers,
            "n_self_exemplars": int(mask.sum()),
            "stable_iterations": int(self._stable),
            "message_change": change,
            "broken_must_links": c.broken_ml,
            "broken_cannot_links": c.broken_cl,
            **self._extra_info(),
        }
        state = State(iteration, c.labels, objective=c.objective - self._regularizer_total(),
                      objective_name=self.objective_name, model=model, extras=info)
        self._last = state
        return state

    def initialize(self) -> State:
        self._engine = None
        self._start()
        return self._state(0, self._previous_mask, None)

    def step(self, state: State) -> State:
        self._sync(state)
        change, mask = self._advance()
        return self._state(state.iteration + 1, mask, change)

    def explain(self, state: State, index: int) -> Explanation:
        """The availabilities, responsibilities and constraint messages behind the exemplar."""
        return ap_explain(self, state, index)

    def converged(self, previous: State, current: State) -> bool:
        if self.dataset.n_samples == 1:
            return True
        tol = self.params["tol"]
        change = current.extras.get("message_change")
        if tol > 0 and change is not None and change < tol:
            return True
        k = self.params["convergence_iter"]
        return (current.extras["n_self_exemplars"] > 0
                and current.extras["stable_iterations"] >= k and current.iteration > k)


@hookimpl
def pairlab_algorithms():
    return [SCSSAP]
