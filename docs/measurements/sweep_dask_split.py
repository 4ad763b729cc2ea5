"""Dask LocalCluster against --jobs 2 on the bench's sweep (issue 37): wall time, CPU time of
this process (client and scheduler run here) and the trials' CPU time in the workers, with chunks
of trials and with one trial a Dask task. Usage: python docs/measurements/sweep_dask_split.py
TRIALS RUNS"""

from __future__ import annotations

import statistics
import sys
import time

import pairlab.sweep.executors as ex
from pairlab.benchcases.sweep import _executor, _sweep


class OneTrialATask(ex.DaskExecutor):
    CHUNK_SECONDS = 0.0


def main() -> None:
    n, runs = int(sys.argv[1]), int(sys.argv[2])
    cases = {"jobs 2": _sweep(n, _executor(2)), "dask, chunks": _sweep(n, _executor(2, "local")),
             "dask, 1 a task": _sweep(n, _executor(2, "local"))}
    for name, run in cases.items():  # warm-up: start the pools and clusters
        if name == "dask, 1 a task":
            ex.DaskExecutor, kept = OneTrialATask, ex.DaskExecutor
            run()
            ex.DaskExecutor = kept
        else:
            run()
    walls: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for name, run in cases.items():
            start, cpu = time.perf_counter(), time.process_time()
            result = run()
            wall = time.perf_counter() - start
            walls[name].append(wall)
            print(f"{name:15s} wall {wall:7.3f} s, this process's CPU {time.process_time() - cpu:6.3f} s,"
                  f" trials' CPU {sum(result.engine.cpu_seconds):6.3f} s", flush=True)
    med = {k: statistics.median(v) for k, v in walls.items()}
    print({k: round(v / med["jobs 2"], 3) for k, v in med.items()})


if __name__ == "__main__":
    main()
