"""Running reproductions: parallel trials, provenance, claim checks and ``pairlab reproduce``.

The recipe type (:class:`~pairlab.reproduction.Reproduction`) lives in :mod:`pairlab.reproduction`.

Every trial is one task of the experiment engine (:mod:`pairlab.sweep`): run in local processes or
on a Dask cluster, stored as it finishes under ``OUT/.trials`` and reused by the next run (keyed by a
content hash of the recipe, its plugin's and pairlab's versions and source code, the options, the
index and the seed). Per-trial seeds come from ``SeedSequence([seed, crc32(name), trial])``, so results do not
depend on ``--jobs``, the executor or the order in which workers finish. A recipe may instead
declare its experiment as a sweep grid (:meth:`~pairlab.reproduction.Reproduction.grid`).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .argtypes import non_negative_int, positive_int
from .atomic import atomic_write_text
from .display import ReproductionDocument, has_matplotlib
from .errors import InvalidInputError
from .extras import GUI_INSTALL, missing_gui
from .params import parse_assignments
from .reproduction import Reproduction, ReproductionError, jsonable
from .reproduction_index import trial_cpu_text
from .sweep.engine import STDERR, run_tasks
from .sweep.executors import Task, make_executor
from .sweep.fingerprint import code_fingerprint
from .sweep.grid import SweepSpec, content_key, trial_seed, versions_of
from .sweep.provenance import provenance
from .sweep.runner import TRIALS_DIR, run_sweep
from .sweep.spec import parse_spec
from .sweep.store import TrialStore

__all__ = ["TRIALS_DIR", "provenance", "reproduce", "reproduce_all", "trial_seed"]


def recipe_trial(recipe: Reproduction, index: int, seed: int, options: dict[str, Any]
                 ) -> dict[str, Any]:
    """One engine task of a recipe: its trial ``index`` (runs in a worker)."""
    return recipe.trial(index, seed, options)


def trial_key(recipe: Reproduction, index: int, seed: int, options: dict[str, Any]) -> str:
    """Content hash of one recipe trial: the recipe, its plugin's and pairlab's versions and
    source code, the options, the trial index and its seed."""
    return content_key({"kind": "reproduction", "recipe": recipe.name,
                        "class": f"{type(recipe).__module__}.{type(recipe).__qualname__}",
                        "versions": versions_of(type(recipe)),
                        "code": code_fingerprint(type(recipe).__module__), "index": index, "seed": seed,
                        "options": jsonable(options)})


def reproduce(
    recipe: Reproduction,
    out_dir: str | os.PathLike[str],
    *,
    trials: int | None = None,
    seed: int = 0,
    jobs: int | None = None,
    options: dict[str, Any] | None = None,
    render: bool = True,
    progress: Any = STDERR,
    argv: Sequence[str] | None = None,
    scheduler: str | None = None,
    fresh: bool = False,
    backend: str = "auto",
    formats: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Run ``recipe``'s trials through the engine, summarise, check claims, write outputs.

    ``options`` is the dict :meth:`~pairlab.reproduction.Reproduction.options` builds (None: the
    recipe's defaults). Trials run in ``jobs`` local processes or on the Dask cluster
    ``scheduler`` and are stored one by one under ``OUT/.trials`` (so an interrupted run
    continues; ``fresh`` recomputes). Writes
    NAME.json (numbers, options, per-trial seeds, claims, provenance), NAME.csv (curves,
    if any) and, with ``render``, the figure in ``formats`` (default PNG and SVG) drawn by
    ``backend`` (``"auto"``: the app's canvas when Qt is installed, else matplotlib;
    ``"matplotlib"``: headless, also PDF). Returns the JSON document; its ``figures`` are the
    matplotlib ``Figure`` objects drawn (restyle and save them again), empty with Qt.
    """
    from .figure_backend import figures_drawn

    with figures_drawn(backend, formats):  # bad names fail before any trial runs
        pass
    start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    n_trials = recipe.default_trials if trials is None else trials
    if n_trials < 1:
        raise InvalidInputError(f"--trials must be >= 1, got {n_trials}")
    jobs = (os.cpu_count() or 1) if jobs is None else jobs
    if jobs < 1:
        raise InvalidInputError(f"--jobs must be >= 1, got {jobs}")
    options = recipe.options() if options is None else dict(options)
    grid = recipe.grid(options)
    spec = None
    if grid is not None:
        spec = grid if isinstance(grid, SweepSpec) else parse_spec(grid)
        spec = replace(spec, trials=n_trials, seed=seed, name=f"{recipe.name}-trials")
    n_tasks = n_trials * (1 if spec is None else len(spec.cells()))
    with make_executor(jobs if scheduler else min(jobs, n_tasks), scheduler) as executor:
        if spec is None:
            seeds: Any = [trial_seed(seed, recipe.name, t) for t in range(n_trials)]
            tasks = [Task(trial_key(recipe, t, seeds[t], options), recipe_trial,
                          (recipe, t, seeds[t], options), f"{recipe.name} trial {t}", "pickle")
                     for t in range(n_trials)]
            ran = run_tasks(tasks, TrialStore(out / TRIALS_DIR), executor, fresh=fresh,
                            progress=progress)
            failed = [(t, e) for t, e in enumerate(ran.errors) if e]
            if failed:
                raise ReproductionError(
                    f"{recipe.name}: {len(failed)} of {n_trials} trials failed (the others are "
                    "stored; the same command runs only the failed ones again): "
                    + "; ".join(f"trial {t}: {e}" for t, e in failed[:3]))
            results = ran.values
        else:
            swept = run_sweep(spec, out, executor, fresh=fresh, progress=progress, argv=argv)
            results, ran = swept.rows, swept.engine
            seeds = f"per row in {swept.table.name}"
    result = recipe.summarize(results, options)
    claims = recipe.claims(result)
    files: list[str] = []
    if result.curves:
        csv_path = out / f"{recipe.name}.csv"
        atomic_write_text(csv_path, _curves_csv(result.curves))
        files.append(csv_path.name)
    figures: list[Any] = []
    if render and missing_gui() and not has_matplotlib():
        result.notes.append(f"figures not drawn: Qt is not installed ({GUI_INSTALL}), nor is "
                            'matplotlib (pip install "pairlab[figures]"); the results and tables '
                            "are written")
    elif render:
        with figures_drawn(backend, formats) as drawn:
            files += [Path(p).name for p in recipe.render(result, out)]
        figures = drawn.figures
    reused_wall, reused_cpu, untimed = ran.reused_time()
    doc = {
        "name": recipe.name, "title": recipe.title, "paper": recipe.paper,
        "options": options, "seed": seed, "trials": n_trials, "trial_seeds": seeds,
        "engine": {"executor": ran.executor, "stored": ran.stored, "ran": ran.ran,
                   "corrupt_recomputed": len(ran.corrupt),
                   # the trials this run computed (stored ones count 0), summed over workers
                   "trial_wall_seconds": float(sum(ran.seconds)),
                   "trial_cpu_seconds": float(sum(ran.cpu_seconds)),
                   # the stored trials' times as recorded when they ran (an earlier run or
                   # session), and how many stored trials have none (files from before)
                   "reused_trial_wall_seconds": float(reused_wall),
                   "reused_trial_cpu_seconds": float(reused_cpu),
                   "reused_without_time": untimed},
        "data": result.data, "notes": result.notes,
        "claims": [c.describe() for c in claims],
        "all_claims_held": all(c.held for c in claims),
        "files": files,
    }
    doc["provenance"] = provenance(argv, time.perf_counter() - start)
    doc = jsonable(doc)
    atomic_write_text(out / f"{recipe.name}.json", json.dumps(doc, indent=1) + "\n")
    return ReproductionDocument(doc, out, figures)


def reproduce_all(
    out_dir: str | os.PathLike[str],
    args: argparse.Namespace,
    *,
    names: Sequence[str] | None = None,
    progress: Any = STDERR,
) -> list[Any]:
    """Run every registered recipe (or ``names``) into ``OUT/NAME`` and write the index page.

    Each recipe runs as ``pairlab reproduce NAME --out OUT/NAME`` would, with the options of
    ``args`` (``--quick``, ``--trials``, ``--seed``, ``--jobs``, ``--scheduler``, ``--fresh``,
    ``--data-dir``, ``--no-render``), so the whole run resumes from the stored trials. A recipe that
    cannot run (its data are missing, a plugin is not registered) is listed on the page with the
    reason instead of stopping the others. Returns the :class:`~pairlab.reproduction_index.IndexEntry`
    list; the page is OUT/index.html and OUT/index.md.
    """
    from .errors import PairlabError
    from .registry import get_registry
    from .reproduction_index import IndexEntry, write_index

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    reg = get_registry()
    names = list(names) if names is not None else reg.names("reproductions")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    start = time.perf_counter()
    entries = []
    for name in names:
        recipe = reg.reproduction(name)
        entry = IndexEntry(recipe.name, recipe.title, recipe.paper, recipe.name)
        trials = args.trials if args.trials is not None else (
            recipe.quick_trials if args.quick else None)
        if progress is not None:
            print(f"== {recipe.name}: {recipe.title}", file=progress, flush=True)
            if expected := expected_time(recipe, trials):
                print(expected, file=progress, flush=True)
        try:
            doc = reproduce(recipe, out / recipe.name, trials=trials, seed=args.seed,
                            jobs=args.jobs, options=recipe_options(recipe, args, strict=False),
                            render=not args.no_render, progress=progress,
                            argv=getattr(args, "argv", None), scheduler=args.scheduler,
                            fresh=args.fresh, **figure_options(args))
        except PairlabError as exc:
            entry.skipped = str(exc)
        else:
            reason = doc["data"].get("skipped") if isinstance(doc.get("data"), dict) else None
            if isinstance(reason, str) and reason and not doc["claims"]:
                entry.skipped = reason  # ran, but its data is missing: nothing was checked
            else:
                entry.doc = doc
                entry.files = [*doc["files"], f"{recipe.name}.json"]
        entries.append(entry)
    header = {"command": " ".join(["pairlab", *(getattr(args, "argv", None) or sys.argv[1:])]),
              "quick": bool(args.quick), "seed": args.seed,
              "printed values compared (agree within tolerance / compared)": "; ".join(
                  f"{paper}: {agree}/{compared}" for paper, (compared, agree, _n)
                  in printed_counts([e.doc for e in entries if e.doc]).items()) or "none",
              "total wall time": f"{time.perf_counter() - start:.1f} s",
              "CPUs": os.cpu_count(),
              "load average at start (1, 5, 15 min)": (
                  ", ".join(f"{v:.1f}" for v in load) if load else "n/a"),
              "load average at end": (", ".join(f"{v:.1f}" for v in os.getloadavg())
                                      if load else "n/a")}
    write_index(out, entries, header)
    return entries


def expected_time(recipe: Reproduction, trials: int | None) -> str | None:
    """The line printed before a default run (``trials`` None) of a recipe that states its measured
    time (:attr:`~pairlab.reproduction.Reproduction.run_time`); None otherwise."""
    if trials is not None or not recipe.run_time:
        return None
    return (f"{recipe.name}: a default run ({recipe.default_trials} trial(s)) takes long. "
            f"{recipe.run_time} (--quick: {recipe.quick_trials} trial(s))")


def printed_counts(docs: Sequence[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Per paper: (printed values compared, how many agree within tolerance, how many could not
    be judged for want of runs) over the claims of ``docs`` (extensions left out)."""
    out: dict[str, tuple[int, int, int]] = {}
    for doc in docs:
        printed = [c for c in doc["claims"] if "tolerance" in c and not c.get("extension")]
        compared, agree, unjudged = out.get(doc["paper"], (0, 0, 0))
        out[doc["paper"]] = (compared + len(printed), agree + sum(c["held"] for c in printed),
                             unjudged + sum(not isinstance(c["tolerance"], float | int)
                                            for c in printed))
    return out


def _print_printed(docs: Sequence[dict[str, Any]]) -> None:
    for paper, (compared, agree, unjudged) in printed_counts(docs).items():
        if compared:
            alone = f" ({unjudged} with too few runs to judge)" if unjudged else ""
            print(f"printed values of {paper.split(',')[0]}: {agree} of {compared} agree "
                  f"within tolerance{alone}")


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
def recipe_options(recipe: Reproduction, args: argparse.Namespace, *, strict: bool = True
                   ) -> dict[str, Any]:
    """The options of ``recipe`` from the command line: ``--data-dir`` and ``--quick`` set the
    declared ``data_dir`` and ``quick``, ``--set KEY=VALUE`` any declared option. With ``strict``
    (one recipe), ``--data-dir`` for a recipe that reads no data files is an error; ``--all``
    passes it only to the recipes that declare it."""
    declared = {p.name for p in recipe.params}
    given: dict[str, Any] = {}
    if args.data_dir is not None:
        if "data_dir" in declared:
            given["data_dir"] = args.data_dir
        elif strict:
            raise InvalidInputError(f"reproduction {recipe.name!r} reads no data files: "
                                    "--data-dir is not one of its options")
    if args.quick and "quick" in declared:
        given["quick"] = True
    owner = f"reproduction {recipe.name!r}"
    given.update(parse_assignments(recipe.params, args.set or [], owner=owner))
    return recipe.options(given)


def describe_params(recipe: Reproduction) -> str:
    """The recipe's description, trial counts, measured run time and options as ``--help``
    lists them."""
    head = [f"{recipe.name}: {recipe.description}".rstrip(": "),
            f"default run: {recipe.default_trials} trial(s); --quick: {recipe.quick_trials}."
            + (f" {recipe.run_time}" if recipe.run_time else ""), ""]
    if not recipe.params:
        return "\n".join([*head, f"{recipe.name} has no options."])
    lines = [*head, f"options of {recipe.name} (--set KEY=VALUE; --data-dir sets data_dir, "
             "--quick quick):"]
    for p in recipe.params:
        extra = f", one of {list(p.choices)}" if p.choices else ""
        bounds = "" if p.low is None and p.high is None else (
            f", range {'(' if p.low_open else '['}{p.low}, {p.high}{')' if p.high_open else ']'}")
        lines.append(f"  {p.name} ({p.type_name}, default {p.to_json(p.default)!r}{extra}{bounds})"
                     f": {p.help}")
    return "\n".join(lines)


class _RecipeHelp(argparse.Action):
    """``-h``/``--help``: the command's help, then the options of the recipe NAME if one is given."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show this help (with NAME: also the recipe's options) and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.print_help()
        name = getattr(namespace, "name", None)
        if name:
            from .errors import PairlabError
            from .registry import get_registry

            try:
                print("\n" + describe_params(get_registry().reproduction(name)))
            except PairlabError as exc:
                print(f"\npairlab: {exc}", file=sys.stderr)
                parser.exit(2)
        parser.exit()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-h", "--help", action=_RecipeHelp)
    parser.add_argument("name", nargs="?", help="reproduction name (see --list)")
    parser.add_argument("--list", action="store_true", help="list reproductions")
    parser.add_argument("--all", action="store_true",
                        help="run every reproduction into OUT/NAME and write OUT/index.html and "
                             "OUT/index.md (the page with every figure, claim and finding)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="output folder (default: ./reproductions/NAME)")
    parser.add_argument("--trials", type=positive_int, default=None, help="number of random trials")
    parser.add_argument("--quick", action="store_true", help="few trials (what CI runs)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="base seed")
    parser.add_argument("--jobs", type=positive_int, default=None,
                        help="worker processes (default: all cores)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run trials on Dask: tcp://HOST:PORT of a running scheduler, or "
                             "'local' for a LocalCluster (needs pairlab[distributed])")
    parser.add_argument("--fresh", action="store_true",
                        help="recompute every trial (default: keep trials stored by an earlier run)")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 3 when a claim of the paper does not hold")
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help="folder with the paper's UCI files (e.g. haberman.data)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="a recipe option (listed by `pairlab reproduce NAME --help`)")
    parser.add_argument("--no-render", action="store_true", help="compute and write JSON only")
    parser.add_argument("--figures", choices=("auto", "matplotlib", "qt"), default="auto",
                        help="who draws the figures: the app's Qt canvas, matplotlib (headless, "
                             "pairlab[figures]) or auto (Qt when installed, default)")
    parser.add_argument("--formats", default=None, metavar="LIST",
                        help="figure formats, comma-separated: png,svg (default), pdf (matplotlib)")


def figure_options(args: argparse.Namespace) -> dict[str, Any]:
    """``backend`` and ``formats`` for :func:`reproduce` from ``--figures`` and ``--formats``."""
    formats = getattr(args, "formats", None)
    return {"backend": getattr(args, "figures", "auto"),
            "formats": None if not formats else [f.strip() for f in formats.split(",") if f.strip()]}


def run(args: argparse.Namespace) -> int:
    from .registry import get_registry

    reg = get_registry()
    if args.all:
        if args.name:
            print("pairlab: give either a reproduction NAME or --all, not both", file=sys.stderr)
            return 2
        out = args.out or "reproductions"
        entries = reproduce_all(out, args)
        paper = [c for e in entries if e.doc for c in e.doc["claims"] if not c.get("extension")]
        n_held, n_claims = sum(c["held"] for c in paper), len(paper)
        extra = [c for e in entries if e.doc for c in e.doc["claims"] if c.get("extension")]
        for e in entries:
            if e.doc is None:
                print(f"  [skipped ] {e.name}: {e.skipped}")
            else:
                held = sum(c["held"] for c in e.doc["claims"])
                print(f"  [{held}/{len(e.doc['claims'])} held] {e.name}: "
                      f"{e.doc['provenance']['wall_seconds']:.1f} s")
        print(f"{n_held} of {n_claims} claims of the papers held -> {os.path.join(out, 'index.html')}")
        if extra:
            print(f"extensions (data the papers did not use, not in the totals): "
                  f"{sum(c['held'] for c in extra)} of {len(extra)} held")
        _print_printed([e.doc for e in entries if e.doc])
        if args.check and n_held < n_claims:
            print("pairlab: some claims of the paper did not hold (see the index)",
                  file=sys.stderr)
            return 3
        return 0
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
    if expected := expected_time(recipe, trials):
        print(expected, file=sys.stderr, flush=True)
    doc = reproduce(recipe, out, trials=trials, seed=args.seed, jobs=args.jobs,
                    options=recipe_options(recipe, args), render=not args.no_render,
                    argv=getattr(args, "argv", None), scheduler=args.scheduler, fresh=args.fresh,
                    **figure_options(args))
    engine = doc["engine"]
    reused = f", {engine['stored']} reused from {out}/{TRIALS_DIR}" if engine["stored"] else ""
    print(f"{recipe.title}: {doc['trials']} trial(s){reused}, "
          f"{doc['provenance']['wall_seconds']:.1f} s -> {out}")
    print(f"  {trial_cpu_text(engine)}")
    for c in doc["claims"]:
        mark = "held    " if c["held"] else "NOT HELD"
        print(f"  [{mark}] {c['statement']} (measured: {c['measured']})")
    for note in doc["notes"]:
        print(f"  note: {note}")
    _print_printed([doc])
    if args.check and not doc["all_claims_held"]:
        print("pairlab: some claims of the paper did not hold (see above)", file=sys.stderr)
        return 3
    return 0

