import resource
import sys
import time

import numpy as np

from pairlab.benchcases.gmm import blobs
from pairlab.dataset import Dataset
from pairlab.links import random_pairs
from pairlab.run import Run

n = int(sys.argv[1]); algo = sys.argv[2]
X, y = blobs(n, 2, 4, std=1.5)
links = random_pairs(y, 500, 500, np.random.default_rng(1))
t = time.perf_counter()
r = Run(algo, Dataset(X), links, {"n_clusters": 4, "n_neighbors": int(sys.argv[3])}, seed=0)
st = r.run()
print(algo, n, "wall", round(time.perf_counter()-t, 1), "s; maxrss", round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/2**20, 2), "GiB; iters", st.iteration)
