"""GM-PR iterations: without links against scikit-learn's GaussianMixture, with n/10 must-links
and n/10 cannot-links against GM-PR without links (same data, same start)."""

from __future__ import annotations

import warnings

import numpy as np

from pairlab.bench import BenchCase
from pairlab.constraint_generators import random_pairs
from pairlab.dataset import Dataset
from pairlab.run import Run


def _blobs(n: int, d: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-10, 10, size=(k, d))
    y = rng.integers(k, size=n)
    return centers[y] + rng.normal(size=(n, d)), y


def cases(quick: bool) -> list[BenchCase]:
    n, d, k = (20_000, 2, 4) if quick else (100_000, 2, 4)
    X, y = _blobs(n, d, k)
    data = Dataset(X)
    plain = Run("gmpr", data, params={"n_components": k}, seed=0)
    plain_state = plain.state
    m = plain_state.model
    start = {"n_components": k, "weights_init": m["weights"], "means_init": m["means"],
             "covariances_init": m["covariances"]}
    links = random_pairs(y, n // 10, n // 10, np.random.default_rng(0))
    linked = Run("gmpr", data, links, params=start, seed=0)
    linked_state = linked.state
    out = []
    reference, ref_name = None, "scikit-learn unavailable"
    try:
        from sklearn.mixture import GaussianMixture

        gm = GaussianMixture(k, max_iter=1, weights_init=m["weights"], means_init=m["means"],
                             precisions_init=np.linalg.inv(m["covariances"]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gm.fit(X)

        def reference() -> object:
            _, log_resp = gm._e_step(X)
            gm._m_step(X, log_resp)
            return gm

        ref_name = "scikit-learn GaussianMixture E+M step"
    except ImportError:
        pass
    out.append(BenchCase("gmpr-em-iteration-no-links", lambda: plain.algorithm.step(plain_state),
                         reference, ref_name, n, d, k, 0, goal=1.0, group="gmpr"))
    out.append(BenchCase("gmpr-em-iteration-links", lambda: linked.algorithm.step(linked_state),
                         lambda: plain.algorithm.step(plain_state),
                         "GM-PR EM iteration without links", n, d, k, len(links), goal=2.0,
                         group="gmpr"))
    return out
