"""Whole CSC/SSKK run on a k-nearest-neighbour affinity: python csc_sparse_scale.py N ALGO K [INIT]
(INIT: SSKK's ``init``, e.g. spectral; the ARI against the blobs' classes is printed too)."""

import resource
import sys
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score

from pairlab.benchcases.gmm import blobs
from pairlab.dataset import Dataset
from pairlab.links import random_pairs
from pairlab.run import Run

n, algo, k = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
X, y = blobs(n, 2, 4, std=1.5)
links = random_pairs(y, 500, 500, np.random.default_rng(1))
t, cpu = time.perf_counter(), time.process_time()
extra = {"init": sys.argv[4]} if len(sys.argv) > 4 else {}
state = Run(algo, Dataset(X), links, {"n_clusters": 4, "n_neighbors": k, **extra}, seed=0).run()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(f"{algo} n={n}: {time.perf_counter() - t:.1f} s wall, {time.process_time() - cpu:.1f} s CPU, "
      f"{rss:.2f} GiB peak RSS, "
      f"{state.iteration} iterations, ARI {adjusted_rand_score(y, state.labels):.3f}")
