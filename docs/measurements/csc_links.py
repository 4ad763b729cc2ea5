"""CSC with and without links (issue 31): three blobs and standardised iris, one protocol.

Blobs: 40 points each, N(0, 0.7^2) around centres (0, 0), (5, 0), (0, 5) (seed 0), K = 3; four
links inside blobs (must), four across blobs (cannot), or both; ARI against the blobs. Iris:
standardised, K = 3, 60 label-consistent links (20 must, 40 cannot; random_pairs, seeds 0-19);
mean +- std ARI, with the default affinity (the authors' exp(-sum_m (x_m - y_m)^2 / (2 var_m)),
``bandwidth_rule="variance"``), GM-PR's (mean squared distance, ``"mean-sq"``, the default before)
and bandwidth 1 (scikit-learn's SpectralClustering affinity, gamma = 1), with SpectralClustering
without links (random_state = seed). Each beta rule; "zero" is the rule before issue 31 (the same
code path as the old default).
Run: python docs/measurements/csc_links.py
"""

import time

import numpy as np
from sklearn.cluster import SpectralClustering
from sklearn.datasets import load_iris
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from pairlab import Constraints, Dataset, Run
from pairlab.links import random_pairs


def blobs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    centres = np.array([(0.0, 0.0), (5.0, 0.0), (0.0, 5.0)])
    X = np.vstack([c + 0.7 * rng.normal(size=(40, 2)) for c in centres])
    return X, np.repeat(np.arange(3), 40)


def iris_row(Xi: np.ndarray, yi: np.ndarray, params: dict) -> str:
    aris, times = [], []
    for seed in range(20):
        cons = random_pairs(yi, 20, 40, np.random.default_rng(seed))
        t0 = time.perf_counter()
        labels = Run("csc", Dataset(Xi), cons, {"n_clusters": 3, **params}, seed=seed).run().labels
        times.append(time.perf_counter() - t0)
        aris.append(adjusted_rand_score(yi, labels))
    nolink = Run("csc", Dataset(Xi), None, {"n_clusters": 3, **params}, seed=0).run().labels
    return (f"ARI {np.mean(aris):.3f} +- {np.std(aris):.3f} (min {min(aris):.3f}), "
            f"{1000 * np.median(times):.1f} ms a fit; no links {adjusted_rand_score(yi, nolink):.3f}")


def main() -> None:
    X, y = blobs()
    ml = np.array([[0, 1], [40, 41], [80, 81], [2, 3]])
    cl = np.array([[0, 40], [0, 80], [40, 80], [5, 45]])
    Xi, yi = load_iris(return_X_y=True)
    Xi = StandardScaler().fit_transform(Xi)
    sk = [adjusted_rand_score(yi, SpectralClustering(3, random_state=s).fit(Xi).labels_)
          for s in range(20)]
    print(f"iris SpectralClustering (rbf, gamma 1) no links: ARI {np.mean(sk):.3f} +- "
          f"{np.std(sk):.3f}")
    affinities = (("variance", {}), ("mean-sq", {"bandwidth_rule": "mean-sq"}),
                  ("bandwidth 1", {"bandwidth": 1.0}))
    for rule in ("zero", "authors", "blend"):
        for name, aff in affinities[:2]:
            out = []
            for m, c in ((ml, None), (None, cl), (ml, cl)):
                cons = Constraints(m, c, n_samples=120)
                labels = Run("csc", Dataset(X), cons, {"n_clusters": 3, "beta_rule": rule, **aff},
                             seed=0).run().labels
                out.append(f"{adjusted_rand_score(y, labels):.3f} ({np.bincount(labels).max()})")
            print(f"[{rule}] blobs, {name}: ARI (largest cluster) must / cannot / both: "
                  f"{' / '.join(out)}")
        for name, aff in affinities:
            row = iris_row(Xi, yi, {"beta_rule": rule, **aff})
            print(f"[{rule}] iris {name}, 60 links: {row}")


if __name__ == "__main__":
    main()
