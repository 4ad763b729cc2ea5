"""COP-KMeans on standardised iris (issue 31): failures of the greedy pass (Table 1, 10 restarts)
and of the backtracking search over 100 label-consistent link sets (random_pairs(y, 20, 40,
default_rng(seed)), seeds 0-99), K = 3, defaults otherwise; ARI over the successful fits, median
ms a fit, links broken in total.
Run: python docs/measurements/cop_kmeans_iris.py
"""

import time

import numpy as np
from pairlab_builtins.algorithms.cop_kmeans import InfeasibleAssignmentError
from sklearn.datasets import load_iris
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from pairlab import Dataset, Run
from pairlab.links import random_pairs


def main() -> None:
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    for search in ("greedy", "backtracking"):
        fail, aris, times, broken = 0, [], [], 0
        for seed in range(100):
            cons = random_pairs(y, 20, 40, np.random.default_rng(seed))
            t0 = time.perf_counter()
            try:
                lab = Run("cop-kmeans", Dataset(X), cons, {"n_clusters": 3, "search": search},
                          seed=seed).run().labels
            except InfeasibleAssignmentError:
                fail += 1
                continue
            times.append(time.perf_counter() - t0)
            aris.append(adjusted_rand_score(y, lab))
            ml, cl = cons.must_link, cons.cannot_link
            broken += int((lab[ml[:, 0]] != lab[ml[:, 1]]).sum() + (lab[cl[:, 0]] == lab[cl[:, 1]]).sum())
        print(f"{search}: failed {fail}/100, ARI {np.mean(aris):.3f} +- {np.std(aris):.3f}, "
              f"{1e3 * np.median(times):.0f} ms a fit, links broken {broken}")


if __name__ == "__main__":
    main()
