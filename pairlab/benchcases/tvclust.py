"""TVClust (issue 16): one Gibbs sweep at n = 2,000 with 1% of the pairs observed (goal: under 1 s on
one core), and one variational iteration against one GMM EM iteration at the same n with as many
components as the truncation (goal: at most 3x).

Data: :func:`~pairlab.benchcases.rdpmeans.linked_blobs`, 10 blobs in 2-D and 1% of all pairs linked
(about 20,000 links at n = 2,000), labelled from the blobs. Each run is advanced a few steps first so
that the timed step starts from a typical state (about as many clusters as blobs), not the start.
"""

from __future__ import annotations

import functools

from pairlab.bench import BenchCase
from pairlab.dataset import Dataset
from pairlab.run import Run

from .rdpmeans import linked_blobs

N, K_BLOBS, TRUNCATION, WARM = 2_000, 10, 10, 5


@functools.cache
def _runs() -> dict[str, Run]:
    """The runs advanced WARM steps; built on first use, so ``--only other`` costs nothing."""
    X, _, cons = linked_blobs(N, K_BLOBS)
    data = Dataset(X)
    runs = {
        "gibbs": Run("tvclust", data, cons, {}, seed=0),
        "variational": Run("tvclust-variational", data, cons, {"truncation": TRUNCATION, "tol": 0.0}, seed=0),
        "variational-no-links": Run("tvclust-variational", data, None, {"truncation": TRUNCATION, "tol": 0.0},
                                    seed=0),
        "gmm": Run("gmm", data, None, {"n_components": TRUNCATION, "tol": 0.0}, seed=0),
    }
    for run in runs.values():
        for _ in range(WARM):
            run.step()
    return runs


def _step(which: str) -> object:
    run = _runs()[which]
    return run.algorithm.step(run.history[WARM])


def cases(quick: bool) -> list[BenchCase]:
    links = int(0.01 * N * (N - 1) / 2)
    gmm = functools.partial(_step, "gmm")
    ref = f"GMM EM iteration, {TRUNCATION} components (gmm plugin)"
    return [
        BenchCase("tvclust-gibbs-sweep", functools.partial(_step, "gibbs"), None, "-", N, 2, K_BLOBS,
                  links, group="tvclust", goal_seconds=1.0),
        BenchCase("tvclust-variational-iteration", functools.partial(_step, "variational"), gmm, ref,
                  N, 2, TRUNCATION, links, goal=3.0, group="tvclust"),
        BenchCase("tvclust-variational-iteration-no-links", functools.partial(_step, "variational-no-links"),
                  gmm, ref, N, 2, TRUNCATION, 0, goal=3.0, group="tvclust"),
    ]
