"""Hard clustering with a Bregman divergence (Banerjee, Merugu, Dhillon & Ghosh 2005, Algorithm 1):
the K-means baseline of RDP-means' Table 4 in its multinomial form.

Khashabi et al. (section 4.1, eq. 14) write an exponential-family likelihood as
exp(-D(x, mu)) f(x), D the Bregman divergence of the family; for the multinomial it is the KL
divergence of the (smoothed, normalised) counts to the cluster's distribution (section 5.3), for
the Gaussian the squared Euclidean distance. With a fixed number of clusters k the small-variance
limit is Bregman hard clustering: assign every point to the centre of least D, move every centre
to its cluster's mean (the mean minimises a cluster's total D for any Bregman divergence,
Banerjee et al. Proposition 1; the paper's section 4.4 finds the same update), repeat until no
point moves. The objective sum_i D(y_i, mu_{z_i}) never increases. The divergences and the
representation of the data are RDP-means' own (:class:`.rdpmeans_passes.Geometry`), so the
K-means, DP-means and RDP-means rows of Table 4 measure distance the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pairlab.errors import InvalidInputError

from .rdpmeans_passes import Geometry

__all__ = ["BregmanResult", "bregman_kmeans"]


@dataclass
class BregmanResult:
    """Labels (n,), centres (k, d) in the divergence's representation, the objective after every
    assignment (first: at the seeds) and the number of assignment rounds."""

    labels: np.ndarray
    centers: np.ndarray
    objectives: list[float]
    n_iter: int


def _seed(geometry: Geometry, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding with D in place of the squared distance (Arthur & Vassilvitskii's D^2
    weighting generalised; a point is picked with probability proportional to its least D)."""
    Y = geometry.Y
    first = int(rng.integers(Y.shape[0]))
    centers = [Y[first]]
    dist = geometry.to_center(Y[first])
    for _ in range(1, k):
        w = np.maximum(dist, 0.0)
        total = float(w.sum())
        j = int(rng.choice(Y.shape[0], p=w / total)) if total > 0 else int(rng.integers(Y.shape[0]))
        centers.append(Y[j])
        dist = np.minimum(dist, geometry.to_center(Y[j]))
    return np.array(centers, dtype=float)


def bregman_kmeans(X: np.ndarray, k: int, rng: np.random.Generator, *,
                   divergence: str = "kl", smoothing: float = 0.3,
                   init: np.ndarray | None = None, max_iter: int = 300) -> BregmanResult:
    """Bregman hard clustering of ``X`` into ``k`` clusters (see the module docstring).

    ``init``: starting centres (k, d) in the divergence's representation (for ``kl``: rows that
    are distributions); otherwise k-means++ seeding by D from ``rng``. An empty cluster keeps its
    centre. Stops when no label changes or after ``max_iter`` rounds.
    """
    geometry = Geometry(np.asarray(X, dtype=float), divergence, smoothing)
    Y = geometry.Y
    n = Y.shape[0]
    if not 1 <= k <= n:
        raise InvalidInputError(f"k={k} must be between 1 and the number of points ({n}).")
    if init is None:
        centers = _seed(geometry, k, rng)
    else:
        centers = np.array(init, dtype=float)
        if centers.shape != (k, Y.shape[1]):
            raise InvalidInputError(f"init must have shape {(k, Y.shape[1])}, got {centers.shape}.")
    labels = np.full(n, -1, dtype=np.int64)
    objectives: list[float] = []
    for it in range(1, max_iter + 1):
        table = np.column_stack([geometry.to_center(c) for c in centers])
        new = table.argmin(axis=1)
        objectives.append(float(table[np.arange(n), new].sum()))
        if np.array_equal(new, labels):
            return BregmanResult(labels, centers, objectives, it)
        labels = new
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros_like(centers)
        np.add.at(sums, labels, Y)
        filled = counts > 0
        centers = centers.copy()
        centers[filled] = sums[filled] / counts[filled, None]
    return BregmanResult(labels, centers, objectives, max_iter)
