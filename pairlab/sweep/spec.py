"""Reading and checking a sweep: a TOML file or command-line flags -> :class:`SweepSpec`.

Everything is checked before anything runs: every algorithm, data set, metric, link generator and
noise model must be known and every parameter value valid; an unknown name is refused with a
message that names it, says where it is, and suggests the closest known names.

TOML layout (every key optional except ``algorithms`` and ``datasets``)::

    name = "moons"            # names the output files
    seed = 0                  # base seed of every derived seed
    trials = 10               # random draws per cell
    metrics = ["purity", "ari"]
    max_iter = 200            # overrides every algorithm's iteration limit

    [[algorithms]]
    name = "gmpr"
    label = "GM-PR"           # default: the name
    params = { n_components = 2, max_iter = [50, 100] }   # a list is a grid axis

    [[datasets]]
    name = "two-moons"
    params = { n_samples = 200, noise = [0.05, 0.1] }

    [links]
    generator = "random"      # any `pairlab run --generator` (random, pairs, fraction, ...)
    budget = [0, 5, 10, 20]   # counts; below 1 and not whole: a fraction of all pairs
                              # (generator "labels": labelled points, a fraction of all points)
    params = {}               # the generator's other parameters
    budget_params = ["n_must_link"]   # which parameters a budget sets (default per generator)

    [noise]
    link_model = "flip-fraction"   # or "flip-prob" (PPC) or "e-matrix" (RDP-means, p = q = 1 - level)
    link = [0.0, 0.1]
    label = [0.0]             # share of points relabelled before links are drawn (SCSSAP type 2)

    [active]                  # a query-strategy axis instead of [links] (docs/sweeps.md)
    strategies = ["random", "explore-consolidate"]
    budget = [0, 10, 20, 50]  # query counts; each trial asks up to the largest, a row per count
    batch = 1                 # pairs asked per refit (every budget a multiple of it)
    params = { npu = { sigma = 1.0 } }   # per strategy (optional)

A parameter whose value is an array (e.g. ``means_init``) takes one value (no axis).
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInputError, PairlabError
from ..params import Param, resolve_params
from .grid import (
    BUDGET_PARAMS,
    LINK_NOISE_MODELS,
    ActiveGrid,
    AlgorithmGrid,
    DatasetGrid,
    LinkGrid,
    NoiseGrid,
    SweepSpec,
)

__all__ = ["load_spec", "parse_spec", "spec_from_args"]

#: the largest link count a budget may ask for (10^9 pairs are 16 GB as int64)
MAX_BUDGET = 10**9
TOP_KEYS = ("name", "seed", "trials", "metrics", "max_iter", "algorithms", "datasets", "links",
            "noise", "active")
#: the largest query budget of a query-strategy axis (every query is a refit)
MAX_QUERIES = 100_000


class SpecError(InvalidInputError):
    """A sweep spec that cannot run; the message says where and what to change."""


def _suggest(name: str, known: Iterable[str]) -> str:
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"{hint} Known: {', '.join(known) or 'none'}."


def _unknown_keys(table: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    allowed = tuple(allowed)
    for key in table:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key {key!r}.{_suggest(key, allowed)}")


def _as_list(value: Any, is_array: bool = False) -> list[Any]:
    """A grid axis: a list is an axis, anything else one value (an array parameter: one value)."""
    if is_array:
        return [value]
    return list(value) if isinstance(value, list) else [value]


def _grid_params(params: Any, specs: Iterable[Param], where: str) -> dict[str, list[Any]]:
    if not isinstance(params, Mapping):
        raise SpecError(f"{where}.params must be a table of parameter = value(s), got {params!r}")
    specs = {p.name: p for p in specs}
    out: dict[str, list[Any]] = {}
    for key, value in params.items():
        if key not in specs:
            raise SpecError(f"{where}: unknown parameter {key!r}.{_suggest(key, specs)}")
        p = specs[key]
        values = _as_list(value, p.type is np.ndarray)
        if not values:
            raise SpecError(f"{where}.params.{key}: an empty list sweeps nothing")
        for v in values:
            try:
                p.validate(v)
            except InvalidInputError as exc:
                raise SpecError(f"{where}.params.{key}: {exc}") from None
        out[key] = [p.to_json(p.validate(v)) for v in values]
    return out


def _entries(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = data.get(key)
    if not items:
        raise SpecError(f"the sweep needs at least one entry in [[{key}]]")
    if isinstance(items, Mapping):
        items = [items]
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or "name" not in item:
            raise SpecError(f"{key}[{i}] needs a name (e.g. name = \"gmm\")")
        _unknown_keys(item, ("name", "label", "params"), f"{key}[{i}]")
    return list(items)


def _levels(value: Any, where: str, high: float = 1.0) -> list[float]:
    out = []
    for v in _as_list(value):
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= high:
            raise SpecError(f"{where}: levels are numbers in [0, {high:g}], got {v!r}")
        out.append(float(v))
    return out


def parse_spec(data: Mapping[str, Any], *, registry: Any = None) -> SweepSpec:
    """Check a sweep given as plain data (parsed TOML) and return the :class:`SweepSpec`."""
    from ..links import GENERATORS
    from ..registry import get_registry

    reg = registry or get_registry()
    _unknown_keys(data, TOP_KEYS, "sweep spec")

    def lookup(kind: str, name: str, where: str) -> Any:
        try:
            return reg._get(kind, name)
        except PairlabError:
            if name in reg.names(kind):
                raise
            raise SpecError(f"{where}: unknown {kind[:-1]} {name!r}.{_suggest(name, reg.names(kind))}"
                            ) from None

    algorithms = []
    for i, item in enumerate(_entries(data, "algorithms")):
        cls = lookup("algorithms", item["name"], f"algorithms[{i}]")
        where = f"algorithms[{i}] ({item['name']})"
        algorithms.append(AlgorithmGrid(cls.name, str(item.get("label", cls.name)),
                                        _grid_params(item.get("params", {}), cls.params, where)))
    datasets = []
    for i, item in enumerate(_entries(data, "datasets")):
        spec = lookup("datasets", item["name"], f"datasets[{i}]")
        where = f"datasets[{i}] ({item['name']})"
        datasets.append(DatasetGrid(spec.name, str(item.get("label", spec.name)),
                                    _grid_params(item.get("params", {}), spec.params, where)))
    for kind, items in (("algorithms", algorithms), ("datasets", datasets)):
        labels = [a.label for a in items]
        for label in labels:
            if labels.count(label) > 1:
                raise SpecError(f"two [[{kind}]] are labelled {label!r}: give each a distinct label")

    metrics = data.get("metrics", ["purity"])
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise SpecError("metrics: give at least one metric")
    for name in metrics:
        lookup("metrics", name, "metrics")

    links_data = data.get("links", {})
    _unknown_keys(links_data, ("generator", "budget", "params", "budget_params"), "links")
    generator = links_data.get("generator")
    if generator is None:
        if "budget" in links_data or links_data.get("params"):
            raise SpecError("links: a budget needs a generator (e.g. generator = \"random\")")
        links = LinkGrid()
    else:
        if generator not in GENERATORS:
            raise SpecError(f"links: unknown link generator {generator!r}.{_suggest(generator, GENERATORS)}")
        gspec = GENERATORS[generator]
        gparams = {p.name: p for p in gspec.params}
        budget_params = tuple(links_data.get("budget_params", BUDGET_PARAMS.get(generator, ())))
        for name in budget_params:
            if name not in gparams:
                raise SpecError(f"links.budget_params: generator {generator!r} has no parameter "
                                f"{name!r}.{_suggest(name, gparams)}")
        fixed = dict(links_data.get("params", {}))
        try:
            resolve_params(gspec.params, {k: v for k, v in fixed.items()},
                           owner=f"link generator {generator!r}")
        except InvalidInputError as exc:
            raise SpecError(f"links.params: {exc}") from None
        budgets = _as_list(links_data.get("budget", [0]))
        counts = [n for n in budget_params if gparams[n].type is int]
        for b in budgets:
            if (isinstance(b, bool) or not isinstance(b, int | float) or not math.isfinite(b)
                    or not 0 <= b <= MAX_BUDGET):
                raise SpecError(f"links.budget: budgets are counts up to {MAX_BUDGET:,} or "
                                f"fractions of all {gspec.budget_of} in [0, 1), got {b!r}")
            if counts and b >= 1 and not float(b).is_integer():
                raise SpecError(f"links.budget: {b!r} sets {counts[0]!r}, a count: give a whole "
                                f"number, or a fraction of all {gspec.budget_of} below 1")
        if budgets != [0] and not budget_params:
            raise SpecError(f"links: generator {generator!r} takes no budget; remove links.budget")
        links = LinkGrid(generator, budgets, budget_params, fixed)

    noise_data = data.get("noise", {})
    _unknown_keys(noise_data, ("link_model", "link", "label"), "noise")
    model = noise_data.get("link_model", "flip-fraction")
    if model not in LINK_NOISE_MODELS:
        raise SpecError(f"noise.link_model: unknown noise model {model!r}."
                        f"{_suggest(model, LINK_NOISE_MODELS)}")
    noise = NoiseGrid(model, _levels(noise_data.get("link", 0.0), "noise.link",
                                     0.5 if model == "flip-prob" else 1.0),
                      _levels(noise_data.get("label", 0.0), "noise.label"))
    active = _active(data.get("active"), reg)
    if active is not None and (links.generator is not None or noise.label != [0.0]):
        raise SpecError("active: with query strategies the links come from the oracle loop: remove "
                        "[links] and noise.label (noise.link is the answers' noise)")
    if active is not None and noise.link != [0.0] and model == "flip-fraction":
        raise SpecError("noise.link_model: the oracle's answers are noised one at a time, where "
                        "flip-fraction flips all or none: use \"flip-prob\" or \"e-matrix\"")
    if (noise.link != [0.0] or noise.label != [0.0]) and links.generator is None and active is None:
        raise SpecError("noise: link and label noise need links (give [links] generator = ...)")

    def whole(key: str, default: Any, low: int) -> Any:
        value = data.get(key, default)
        if value is None and key == "max_iter":
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise SpecError(f"{key} must be a whole number >= {low}, got {value!r}")
        return value

    return SweepSpec(algorithms, datasets, links, noise, metrics, whole("trials", 1, 1),
                     whole("seed", 0, 0), whole("max_iter", None, 1),
                     check_name(data.get("name", "sweep")), active)


def _active(table: Any, reg: Any) -> ActiveGrid | None:
    """The ``[active]`` table checked: known strategies, whole budgets, batch, parameters."""
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise SpecError(f"active must be a table (strategies = [...], budget = [...]), got {table!r}")
    _unknown_keys(table, ("strategies", "budget", "batch", "params"), "active")
    names = _as_list(table.get("strategies", []))
    if not names or len(set(names)) != len(names):
        raise SpecError("active.strategies: name one or more distinct query strategies "
                        f"(e.g. [\"random\", \"minmax\"]), got {names!r}")
    known = reg.names("query_strategies")
    for n in names:
        if n not in known:
            raise SpecError(f"active.strategies: unknown query strategy {n!r}.{_suggest(str(n), known)}")
    classes = {n: reg.query_strategy(n) for n in names}
    batch = table.get("batch", 1)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise SpecError(f"active.batch must be a whole number >= 1, got {batch!r}")
    budgets = _as_list(table.get("budget", [0]))
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= MAX_QUERIES or b % batch:
            raise SpecError(f"active.budget: query counts are whole numbers in [0, {MAX_QUERIES:,}] "
                            f"and multiples of the batch ({batch}), got {b!r}")
    if len(set(budgets)) != len(budgets):
        raise SpecError(f"active.budget: a query count is given twice: {budgets!r}")
    params = table.get("params", {})
    if not isinstance(params, Mapping):
        raise SpecError(f"active.params must be a table of strategy = {{ parameters }}, got {params!r}")
    checked: dict[str, dict[str, Any]] = {}
    for name, values in params.items():
        if name not in classes:
            raise SpecError(f"active.params: {name!r} is not one of the sweep's strategies."
                            f"{_suggest(name, classes)}")
        if not isinstance(values, Mapping):
            raise SpecError(f"active.params.{name} must be a table of parameters, got {values!r}")
        specs = classes[name].params
        try:
            resolved = resolve_params(specs, dict(values), owner=f"query strategy {name!r}")
        except InvalidInputError as exc:
            raise SpecError(f"active.params.{name}: {exc}") from None
        checked[name] = {p.name: p.to_json(resolved[p.name]) for p in specs if p.name in values}
    return ActiveGrid(list(names), sorted(budgets), batch, checked)


def check_name(name: Any) -> str:
    """The sweep's name names its files in ``--out``: one plain file name, nothing that climbs out."""
    bad = ("/", "\\", "\0", ":")
    if (not isinstance(name, str) or not name.strip() or name.startswith(".") or len(name) > 100
            or any(c in name for c in bad) or not name.isprintable()):
        raise SpecError(f"name {name!r} is not a usable file name: give 1 to 100 printable "
                        "characters, without / \\ : or a leading dot (e.g. name = \"moons\")")
    return name


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and check a TOML sweep file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(f"cannot read the sweep file {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{str(path)!r} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"{str(path)!r} is not UTF-8 text (TOML files are): {exc}") from None
    data.setdefault("name", path.stem)
    return parse_spec(data)


def _value(text: str) -> Any:
    """A flag value: a number, true/false, or text (parameters check it against their type)."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text.strip()


def _assign(items: list[str], names: list[str], what: str) -> dict[str, dict[str, Any]]:
    """``[NAME:]KEY=V1,V2`` flags -> {name: {key: [values]}} (no NAME: every one of ``names``)."""
    out: dict[str, dict[str, Any]] = {n: {} for n in names}
    for item in items:
        target, sep, rest = item.partition(":") if ":" in item.split("=", 1)[0] else ("", "", item)
        key, eq, text = rest.partition("=")
        if not eq:
            raise SpecError(f"--{what} expects [NAME:]KEY=VALUE[,VALUE...], got {item!r}")
        if sep and target not in out:
            raise SpecError(f"--{what} {item!r}: {target!r} is not one of the sweep's "
                            f"{what}s.{_suggest(target, out)}")
        values = [_value(t) for t in text.split(",")] if not text.lstrip().startswith("[") else [text]
        for name in ([target] if sep else names):
            out[name][key.strip()] = values if len(values) > 1 else values[0]
    return out


def spec_from_args(args: argparse.Namespace) -> SweepSpec:
    """A sweep described by ``pairlab sweep`` flags instead of a file."""
    algos = args.algorithm or []
    datas = args.dataset or []
    if not algos or not datas:
        raise SpecError("give a sweep file, or at least one --algorithm and one --dataset")
    aparams = _assign(args.set or [], algos, "set")
    dparams = _assign(args.data or [], datas, "data")
    data: dict[str, Any] = {
        "name": args.name or "sweep", "seed": args.seed or 0,
        "trials": 1 if args.trials is None else args.trials,
        "algorithms": [{"name": a, "params": aparams[a]} for a in algos],
        "datasets": [{"name": d, "params": dparams[d]} for d in datas],
    }
    if args.metric:
        data["metrics"] = args.metric
    if args.max_iter is not None:
        data["max_iter"] = args.max_iter
    if args.generator or args.budget or args.gen:       # no generator: parse_spec refuses
        links: dict[str, Any] = {"params": _assign(args.gen or [], ["links"], "gen")["links"]}
        if args.generator:
            links["generator"] = args.generator
        if args.budget:
            links["budget"] = [_value(t) for t in args.budget.split(",")]
        data["links"] = links
    if getattr(args, "strategy", None) or getattr(args, "queries", None):
        active: dict[str, Any] = {"strategies": args.strategy or []}
        if args.queries:
            active["budget"] = [_value(t) for t in args.queries.split(",")]
        if args.batch is not None:
            active["batch"] = args.batch
        data["active"] = active
    noise: dict[str, Any] = {}
    if args.link_noise:
        noise["link"] = [float(t) for t in args.link_noise.split(",")]
    if args.label_noise:
        noise["label"] = [float(t) for t in args.label_noise.split(",")]
    if args.link_noise_model:
        noise["link_model"] = args.link_noise_model
    if noise:
        data["noise"] = noise
    return parse_spec(data)
