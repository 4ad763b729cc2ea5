"""Kernels and affinities shared by ``sskk`` and ``csc``.

GM-PR's comparison (Yu, Elhabian & Whitaker, section 5) builds the similarity matrix of SC, SSKK
and CSC with the RBF kernel "whose parameter is set by the average squared distance between all
pairs of data points": k(x, y) = exp(-|x - y|^2 / b) with b = mean_{i != j} |x_i - x_j|^2.
"""

from __future__ import annotations

import numpy as np

from pairlab.errors import InvalidInputError

from .ap_messages import squared_distances

__all__ = ["KERNELS", "mean_squared_distance", "pairwise_kernel", "square_matrix"]

KERNELS = ("rbf", "linear", "precomputed")


def mean_squared_distance(D: np.ndarray) -> float:
    """Average of |x_i - x_j|^2 over the pairs i != j of the (n, n) squared-distance matrix."""
    n = D.shape[0]
    return float(D.sum() / (n * (n - 1))) if n > 1 else 0.0


def square_matrix(X: np.ndarray, what: str) -> np.ndarray:
    """X as an (n, n) symmetric matrix, or a clear error (``what`` names it in the message)."""
    n, d = X.shape
    if n != d:
        raise InvalidInputError(
            f"kernel='precomputed' needs X to be the (n, n) {what}, got shape {X.shape}; "
            "use kernel='rbf' or 'linear' for feature vectors.")
    K = np.array(X, dtype=float)
    if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(K).max()))):
        raise InvalidInputError(f"the precomputed {what} must be symmetric.")
    return (K + K.T) / 2


def pairwise_kernel(X: np.ndarray, kernel: str, bandwidth: float | None = None) -> np.ndarray:
    """(n, n) kernel matrix: RBF exp(-|x - y|^2 / b), linear x.y, or X itself (precomputed).

    ``bandwidth`` b of the RBF kernel; None is GM-PR's choice, the mean squared distance between
    all pairs of points (1 when every point coincides).
    """
    if kernel == "precomputed":
        return square_matrix(X, "kernel (similarity) matrix")
    if kernel == "linear":
        Xc = np.asarray(X, dtype=float)
        return Xc @ Xc.T
    if kernel != "rbf":
        raise InvalidInputError(f"kernel must be one of {list(KERNELS)}, got {kernel!r}.")
    D = squared_distances(np.asarray(X, dtype=float))
    b = mean_squared_distance(D) if bandwidth is None else float(bandwidth)
    if not b > 0:
        b = 1.0
    D /= -b
    return np.exp(D, out=D)


def kernel_to_points(X: np.ndarray, Y: np.ndarray, kernel: str, bandwidth: float) -> np.ndarray:
    """k(x_i, y_j) for data X (n, d) and points Y (m, d): linear or RBF with bandwidth b."""
    if kernel == "linear":
        return X @ Y.T
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / bandwidth)
