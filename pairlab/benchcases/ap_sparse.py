"""Sparse affinity propagation at scale: whole runs with ``n_neighbors=10`` (not in --quick).

AP on 100,000 two-dimensional points, and SCSSAP on the same data with 10,000 random links
(5,000 must-links inside blobs, 5,000 cannot-links across), each a complete ``Run`` (default
``max_iter`` 200 and ``convergence_iter`` 15) from the data, in a fresh process with one BLAS
thread so that its peak memory (``ru_maxrss``: Python, numpy, the data, the graph, the messages and
the run's history of states) is its own. Goal from issue 23: each under 3 minutes and 2 GiB. The
time per iteration against n is in the scaling section (``affinity-propagation n_neighbors=10``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from pairlab.bench import BenchCase

BUDGET_SECONDS = 180.0
BUDGET_GIB = 2.0


def child(name: str, n: int, n_links: int) -> dict:
    """One whole run, measured in this process (called in a fresh interpreter)."""
    import resource

    import numpy as np
    from threadpoolctl import threadpool_limits

    from pairlab.benchcases.gmm import blobs
    from pairlab.dataset import Dataset
    from pairlab.links import random_pairs
    from pairlab.run import Run

    X, y = blobs(n, 2, 4, std=1.5)
    cons = random_pairs(y, n_links // 2, n_links - n_links // 2, np.random.default_rng(1)) \
        if n_links else None
    with threadpool_limits(1):
        start = time.perf_counter()
        run = Run(name, Dataset(X), cons, {"n_neighbors": 10}, seed=0)
        built = time.perf_counter()
        run.run()
        done = time.perf_counter()
    st = run.state
    return {
        "total_s": round(done - start, 1), "setup_s": round(built - start, 1),
        "iterations": run.n_iter, "s_per_iteration": round((done - built) / run.n_iter, 3),
        "converged": bool(run.converged), "clusters": int(st.labels.max()) + 1,
        "broken_links": int(st.extras["broken_must_links"] + st.extras["broken_cannot_links"]),
        "edges": int(run.algorithm._engine.graph.nnz),
        "peak_GiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
    }


def _case(name: str, n: int, n_links: int) -> BenchCase:
    info: dict = {}

    def subject() -> None:
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1"}
        code = ("import json, sys; from pairlab.benchcases.ap_sparse import child; "
                "print(json.dumps(child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))")
        out = subprocess.run([sys.executable, "-c", code, name, str(n), str(n_links)], env=env,
                             capture_output=True, text=True, check=True)
        got = json.loads(out.stdout.strip().splitlines()[-1])
        got["within budget"] = got["total_s"] <= BUDGET_SECONDS and got["peak_GiB"] < BUDGET_GIB
        info.clear()
        info.update(got)

    label = f"{name}-n_neighbors-10-{n // 1000}k"
    return BenchCase(label, subject, None, f"budget {BUDGET_SECONDS:.0f} s and {BUDGET_GIB} GiB",
                     n, 2, 4, n_links, group="ap-sparse", goal_seconds=BUDGET_SECONDS, repeats=1,
                     info=info, seconds_key="total_s")


def cases(quick: bool) -> list[BenchCase]:
    if quick:
        return []
    return [_case("affinity-propagation", 100_000, 0), _case("scssap", 100_000, 10_000)]
