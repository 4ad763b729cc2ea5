"""The objective of a state in words a student can check by hand (Qt-free)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..run import Run
from ..state import State
from .pane import Pane

__all__ = ["MetricCurves", "objective_in_words", "objective_points"]


def objective_in_words(state: State | None) -> str:
    """``"distortion D + λ L × K clusters [- links W] = J"`` for a DP-means-type state whose
    extras carry ``terms`` (divergence, penalty, links) and ``lambda`` (Kulis & Jordan eq. 1,
    RDP-means eq. 20); "" for other states. K counts the non-empty clusters of the labels."""
    if state is None or state.objective is None or not math.isfinite(state.objective):
        return ""
    extras = state.extras or {}
    terms, lam = extras.get("terms"), extras.get("lambda")
    if not isinstance(terms, dict) or lam is None or "divergence" not in terms:
        return ""
    labels = np.asarray(state.labels)
    n_clusters = int(np.unique(labels[labels >= 0]).size)
    text = f"distortion {terms['divergence']:.6g} + λ {lam:.4g} × {n_clusters} clusters"
    links = float(terms.get("links", 0.0))
    if links:
        text += f" {'-' if links < 0 else '+'} links {abs(links):.4g}"
    return f"{text} = {state.objective:.6g}"


def objective_points(run: Run, last: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The objective at every stored iteration ``i`` (x = i) and at every stored half-step
    after it (x = i + 0.5) up to iteration ``last``, in order, finite values only: the plot's
    curve then shows what each half-step changed, not only each whole iteration."""
    end = len(run.history) - 1 if last is None else min(int(last), len(run.history) - 1)
    xs: list[float] = []
    ys: list[float] = []
    for i in range(end + 1):
        for x, state in ((float(i), run.history[i]), (i + 0.5, run.halves.get(i))):
            value = None if state is None else state.objective
            if value is not None and math.isfinite(value) and (x % 1 == 0 or i < end
                                                              or run.on_half):
                xs.append(x)
                ys.append(float(value))
    return np.asarray(xs), np.asarray(ys)


class MetricCurves:
    """The metric of every stored iteration of each pane, kept between frames: a frame computes
    only the iterations not seen before (a new one while playing), and starts again when the run
    was rebuilt or its history changed (a moved mean), the metric or the links changed."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[str, int, list[Any], list[float]]] = {}

    def curve(self, lab: Any, pane: Pane, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Metric ``name`` (one of the panes' metrics, e.g. "ari") at iterations 0, 1, ... of
        ``pane``'s run, as (iterations, values); empty when the metric does not apply (no ground
        truth, no links) or there is no run. ``lab`` is the :class:`~pairlab.gui.model.Lab`."""
        run = pane.run
        empty = np.empty(0), np.empty(0)
        if run is None:
            return empty
        seen = self._seen.get(id(pane))
        states: list[Any] = []
        values: list[float] = []
        if seen is not None and seen[:2] == (name, lab.constraints_version):
            for state, value in zip(seen[2], seen[3], strict=True):
                if len(states) >= len(run.history) or run.history[len(states)] is not state:
                    break
                states.append(state)
                values.append(value)
        for t in range(len(states), len(run.history)):
            value = lab.metrics(pane, t).get(name)  # shared with the pane's metrics line
            if value is None:
                self._seen.pop(id(pane), None)
                return empty
            states.append(run.history[t])
            values.append(float(value))
        self._seen[id(pane)] = (name, lab.constraints_version, states, values)
        return np.arange(len(values), dtype=float), np.asarray(values)
