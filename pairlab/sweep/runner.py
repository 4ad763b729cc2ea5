"""``run_sweep``: a checked spec -> trials through the engine -> table, summary and provenance.

Output folder ``OUT``::

    OUT/NAME.csv           one row per trial (factors, seeds, outcome, metrics, warnings, error, time)
    OUT/NAME-summary.csv   one row per cell: mean and s.d. per metric, failures
    OUT/NAME.json          the spec, the cells and their keys, provenance, engine counts
    OUT/.trials/log/       every finished trial, a record in a log (what a rerun resumes from)
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from ..atomic import atomic_write_text
from ..registry import get_registry
from .active_trial import run_active_trial
from .engine import STDERR, EngineResult, run_tasks
from .executors import Executor, Task
from .fingerprint import code_fingerprint
from .grid import Cell, SweepSpec, content_key
from .provenance import provenance
from .store import TrialStore
from .table import columns, read_table, summarize, summary_columns, table_row, write_csv
from .trial import run_trial

__all__ = ["SweepResult", "cell_key", "run_sweep", "sweep_tasks"]

TRIALS_DIR = ".trials"
KIND = "pairlab-sweep"


@dataclass
class SweepResult:
    rows: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    table: Path
    summary_table: Path
    document: Path
    engine: EngineResult

    def _repr_html_(self) -> str:
        from ..display import sweep_html

        return sweep_html(self)


def _plugin_version(kind: str, name: str) -> str:
    info = get_registry().plugin_of(kind, name)
    return f"{info.distribution} {info.version}"


def cell_key(spec: SweepSpec, cell: Cell) -> str:
    """Content hash of a cell with everything its trials depend on (the code included)."""
    from .. import __version__

    reg = get_registry()
    versions = {"pairlab": __version__, "algorithm": _plugin_version("algorithms", cell.algorithm),
                "dataset": _plugin_version("datasets", cell.data_name)}
    modules = [reg.algorithm(cell.algorithm).__module__,
               getattr(reg.dataset(cell.data_name).load, "__module__", "")]
    if cell.strategy:  # a query-strategy cell depends on the strategy's code too
        versions["strategy"] = _plugin_version("query_strategies", cell.strategy)
        modules.append(reg.query_strategy(cell.strategy).__module__)
    return content_key({"kind": "sweep-cell", "cell": cell.describe(), "seed": spec.seed,
                        "metrics": spec.metrics, "max_iter": spec.max_iter,
                        "versions": versions, "code": code_fingerprint(*modules)})


def sweep_tasks(spec: SweepSpec) -> tuple[list[Task], list[tuple[Cell, str, int, dict[str, int]]]]:
    """One engine task per (cell, trial), in table order, and what each row needs."""
    tasks, meta = [], []
    for cell in spec.cells():
        key = cell_key(spec, cell)
        for t, seeds in enumerate(cell.seeds_of_trials(spec.seed, spec.trials)):
            tasks.append(Task(f"{key}-{t:05d}", run_active_trial if cell.strategy else run_trial,
                              (cell, t, seeds, list(spec.metrics), spec.max_iter),
                              f"{cell.method} on {cell.dataset}, trial {t}"))
            meta.append((cell, key, t, seeds))
    return tasks, meta


def run_sweep(spec: SweepSpec, out_dir: str | os.PathLike[str], executor: Executor | None = None, *,
              fresh: bool = False, progress: TextIO | None = STDERR,
              argv: Sequence[str] | None = None) -> SweepResult:
    """Run every trial of ``spec`` not yet stored in ``out_dir`` and write the tables."""
    start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks, meta = sweep_tasks(spec)
    ran = run_tasks(tasks, TrialStore(out / TRIALS_DIR), executor, fresh=fresh, progress=progress)
    rows = []
    for (cell, key, t, seeds), value, error in zip(meta, ran.values, ran.errors, strict=True):
        outcome = dict(value or {})
        if error:  # not the trial but its task failed (e.g. a worker died): not stored, rerun retries
            outcome["error"] = error
        if not cell.strategy:
            rows.append(table_row(cell, key, t, seeds, outcome, spec.metrics))
            continue
        for q in cell.queries:  # a query-strategy trial: a row per query budget, its own cell id
            at = dict(outcome.get("curve", {}).get(str(q), {}))
            at["error"] = ("" if at else outcome.get("error") or f"no record after {q} queries")
            at["warnings"] = outcome.get("warnings", "")
            rows.append(table_row(replace(cell, budget=q), content_key([key, q]), t, seeds, at,
                                  spec.metrics))
    table = out / f"{spec.name}.csv"
    text = write_csv(rows, columns(spec.metrics))
    atomic_write_text(table, text)
    summary = summarize(read_table(text), spec.metrics)
    summary_table = out / f"{spec.name}-summary.csv"
    atomic_write_text(summary_table, write_csv(summary, summary_columns(spec.metrics)))
    cells = {}
    for cell, key, _t, _s in meta:
        cells.setdefault(key[:12], {"key": key, **cell.describe()})
    doc = {"kind": KIND, "name": spec.name, "spec": spec.to_dict(),
           "table": table.name, "summary": summary_table.name,
           "trials": len(tasks), "rows": len(rows), "failures": sum(bool(r["error"]) for r in rows),
           "engine": {"executor": ran.executor, "stored": ran.stored, "ran": ran.ran,
                      "corrupt_recomputed": len(ran.corrupt)},
           "cells": list(cells.values()),
           "provenance": provenance(argv, time.perf_counter() - start)}
    document = out / f"{spec.name}.json"
    atomic_write_text(document, json.dumps(doc, indent=1, default=str) + "\n")
    return SweepResult(rows, summary, table, summary_table, document, ran)
