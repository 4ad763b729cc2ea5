"""The bench's two ratio estimators on the same samples (issue 37): the ratio of the two medians
(what `pairlab bench` reported before) and the median of the per-round ratios (what it reports
now), each over every window of REPEATS consecutive rounds of `pair_samples` (rounds alternating
which side goes first), on the sweep-overhead case with TRIALS trials. A steadier estimator has
the smaller spread across windows.

    python docs/measurements/bench_estimators.py TRIALS ROUNDS [REPEATS]
"""

from __future__ import annotations

import statistics
import sys

from pairlab.bench import limit_threads, pair_ratio, pair_samples
from pairlab.benchcases.sweep import _executor, _plain_loop, _sweep


def main() -> None:
    trials, rounds = int(sys.argv[1]), int(sys.argv[2])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with limit_threads(1):
        s, r = pair_samples(_sweep(trials, _executor(1)), _plain_loop(trials), repeats=rounds)
    print("rounds (subject / reference seconds):",
          ", ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(s, r, strict=True)))
    estimators = {
        "ratio of medians": lambda a, b: statistics.median(a) / statistics.median(b),
        "median of round ratios": pair_ratio,
    }
    for name, fn in estimators.items():
        got = [fn(s[i:i + repeats], r[i:i + repeats]) for i in range(rounds - repeats + 1)]
        print(f"{name:24s} over {len(got)} windows of {repeats}: min {min(got):.3f} max {max(got):.3f} "
              f"s.d. {statistics.stdev(got):.3f}; all rounds {fn(s, r):.3f}")


if __name__ == "__main__":
    main()
