"""SCSSAP and affinity propagation against scikit-learn's AffinityPropagation.

One unit of work is a whole fit of a fixed number of iterations (convergence checks disabled on
both sides), from the data: similarities, median preference, tie noise, the iterations, the
exemplars. pairlab's side also builds a State (labels, exemplars, net similarity) every iteration.
``affinity-propagation-vs-scssap`` times AP (``refine`` exemplars every state) against ``scssap``
without links on the same data, goal ratio <= 1.0 (issue 23): both step through one message engine,
so the ratio is the cost of the exemplar rule.
"""

from __future__ import annotations

import warnings

import numpy as np

from pairlab.bench import BenchCase
from pairlab.benchcases.gmm import blobs
from pairlab.dataset import Dataset
from pairlab.links import random_pairs
from pairlab.run import Run


def sklearn_affinity_propagation(X: np.ndarray, damping: float, n_iter: int):
    """scikit-learn's AffinityPropagation for exactly ``n_iter`` iterations as a bench reference,
    and its name (None and a note when scikit-learn is missing)."""
    try:
        from sklearn.cluster import AffinityPropagation
    except ImportError:
        return None, "scikit-learn unavailable"

    def reference() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return AffinityPropagation(damping=damping, max_iter=n_iter,
                                       convergence_iter=n_iter + 1, random_state=0).fit(X)

    return reference, f"scikit-learn AffinityPropagation, {n_iter} iterations"


def cases(quick: bool) -> list[BenchCase]:
    n, d, k, n_iter = (400, 2, 4, 50) if quick else (2000, 2, 4, 50)
    X, y = blobs(n, d, k, std=1.5)
    data = Dataset(X)
    links = random_pairs(y, 500 if not quick else 100, 500 if not quick else 100,
                         np.random.default_rng(1))
    damping = 0.75
    fixed = {"max_iter": n_iter, "convergence_iter": n_iter + 1, "damping": damping}

    def fit(name: str, constraints=None) -> object:
        run = Run(name, data, constraints, fixed, seed=0)
        run.run()
        return run.state

    reference, ref_name = sklearn_affinity_propagation(X, damping, n_iter)
    return [
        BenchCase("scssap-no-links", lambda: fit("scssap"), reference, ref_name, n, d, k, 0,
                  goal=1.5, group="scssap"),
        BenchCase(f"scssap-{len(links)}-links", lambda: fit("scssap", links), reference, ref_name,
                  n, d, k, len(links), goal=3.0, group="scssap"),
        BenchCase("affinity-propagation", lambda: fit("affinity-propagation"), reference, ref_name,
                  n, d, k, 0, goal=None, group="scssap"),
        # one message core for both: AP costs what scssap without links costs (issue 23)
        BenchCase("affinity-propagation-vs-scssap", lambda: fit("affinity-propagation"),
                  lambda: fit("scssap"), f"scssap without links, {n_iter} iterations", n, d, k, 0,
                  goal=1.0, group="scssap"),
    ]
