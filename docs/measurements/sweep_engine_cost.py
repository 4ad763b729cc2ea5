"""The sweep engine's own cost per trial (issue 37): the bench's sweep (`pairlab/benchcases/sweep.py`)
run by `run_sweep` with each trial replaced by the row a real trial returned, so what is timed is
the engine alone (task list, encoding, trial files, table, summary, JSON). CPU time counts the
background writer thread too. With REV, the trial files are written by TrialStore.write of git
revision REV and by this tree's, interleaved in one process.

    python docs/measurements/sweep_engine_cost.py TRIALS RUNS [REV]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import pairlab.sweep.runner as runner
from pairlab.benchcases.sweep import _spec
from pairlab.sweep import make_executor, run_sweep
from pairlab.sweep.store import TrialStore


def main() -> None:
    n, runs = int(sys.argv[1]), int(sys.argv[2])
    spec = _spec(n)
    tasks, _ = runner.sweep_tasks(spec)
    row = tasks[0].fn(*tasks[0].args)
    runner.run_trial = lambda *args: dict(row)
    writers = {"this tree": TrialStore.write}
    if len(sys.argv) > 3:
        rev = sys.argv[3]
        root = Path(__file__).resolve().parents[2]
        src = subprocess.run(["git", "-C", str(root), "show", f"{rev}:pairlab/sweep/store.py"],
                             capture_output=True, text=True, check=True).stdout
        old = types.ModuleType("store_" + rev)
        exec(compile(src, f"{rev}:pairlab/sweep/store.py", "exec"), old.__dict__)
        writers[rev] = old.TrialStore.write
    out = tempfile.mkdtemp(prefix="pairlab-engine-cost-")
    ex = make_executor(1)
    run_sweep(spec, out, ex, fresh=True, progress=None)
    samples: dict[str, list[tuple[float, float]]] = {}
    for _ in range(runs):
        for name, write in writers.items():
            TrialStore.write = write
            wall, cpu = time.perf_counter(), time.process_time()
            run_sweep(spec, out, ex, fresh=True, progress=None)
            samples.setdefault(name, []).append((time.perf_counter() - wall,
                                                 time.process_time() - cpu))
    for name, s in samples.items():
        print(f"{name:10s} per trial: wall {1e3 * statistics.median(w for w, _ in s) / n:.3f} ms, "
              f"CPU {1e3 * statistics.median(c for _, c in s) / n:.3f} ms (medians of {runs})")


if __name__ == "__main__":
    main()
