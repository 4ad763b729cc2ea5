"""SSAP-G and SSAP-L (issue 17) against scikit-learn's AffinityPropagation.

One unit of work is a whole fit of a fixed number of iterations (convergence checks disabled on
both sides), from the data: similarities, median preference, tie noise, meta-points or
macro-nodes, the iterations, the exemplars. Goals (issue 17): SSAP-G with no links at most 1.3x
scikit-learn, with 1,000 links at most 2x, at n = 1,500.
"""

from __future__ import annotations

import warnings

import numpy as np

from pairlab.bench import BenchCase
from pairlab.benchcases.gmm import blobs
from pairlab.benchcases.scssap import sklearn_affinity_propagation
from pairlab.dataset import Dataset
from pairlab.links import random_pairs
from pairlab.run import Run


def cases(quick: bool) -> list[BenchCase]:
    n, d, k, n_iter = (400, 2, 4, 50) if quick else (1500, 2, 4, 50)
    n_links = 200 if quick else 1000
    X, y = blobs(n, d, k, std=1.5)
    data = Dataset(X)
    links = random_pairs(y, n_links // 2, n_links // 2, np.random.default_rng(1))
    damping = 0.75
    fixed = {"max_iter": n_iter, "convergence_iter": n_iter + 1, "damping": damping}

    def fit(name: str, constraints=None) -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)   # ssap-l: cannot-links not used
            run = Run(name, data, constraints, fixed, seed=0)
            run.run()
        return run.state

    reference, ref_name = sklearn_affinity_propagation(X, damping, n_iter)
    return [
        BenchCase("ssap-g-no-links", lambda: fit("ssap-g"), reference, ref_name, n, d, k, 0,
                  goal=1.3, group="ssap"),
        BenchCase(f"ssap-g-{len(links)}-links", lambda: fit("ssap-g", links), reference, ref_name,
                  n, d, k, len(links), goal=2.0, group="ssap"),
        BenchCase(f"ssap-l-{len(links)}-links", lambda: fit("ssap-l", links), reference, ref_name,
                  n, d, k, len(links), goal=None, group="ssap"),
    ]
