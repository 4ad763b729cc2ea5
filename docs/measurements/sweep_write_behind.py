"""A writer thread beside the trial against each trial file written in line (issue 37): the bench's
sweep (`pairlab/benchcases/sweep.py`, real GMM trials, `--jobs 1`) with the files written by the
engine's background thread (`SerialExecutor.in_process = False`, one file behind) and in line
(`True`, the default), and the plain loop over the same trials; rounds alternate the order; wall
and CPU time of the process (every thread) and its context switches, medians over ROUNDS.

    python docs/measurements/sweep_write_behind.py TRIALS ROUNDS
"""

from __future__ import annotations

import resource
import statistics
import sys
import time

from pairlab.benchcases.sweep import _executor, _plain_loop, _sweep
from pairlab.sweep.executors import SerialExecutor


def main() -> None:
    n, rounds = int(sys.argv[1]), int(sys.argv[2])
    sweep, plain = _sweep(n, _executor(1)), _plain_loop(n)

    def thread() -> object:
        SerialExecutor.in_process = False
        try:
            return sweep()
        finally:
            SerialExecutor.in_process = True

    fns = {"plain loop": plain, "writer thread": thread, "in line": sweep}
    for fn in fns.values():
        fn()
    samples: dict[str, list[tuple[float, float, int, int]]] = {k: [] for k in fns}
    for r in range(rounds):
        for name in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
            before = resource.getrusage(resource.RUSAGE_SELF)
            wall, cpu = time.perf_counter(), time.process_time()
            fns[name]()
            after = resource.getrusage(resource.RUSAGE_SELF)
            samples[name].append((time.perf_counter() - wall, time.process_time() - cpu,
                                  after.ru_nvcsw - before.ru_nvcsw, after.ru_nivcsw - before.ru_nivcsw))
    plain_cpu = statistics.median(s[1] for s in samples["plain loop"])
    for name, s in samples.items():
        cpu = statistics.median(x[1] for x in s)
        ratio = statistics.median(a[0] / b[0] for a, b in zip(s, samples["plain loop"], strict=True))
        print(f"{name:14s} wall {statistics.median(x[0] for x in s):.2f} s, CPU {cpu:.2f} s "
              f"({1e3 * (cpu - plain_cpu) / n:+.2f} ms a trial over the plain loop), wall / plain "
              f"loop {ratio:.3f}, switches {statistics.median(x[2] for x in s)} voluntary "
              f"{statistics.median(x[3] for x in s)} involuntary")


if __name__ == "__main__":
    main()
