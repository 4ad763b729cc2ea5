"""The hard-assignment M-step shared by k-means-style algorithms (kmeans, COP-KMeans, PCK-means,
MPCK-means, LCVQE, scaffolds)."""

from __future__ import annotations

import numpy as np

__all__ = ["cluster_means"]


def cluster_means(X: np.ndarray, labels: np.ndarray, previous: np.ndarray,
                  weights: np.ndarray | None = None) -> np.ndarray:
    """Mean of the points of each cluster, shape ``previous.shape``.

    With ``weights`` (one per row of ``X``), the weighted mean ``sum w_i x_i / sum w_i`` (LCVQE's
    update counts penalty terms with weight 1/2). A cluster with no points (or zero total weight)
    keeps its ``previous`` centre (Lloyd's algorithm, Wagstaff et al.'s step 3).
    """
    k = previous.shape[0]
    sums = np.zeros_like(previous, dtype=float)
    if weights is None:
        counts = np.bincount(labels, minlength=k)
        np.add.at(sums, labels, X)
    else:
        counts = np.bincount(labels, weights, minlength=k)
        np.add.at(sums, labels, X * weights[:, None])
    return np.where(counts[:, None] > 0, sums / np.where(counts > 0, counts, 1)[:, None], previous)
