"""RDP-means past the bench's size (issue 37; not in --quick).

* ``rdpmeans-1e5-pass-P``: one RDP-means pass against one DP-means pass at n = 100,000 with about
  200 partners a point (10 million links), as :mod:`.rdpmeans` does at n = 20,000: each run from
  its own one-cluster start, one more pass timed from the state after P - 1 passes (goal: at most
  3x for every pass after the first). The passes timed are the first (no goal), 2, and the heavy
  ones where ξ first outweighs the distances (12-14 at this size) plus a late one.
* ``rdpmeans-1e6-whole-run``: a whole run (``Run`` from the data to convergence) at n = 1,000,000
  with 10 million links (20 partners a point), in a fresh process with one thread so that its peak
  memory (``ru_maxrss``, which includes making the data and the links) is its own. Goal: under
  2 minutes and 8 GiB. The time is the run's (``total_s``: building the ``Run`` and running it);
  the process's wall time, with the interpreter's start and making the data and the ten million
  links (about 35 s), is reported beside it (``process_seconds``).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time

from pairlab.bench import BenchCase

from .rdpmeans import linked_blobs

PASS_N, PARTNERS, PASSES = 100_000, 200, (1, 2, 12, 13, 14, 20)
RUN_N, RUN_LINKS = 1_000_000, 10_000_000
BUDGET_SECONDS, BUDGET_GIB = 120.0, 8.0


@functools.cache
def _runs(n: int, last: int) -> tuple:
    """Both runs advanced ``last`` passes; built on first use, so ``--only other`` costs nothing."""
    from pairlab.dataset import Dataset
    from pairlab.run import Run

    X, _, cons = linked_blobs(n, 10, PARTNERS / (n - 1))
    rdp = Run("rdpmeans", Dataset(X), cons, {"k": 10}, seed=0)
    dp = Run("dpmeans", Dataset(X), None, {"k": 10}, seed=0)
    for _ in range(last):
        rdp.step()
        dp.step()
    return rdp, dp


def _pass(which: int, at: int, info: dict | None = None) -> object:
    runs = _runs(PASS_N, max(PASSES))
    if info is not None and not info:
        rdp, dp = (r.history[at] for r in runs)
        info.update({"RDP-means moves": rdp.extras["n_changed"], "clusters": len(rdp.model["centers"]),
                     "DP-means moves": dp.extras["n_changed"], "DP-means clusters": len(dp.model["centers"])})
    return runs[which].algorithm.step(runs[which].history[at - 1])


def child(n: int, n_links: int) -> dict:
    """One whole run at ``n`` points with ``n_links`` links, measured in this process."""
    import resource

    from threadpoolctl import threadpool_limits

    from pairlab.dataset import Dataset
    from pairlab.run import Run

    X, _, cons = linked_blobs(n, 10, (n_links + 0.5) / (n * (n - 1) / 2))  # exactly n_links
    with threadpool_limits(1):
        start = time.perf_counter()
        cpu = time.process_time()
        run = Run("rdpmeans", Dataset(X), cons, {"k": 10}, seed=0)
        built = time.perf_counter()
        run.run()
        done = time.perf_counter()
        cpu = time.process_time() - cpu
    st = run.state
    return {
        "total_s": round(done - start, 1), "cpu_s": round(cpu, 1), "setup_s": round(built - start, 1),
        "passes": run.n_iter, "converged": bool(run.converged),
        "clusters": int(st.labels.max()) + 1, "links": int(cons.n_must_link + cons.n_cannot_link),
        "peak_GiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
    }


def _whole_run_case() -> BenchCase:
    info: dict = {}

    def subject() -> None:
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
        code = ("import json, sys; from pairlab.benchcases.rdpmeans_scale import child; "
                "print(json.dumps(child(int(sys.argv[1]), int(sys.argv[2]))))")
        out = subprocess.run([sys.executable, "-c", code, str(RUN_N), str(RUN_LINKS)], env=env,
                             capture_output=True, text=True, check=True)
        got = json.loads(out.stdout.strip().splitlines()[-1])
        got["within budget"] = got["total_s"] <= BUDGET_SECONDS and got["peak_GiB"] < BUDGET_GIB
        info.clear()
        info.update(got)

    return BenchCase("rdpmeans-1e6-whole-run", subject, None,
                     f"budget {BUDGET_SECONDS:.0f} s and {BUDGET_GIB:g} GiB", RUN_N, 2, 10, RUN_LINKS,
                     group="rdpmeans-scale", goal_seconds=BUDGET_SECONDS, repeats=1, info=info,
                     seconds_key="total_s")


def cases(quick: bool) -> list[BenchCase]:
    if quick:
        return []
    links = PASS_N * PARTNERS // 2
    out = []
    for p in PASSES:
        info: dict = {}
        out.append(BenchCase(f"rdpmeans-1e5-pass-{p}", functools.partial(_pass, 0, p, info),
                             functools.partial(_pass, 1, p), f"DP-means pass {p} (dpmeans plugin)",
                             PASS_N, 2, 10, links, goal=3.0 if p > 1 else None,
                             group="rdpmeans-scale", info=info))
    return [*out, _whole_run_case()]
