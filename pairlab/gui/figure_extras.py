"""What an exported view adds to its panels when the app shows it: the means' trails on each
canvas and, under each panel, the objective plot with the metric curve (ARI, ...) on a right-hand
axis, as in the window. Drawing only: the numbers come from :class:`PaneExtras`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..draw.palette import GREY, INK, Style
from ..draw.trails import Trails

__all__ = ["CURVE_HEIGHT", "ExportCurvePlot", "PaneExtras"]

#: Height (pixels, before scaling) of the objective plot under each exported panel.
CURVE_HEIGHT = 150
_OBJECTIVE = (0, 114, 178)  # the app's objective curve (Okabe-Ito blue)


@dataclass
class PaneExtras:
    """One pane's trails and curves as the app shows them (empty arrays: not shown)."""

    trails: Trails | None = None
    trail_colours: np.ndarray | None = None
    objective_x: np.ndarray = field(default_factory=lambda: np.empty(0))
    objective_y: np.ndarray = field(default_factory=lambda: np.empty(0))
    objective_name: str = ""
    metric_x: np.ndarray = field(default_factory=lambda: np.empty(0))
    metric_y: np.ndarray = field(default_factory=lambda: np.empty(0))
    metric_name: str = ""
    cursor: float = 0.0  # the iteration shown (x.5 at a half-step)

    @property
    def has_curves(self) -> bool:
        return bool(self.objective_x.size or self.metric_x.size)


class ExportCurvePlot:
    """An objective plot under an exported panel, with the metric on its own right axis."""

    def __init__(self, plot: Any, style: Style) -> None:
        import pyqtgraph as pg

        from .objective_plot import METRIC_COLOUR, MetricAxis
        from .qtpaint import make_pen, qcolor

        self.plot = plot
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.getViewBox().border = None  # as the canvas: an invisible border breaks the SVG export
        plot.setMaximumHeight(CURVE_HEIGHT)
        for name in ("left", "bottom"):
            plot.getAxis(name).setPen(make_pen(GREY, 1))
            plot.getAxis(name).setTextPen(make_pen((90, 90, 90), 1))
        plot.setLabel("bottom", "iteration", **{"font-size": f"{style.font_size}pt"})
        self.curve = plot.plot(pen=make_pen(_OBJECTIVE, 1.8))
        self.marker = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(213, 94, 0),
                                         pen=pg.mkPen(qcolor(INK)))
        plot.addItem(self.marker, ignoreBounds=True)
        self.metric_axis = MetricAxis(plot, for_export=True)
        self.metric_vb = self.metric_axis.vb
        self.metric_curve = self.metric_axis.curve
        self.metric_marker = self.metric_axis.marker
        self.metric_colour = METRIC_COLOUR
        self.font_size = style.font_size

    def show(self, extras: PaneExtras) -> None:
        """Draw the objective and metric curves of ``extras``, marked at its cursor."""
        plot = self.plot
        x, y = extras.objective_x, extras.objective_y
        self.curve.setData(x, y)
        at = np.flatnonzero(x <= extras.cursor + 1e-9)
        self.marker.setData(x[at[-1:]], y[at[-1:]])
        plot.setLabel("left", extras.objective_name, **{"font-size": f"{self.font_size}pt"})
        end = max(float(x.max()) if x.size else 1.0, float(extras.metric_x.max())
                  if extras.metric_x.size else 1.0, 1.0)
        plot.setXRange(0, end, padding=0.03)
        if y.size:
            lo, hi = float(y.min()), float(y.max())
            pad = 0.08 * (hi - lo) if hi > lo else max(abs(hi) * 0.01, 1e-3)
            plot.setYRange(lo - pad, hi + pad, padding=0)
        mx, my = extras.metric_x, extras.metric_y
        if mx.size:
            plot.showAxis("right")
            colour = "#{:02x}{:02x}{:02x}".format(*self.metric_colour)
            plot.setLabel("right", extras.metric_name, color=colour,
                          **{"font-size": f"{self.font_size}pt"})
            self.metric_curve.setData(mx, my)
            self.metric_vb.setYRange(min(0.0, float(my.min())), max(1.0, float(my.max())),
                                     padding=0.05)
            at = np.flatnonzero(mx <= extras.cursor + 1e-9)
            self.metric_marker.setData(mx[at[-1:]], my[at[-1:]])
        else:
            plot.hideAxis("right")
            self.metric_curve.setData([], [])
            self.metric_marker.setData([], [])
        self.sync()

    def sync(self) -> None:
        """Lay the metric's view box over the plot's (after the figure's layout is done)."""
        self.metric_axis.sync()
