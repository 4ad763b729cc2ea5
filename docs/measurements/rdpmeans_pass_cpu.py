"""CPU time of one RDP-means pass against one DP-means pass (the rdpmeans bench cases).

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/rdpmeans_pass_cpu.py [REPEATS]``. Uses the
cases of ``pairlab/benchcases/rdpmeans.py`` (n = 20,000, ~2 million links), alternates subject and
reference in one process and reports the median CPU time (``time.process_time``) of each and the
ratio of the medians. CPU time is what a loaded shared machine distorts least.
"""

from __future__ import annotations

import statistics
import sys
import time

from pairlab.benchcases import rdpmeans


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(repeats: int) -> None:
    print(f"{'case':<20}{'RDP-means':>12}{'DP-means':>12}{'ratio':>8}")
    for case in rdpmeans.cases(False):
        case.subject(), case.reference()  # build the runs and warm up
        subject, reference = [], []
        for _ in range(repeats):
            subject.append(cpu(case.subject))
            reference.append(cpu(case.reference))
        s, r = statistics.median(subject), statistics.median(reference)
        print(f"{case.name:<20}{s * 1e3:>9.1f} ms{r * 1e3:>9.1f} ms{s / r:>8.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
