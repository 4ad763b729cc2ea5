"""Constrained EM: Gaussian mixtures with equivalence constraints (Shental et al., 2004).

Must-links are merged into chunklets (transitive closure, section 2.1); each chunklet j has one
hidden label y_j. Cannot-links become "different label" edges (1 - delta) between chunklets, the
Markov network of sections 2.2-2.3. The model is

    p(X, Y | Theta, E) = (1/Z) prod_(j,k) (1 - delta(y_j, y_k)) prod_j alpha_{y_j}^{s_j}
                         prod_i N(x_i | mu_{y(i)}, Sigma_{y(i)}),
    Z(alpha) = sum_Y prod_(j,k) (1 - delta(y_j, y_k)) prod_j alpha_{y_j}^{s_j},

with s_j = 1 under sampling assumption 1 (chunklets i.i.d., section 2.1.1) and s_j = |X_j| under
assumption 2 (points i.i.d., section 2.1.2 and the likelihood printed in section 2.3). Without
cannot-links Z = 1 (assumption 1) or prod_j sum_m alpha_m^{|X_j|} (eq. 6).

One EM iteration (see :class:`pairlab.mixture.MixtureAlgorithm`):

* E-step: exact chunklet posteriors p(y_j = l | X, Theta, E) (eq. 3 and eq. 9) by
  :class:`pairlab.markov.LabelNetwork` -- sum-product on trees, loop-cutset conditioning on small
  loopy components, the paper's spanning-tree approximation beyond ``max_exact_work``.
* M-step: means and covariances with every point weighted by its chunklet's posterior (the
  updates of 2.1.1, which treat a chunklet as its mean weighted by |X_j| plus its scatter, and
  of section 2.2); the weights alpha maximise (eq. 7 / the text above eq. 10)

      F(alpha) = sum_l N_l log alpha_l - log Z(alpha),   N_l = sum_j s_j p(y_j = l | ...),

  with Z handled as chosen by ``normalizer``:

  - ``"exact"``: log Z and its gradient from the same network with unary s_j log alpha and no
    data (Fig. 3). In alpha = softmax(eta), dF/deta_l = N_l - E_prior[sum_j s_j [y_j = l]], so the
    M derivative networks of section 2.2 collapse into one pass for the prior marginals; F is
    concave in eta (an exponential family's log-likelihood) and L-BFGS maximises it.
  - ``"pseudo"``: the pseudo-likelihood approximation of eq. 12, generalised to chunklets by
    treating every cannot-link edge as an independent event under the unconstrained prior:
    Z ~ prod_j P(s_j) prod_(a,b) (1 - P(s_a + s_b) / (P(s_a) P(s_b))), P(s) = sum_m alpha_m^s.
    For single points (s = 1) this is exactly (1 - sum alpha^2)^c; it is exact when no chunklet
    has two cannot-links.
  - ``"ignore"``: drop Z (footnote 3): alpha_l = N_l / sum N, the closed form of 2.1.1.

  Under assumption 1 with no cannot-links all three are the closed form alpha_l = (1/L) sum_j
  p(y_j = l). Otherwise the alpha step is a GEM step (it is kept only if F increases).

Objective: the observed-data log-likelihood log p(X | Theta, E) = log sum_Y [numerator above]
- log Z(alpha), with the exact Z of the network in use, for every ``normalizer``. It never
decreases when ``normalizer="exact"`` (EM with an exact E-step and a maximising M-step). With
``"pseudo"`` and ``"ignore"`` the alpha step maximises a different function and the objective may
dip; ``"ignore"`` is exact EM for log p(X, E | Theta) = log sum_Y [numerator] (reported as
``extras["log_joint"]``), which never decreases. When a component is too large for exact
inference the network keeps only its spanning tree: the algorithm is then exact EM for that
relaxed model and its objective is that model's likelihood (``extras["exact_inference"]`` False).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

from pairlab import hookimpl
from pairlab.errors import InconsistentConstraintsError, InvalidInputError
from pairlab.explanation import Explanation
from pairlab.markov import LabelNetwork
from pairlab.mixture import (
    MIXTURE_PARAMS,
    EStep,
    MixtureAlgorithm,
    log_normalize,
)
from pairlab.params import Param
from pairlab.state import State

from .explain_mixtures import constrained_em_explain

_EPS = 10 * np.finfo(np.float64).eps


def _log_power_sums(log_alpha: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log P(s) = log sum_m alpha_m^s and d log P(s) / d eta (alpha = softmax(eta)), per s."""
    a = s[:, None] * log_alpha[None, :]
    post, log_p = log_normalize(a)
    alpha = np.exp(log_alpha)
    return log_p, s[:, None] * (post - alpha[None, :])


class ConstrainedEM(MixtureAlgorithm):
    """Gaussian mixture EM with hard must-links and cannot-links (Shental et al., 2004).

    Parameters (besides the mixture's): ``sampling_assumption`` (1 or 2, section 2.1),
    ``normalizer`` ("exact", "pseudo", "ignore": how the alpha update treats Z, section 2.2),
    ``max_exact_work`` (exact inference limit of loopy components, see
    :class:`pairlab.markov.LabelNetwork`), ``alpha_tol`` and ``alpha_max_iter`` (the numerical
    alpha maximisation). ``means_init``, ``weights_init`` and ``covariances_init`` give the start.
    """

    name = "constrained-em"
    title = "Constrained EM (Shental et al.)"
    citation = ("Shental, Bar-Hillel, Hertz & Weinshall (2004), Computing Gaussian mixture models "
                "with EM using equivalence constraints, NIPS 16")
    hard_constraints = True
    params: ClassVar[tuple[Param, ...]] = (
        *MIXTURE_PARAMS,
        Param("sampling_assumption", int, 1, "1: chunklets i.i.d. (prior alpha per chunklet); "
              "2: points i.i.d. (prior alpha^|chunklet|)", choices=(1, 2)),
        Param("normalizer", str, "exact", "how the alpha update treats Z: exact, pseudo "
              "(pseudo-likelihood, eq. 12) or ignore", choices=("exact", "pseudo", "ignore")),
        Param("max_exact_work", int, 200_000, "loopy link components with M^cutset * size above "
              "this use their spanning tree (approximate)", low=1),
        Param("alpha_tol", float, 1e-10, "gradient tolerance of the numerical alpha update",
              low=0.0, low_open=True),
        Param("alpha_max_iter", int, 200, "iterations of the numerical alpha update", low=1),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare()

    # -- structure (once) ---------------------------------------------------------------------
    def _prepare(self) -> None:
        c, p = self.constraints, self.params
        M = p["n_components"]
        ci, sizes = c.chunklet_index, c.chunklet_sizes
        self._ci = ci
        s = np.ones(sizes.size) if p["sampling_assumption"] == 1 else sizes.astype(float)
        self._s = s
        self._S = float(s.sum())
        self._point_weight = s[ci] / sizes[ci]
        self._unit_weights = bool(np.all(self._point_weight == 1.0))
        self._merge = None
        if c.n_must_link:
            n = ci.size
            self._merge = sp.csr_matrix((np.ones(n), (ci, np.arange(n))), shape=(sizes.size, n))
        edges = c.chunklet_cannot_link
        linked = np.unique(edges)
        self._linked = linked
        self._isolated = np.setdiff1d(np.arange(sizes.size), linked)
        self._s_linked = s[linked]
        iso_s, iso_count = np.unique(s[self._isolated], return_counts=True)
        self._iso_s, self._iso_count = iso_s, iso_count.astype(float)
        self._net: LabelNetwork | None = None
        kept = np.empty((0, 2), dtype=np.int64)
        if len(edges):
            self._net = LabelNetwork(linked.size, np.searchsorted(linked, edges), M,
                                     max_exact_work=p["max_exact_work"])
            kept = self._net.edges[self._net.edge_used]  # the model in use (section 2.2)
            if not self._net.exact:
                c.check_colourable(M)  # a provably impossible graph is an error, not a warning
                warnings.warn(
                    f"constrained-em: {len(self._net.dropped_edges)} cannot-link edge(s) in large "
                    "loopy components were dropped (spanning-tree approximation, section 2.2); "
                    "raise max_exact_work for exact posteriors.", UserWarning, stacklevel=3)
            self._check_feasible(M)
            # the prior network has unary s_j log alpha: one representative per isomorphic class
            self._prior_net, mult, nodes = self._net.compress(self._s_linked)
            self._prior_s = self._s_linked[nodes]
            self._prior_mult = mult
            self._prior_weight = mult[self._prior_net.component_index] * self._prior_s
        # pseudo-likelihood groups: every chunklet's size, and the size pairs of kept edges
        self._all_s, all_count = np.unique(s, return_counts=True)
        self._all_count = all_count.astype(float)
        pairs = np.sort(self._s_linked[kept], axis=1) if len(kept) else np.empty((0, 2))
        self._edge_s, edge_count = (np.unique(pairs, axis=0, return_counts=True) if len(kept)
                                    else (np.empty((0, 2)), np.empty(0)))
        self._edge_count = np.asarray(edge_count, dtype=float)
        self._z_is_one = self._net is None and bool(np.all(s == 1.0))
        self._closed_form = p["normalizer"] == "ignore" or self._z_is_one

    def _check_feasible(self, M: int) -> None:
        res = self._net.infer(np.broadcast_to(self._s_linked[:, None] * -np.log(M),
                                              (self._linked.size, M)))
        bad = np.flatnonzero(np.isneginf(res.component_log_partition))
        if bad.size == 0:
            return
        nodes = np.flatnonzero(self._net.component_index == bad[0])
        points = np.flatnonzero(np.isin(self._ci, self._linked[nodes]))
        shown = ", ".join(map(str, points[:12])) + (" ..." if points.size > 12 else "")
        raise InconsistentConstraintsError(
            f"The cannot-links among points {shown} cannot all hold with n_components={M}: "
            f"their chunklets need more than {M} different labels. Raise n_components or remove "
            "some of these cannot-links.")

    # -- E-step -------------------------------------------------------------------------------
    def _unary(self, log_alpha: np.ndarray, log_dens: np.ndarray | None) -> np.ndarray:
        prior = self._s[:, None] * log_alpha[None, :]
        if log_dens is None:
            return prior
        chunk = log_dens if self._merge is None else self._merge @ log_dens
        return chunk + prior

    def _log_z_exact(self, log_alpha: np.ndarray) -> tuple[float, np.ndarray]:
        """log Z(alpha) of the network in use and d log Z / d eta (exact)."""
        log_p, d_log_p = _log_power_sums(log_alpha, self._iso_s)
        log_z = float(self._iso_count @ log_p)
        grad = self._iso_count @ d_log_p
        if self._net is not None:
            res = self._prior_net.infer(self._prior_s[:, None] * log_alpha[None, :])
            log_z += float(self._prior_mult @ res.component_log_partition)
            alpha = np.exp(log_alpha)
            grad = grad + self._prior_weight @ res.marginals - self._s_linked.sum() * alpha
        return log_z, grad

    def _log_z_pseudo(self, log_alpha: np.ndarray) -> tuple[float, np.ndarray]:
        """Pseudo-likelihood log Z (eq. 12 generalised to chunklets) and its eta-gradient."""
        log_p, d_log_p = _log_power_sums(log_alpha, self._all_s)
        log_z = float(self._all_count @ log_p)
        grad = self._all_count @ d_log_p
        if len(self._edge_count):
            a, b = self._edge_s[:, 0], self._edge_s[:, 1]
            la, da = _log_power_sums(log_alpha, a)
            lb, db = _log_power_sums(log_alpha, b)
            lab, dab = _log_power_sums(log_alpha, a + b)
            log_r = lab - la - lb  # log P(s_a + s_b) / (P(s_a) P(s_b)) < 0
            # r < 1 unless alpha is one-hot, but rounds to 1 near a vertex: keep log(1 - r) finite.
            r = np.minimum(np.exp(log_r), 1.0 - _EPS)
            log_z += float(self._edge_count @ np.log1p(-r))
            grad = grad - (self._edge_count * r / (1.0 - r)) @ (dab - da - db)
        return log_z, grad

    def e_step(self, parameters: tuple[np.ndarray, ...], prec_chol: np.ndarray,
               previous: Mapping[str, Any]) -> EStep:
        """Exact chunklet posteriors p(y_j | X, Theta, E) (eq. 3, eq. 9) on the link network;
        objective log p(X | Theta, E) = log_joint - log Z(alpha) (eq. 10)."""
        weights, means = parameters[:2]
        with np.errstate(divide="ignore"):
            log_alpha = np.log(weights)
        unary = self._unary(log_alpha, self.log_gaussian(self.X, means, prec_chol))
        if self._net is None:
            q, log_norm = log_normalize(unary)
            log_joint = float(log_norm.sum())
        else:
            q = np.empty_like(unary)
            q_iso, log_norm = log_normalize(unary[self._isolated])
            q[self._isolated] = q_iso
            res = self._net.infer(unary[self._linked])
            q[self._linked] = res.marginals
            log_joint = float(log_norm.sum()) + res.log_partition
        log_z = 0.0 if self._z_is_one else self._log_z_exact(log_alpha)[0]
        if not np.isfinite(log_z):
            raise InvalidInputError(
                "the cannot-links cannot all hold with the components of positive weight; give "
                "every component a positive weight in weights_init.")
        resp = q if self._merge is None else q[self._ci]
        extras = {"log_joint": log_joint, "log_normalizer": log_z,
                  "exact_inference": self._net is None or self._net.exact}
        return EStep(resp, log_joint - log_z, extras)

    def finish_step(self, half: State) -> State:
        new = super().finish_step(half)
        if self.params["normalizer"] == "pseudo":
            before = half.extras["previous_extras"]  # the E-step extras of the previous state
            self._check_pseudo_step(before["log_joint"] - before["log_normalizer"], new)
        return new

    def _check_pseudo_step(self, old_objective: float, new: State) -> None:
        """Warn (once per run) when eq. 12's alpha step lowered the true log-likelihood.

        On overlapping cannot-links (a chunklet in two or more of them) the pseudo-likelihood
        treats dependent events as independent; its alpha step can then run to a corner of the
        simplex within a few iterations while log p(X | Theta, E) falls (docs/algorithms/
        constrained_em.md, "pseudo normalizer"). A fall beyond rounding (1e-6 relative) is reported.
        """
        if getattr(self, "_pseudo_warned", False) or new.objective is None:
            return
        fall = old_objective - new.objective
        if fall > 1e-6 * max(1.0, abs(old_objective)):
            self._pseudo_warned = True
            weights = np.asarray(new.model["weights"])
            warnings.warn(
                f"constrained-em with normalizer='pseudo': the log-likelihood fell from "
                f"{old_objective:.6g} to {new.objective:.6g} at iteration {new.iteration} "
                f"(smallest weight now {weights.min():.3g}). The pseudo-likelihood (eq. 12) is "
                "inaccurate when cannot-links overlap and can drive the weights to a corner; use "
                "normalizer='exact'.", UserWarning, stacklevel=4)

    # -- M-step -------------------------------------------------------------------------------
    def m_step(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        resp = state.responsibilities
        nk, means, covs = self.gaussian_m_step(self.X, resp)
        counts = nk if self._unit_weights else self._point_weight @ resp + _EPS
        return self.update_weights(counts, state.model["weights"]), means, covs

    def weight_objective(self, counts: np.ndarray, log_alpha: np.ndarray
                         ) -> tuple[float, np.ndarray]:
        """F(alpha) = sum_l N_l log alpha_l - log Z(alpha) and dF/deta for the chosen normalizer."""
        mode = self.params["normalizer"]
        if mode == "ignore":
            log_z, d_log_z = 0.0, np.zeros_like(log_alpha)
        elif mode == "pseudo":
            log_z, d_log_z = self._log_z_pseudo(log_alpha)
        else:
            log_z, d_log_z = self._log_z_exact(log_alpha)
        alpha = np.exp(log_alpha)
        with np.errstate(invalid="ignore"):
            value = float(np.where(counts > 0, counts * log_alpha, 0.0).sum()) - log_z
        return value, counts - counts.sum() * alpha - d_log_z

    def update_weights(self, counts: np.ndarray, old: np.ndarray) -> np.ndarray:
        """The alpha step: closed form where Z allows it, else a numerical GEM step."""
        if self._closed_form:
            return counts / counts.sum()
        scale = counts.sum()

        memo: dict[bytes, tuple[float, np.ndarray]] = {}

        def fun(eta: np.ndarray) -> tuple[float, np.ndarray]:
            key = eta.tobytes()
            if key not in memo:  # L-BFGS starts where f0 was evaluated
                log_alpha = eta - np.logaddexp.reduce(eta)
                value, grad = self.weight_objective(counts, log_alpha)
                memo.clear()
                memo[key] = (-value / scale, -grad / scale)
            return memo[key]

        eta0 = np.log(np.maximum(old, 1e-300))
        eta0 -= eta0.mean()
        f0, _ = fun(eta0)
        res = minimize(fun, eta0, jac=True, method="L-BFGS-B",
                       options={"gtol": self.params["alpha_tol"], "ftol": 1e-15,
                                "maxiter": self.params["alpha_max_iter"]})
        if not np.isfinite(res.fun) or res.fun > f0:
            return np.array(old, dtype=float)  # GEM: never accept a worse alpha
        eta = res.x - np.logaddexp.reduce(res.x)
        return np.exp(eta)

    def explain(self, state: State, index: int) -> Explanation | None:
        """The E-step's prior, chunklet and Markov-network terms (eq. 3, 9)."""
        return constrained_em_explain(self, state, index) or super().explain(state, index)


@hookimpl
def pairlab_algorithms():
    return [ConstrainedEM]
