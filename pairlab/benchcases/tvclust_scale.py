"""TVClust at n = 10^5 (issue 37; not in --quick).

* ``tvclust-variational-1e5-iteration``: one variational iteration at n = 100,000 with 1,000,000
  links against one GMM EM iteration with as many components as the truncation (goal: at most 3x).
* ``tvclust-gibbs-sweep-scaling``: one Gibbs sweep at n = 10^4, 3 * 10^4 and 10^5 with 10 links a
  point (as above); ``info`` has the times and the exponent of a log-log fit of time against n
  (report; the goal is a sweep linear in n, exponent about 1).

Data: :func:`~pairlab.benchcases.rdpmeans.linked_blobs` (10 blobs in 2-D, links drawn uniformly
among all pairs and labelled from the blobs). As in :mod:`.tvclust`, each run is advanced a few
steps first so that the timed step starts from a typical state.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from pairlab.bench import BenchCase

from .rdpmeans import linked_blobs

N, LINKS, K_BLOBS, TRUNCATION, WARM = 100_000, 1_000_000, 10, 10, 3
GIBBS_SIZES, LINKS_PER_POINT = (10_000, 30_000, 100_000), 10


def _data(n: int, links: int) -> tuple:
    from pairlab.dataset import Dataset

    X, _, cons = linked_blobs(n, K_BLOBS, links / (n * (n - 1) / 2))
    return Dataset(X), cons


@functools.cache
def _variational() -> dict:
    from pairlab.run import Run

    data, cons = _data(N, LINKS)
    runs = {"variational": Run("tvclust-variational", data, cons,
                               {"truncation": TRUNCATION, "tol": 0.0}, seed=0),
            "gmm": Run("gmm", data, None, {"n_components": TRUNCATION, "tol": 0.0}, seed=0)}
    for run in runs.values():
        for _ in range(WARM):
            run.step()
    return runs


def _step(which: str) -> object:
    run = _variational()[which]
    return run.algorithm.step(run.history[WARM])


def gibbs_scaling(sizes: tuple[int, ...] = GIBBS_SIZES, repeats: int = 3) -> dict:
    """Median time of one Gibbs sweep (after ``WARM`` sweeps) at each size; log-log exponent."""
    from pairlab.run import Run

    seconds = []
    for n in sizes:
        data, cons = _data(n, LINKS_PER_POINT * n)
        run = Run("tvclust", data, cons, {}, seed=0)
        for _ in range(WARM):
            run.step()
        state = run.history[WARM]
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            run.algorithm.step(state)
            samples.append(time.perf_counter() - start)
        seconds.append(float(np.median(samples)))
    exponent = float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])
    return {"sizes": list(sizes), "seconds": [round(s, 3) for s in seconds],
            "exponent": round(exponent, 2)}


def _gibbs_case() -> BenchCase:
    info: dict = {}

    def subject() -> None:
        info.clear()
        info.update(gibbs_scaling())

    return BenchCase("tvclust-gibbs-sweep-scaling", subject, None, "report: exponent in n",
                     GIBBS_SIZES[-1], 2, K_BLOBS, LINKS_PER_POINT * GIBBS_SIZES[-1], group="tvclust-scale",
                     repeats=1, info=info)


def cases(quick: bool) -> list[BenchCase]:
    if quick:
        return []
    return [BenchCase("tvclust-variational-1e5-iteration", functools.partial(_step, "variational"),
                      functools.partial(_step, "gmm"),
                      f"GMM EM iteration, {TRUNCATION} components (gmm plugin)", N, 2, TRUNCATION,
                      LINKS, goal=3.0, group="tvclust-scale"),
            _gibbs_case()]
