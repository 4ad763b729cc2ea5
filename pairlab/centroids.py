"""What k-means-style algorithms (kmeans, COP-KMeans, PCK-means, MPCK-means, LCVQE, scaffolds)
share: the parameters of the starting centres, the starting centres and the hard-assignment
M-step."""

from __future__ import annotations

import numpy as np

from .errors import InvalidInputError
from .params import Param

__all__ = ["INIT", "MAX_ITER", "MEANS_INIT", "N_CLUSTERS", "cluster_means", "starting_centers"]

#: the parameters :func:`starting_centers` reads, and the iteration limit, as the plugins declare them
N_CLUSTERS = Param("n_clusters", int, 2, "number of clusters k", low=1)
MAX_ITER = Param("max_iter", int, 300, "maximum number of iterations", low=1)
INIT = Param("init", str, "k-means++", "initial centres: k-means++ seeding or k random points",
             choices=("k-means++", "random"))
MEANS_INIT = Param("means_init", np.ndarray, None, "initial centres (k, d)", nullable=True)


def starting_centers(X: np.ndarray, k: int, means_init: np.ndarray | None, init: str,
                     rng: np.random.Generator) -> np.ndarray | None:
    """``k`` starting centres: ``means_init`` (checked), else seeded by ``init`` ("k-means++" or
    "random": k distinct points); None for any other ``init`` (the caller's own rule).

    Refuses more clusters than points and a ``means_init`` of the wrong shape, saying what to change.
    """
    from .mixture import kmeans_plusplus

    n, d = X.shape
    if k > n:
        raise InvalidInputError(f"n_clusters={k} exceeds the number of points ({n}); lower n_clusters.")
    if means_init is not None:
        if means_init.shape != (k, d):
            raise InvalidInputError(f"means_init must have shape {(k, d)}, got {means_init.shape}.")
        return np.array(means_init, dtype=float)
    if init == "k-means++":
        return kmeans_plusplus(X, k, rng)
    if init == "random":
        return X[rng.choice(n, size=k, replace=False)].copy()
    return None


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
