"""Where the sweep engine's time goes beside the trials (issue 37): the bench's sweep
(`pairlab/benchcases/sweep.py`) with run_sweep's steps timed, against a plain loop in the same
process. Usage: python docs/measurements/sweep_engine_split.py TRIALS RUNS"""

from __future__ import annotations

import statistics
import sys
import time

import pairlab.sweep.runner as runner
import pairlab.sweep.store as store_mod
from pairlab.benchcases.sweep import _executor, _plain_loop, _sweep

spent: dict[str, float] = {}


def timed(owner: object, name: str) -> None:
    fn = getattr(owner, name)

    def wrapper(*args: object, **kwargs: object) -> object:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

    setattr(owner, name, wrapper)


def main() -> None:
    n, runs = int(sys.argv[1]), int(sys.argv[2])
    timed(store_mod.StoreWriter, "put")
    timed(store_mod.StoreWriter, "close")
    for name in ("sweep_tasks", "provenance", "write_csv", "summarize", "atomic_write_text"):
        timed(runner, name)
    sweep, plain = _sweep(n, _executor(1)), _plain_loop(n)
    sweep()
    plain()
    ratios = []
    for _ in range(runs):
        spent.clear()
        start = time.perf_counter()
        result = sweep()
        s = time.perf_counter() - start
        start = time.perf_counter()
        plain()
        p = time.perf_counter() - start
        ratios.append(s / p)
        parts = " ".join(f"{k}={v * 1e3 / n:.3f}" for k, v in spent.items())
        print(f"sweep {s:.3f} s, plain {p:.3f} s, ratio {s / p:.3f}; ms a trial: {parts} "
              f"trial={sum(result.engine.seconds) * 1e3 / n:.3f}", flush=True)
    print("median ratio", statistics.median(ratios))


if __name__ == "__main__":
    main()
