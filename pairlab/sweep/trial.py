"""One trial of a sweep cell, as a worker runs it: data, links, noise, fit, metrics -> one row.

Imports pairlab's core and, through the registry, the plugins; never Qt. A trial that raises comes
back as a row with its ``error`` (and no metrics), so the sweep goes on; a metric that fails is left
out of the row and named in its ``warnings`` (:func:`pairlab.scoring.evaluate`), the row stands.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from ..constraints import Constraints
from ..links import GENERATORS, draw_links
from ..registry import get_registry
from ..scoring import evaluate
from .grid import Cell

__all__ = ["run_trial"]


def _links(cell: Cell, data: Any, link_seed: int) -> Constraints:
    if cell.generator is None:
        return Constraints.empty(data.n_samples)
    given = dict(cell.link_params)
    by_name = {p.name: p for p in GENERATORS[cell.generator].params}
    n = data.n_samples
    for name in cell.budget_params:
        b = cell.budget
        if by_name[name].type is int and 0 < b < 1:
            b = round(b * n * (n - 1) / 2)  # a fraction of all pairs
        given[name] = b
    level: float | tuple[float, float] = cell.link_noise
    if cell.link_noise_model == "e-matrix":  # every link reported wrongly with probability `level`
        level = (1.0 - cell.link_noise, 1.0 - cell.link_noise)
    return draw_links(data, cell.generator, given, np.random.default_rng([link_seed, 0]),
                      label_noise=cell.label_noise or None, label_rng=np.random.default_rng([link_seed, 1]),
                      noise=cell.link_noise_model if cell.link_noise else None, level=level,
                      noise_rng=np.random.default_rng([link_seed, 2]))


def run_trial(cell: Cell, trial: int, seeds: dict[str, int], metrics: list[str],
              max_iter: int | None) -> dict[str, Any]:
    """The engine task of one sweep trial: its outcome (the caller adds the factors)."""
    from ..run import Run

    reg = get_registry()
    row: dict[str, Any] = {"n_samples": None, "n_must_link": None, "n_cannot_link": None,
                           "iterations": None, "converged": None, "objective": None,
                           "metrics": {}, "warnings": "", "error": ""}
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            data = reg.dataset(cell.data_name).make(seed=seeds["data_seed"], **cell.data_params)
            row["n_samples"] = data.n_samples
            links = _links(cell, data, seeds["link_seed"])
            row["n_must_link"], row["n_cannot_link"] = links.n_must_link, links.n_cannot_link
            run = Run(cell.algorithm, data, links, cell.params, seed=seeds["fit_seed"])
            state = run.run(max_iter)
            row["iterations"], row["converged"] = run.n_iter, bool(run.converged)
            row["objective"] = None if state.objective is None else float(state.objective)
            # pairlab run's isolation: a metric that raises or is not finite is left out of the
            # row (its column stays empty) and named in the row's warnings (a PluginWarning)
            row["metrics"] = evaluate(state.labels, data.y, links, [reg.metric(m) for m in metrics])
        except Exception as exc:
            row["error"] = f"{type(exc).__name__}: {exc}"
    row["warnings"] = " | ".join(sorted({f"{w.category.__name__}: {w.message}" for w in caught}))
    row["wall_seconds"] = time.perf_counter() - start
    return row

