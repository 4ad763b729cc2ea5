"""Active pair selection against active-semi-supervised-clustering (issue 36; test-only peer).

Task: standardised iris and wine (sklearn), K = number of classes, answers from the true labels,
budgets of 10, 20 and 50 queries, seeds 0..S-1 (default S = 10). For each of the peer's
ExploreConsolidate, MinMax, NPU and Random and pairlab's explore-consolidate, minmax, npu and
random, the mean ARI of PCK-means after B queries and the time per query:

* ours: ``pairlab.active.active_learn("pck-means", ...)`` (one loop to 50 queries, refit after every
  answer, the asked pairs as links); "strategy ms/q" is the time inside propose + tell only, "loop
  ms/q" the whole loop (refits included) divided by 50.
* peer: ``np.random.seed(seed)``, ``strategy.fit(X, oracle=ExampleOracle(y, max_queries_cnt=B))``
  (one run per budget), then the peer's PCKMeans on its ``pairwise_constraints_`` (the closure of
  its neighbourhoods: every pair inside one must-linked, every pair across two cannot-linked);
  its NPU gets ``clusterer=PCKMeans(n_clusters=K)`` and refits it itself. "ms/q" is the strategy's
  fit time (NPU: with its refits and random forests) divided by B.
* cross: pairlab's pck-means fitted on the peer's constraints (the same clusterer as "ours", so
  ours vs cross isolates the strategies).

The peer is optional and never a dependency: pip install --no-deps active-semi-supervised-clustering
(its package __init__ imports metric_learn, so its module files are loaded directly here).
Run: python docs/measurements/active_peer.py [SEEDS]
     python docs/measurements/active_peer.py --closure   (ours on the asked pairs vs the closure)
     python docs/measurements/active_peer.py --npu-forest [SEEDS]   (our npu, paper's similarity)
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time
import types

import numpy as np
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from pairlab import Constraints, Dataset, Run
from pairlab.active import active_learn
from pairlab.registry import get_registry

BUDGETS = (10, 20, 50)
PAIRS = (("random", "Random"), ("explore-consolidate", "ExploreConsolidate"), ("minmax", "MinMax"),
         ("npu", "NPU"))


def load_peer() -> dict | None:
    """The peer's strategy classes, ExampleOracle, PCKMeans and EmptyClustersException, or None."""
    spec = importlib.util.find_spec("active_semi_clustering")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = spec.submodule_search_locations[0]
    for name, sub in (("active_semi_clustering", ""), ("active_semi_clustering.semi_supervised",
                      "/semi_supervised"),
                      ("active_semi_clustering.semi_supervised.pairwise_constraints",
                       "/semi_supervised/pairwise_constraints"),
                      ("active_semi_clustering.active", "/active"),
                      ("active_semi_clustering.active.pairwise_constraints",
                       "/active/pairwise_constraints")):
        if name not in sys.modules:  # package stubs: skip the __init__ files (metric_learn)
            pkg = types.ModuleType(name)
            pkg.__path__ = [root + sub]
            sys.modules[name] = pkg
    act = "active_semi_clustering.active.pairwise_constraints."
    out = {peer: getattr(importlib.import_module(act + mod), peer) for mod, peer in (
        ("random", "Random"), ("explore_consolidate", "ExploreConsolidate"), ("min_max", "MinMax"),
        ("npu", "NPU"))}
    out["Oracle"] = importlib.import_module(act + "example_oracle").ExampleOracle
    out["PCKMeans"] = importlib.import_module(
        "active_semi_clustering.semi_supervised.pairwise_constraints.pckmeans").PCKMeans
    out["Empty"] = importlib.import_module("active_semi_clustering.exceptions").EmptyClustersException
    np.seterr(all="warn")  # a peer module may set 'raise' globally on import
    return out


def task(name: str) -> tuple[np.ndarray, np.ndarray]:
    X, y = (load_iris if name == "iris" else load_wine)(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _timed(name: str) -> type:
    """The registered strategy with its propose + tell time summed in ``spent``."""
    base = get_registry().query_strategy(name)

    class Timed(base):  # type: ignore[misc, valid-type]
        spent = 0.0

        def propose(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            try:
                return super().propose(*args, **kwargs)
            finally:
                Timed.spent += time.perf_counter() - t0

        def tell(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            super().tell(*args, **kwargs)
            Timed.spent += time.perf_counter() - t0

    return Timed


def ours(X: np.ndarray, y: np.ndarray, name: str, seed: int, strategy_params: dict | None = None
         ) -> tuple[dict[int, float], float, float]:
    """ARI after each budget, strategy ms per query, loop ms per query."""
    k = int(np.unique(y).size)
    strategy = _timed(name)
    t0 = time.perf_counter()
    r = active_learn("pck-means", Dataset(X, y), strategy, max(BUDGETS), params={"n_clusters": k},
                     strategy_params=strategy_params, seed=seed, metric="ari")
    loop = time.perf_counter() - t0
    by = dict(zip(r.n_queries, r.scores, strict=True))
    return {b: by[b] for b in BUDGETS}, 1e3 * strategy.spent / max(BUDGETS), 1e3 * loop / max(BUDGETS)


def _links(ml: list, cl: list, n: int) -> Constraints:
    def unique(pairs: list) -> list[tuple[int, int]] | None:
        out = sorted({(int(min(i, j)), int(max(i, j))) for i, j in pairs if i != j})
        return out or None

    return Constraints(unique(ml), unique(cl), n_samples=n)


def peer(X: np.ndarray, y: np.ndarray, name: str, budget: int, seed: int, p: dict
         ) -> tuple[float, float, float]:
    """Peer ARI (its PCKMeans), cross ARI (pairlab's pck-means on its links), ms per query."""
    k = int(np.unique(y).size)
    np.random.seed(seed)  # noqa: NPY002 (the peer draws from numpy's global generator)
    make = p[name]
    strategy = make(clusterer=p["PCKMeans"](n_clusters=k)) if name == "NPU" else make(n_clusters=k)
    t0 = time.perf_counter()
    strategy.fit(X, oracle=p["Oracle"](y, max_queries_cnt=budget))
    spent = time.perf_counter() - t0
    ml, cl = strategy.pairwise_constraints_
    for attempt in range(20):
        np.random.seed(seed + 1000 * attempt)  # noqa: NPY002
        try:
            labels = p["PCKMeans"](n_clusters=k).fit(X, ml=list(ml), cl=list(cl)).labels_
            break
        except p["Empty"]:
            continue
    cross = Run("pck-means", Dataset(X), _links(ml, cl, len(y)), {"n_clusters": k}, seed=seed).run()
    return (adjusted_rand_score(y, labels), adjusted_rand_score(y, cross.labels),
            1e3 * spent / budget)


def measure(seeds: range, data: tuple[str, ...] = ("iris", "wine")) -> list[dict]:
    p = load_peer()
    rows = []
    for dname in data:
        X, y = task(dname)
        for mine, theirs in PAIRS:
            o = [ours(X, y, mine, s) for s in seeds]
            row = {"data": dname, "ours": mine, "peer": theirs,
                   "ours_ari": {b: float(np.mean([r[0][b] for r in o])) for b in BUDGETS},
                   "ours_strategy_ms": float(np.median([r[1] for r in o])),
                   "ours_loop_ms": float(np.median([r[2] for r in o]))}
            if p is not None:
                got = {b: [peer(X, y, theirs, b, s, p) for s in seeds] for b in BUDGETS}
                row["peer_ari"] = {b: float(np.mean([g[0] for g in got[b]])) for b in BUDGETS}
                row["cross_ari"] = {b: float(np.mean([g[1] for g in got[b]])) for b in BUDGETS}
                row["peer_ms"] = float(np.median([g[2] for g in got[50]]))
            rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    head = ("| data | strategy | ours 10 / 20 / 50 | peer 10 / 20 / 50 | peer links + our "
            "PCK-means | ours ms/q (strategy; loop) | peer ms/q |\n|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        def f(d):
            return " / ".join(f"{d[b]:.3f}" for b in BUDGETS) if d else "-"
        lines.append(f"| {r['data']} | {r['ours']} | {f(r['ours_ari'])} | {f(r.get('peer_ari'))} | "
                     f"{f(r.get('cross_ari'))} | {r['ours_strategy_ms']:.2f}; {r['ours_loop_ms']:.1f} "
                     f"| {r.get('peer_ms', float('nan')):.1f} |")
    return "\n".join(lines)


def closure_check(seeds: range = range(5)) -> list[str]:
    """Our explore-consolidate / minmax driven 50 queries (answers from the labels, no refits);
    our PCK-means on the asked pairs vs on the closure of the strategy's neighbourhoods (what the
    peer hands its clusterer): mean ARI per data set."""
    out = []
    for dname in ("iris", "wine"):
        X, y = task(dname)
        k, n = int(np.unique(y).size), len(y)
        for name in ("explore-consolidate", "minmax"):
            asked_only, closure = [], []
            for seed in seeds:
                s = get_registry().query_strategy(name)(Dataset(X, y), k, {},
                                                          np.random.default_rng(seed))
                ml, cl = [], []
                for _ in range(max(BUDGETS)):
                    i, j = (int(v) for v in s.propose(Constraints.empty(n))[0])
                    same = bool(y[i] == y[j])
                    s.tell((i, j), same)
                    (ml if same else cl).append((i, j))
                hoods = s.hoods
                cml = [(p, q) for h in hoods for x, p in enumerate(h) for q in h[x + 1:]]
                ccl = [(p, q) for a in range(len(hoods)) for b in range(a + 1, len(hoods))
                       for p in hoods[a] for q in hoods[b]]
                for links, into in ((_links(ml, cl, n), asked_only), (_links(cml, ccl, n), closure)):
                    run = Run("pck-means", Dataset(X), links, {"n_clusters": k}, seed=seed).run()
                    into.append(adjusted_rand_score(y, run.labels))
            out.append(f"{dname} {name}: asked pairs {np.mean(asked_only):.3f}, neighbourhood "
                       f"closure {np.mean(closure):.3f} ({len(cml) + len(ccl)} links, last seed)")
    return out


def npu_forest(seeds: range) -> list[str]:
    """Our npu with the paper's random-forest similarity (50 trees, as the peer): ARI after each
    budget and ms per query, per data set."""
    out = []
    for dname in ("iris", "wine"):
        X, y = task(dname)
        o = [ours(X, y, "npu", s, {"similarity": "random-forest"}) for s in seeds]
        ari = " / ".join(f"{np.mean([r[0][b] for r in o]):.3f}" for b in BUDGETS)
        out.append(f"{dname} npu random-forest: {ari}; {np.median([r[1] for r in o]):.1f} ms/q "
                   f"(strategy), {np.median([r[2] for r in o]):.1f} ms/q (loop)")
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--closure"]:
        print("\n".join(closure_check()))
    elif sys.argv[1:2] == ["--npu-forest"]:
        print("\n".join(npu_forest(range(int(sys.argv[2]) if len(sys.argv) > 2 else 10))))
    else:
        n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
        print(table(measure(range(n))))
