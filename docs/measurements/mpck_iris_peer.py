"""MPCK-means on standardised iris against active-semi-supervised-clustering's MPCKMeans (issue 31).

Task: standardised iris, K = 3, 60 label-consistent links (random_pairs(y, 20, 40, default_rng(seed)),
seeds 0-19); mean +- std ARI, ms a fit, mean must-links / cannot-links broken. pairlab variants:
metric_scope x metric x cannot_link_penalty at the default E-step (assignment="best"), then the
peer's differences one at a time on the old E-step (assignment="icm", shared metric): links closed
transitively, passes from no labels (assignment="fresh"), doubled weights, data order, f_C farthest,
max_iter 10. The peer (MPCK-means-S-D: one shared diagonal metric,
max_iter 10) seeds numpy's global generator with the seed; it raises EmptyClustersException on some
seeds, and those seeds are rerun with seed + 1000 * attempt (counted in "retries").
The peer is optional: pip install --no-deps active-semi-supervised-clustering (it imports metric_learn
from its package __init__, so its mpckmeans module is loaded from its file here).
Run: python docs/measurements/mpck_iris_peer.py
     python docs/measurements/mpck_iris_peer.py --objectives   (final J of each E-step mode only)
"""

import importlib.util
import sys
import time
import types

import numpy as np
from sklearn.datasets import load_iris
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from pairlab import Constraints, Dataset, Run
from pairlab.links import random_pairs


def load_peer():
    """The peer's MPCKMeans class and its EmptyClustersException, or None when not installed."""
    if "active_semi_clustering" in sys.modules:
        del sys.modules["active_semi_clustering"]
    spec = importlib.util.find_spec("active_semi_clustering")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = spec.submodule_search_locations[0]
    pkg = types.ModuleType("active_semi_clustering")
    pkg.__path__ = [root]  # skip its __init__ (needs metric_learn)
    sys.modules.setdefault("active_semi_clustering", pkg)
    sub = types.ModuleType("active_semi_clustering.semi_supervised")
    sub.__path__ = [root + "/semi_supervised"]
    sys.modules.setdefault("active_semi_clustering.semi_supervised", sub)
    pc = types.ModuleType("active_semi_clustering.semi_supervised.pairwise_constraints")
    pc.__path__ = [root + "/semi_supervised/pairwise_constraints"]
    sys.modules.setdefault("active_semi_clustering.semi_supervised.pairwise_constraints", pc)
    from active_semi_clustering.exceptions import EmptyClustersException
    from active_semi_clustering.semi_supervised.pairwise_constraints.mpckmeans import MPCKMeans
    np.seterr(all="warn")  # the module sets 'raise' globally on import
    return MPCKMeans, EmptyClustersException


def broken(labels, cons):
    ml, cl = cons.must_link, cons.cannot_link
    return (int((labels[ml[:, 0]] != labels[ml[:, 1]]).sum()),
            int((labels[cl[:, 0]] == labels[cl[:, 1]]).sum()))


def task():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def closed(cons):
    """The links' transitive closure (what the peer and the authors' WekaUT code cluster with):
    every pair inside a must-link chunklet, every pair across two cannot-linked chunklets."""
    groups = [np.flatnonzero(cons.chunklet_index == c) for c in range(cons.n_chunklets)]
    ml = [(a, b) for g in groups for i, a in enumerate(g) for b in g[i + 1:]]
    cl = {tuple(sorted((int(a), int(b)))) for u, v in cons.chunklet_cannot_link
          for a in groups[u] for b in groups[v]}
    return Constraints(np.array(ml, dtype=int).reshape(-1, 2), np.array(sorted(cl), dtype=int).reshape(-1, 2),
                       n_samples=cons.n_samples)


def pairlab_row(X, y, params, seeds=range(20), close=False):
    aris, times, brk = [], [], []
    for seed in seeds:
        cons = random_pairs(y, 20, 40, np.random.default_rng(seed))
        use = closed(cons) if close else cons
        t0 = time.perf_counter()
        labels = Run("mpck-means", Dataset(X), use, {"n_clusters": 3, **params}, seed=seed).run().labels
        times.append(time.perf_counter() - t0)
        aris.append(adjusted_rand_score(y, labels))
        brk.append(broken(labels, cons))
    return np.array(aris), np.median(times), np.mean(brk, axis=0)


def peer_row(X, y, peer, seeds=range(20)):
    MPCK, Empty = peer
    aris, times, brk, retries = [], [], [], 0
    for seed in seeds:
        cons = random_pairs(y, 20, 40, np.random.default_rng(seed))
        for attempt in range(20):
            np.random.seed(seed + 1000 * attempt)  # noqa: NPY002 (the peer draws from the global generator)
            t0 = time.perf_counter()
            try:
                m = MPCK(n_clusters=3).fit(X, ml=[tuple(p) for p in cons.must_link.tolist()],
                                           cl=[tuple(p) for p in cons.cannot_link.tolist()])
                break
            except Empty:
                retries += 1
        times.append(time.perf_counter() - t0)
        aris.append(adjusted_rand_score(y, m.labels_))
        brk.append(broken(m.labels_, cons))
    return np.array(aris), np.median(times), np.mean(brk, axis=0), retries


def objectives(X, y, seeds=range(20)):
    """Final J (eq. 3) of each E-step mode on the same link sets: in how many sets each mode ends
    lower than icm."""
    for metric in ("diagonal", "full"):
        J = {}
        for mode in ("icm", "fresh", "best"):
            p = {"n_clusters": 3, "metric_scope": "shared", "metric": metric, "assignment": mode}
            links = [random_pairs(y, 20, 40, np.random.default_rng(s)) for s in seeds]
            J[mode] = np.array([Run("mpck-means", Dataset(X), c, p, seed=s).run().objective
                                for s, c in zip(seeds, links, strict=True)])
        print(f"shared {metric}: mean final J icm {J['icm'].mean():.1f}, fresh {J['fresh'].mean():.1f}, "
              f"best {J['best'].mean():.1f}; lower than icm in {int((J['fresh'] < J['icm']).sum())} (fresh) "
              f"and {int((J['best'] < J['icm']).sum())} (best) of {len(seeds)} link sets")


def main():
    X, y = task()
    if "--objectives" in sys.argv:
        objectives(X, y)
        return
    print("| implementation | ARI mean +- std (min) | ms a fit (median) | ML / CL broken a fit |")
    print("|---|---|---|---|")
    for scope in ("per-cluster", "shared"):
        for metric in ("diagonal", "full"):
            for fc in ("bound", "farthest"):
                p = {"metric_scope": scope, "metric": metric, "cannot_link_penalty": fc}
                a, t, b = pairlab_row(X, y, p)
                print(f"| pairlab {scope}, {metric}, f_C {fc} | {a.mean():.3f} +- {a.std():.3f} "
                      f"({a.min():.3f}) | {1e3 * t:.0f} | {b[0]:.2f} / {b[1]:.2f} |", flush=True)
    print("\n| one difference at a time (shared, assignment icm) | ARI | ms | ML / CL broken |")
    print("|---|---|---|---|")
    for metric in ("diagonal", "full"):
        base = {"metric_scope": "shared", "metric": metric, "assignment": "icm"}
        for label, extra, close in (("none (before)", {}, False), ("links closed", {}, True),
                                    ("assignment fresh", {"assignment": "fresh"}, False),
                                    ("weights 2", {"must_link_weight": 2.0,
                                                   "cannot_link_weight": 2.0}, False),
                                    ("order data", {"order": "data"}, False),
                                    ("f_C farthest", {"cannot_link_penalty": "farthest"}, False),
                                    ("max_iter 10", {"max_iter": 10}, False),
                                    ("assignment best (now the default)", {"assignment": "best"}, False)):
            a, t, b = pairlab_row(X, y, {**base, **extra}, close=close)
            print(f"| {metric}: {label} | {a.mean():.3f} +- {a.std():.3f} ({a.min():.3f}) | {1e3 * t:.0f} "
                  f"| {b[0]:.2f} / {b[1]:.2f} |", flush=True)
    peer = load_peer()
    if peer is None:
        print("peer not installed")
        return
    a, t, b, r = peer_row(X, y, peer)
    print(f"| active-semi-supervised-clustering MPCKMeans (S-D) | {a.mean():.3f} +- {a.std():.3f} "
          f"({a.min():.3f}) | {1e3 * t:.0f} | {b[0]:.2f} / {b[1]:.2f} | retries {r}")


if __name__ == "__main__":
    main()
