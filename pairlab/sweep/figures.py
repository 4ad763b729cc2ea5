"""Draws a sweep's summary: with the Qt renderer (:mod:`pairlab.render`, imported only when it
draws) or with the ``curves`` given (matplotlib: :func:`pairlab.mpl_curves.draw_curves`, then
neither the renderer nor Qt is imported).

Only ``pairlab sweep`` in the main process calls this, after the trials; workers never import it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..draw.curves import CurvePanel, CurveSeries
from ..figure_backend import drawing
from .report import panels

__all__ = ["draw_summary"]


def draw_summary(doc: dict[str, Any], summary: list[dict[str, Any]], folder: Path,
                 curves: Any = None) -> list[Path]:
    """NAME-METRIC.png and .svg (the formats of :func:`~pairlab.figure_backend.drawing`) for every
    metric of the sweep ``doc`` (its JSON); the paths.
    ``curves`` draws them (default :func:`pairlab.render.render_curves`; without Qt
    :func:`pairlab.mpl_curves.draw_curves`, which takes the same arguments)."""
    if curves is None:
        from ..render import render_curves as curves  # the Qt renderer, loaded to draw only
    folder = Path(folder)
    spec = doc["spec"]
    paths: list[Path] = []
    for metric in spec["metrics"]:
        drawn = []
        for p in panels(summary, metric, spec["links"]["generator"]):
            series = []
            for slot, c in enumerate(p.curves):
                mean, sd = np.asarray(c.mean), np.asarray(c.std)
                series.append(CurveSeries(c.method, np.asarray(c.x), mean, mean - sd, mean + sd,
                                          colour=slot))
            drawn.append(CurvePanel(p.title, series, p.x_label, p.y_label))
        fails = sum(int(s["failures"]) for s in summary)
        notes = (f"{doc['trials']} trials, {fails} failed (left out of the means)" if fails
                 else f"{doc['trials']} trials")
        for suffix in [f".{fmt}" for fmt in drawing().formats]:
            path = folder / f"{doc['name']}-{metric}{suffix}"
            curves(drawn, path, title=f"{doc['name']}: {metric}", notes=notes,
                   scale=1.5 if suffix == ".png" else 1.0)
            paths.append(path)
    return paths
