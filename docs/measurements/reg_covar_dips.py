"""How far can the log-likelihood dip under EM with reg_covar (the regularised covariance step)?

Run: ``python docs/measurements/reg_covar_dips.py [N]`` (N random problems per algorithm, default
300). Each problem: n in [8, 40] points in 2-D from 2-4 Gaussian blobs, k in {2, 3}, about n/4
random must-links and cannot-links (drawn from the blob labels, so they are consistent), random
seed; default parameters (reg_covar = 1e-6) and max_iter = 200. A dip is
(L_{t-1} - L_t) / |L_{t-1}| > 0 for the objective L (the log-likelihood). Prints, per algorithm,
how many problems dipped beyond 1e-13 and 1e-9, and the largest dip with its problem seed.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from pairlab import Constraints, Dataset, PairlabError, Run

ALGORITHMS = ("gmm", "gmpr", "constrained-em")


def problem(seed: int) -> tuple[np.ndarray, Constraints, int]:
    rng = np.random.default_rng(seed)
    n, blobs, k = int(rng.integers(8, 41)), int(rng.integers(2, 5)), int(rng.integers(2, 4))
    y = rng.integers(0, blobs, n)
    X = rng.normal(size=(n, 2)) + 3.0 * rng.normal(size=(blobs, 2))[y]
    if seed % 2:  # odd seeds: a third of the points are copies of three points (components collapse)
        copies = rng.choice(n, size=n // 3, replace=False)
        X[copies] = X[rng.choice(3, size=copies.size)]
    pairs = rng.integers(0, n, size=(n // 2, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    return X, Constraints(pairs[same], pairs[~same], n_samples=n), min(k, blobs)


def largest_dip(name: str, seed: int) -> float | None:
    X, c, k = problem(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = Run(name, Dataset(X), c if name != "gmm" else None,
                      {"n_components": k, "max_iter": 200}, seed=seed)
            run.run()
    except PairlabError:
        return None  # e.g. cannot-links that need more than k classes
    L = run.objectives
    dips = (L[:-1] - L[1:]) / np.abs(L[:-1])
    return float(dips.max(initial=0.0))


def main(n_problems: int) -> None:
    print(f"{'algorithm':<16}{'family':<12}{'problems':>9}{'> 1e-13':>9}{'> 1e-9':>8}"
          f"{'> 1e-7':>8}{'largest dip':>13}  seed")
    for name in ALGORITHMS:
        dips = {s: largest_dip(name, s) for s in range(n_problems)}
        for family, parity in (("plain", 0), ("duplicates", 1)):
            found = {s: d for s, d in dips.items() if d is not None and s % 2 == parity}
            worst = max(found, key=found.get)
            values = np.array(list(found.values()))
            print(f"{name:<16}{family:<12}{len(values):>9}{int((values > 1e-13).sum()):>9}"
                  f"{int((values > 1e-9).sum()):>8}{int((values > 1e-7).sum()):>8}"
                  f"{found[worst]:>13.2g}  {worst}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
