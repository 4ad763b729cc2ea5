"""The TVClust model (Khashabi, Wieting, Liu & Liang 2015, section 3), shared by its Gibbs sampler
(:mod:`.tvclust`) and its mean-field variational approximation (:mod:`.tvclust_variational`).

* Data: a Dirichlet-process mixture (eq. 1) of Gaussians with a conjugate base measure G0 (eq. 7).
  ``covariance="full"``: (mu, Sigma) ~ Normal-inverse-Wishart (the base measure section 3.1 names
  for Gaussians); ``covariance="fixed"``: x ~ N(mu, sigma^2 I) with known sigma^2 and
  mu ~ N(m0, rho^2 I), the model whose small-variance limit is RDP-means (section 4).
* Side information: E_ij = 1 (may-link) for a must-link, E_ij = 0 (may-not-link) for a cannot-link,
  with p(E_ij | H_ij) of eq. 8: P(E = 1 | H = 1) = p, P(E = 0 | H = 0) = q. Hence
      log p(E_ij = 1 | H) = log(1 - q) + H xi1,   xi1 = log(p / (1 - q))
      log p(E_ij = 0 | H) = log q       - H xi2,   xi2 = log(q / (1 - p))
  (eq. 11 and section 4.3). A link with confidence c in [0, 1] (pairlab.Constraints) contributes
  c log p(E_ij | H_ij) (a tempered likelihood; c = 1 is the paper's model).

Everything is computed on standardised data Z = (X - m0) / s with m0 the data mean and s the root
mean per-feature variance (1 for constant data), so that huge, tiny or offset data behave alike;
the variances given as parameters are in data units and are divided by s^2. Densities reported to
the user (objectives, ELBOs) include the Jacobian and are in data units.

Defaults: sigma^2 (``variance``) a tenth of the mean per-feature variance, rho^2 (``prior_variance``)
the mean per-feature variance; for ``full``, kappa0 = sigma^2 / rho^2 (so mu | Sigma = sigma^2 I has
variance rho^2), nu0 = d + 2 and Psi0 = nu0 sigma^2 I (so E[Sigma^-1] = I / sigma^2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import digamma, gammaln, multigammaln

from pairlab import Algorithm, Constraints, Dataset, Param
from pairlab.errors import InvalidInputError
from pairlab.mixture import estimate_log_gaussian, gaussian_m_step

from .rdpmeans_passes import Links

__all__ = ["MODEL_PARAMS", "FixedVarianceBase", "LinkModel", "NIWBase", "Standardised", "TVClustModel",
           "make_base"]

_LOG_2PI = math.log(2.0 * math.pi)

MODEL_PARAMS: tuple[Param, ...] = (
    Param("alpha", float, 1.0, "Dirichlet-process concentration alpha (eq. 1)", low=0.0, low_open=True),
    Param("p", float, 0.9, "P(may-link | same cluster): credibility of must-links (eq. 8)",
          low=0.0, high=1.0, low_open=True, high_open=True),
    Param("q", float, 0.9, "P(may-not-link | different clusters): credibility of cannot-links (eq. 8)",
          low=0.0, high=1.0, low_open=True, high_open=True),
    Param("covariance", str, "full",
          "cluster covariances: full (Normal-inverse-Wishart base measure) or fixed (sigma^2 I, "
          "the model of the small-variance limit, section 4)", choices=("full", "fixed")),
    Param("variance", float, None,
          "within-cluster variance sigma^2 per feature: known for 'fixed', the prior's guess for "
          "'full' (None: a tenth of the data's mean per-feature variance)",
          low=0.0, low_open=True, nullable=True),
    Param("prior_variance", float, None,
          "prior variance rho^2 of the cluster means per feature (None: the data's mean "
          "per-feature variance)", low=0.0, low_open=True, nullable=True),
    Param("prior_dof", float, None,
          "inverse-Wishart degrees of freedom nu0 > d - 1 for 'full' (None: d + 2)",
          low=0.0, low_open=True, nullable=True),
)


class Standardised:
    """Z = (X - center) / scale, and the way back."""

    def __init__(self, X: np.ndarray) -> None:
        self.center = X.mean(axis=0)
        var = float(X.var(axis=0).mean()) if X.shape[0] > 1 else 0.0
        self.scale = math.sqrt(var) if var > 0 and math.isfinite(var) else 1.0
        if not math.isfinite(self.scale) or self.scale == 0.0:
            self.scale = 1.0
        self.log_scale = math.log(self.scale)
        self.Z = self.transform(X)

    def transform(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X, dtype=float) - self.center) / self.scale

    def means_out(self, means: np.ndarray) -> np.ndarray:
        return means * self.scale + self.center

    def covariances_out(self, covs: np.ndarray) -> np.ndarray:
        return covs * self.scale**2


def _suff_stats(Z: np.ndarray, resp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N_k, weighted means, scatter matrices about them) of the columns of ``resp``."""
    nk, means, covs = gaussian_m_step(Z, resp, 0.0)
    return nk, means, covs * nk[:, None, None]


def _chol_logdet(chol: np.ndarray) -> np.ndarray:
    """log|A| from Cholesky factors of A, shape (..., d, d) -> (...)."""
    return 2.0 * np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)


def _batched_cholesky(A: np.ndarray, what: str) -> np.ndarray:
    try:
        return np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        raise InvalidInputError(
            f"a {what} is not positive definite (duplicate points or a degenerate prior); give a "
            "larger 'variance' or 'prior_dof'."
        ) from None


# -- base measures ----------------------------------------------------------------------------------
@dataclass
class FixedVarianceBase:
    """x ~ N(mu, sigma2 I), mu ~ N(0, rho2 I) (standardised units)."""

    d: int
    sigma2: float
    rho2: float
    full = False

    def log_jacobian(self, log_scale: float) -> float:
        """log of |d theta_data / d theta_standardised| per component (mu = center + s mu')."""
        return self.d * log_scale

    # Gibbs
    def log_predictive(self, Z: np.ndarray) -> np.ndarray:
        """log of the marginal of one point under G0, N(z; 0, (sigma2 + rho2) I)."""
        v = self.sigma2 + self.rho2
        return -0.5 * (self.d * (_LOG_2PI + math.log(v)) + (Z * Z).sum(axis=1) / v)

    def posterior(self, nk: np.ndarray, means: np.ndarray, scatter: np.ndarray) -> dict:
        prec = 1.0 / self.rho2 + nk / self.sigma2
        return {"var": 1.0 / prec, "mean": (nk / self.sigma2 / prec)[:, None] * means}

    def sample(self, post: dict, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """One draw (mean, precision Cholesky factor) from component k's posterior."""
        mean = post["mean"][k] + math.sqrt(post["var"][k]) * rng.standard_normal(self.d)
        return mean, np.eye(self.d) / math.sqrt(self.sigma2)

    def log_prior(self, means: np.ndarray, prec_chol: np.ndarray) -> np.ndarray:
        return -0.5 * (self.d * (_LOG_2PI + math.log(self.rho2)) + (means * means).sum(axis=1) / self.rho2)

    def covariances(self, prec_chol: np.ndarray) -> np.ndarray:
        return np.broadcast_to(self.sigma2 * np.eye(self.d), prec_chol.shape).copy()

    # variational
    def expected_log_lik(self, Z: np.ndarray, post: dict) -> np.ndarray:
        """E_q[log N(z_i | theta_k)], shape (n, K)."""
        K = post["mean"].shape[0]
        P = np.broadcast_to(np.eye(self.d) / math.sqrt(self.sigma2), (K, self.d, self.d))
        return estimate_log_gaussian(Z, post["mean"], P) - 0.5 * self.d * post["var"] / self.sigma2

    def kl(self, post: dict) -> np.ndarray:
        """KL(q(theta_k) || G0) per component."""
        r = post["var"] / self.rho2
        m2 = (post["mean"] ** 2).sum(axis=1)
        return 0.5 * self.d * (r - 1.0 - np.log(r)) + 0.5 * m2 / self.rho2

    def moments(self, post: dict) -> tuple[np.ndarray, np.ndarray]:
        K = post["mean"].shape[0]
        return post["mean"].copy(), np.broadcast_to(self.sigma2 * np.eye(self.d), (K, self.d, self.d)).copy()


@dataclass
class NIWBase:
    """(mu, Sigma) ~ NIW(0, kappa0, nu0, psi0 I) (standardised units): Sigma ~ IW(psi0 I, nu0),
    mu | Sigma ~ N(0, Sigma / kappa0)."""

    d: int
    kappa0: float
    nu0: float
    psi0: float
    full = True

    def __post_init__(self) -> None:
        self._diag = np.diag_indices(self.d)
        self._below = np.tril_indices(self.d, -1)
        d, nu0 = self.d, self.nu0
        self._log_iw_norm = 0.5 * nu0 * d * (math.log(self.psi0) - math.log(2.0)) - multigammaln(0.5 * nu0, d)

    def log_jacobian(self, log_scale: float) -> float:
        """mu = center + s mu' (d entries), Sigma = s^2 Sigma' (d(d+1)/2 free entries)."""
        return (self.d + self.d * (self.d + 1)) * log_scale

    def log_predictive(self, Z: np.ndarray) -> np.ndarray:
        """Student-t marginal of one point: dof nu0 - d + 1, shape psi0 (kappa0 + 1) / (kappa0 dof) I."""
        d = self.d
        dof = self.nu0 - d + 1.0
        scale = self.psi0 * (self.kappa0 + 1.0) / (self.kappa0 * dof)
        r2 = (Z * Z).sum(axis=1) / scale
        return (gammaln(0.5 * (dof + d)) - gammaln(0.5 * dof) - 0.5 * d * (math.log(dof * math.pi)
                + math.log(scale)) - 0.5 * (dof + d) * np.log1p(r2 / dof))

    def posterior(self, nk: np.ndarray, means: np.ndarray, scatter: np.ndarray) -> dict:
        kappa = self.kappa0 + nk
        shrink = (self.kappa0 * nk / kappa)[:, None, None]
        psi = scatter + shrink * means[:, :, None] * means[:, None, :]
        psi = psi + self.psi0 * np.eye(self.d)
        psi = 0.5 * (psi + np.swapaxes(psi, 1, 2))
        psi_chol = _batched_cholesky(psi, "posterior scale matrix")
        # lower-triangular P with P P^T = Psi^-1 (triangular, so log|P| is the sum of log diag P)
        prec_chol = _batched_cholesky(np.linalg.inv(psi), "posterior scale matrix")
        return {"kappa": kappa, "nu": self.nu0 + nk, "mean": (nk / kappa)[:, None] * means, "psi": psi,
                "psi_chol": psi_chol, "prec_chol": prec_chol}

    def sample(self, post: dict, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(mean, precision Cholesky factor P, P P^T = Sigma^-1) drawn from NIW posterior k.

        Sigma^-1 ~ Wishart(nu, Psi^-1) by Bartlett's decomposition: with L L^T = Psi^-1 and A lower
        triangular, A_jj^2 ~ chi2(nu - j), A_ij ~ N(0, 1) below the diagonal, Sigma^-1 = (LA)(LA)^T.
        """
        d = self.d
        L = post["prec_chol"][k]  # lower, L L^T = Psi^-1, so P = L A is lower triangular too
        A = np.zeros((d, d))
        A[self._diag] = np.sqrt(rng.chisquare(post["nu"][k] - np.arange(d)))
        A[self._below] = rng.standard_normal(len(self._below[0]))
        P = L @ A
        # mu = m + Sigma^{1/2} eps / sqrt(kappa) with Sigma = P^-T P^-1
        eps = rng.standard_normal(d)
        mean = post["mean"][k] + np.linalg.solve(P.T, eps) / math.sqrt(post["kappa"][k])
        return mean, P

    def log_prior(self, means: np.ndarray, prec_chol: np.ndarray) -> np.ndarray:
        """log NIW(mu_k, Sigma_k) with Sigma_k^-1 = P P^T."""
        d, nu0, psi0, k0 = self.d, self.nu0, self.psi0, self.kappa0
        logdet_prec = _chol_logdet(prec_chol)  # log|Sigma^-1|
        y = np.einsum("kd,kde->ke", means, prec_chol)
        log_normal = -0.5 * d * (_LOG_2PI - math.log(k0)) + 0.5 * logdet_prec - 0.5 * k0 * (y * y).sum(axis=1)
        trace = psi0 * (prec_chol**2).sum(axis=(1, 2))  # tr(Psi0 Sigma^-1)
        log_iw = self._log_iw_norm + 0.5 * (nu0 + d + 1) * logdet_prec - 0.5 * trace
        return log_normal + log_iw

    def covariances(self, prec_chol: np.ndarray) -> np.ndarray:
        prec = prec_chol @ np.swapaxes(prec_chol, 1, 2)
        cov = np.linalg.inv(prec)
        return 0.5 * (cov + np.swapaxes(cov, 1, 2))

    def _expected_logdet_prec(self, post: dict) -> np.ndarray:
        nu = post["nu"]
        j = np.arange(self.d)
        return (digamma(0.5 * (nu[:, None] - j)).sum(axis=1) + self.d * math.log(2.0)
                - _chol_logdet(post["psi_chol"]))

    def expected_log_lik(self, Z: np.ndarray, post: dict) -> np.ndarray:
        """E_q[log N(z | mu, Sigma)] = -d/2 log 2pi + E[log|Sigma^-1|]/2 - d/(2 kappa)
        - nu/2 (z - m)^T Psi^-1 (z - m)."""
        d = self.d
        P = post["prec_chol"]
        nu = post["nu"]
        # estimate_log_gaussian with factor sqrt(nu) P gives -d/2 log 2pi - nu/2 quad + log|P| + d/2 log nu
        base = estimate_log_gaussian(Z, post["mean"], P * np.sqrt(nu)[:, None, None])
        correction = (-0.5 * d * np.log(nu) + 0.5 * _chol_logdet(post["psi_chol"])
                      + 0.5 * self._expected_logdet_prec(post) - 0.5 * d / post["kappa"])
        return base + correction

    def kl(self, post: dict) -> np.ndarray:
        """KL(NIW(m, kappa, nu, Psi) || NIW(0, kappa0, nu0, psi0 I)) per component: the normal part
        d/2 log(kappa/kappa0) - d/2 + d kappa0/(2 kappa) + kappa0 nu/2 m^T Psi^-1 m, plus the KL of the
        Wishart laws of Sigma^-1, W(Psi^-1, nu) against W(I/psi0, nu0)."""
        d, k0, nu0, psi0 = self.d, self.kappa0, self.nu0, self.psi0
        kappa, nu, m = post["kappa"], post["nu"], post["mean"]
        P = post["prec_chol"]
        y = np.einsum("kd,kde->ke", m, P)
        normal = (0.5 * d * np.log(kappa / k0) - 0.5 * d + 0.5 * d * k0 / kappa
                  + 0.5 * k0 * nu * (y * y).sum(axis=1))
        logdet_psi = _chol_logdet(post["psi_chol"])
        trace = psi0 * (P**2).sum(axis=(1, 2))  # tr(Psi0 Psi^-1)
        j = np.arange(d)
        psi_d = digamma(0.5 * (nu[:, None] - j)).sum(axis=1)  # multivariate digamma at nu/2
        wishart = (0.5 * nu * (trace - d) - 0.5 * nu0 * (d * math.log(psi0) - logdet_psi)
                   + multigammaln(0.5 * nu0, d) - np.array([multigammaln(0.5 * v, d) for v in nu])
                   + 0.5 * (nu - nu0) * psi_d)
        return normal + wishart

    def moments(self, post: dict) -> tuple[np.ndarray, np.ndarray]:
        """E[mu] and the covariance drawn for a component: Psi / nu (= E[Sigma^-1]^-1)."""
        return post["mean"].copy(), post["psi"] / post["nu"][:, None, None]


def make_base(params: dict, std: Standardised, d: int) -> FixedVarianceBase | NIWBase:
    """The base measure in standardised units from the (data-unit) parameters."""
    s2 = std.scale**2
    sigma2 = 0.1 if params["variance"] is None else params["variance"] / s2
    rho2 = 1.0 if params["prior_variance"] is None else params["prior_variance"] / s2
    for name, v in (("variance", sigma2), ("prior_variance", rho2)):
        if not 1e-100 < v < 1e100:  # relative to the data's variance; beyond, squares under/overflow
            raise InvalidInputError(
                f"{name} = {params[name]!r} is {'too small' if v <= 1e-100 else 'too large'} for data "
                f"of variance {std.scale**2:g}; give a value nearer the data's variance.")
    if params["covariance"] == "fixed":
        return FixedVarianceBase(d, sigma2, rho2)
    nu0 = d + 2.0 if params["prior_dof"] is None else params["prior_dof"]
    if nu0 <= d - 1:
        raise InvalidInputError(
            f"prior_dof = {nu0:g} must exceed d - 1 = {d - 1} for a proper inverse-Wishart prior; "
            "give a larger prior_dof (or None for d + 2).")
    return NIWBase(d, sigma2 / rho2, nu0, nu0 * sigma2)


# -- side information (eq. 8) -----------------------------------------------------------------------
class LinkModel:
    """Signed link weights W (CSR, symmetric): c xi1 for may-links, -c xi2 for may-not-links, so that
    sum_{pairs} c log p(E_ij | H_ij) = constant + 1/2 sum_i sum_{j: z_j = z_i} W_ij."""

    def __init__(self, constraints: Constraints, p: float, q: float) -> None:
        self.xi1 = math.log(p) - math.log1p(-q)
        self.xi2 = math.log(q) - math.log1p(-p)
        self.constant = (float(constraints.ml_confidence.sum()) * math.log1p(-q)
                         + float(constraints.cl_confidence.sum()) * math.log(q))
        self.links = Links.build(constraints, self.xi1, self.xi2)

    def field(self, onehot: np.ndarray) -> np.ndarray:
        """(W R)[i, k] = sum_j W_ij R_jk: the link term of each point for each column of R."""
        if self.links is None:
            return np.zeros_like(onehot)
        return np.asarray(self.links.matrix @ onehot)

    def log_lik(self, labels: np.ndarray) -> float:
        """sum over observed pairs of c log p(E_ij | H_ij) for a hard labelling."""
        if self.links is None:
            return self.constant
        K = int(labels.max()) + 1
        H = self.links.scores(labels, K)
        return self.constant + 0.5 * float(H[np.arange(labels.size), labels].sum())


class TVClustModel(Algorithm):
    """What both TVClust inference plugins share: the standardised data ``Z`` (``std``), the base
    measure G0 (``base``) and the side-information model of eq. 8 (``link_model``)."""

    uses_constraints = True

    def __init__(self, dataset: Dataset, constraints: Constraints | None = None,
                 params: Mapping[str, Any] | None = None, rng: np.random.Generator | None = None) -> None:
        super().__init__(dataset, constraints, params, rng)
        self.std = Standardised(self.X)
        self.Z = self.std.Z
        self.base = make_base(self.params, self.std, self.X.shape[1])
        self.link_model = LinkModel(self.constraints, self.params["p"], self.params["q"])


def log_crp(counts: np.ndarray, alpha: float) -> float:
    """log of the Chinese-restaurant prior of a partition with cluster sizes ``counts`` (eq. 2):
    alpha^K prod_k (n_k - 1)! Gamma(alpha) / Gamma(alpha + n)."""
    counts = counts[counts > 0]
    n = int(counts.sum())
    return float(counts.size * math.log(alpha) + gammaln(counts).sum() + gammaln(alpha) - gammaln(alpha + n))
