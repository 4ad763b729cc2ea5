"""TVClust by truncated mean-field variational inference (the "TVClust (variational)" of the tables
of Khashabi, Wieting, Liu & Liang 2015; the paper prints no updates, they are derived in
docs/algorithms/tvclust.md).

Model: :mod:`.tvclust_model` (DP mixture with stick-breaking weights pi_k = v_k prod_{j<k}(1 - v_j),
v_k ~ Beta(1, alpha), conjugate Gaussian base measure, link likelihood of eq. 8). The family is

    q(v, theta, z) = prod_{k<=T} q(v_k) q(theta_k) prod_i q(z_i),   q(z_i > T) = 0

(truncation of q, not of the model: Kurihara, Welling & Vlassis 2007; the same as scikit-learn's
``BayesianGaussianMixture(weight_concentration_prior_type="dirichlet_process")``), so the ELBO bounds
the evidence of the untruncated TVClust model the Gibbs sampler draws from. Coordinate updates:

    q(z_i = k) ∝ exp(E[log pi_k] + E[log N(x_i | theta_k)] + sum_j W_ij q(z_j = k))
    q(v_k)     = Beta(1 + N_k, alpha + sum_{j>k} N_j),      N_k = sum_i q(z_i = k)
    q(theta_k) = the conjugate posterior given the points weighted by q(z_i = k)

with W_ij = c xi1 for a may-link and -c xi2 for a may-not-link (the expected link log-likelihood is
sum_pairs W_ij sum_k q(z_i = k) q(z_j = k) + const). The q(z_i) of linked points depend on one
another, so they are updated in blocks of a greedy colouring of the link graph (no two linked
points in a block): each block update is the exact maximiser given the rest, and the ELBO never
decreases. One step: all blocks of q(z), then q(v), then q(theta).

State: ``responsibilities`` q(z) over the T components, ``labels`` their argmax (component
numbers 0..T-1), ``model`` E[mu_k], Psi_k / nu_k (the covariance drawn; sigma^2 I for 'fixed') and
E[pi_k] normalised over the T components, ``objective`` the ELBO in data units.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import betaln, digamma, xlogy

from pairlab import Constraints, Dataset, Param, State, hookimpl
from pairlab.explanation import Bars, Explanation, component_labels
from pairlab.mixture import kmeans_plusplus, log_normalize, nearest_mean_responsibilities

from .tvclust_model import MODEL_PARAMS, TVClustModel, _suff_stats

__all__ = ["TVClustVariational", "colour_blocks"]


Block = tuple[np.ndarray, sp.csr_matrix | None, sp.csr_matrix | None]


def colour_blocks(matrix: sp.csr_matrix | None, n: int) -> list[Block]:
    """Blocks of points no two of which are linked: the unlinked points, then the colour classes of
    a greedy colouring (largest degree first). Each block comes with its rows of the link matrix
    split in two: the links to points of earlier blocks and those to later ones (the rows' sum)."""
    if matrix is None:
        return [(np.arange(n), None, None)]
    indptr, indices = matrix.indptr, matrix.indices
    degree = np.diff(indptr)
    colour = np.full(n, -1, dtype=np.int64)
    linked = np.flatnonzero(degree > 0)
    for i in linked[np.argsort(-degree[linked], kind="stable")].tolist():
        used = set(colour[indices[indptr[i]:indptr[i + 1]]].tolist())
        c = 0
        while c in used:
            c += 1
        colour[i] = c
    blocks: list[Block] = []
    free = np.flatnonzero(colour < 0)
    if free.size:
        blocks.append((free, None, None))
    for c in range(int(colour.max()) + 1):
        members = np.flatnonzero(colour == c)
        rows = matrix[members].tocoo()
        early = colour[rows.col] < c
        blocks.append((members, *(sp.csr_matrix((rows.data[m], (rows.row[m], rows.col[m])),
                                                shape=rows.shape) for m in (early, ~early))))
    return blocks


class TVClustVariational(TVClustModel):
    """TVClust by coordinate ascent on a truncated mean-field ELBO (derivation in
    docs/algorithms/tvclust.md)."""

    name = "tvclust-variational"
    title = "TVClust (variational)"
    citation = ("Khashabi, Wieting, Liu & Liang (2015), Clustering with side information: from a "
                "probabilistic model to a deterministic algorithm, arXiv:1508.06235 (model of section 3; "
                "mean-field updates derived in docs/algorithms/tvclust.md)")
    params = (
        *MODEL_PARAMS,
        Param("truncation", int, 10, "number T of components q may use", low=1),
        Param("init", str, "k-means++",
              "starting q(z): nearest of T k-means++ seeds, or random responsibilities",
              choices=("k-means++", "random")),
        Param("tol", float, 1e-6, "stop when the ELBO per point moves less", low=0.0),
        Param("max_iter", int, 200, "maximum number of iterations", low=1),
    )
    objective_name = "ELBO"
    phases = ("q(z)", "q(v), q(theta)")
    gaussian_mixture = True  # the plug-in mixture E[pi_k], E[mu_k], Psi_k / nu_k (pairlab.likelihood)

    def __init__(self, dataset: Dataset, constraints: Constraints | None = None,
                 params: Mapping[str, Any] | None = None, rng: np.random.Generator | None = None) -> None:
        super().__init__(dataset, constraints, params, rng)
        links = self.link_model.links
        self.blocks = colour_blocks(None if links is None else links.matrix, self.dataset.n_samples)

    # -- global factors ---------------------------------------------------------------------------
    def _globals(self, resp: np.ndarray) -> dict[str, Any]:
        """q(v) and q(theta) given q(z) = ``resp``, and E[log pi]."""
        nk = resp.sum(axis=0)
        alpha = self.params["alpha"]
        a = 1.0 + nk
        b = alpha + (nk[::-1].cumsum()[::-1] - nk)  # alpha + sum_{j > k} N_j
        dab = digamma(a + b)
        e_log_v, e_log_1mv = digamma(a) - dab, digamma(b) - dab
        e_log_pi = e_log_v + np.r_[0.0, np.cumsum(e_log_1mv)[:-1]]
        post = self.base.posterior(*_suff_stats(self.Z, resp))
        return {"a": a, "b": b, "e_log_v": e_log_v, "e_log_1mv": e_log_1mv, "e_log_pi": e_log_pi,
                "post": post}

    def _elbo(self, resp: np.ndarray, g: dict[str, Any], ell: np.ndarray,
              pair_sum: float | None = None) -> tuple[float, dict[str, float]]:
        """The ELBO and its terms; ``pair_sum`` = sum over linked pairs of W_ij q(z_i)'q(z_j) when
        the caller has it (the block sweep does), else computed with one product W q(z)."""
        alpha = self.params["alpha"]
        a, b = g["a"], g["b"]
        data = float((resp * (ell + g["e_log_pi"])).sum())
        entropy = -float(xlogy(resp, resp).sum())
        # E[log p(v)] - E[log q(v)], p(v_k) = Beta(1, alpha)
        sticks = float((math.log(alpha) + (alpha - 1.0) * g["e_log_1mv"]).sum()
                       + (betaln(a, b) - (a - 1.0) * g["e_log_v"] - (b - 1.0) * g["e_log_1mv"]).sum())
        kl = float(self.base.kl(g["post"]).sum())
        if pair_sum is None:
            pair_sum = 0.5 * float((resp * self.link_model.field(resp)).sum())
        links = self.link_model.constant + pair_sum
        jac = -self.Z.shape[0] * self.Z.shape[1] * self.std.log_scale
        terms = {"expected_log_lik": data + jac, "entropy": entropy, "sticks": sticks, "kl_theta": -kl,
                 "links": links}
        return sum(terms.values()), terms

    def _state(self, iteration: int, resp: np.ndarray, g: dict[str, Any] | None = None,
               ell: np.ndarray | None = None, phase: str = "", pair_sum: float | None = None) -> State:
        """The state for q(z) = ``resp`` with q(v), q(theta) updated from it (or the given ones)."""
        if g is None:
            g = self._globals(resp)
            ell = self.base.expected_log_lik(self.Z, g["post"])
        elbo, terms = self._elbo(resp, g, ell, pair_sum)
        means, covs = self.base.moments(g["post"])
        mean_v = g["a"] / (g["a"] + g["b"])
        weights = mean_v * np.r_[1.0, np.cumprod(1.0 - mean_v)[:-1]]
        model = {"means": self.std.means_out(means), "covariances": self.std.covariances_out(covs),
                 "weights": weights / weights.sum()}
        for v in g["post"].values():
            v.setflags(write=False)
        extras = {"q_theta": g["post"], "q_v": {k: g[k] for k in ("a", "b", "e_log_v", "e_log_1mv")},
                  "e_log_pi": g["e_log_pi"], "expected_log_lik": ell, "terms": terms}
        return State(iteration, resp.argmax(axis=1), responsibilities=resp, objective=elbo,
                     objective_name=self.objective_name, model=model, extras=extras, phase=phase)

    # -- stepper protocol -------------------------------------------------------------------------
    def initialize(self) -> State:
        n, T = self.dataset.n_samples, self.params["truncation"]
        if self.params["init"] == "random":
            resp = self.rng.uniform(size=(n, T))
            resp /= resp.sum(axis=1, keepdims=True)
        else:
            seeds = kmeans_plusplus(self.Z, min(T, n), self.rng)
            resp = np.zeros((n, T))
            resp[:, :seeds.shape[0]] = nearest_mean_responsibilities(self.Z, seeds)
        return self._state(0, resp)

    def step(self, state: State) -> State:
        """q(z) block by block, then q(v) and q(theta) (inside :meth:`_state`): the two halves
        without computing the half-state's ELBO, which ``Algorithm.step`` would."""
        resp, pair_sum = self._update_z(state)
        return self._state(state.iteration + 1, resp, pair_sum=pair_sum)

    def half_step(self, state: State) -> State:
        """q(z) block by block under the state's q(v), q(theta)."""
        g = {**dict(state.extras["q_v"]), "e_log_pi": state.extras["e_log_pi"],
             "post": dict(state.extras["q_theta"])}
        resp, pair_sum = self._update_z(state)
        return self._state(state.iteration + 1, resp, g, np.asarray(state.extras["expected_log_lik"]),
                           phase=self.phases[0], pair_sum=pair_sum)

    def finish_step(self, half: State) -> State:
        """q(v) and q(theta) from the half state's q(z)."""
        return self._state(half.iteration, np.array(half.responsibilities))

    def _update_z(self, state: State) -> tuple[np.ndarray, float | None]:
        """q(z) block by block; also sum_{linked pairs} W_ij q(z_i)'q(z_j) of the result, for free:
        a block's links to earlier blocks meet final values, so each pair is counted once there."""
        log_rho = np.asarray(state.extras["expected_log_lik"]) + np.asarray(state.extras["e_log_pi"])
        resp = np.array(state.responsibilities)
        pair_sum = 0.0
        for members, early, late in self.blocks:
            if early is None:
                resp[members] = log_normalize(log_rho[members])[0]
                continue
            from .tvclust_kernels import block_update  # numba: imported on first use

            pair_sum += block_update(members, early.indptr, early.indices, early.data, late.indptr,
                                     late.indices, late.data, log_rho, resp)
        return resp, (pair_sum if self.link_model.links is not None else None)

    def explain(self, state: State, index: int) -> Explanation:
        """The q(z_i) update for point i under this state's q(v), q(theta) and its partners' q(z):
        its three terms and the result."""
        e_log_pi = np.asarray(state.extras["e_log_pi"])
        ell = np.asarray(state.extras["expected_log_lik"])[index]
        link = np.zeros_like(e_log_pi)
        links = self.link_model.links
        if links is not None:
            link = np.asarray(links.matrix[index] @ np.asarray(state.responsibilities)).reshape(-1)
        q = log_normalize((e_log_pi + ell + link)[None, :])[0][0]
        labels = component_labels(e_log_pi.size)
        top = int(q.argmax())
        return Explanation(
            point=index, phase="q(z) update",
            equation="q(z_i = k) ∝ exp(E[log π_k] + E[log N(x_i | θ_k)] + Σ_j W_ij q(z_j = k))",
            bars=(Bars("q(z_i = k) after the update", labels, q, top),
                  Bars("E[log π_k]", labels, e_log_pi, top, term="prior"),
                  Bars("E[log N(x_i | θ_k)]", labels, ell, top, term="distance"),
                  Bars("link term Σ_j W_ij q(z_j = k)", labels, link, top, term="link term")),
            text="W_ij = ξ1 for a may-link, −ξ2 for a may-not-link (times the link's confidence).")

    def converged(self, previous: State, current: State) -> bool:
        change = (current.objective - previous.objective) / self.dataset.n_samples
        return abs(change) < self.params["tol"]

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """q(z = k) of an unseen point without links: ∝ exp(E[log pi_k] + E[log N(x | theta_k)])."""
        ell = self.base.expected_log_lik(self.std.transform(X), dict(state.extras["q_theta"]))
        return log_normalize(ell + np.asarray(state.extras["e_log_pi"]))[0]


@hookimpl
def pairlab_algorithms():
    return [TVClustVariational]
