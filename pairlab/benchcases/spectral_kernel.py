"""CSC and SSKK (issue 17) against scikit-learn on the same affinity or kernel.

* ``csc``: a whole CSC fit (affinity, generalised eigenproblem, k-means in the embedding) against
  scikit-learn's SpectralClustering on the same precomputed RBF affinity (goal: at most 2x,
  n = 2,000).
* ``sskk-iteration``: one SSKK step (kernel k-means reassignment on sigma I + K + W) against one
  Lloyd iteration of scikit-learn's KMeans on the data (report only: the kernel step is
  O(n^2 k), Lloyd's O(n d k)); ``sskk-fit``: a whole fit, kernel and sigma included, against
  scikit-learn's KMeans fit with the same number of iterations (report only).
"""

from __future__ import annotations

import warnings

import numpy as np

from pairlab.bench import BenchCase
from pairlab.benchcases.gmm import blobs
from pairlab.dataset import Dataset
from pairlab.links import random_pairs
from pairlab.run import Run


def cases(quick: bool) -> list[BenchCase]:
    n, d, k = (500, 2, 4) if quick else (2000, 2, 4)
    X, y = blobs(n, d, k, std=1.5)
    data = Dataset(X)
    links = random_pairs(y, n // 20, n // 20, np.random.default_rng(1))
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    A = np.exp(-D / (D.sum() / (n * (n - 1))))          # csc's RBF: bandwidth = mean sq. distance

    def csc() -> object:
        return Run("csc", data, links, {"n_clusters": k, "bandwidth_rule": "mean-sq"},
                   seed=0).run()

    ref_csc = ref_km_step = ref_km_fit = None
    ref_name = "scikit-learn unavailable"
    try:
        from sklearn.cluster import KMeans, SpectralClustering

        def ref_csc() -> object:
            return SpectralClustering(k, affinity="precomputed", random_state=0).fit(A)

        M = X[:k]

        def ref_km_step() -> object:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return KMeans(k, init=M, n_init=1, max_iter=1, algorithm="lloyd").fit(X)

        def ref_km_fit() -> object:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return KMeans(k, init=M, n_init=1, max_iter=20, tol=0.0,
                              algorithm="lloyd").fit(X)

        ref_name = "scikit-learn"
    except ImportError:
        pass
    run = Run("sskk", data, links, {"n_clusters": k}, seed=0)
    state0 = run.state

    def sskk_fit() -> object:
        r = Run("sskk", data, links, {"n_clusters": k, "max_iter": 20}, seed=0)
        for _ in range(20):
            r.step()
        return r.state

    return [
        BenchCase("csc", csc, ref_csc, f"{ref_name} SpectralClustering, same affinity", n, d, k,
                  len(links), goal=2.0, group="spectral-kernel"),
        BenchCase("sskk-iteration", lambda: run.algorithm.step(state0), ref_km_step,
                  f"{ref_name} KMeans, one Lloyd iteration", n, d, k, len(links), goal=None,
                  group="spectral-kernel"),
        BenchCase("sskk-fit", sskk_fit, ref_km_fit, f"{ref_name} KMeans, 20 Lloyd iterations",
                  n, d, k, len(links), goal=None, group="spectral-kernel"),
    ]
