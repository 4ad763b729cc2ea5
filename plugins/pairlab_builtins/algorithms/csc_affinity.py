"""CSC's RBF affinity when no bandwidth is given.

``variance`` follows the authors' code (Xiang Wang's public CSP repository, gnaixgnaw/CSP,
``load_wine.m``: the data centred, then A_ij = exp(-sum_m (x_im - x_jm)^2 / (2 var_m)), MATLAB's
``var``, i.e. with n - 1, and a zero diagonal). ``mean-sq`` is GM-PR's setting for its comparison
(exp(-|x - y|^2 / b), b the mean squared distance between all pairs; GM-PR section 4.1).
"""

from __future__ import annotations

import numpy as np

__all__ = ["BANDWIDTH_RULES", "variance_scaled"]

BANDWIDTH_RULES = ("variance", "mean-sq")


def variance_scaled(X: np.ndarray) -> np.ndarray:
    """X with column m divided by sqrt(2 var_m) (var with n - 1), so that exp(-|x' - y'|^2) is
    exp(-sum_m (x_m - y_m)^2 / (2 var_m)). Constant columns are dropped: they add 0 to every
    distance (the authors' formula would divide 0 by 0 there)."""
    X = np.asarray(X, dtype=float)
    var = X.var(axis=0, ddof=1) if X.shape[0] > 1 else np.zeros(X.shape[1])
    keep = var > 0
    return X[:, keep] / np.sqrt(2.0 * var[keep])
