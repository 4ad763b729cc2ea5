"""RDP-means passes against DP-means passes (issues 6 and 23: every pass after the first within
3x of a DP-means pass; the first, where nearly every point moves and the link scores are counted
afresh, has no goal).

Data: 10 Gaussian blobs in 2-D and "1% of pairs linked" read as the paper's r = 0.01 (section 5):
1% of the n (n - 1) / 2 pairs, i.e. about 2 million links at n = 20,000, drawn uniformly and
labelled from the blobs (may-link inside a blob, may-not-link across). Each algorithm runs from
its own one-cluster start; a case times one more pass from the state reached after a given number
of passes (the same number for both): passes 1, 4 and 13 with --quick, every pass up to 34 (where
RDP-means converges at n = 20,000) otherwise.
"""

from __future__ import annotations

import functools

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


@functools.cache
def _runs(n: int, k: int, passes: int) -> tuple[Run, Run]:
    """Both runs advanced ``passes`` passes; built on first use, so ``--only other`` costs nothing."""
    X, _, cons = linked_blobs(n, k)
    data = Dataset(X)
    rdp = Run("rdpmeans", data, cons, {"k": k}, seed=0)
    dp = Run("dpmeans", data, None, {"k": k}, seed=0)
    for _ in range(passes):
        rdp.step()
        dp.step()
    return rdp, dp


def _pass(which: int, n: int, k: int, at: int, last: int) -> object:
    run = _runs(n, k, last)[which]
    return run.algorithm.step(run.history[at])


def cases(quick: bool) -> list[BenchCase]:
    n, k = (4_000, 10) if quick else (20_000, 10)
    links = int(0.01 * n * (n - 1) / 2)
    out = []
    # --quick: three passes; full: every pass until RDP-means has converged (34 passes at
    # n = 20,000), since the goal holds for every pass after the first
    last = 12 if quick else 33
    for at in ((0, 3, 12) if quick else range(last + 1)):
        out.append(BenchCase(
            f"rdpmeans-pass-{at + 1}", functools.partial(_pass, 0, n, k, at, last),
            functools.partial(_pass, 1, n, k, at, last),
            f"DP-means pass {at + 1} (dpmeans plugin)", n, 2, k, links,
            goal=3.0 if at else None, group="rdpmeans"))
    return out
