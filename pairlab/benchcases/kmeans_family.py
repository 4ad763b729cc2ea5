"""The constrained k-means family against a k-means iteration (issue 16).

Data: n points in 4 Gaussian blobs in 2-D, 2,000 links drawn uniformly among the pairs and labelled
from the blobs (half must-links, half cannot-links). Each algorithm runs from the same k-means++
centres for a few iterations; a case times one more iteration (``step``) from the state reached,
against one ``kmeans`` step from its own state at the same iteration. Goals: MPCK-means at most 5x
k-means, PCK-means and LCVQE at most 3x.
"""

from __future__ import annotations

import functools

import numpy as np

from pairlab.bench import BenchCase
from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.mixture import kmeans_plusplus
from pairlab.run import Run

K = 4
WARM = 3


def blobs_with_links(n: int, n_links: int, seed: int = 0) -> tuple[np.ndarray, Constraints]:
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-8, 8, size=(K, 2))
    y = rng.integers(K, size=n)
    X = centers[y] + rng.normal(size=(n, 2))
    same, diff = [], []
    while len(same) < n_links // 2 or len(diff) < n_links - n_links // 2:
        i, j = (int(v) for v in rng.choice(n, size=2, replace=False))
        pair = (min(i, j), max(i, j))
        if pair in same or pair in diff:
            continue
        (same if y[i] == y[j] else diff).append(pair)
    return X, Constraints(same[: n_links // 2], diff[: n_links - n_links // 2], n_samples=n)


@functools.cache
def _run(name: str, n: int, n_links: int) -> Run:
    """A run advanced WARM iterations from shared k-means++ centres (built on first use)."""
    X, links = blobs_with_links(n, n_links)
    start = kmeans_plusplus(X, K, np.random.default_rng(1))
    run = Run(name, Dataset(X), None if name == "kmeans" else links,
              {"n_clusters": K, "means_init": start}, seed=0)
    for _ in range(WARM):
        run.step()
    return run


def _iteration(name: str, n: int, n_links: int) -> object:
    run = _run(name, n, n_links)
    return run.algorithm.step(run.history[WARM])


def cases(quick: bool) -> list[BenchCase]:
    n, n_links = (4_000, 400) if quick else (20_000, 2_000)
    reference = functools.partial(_iteration, "kmeans", n, n_links)
    out = []
    for name, goal in (("mpck-means", 5.0), ("pck-means", 3.0), ("lcvqe", 3.0)):
        out.append(BenchCase(f"{name}-iteration", functools.partial(_iteration, name, n, n_links),
                             reference, "k-means iteration (kmeans plugin)", n, 2, K, n_links,
                             goal=goal, group="kmeans-family"))
    return out
