"""The reproduction recipe type a ``pairlab_reproductions`` hook returns, its claims and results.

A recipe (:class:`Reproduction`) splits into

* :meth:`Reproduction.trial` — one independent random trial, a pure function of its index, its seed
  and the options; it returns plain numbers and arrays (no drawing), so trials can run in worker
  processes (or on a Dask cluster), be stored one by one, and any single trial can be re-run alone;
* or, instead of ``trial``, :meth:`Reproduction.grid` — the experiment as a sweep (methods x data
  x link budgets x noise), each (cell, trial) one row of the sweep's table;
* :meth:`Reproduction.summarize` — combines the trials (or the table's rows) into the figure's data
  (panels, curves, tables);
* :meth:`Reproduction.claims` — the paper's statements checked against the computed numbers;
* :meth:`Reproduction.render` — draws the figure (PNG and SVG) with the same canvas code as the GUI.

This module imports nothing of the registry; :mod:`pairlab.reproduce` runs recipes.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from .errors import PairlabError
from .jsontext import json_ready

__all__ = ["Claim", "Reproduction", "ReproductionError", "ReproductionResult", "jsonable"]


@dataclass
class Claim:
    """A statement of the paper checked on the reproduced numbers; ``paper`` is the value the
    paper prints for it, when it prints one (shown next to ``measured`` on the index page)."""

    name: str
    statement: str
    measured: Any
    held: bool
    paper: Any = None

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "statement": self.statement,
                "measured": jsonable(self.measured), "held": bool(self.held),
                "paper": jsonable(self.paper)}


@dataclass
class ReproductionResult:
    """What a recipe computed: ``data`` (every number in the figure), ``curves`` (written to CSV:
    name -> {column: values}) and free-text ``notes``."""

    data: dict[str, Any]
    curves: dict[str, dict[str, Sequence[float]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class Reproduction:
    """Base class of reproduction recipes (registered through ``pairlab_reproductions``)."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    paper: ClassVar[str] = ""
    description: ClassVar[str] = ""
    default_trials: ClassVar[int] = 1
    quick_trials: ClassVar[int] = 1

    def options(self, args: argparse.Namespace) -> dict[str, Any]:
        """Recipe options taken from the command line (e.g. ``data_dir``)."""
        return {"data_dir": getattr(args, "data_dir", None)}

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def grid(self, options: dict[str, Any]) -> Any:
        """The experiment as a sweep, or None (the default: the recipe defines :meth:`trial`).

        Return a ``pairlab.sweep.SweepSpec`` or the same as a dict shaped like a sweep's TOML file
        (``{"algorithms": [...], "datasets": [...], "links": {...}, "noise": {...}, "metrics":
        [...]}``); ``trials`` and ``seed`` come from ``pairlab reproduce``. :meth:`summarize` then
        receives the table's rows (dicts with every factor, seed and metric) in table order.
        """
        return None

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> ReproductionResult:
        raise NotImplementedError

    def claims(self, result: ReproductionResult) -> list[Claim]:
        return []

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        """Draw the figure into ``out_dir`` as NAME.png and NAME.svg; return the paths."""
        return []

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "aliases": list(self.aliases),
                "paper": self.paper, "description": self.description,
                "default_trials": self.default_trials, "params": []}


def jsonable(value: Any) -> Any:
    """``value`` ready for a reproduction file: plain numbers, non-finite ones as text."""
    return json_ready(value, nonfinite="text")


class ReproductionError(PairlabError):
    """A recipe could not run (missing data, failed trial)."""


