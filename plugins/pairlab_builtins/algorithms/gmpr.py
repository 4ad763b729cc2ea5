"""GM-PR: Gaussian mixture with pairwise relations (Yu, Elhabian & Whitaker).

One Gaussian per class (section 3.4). The mixture-per-class model of section 3.4.1 and
Appendix A (``gmpr-mixture``) is the subclass in :mod:`pairlab_builtins.algorithms.gmpr_mixture`; both share
everything here, and with ``m_K = 1`` the two are the same algorithm.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from scipy.special import logsumexp

from pairlab import hookimpl
from pairlab.errors import InvalidInputError
from pairlab.explanation import Bars, Explanation, component_labels
from pairlab.mixture import (
    MIXTURE_PARAMS,
    EStep,
    MixtureAlgorithm,
    initial_parameters,
)
from pairlab.params import Param
from pairlab.state import State

from .gmpr_links import LinkStructure, argmax_rows, softmax_logsumexp

__all__ = ["GMPR"]


class GMPR(MixtureAlgorithm):
    """GM-PR: EM for a Gaussian mixture whose latent labels honour must-links and cannot-links.

    Model (eq. 4-9; the joint model for overlapping links is defined in
    :mod:`pairlab_builtins.algorithms.gmpr_links`): classes ``m`` with proportions ``alpha_m`` and a
    Gaussian ``N(mu_m, Sigma_m)`` each. Must-linked points (closed into chunklets) share one
    latent class; cannot-linked chunklets take different classes, with the class prior of eq. 6-8
    (``alpha_m alpha_m' / (1 - sum alpha^2)`` for one pair, normalised per connected component
    of cannot-links in general). Confidences of links are ignored: GM-PR's links are certain.

    Section 3.1 (which points form the unsupervised term): only the points in no link. A point in
    a link enters the likelihood once, through its chunklet / cannot-link term (eq. 5, 9), never
    also through eq. 3, so the means, covariances and counts of eq. 16-19 count every point once.

    E-step: eq. 11 for unlinked points, eq. 12 for must-linked chunklets, eq. 14 for cannot-links,
    computed exactly (belief propagation / cutset conditioning) in log space. M-step: means and
    covariances by eq. 16-18 (``reg_covar`` added to the diagonals as in scikit-learn), restricted
    to the family of ``covariance_type`` (tied: one matrix pooled over all components; diag and
    spherical: the diagonal / mean variance of eq. 18; the E-step only sees the densities); class
    proportions by eq. 19, Newton-Raphson from the closed form that drops the cannot-link
    normaliser. The objective is the observed-data log-likelihood, pair terms included; EM never
    decreases it. Initialisation (section 4.1): k-means++ means, covariances from the
    nearest-mean assignment, ``alpha = 1/M`` (or ``means_init`` / ``covariances_init`` /
    ``weights_init``). ``n_components`` is the number of classes ``M``.

    State: ``model`` holds ``weights`` (alpha), ``means``, ``covariances`` ((k, d, d) for every
    type) and ``precisions_cholesky`` (in the type's shape); ``responsibilities`` are the class
    posteriors; ``extras`` hold the expected class counts of eq. 19 (``class_counts``).
    """

    name = "gmpr"
    title = "GM-PR: Gaussian mixture with pairwise relations"
    citation = ("Yu, Elhabian & Whitaker (2016), Clustering with pairwise relationships: "
                "a generative approach")
    hard_constraints = True
    params: ClassVar[tuple[Param, ...]] = (
        *MIXTURE_PARAMS,
        Param("cutset_budget", int, 100_000,
              "cyclic cannot-link components: bound on (class assignments enumerated x size) "
              "for exact inference; links beyond it become independent pairs", low=1),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        k = self.params["n_components"]
        if k > self.X.shape[0]:  # before the per-class arrays: 10**9 classes would fill memory
            raise InvalidInputError(f"n_components={k} exceeds the number of points "
                                    f"({self.X.shape[0]}); lower n_components.")
        self.per_class = self._components_per_class()
        self.class_of_component = np.repeat(np.arange(k), self.per_class)
        self.single = bool((self.per_class == 1).all())
        self._class_starts = np.concatenate([[0], np.cumsum(self.per_class)[:-1]])
        self.links = LinkStructure(self.constraints, k, self.params["cutset_budget"])
        if self.links.n_independent_pairs:
            self.constraints.check_colourable(k)  # a provably impossible graph is an error
            warnings.warn(
                f"{self.links.n_independent_pairs} cannot-link(s) close cycles too costly for exact "
                f"inference (cutset_budget={self.params['cutset_budget']}); they are treated as "
                "independent pairs, as in the paper. Raise cutset_budget to treat them exactly.",
                UserWarning, stacklevel=2)
        dup = self.links.duplicates
        self.X_augmented = self.X if dup.size == 0 else np.vstack([self.X, self.X[dup]])

    # -- structure hooks for the mixture-per-class subclass ------------------------------------
    def _components_per_class(self) -> np.ndarray:
        return np.ones(self.params["n_components"], dtype=np.int64)

    def _initial_parameters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(alpha, means, covariances, cluster proportions) at iteration 0 (section 4.1)."""
        alpha, means, covs = initial_parameters(self.X, self.params, self.rng)
        return alpha, means, covs, np.ones(means.shape[0])

    # -- the stepper ---------------------------------------------------------------------------
    def initialize(self) -> State:
        alpha, means, covs, pi = self._initial_parameters()
        if self.links.has_cannot_links and (alpha <= 0).any():
            raise InvalidInputError(
                "weights_init must give every class a positive weight when there are cannot-links."
            )
        return self.make_state(0, (alpha, means, covs, pi), {})

    def class_log_densities(self, X: np.ndarray, means: np.ndarray, prec_chol: np.ndarray,
                            pi: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``log p(x | class m)`` (n, M) and, with several clusters per class, the posterior of
        the cluster given the class (n, K) (eq. 21, 26)."""
        log_dens = self.log_gaussian(X, means, prec_chol)
        if self.single:
            return log_dens, None
        with np.errstate(divide="ignore"):
            log_dens += np.log(pi)
        starts = self._class_starts
        mx = np.maximum.reduceat(log_dens, starts, axis=1)
        e = np.exp(log_dens - mx[:, self.class_of_component])
        s = np.add.reduceat(e, starts, axis=1)
        return mx + np.log(s), e / s[:, self.class_of_component]

    def e_step(self, parameters: tuple[np.ndarray, ...], prec_chol: np.ndarray,
               previous: Mapping[str, Any]) -> EStep:
        """Exact class posteriors: eq. 11 (free points), eq. 12 (must-linked chunklets), eq. 14
        (cannot-links); with several clusters per class the class densities of eq. 27 and the
        cluster posteriors of eq. 26. Objective: the observed-data log-likelihood."""
        alpha, means, _, pi = parameters
        log_dens, within = self.class_log_densities(self.X, means, prec_chol, pi)
        with np.errstate(divide="ignore"):
            log_alpha = np.log(alpha)
        q, counts, loglik = self.links.class_posteriors(log_dens, log_alpha)
        if not np.isfinite(loglik):
            raise InvalidInputError(
                "the constraints have zero probability under these weights; give every class a "
                "positive weight (weights_init)."
            )
        n = self.dataset.n_samples
        resp = q[:n]
        extras: dict[str, Any] = {"class_counts": counts}
        model: dict[str, Any] = {}
        if self.single:
            if q.shape[0] > n:
                extras["duplicate_responsibilities"] = q[n:]
        else:
            if q.shape[0] > n:
                within = np.vstack([within, within[self.links.duplicates]])
            comp = q[:, self.class_of_component] * within
            extras["component_responsibilities"] = comp[:n]
            if q.shape[0] > n:
                extras["duplicate_responsibilities"] = comp[n:]
            model["class_of_component"] = self.class_of_component
            model["component_weights"] = pi
        for value in extras.values():
            value.setflags(write=False)
        return EStep(resp, loglik, extras, labels=argmax_rows(resp), model=model)

    def m_step(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Eq. 16-18 (34-37) for means and covariances, eq. 40 for the cluster proportions and
        eq. 19 for the class proportions."""
        resp = state.responsibilities if self.single else state.extras["component_responsibilities"]
        if "duplicate_responsibilities" in state.extras:
            resp = np.vstack([resp, state.extras["duplicate_responsibilities"]])
        nk, means, covs = self.gaussian_m_step(self.X_augmented, resp)
        if self.single:
            pi = np.ones(nk.size)
        else:
            per_class = np.bincount(self.class_of_component, weights=nk)
            pi = nk / per_class[self.class_of_component]
        alpha = self.links.class_proportions(state.extras["class_counts"], state.model["weights"])
        return alpha, means, covs, pi

    def explain(self, state: State, index: int) -> Explanation | None:
        """Eq. 11 for a free point; for a linked point also the joint posterior of its class and
        a link partner's (eq. 12 for must-links, eq. 14 for cannot-links), computed exactly over
        the whole link network by clamping the point to each class in turn:
        q(z_i = m, z_j = m') = q(z_i = m) q(z_j = m' | z_i = m)."""
        if state.phase:
            return super().explain(state, index)
        base = self._class_terms(state, index)
        c = self.constraints
        if not len(c):
            return base
        partners = [(int(b), "must-link") for a, b in c.must_link if a == index]
        partners += [(int(a), "must-link") for a, b in c.must_link if b == index]
        partners += [(int(b), "cannot-link") for a, b in c.cannot_link if a == index]
        partners += [(int(a), "cannot-link") for a, b in c.cannot_link if b == index]
        if not partners:
            return base
        partner, kind = partners[0]
        model = state.model
        M = model["weights"].size
        pi = model.get("component_weights", np.ones(model["means"].shape[0]))
        log_dens, _ = self.class_log_densities(self.X, model["means"], model["precisions_cholesky"], pi)
        with np.errstate(divide="ignore"):
            log_alpha = np.log(model["weights"])
        q_i = np.asarray(state.responsibilities[index])
        joint = np.zeros((M, M))
        for m in range(M):
            if q_i[m] <= 0:
                continue
            clamped = log_dens.copy()
            clamped[index, np.arange(M) != m] = -np.inf
            q = self.links.class_posteriors(clamped, log_alpha)[0]
            joint[m] = q_i[m] * q[partner]
        labels = [f"({m},{mm})" for m in range(M) for mm in range(M)]
        values = joint.ravel()
        equation = (
            "GM-PR eq. 12: a must-linked pair shares one label, q(z_ij = m) ∝ p(x_i | m) p(x_j | m) α_m"
            if kind == "must-link" else
            "GM-PR eq. 14 with the prior of eq. 7: q(z_a = m, z_b = m') ∝ p(x_a | m) p(x_b | m') "
            "α_m α_m' / (1 − Σ α²) for m ≠ m', 0 for m = m'")
        bars = (*base.bars, Bars(f"joint posterior of ({index}, {partner}), {kind}", labels, values,
                                 int(values.argmax())))
        text = (f"Point {index} is {kind}ed to {len(partners)} point(s); the joint is with point "
                f"{partner}, over the whole link network.")
        return Explanation(point=index, phase="E-step", equation=equation, bars=bars, text=text)

    def _class_terms(self, state: State, index: int) -> Explanation:
        """Eq. 11's terms for the point: log α_m, log p(x_i | m) and what its links add (the
        exact posterior over the link network, log q_im − log softmax(log α_m + log p(x_i | m)))."""
        model = state.model
        pi = model.get("component_weights", np.ones(model["means"].shape[0]))
        log_dens, _ = self.class_log_densities(self.X[index:index + 1], model["means"],
                                               model["precisions_cholesky"], pi)
        with np.errstate(divide="ignore"):
            prior = np.log(model["weights"])
        q = np.asarray(state.responsibilities[index])
        unary = prior + log_dens[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            link = np.log(q) - (unary - logsumexp(unary))
        link = np.where(np.isnan(link), 0.0, link)
        names, best = component_labels(q.size), int(q.argmax())
        return Explanation(index, "E-step",
                           "GM-PR eq. 11: q(z_i = m) ∝ α_m p(x_i | m) for a free point; links "
                           "multiply in their partners' messages (eq. 12, 14)", (
            Bars("class posterior q(z_i = m)", names, q, best),
            Bars("prior: log α_m", names, prior, best, term="prior"),
            Bars("distance: log p(x_i | class m)", names, log_dens[0], best, term="distance"),
            Bars("link term: log q − log softmax(prior + distance)", names, link, best,
                 term="link term")))

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """Class posteriors of unseen points (eq. 11; eq. 27 with several clusters per class)."""
        model = state.model
        pi = model.get("component_weights", np.ones(model["means"].shape[0]))
        log_dens, _ = self.class_log_densities(X, model["means"], model["precisions_cholesky"], pi)
        with np.errstate(divide="ignore"):
            return softmax_logsumexp(log_dens + np.log(model["weights"]))[0]


@hookimpl
def pairlab_algorithms():
    return [GMPR]
