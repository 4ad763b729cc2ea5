"""The experiment engine's cost (issue 15): overhead per trial against a plain loop over the same
trials, the speed-up of 2 local worker processes over 1, and a 2-worker Dask LocalCluster against
``--jobs 2`` (goal 1.2, issue 37).

Every trial is the same fixed amount of work (GMM, 20 EM iterations with ``tol = 0`` on 3 blobs,
about 20-28 ms); every timed run recomputes all trials (``fresh``) and writes the store, the
table, the summary and the JSON as ``pairlab sweep`` does. Worker pools are started before the
first timed run (by the warm-up run) and kept, so start-up is not timed; the ratio of the
speed-up case is time(2 workers) / time(1): its goal 0.59 is a speed-up of 1.7.

What is timed is the wall time of a whole sweep and of the plain loop over the same trials, one
of each a round, both warmed up first (imports, BLAS, the store's folders, the page cache). The
ratio is the bench's (:func:`pairlab.bench.pair_ratio`): the median over rounds of the two
samples' ratio within the round, rounds alternating which side goes first; the run-to-run
spread of the plain loop alone (28.3-29.8 s on a quiet machine) was as large as the engine's
whole cost, and two samples taken back to back share the machine's load (docs/sweeps.md).
The overhead case also reports ``in_sweep_ratio``: each sweep's wall time over the summed wall
times of its own trials, every trial paired with itself (on 27 Nov 2026 the plain loop alone took
24.0 to 31.7 s within one bench run: the machine's speed drifts more between two samples a
minute apart than the engine costs).
"""

from __future__ import annotations

import atexit
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from pairlab.bench import BenchCase

N_SAMPLES = 1500


def _spec(trials: int) -> Any:
    from pairlab.sweep import parse_spec

    return parse_spec({
        "name": "bench", "trials": trials,
        "algorithms": [{"name": "gmm", "params": {"n_components": 3, "tol": 0.0, "max_iter": 20}}],
        "datasets": [{"name": "gaussian-blobs", "params": {"n_samples": N_SAMPLES, "n_centers": 3}}],
    })


def _folder() -> str:
    path = tempfile.mkdtemp(prefix="pairlab-bench-sweep-")
    atexit.register(shutil.rmtree, path, True)
    return path


def _sweep(trials: int, executor: Callable[[], Any],
           info: dict[str, Any] | None = None) -> Callable[[], object]:
    """A timed callable running the whole sweep on the executor ``executor()`` makes (made once).

    With ``info``, each run also reports the sweep's wall time over the summed wall times of its
    own trials (``execute`` times each trial call): the engine's overhead with every trial paired
    with itself, which the machine's drift between a sweep and a plain loop a minute apart cannot
    blur; ``info["in_sweep_ratio"]`` is the median over the runs so far."""
    from pairlab.sweep import run_sweep

    spec, out, made, ratios = _spec(trials), _folder(), [], []

    def run() -> object:
        if not made:
            made.append(executor())
            atexit.register(made[0].close)
        start = time.perf_counter()
        result = run_sweep(spec, out, made[0], fresh=True, progress=None)
        wall = time.perf_counter() - start
        if info is not None:
            ratios.append(wall / max(sum(result.engine.seconds), 1e-9))
            info["in_sweep_ratio"] = round(statistics.median(ratios), 4)
            info["in_sweep_ratios"] = [round(r, 4) for r in ratios]
        return result

    return run


def _plain_loop(trials: int) -> Callable[[], object]:
    """The same trials, called one after the other: no store, no table, no engine."""
    from pairlab.sweep.executors import blas_limits
    from pairlab.sweep.runner import sweep_tasks

    tasks, _ = sweep_tasks(_spec(trials))

    def run() -> object:
        with blas_limits():  # as the engine's executors do
            return [task.fn(*task.args) for task in tasks]

    return run


def _executor(jobs: int, scheduler: str | None = None) -> Callable[[], Any]:
    def make() -> Any:
        from pairlab.sweep import make_executor

        return make_executor(jobs, scheduler)

    return make


def cases(quick: bool) -> list[BenchCase]:
    overhead_trials = 100 if quick else 1000
    parallel_trials = 60 if quick else 300
    info: dict[str, Any] = {}
    out = [
        BenchCase(f"sweep-overhead-{overhead_trials}-trials",
                  _sweep(overhead_trials, _executor(1), info), _plain_loop(overhead_trials),
                  "a plain loop over the same trials", N_SAMPLES, 2, 3, 0, goal=1.05,
                  group="sweep", info=info),
        BenchCase(f"sweep-2-local-workers-{parallel_trials}-trials", _sweep(parallel_trials, _executor(2)),
                  _sweep(parallel_trials, _executor(1)), "the same sweep with --jobs 1",
                  N_SAMPLES, 2, 3, 0, goal=1 / 1.7, group="sweep"),
    ]
    try:
        import distributed  # noqa: F401
    except ImportError:
        return out
    out.append(BenchCase(f"sweep-dask-2-workers-{parallel_trials}-trials",
                         _sweep(parallel_trials, _executor(2, "local")),
                         _sweep(parallel_trials, _executor(2)), "the same sweep with --jobs 2",
                         N_SAMPLES, 2, 3, 0, goal=1.2, group="sweep"))
    return out
