"""``pairlab sweep``: run a sweep from a TOML file or flags, or redraw a report (``--report``).

Drawing is handed in by :mod:`pairlab.cli` (``draw``), so this module stays in the Qt-free core.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from .engine import Interrupted
from .executors import make_executor
from .grid import LINK_NOISE_MODELS
from .runner import KIND, run_sweep
from .spec import load_spec, spec_from_args
from .table import read_table, summarize

__all__ = ["add_arguments", "run"]

Draw = Callable[[dict[str, Any], list[dict[str, Any]], Path], list[Path]]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?", metavar="SPEC.toml",
                        help="sweep file (layout: docs/sweeps.md); or describe it with the flags below")
    parser.add_argument("--out", metavar="DIR", help="output folder (default: ./sweeps/NAME)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="local worker processes (default: all cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on Dask: tcp://HOST:PORT of a running `dask scheduler`, or "
                             "'local' for a LocalCluster of --jobs workers (pairlab[distributed])")
    parser.add_argument("--fresh", action="store_true",
                        help="recompute every trial (default: keep the trials an earlier run stored)")
    parser.add_argument("--report", metavar="DIR",
                        help="redraw the summary and figures of the sweep in DIR from its table")
    parser.add_argument("--no-render", action="store_true", help="tables and JSON only, no figures")
    parser.add_argument("--figures", choices=("auto", "matplotlib", "qt"), default="auto",
                        help="who draws the figures: Qt, matplotlib (headless) or auto (default)")
    parser.add_argument("--formats", default=None, metavar="LIST",
                        help="figure formats, comma-separated: png,svg (default), pdf (matplotlib)")
    parser.add_argument("--allow-failures", action="store_true",
                        help="exit 0 even when trials failed (default: exit 1)")
    parser.add_argument("--dry-run", action="store_true",
                        help="check the spec and print the cells and trials, run nothing")
    g = parser.add_argument_group("a sweep from flags (instead of SPEC.toml)")
    g.add_argument("--name", help="names the output files (default: sweep)")
    g.add_argument("--algorithm", action="append", metavar="NAME", help="an algorithm (repeat)")
    g.add_argument("--set", action="append", metavar="[ALGO:]KEY=V[,V...]",
                   help="algorithm parameter; several values make a grid axis")
    g.add_argument("--dataset", action="append", metavar="NAME", help="a data set (repeat)")
    g.add_argument("--data", action="append", metavar="[DATASET:]KEY=V[,V...]",
                   help="data set parameter; several values make a grid axis")
    g.add_argument("--generator", metavar="NAME", help="link generator (see `pairlab run --help`)")
    g.add_argument("--gen", action="append", metavar="KEY=VALUE", help="a generator parameter")
    g.add_argument("--budget", metavar="B[,B...]", help="link budgets: counts, or fractions of all pairs")
    g.add_argument("--link-noise", metavar="F[,F...]", help="link noise levels")
    g.add_argument("--link-noise-model", choices=LINK_NOISE_MODELS, help="how links are corrupted")
    g.add_argument("--label-noise", metavar="F[,F...]",
                   help="shares of points relabelled before links are drawn")
    g.add_argument("--strategy", action="append", metavar="NAME",
                   help="a query strategy (repeat): links come from the oracle loop instead of a "
                        "generator (`pairlab list` names them)")
    g.add_argument("--queries", metavar="Q[,Q...]", help="query budgets recorded (with --strategy)")
    g.add_argument("--batch", type=int, default=None, help="pairs asked per refit (with --strategy)")
    g.add_argument("--metric", action="append", metavar="NAME", help="a metric (repeat; default purity)")
    g.add_argument("--trials", type=int, default=None,
                   help="random draws per cell (default 1; with SPEC.toml: overrides its trials)")
    g.add_argument("--seed", type=int, default=None,
                   help="base seed (default 0; with SPEC.toml: overrides its seed)")
    g.add_argument("--max-iter", type=int, default=None, help="iteration limit for every algorithm")


def report(folder: str | os.PathLike[str], draw: Draw | None) -> tuple[dict[str, Any], list[Path]]:
    """Summary and figures of the sweep in ``folder`` from its table (nothing is recomputed)."""
    from ..atomic import atomic_write_text
    from .table import summary_columns, write_csv

    folder = Path(folder)
    docs = []
    for path in sorted(folder.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(doc, dict) and doc.get("kind") == KIND:
            docs.append(doc)
    if len(docs) != 1:
        raise InvalidInputError(f"{str(folder)!r} holds {len(docs)} sweep results (NAME.json from "
                                "`pairlab sweep`); give the folder of one sweep")
    doc = docs[0]
    metrics = doc["spec"]["metrics"]
    table = folder / str(doc.get("table", ""))
    try:
        rows = read_table(table.read_text(encoding="utf-8"))
        expected = doc.get("rows", doc.get("trials"))  # a query-strategy trial has a row per budget
        if isinstance(expected, int) and len(rows) != expected:
            raise ValueError(f"{len(rows)} rows where {doc['name']}.json counts {expected} "
                             "rows: the table is truncated or was edited")
        summary = summarize(rows, metrics)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInputError(f"cannot read the sweep table {str(table)!r} ({exc}); run the "
                                "sweep again to rewrite it") from None
    atomic_write_text(folder / doc["summary"], write_csv(summary, summary_columns(metrics)))
    files = draw(doc, summary, folder) if draw is not None else []
    return doc, files


def run(args: argparse.Namespace, draw: Draw | None = None) -> int:
    """``pairlab sweep``; ``draw(doc, summary, folder)`` renders figures (None: no figures)."""
    if args.no_render:
        draw = None
    if args.report:
        doc, files = report(args.report, draw)
        print(f"{doc['name']}: summary and {len(files)} figure file(s) redrawn in {args.report}")
        return 0
    if args.spec:
        flags = [f for f in ("name", "algorithm", "set", "dataset", "data", "generator", "gen",
                             "budget", "link_noise", "link_noise_model", "label_noise", "metric",
                             "max_iter", "strategy", "queries", "batch") if getattr(args, f)]
        if flags:
            raise InvalidInputError(f"give either SPEC.toml or --{flags[0].replace('_', '-')} and "
                                    "the other flags (with a file, only --trials and --seed apply)")
        spec = load_spec(args.spec)
        for key, low in (("trials", 1), ("seed", 0)):
            value = getattr(args, key)
            if value is not None:
                if value < low:
                    raise InvalidInputError(f"--{key} must be >= {low}, got {value}")
                spec = replace(spec, **{key: value})
    else:
        spec = spec_from_args(args)
    cells = spec.cells()
    if args.dry_run:
        for cell in cells:
            what = f"queries={','.join(map(str, cell.queries))} ({cell.strategy})" if cell.strategy \
                else f"budget={cell.budget:<6}"
            print(f"{cell.method:<20} {cell.dataset:<24} {what} "
                  f"link_noise={cell.link_noise:<5} label_noise={cell.label_noise}")
        print(f"{len(cells)} cells x {spec.trials} trials = {len(cells) * spec.trials} trials")
        return 0
    out = Path(args.out or os.path.join("sweeps", spec.name))
    try:
        with make_executor(args.jobs, args.scheduler) as executor:
            result = run_sweep(spec, out, executor, fresh=args.fresh,
                               argv=getattr(args, "argv", None))
    except Interrupted as exc:
        print(f"pairlab: {exc}", file=sys.stderr)
        return 130
    files = draw(json.loads(result.document.read_text()), result.summary, out) if draw else []
    eng = result.engine
    failures = sum(bool(r["error"]) for r in result.rows)
    print(f"{spec.name}: {len(cells)} cells x {spec.trials} trials on {eng.executor}: "
          f"{eng.ran} ran, {eng.stored} reused"
          + (f", {len(eng.corrupt)} corrupt stored trial(s) recomputed" if eng.corrupt else "")
          + (f", {failures} failed (see the error column)" if failures else "")
          + f" -> {result.table}")
    if files:
        print(f"  figures: {', '.join(p.name for p in files)}")
    if failures and not args.allow_failures:
        first = next(r["error"] for r in result.rows if r["error"])
        print(f"pairlab: error: {failures} of {len(result.rows)} trials failed (first: {first}); "
              "see the error column, or pass --allow-failures to accept them", file=sys.stderr)
        return 1
    return 0

