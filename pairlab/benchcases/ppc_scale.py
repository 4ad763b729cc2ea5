"""PPC with mean field on a 512 x 512 image grid (issue 37; not in --quick).

* ``ppc-mean-field-512-iteration``: one EM iteration of PPC with mean field on the 262,144 points of
  :func:`~pairlab.benchcases.ppc.texture_grid` (4-neighbour relations, 523,264 links, eq. 5.2's
  weight) against one plain GMM EM iteration from the same start (goal: at most 5x).
* ``ppc-mean-field-memory``: peak memory a PPC run of 3 EM iterations allocates on grids of side
  128, 256 and 512, each in a fresh process (``tracemalloc``'s peak over the run: every numpy and
  scipy array it allocates, not the data made before it; ``ru_maxrss`` would hide the run under the
  grid's own larger temporaries); ``info`` has the bytes per point and the exponent of a log-log
  fit against n (linear: 1). Report only; the goal is "memory linear in n".
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import numpy as np

from pairlab.bench import BenchCase

SIDE, D, K = 512, 5, 4
MEMORY_SIDES = (128, 256, 512)


@functools.cache
def _runs(side: int) -> tuple:
    """PPC (mean field) and GMM runs from the same start; built on first use."""
    from pairlab.dataset import Dataset
    from pairlab.run import Run

    from .ppc import texture_grid

    X, _, cons, w = texture_grid(side, D, K)
    data = Dataset(X)
    gmm = Run("gmm", data, params={"n_components": K}, seed=0)
    start = gmm.state.model
    init = {"n_components": K, "weights_init": start["weights"], "means_init": start["means"],
            "covariances_init": start["covariances"]}
    ppc = Run("ppc", data, cons, params={**init, "inference": "mean-field", "must_link_weight": w},
              seed=0)
    return ppc, gmm, cons.n_must_link


def _step(which: int) -> object:
    run = _runs(SIDE)[which]
    return run.algorithm.step(run.history[0])


def child(side: int) -> dict:
    """Peak memory of a 3-iteration PPC mean-field run on a side x side grid (fresh process)."""
    import tracemalloc

    from threadpoolctl import threadpool_limits

    from pairlab.dataset import Dataset
    from pairlab.run import Run

    from .ppc import texture_grid

    X, _, cons, w = texture_grid(side, D, K)
    data = Dataset(X)
    tracemalloc.start()
    with threadpool_limits(1):
        Run("ppc", data, cons, params={"n_components": K, "inference": "mean-field",
                                        "must_link_weight": w, "max_iter": 3, "tol": 0.0},
            seed=0).run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"n": side * side, "peak_bytes": peak}


def memory_profile(sides: tuple[int, ...] = MEMORY_SIDES) -> dict:
    """:func:`child` at each side; bytes per point and the log-log exponent of the growth."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    code = ("import json, sys; from pairlab.benchcases.ppc_scale import child; "
            "print(json.dumps(child(int(sys.argv[1]))))")
    rows = []
    for side in sides:
        out = subprocess.run([sys.executable, "-c", code, str(side)], env=env, capture_output=True,
                             text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    n = np.array([r["n"] for r in rows], dtype=float)
    used = np.array([float(r["peak_bytes"]) for r in rows])
    exponent = float(np.polyfit(np.log(n), np.log(np.maximum(used, 1.0)), 1)[0])
    return {"n": [int(x) for x in n], "MiB": [round(float(u) / 2**20, 1) for u in used],
            "bytes_per_point": [round(float(u / m)) for u, m in zip(used, n, strict=True)],
            "exponent": round(exponent, 2)}


def _memory_case() -> BenchCase:
    info: dict = {}

    def subject() -> None:
        info.clear()
        info.update(memory_profile())

    return BenchCase("ppc-mean-field-memory", subject, None, "report: peak memory vs n",
                     SIDE * SIDE, D, K, 2 * SIDE * (SIDE - 1), group="ppc-scale", repeats=1, info=info)


def cases(quick: bool) -> list[BenchCase]:
    if quick:
        return []
    links = 2 * SIDE * (SIDE - 1)
    return [BenchCase("ppc-mean-field-512-iteration", functools.partial(_step, 0),
                      functools.partial(_step, 1), "plain GMM EM iteration (gmm plugin)",
                      SIDE * SIDE, D, K, links, goal=5.0, group="ppc-scale"),
            _memory_case()]
