"""One trial of a query-strategy cell: the oracle loop to the largest budget, a record per budget.

:func:`run_active_trial` runs :func:`pairlab.active.active_learn` once (answers from the true
labels, through the cell's link noise model if it has a level) and records every metric after
each query count of ``cell.queries``; the runner makes one table row of each record. Seeds: the
strategy, every fit and (``fit_seed + 1``) the answer noise derive from the trial's ``fit_seed``,
which every strategy and method of a trial shares, so strategies are compared on the same data
and starts. Never imports Qt.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

from ..registry import get_registry
from ..scoring import evaluate
from .grid import Cell

__all__ = ["run_active_trial"]


def _outcome(run: Any, links: Any, data: Any, metrics: list[str], reg: Any) -> dict[str, Any]:
    state = run.state
    return {"n_samples": data.n_samples, "n_must_link": links.n_must_link,
            "n_cannot_link": links.n_cannot_link, "n_seeds": None,
            "iterations": run.n_iter, "converged": bool(run.converged),
            "objective": None if state.objective is None else float(state.objective),
            "metrics": evaluate(state.labels, data.y, links, [reg.metric(m) for m in metrics])}


def run_active_trial(cell: Cell, trial: int, seeds: dict[str, int], metrics: list[str],
                     max_iter: int | None) -> dict[str, Any]:
    """The engine task of one query-strategy trial: ``{"curve": {count: outcome}, ...}``."""
    from ..active import active_learn

    reg = get_registry()
    out: dict[str, Any] = {"curve": {}, "warnings": "", "error": ""}
    start = time.perf_counter()
    wanted = set(cell.queries)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            data = reg.dataset(cell.data_name).make(seed=seeds["data_seed"], **cell.data_params)
            level: Any = cell.link_noise
            if cell.link_noise_model == "e-matrix":  # as the sweep's links: wrong with prob. level
                level = (1.0 - cell.link_noise, 1.0 - cell.link_noise)

            def record(run: Any, links: Any) -> None:
                count = links.n_must_link + links.n_cannot_link
                if count in wanted:
                    row = _outcome(run, links, data, metrics, reg)
                    row["wall_seconds"] = time.perf_counter() - start
                    out["curve"][str(count)] = row

            active_learn(cell.algorithm, data, cell.strategy, int(cell.budget), params=cell.params,
                         strategy_params=cell.strategy_params, seed=seeds["fit_seed"],
                         batch=cell.batch, metric=metrics[0],
                         noise=cell.link_noise_model if cell.link_noise else None, level=level,
                         registry=reg, max_iter=max_iter, on_fit=record)
        except Exception as exc:
            out["error"] = f"{type(exc).__name__}: {exc}"
    out["warnings"] = " | ".join(sorted({f"{w.category.__name__}: {w.message}" for w in caught}))
    out["wall_seconds"] = time.perf_counter() - start
    return out
