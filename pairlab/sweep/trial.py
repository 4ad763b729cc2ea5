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
from ..links import GENERATORS, draw_links, draw_seed_labels
from ..registry import get_registry
from ..scoring import evaluate
from .grid import Cell

__all__ = ["run_trial"]


def _generator_params(cell: Cell, n: int) -> dict[str, Any]:
    """The generator's parameters with the cell's budget set (a share below 1 made a count)."""
    given = dict(cell.link_params)
    spec = GENERATORS[cell.generator]
    by_name = {p.name: p for p in spec.params}
    total = n if spec.budget_of == "points" else n * (n - 1) / 2
    for name in cell.budget_params:
        b = cell.budget
        if by_name[name].type is int and 0 < b < 1:
            b = round(b * total)  # a fraction of all pairs (or points)
        given[name] = b
    return given


def _links(cell: Cell, data: Any, link_seed: int) -> Constraints:
    if cell.generator is None:
        return Constraints.empty(data.n_samples)
    level: float | tuple[float, float] = cell.link_noise
    if cell.link_noise_model == "e-matrix":  # every link reported wrongly with probability `level`
        level = (1.0 - cell.link_noise, 1.0 - cell.link_noise)
    return draw_links(data, cell.generator, _generator_params(cell, data.n_samples),
                      np.random.default_rng([link_seed, 0]), label_noise=cell.label_noise or None,
                      label_rng=np.random.default_rng([link_seed, 1]),
                      noise=cell.link_noise_model if cell.link_noise else None, level=level,
                      noise_rng=np.random.default_rng([link_seed, 2]))


def _seeds(cell: Cell, data: Any, link_seed: int) -> np.ndarray | None:
    """With partial-label budgets (generator ``labels``), the labels behind the trial's links,
    drawn from the same streams: seeds for an algorithm that takes them (``takes_seed_labels``)."""
    if cell.generator != "labels":
        return None
    return draw_seed_labels(data, _generator_params(cell, data.n_samples),
                            np.random.default_rng([link_seed, 0]),
                            label_noise=cell.label_noise or None,
                            label_rng=np.random.default_rng([link_seed, 1]))


def run_trial(cell: Cell, trial: int, seeds: dict[str, int], metrics: list[str],
              max_iter: int | None) -> dict[str, Any]:
    """The engine task of one sweep trial: its outcome (the caller adds the factors)."""
    from ..run import Run

    reg = get_registry()
    row: dict[str, Any] = {"n_samples": None, "n_must_link": None, "n_cannot_link": None,
                           "iterations": None, "converged": None, "objective": None,
                           "n_seeds": None, "metrics": {}, "warnings": "", "error": ""}
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            data = reg.dataset(cell.data_name).make(seed=seeds["data_seed"], **cell.data_params)
            row["n_samples"] = data.n_samples
            links = _links(cell, data, seeds["link_seed"])
            row["n_must_link"], row["n_cannot_link"] = links.n_must_link, links.n_cannot_link
            params = cell.params
            if getattr(reg.algorithm(cell.algorithm), "takes_seed_labels", False):
                partial = _seeds(cell, data, seeds["link_seed"])
                if partial is not None and (partial >= 0).any():
                    params = {**params, "seed_labels": partial}
                    row["n_seeds"] = int((partial >= 0).sum())
            run = Run(cell.algorithm, data, links, params, seed=seeds["fit_seed"])
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

