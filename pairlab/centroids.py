"""The hard-assignment M-step shared by k-means-style algorithms (kmeans, COP-KMeans, scaffolds)."""

from __future__ import annotations

import numpy as np

__all__ = ["cluster_means"]


def cluster_means(X: np.ndarray, labels: np.ndarray, previous: np.ndarray) -> np.ndarray:
    """Mean of the points of each cluster, shape ``previous.shape``.

    A cluster with no points keeps its ``previous`` centre (Lloyd's algorithm, Wagstaff et al.'s
    step 3).
    """
    k = previous.shape[0]
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros_like(previous, dtype=float)
    np.add.at(sums, labels, X)
    return np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], previous)
