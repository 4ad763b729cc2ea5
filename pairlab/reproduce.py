"""Running reproductions: parallel trials, provenance, claim checks and ``pairlab reproduce``.

The recipe type (:class:`~pairlab.reproduction.Reproduction`) lives in :mod:`pairlab.reproduction`.

Per-trial seeds come from ``SeedSequence([seed, crc32(name), trial])``, so results do not depend on
``--jobs`` or on the order in which workers finish.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import sys
import time
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .constraints import atomic_write_text
from .errors import InvalidInputError
from .reproduction import Reproduction, jsonable

__all__ = ["provenance", "reproduce", "trial_seed"]


def trial_seed(seed: int, name: str, trial: int) -> int:
    """The seed of one trial, derived from (base seed, recipe, trial index) only."""
    ss = np.random.SeedSequence([seed, zlib.crc32(name.encode()), trial])
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def _run_trial(recipe: Reproduction, index: int, seed: int, options: dict[str, Any]
               ) -> dict[str, Any]:
    return recipe.trial(index, seed, options)


def _progress(done: int, total: int, start: float, stream: Any) -> None:
    if stream is None:
        return
    width = 30
    filled = int(width * done / max(total, 1))
    elapsed = time.perf_counter() - start
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} trials "
                 f"{elapsed:5.1f} s")
    if done == total:
        stream.write("\n")
    stream.flush()


def provenance(argv: Sequence[str] | None, wall: float) -> dict[str, Any]:
    """Versions, platform and command line behind a result."""
    import scipy

    from . import __version__
    from .registry import get_registry

    qt = None
    try:
        from importlib.metadata import version

        qt = {"PySide6": version("PySide6-Essentials"), "pyqtgraph": version("pyqtgraph")}
    except Exception:  # Qt is optional for the computation
        pass
    plugins = {p.name: f"{p.distribution} {p.version}" for p in get_registry().plugins if p.ok}
    return {
        "pairlab": __version__, "plugins": plugins, "numpy": np.__version__,
        "scipy": scipy.__version__, "qt": qt, "python": platform.python_version(),
        "platform": platform.platform(),
        "command": " ".join(["pairlab", *(argv if argv is not None else sys.argv[1:])]),
        "wall_seconds": wall,
    }


def reproduce(
    recipe: Reproduction,
    out_dir: str | os.PathLike[str],
    *,
    trials: int | None = None,
    seed: int = 0,
    jobs: int | None = None,
    options: dict[str, Any] | None = None,
    render: bool = True,
    progress: Any = sys.stderr,
    argv: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Run ``recipe``'s trials (in ``jobs`` processes), summarise, check claims, write outputs.

    Writes NAME.json (numbers, options, per-trial seeds, claims, provenance), NAME.csv (curves,
    if any) and, with ``render``, NAME.png and NAME.svg. Returns the JSON document.
    """
    start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    n_trials = recipe.default_trials if trials is None else trials
    if n_trials < 1:
        raise InvalidInputError(f"--trials must be >= 1, got {n_trials}")
    jobs = os.cpu_count() or 1 if jobs is None else jobs
    if jobs < 1:
        raise InvalidInputError(f"--jobs must be >= 1, got {jobs}")
    options = dict(options or {})
    seeds = [trial_seed(seed, recipe.name, t) for t in range(n_trials)]
    results: list[dict[str, Any] | None] = [None] * n_trials
    _progress(0, n_trials, start, progress)
    if jobs == 1 or n_trials == 1:
        for t in range(n_trials):
            results[t] = recipe.trial(t, seeds[t], options)
            _progress(t + 1, n_trials, start, progress)
    else:
        import multiprocessing as mp

        ctx = mp.get_context("forkserver" if sys.platform != "win32" else "spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, n_trials), mp_context=ctx) as pool:
            futures = {pool.submit(_run_trial, recipe, t, seeds[t], options): t
                       for t in range(n_trials)}
            done = 0
            from concurrent.futures import as_completed

            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                done += 1
                _progress(done, n_trials, start, progress)
    result = recipe.summarize([r for r in results if r is not None], options)
    claims = recipe.claims(result)
    files: list[str] = []
    if result.curves:
        csv_path = out / f"{recipe.name}.csv"
        atomic_write_text(csv_path, _curves_csv(result.curves))
        files.append(csv_path.name)
    if render:
        files += [Path(p).name for p in recipe.render(result, out)]
    doc = {
        "name": recipe.name, "title": recipe.title, "paper": recipe.paper,
        "options": options, "seed": seed, "trials": n_trials, "trial_seeds": seeds,
        "data": result.data, "notes": result.notes,
        "claims": [c.describe() for c in claims],
        "all_claims_held": all(c.held for c in claims),
        "files": files,
    }
    doc["provenance"] = provenance(argv, time.perf_counter() - start)
    doc = jsonable(doc)
    atomic_write_text(out / f"{recipe.name}.json", json.dumps(doc, indent=1) + "\n")
    return doc


def _curves_csv(curves: dict[str, dict[str, Sequence[float]]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["curve", "column", "index", "value"])
    for cname, cols in curves.items():
        for col, values in cols.items():
            for i, v in enumerate(np.asarray(values, dtype=float).ravel()):
                w.writerow([cname, col, i, repr(float(v))])
    return buf.getvalue()


# -- command line -----------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="reproduction name (see --list)")
    parser.add_argument("--list", action="store_true", help="list reproductions")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="output folder (default: ./reproductions/NAME)")
    parser.add_argument("--trials", type=int, default=None, help="number of random trials")
    parser.add_argument("--quick", action="store_true", help="few trials (what CI runs)")
    parser.add_argument("--seed", type=int, default=0, help="base seed")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 3 when a claim of the paper does not hold")
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help="folder with the paper's UCI files (e.g. haberman.data)")
    parser.add_argument("--no-render", action="store_true", help="compute and write JSON only")


def run(args: argparse.Namespace) -> int:
    from .registry import get_registry

    reg = get_registry()
    if args.list or not args.name:
        for e in reg.entries("reproductions"):
            alias = f" (alias {', '.join(e.obj.aliases)})" if e.obj.aliases else ""
            print(f"{e.name:<14} {e.obj.title}{alias}")
        if not reg.names("reproductions"):
            print("no reproductions are registered")
        if not args.list:
            print("\nusage: pairlab reproduce NAME [--out DIR] [--trials N] [--check]",
                  file=sys.stderr)
            return 2
        return 0
    recipe = reg.reproduction(args.name)
    trials = args.trials if args.trials is not None else (
        recipe.quick_trials if args.quick else None)
    out = args.out or os.path.join("reproductions", recipe.name)
    doc = reproduce(recipe, out, trials=trials, seed=args.seed, jobs=args.jobs,
                    options=recipe.options(args), render=not args.no_render,
                    argv=getattr(args, "argv", None))
    print(f"{recipe.title}: {doc['trials']} trial(s), "
          f"{doc['provenance']['wall_seconds']:.1f} s -> {out}")
    for c in doc["claims"]:
        mark = "held    " if c["held"] else "NOT HELD"
        print(f"  [{mark}] {c['statement']} (measured: {c['measured']})")
    for note in doc["notes"]:
        print(f"  note: {note}")
    if args.check and not doc["all_claims_held"]:
        print("pairlab: some claims of the paper did not hold (see above)", file=sys.stderr)
        return 3
    return 0

