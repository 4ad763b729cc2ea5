"""The sweep engine's overhead with every trial paired with itself, and how the host's speed
drifts under it (issue 37).

In ONE process, rounds alternate a whole sweep (the bench's: GMM trials, ``--jobs 1``, fresh,
store + table + summary + JSON written) and a plain loop over the same trials, each trial of the
plain loop timed as the engine times a trial (``executors.execute``). For each sweep: its wall
time over the summed wall times of its own trials (the in-sweep ratio: the engine's own time,
paired trial by trial); for both sides: the median trial and the medians of the first and last
hundred trials (the same trial's time moving within seconds is the host, not the engine); the
trials' summed wall over their summed CPU time (above 1: the process waited while its trials
ran); and the bench's measure, sweep / plain loop within the round.

    python docs/measurements/sweep_in_sweep.py TRIALS ROUNDS
"""

from __future__ import annotations

import statistics
import sys
import time


def main(trials: int, rounds: int) -> None:
    from pairlab.benchcases.sweep import _executor, _spec, _sweep
    from pairlab.sweep.executors import blas_limits
    from pairlab.sweep.runner import sweep_tasks

    sweep = _sweep(trials, _executor(1))
    tasks, _ = sweep_tasks(_spec(trials))

    def plain() -> tuple[list[float], list[float]]:
        took, cpu = [], []
        with blas_limits():  # as the engine's executors do
            for task in tasks:
                start, c = time.perf_counter(), time.process_time()
                task.fn(*task.args)
                took.append(time.perf_counter() - start)
                cpu.append(time.process_time() - c)
        return took, cpu

    sweep()
    plain()  # warm: imports, BLAS, the store's folders, the page cache
    inside, paired = [], []

    def ms(values: list[float]) -> str:
        return f"{1000 * statistics.median(values):.1f}"

    for r in range(rounds):
        walls = {}
        for side in (("sweep", "plain") if r % 2 == 0 else ("plain", "sweep")):
            start = time.perf_counter()
            if side == "sweep":
                engine = sweep().engine
                took, cpu = engine.seconds, engine.cpu_seconds
            else:
                took, cpu = plain()
            walls[side] = wall = time.perf_counter() - start
            extra = f", trials' wall / CPU {sum(took) / sum(cpu):.3f}"
            if side == "sweep":
                inside.append(wall / sum(took))
                extra += f", in-sweep ratio {inside[-1]:.4f}"
            print(f"round {r} {side:5s}: {wall:6.2f} s, trial median {ms(took)} ms (first 100 "
                  f"{ms(took[:100])}, last 100 {ms(took[-100:])}){extra}", flush=True)
        paired.append(walls["sweep"] / walls["plain"])
    print(f"in-sweep ratio: median {statistics.median(inside):.4f}, range "
          f"{min(inside):.4f}-{max(inside):.4f}; sweep / plain loop within a round: median "
          f"{statistics.median(paired):.3f}, range {min(paired):.3f}-{max(paired):.3f}")


if __name__ == "__main__":
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        main(int(sys.argv[1]), int(sys.argv[2]))
