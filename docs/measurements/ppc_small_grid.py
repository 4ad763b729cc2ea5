"""PPC mean field on the bench's texture grid at small sides (issue 37, the `--quick` case).

    python docs/measurements/ppc_small_grid.py SIDE REPS
        one EM iteration (PPC, mean field) with stale-node sweeps forced on and off, against one
        GMM iteration: CPU time, medians of REPS interleaved runs, and the sweeps of the E-step
    python docs/measurements/ppc_small_grid.py SIDE REPS REV
        the bench's first E-step (``mean_field_sweeps`` on the same arguments, automatic choice)
        with the module of git revision REV against this tree's: CPU medians, equality of Q

Run with OPENBLAS_NUM_THREADS=1, as the bench does.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pairlab_builtins.algorithms.ppc_mean_field as mf
import pairlab_builtins.algorithms.ppc_posteriors as pp

from pairlab.benchcases.ppc import texture_grid
from pairlab.dataset import Dataset
from pairlab.run import Run

MODULE = "plugins/pairlab_builtins/algorithms/ppc_mean_field.py"


def runs(side: int) -> tuple[Run, Run]:
    X, _, cons, w = texture_grid(side)
    data = Dataset(X)
    gmm = Run("gmm", data, params={"n_components": 4}, seed=0)
    m = gmm.state.model
    init = {"n_components": 4, "weights_init": m["weights"], "means_init": m["means"],
            "covariances_init": m["covariances"], "inference": "mean-field", "must_link_weight": w}
    return gmm, Run("ppc", data, cons, params=init, seed=0)


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def on_and_off(side: int, reps: int) -> None:
    gmm, ppc = runs(side)
    real, sweeps = mf.mean_field_sweeps, []

    def forced(active: bool):
        def call(*args):
            Q, it = real(*args[:7], active_set=active)
            sweeps.append(it)
            return Q, it
        return call

    out: dict[str, list[float]] = {}
    for _ in range(reps):
        out.setdefault("gmm", []).append(cpu(lambda: gmm.algorithm.step(gmm.state)))
        for name, active in (("stale nodes", True), ("whole sweeps", False)):
            pp.mean_field_sweeps = forced(active)
            out.setdefault(name, []).append(cpu(lambda: ppc.algorithm.step(ppc.state)))
    pp.mean_field_sweeps = real
    g = statistics.median(out["gmm"])
    for name, v in out.items():
        print(f"side {side} {name:12s} {1e3 * statistics.median(v):8.2f} ms CPU "
              f"({statistics.median(v) / g:.2f}x GMM)")
    print(f"side {side} E-step sweeps: {sorted(set(sweeps))}")


def against(side: int, reps: int, rev: str) -> None:
    root = Path(__file__).resolve().parents[2]
    src = subprocess.run(["git", "-C", str(root), "show", f"{rev}:{MODULE}"], capture_output=True,
                         text=True, check=True).stdout
    old = types.ModuleType("ppc_mean_field_" + rev)
    exec(compile(src, f"{rev}:{MODULE}", "exec"), old.__dict__)
    _gmm, ppc = runs(side)
    calls = []
    real = pp.mean_field_sweeps
    pp.mean_field_sweeps = lambda *a, **k: calls.append(a) or real(*a, **k)
    ppc.algorithm.step(ppc.state)
    pp.mean_field_sweeps = real
    args = calls[0][:7]
    times: dict[str, list[float]] = {}
    results = {}
    for _ in range(reps):
        for name, fn in ((rev, old.mean_field_sweeps), ("this tree", mf.mean_field_sweeps)):
            times.setdefault(name, []).append(cpu(lambda fn=fn, name=name: results.__setitem__(
                name, fn(*args))))
    for name, v in times.items():
        print(f"side {side} {name:10s} {1e3 * statistics.median(v):8.1f} ms CPU "
              f"({results[name][1]} sweeps)")
    a, b = results[rev][0], results["this tree"][0]
    print(f"side {side} equal bit for bit: {np.array_equal(a, b)}, "
          f"largest difference {float(np.abs(a - b).max()):.2e}")


if __name__ == "__main__":
    side, reps = int(sys.argv[1]), int(sys.argv[2])
    if len(sys.argv) > 3:
        against(side, reps, sys.argv[3])
    else:
        on_and_off(side, reps)
