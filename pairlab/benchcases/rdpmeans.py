"""RDP-means passes against DP-means passes (issue 6: one pass within 3x of DP-means).

Data: 10 Gaussian blobs in 2-D and "1% of pairs linked" read as the paper's r = 0.01 (section 5):
1% of the n (n - 1) / 2 pairs, i.e. about 2 million links at n = 20,000, drawn uniformly and
labelled from the blobs (may-link inside a blob, may-not-link across). Each algorithm runs from
its own one-cluster start; a case times one more pass from the state reached after a given number
of passes (the same number for both).
"""

from __future__ import annotations

import numpy as np

from pairlab.bench import BenchCase
from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.run import Run


def linked_blobs(n: int, k: int = 10, rate: float = 0.01, seed: int = 0
                 ) -> tuple[np.ndarray, np.ndarray, Constraints]:
    """n points in k blobs and ``rate`` of all pairs linked, consistent with the blobs."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-10, 10, size=(k, 2))
    y = rng.integers(k, size=n)
    X = centers[y] + rng.normal(size=(n, 2))
    m = int(rate * n * (n - 1) / 2)
    i, j = rng.integers(n, size=(2, int(m * 1.1) + 100))
    keep = i != j
    keys = np.unique(np.minimum(i, j)[keep].astype(np.int64) * n + np.maximum(i, j)[keep])
    keys = rng.permutation(keys)[:m]
    pairs = np.column_stack([keys // n, keys % n])
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    return X, y, Constraints(pairs[same], pairs[~same], n_samples=n)


def cases(quick: bool) -> list[BenchCase]:
    n, k = (4_000, 10) if quick else (20_000, 10)
    X, _, cons = linked_blobs(n, k)
    data = Dataset(X)
    rdp = Run("rdpmeans", data, cons, {"k": k}, seed=0)
    dp = Run("dpmeans", data, None, {"k": k}, seed=0)
    out = []
    for name, passes in (("rdpmeans-pass-1", 0), ("rdpmeans-pass-4", 3), ("rdpmeans-pass-13", 12)):
        while rdp.n_iter < passes:
            rdp.step()
            dp.step()
        s_rdp, s_dp = rdp.history[passes], dp.history[passes]
        out.append(BenchCase(
            name, lambda s=s_rdp: rdp.algorithm.step(s), lambda s=s_dp: dp.algorithm.step(s),
            f"DP-means pass {passes + 1} (dpmeans plugin)", n, 2, k, len(cons), goal=3.0,
            group="rdpmeans"))
    return out
