"""PPC mean field on the 512 x 512 grid against GMM: CPU time per EM iteration and mean-field sweeps.

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/ppc_grid_512.py`` (the runs of the bench
case ``ppc-mean-field-512-iteration``). Prints the sweeps each of the first 4 EM iterations used
(default cap ``mean_field_iter`` = 50), CPU time of iterations 1 and 4 for both (medians of 3,
alternating), the sweeps the first E-step needs to reach ``mean_field_tol`` with caps 100, 200, and
the first E-step's mean field alone (CPU, medians of 3, alternating) with stale-node sweeps against
full sweeps (``active_set=False``) at caps 50 and 200, with the largest difference in Q between them.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from pairlab.benchcases.ppc_scale import _runs


def stale_against_full(ppc: object) -> None:
    """The first E-step's mean field with and without skipping settled nodes."""
    algo = ppc.algorithm
    ap, model = algo._approx, ppc.history[0].model
    log_p = algo.weighted_log_prob(algo.X, model["weights"], model["means"], model["precisions_cholesky"])
    U = (log_p if algo._graph.agg is None else algo._graph.agg @ log_p)[ap.nodes]
    Q0 = np.exp(U - U.max(axis=1, keepdims=True))
    Q0 /= Q0.sum(axis=1, keepdims=True)
    for cap in (50, 200):
        times: dict[bool, list[float]] = {True: [], False: []}
        out = {}
        for _ in range(3):
            for active in (True, False):
                t = time.process_time()
                out[active] = ap.mean_field(U, Q0, cap, algo.params["mean_field_tol"], active_set=active)
                times[active].append(time.process_time() - t)
        a, b = statistics.median(times[True]), statistics.median(times[False])
        print(f"cap {cap}: stale-node sweeps {a:.3f} s CPU ({out[True][1]} sweeps), full sweeps "
              f"{b:.3f} s CPU ({out[False][1]} sweeps), {b / a:.1f}x; max |dQ| "
              f"{np.abs(out[True][0] - out[False][0]).max():.1e}", flush=True)


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
    ppc.algorithm.params["mean_field_iter"] = 50
    stale_against_full(ppc)


if __name__ == "__main__":
    main()
