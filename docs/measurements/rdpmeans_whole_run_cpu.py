"""CPU time of whole RDP-means and DP-means runs to convergence on the rdpmeans bench's data.

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/rdpmeans_whole_run_cpu.py [REPEATS]``.
n = 20,000 points in 10 blobs with 1% of the pairs linked (``pairlab.benchcases.rdpmeans``);
each run starts from the same seed; the two algorithms alternate and the median CPU time
(``time.process_time``) of each is reported with the passes, clusters and links satisfied.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from pairlab import Dataset, Run
from pairlab.benchcases.rdpmeans import linked_blobs


def main(repeats: int) -> None:
    X, _, cons = linked_blobs(20_000, 10)
    data = Dataset(X)
    times: dict[str, list[float]] = {"rdpmeans": [], "dpmeans": []}
    last = {}
    for _ in range(repeats):
        for name in times:
            run = Run(name, data, cons if name == "rdpmeans" else None, {"k": 10}, seed=0)
            start = time.process_time()
            run.run()
            times[name].append(time.process_time() - start)
            last[name] = run.state
    for name, t in times.items():
        labels = np.asarray(last[name].labels)
        ml = np.mean(labels[cons.must_link[:, 0]] == labels[cons.must_link[:, 1]])
        cl = np.mean(labels[cons.cannot_link[:, 0]] != labels[cons.cannot_link[:, 1]])
        print(f"{name:<9} {statistics.median(t) * 1e3:8.1f} ms CPU  {last[name].iteration} passes  "
              f"{labels.max() + 1} clusters  may-links kept {ml:.3f}  may-not-links kept {cl:.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
