"""The experiment engine's cost (issue 15): overhead per trial against a plain loop over the same
trials, the speed-up of 2 local worker processes over 1, and a 2-worker Dask LocalCluster against
``--jobs 2`` (goal 1.2, issue 37).

Every trial is the same fixed amount of work (GMM, 20 EM iterations with ``tol = 0`` on 3 blobs,
about 20-28 ms); every timed run recomputes all trials (``fresh``) and writes the store, the
table, the summary and the JSON as ``pairlab sweep`` does. Worker pools are started before the
first timed run (by the warm-up run) and kept, so start-up is not timed; the ratio of the
speed-up case is time(2 workers) / time(1): its goal 0.59 is a speed-up of 1.7.

The overhead case runs the plain loop inside the sweep, trial by trial (:class:`TwinnedExecutor`):
after each of the sweep's trials the plain loop's call of the previous trial runs and is timed, so
the sweep's own time is the sweep's wall time less those calls, and the two sides are never more
than a trial (~25 ms) apart. Its ratio is the median over runs of sweep / plain loop. Before
27 Nov 2026 the case timed whole sweeps against whole plain loops in alternating rounds; on the
development machine, whose speed switches between two modes (a trial ~20 or ~30-40 ms) every few
seconds, a round's ratio ranged 0.76-1.33 with the engine unchanged, so three consecutive runs
could not show a 5 % bound (docs/sweeps.md, eighth session). What the interleaving cannot see is
a slowdown the sweep provokes with a delay of seconds (its writes making the host slower);
``docs/measurements/trial_writes.py`` measures that separately. The case also reports
``in_sweep_ratio``: each sweep's own time over the summed times of its own trials.
The other two cases time whole sweeps in alternating rounds (:func:`pairlab.bench.pair_samples`).
"""

from __future__ import annotations

import atexit
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from pairlab.bench import BenchCase
from pairlab.sweep.executors import Outcomes, SerialExecutor, Task, blas_limits, execute

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


def _sweep(trials: int, executor: Callable[[], Any]) -> Callable[[], object]:
    """A timed callable running the whole sweep on the executor ``executor()`` makes (made once)."""
    from pairlab.sweep import run_sweep

    spec, out, made = _spec(trials), _folder(), []

    def run() -> object:
        if not made:
            made.append(executor())
            atexit.register(made[0].close)
        return run_sweep(spec, out, made[0], fresh=True, progress=None)

    return run


class TwinnedExecutor(SerialExecutor):
    """``--jobs 1`` with the plain loop run beside the sweep: after the sweep's trial ``i`` (before
    the engine stores it) the plain loop's call of trial ``i - 1`` (the last trial for ``i = 0``)
    runs and is timed, adding to :attr:`plain_seconds`. Each plain call follows a trial, as in a
    plain loop; each of the sweep's trials follows the engine's work, as in a sweep; no call
    follows its own computation; every trial runs once on each side."""

    def __init__(self) -> None:
        self.plain_seconds = 0.0

    def run(self, tasks: Sequence[Task]) -> Outcomes:
        self.plain_seconds = 0.0
        with blas_limits():
            for i, task in enumerate(tasks):
                outcome = execute(task.fn, task.args, worker=False)
                twin = tasks[i - 1]
                start = time.perf_counter()
                twin.fn(*twin.args)
                self.plain_seconds += time.perf_counter() - start
                yield i, outcome


def _twinned_sweep(trials: int, info: dict[str, Any]) -> Callable[[], object]:
    """A timed callable running the sweep on a :class:`TwinnedExecutor`; each run appends its
    ``(sweep, plain loop)`` seconds to ``info["sweep_and_plain_s"]`` and its in-sweep ratio (the
    sweep's own time over its trials' summed times) to ``info["in_sweep_ratios"]``."""
    from pairlab.sweep import run_sweep

    spec, out, executor, pairs, ratios = _spec(trials), _folder(), TwinnedExecutor(), [], []

    def run() -> object:
        start = time.perf_counter()
        result = run_sweep(spec, out, executor, fresh=True, progress=None)
        sweep = time.perf_counter() - start - executor.plain_seconds
        pairs.append((round(sweep, 4), round(executor.plain_seconds, 4)))
        ratios.append(sweep / max(sum(result.engine.seconds), 1e-9))
        info["sweep_and_plain_s"] = list(pairs)
        info["in_sweep_ratio"] = round(statistics.median(ratios), 4)
        info["in_sweep_ratios"] = [round(r, 4) for r in ratios]
        return result

    return run


def _plain_loop(trials: int) -> Callable[[], object]:
    """The same trials called one after the other, no store, no table, no engine (the plain loop
    the scripts in docs/measurements time whole against whole sweeps)."""
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
        BenchCase(f"sweep-overhead-{overhead_trials}-trials", _twinned_sweep(overhead_trials, info),
                  None, "a plain loop over the same trials, run trial by trial beside the sweep",
                  N_SAMPLES, 2, 3, 0, goal=1.05, group="sweep", info=info,
                  paired_key="sweep_and_plain_s"),
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
