r"""The reproduction recipe type a ``pairlab_reproductions`` hook returns, its claims and results.

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

A recipe's options are declared :class:`~pairlab.params.Param` objects (:attr:`Reproduction.params`,
e.g. :data:`DATA_DIR` and :data:`QUICK`), validated like an algorithm's; :meth:`Reproduction.options`
turns given values into the options dict its other methods receive.

This module imports nothing of the registry; :mod:`pairlab.reproduce` runs recipes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .errors import InvalidInputError, PairlabError
from .jsontext import json_ready
from .params import Param, resolve_params

__all__ = ["DATA_DIR", "QUICK", "Claim", "Reproduction", "ReproductionError", "ReproductionResult",
           "jsonable", "paired_rule", "printed_bound", "printed_claim", "printed_tolerance"]

#: the folder with the paper's data files (``--data-dir``); None: only the shipped data
DATA_DIR = Param("data_dir", str, None, "folder with the paper's data files (e.g. haberman.data)",
                 nullable=True)
#: the smaller experiment CI runs (``--quick``): fewer budgets, rates or data sets
QUICK = Param("quick", bool, False, "the smaller experiment CI runs (fewer budgets or data sets)")


@dataclass
class Claim:
    """A statement of the paper checked on the reproduced numbers; ``paper`` is the value the
    paper prints for it, when it prints one (shown next to ``measured`` on the index page).

    A comparison with a printed number (:func:`printed_claim`) also carries the ``difference``
    (ours - paper), the ``tolerance`` it was judged by and the number of ``runs`` behind our value.
    ``extension``: a claim on data the paper did not use, reported apart from the paper's totals.
    """

    name: str
    statement: str
    measured: Any
    held: bool
    paper: Any = None
    difference: float | None = None
    tolerance: float | None = None
    runs: int | None = None
    extension: bool = False

    @property
    def printed(self) -> bool:
        """A comparison with a number the paper prints (it has a tolerance)."""
        return self.tolerance is not None

    def describe(self) -> dict[str, Any]:
        out = {"name": self.name, "statement": self.statement,
               "measured": jsonable(self.measured), "held": bool(self.held),
               "paper": jsonable(self.paper)}
        if self.printed:
            out.update(difference=jsonable(self.difference), tolerance=jsonable(self.tolerance),
                       runs=self.runs)
        if self.extension:
            out["extension"] = True
        return out


def printed_tolerance(strata: Sequence[Sequence[float]], paper_runs: int, unit: float) -> float:
    """The tolerance of a comparison with a printed value, one rule fixed before any run
    (docs/reproductions.md, "Printed values"). Both our value and the paper's are means over G
    settings (strata, e.g. the r x p grid of a table cell) of the runs in each; stratum g has n_g of
    our runs with standard deviation s_g, and ``paper_runs`` of the paper's (which prints no
    spread, so s_g stands for its spread too). Tolerance = half the printed value's last digit
    ``unit`` (its rounding) + 2 standard errors of the difference of the two means:
    ``unit / 2 + 2 sqrt(sum_g s_g^2 (1 / n_g + 1 / paper_runs)) / G``. NaN when a stratum has
    fewer than two finite runs (no spread to judge by)."""
    groups = [np.asarray([v for v in g if np.isfinite(v)], dtype=float) for g in strata]
    if not groups or paper_runs < 1 or any(g.size < 2 for g in groups):
        return math.nan
    var = sum(float(np.var(g, ddof=1)) * (1 / g.size + 1 / paper_runs) for g in groups)
    return unit / 2 + 2 * math.sqrt(var) / len(groups)


def printed_claim(name: str, statement: str, paper: float, strata: Sequence[Sequence[float]], *,
                  paper_runs: int, unit: float = 0.01, extension: bool = False) -> Claim:
    """Our value, the mean over ``strata`` of the mean of each stratum's runs, against the paper's
    printed ``paper`` (``paper_runs`` runs a stratum, printed to ``unit``): held when
    ``|ours - paper| <= printed_tolerance(...)``; a claim that cannot be judged (a stratum with
    fewer than two runs) does not hold. ``runs`` counts our runs."""
    groups = [[float(v) for v in g if np.isfinite(v)] for g in strata]
    means = [float(np.mean(g)) for g in groups if g]
    ours = float(np.mean(means)) if means and len(means) == len(groups) else math.nan
    tol = printed_tolerance(groups, paper_runs, unit)
    diff = ours - float(paper)
    held = bool(np.isfinite(tol) and abs(diff) <= tol)
    return Claim(name, statement, ours, held, paper=paper, difference=diff, tolerance=tol,
                 runs=sum(len(g) for g in groups), extension=extension)


def printed_bound(name: str, statement: str, bound: float, strata: Sequence[Sequence[float]], *,
                  below: bool, paper_runs: int, unit: float = 0.01,
                  extension: bool = False) -> Claim:
    """A printed bound ("remains less than 60 %", "never reaches 55 %", "takes over 100 pairs to
    reach 95 %") compared as :func:`printed_claim` compares a value, one-sided: with ``below`` it
    holds when our value is not above ``bound`` by more than the tolerance (``difference <=
    tolerance``), otherwise when it is not below it by more (``difference >= -tolerance``). The
    statement ends with the rule applied."""
    side = "<= paper + tolerance" if below else ">= paper - tolerance"
    c = printed_claim(name, f"{statement} [bound: ours {side}]", bound, strata,
                      paper_runs=paper_runs, unit=unit, extension=extension)
    tol, diff = c.tolerance, c.difference
    ok = math.isfinite(tol) and math.isfinite(diff)
    c.held = bool(ok and (diff <= tol if below else diff >= -tol))
    return c


def paired_rule(name: str, statement: str, differences: Sequence[Sequence[float]], *,
                share: float = 1.0, labels: Sequence[Any] | None = None, paper: Any = None,
                extension: bool = False) -> Claim:
    r"""A qualitative claim over a whole curve, one rule fixed before any run
    (docs/reproductions.md, "Qualitative claims"): ``differences[b]`` are the paired differences
    (ours - reference, one per trial, same data and links) at budget ``b`` (a point of the curve,
    or a cell of a bar chart); the difference is significant at ``b`` when its mean exceeds two
    standard errors, ``mean > 2 sd / sqrt(n)`` (n >= 2 finite trials; otherwise it is not). Held
    when the share of budgets with a significant difference is at least ``share`` (1: every
    budget). A trial without a result at ``b`` (None or NaN, e.g. an infeasible constrained
    K-means) is not in the mean; the measured value counts them (``failed``: "k / n" a budget).
    The statement ends with the rule applied."""
    if not 0 < share <= 1:
        raise InvalidInputError(f"share must be in (0, 1], got {share!r}")
    means, ses, sig, failed = [], [], [], []
    for values in differences:
        v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
        failed.append(f"{len(values) - v.size} / {len(values)}")
        mean = float(v.mean()) if v.size else math.nan
        se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size >= 2 else math.nan
        means.append(mean)
        ses.append(se)
        sig.append(bool(v.size >= 2 and mean > 2 * se))
    n_sig = sum(sig)
    held = bool(differences) and n_sig >= share * len(differences) - 1e-9
    rule = ("paired difference above two standard errors at every budget" if share == 1 else
            f"paired difference above two standard errors at >= {share:.0%} of the budgets")
    measured: dict[str, Any] = {"significant": n_sig, "of": len(differences), "mean": means,
                                "se": ses}
    if labels is not None:
        measured["at"] = list(labels)
    if any(not f.startswith("0 /") for f in failed):
        measured["failed"] = failed
    return Claim(name, f"{statement} [rule: {rule}]", measured, held, paper=paper,
                 extension=extension)


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
    #: how long a default run took where it may exceed 10 minutes (measured, with the command and
    #: the load; ``pairlab reproduce NAME --help`` shows it)
    run_time: ClassVar[str] = ""
    #: the recipe's options (``pairlab reproduce NAME --set KEY=VALUE``; ``--data-dir`` and
    #: ``--quick`` set ``data_dir`` and ``quick`` when declared)
    params: ClassVar[tuple[Param, ...]] = (DATA_DIR,)

    def options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        r"""The options dict of a run: ``given`` validated against :attr:`params` (unknown names
        and bad values raise InvalidInputError), defaults filled in, then passed through :meth:`expand`."""
        return self.expand(resolve_params(self.params, given, owner=f"reproduction {self.name!r}"))

    def expand(self, values: dict[str, Any]) -> dict[str, Any]:
        """Add the settings that follow from the declared values (e.g. the budgets of a quick
        run) to ``values``; the default adds nothing."""
        return values

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
                "default_trials": self.default_trials, "quick_trials": self.quick_trials,
                "params": [p.describe() for p in self.params]}


def jsonable(value: Any) -> Any:
    """``value`` ready for a reproduction file: plain numbers, non-finite ones as text."""
    return json_ready(value, nonfinite="text")


class ReproductionError(PairlabError):
    """A recipe could not run (missing data, failed trial)."""


