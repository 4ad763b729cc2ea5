"""SCSSAP with q = inf and the penalty cap removed: how large do the messages get?

Run: ``python docs/measurements/scssap_uncapped_growth.py`` (about a minute). Two Gaussian blobs
of n/2 points each, one must-link across them; damping mu = 0.75 (the paper's) for n = 20 and 60
and seeds 0-4, and mu = 0.5, 0.9, 0.98 once. The cap ``q_max`` of
``ap_messages.MessageEngine`` is switched off by patching ``_penalties``. Prints the largest
|message| (alpha, rho, omega) after 100, 200, 400, 1000 and 3000 iterations and the first
iteration with a non-finite message (None: there was none).
"""

from __future__ import annotations

import numpy as np
import pairlab_builtins.algorithms.ap_messages as apm

from pairlab import Constraints, Dataset, Run

CHECKPOINTS = (100, 200, 400, 1000, 3000)
CASES = [(0.75, n, seed) for n in (20, 60) for seed in range(5)] + [
    (0.5, 20, 0), (0.9, 20, 0), (0.98, 20, 0)]


def uncapped(penalty, q_max):
    return np.asarray(penalty, dtype=float)[:, None] if np.ndim(penalty) else float(penalty)


def largest(engine) -> float:
    arrays = [engine.A, engine.R, engine.omega, engine.gamma]
    return max(float(np.max(np.abs(a))) for a in arrays if a.size)


def main() -> None:
    apm._penalties = uncapped
    print("mu    n  seed  " + "  ".join(f"t={t:<6}" for t in CHECKPOINTS) + "  first non-finite")
    for mu, n, seed in CASES:
        rng = np.random.default_rng(seed)
        X = np.vstack([rng.normal(size=(n // 2, 2)), rng.normal(size=(n // 2, 2)) + 5.0])
        c = Constraints([[0, n - 1]], None, n_samples=n)
        params = {"max_iter": 3000, "convergence_iter": 10**6, "damping": mu}
        with np.errstate(over="ignore", invalid="ignore"):
            engine = Run("scssap", Dataset(X), c, params, seed=0).algorithm._engine
            sizes, bad = {}, None
            for t in range(1, max(CHECKPOINTS) + 1):
                engine.iterate()
                size = largest(engine)
                if bad is None and not np.isfinite(size):
                    bad = t
                if t in CHECKPOINTS:
                    sizes[t] = size
        print(f"{mu:<6}{n:<3}{seed:<6}" + "  ".join(f"{sizes[t]:<8.2g}" for t in CHECKPOINTS)
              + f"  {bad}")


if __name__ == "__main__":
    main()
