"""Profile one tvclust-variational iteration at n = 100,000 with 1,000,000 links (issue 37).

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/tvclust_variational_profile.py``. The bench
case's data and runs (``pairlab.benchcases.tvclust_scale``: truncation 10, 3 warm-up steps); prints
the colour blocks' sizes, the CPU time of one step and cProfile's top functions by own time.
"""

from __future__ import annotations

import cProfile
import pstats
import time

from pairlab.benchcases.tvclust_scale import _data
from pairlab.run import Run


def main() -> None:
    data, cons = _data(100_000, 1_000_000)
    run = Run("tvclust-variational", data, cons, {"truncation": 10, "tol": 0.0}, seed=0)
    for _ in range(3):
        run.step()
    print("blocks", [len(b[0]) for b in run.algorithm.blocks])
    state = run.history[3]
    profile = cProfile.Profile()
    profile.enable()
    start = time.process_time()
    run.algorithm.step(state)
    print(f"step {time.process_time() - start:.2f} s CPU", flush=True)
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
