"""CPU time of one start of each model of ppc-fig10 (PPC Fig. 10), summed over the five shipped
sets (artificial sets 1-3, iris, digits 0/6/8/9), at q = 0.15, one BLAS thread as the recipe runs;
the mean over ``STARTS`` seeds after one warm-up fit per model (numba's compiled kernels load once).
A realisation runs, per set and noise level, 100 starts of each model and of soft-CKmeans at six
penalties. Run: python docs/measurements/ppc_fig10_per_start.py
"""

import time

import numpy as np
from pairlab_builtins.reproductions.common import single_blas_thread
from pairlab_builtins.reproductions.ppc_noise import SOFT_CK_WEIGHTS
from pairlab_builtins.reproductions.ppc_relations import _relation_sets

from pairlab import Run
from pairlab.links import flip_probability, nonoverlapping_pairs

STARTS = 3
Q = 0.15


def main() -> None:
    artificial, _ = _relation_sets("artificial", None)
    uci, _ = _relation_sets("uci", None)
    total: dict[str, float] = {}
    with single_blas_thread():
        for _key, (_title, data) in {**artificial, **uci}.items():
            C = data.n_classes
            clean = nonoverlapping_pairs(data.y, round(0.25 * data.n_samples), np.random.default_rng(1))
            cons = flip_probability(clean, Q, np.random.default_rng(2), set_confidence=False)
            w = 0.5 * float(np.log((1 - Q) / Q))
            mix = {"n_components": C, "max_iter": 200, "init": "random"}
            plans = {
                "gmm": ("gmm", None, mix),
                "soft_ppc": ("ppc", cons, {**mix, "must_link_weight": w, "cannot_link_weight": w}),
                "hard_ppc": ("ppc", cons, {**mix, "must_link_weight": np.inf,
                                           "cannot_link_weight": np.inf}),
                "kmeans": ("kmeans", None, {"n_clusters": C}),
                "hard_ck": ("cop-kmeans", cons, {"n_clusters": C}),
                "soft_ck (one penalty)": ("soft-cop-kmeans", cons, {"n_clusters": C, "penalty": 1.0}),
            }
            for name, (algorithm, c, params) in plans.items():
                def fit(seed: int, algorithm=algorithm, c=c, params=params, data=data) -> None:
                    try:
                        Run(algorithm, data, c, params, seed=seed).run()
                    except Exception:  # an infeasible hard-CKmeans start costs its time too
                        pass
                fit(10_000)  # warm-up
                t0 = time.process_time()
                for seed in range(STARTS):
                    fit(seed)
                total[name] = total.get(name, 0.0) + (time.process_time() - t0) / STARTS
    for name, seconds in total.items():
        print(f"{name:24s} {1000 * seconds:8.1f} ms CPU a start (five sets)")
    one = sum(v for k, v in total.items() if not k.startswith("soft_ck")) \
        + len(SOFT_CK_WEIGHTS) * total["soft_ck (one penalty)"]
    print(f"a start of every model at one noise level: {1000 * one:.0f} ms; a realisation "
          f"(100 starts, 2 levels, GMM and K-means once): about "
          f"{100 * (2 * one - total['gmm'] - total['kmeans']):.0f} s CPU")


if __name__ == "__main__":
    main()
