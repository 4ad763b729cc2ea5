"""Penalized probabilistic clustering, PPC (Lu & Leen, Neural Computation 19, 2007).

A Gaussian mixture whose prior on the assignments Z of the *training* points is tilted by pairwise
preferences (eq. 2.4-2.8)::

    P(Z | Theta, W) = (1 / Omega(pi)) prod_i pi_{z_i} prod_{i != j} exp(W_ij delta(z_i, z_j)).

Conventions and choices (each checked against brute-force enumeration in ``tests/test_ppc.py``):

* **Factor 2.** The product of eq. 2.7 runs over *ordered* pairs, so every unordered pair {i, j}
  carries ``exp(2 W_ij delta(z_i, z_j))``. ``W`` is kept in the paper's convention, so eq. 2.15
  (``W = 1/2 log(gamma / (1 - gamma))``) makes the pair factor exactly ``gamma / (1 - gamma)``
  (Appendix B), and the Gibbs conditional of eq. 3.1 carries ``exp(2 W delta)``. The general
  mean-field equation printed under eq. 3.5 omits the 2 (``exp(sum_j W_ij Q_j(z_i))``); the
  derivative of ``E_Q[log g(Z)]`` picks up both ``W_ij`` and ``W_ji``, so the 2 belongs there, as
  the paper itself writes in section 5.2.2. We use ``exp(2 sum_j W_ij Q_j(k))``.
* **Hard relations** (``W = +/- inf``) are implemented through eq. 2.10: hard links merge points
  into chunklets that share one label (section 3.1, second special case), hard do-not-links are
  ``(1 - delta)`` factors, and ``Omega`` sums over the assignments that satisfy them.
* **Omega for non-overlapping relations.** For a single pair with weight w the normaliser is
  ``1 + (exp(2w) - 1) S`` with ``S = sum_k pi_k^2``; in the hard limit (eq. 2.10) a link gives
  ``S`` and a do-not-link ``1 - S``, so ``Omega = S^N_L (1 - S)^N_N``. The formula printed in
  section 3.1, ``(1 - S)^N_L S^N_N``, swaps the two exponents; we use the derived one.
* **Overlapping relations.** ``Omega`` factorises over cliques (connected components of the
  links). A clique of |T| chunklets is enumerated exactly when ``M^|T| <= max_exact_configs``,
  else solved exactly by :class:`pairlab.markov.LabelNetwork` (trees, small loop cutsets) when
  ``M^cutset |T| <= max_exact_work``; beyond both (``omega="auto"``) its relations are treated as
  if they did not overlap (the approximation of Shental et al. 2004 that section 2.3 mentions):
  each edge contributes its pair normaliser divided by that of two independent nodes.
* **Prior update (eq. 2.13)** is maximised over the simplex with L-BFGS on a softmax
  parametrisation with the analytic gradient ``N_k - E_prior[count_k]`` (a generalised EM step:
  the previous weights are kept if the optimiser does not improve on them); ``weights_update=
  "grid"`` reproduces the paper's 0.01 grid search (eq. 2.14) with ``log Omega`` tabulated once.
* **Posteriors** over each clique: exact (enumeration, O(M^|T|), vectorised over all cliques of
  the same size; sum-product / cutset conditioning beyond), Gibbs sampling (eq. 3.1) or mean
  field (eq. 3.5). Gibbs and mean field visit
  the nodes one colour class of a greedy graph colouring at a time; nodes of one class share no
  relation, so this is the paper's sequential scan in another order, vectorised.
  Mean field recomputes only the nodes whose field may have moved by more than
  ``mean_field_tol / 8`` since their last update (:mod:`.ppc_mean_field`).
* **Objective**: the penalized log-likelihood ``log P_p(X | Theta, W)`` (what EM maximises,
  section 2.3). Under Gibbs or mean field the cliques they handle contribute the variational lower
  bound ``E_Q[log P_p(X, Z)] + H(Q)`` of the factorised ``Q`` they produce.
* ``predict_proba`` of unseen points uses the fitted GMM alone (section 2.1).

The algorithm is below; its posteriors (exact, Gibbs, mean field) and the prior update are in
:mod:`.ppc_posteriors`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pairlab import Param, State, hookimpl
from pairlab.errors import InvalidInputError
from pairlab.explanation import Explanation
from pairlab.mixture import (
    MIXTURE_PARAMS,
    EStep,
    MixtureAlgorithm,
    log_normalize,
)

from .explain_mixtures import ppc_explain
from .ppc_posteriors import (
    _Approximate,
    _build_groups,
    _LinkGraph,
    _NetworkCliques,
    _Omega,
    _simplex_grid,
    _softmax_rows,
    maximize_prior,
    ppc_weight_matrix,
)

__all__ = ["PenalizedProbabilisticClustering"]


# -- the algorithm --------------------------------------------------------------------------------
class PenalizedProbabilisticClustering(MixtureAlgorithm):
    """Penalized probabilistic clustering (Lu & Leen 2007): EM for a GMM with a pairwise prior.

    See the module docstring for the conventions (factor 2, hard relations through eq. 2.10,
    the corrected Omega of section 3.1, overlapping relations) and ``docs/algorithms/ppc.md``.
    """

    name = "ppc"
    title = "Penalized probabilistic clustering"
    citation = "Lu & Leen (2007), Penalized probabilistic clustering, Neural Computation 19(6):1528-1567"
    params = (
        *MIXTURE_PARAMS,
        Param("weighting", str, "uniform", "how W is built: uniform weights, eq. 2.15 from per-pair "
              "confidences, or hard (eq. 2.10)", choices=("uniform", "confidence", "hard")),
        Param("must_link_weight", float, 1.5, "W of a link for weighting='uniform' (inf = hard)", low=0.0),
        Param("cannot_link_weight", float, 1.5, "-W of a do-not-link for weighting='uniform' "
              "(inf = hard)", low=0.0),
        Param("inference", str, "auto", "posterior over cliques: exact (enumeration, sum-product), "
              "Gibbs (eq. 3.1), mean field (eq. 3.5), or auto (exact where feasible, else mean field)",
              choices=("auto", "exact", "gibbs", "mean-field")),
        Param("max_exact_configs", int, 10_000, "largest M^|T| a clique may have to be enumerated",
              low=1),
        Param("max_exact_work", int, 200_000, "larger cliques are solved exactly (sum-product, loop "
              "cutset conditioning) while M^cutset * |T| stays below this", low=1),
        Param("gibbs_sweeps", int, 200, "Gibbs sweeps averaged per E-step", low=1),
        Param("gibbs_burn_in", int, 50, "Gibbs sweeps discarded per E-step", low=0),
        Param("rao_blackwell", bool, False, "average Gibbs conditionals instead of indicators"),
        Param("mean_field_iter", int, 50, "maximum mean-field sweeps per E-step", low=1),
        Param("mean_field_tol", float, 1e-5, "stop mean field when no Q_i(k) moves more", low=0.0),
        Param("omega", str, "auto", "log Omega(pi) in the prior update: exact per clique, auto "
              "(exact where feasible, else relations treated as non-overlapping), pairwise "
              "(always so), or ignore (pi_k = N_k / N)",
              choices=("auto", "exact", "pairwise", "ignore")),
        Param("weights_update", str, "optimize", "maximise eq. 2.13 by L-BFGS on the simplex, or "
              "search the paper's grid (eq. 2.14)", choices=("optimize", "grid")),
        Param("grid_step", float, 0.01, "grid resolution for weights_update='grid'", low=0.0,
              low_open=True, high=0.5),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.params
        M = p["n_components"]
        self.W = ppc_weight_matrix(self.constraints, p["weighting"], p["must_link_weight"],
                                   p["cannot_link_weight"])
        g = self._graph = _LinkGraph(self.W)
        sizes = g.comp_size
        multi = np.flatnonzero(sizes > 1)
        small = np.array([s * math.log(M) <= math.log(p["max_exact_configs"]) + 1e-12
                          for s in sizes[multi]], dtype=bool)
        inference, omega = p["inference"], p["omega"]
        # cliques too large to enumerate: exact by sum-product / cutset conditioning where possible
        large = multi[~small]
        network = None
        if large.size and (inference in ("auto", "exact") or omega in ("auto", "exact")):
            network = _NetworkCliques(g, large, M, p["max_exact_work"])
        inexact = network.inexact if network is not None else large
        for what, mode in (("inference", inference), ("omega", omega)):
            if mode == "exact" and inexact.size:
                s = int(sizes[inexact].max())
                raise InvalidInputError(
                    f"{what}='exact' cannot handle a loopy clique of {s} linked chunklets: "
                    f"enumeration needs {M}^{s} assignments (max_exact_configs="
                    f"{p['max_exact_configs']}) and its loop cutset exceeds max_exact_work="
                    f"{p['max_exact_work']}; raise those limits or use {what}='auto'"
                    + (", 'gibbs' or 'mean-field'." if what == "inference" else " or 'pairwise'."))
        use_net = network is not None and network.nodes.size > 0
        if inference in ("auto", "exact"):
            exact_comps, approx_comps = multi[small], inexact
        else:
            exact_comps, approx_comps = multi[:0], multi
        omega_exact = multi[small] if omega in ("auto", "exact") else multi[:0]
        omega_pair = (inexact if omega in ("auto", "exact") else multi) if omega != "ignore" else multi[:0]

        self._groups: list[Any] = _build_groups(g, exact_comps, M)
        omega_groups = (list(self._groups) if np.array_equal(exact_comps, omega_exact)
                        else _build_groups(g, omega_exact, M))
        if use_net and inference in ("auto", "exact"):
            self._groups.append(network)
        if use_net and omega in ("auto", "exact"):
            omega_groups.append(network)
        self._single = np.flatnonzero(sizes[g.comp] == 1)
        self._all_single = self._single.size == g.n_nodes

        self._approx = None
        if approx_comps.size:
            nodes = np.flatnonzero(np.isin(g.comp, approx_comps))
            if g.hard[nodes].nnz:
                raise InvalidInputError(
                    "Gibbs sampling and mean field need finite weights, but a clique left to them holds "
                    "hard do-not-links; give those finite weights (weighting='uniform' with a finite "
                    "cannot_link_weight, or confidences below 1), or use inference='exact' or "
                    "'auto' (raising max_exact_work if the clique is large and loopy).")
            self._approx = _Approximate(g, nodes)

        # Omega: exact cliques, plus nodes and edges of the cliques treated as non-overlapping
        pair_nodes = np.isin(g.comp, omega_pair)
        a, b, w = g.edges()
        on = pair_nodes[a]
        isolated = g.sizes[(sizes[g.comp] == 1)]
        node_sizes = np.concatenate([isolated[isolated > 1], g.sizes[pair_nodes]])
        if omega == "ignore":
            node_sizes = node_sizes[:0]
        self._omega = _Omega(omega_groups, node_sizes, (g.sizes[a[on]], g.sizes[b[on]], w[on]))
        self._grid: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

        parts = []
        if self._approx is not None:
            parts.append("mean-field bound" if inference in ("auto", "mean-field")
                         else "bound from Gibbs marginals")
        if omega == "ignore" and (multi.size or (g.sizes > 1).any()):
            parts.append("log Omega omitted")
        elif omega_pair.size:
            parts.append("Omega with relations treated as non-overlapping")
        self.objective_name = "penalized log-likelihood" + (f" ({', '.join(parts)})" if parts else "")
        self._ignore_omega = omega == "ignore"

    # -- EM -------------------------------------------------------------------------------------
    def certain_links(self) -> tuple[np.ndarray, np.ndarray]:
        """Relations with W = +inf (links) or -inf (do-not-links): hard, eq. 2.10."""
        c = self.constraints

        def weight(pairs: np.ndarray) -> np.ndarray:
            return np.asarray(self.W[pairs[:, 0], pairs[:, 1]]).ravel() if len(pairs) else np.zeros(0)

        return weight(c.must_link) == np.inf, weight(c.cannot_link) == -np.inf

    def e_step(self, parameters: tuple[np.ndarray, ...], prec_chol: np.ndarray,
               previous: Mapping[str, Any]) -> EStep:
        """Posteriors P_p(z_i = k | X, Theta, W) per clique and log P_p(X | Theta, W) (section 3):
        exact, Gibbs (eq. 3.1) or mean field (eq. 3.5); the last two start from ``previous``'s
        sample or Q (the last E-step's extras)."""
        weights, means = parameters[:2]
        g = self._graph
        log_p = self.weighted_log_prob(self.X, weights, means, prec_chol)
        U = log_p if g.agg is None else g.agg @ log_p
        extras: dict[str, Any] = {}
        if self._all_single:
            Q, log_norm = log_normalize(U)
            total = float(log_norm.sum())
        else:
            Q = np.empty_like(U)
            Q[self._single], log_norm = log_normalize(U[self._single])
            total = float(log_norm.sum())
            for grp in self._groups:
                total += grp.posteriors(U, Q)
            if self._approx is not None:
                total += self._approximate(U, Q, extras, previous)
        if not self._omega.trivial and not self._ignore_omega:
            with np.errstate(divide="ignore"):
                total -= float(self._omega.value(np.log(weights)[None])[0])
        resp = Q if g.agg is None else Q[g.node_of]
        return EStep(resp, total, extras)

    def _approximate(self, U: np.ndarray, Q: np.ndarray, extras: dict[str, Any],
                     warm: Mapping[str, Any]) -> float:
        p, ap = self.params, self._approx
        Ua = U[ap.nodes]
        if p["inference"] == "gibbs":
            Qa, z = ap.gibbs(Ua, warm.get("gibbs_state"), self.rng, p["gibbs_burn_in"],
                             p["gibbs_sweeps"], p["rao_blackwell"])
            extras["gibbs_state"] = z
        else:
            start = warm.get("mean_field_q")
            Qa, it = ap.mean_field(Ua, _softmax_rows(Ua) if start is None else start,
                                   p["mean_field_iter"], p["mean_field_tol"])
            extras["mean_field_q"] = Qa
            extras["mean_field_iterations"] = it
        Q[ap.nodes] = Qa
        return ap.bound(Ua, Qa)

    def m_step(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Means and covariances as in a GMM (section 2.3); mixing weights by eq. 2.13.

        When Omega is constant (no relations, or ``omega="ignore"``) eq. 2.13 has the GMM's closed
        form N_k / N, used whatever ``weights_update`` says.
        """
        nk, means, covs = self.gaussian_m_step(self.X, state.responsibilities)
        if self._omega.trivial or self._ignore_omega:
            return nk / nk.sum(), means, covs
        return self.update_weights(nk, state.model["weights"]), means, covs

    def update_weights(self, nk: np.ndarray, previous: np.ndarray) -> np.ndarray:
        """argmax_pi sum_k N_k log pi_k - log Omega(pi) over the simplex (eq. 2.13)."""
        if self.params["weights_update"] == "grid":
            if self._grid is None:
                H = _simplex_grid(self.params["grid_step"], nk.size)
                logH = np.log(H)
                self._grid = (H, logH, self._omega.value(logH))
            H, logH, log_om = self._grid
            return H[int(np.argmax(logH @ nk - log_om))].copy()
        return maximize_prior(nk, self._omega, previous)

    def explain(self, state: State, index: int) -> Explanation | None:
        """The E-step's prior, distance and link terms with the posterior method in use."""
        return ppc_explain(self, state, index) or super().explain(state, index)


@hookimpl
def pairlab_algorithms():
    return [PenalizedProbabilisticClustering]
