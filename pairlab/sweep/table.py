"""The tidy table (one row per trial) and its summary (one row per cell), as CSV.

The table is written in cell order then trial order whatever order trials finished in, with
floats as ``repr`` (shortest round-trip form), so two runs of the same sweep give byte-identical
files apart from the timing column :data:`TIMING_COLUMNS`. The summary is always computed from the
table as read back from its CSV (one way to do it, whether just computed or redrawn by
``--report``).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .grid import Cell, canonical

__all__ = ["FACTOR_COLUMNS", "TIMING_COLUMNS", "columns", "read_table", "summarize", "table_row",
           "write_csv"]

FACTOR_COLUMNS = ("method", "algorithm", "params", "dataset", "data_name", "data_params",
                  "generator", "link_params", "strategy", "budget", "link_noise_model", "link_noise",
                  "label_noise")
SEED_COLUMNS = ("data_seed", "link_seed", "fit_seed")
OUTCOME_COLUMNS = ("n_samples", "n_must_link", "n_cannot_link", "n_seeds", "iterations", "converged",
                   "objective")
TIMING_COLUMNS = ("wall_seconds",)


def columns(metrics: Sequence[str]) -> list[str]:
    return ["cell", "trial", *FACTOR_COLUMNS, *SEED_COLUMNS, *OUTCOME_COLUMNS, *metrics,
            "warnings", "error", *TIMING_COLUMNS]


def table_row(cell: Cell, cell_key: str, trial: int, seeds: dict[str, int],
              outcome: dict[str, Any], metrics: Sequence[str]) -> dict[str, Any]:
    """One row of the table: the cell's factors, the seeds and the trial's outcome."""
    row: dict[str, Any] = {"cell": cell_key[:12], "trial": trial}
    for col in FACTOR_COLUMNS:
        row[col] = getattr(cell, col)
    row.update(seeds)
    for col in OUTCOME_COLUMNS:
        row[col] = outcome.get(col)
    for m in metrics:
        row[m] = outcome.get("metrics", {}).get(m)
    row["warnings"] = outcome.get("warnings", "")
    row["error"] = outcome.get("error", "")
    row["wall_seconds"] = outcome.get("wall_seconds")
    return row


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict | list | tuple):
        return canonical(value)
    return str(value)


def write_csv(rows: Sequence[dict[str, Any]], cols: Sequence[str]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    shared: dict[int, str] = {}  # a cell's parameter dicts, shared by its rows: encoded once
    for row in rows:
        out = []
        for c in cols:
            value = row.get(c)
            kind = type(value)  # the common exact types first: what _text gives, sooner
            if kind is str:
                out.append(value)
            elif kind is float:
                out.append(repr(value))
            elif value is None:
                out.append("")
            elif kind is int:
                out.append(str(value))
            elif isinstance(value, dict | list | tuple):
                text = shared.get(id(value))
                if text is None:
                    text = shared[id(value)] = _text(value)
                out.append(text)
            else:
                out.append(_text(value))
        w.writerow(out)
    return buf.getvalue()


def _number(text: str) -> float:
    return math.nan if text == "" else float(text)


def read_table(text: str) -> list[dict[str, str]]:
    """The table's rows as read from its CSV (values as text)."""
    return list(csv.DictReader(io.StringIO(text)))


SUMMARY_KEYS = ("cell", *FACTOR_COLUMNS)


def summarize(rows: Sequence[dict[str, str]], metrics: Sequence[str]) -> list[dict[str, Any]]:
    """Per cell (in table order): the factors, trials, failures, and per metric the mean and the
    standard deviation (over the trials that ran, ddof = 0 as the paper recipes use) and the
    mean iterations."""
    groups: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        groups.setdefault(row["cell"], []).append(row)
    out = []
    for group in groups.values():
        ok = [r for r in group if not r["error"]]
        entry: dict[str, Any] = {k: group[0].get(k, "") for k in SUMMARY_KEYS}
        entry["trials"] = len(group)
        entry["failures"] = len(group) - len(ok)
        for m in metrics:
            values = np.array([_number(r[m]) for r in ok], dtype=float)
            values = values[~np.isnan(values)]
            entry[f"{m}_mean"] = float(values.mean()) if values.size else None
            entry[f"{m}_std"] = float(values.std()) if values.size else None
        its = [float(r["iterations"]) for r in ok if r["iterations"]]
        entry["iterations_mean"] = float(np.mean(its)) if its else None
        out.append(entry)
    return out


def summary_columns(metrics: Sequence[str]) -> list[str]:
    return [*SUMMARY_KEYS, "trials", "failures",
            *[f"{m}_{s}" for m in metrics for s in ("mean", "std")], "iterations_mean"]


def parse_factor(value: str) -> Any:
    """A factor column's value back as data (JSON where it was written as JSON)."""
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value
