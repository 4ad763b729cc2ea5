"""The bench case ``csc`` (pairlab/benchcases/spectral_kernel.py: n = 2,000, 200 links) timed in one
process, rounds alternated: scikit-learn's SpectralClustering (the reference), csc with its default
solver (the certified subspace solve, csc_subspace.py) and csc with that solve switched off (the
dense reduced solver, csc_pencil.py: the default before). Wall and CPU seconds, medians; 1 BLAS
thread as ``pairlab bench``. Usage: python docs/measurements/csc_solvers_timing.py [ROUNDS]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pairlab_builtins.algorithms.csc as csc_module
from threadpoolctl import threadpool_limits

from pairlab.benchcases.spectral_kernel import cases


def main(rounds: int) -> None:
    case = next(c for c in cases(False) if c.name == "csc")
    subspace = csc_module.certified_pencil
    runs = {"reference": case.reference,
            "csc subspace": case.subject,
            "csc reduced": case.subject}
    wall: dict[str, list[float]] = {k: [] for k in runs}
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            csc_module.certified_pencil = (subspace if name != "csc reduced"
                                           else lambda *a, **k: None)
            w, c = time.perf_counter(), time.process_time()
            fn()
            wall[name].append(time.perf_counter() - w)
            cpu[name].append(time.process_time() - c)
    csc_module.certified_pencil = subspace
    ref_w, ref_c = np.median(wall["reference"]), np.median(cpu["reference"])
    for name in runs:
        w, c = np.median(wall[name]), np.median(cpu[name])
        print(f"{name:14s} wall {w:6.3f} s ({w / ref_w:4.2f}x)   cpu {c:6.3f} s ({c / ref_c:4.2f}x)")


if __name__ == "__main__":
    with threadpool_limits(1):
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
