"""``pairlab bench``: speed measured against references in one run.

A benchmark case times one unit of work (usually one iteration) of a subject and of a reference on
the same data in the same process, their samples interleaved, and reports the median times and
the median of the per-round ratios against the goal the issue tracker set. Cases live in
``pairlab/benchcases/<topic>.py`` modules, each defining ``cases(quick: bool) ->
list[BenchCase]``. Scaling runs time one step of every registered algorithm at several sizes and
fit the growth exponent in n.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .argtypes import positive_int

__all__ = ["BenchCase", "discover_cases", "machine_info", "pair_ratio", "pair_samples", "run_case",
           "scaling", "time_call", "time_pair"]


@dataclass
class BenchCase:
    """One comparison: ``subject`` and ``reference`` each do one unit of work on prepared data.

    ``goal`` bounds the ratio subject / reference; ``goal_seconds`` bounds the subject's median time
    (for goals an issue states in seconds, e.g. "one sweep under 1 s on one core").
    """

    name: str
    subject: Callable[[], object]
    reference: Callable[[], object] | None
    reference_name: str
    n: int
    d: int
    k: int
    links: int
    goal: float | None = None
    group: str = ""
    goal_seconds: float | None = None
    repeats: int | None = None
    """Timed runs for this case (long cases: 1, without a warm-up run); None: the bench's."""
    info: dict[str, Any] | None = None
    """Filled by the subject while it runs (e.g. iterations, peak memory); printed and saved."""
    seconds_key: str | None = None
    """A key of ``info`` where the subject reports the seconds of the work the goal is about (a
    fresh process's run, without starting the interpreter and making the data): the case's time
    and its goal use that; the subject's whole wall time is kept as ``process_seconds``."""
    paired_key: str | None = None
    """A key of ``info`` where the subject reports, run by run, ``(subject, reference)`` seconds it
    timed itself with the two sides interleaved finer than a run (``reference`` is then None): the
    case's times and ratio come from those pairs (:func:`pair_ratio`), the subject's whole wall
    time is kept as ``process_seconds``."""


def time_call(fn: Callable[[], object], *, repeats: int = 5, warmup: int = 1,
              min_time: float = 0.0) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs after ``warmup`` untimed runs.

    With ``min_time``, short calls are looped so that each timed sample lasts at least that long.
    """
    for _ in range(warmup):
        fn()
    loops = 1
    if min_time > 0:
        start = time.perf_counter()
        fn()
        once = max(time.perf_counter() - start, 1e-9)
        loops = max(1, int(min_time / once))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - start) / loops)
    return statistics.median(samples)


def pair_samples(subject: Callable[[], object], reference: Callable[[], object], *, repeats: int = 5,
                 warmup: int = 1, min_time: float = 0.0) -> tuple[list[float], list[float]]:
    """Wall times of ``subject()`` and ``reference()`` in ``repeats`` rounds of one sample each.

    Rounds alternate which side goes first (subject, reference; reference, subject; ...), so the
    side effects of one (files it leaves for the kernel to write, garbage) and a drift of the
    machine's load fall on both sides alike. Short calls are looped to ``min_time`` as in
    :func:`time_call`.
    """
    for _ in range(warmup):
        subject()
        reference()
    loops = []
    for fn in (subject, reference):
        n = 1
        if min_time > 0:
            start = time.perf_counter()
            fn()
            n = max(1, int(min_time / max(time.perf_counter() - start, 1e-9)))
        loops.append(n)
    samples: tuple[list[float], list[float]] = ([], [])
    sides = list(zip((subject, reference), loops, samples, strict=True))
    for r in range(repeats):
        for fn, n, out in (sides if r % 2 == 0 else sides[::-1]):
            start = time.perf_counter()
            for _ in range(n):
                fn()
            out.append((time.perf_counter() - start) / n)
    return samples


def time_pair(subject: Callable[[], object], reference: Callable[[], object], *, repeats: int = 5,
              warmup: int = 1, min_time: float = 0.0) -> tuple[float, float]:
    """Median wall times of ``subject()`` and ``reference()``, their samples interleaved
    (:func:`pair_samples`)."""
    s, r = pair_samples(subject, reference, repeats=repeats, warmup=warmup, min_time=min_time)
    return statistics.median(s), statistics.median(r)


def pair_ratio(subject: list[float], reference: list[float]) -> float:
    """The bench's ratio: the median over rounds of subject / reference within the round.

    The two samples of a round ran one right after the other, under nearly the same load; a
    ratio of the two medians instead may divide a sample from a busy minute by one from a quiet
    one (docs/sweeps.md, Measured: the estimators compared on the same samples).
    """
    return statistics.median(s / r for s, r in zip(subject, reference, strict=True))


def discover_cases(quick: bool, only: str | None = None) -> tuple[list[BenchCase], list[str]]:
    """Collect cases from every ``pairlab.benchcases`` module; errors are reported, not fatal."""
    from . import benchcases

    cases: list[BenchCase] = []
    errors: list[str] = []
    for mod in sorted(pkgutil.iter_modules(benchcases.__path__), key=lambda m: m.name):
        try:
            module = importlib.import_module(f"pairlab.benchcases.{mod.name}")
            found = module.cases(quick)
        except Exception as exc:  # a broken case module must not stop the others
            errors.append(f"{mod.name}: {type(exc).__name__}: {exc}")
            continue
        cases.extend(found)
    return select_cases(cases, only), errors


def select_cases(cases: list[BenchCase], only: str | None) -> list[BenchCase]:
    """The cases ``--only`` asks for: its text in the name, or the exact group."""
    return [c for c in cases if not only or only in c.name or only == c.group]


def run_case(case: BenchCase, *, repeats: int, min_time: float) -> dict[str, Any]:
    """Time a case; the result is one JSON-ready entry."""
    entry: dict[str, Any] = {
        "name": case.name, "group": case.group, "n": case.n, "d": case.d, "k": case.k,
        "links": case.links, "reference": case.reference_name, "goal": case.goal,
        "goal_seconds": case.goal_seconds,
    }
    if case.repeats is not None:
        repeats, min_time = case.repeats, 0.0
    warmup = 0 if case.repeats is not None else 1
    try:
        if case.reference is not None:
            subject, reference = pair_samples(case.subject, case.reference, repeats=repeats,
                                              warmup=warmup, min_time=min_time)
            entry["median_seconds"] = statistics.median(subject)
            entry["reference_seconds"] = statistics.median(reference)
            entry["ratio"] = pair_ratio(subject, reference)
            entry["ratio_of_medians"] = entry["median_seconds"] / entry["reference_seconds"]
            entry["samples"] = {"subject": subject, "reference": reference}
        elif case.paired_key is not None:
            entry["process_seconds"] = time_call(case.subject, repeats=repeats, warmup=warmup)
            pairs = (case.info or {}).get(case.paired_key, [])[-repeats:]
            if len(pairs) != repeats:
                raise ValueError(f"case {case.name}: paired_key needs info[{case.paired_key!r}] "
                                 f"to hold a (subject, reference) pair for each run")
            subject, reference = [p[0] for p in pairs], [p[1] for p in pairs]
            entry["median_seconds"] = statistics.median(subject)
            entry["reference_seconds"] = statistics.median(reference)
            entry["ratio"] = pair_ratio(subject, reference)
            entry["samples"] = {"subject": subject, "reference": reference}
        else:
            entry["median_seconds"] = time_call(case.subject, repeats=repeats, warmup=warmup,
                                                min_time=min_time)
            entry["reference_seconds"] = entry["ratio"] = None
        if case.seconds_key is not None:
            if repeats != 1 or not case.info or case.seconds_key not in case.info:
                raise ValueError(f"case {case.name}: seconds_key needs one timed run that sets "
                                 f"info[{case.seconds_key!r}]")
            entry["process_seconds"] = entry["median_seconds"]
            entry["median_seconds"] = float(case.info[case.seconds_key])
        checks = []
        if case.goal is not None and entry["ratio"] is not None:
            checks.append(entry["ratio"] <= case.goal)
        if case.goal_seconds is not None:
            checks.append(entry["median_seconds"] <= case.goal_seconds)
        entry["met"] = all(checks) if checks else None
        if case.info:
            entry["info"] = dict(case.info)
    except Exception as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"
        entry["where"] = traceback.format_exc(limit=-1).strip().splitlines()[-2:]
    return entry


SCALING_SETUPS: dict[str, dict[str, Any]] = {
    "gmm": {"n_components": 4},
    "kmeans": {"n_clusters": 4},
    "gmpr": {"n_components": 4},
    "gmpr-mixture": {"n_components": 4},
    "constrained-em": {"n_components": 4},
    "ppc": {"n_components": 4},
    "affinity-propagation": {},
    "scssap": {},
    "rdpmeans": {},
    "dpmeans": {},
    "tvclust": {},
    "tvclust-variational": {},
    "affinity-propagation n_neighbors=10": {"n_neighbors": 10},
    "scssap n_neighbors=10": {"n_neighbors": 10},
}
"""Label -> parameters; the algorithm is the label's first word."""

# sizes (quick, full) where the default 1e3-4e3 / 5e3-2e4 do not fit
_SCALING_SIZES: dict[str, tuple[list[int], list[int]]] = {
    "affinity-propagation": ([200, 400, 800], [500, 1000, 2000]),
    "scssap": ([200, 400, 800], [500, 1000, 2000]),
    "affinity-propagation n_neighbors=10": ([2000, 4000, 8000], [10_000, 30_000, 100_000]),
    "scssap n_neighbors=10": ([2000, 4000, 8000], [10_000, 30_000, 100_000]),
}


def scaling(quick: bool, only: str | None = None) -> list[dict[str, Any]]:
    """Time one step of each registered algorithm at three sizes; fit log t = a log n + b.

    Data: 4 Gaussian blobs in 2-D with n/10 random must-links and n/10 cannot-links for
    algorithms that use constraints. Quadratic algorithms (affinity propagation) get smaller n.
    """
    from .links import random_pairs
    from .registry import get_registry
    from .run import Run

    reg = get_registry()
    out = []
    for label, params in SCALING_SETUPS.items():
        name = label.split()[0]
        if name not in reg.names("algorithms") or (only and only not in label and name not in only):
            continue
        quick_sizes, full_sizes = _SCALING_SIZES.get(label, ([1000, 2000, 4000],
                                                            [5000, 10000, 20000]))
        sizes = quick_sizes if quick else full_sizes
        algo = reg.algorithm(name)
        times = []
        try:
            for n in sizes:
                data = reg.dataset("gaussian-blobs").make(seed=0, n_samples=n, n_centers=4,
                                                          cluster_std=1.5)
                links = random_pairs(data.y, n // 10, n // 10, np.random.default_rng(0)) \
                    if algo.uses_constraints else None
                run = Run(algo, data, links, params, seed=0)
                state = run.state
                times.append(time_call(lambda r=run, s=state: r.algorithm.step(s), repeats=3,
                                       min_time=0.05))
            slope = float(np.polyfit(np.log(sizes), np.log(times), 1)[0])
            out.append({"algorithm": label, "sizes": sizes, "seconds": times, "exponent": slope})
        except Exception as exc:
            out.append({"algorithm": label, "sizes": sizes, "error": f"{type(exc).__name__}: {exc}"})
    return out


def machine_info() -> dict[str, Any]:
    blas = None
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {}).get("name")
    except Exception:  # older numpy without mode="dicts"
        pass
    threads = None
    try:
        from threadpoolctl import threadpool_info

        threads = [{"api": i.get("internal_api"), "threads": i.get("num_threads")}
                   for i in threadpool_info()]
    except ImportError:
        pass
    return {
        "cores": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "numpy": np.__version__, "blas": blas,
        "threadpools": threads,
    }


def goal_text(case: BenchCase) -> str:
    """The goal as the table prints it, every digit kept (``1.05``, not ``1.1``: a ratio of 1.09
    must not look within a goal it misses)."""
    if case.goal_seconds is not None:
        return f"<{case.goal_seconds:g}s"
    return "-" if case.goal is None else f"{case.goal:g}"


def _fmt_s(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1e3:9.2f} ms" if value < 1 else f"{value:9.3f} s "


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="small sizes (under a minute)")
    parser.add_argument("--json", metavar="FILE", help="write results as JSON")
    parser.add_argument("--only", metavar="NAME", help="cases whose name contains NAME")
    parser.add_argument("--repeats", type=positive_int, default=None, help="timed runs per measurement")
    parser.add_argument("--no-scaling", action="store_true", help="skip the scaling runs")
    parser.add_argument("--threads", type=positive_int, default=1,
                        help="BLAS threads for subject and reference alike (default 1: on a shared "
                             "machine threaded BLAS waits for time slices and hides the algorithms)")


# Thread pools a case may load only when it runs: SciPy and scikit-learn bring their own OpenBLAS
# and OpenMP, which a limit set before they were loaded does not reach (threadpoolctl limits the
# libraries loaded at the time), so they are loaded before the limit is set.
_PRELOAD = ("scipy.linalg", "scipy.sparse.linalg", "sklearn.cluster")
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def limit_threads(threads: int) -> Any:
    """Limit every BLAS and OpenMP pool of this process to ``threads`` and set the environment
    variables that child processes (the sweep cases' workers) read at start; returns the
    threadpoolctl context, to be exited when the bench ends."""
    from threadpoolctl import threadpool_limits

    for name in _THREAD_VARIABLES:
        os.environ[name] = str(threads)
    for module in _PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    return threadpool_limits(threads)


def run(args: argparse.Namespace) -> int:
    with limit_threads(args.threads):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    repeats = args.repeats or (3 if args.quick else 7)
    min_time = 0.02 if args.quick else 0.1
    if args.json:
        from .atomic import check_writable_file

        check_writable_file(args.json)  # before minutes of timing, not after
    every, errors = discover_cases(args.quick)
    cases = select_cases(every, args.only)
    scaled = [n for n in SCALING_SETUPS if args.only and (args.only in n or n in args.only)]
    if args.only and not cases and (args.no_scaling or not scaled):
        from .errors import InvalidInputError

        names = sorted({c.name for c in every})
        raise InvalidInputError(f"no benchmark case matches --only {args.only!r}; cases: "
                                f"{', '.join(names)}.")
    results = []
    print(f"{'case':<38} {'n':>7} {'links':>7} {'subject':>12} {'reference':>12} "
          f"{'ratio':>7} {'goal':>6}  reference")
    for case in cases:
        entry = run_case(case, repeats=repeats, min_time=min_time)
        results.append(entry)
        if "error" in entry:
            print(f"{case.name:<38} ERROR {entry['error']}")
            continue
        ratio = "-" if entry["ratio"] is None else f"{entry['ratio']:7.2f}"
        goal = goal_text(case)
        flag = "" if entry["met"] is None else ("  ok" if entry["met"] else "  SLOWER THAN GOAL")
        print(f"{case.name:<38} {case.n:>7} {case.links:>7} {_fmt_s(entry['median_seconds']):>12} "
              f"{_fmt_s(entry['reference_seconds']):>12} {ratio:>7} {goal:>6}  "
              f"{case.reference_name}{flag}")
        if entry.get("info"):
            print(" " * 40 + ", ".join(f"{k} {v}" for k, v in entry["info"].items()))
        if "process_seconds" in entry and case.paired_key is not None:
            print(" " * 40 + f"times and ratio = the two sides as each run timed them "
                             f"({case.paired_key}); a whole run took "
                             f"{_fmt_s(entry['process_seconds']).strip()}")
        elif "process_seconds" in entry:
            print(" " * 40 + f"time = the run's own ({case.seconds_key}); the whole process took "
                             f"{_fmt_s(entry['process_seconds']).strip()}")
        of_medians = entry.get("ratio_of_medians")
        if of_medians is not None and abs(of_medians / entry["ratio"] - 1) > 0.02:
            # the ratio column is the median of the rounds' ratios (pair_ratio): say when the two
            # medians beside it would give another number
            print(" " * 40 + f"ratio = median of the rounds' ratios; the medians' ratio is "
                             f"{of_medians:.2f}")
    for err in errors:
        print(f"case module failed: {err}", file=sys.stderr)
    scale = [] if args.no_scaling else scaling(args.quick, args.only)
    if scale:
        print("\nscaling (one step, time vs n):")
        for s in scale:
            if "error" in s:
                print(f"  {s['algorithm']:<36} ERROR {s['error']}")
                continue
            cells = ", ".join(f"n={n}: {_fmt_s(t).strip()}" for n, t in
                              zip(s["sizes"], s["seconds"], strict=True))
            print(f"  {s['algorithm']:<36} exponent {s['exponent']:.2f}   ({cells})")
    if args.json:
        from .atomic import atomic_write_text
        from .jsontext import dumps

        doc = {"machine": {**machine_info(), "blas_threads_used": args.threads},
               "quick": args.quick, "cases": results,
               "scaling": scale, "case_module_errors": errors}
        atomic_write_text(args.json, dumps(doc) + "\n")  # strict JSON: NaN timings become null
    return 0
