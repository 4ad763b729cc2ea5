"""Likelihood, information criteria and sampling of a fitted Gaussian-family model.

What is reported: the density of the fitted mixture for a point *without links*,
``log p(x | theta) = log sum_k w_k N(x | mu_k, Sigma_k)`` (scikit-learn's ``score_samples``). The
links change the likelihood of the training data (GM-PR's and constrained EM's log p(X | theta, E),
PPC's log P_p(X | theta, W), EM-PC's penalised bound, TVClust's ELBO: each run's
``objective_history_[-1]``), but that quantity is not a sum over points and is undefined for unseen
points, whose links are unknown; the mixture density is the one per-point likelihood every model of
the family defines, so BIC and AIC compare models (and numbers of components) on one scale, and they
equal scikit-learn's ``GaussianMixture`` when there are no links. ``w_k`` is the mixture weight of
component k: the class proportion for one Gaussian per class, the class proportion times the
cluster proportion for ``gmpr-mixture`` (eq. 21), E[pi_k] for ``tvclust-variational``, whose
means and covariances are the plug-in E[mu_k] and Psi_k / nu_k.

Free parameters (scikit-learn's ``_n_parameters``): k d means, k - 1 weights and the covariance
entries of the type -- full k d (d + 1) / 2, tied d (d + 1) / 2, diag k d, spherical k
(``tvclust-variational``: full, or none for its known variance ``covariance="fixed"``). No built-in
fits a parameter of the link model (link weights, p and q, confidences are hyperparameters chosen
by the user or a search), so none is counted; ``gmpr-mixture``'s (M - 1) class plus (K - M)
cluster proportions are the K - 1 weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidInputError
from .mixture import (
    compact_covariances,
    estimate_log_gaussian,
    log_normalize,
    precision_cholesky,
)
from .state import State

__all__ = ["FittedMixture", "fitted_mixture", "is_gaussian_family"]


def is_gaussian_family(algorithm_class: type) -> bool:
    """Whether an algorithm's states describe a Gaussian mixture (``gaussian_mixture = True``)."""
    return bool(getattr(algorithm_class, "gaussian_mixture", False))


@dataclass(frozen=True)
class FittedMixture:
    """A Gaussian mixture in scikit-learn's shapes for ``covariance_type``."""

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    covariance_type: str
    fixed_covariances: bool = False

    def log_prob(self, X: np.ndarray) -> np.ndarray:
        """log w_k + log N(x_i | mu_k, Sigma_k), shape (n, k)."""
        prec = precision_cholesky(self.covariances, self.covariance_type)
        with np.errstate(divide="ignore"):
            return estimate_log_gaussian(X, self.means, prec, self.covariance_type) + np.log(
                self.weights)

    def score_samples(self, X: np.ndarray) -> np.ndarray:
        """log p(x_i) of every row of ``X``."""
        return log_normalize(self.log_prob(X))[1]

    def n_parameters(self) -> int:
        """Free parameters: means, weights and the covariance type's entries."""
        k, d = self.means.shape
        cov = {"full": k * d * (d + 1) / 2, "tied": d * (d + 1) / 2, "diag": k * d,
               "spherical": k}[self.covariance_type]
        return int((0 if self.fixed_covariances else cov) + k * d + k - 1)

    def sample(self, n_samples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``n_samples`` draws and their components (counts multinomial in the weights)."""
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) \
                or n_samples < 1:
            raise InvalidInputError(f"n_samples must be an integer >= 1, got {n_samples!r}.")
        k, d = self.means.shape
        counts = rng.multinomial(int(n_samples), self.weights / self.weights.sum())
        covs = self.covariances
        parts = []
        for j in range(k):
            z = rng.standard_normal((int(counts[j]), d))
            if self.covariance_type in ("full", "tied"):
                c = covs[j] if self.covariance_type == "full" else covs
                z = z @ np.linalg.cholesky(c).T
            else:
                z = z * np.sqrt(covs[j])
            parts.append(self.means[j] + z)
        return np.vstack(parts), np.repeat(np.arange(k), counts)


def fitted_mixture(state: State, params: dict[str, Any]) -> FittedMixture:
    """The mixture of a Gaussian-family state (``params``: the run's parameters)."""
    model = state.model
    weights = np.asarray(model["weights"], dtype=float)
    means = np.asarray(model["means"], dtype=float)
    if "class_of_component" in model:  # gmpr-mixture: alpha_m pi_mk (eq. 21)
        weights = weights[np.asarray(model["class_of_component"])] * np.asarray(
            model["component_weights"], dtype=float)
    covariance_type = params.get("covariance_type", "full")
    fixed = params.get("covariance") == "fixed"
    if fixed:
        covariance_type = "spherical"
    covs = compact_covariances(np.asarray(model["covariances"], dtype=float), covariance_type)
    return FittedMixture(weights, means, covs, covariance_type, fixed)
