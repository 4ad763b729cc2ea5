"""The objective plot of a pane with what an instructor adds to it: mouse zoom (wheel and drag;
double-click or "A" resets it) and a second curve, a metric such as ARI against iteration, on its
own axis on the right, with a marker at the cursor."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ..draw.palette import GREY
from .canvas import ObjectivePlot
from .lean_items import LeanScatter
from .qtpaint import cache_axis, cache_item, make_pen

__all__ = ["METRIC_COLOUR", "MetricAxis", "TeachingObjectivePlot"]

#: The metric curve's colour (Okabe-Ito bluish green; the objective is blue).
METRIC_COLOUR = (0, 158, 115)


class MetricAxis:
    """A metric curve and its cursor marker in a view box of their own, on the right-hand axis of
    ``plot`` (a pyqtgraph PlotItem), sharing its x axis: the app's objective plot and the
    exported one both draw the metric through it. ``for_export``: no pixmap caches, and no view
    box border (an invisible one breaks pyqtgraph's SVG export)."""

    def __init__(self, plot: Any, *, for_export: bool = False) -> None:
        self.plot = plot
        self.vb = pg.ViewBox(enableMouse=False)
        if for_export:
            self.vb.border = None
        plot.scene().addItem(self.vb)
        axis = plot.getAxis("right")
        axis.linkToView(self.vb)
        axis.setPen(make_pen(METRIC_COLOUR, 1))
        axis.setTextPen(make_pen(METRIC_COLOUR, 1))
        self.vb.setXLink(plot.getViewBox())
        self.vb.setYRange(0.0, 1.0, padding=0.05)
        self.curve = pg.PlotCurveItem(pen=make_pen(METRIC_COLOUR, 1.6))
        self.marker = LeanScatter(size=7, brush=pg.mkBrush(*METRIC_COLOUR),
                                         pen=make_pen(GREY, 1))
        if not for_export:
            cache_axis(axis)
            cache_item(self.curve)
        self.vb.addItem(self.curve)
        self.vb.addItem(self.marker)

    def sync(self) -> None:
        """Lay the metric's view box over the plot's (after a resize or the layout)."""
        self.vb.setGeometry(self.plot.getViewBox().sceneBoundingRect())


class TeachingObjectivePlot(ObjectivePlot):
    """:class:`ObjectivePlot` with mouse zoom and a metric curve on a right-hand axis."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        plot = self.getPlotItem()
        plot.setMouseEnabled(x=True, y=True)
        self.zoomed = False
        plot.getViewBox().sigRangeChangedManually.connect(self._zoomed)
        self.metric_axis = MetricAxis(plot)
        self.metric_vb = self.metric_axis.vb
        self.metric_curve = self.metric_axis.curve
        self.metric_marker = self.metric_axis.marker
        plot.getViewBox().sigResized.connect(self._sync_geometry)
        self.metric_name = ""
        self._metric_key: bytes | None = None

    def _sync_geometry(self) -> None:
        self.metric_axis.sync()

    # == zoom ==================================================================================
    def _zoomed(self, *args: object) -> None:
        self.zoomed = True

    def _fit(self, values: np.ndarray, index: float = 0.0,
             points: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        if self.zoomed:  # the user's zoom stays while the curve grows; "A" gives it back
            self._x_end = max(self._x_end, values.size - 1, math.ceil(index), 1)
            return
        super()._fit(values, index, points)

    def reset_zoom(self) -> None:
        """Show the whole curve again (double-click, or "A" in the app)."""
        self.zoomed = False
        if self._values is not None:
            super()._fit(self._values, float(self.cursor.value()), self._shown_points)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:
        self.reset_zoom()
        event.accept()

    # == the metric curve ======================================================================
    def show_metric(self, xs: np.ndarray, ys: np.ndarray, name: str, index: float) -> None:
        """Plot the metric ``ys`` at iterations ``xs`` on the right axis (empty: hide it) and mark
        the value at the cursor ``index`` (the iteration before it at a half-step)."""
        plot = self.getPlotItem()
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        if not xs.size:
            if self.metric_name:
                plot.hideAxis("right")
                self.metric_curve.setData([], [])
                self.metric_marker.setData([], [])
                self.metric_name, self._metric_key = "", None
            return
        key = xs.tobytes() + ys.tobytes()
        if key != self._metric_key:
            self.metric_curve.setData(xs, ys)
            lo = min(0.0, float(ys.min()))
            self.metric_vb.setYRange(lo, max(1.0, float(ys.max())), padding=0.05)
            self._metric_key = key
        if name != self.metric_name:
            plot.showAxis("right")
            plot.setLabel("right", name, color="#{:02x}{:02x}{:02x}".format(*METRIC_COLOUR))
            self.metric_name = name
            QtCore.QTimer.singleShot(0, self._sync_geometry)
        at = np.flatnonzero(xs <= index + 1e-9)
        if at.size:
            self.metric_marker.move_points([xs[at[-1]]], [ys[at[-1]]])
        else:
            self.metric_marker.setData([], [])

    def metric_at_cursor(self) -> float | None:
        """The marked metric value (None when none is shown)."""
        _x, y = self.metric_marker.getData()
        return float(y[0]) if len(y) else None
