"""GM-PR iterations: without links against scikit-learn's GaussianMixture, with n/10 must-links
and n/10 cannot-links against GM-PR without links (same data, same start)."""

from __future__ import annotations

import numpy as np

from pairlab.bench import BenchCase
from pairlab.benchcases.gmm import blobs, sklearn_em_step
from pairlab.constraint_generators import random_pairs
from pairlab.dataset import Dataset
from pairlab.run import Run


def cases(quick: bool) -> list[BenchCase]:
    n, d, k = (20_000, 2, 4) if quick else (100_000, 2, 4)
    X, y = blobs(n, d, k)
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
    reference, ref_name = sklearn_em_step(X, m)
    out.append(BenchCase("gmpr-em-iteration-no-links", lambda: plain.algorithm.step(plain_state),
                         reference, ref_name, n, d, k, 0, goal=1.0, group="gmpr"))
    out.append(BenchCase("gmpr-em-iteration-links", lambda: linked.algorithm.step(linked_state),
                         lambda: plain.algorithm.step(plain_state),
                         "GM-PR EM iteration without links", n, d, k, len(links), goal=2.0,
                         group="gmpr"))
    return out
