"""SSKK's quality (ARI against the blobs' classes) on the dense RBF kernel and on the sparse kNN
kernel (``n_neighbors``), with and without links, by initialisation (issue 37).

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/sskk_sparse_quality.py N [N ...]`` (4 blobs
in 2-D, std 1.5, 500 must-links and 500 cannot-links, seed 0, as ``csc_sparse_scale.py``). Options:
``--sparse-only`` skips the dense kernel (n x n memory and an O(n^3) eigensolver);
``--dense-paper`` runs the dense kernel with the paper's start (farthest-first) only;
``--inits=a,b`` chooses the starts among farthest-first, k-means++, spectral and true-centres
(``means_init`` = the classes' means: a start that is already right).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score
from threadpoolctl import threadpool_limits

from pairlab.benchcases.gmm import blobs
from pairlab.dataset import Dataset
from pairlab.links import random_pairs
from pairlab.run import Run


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:] if not a.startswith("--")] or [2000]
    kernels = [("knn10", {"n_neighbors": 10}), ("knn30", {"n_neighbors": 30})]
    if "--sparse-only" not in sys.argv:
        kernels.insert(0, ("dense", {}))
    chosen = [a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--inits=")]
    all_inits = chosen[0] if chosen else ["farthest-first", "k-means++", "spectral"]
    for n in sizes:
        X, y = blobs(n, 2, 4, std=1.5)
        links = random_pairs(y, 500, 500, np.random.default_rng(1))
        centres = np.array([X[y == c].mean(axis=0) for c in range(4)])
        for name, extra in kernels:
            for cons in (links, None):
                inits = all_inits[:1] if name == "dense" and "--dense-paper" in sys.argv else all_inits
                for init in inits:
                    start = ({"means_init": centres} if init == "true-centres" else {"init": init})
                    t = time.perf_counter()
                    with threadpool_limits(1):
                        state = Run("sskk", Dataset(X), cons, {"n_clusters": 4, **start, **extra},
                                    seed=0).run()
                    print(f"n={n} {name:5s} links={'yes' if cons else 'no ':3s} {init:14s} "
                          f"ARI {adjusted_rand_score(y, state.labels):.3f}  sigma "
                          f"{state.extras['sigma']:.2f}  iterations {state.iteration:3d}  "
                          f"{time.perf_counter() - t:6.1f} s", flush=True)


if __name__ == "__main__":
    main()
