"""PPC mean field on the 512 x 512 grid against GMM: CPU time per EM iteration and mean-field sweeps.

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/ppc_grid_512.py`` (the runs of the bench
case ``ppc-mean-field-512-iteration``). Prints the sweeps each of the first 4 EM iterations used
(default cap ``mean_field_iter`` = 50), CPU time of iterations 1 and 4 for both (medians of 3,
alternating), and the sweeps the first E-step needs to reach ``mean_field_tol`` with caps 100, 200.
"""

from __future__ import annotations

import statistics
import time

from pairlab.benchcases.ppc_scale import _runs


def main() -> None:
    ppc, gmm, _ = _runs(512)
    for _ in range(4):
        ppc.step()
        gmm.step()
    print("mean-field sweeps per iteration",
          [s.extras.get("mean_field_iterations") for s in ppc.history[1:]], flush=True)
    for at in (0, 3):
        a, b = ppc.history[at], gmm.history[at]
        ta, tb = [], []
        for _ in range(3):
            t = time.process_time()
            ppc.algorithm.step(a)
            ta.append(time.process_time() - t)
            t = time.process_time()
            gmm.algorithm.step(b)
            tb.append(time.process_time() - t)
        pa, pb = statistics.median(ta), statistics.median(tb)
        print(f"iteration {at + 1}: PPC {pa:.3f} s CPU, GMM {pb:.3f} s CPU, ratio {pa / pb:.2f}",
              flush=True)
    for cap in (100, 200):
        ppc.algorithm.params["mean_field_iter"] = cap
        got = ppc.algorithm.step(ppc.history[0]).extras.get("mean_field_iterations")
        print(f"cap {cap}: first E-step used {got} sweeps", flush=True)


if __name__ == "__main__":
    main()
