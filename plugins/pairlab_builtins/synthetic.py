"""Synthetic 2-D data sets (deterministic for a seed)."""

from __future__ import annotations

import numpy as np

from pairlab import Dataset, DatasetSpec, Param, hookimpl


def two_moons(params: dict, rng: np.random.Generator) -> Dataset:
    """Two interleaving half circles with Gaussian noise (GM-PR Fig. 8)."""
    n = params["n_samples"]
    n_out = n // 2
    n_in = n - n_out
    t_out = rng.uniform(0, np.pi, n_out)
    t_in = rng.uniform(0, np.pi, n_in)
    outer = np.column_stack([np.cos(t_out), np.sin(t_out)])
    inner = np.column_stack([1 - np.cos(t_in), 0.5 - np.sin(t_in)])
    X = np.vstack([outer, inner]) + rng.normal(scale=params["noise"], size=(n, 2))
    y = np.r_[np.zeros(n_out, dtype=int), np.ones(n_in, dtype=int)]
    order = rng.permutation(n)
    return Dataset(X[order], y[order], name="two-moons", feature_names=("x1", "x2"))


def gaussian_blobs(params: dict, rng: np.random.Generator) -> Dataset:
    """Isotropic Gaussian blobs with centres drawn uniformly in a box."""
    n, k, d = params["n_samples"], params["n_centers"], params["n_features"]
    centers = rng.uniform(-params["box"], params["box"], size=(k, d))
    y = np.arange(n) % k
    rng.shuffle(y)
    X = centers[y] + rng.normal(scale=params["cluster_std"], size=(n, d))
    return Dataset(X, y, name="gaussian-blobs", feature_names=tuple(f"x{i + 1}" for i in range(d)))


DATASETS = [
    DatasetSpec(
        "two-moons", "Two moons", two_moons,
        (
            Param("n_samples", int, 200, "number of points", low=2),
            Param("noise", float, 0.1, "standard deviation of the Gaussian noise", low=0.0),
        ),
        description="Two interleaving half circles (GM-PR Fig. 8).",
    ),
    DatasetSpec(
        "gaussian-blobs", "Gaussian blobs", gaussian_blobs,
        (
            Param("n_samples", int, 300, "number of points", low=1),
            Param("n_centers", int, 3, "number of blobs", low=1),
            Param("n_features", int, 2, "dimension", low=1),
            Param("cluster_std", float, 1.0, "standard deviation within a blob", low=0.0),
            Param("box", float, 10.0, "centres are uniform in [-box, box]^d", low=0.0),
        ),
        description="Isotropic Gaussian blobs.",
    ),
]


@hookimpl
def pairlab_datasets():
    return DATASETS
