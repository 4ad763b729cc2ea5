"""Plain Gaussian mixture by EM: the unconstrained baseline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from pairlab import State, hookimpl
from pairlab.explanation import Explanation
from pairlab.mixture import EStep, MixtureAlgorithm, log_normalize

from .explain_mixtures import gmm_explain


class GaussianMixtureEM(MixtureAlgorithm):
    """EM for a Gaussian mixture (Dempster, Laird & Rubin 1977).

    The objective is the observed-data log-likelihood sum_i log sum_k alpha_k N(x_i | mu_k,
    Sigma_k); for every ``covariance_type`` (full, tied, diag, spherical) the update sequence
    equals scikit-learn's ``GaussianMixture`` of that type from the same start.
    """

    name = "gmm"
    title = "Gaussian mixture (EM)"
    citation = "Dempster, Laird & Rubin (1977), Maximum likelihood from incomplete data via the EM algorithm"
    uses_constraints = False

    def e_step(self, parameters: tuple[np.ndarray, ...], prec_chol: np.ndarray,
               previous: Mapping[str, Any]) -> EStep:
        """r_ik = α_k N(x_i | μ_k, Σ_k) / Σ_j α_j N(x_i | μ_j, Σ_j); the log-likelihood."""
        weights, means = parameters[:2]
        resp, log_norm = log_normalize(self.weighted_log_prob(self.X, weights, means, prec_chol))
        return EStep(resp, float(log_norm.sum()))

    def explain(self, state: State, index: int) -> Explanation | None:
        """The E-step's prior and distance terms (the M-step half: the mixture's explanation)."""
        return gmm_explain(self, state, index) or super().explain(state, index)


@hookimpl
def pairlab_algorithms():
    return [GaussianMixtureEM]
