"""RDP-means passes against DP-means passes beyond the bench's size (partner indices in int32).

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/rdpmeans_large_n.py [N] [PASSES]``
(defaults 80000 and 2,12,13,14). The data are the bench's (``linked_blobs``: 10 blobs in 2-D,
links labelled from the blobs) with the link rate chosen so that a point has ~200 partners, as at
the bench's n = 20,000 with r = 0.01. Each pass is timed as the bench does (``time_pair``: one
more pass from the state after the given number of passes, subject and reference samples
interleaved, medians of 5), three times; prints the moves of every pass and the three ratios.
"""

from __future__ import annotations

import sys
import time

from pairlab.bench import time_pair
from pairlab.benchcases.rdpmeans import linked_blobs
from pairlab.dataset import Dataset
from pairlab.run import Run


def main(n: int, passes: list[int]) -> None:
    start = time.perf_counter()
    X, _, cons = linked_blobs(n, 10, 200 / (n - 1))
    rdp = Run("rdpmeans", Dataset(X), cons, {"k": 10}, seed=0)
    dp = Run("dpmeans", Dataset(X), None, {"k": 10}, seed=0)
    links = cons.must_link.shape[0] + cons.cannot_link.shape[0]
    print(f"n = {n}, {links} links, partner indices {rdp.algorithm.links.indices.dtype}, "
          f"set-up {time.perf_counter() - start:.0f} s")
    for _ in range(max(passes)):
        rdp.step()
        dp.step()
    print("moves per pass:", [s.extras["n_changed"] for s in rdp.history[1:]])
    for p in passes:
        a, b = rdp.history[p - 1], dp.history[p - 1]
        ratios = []
        for _ in range(3):
            s, r = time_pair(lambda a=a: rdp.algorithm.step(a), lambda b=b: dp.algorithm.step(b),
                             repeats=5, warmup=1, min_time=0.1)
            ratios.append(s / r)
        print(f"pass {p}: RDP-means {s * 1e3:.1f} ms, DP-means {r * 1e3:.1f} ms, ratios "
              + " ".join(f"{x:.2f}" for x in ratios), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 80_000,
         [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [2, 12, 13, 14])
