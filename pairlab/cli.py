"""The ``pairlab`` command line."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import __version__
from .argtypes import non_negative_int, positive_int
from .errors import PairlabError
from .jsontext import dumps

__all__ = ["main"]


def _registry():
    from .registry import get_registry

    return get_registry()


def _describe(kind: str, entry: Any) -> dict[str, Any]:
    obj = entry.obj
    if kind == "algorithms":
        out = obj.describe()
    elif kind == "datasets":
        out = {"name": obj.name, "title": obj.title, "description": obj.description,
               "params": [p.describe() for p in obj.params], "requires": list(obj.requires)}
    elif kind == "reproductions":
        out = obj.describe()
    elif kind == "query_strategies":
        out = {"name": obj.name, "title": obj.title, "citation": obj.citation,
               "params": [p.describe() for p in obj.params]}
    else:
        out = {"name": obj.name, "title": obj.title, "params": [],
               "needs_truth": obj.needs_truth, "needs_constraints": obj.needs_constraints}
    out["plugin"] = entry.plugin.name
    out["version"] = entry.plugin.version
    return out


def _describe_all(reg: Any, kind: str, broken: list[str]) -> list[dict[str, Any]]:
    """Descriptions of every registered item; one whose describe() or params fail is left out
    and named in ``broken`` (a plugin's bug must not take the listing down)."""
    out = []
    for entry in reg.entries(kind):
        try:
            d = _describe(kind, entry)
            dumps(d)  # must be JSON-able too
            if not isinstance(d.get("name"), str) or not isinstance(d.get("title", ""), str):
                raise TypeError("name and title must be strings")
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # isolate the plugin, list the rest
            broken.append(f"{kind[:-1]} {entry.name!r} (plugin {entry.plugin.name!r}): its "
                          f"description failed: {type(exc).__name__}: {exc}")
            continue
        out.append(d)
    return out


def cmd_list(args: argparse.Namespace) -> int:
    reg = _registry()
    from .registry import KINDS

    kinds = KINDS
    broken: list[str] = []
    data = {k: _describe_all(reg, k, broken) for k in kinds}
    for msg in broken:
        print(f"pairlab: warning: {msg}", file=sys.stderr)
    if args.json:
        data["failed_plugins"] = [{"name": p.name, "error": p.error} for p in reg.failures]
        data["clashes"] = list(reg.clashes)
        print(dumps(data))
        return 0
    for kind in kinds:
        print(f"{kind}:")
        if not data[kind]:
            print("  (none)")
        width = max((len(d["name"]) for d in data[kind]), default=0)
        for d in data[kind]:
            print(f"  {d['name']:<{width}}  {d['title']}  [{d['plugin']}]")
    if reg.failures:
        print(f"\n{len(reg.failures)} plugin(s) failed to load; see `pairlab plugins`.")
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    reg = _registry()
    if args.json:
        print(dumps({"plugins": [p.describe() for p in reg.plugins],
                     "clashes": reg.clashes, "external_enabled": reg.external}))
        return 0
    width = max((len(p.name) for p in reg.plugins), default=0)
    for p in reg.plugins:
        status = "ok" if p.ok else "FAILED"
        kind = "built-in" if p.builtin else "external"
        provides = "; ".join(f"{k}: {', '.join(v)}" for k, v in p.provides.items())
        print(f"{p.name:<{width}}  {p.distribution} {p.version} ({kind}) {status}  {provides}")
        if not p.ok:
            print(f"    error: {p.error}")
            if p.where:
                print(f"    where: {p.where}")
    for clash in reg.clashes:
        print(f"clash: {clash}")
    if not reg.external:
        print("external plugins are disabled (PAIRLAB_DISABLE_PLUGINS is set)")
    return 0


def _load_dataset(args: argparse.Namespace):
    from .params import parse_assignments

    spec = _registry().dataset(args.dataset)
    params = parse_assignments(spec.params, args.data or [], owner=f"dataset {spec.name!r}")
    return spec.make(seed=args.seed, **params)


def _load_constraints(args: argparse.Namespace, dataset):
    from .cli_links import constraints_from_args

    return constraints_from_args(args, dataset)


def cmd_run(args: argparse.Namespace) -> int:
    if not args.json:
        return _run(args, sys.stdout)
    import contextlib

    out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):  # a plugin's print() must not corrupt the JSON
        return _run(args, out)


def _run(args: argparse.Namespace, out: Any) -> int:
    from .errors import PluginWarning
    from .params import parse_assignments
    from .run import Run, describe_violations
    from .scoring import evaluate

    reg = _registry()
    algo = reg.algorithm(args.algorithm)
    params = parse_assignments(algo.params, args.set or [], owner=f"algorithm {algo.name!r}")
    dataset = _load_dataset(args)
    constraints = _load_constraints(args, dataset)
    if getattr(algo, "takes_seed_labels", False) and params.get("seed_labels") is None:
        from .cli_links import seed_labels_from_args

        seeds = seed_labels_from_args(args, dataset)
        if seeds is not None and (seeds >= 0).any():
            params["seed_labels"] = seeds
    start = time.perf_counter()
    run = Run(algo, dataset, constraints, params, seed=args.seed)
    state = run.run(args.max_iter)
    elapsed = time.perf_counter() - start
    metric_errors: dict[str, str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)  # reported below, in the output
        metrics = evaluate(state.labels, dataset.y, constraints, errors=metric_errors)
    violated = run.violated_links()
    certain = run.violated_links(certain_only=True)
    result = {
        "algorithm": algo.name,
        "dataset": dataset.source,
        "n_samples": dataset.n_samples,
        "n_must_link": constraints.n_must_link,
        "n_cannot_link": constraints.n_cannot_link,
        "seed": args.seed,
        "params": {p.name: p.to_json(run.params[p.name]) for p in algo.params},
        "iterations": run.n_iter,
        "converged": run.converged,
        "objective_name": state.objective_name,
        "objective": state.objective,
        "objective_history": [None if np.isnan(v) else float(v) for v in run.objectives],
        "n_clusters": state.n_clusters,
        "metrics": metrics,
        "metric_errors": metric_errors,
        "violated_links": {kind: len(pairs) for kind, pairs in violated.items()},
        "violated_certain_links": {kind: pairs.tolist() for kind, pairs in certain.items()},
        "seconds": elapsed,
    }
    if any(len(v) for v in certain.values()):
        print(f"pairlab: warning: {algo.name} treats these links as certain, yet its labels break "
              f"{describe_violations(certain)}", file=sys.stderr)
    if args.labels:
        result["labels"] = state.labels.tolist()
    if args.json:
        print(dumps(result), file=out)
        return 0
    print(f"{algo.title} on {dataset.name} (n={dataset.n_samples}, d={dataset.n_features}), "
          f"{constraints.n_must_link} must-links, {constraints.n_cannot_link} cannot-links, "
          f"seed {args.seed}")
    status = "converged" if run.converged else "stopped at max_iter"
    print(f"  iterations: {run.n_iter} ({status}), {elapsed:.3f} s")
    if state.objective is not None:
        print(f"  {state.objective_name}: {state.objective:.6g}")
    print(f"  clusters: {state.n_clusters}")
    n_ml, n_cl = len(violated["must_link"]), len(violated["cannot_link"])
    if len(constraints):
        print(f"  violated links: {n_ml + n_cl} ({n_ml} must-link, {n_cl} cannot-link)")
    for name, value in metrics.items():
        print(f"  {name}: {value:.4f}")
    for name, message in metric_errors.items():
        print(f"  {name}: failed ({message})")
    return 0


def _not_yet(what: str) -> int:
    print(f"pairlab: {what} is not available in this version of pairlab.", file=sys.stderr)
    return 2


def cmd_sweep(args: argparse.Namespace) -> int:
    from .sweep.command import run as run_sweep

    def draw(doc: dict[str, Any], summary: list[dict[str, Any]], folder: Any) -> list[Any]:
        from .display import has_matplotlib
        from .extras import GUI_INSTALL
        from .figure_backend import figures_drawn
        from .reproduce import figure_options
        from .sweep.figures import draw_summary  # the presentation layer, loaded to draw only

        with figures_drawn(**figure_options(args)) as drawn:
            if not drawn.use_matplotlib():
                return draw_summary(doc, summary, folder)
            if drawn.backend == "auto" and not has_matplotlib():  # a headless install: no figures
                print(f"pairlab: figures not drawn: Qt is not installed ({GUI_INSTALL}), nor is "
                      'matplotlib (pip install "pairlab[figures]"); the table and summary are '
                      "written", file=sys.stderr)
                return []
            from .mpl_curves import draw_curves  # no Qt, or asked for: matplotlib draws

            return draw_summary(doc, summary, folder, curves=draw_curves)

    if not args.no_render:  # a bad --figures/--formats fails now, not after hours of trials
        from .errors import InvalidInputError
        from .figure_backend import figures_drawn
        from .reproduce import figure_options

        try:
            with figures_drawn(**figure_options(args)):
                pass
        except InvalidInputError as exc:
            raise InvalidInputError(f"{exc} (--figures {args.figures}, --formats "
                                    f"{args.formats or 'png,svg'}); nothing was run") from None
    return run_sweep(args, draw)


def cmd_gui(args: argparse.Namespace) -> int:
    from .gui.command import run as run_gui

    return run_gui(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pairlab", description="Clustering with must-link and cannot-link constraints.")
    parser.add_argument("--version", action="version", version=f"pairlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="list algorithms, data sets, reproductions and metrics")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("plugins", help="list installed plugins and load errors")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_plugins)

    p = sub.add_parser("run", help="run an algorithm on a data set and print metrics")
    p.add_argument("algorithm", help="algorithm name (see `pairlab list`)")
    p.add_argument("--dataset", required=True, help="data set name")
    p.add_argument("--data", action="append", metavar="KEY=VALUE", help="data set parameter")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="algorithm parameter")
    p.add_argument("--must-link", type=int, default=0, metavar="N",
                   help="draw N random must-links from the ground truth")
    p.add_argument("--cannot-link", type=int, default=0, metavar="N",
                   help="draw N random cannot-links from the ground truth")
    p.add_argument("--constraints", metavar="FILE", help="constraints JSON or CSV file")
    p.add_argument("--link-fraction", type=float, default=None, metavar="R",
                   help="draw this fraction of all pairs as links from the ground truth (RDP-means r)")
    p.add_argument("--link-noise", type=float, default=0.0, metavar="F",
                   help="move exactly this fraction of the links to the other kind (SCSSAP noise)")
    from .cli_links import add_link_arguments

    add_link_arguments(p)
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="random seed (data, links, algorithm)")
    p.add_argument("--max-iter", type=positive_int, default=None,
                   help="override the iteration limit")
    p.add_argument("--labels", action="store_true", help="include labels in the JSON")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_run)

    from . import reproduce

    p = sub.add_parser("reproduce", help="regenerate a paper's figure", add_help=False)
    reproduce.add_arguments(p)
    p.set_defaults(func=reproduce.run)

    p = sub.add_parser("sweep", help="run methods x data x links x noise x trials into a table")
    from .sweep import command as sweep_command

    sweep_command.add_arguments(p)
    p.set_defaults(func=cmd_sweep)

    from . import bench

    p = sub.add_parser("bench", help="time algorithms against reference implementations")
    bench.add_arguments(p)
    p.set_defaults(func=bench.run)

    from . import scaffold

    p = sub.add_parser("new-plugin", help="write a ready-to-install plugin package skeleton")
    scaffold.add_arguments(p)
    p.set_defaults(func=scaffold.run)

    p = sub.add_parser("gui", help="open the desktop teaching app")
    from .gui.command import add_arguments as add_gui_arguments

    add_gui_arguments(p)
    p.set_defaults(func=cmd_gui)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(argv) if argv is not None else sys.argv[1:]
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except PairlabError as exc:
        print(f"pairlab: error: {exc}", file=sys.stderr)
        return 1
    except MemoryError as exc:  # a size no check foresaw: say so in one line, not a traceback
        print(f"pairlab: error: not enough memory ({exc or 'MemoryError'}); lower the sizes "
              "(n_samples, n_features, n_components, link counts).", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: no traceback (a sweep says itself what it kept)
        print("pairlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as Unix tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a folder or file the system refused (read-only, not a folder ...)
        where = f" {exc.filename!r}" if exc.filename else ""
        print(f"pairlab: error: cannot use{where}: {exc.strerror or exc}; choose another path.",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
