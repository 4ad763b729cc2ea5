"""A sweep's grid: its factors, the cells they multiply out to, content keys and trial seeds.

A **cell** is one combination of method (algorithm + parameter values), data set (+ parameters),
link generator with a budget, link noise and label noise; a **trial** is one random draw of a cell.
Seeds derive from (base seed, what they feed, trial) only, never from the order in which workers
finish, and are shared where a comparison should be paired:

* ``data_seed`` from the data set and its parameters: every method, budget and noise level of a
  trial sees the same data;
* ``link_seed`` from the data plus the generator, its parameters and the budget: every method and
  noise level sees the same links (label noise draws from ``default_rng([link_seed, 1])`` before
  the links, link noise from ``default_rng([link_seed, 2])``, as ``pairlab run`` does);
* ``fit_seed`` from the data: every method and budget of a trial starts from the same seed.

A cell's **key** is a content hash of the cell, the base seed, the metrics and the versions of
pairlab and of the plugins that provide its algorithm and data set and a fingerprint of their
source code (:mod:`pairlab.sweep.fingerprint`); a trial is stored under
``KEY-TRIAL``, so changing the spec recomputes exactly the cells it changes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ActiveGrid", "AlgorithmGrid", "Cell", "DatasetGrid", "LinkGrid", "NoiseGrid", "SweepSpec",
           "content_key", "derive_seed", "trial_seed", "versions_of"]

#: which generator parameters a budget sets (``links.budget_params`` overrides)
BUDGET_PARAMS: dict[str, tuple[str, ...]] = {
    "random": ("n_must_link", "n_cannot_link"), "pairs": ("n_pairs",), "fraction": ("fraction",),
    "nonoverlapping": ("n_pairs",), "teachers": ("n_teachers",), "grid": (),
    "labels": ("n_labeled",),
}
LINK_NOISE_MODELS = ("flip-fraction", "flip-prob", "e-matrix")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def content_key(value: Any) -> str:
    """SHA-256 (hex, 32 characters) of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical(value).encode()).hexdigest()[:32]


def trial_seed(seed: int, name: str, trial: int) -> int:
    """A 63-bit seed from (base seed, a name, trial index) only:
    ``SeedSequence([seed, crc32(name), trial])`` (the seeds of ``pairlab reproduce`` trials)."""
    ss = np.random.SeedSequence([seed, zlib.crc32(name.encode()), trial])
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def derive_seed(seed: int, what: str, trial: int) -> int:
    """The seed of what the description ``what`` names in trial ``trial``."""
    return trial_seed(seed, what, trial)


def versions_of(obj: Any) -> dict[str, str]:
    """pairlab's version and that of the distribution that provides ``obj``'s module."""
    from importlib import metadata

    from .. import __version__

    out = {"pairlab": __version__}
    top = getattr(obj, "__module__", "").split(".")[0]
    try:
        dists = metadata.packages_distributions().get(top, [])
    except Exception:  # pragma: no cover - broken metadata must not stop a run
        dists = []
    for dist in dists:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:  # pragma: no cover
            pass
    if not dists and top and top in sys.modules:
        out[top] = str(getattr(sys.modules[top], "__version__", "unknown"))
    return out


def _axes(params: dict[str, list[Any]]) -> list[dict[str, Any]]:
    names = list(params)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*params.values())]


def _suffix(values: dict[str, Any], axes: dict[str, list[Any]]) -> str:
    varying = [k for k, v in axes.items() if len(v) > 1]
    return " ".join(f"{k}={canonical(values[k])}" for k in varying)


@dataclass(frozen=True)
class AlgorithmGrid:
    """An algorithm with a list of values per parameter (a one-element list is a fixed value)."""

    name: str
    label: str
    params: dict[str, list[Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class DatasetGrid:
    name: str
    label: str
    params: dict[str, list[Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class LinkGrid:
    """A link generator (None: no links), its fixed parameters and the budgets swept."""

    generator: str | None = None
    budgets: list[float] = field(default_factory=lambda: [0])
    budget_params: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NoiseGrid:
    link_model: str = "flip-fraction"
    link: list[float] = field(default_factory=lambda: [0.0])
    label: list[float] = field(default_factory=lambda: [0.0])


@dataclass(frozen=True)
class ActiveGrid:
    """A query-strategy axis: links come from the oracle loop (:func:`pairlab.active.active_learn`)
    asking each strategy ``batch`` pairs at a time; rows at every count in ``budgets``."""

    strategies: list[str]
    budgets: list[int]
    batch: int = 1
    params: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Cell:
    """One combination of the factors (everything a trial needs besides its index and seeds)."""

    method: str
    algorithm: str
    params: dict[str, Any]
    dataset: str
    data_name: str
    data_params: dict[str, Any]
    generator: str | None
    link_params: dict[str, Any]
    budget: float
    budget_params: tuple[str, ...]
    link_noise_model: str
    link_noise: float
    label_noise: float
    strategy: str | None = None  # a query strategy: the trial runs the oracle loop
    queries: tuple[int, ...] = ()  # the query counts it records (budget is the largest)
    batch: int = 1
    strategy_params: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        if self.strategy is None:  # a sweep without strategies keeps its keys
            for k in ("strategy", "queries", "batch", "strategy_params"):
                del out[k]
        return out

    def data_key(self) -> str:
        return "data|" + canonical([self.data_name, self.data_params])

    def links_key(self) -> str:
        return "links|" + canonical([self.data_name, self.data_params, self.generator,
                                     self.link_params, self.budget, self.budget_params])

    def seed_names(self) -> tuple[str, str, str]:
        """What the data, link and fit seeds are derived from (built once for all trials)."""
        data = self.data_key()
        return data, self.links_key(), "fit|" + data

    def seeds(self, seed: int, trial: int,
              names: tuple[str, str, str] | None = None) -> dict[str, int]:
        data, links, fit = names or self.seed_names()
        return {"data_seed": derive_seed(seed, data, trial),
                "link_seed": derive_seed(seed, links, trial),
                "fit_seed": derive_seed(seed, fit, trial)}

    def seeds_of_trials(self, seed: int, trials: int,
                        names: tuple[str, str, str] | None = None) -> list[dict[str, int]]:
        """:meth:`seeds` of trials ``0 .. trials - 1``, the same numbers computed all at once."""
        from .seeds import trial_seeds

        data, links, fit = names or self.seed_names()
        columns = [trial_seeds(seed, what, range(trials)) for what in (data, links, fit)]
        return [{"data_seed": d, "link_seed": k, "fit_seed": f} for d, k, f in zip(*columns, strict=True)]


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep (build it with :func:`pairlab.sweep.spec.parse_spec`)."""

    algorithms: list[AlgorithmGrid]
    datasets: list[DatasetGrid]
    links: LinkGrid = field(default_factory=LinkGrid)
    noise: NoiseGrid = field(default_factory=NoiseGrid)
    metrics: list[str] = field(default_factory=lambda: ["purity"])
    trials: int = 1
    seed: int = 0
    max_iter: int | None = None
    name: str = "sweep"
    active: ActiveGrid | None = None

    def cells(self) -> list[Cell]:
        """Every cell, in a fixed order: data set, budget (or query strategy), label noise, link
        noise, method. With a query-strategy axis one cell per strategy records every query
        budget (the table has a row per budget)."""
        out = []
        act = self.active
        budgets: list[Any] = act.strategies if act else self.links.budgets
        for ds in self.datasets:
            for dvals in _axes(ds.params):
                dlabel = " ".join(filter(None, [ds.label, _suffix(dvals, ds.params)]))
                for budget in budgets:
                    for label_noise in self.noise.label:
                        for link_noise in self.noise.link:
                            for algo in self.algorithms:
                                for avals in _axes(algo.params):
                                    method = " ".join(filter(None, [algo.label,
                                                                    _suffix(avals, algo.params)]))
                                    if act is None:
                                        out.append(Cell(
                                            method, algo.name, avals, dlabel, ds.name, dvals,
                                            self.links.generator, dict(self.links.params), budget,
                                            tuple(self.links.budget_params), self.noise.link_model,
                                            link_noise, label_noise))
                                        continue
                                    out.append(Cell(
                                        method, algo.name, avals, dlabel, ds.name, dvals, None, {},
                                        max(act.budgets), (), self.noise.link_model, link_noise,
                                        label_noise, budget, tuple(act.budgets), act.batch,
                                        dict(act.params.get(budget, {}))))
        return out

    def to_dict(self) -> dict[str, Any]:
        """The spec as plain data (written to the sweep's JSON: every axis as a list of values)."""
        out = {
            "name": self.name, "seed": self.seed, "trials": self.trials, "metrics": self.metrics,
            "max_iter": self.max_iter,
            "algorithms": [{"name": a.name, "label": a.label, "params": a.params}
                           for a in self.algorithms],
            "datasets": [{"name": d.name, "label": d.label, "params": d.params} for d in self.datasets],
            "links": {"generator": self.links.generator, "budget": self.links.budgets,
                      "budget_params": list(self.links.budget_params), "params": self.links.params},
            "noise": {"link_model": self.noise.link_model, "link": self.noise.link,
                      "label": self.noise.label},
        }
        if self.active is not None:
            out["active"] = {"strategies": self.active.strategies, "budget": self.active.budgets,
                             "batch": self.active.batch, "params": self.active.params}
        return out
