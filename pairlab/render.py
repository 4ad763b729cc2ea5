"""Headless rendering of data, links and algorithm states to PNG or SVG (for papers and slides).

The figures are drawn by the teaching app's own canvas (:class:`pairlab.gui.canvas.CanvasLayers`)
from the Qt-free frames of :mod:`pairlab.draw` and written with pyqtgraph's exporters
(:mod:`pairlab.gui.figure`), so a figure looks exactly like the lecture view. A Qt application is
created on first use; without a display the ``offscreen`` platform is used.

Examples
--------
>>> run = pairlab.Run("gmm", data, links, {"n_components": 2}, seed=0)  # doctest: +SKIP
>>> run.run()                                                           # doctest: +SKIP
>>> render_run(run, "gmm.png", title="GMM")                             # doctest: +SKIP
>>> render_panels([Panel(data, links, gmm_state, "GMM", decision_regions=gmm_run.algorithm),
...                Panel(data, links, gmpr_state, "GM-PR")], "fig3.svg")  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .constraints import Constraints
from .dataset import Dataset
from .draw.curves import CurvePanel, CurveSeries
from .draw.frames import Frame, build_frame
from .draw.geometry import ViewMap, data_bounds, region_bounds
from .draw.palette import Style
from .draw.regions import RegionImage, decision_regions
from .errors import InvalidInputError
from .gui.figure import (
    FigureRenderer,
    add_notes,
    ensure_app,
    export_scene,
    figure_key,
    key_width,
    notes_height,
    qimage_to_array,
    quiet_offscreen,
    render_frames,
    save_gif,
)
from .state import State

__all__ = [
    "CurvePanel",
    "CurveSeries",
    "FigureRenderer",
    "Panel",
    "ensure_app",
    "qimage_to_array",
    "quiet_offscreen",
    "render_curves",
    "render_frames",
    "render_panels",
    "render_run",
    "render_state",
    "save_gif",
]

@dataclass
class Panel:
    """One plot of a figure.

    ``decision_regions`` is an object with ``predict_proba(state, X)`` (e.g. ``run.algorithm``),
    a precomputed :class:`~pairlab.draw.frames.RegionImage`, or None. ``init_means`` are initial
    means (data space) drawn as crosses.
    """

    dataset: Dataset
    constraints: Constraints | None = None
    state: State | None = None
    title: str = ""
    decision_regions: Any = None
    init_means: np.ndarray | None = None
    info: str | None = None

    def frame(self, bounds: tuple[float, float, float, float] | None = None,
              resolution: int = 160) -> Frame:
        vm = ViewMap.of(self.dataset)
        region = self.decision_regions
        if region is not None and not isinstance(region, RegionImage):
            region = None if self.state is None else decision_regions(
                region, self.state, self.dataset, view_map=vm,
                bounds=bounds or region_bounds(self.dataset.view), resolution=resolution)
        return build_frame(self.dataset, self.constraints, self.state, view_map=vm,
                           init_means=self.init_means, regions=region, title=self.title,
                           info=self.info)


def render_panels(panels: Sequence[Panel], path: str | os.PathLike[str] | None = None, *,
                  ncols: int | None = None, panel_size: tuple[int, int] = (520, 460),
                  style: Style | None = None, title: str | None = None, legend: bool = False,
                  scale: float = 1.0, notes: str | None = None) -> Any:
    """Render several panels (e.g. GMM next to GM-PR, GM-PR Fig. 3) into one image."""
    if not panels:
        raise InvalidInputError("nothing to render: give at least one panel")
    xy = np.vstack([p.dataset.view for p in panels])
    frames = [p.frame(region_bounds(xy)) for p in panels]
    return render_frames(frames, path, ncols=ncols, panel_size=panel_size, style=style,
                         title=title, legend=legend, view_range=data_bounds(xy, margin=0.04),
                         scale=scale, notes=notes)


def render_state(dataset: Dataset, constraints: Constraints | None, state: State | None,
                 path: str | os.PathLike[str] | None = None, *, title: str = "",
                 size: tuple[int, int] = (640, 560), decision_regions: Any = None,
                 init_means: np.ndarray | None = None, style: Style | None = None,
                 legend: bool = False, scale: float = 1.0) -> Any:
    """Render one state (or the bare data with ``state=None``) to ``path``; returns the ``QImage``.

    ``decision_regions``: an object with ``predict_proba(state, X)`` (``run.algorithm``), a
    :class:`~pairlab.draw.frames.RegionImage`, or None for no background.
    """
    panel = Panel(dataset, constraints, state, title, decision_regions, init_means)
    return render_panels([panel], path, ncols=1, panel_size=size, style=style, legend=legend,
                         scale=scale)


def render_run(run: Any, path: str | os.PathLike[str] | None = None, *, index: int | None = None,
               title: str | None = None, decision_regions: bool = True, **kwargs: Any) -> Any:
    """Render a :class:`~pairlab.Run` at its cursor (or history ``index``), with the decision
    regions of its algorithm when it can classify unseen points."""
    state = run.state if index is None else run.history[index]
    regions = run.algorithm if decision_regions and run.algorithm_class.can_predict() else None
    init = run.params.get("means_init")
    return render_state(run.dataset, run.constraints, state, path,
                        title=run.algorithm_class.title if title is None else title,
                        decision_regions=regions, init_means=init, **kwargs)


def _draw_bars(plot: Any, panel: CurvePanel, s: Style) -> list[Any]:
    """Grouped bars (one group per category, one bar per series) with whiskers."""
    import pyqtgraph as pg

    from .draw.palette import INK, OKABE_ITO
    from .gui.qtpaint import make_pen, qcolor

    n_series = max(1, len(panel.series))
    width = 0.8 / n_series
    tops, drawn = [], []
    for j, ser in enumerate(panel.series):
        rgb = OKABE_ITO[ser.colour % len(OKABE_ITO)]
        y = np.asarray(ser.y, dtype=float)
        x = np.arange(y.size) - 0.4 + width * (j + 0.5)
        ok = np.isfinite(y)
        bars = pg.BarGraphItem(x=x[ok], height=y[ok], width=width * 0.92,
                               brush=pg.mkBrush(qcolor(rgb)), pen=pg.mkPen(255, 255, 255, width=0.8))
        plot.addItem(bars)
        drawn.append(bars)
        tops.append(y[ok])
        if ser.lower is not None and ser.upper is not None:
            lo, hi = np.asarray(ser.lower, dtype=float), np.asarray(ser.upper, dtype=float)
            whisk = ok & np.isfinite(lo) & np.isfinite(hi)
            err = pg.ErrorBarItem(x=x[whisk], y=y[whisk], top=(hi - y)[whisk], bottom=(y - lo)[whisk],
                                  beam=width * 0.4, pen=make_pen(INK, s.line_width))
            plot.addItem(err)
            tops.append(hi[whisk])
    names = list(panel.categories or ())
    plot.getAxis("bottom").setTicks([[(i, name) for i, name in enumerate(names)]])
    plot.setXRange(-0.6, len(names) - 0.4, padding=0)
    if panel.y_range is not None:
        plot.setYRange(*panel.y_range, padding=0.02)
    else:
        top = max((float(t.max()) for t in tops if t.size), default=1.0)
        plot.setYRange(0, top * 1.08, padding=0)
    return drawn


# -- curve figures (reproductions: purity against the number of links; the description is
# pairlab.draw.curves) ---------------------------------------------------------------------------
def render_curves(panels: Sequence[CurvePanel], path: str | os.PathLike[str] | None = None, *,
                  ncols: int | None = None, panel_size: tuple[int, int] = (470, 380),
                  style: Style | None = None, title: str | None = None, notes: str | None = None,
                  scale: float = 1.0) -> Any:
    """Line plots with bands (mean and spread over trials), one panel per data set, in the
    canvas's palette, pens and fonts; written like :func:`render_panels`. Returns the ``QImage``."""
    import pyqtgraph as pg
    from PySide6 import QtCore

    from .draw.palette import GREY, INK, OKABE_ITO, SYMBOLS
    from .gui.qtpaint import cache_axis, make_pen, qcolor
    from .mpl_curves import key_of

    ensure_app()
    if not panels:
        raise InvalidInputError("nothing to render: give at least one panel")
    s = style or Style()
    ncols = ncols or min(len(panels), 4)
    nrows = math.ceil(len(panels) / ncols)
    widget = pg.GraphicsLayoutWidget()
    widget.setBackground("w")
    widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    extra = (40 if title else 0) + notes_height(notes)
    widget.resize(int(panel_size[0] * ncols), int(panel_size[1] * nrows + extra))
    try:
        if title:
            widget.addLabel(title, row=0, col=0, colspan=ncols, size=f"{s.title_size + 3}pt",
                            color="#191919")
        font_px = {"font-size": f"{s.font_size}pt", "color": "#333333"}
        entries: dict[tuple[Any, ...], tuple[Any, str]] = {}  # one key entry per series look
        for k, panel in enumerate(panels):
            row, col = divmod(k, ncols)
            plot = widget.addPlot(row=row + (1 if title else 0), col=col)
            plot.setTitle(panel.title, size=f"{s.title_size}pt", color=qcolor(INK))
            plot.showGrid(x=True, y=True, alpha=0.15)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(make_pen(GREY, 1))
                axis.setTextPen(make_pen((70, 70, 70), 1))
                axis.enableAutoSIPrefix(False)
                cache_axis(axis)
            plot.setLabel("bottom", panel.x_label, **font_px)
            plot.setLabel("left", panel.y_label, **font_px)
            if not panel.series:
                import textwrap

                message = "\n".join(textwrap.fill(part, 44) for part in
                                    (panel.message or "no data").splitlines())
                text = pg.TextItem(message, color=qcolor(INK), anchor=(0.5, 0.5))
                plot.addItem(text)
                text.setPos(0.5, 0.5)
                plot.setRange(xRange=(0, 1), yRange=(0, 1))
                plot.hideAxis("left")
                plot.hideAxis("bottom")
                continue
            listed = panel.legend or panel.categories is not None
            if panel.categories is not None:
                for ser, bars in zip(panel.series, _draw_bars(plot, panel, s), strict=True):
                    entries.setdefault(key_of(ser), (bars, ser.label))
                continue
            for ser in panel.series:
                rgb = ser.rgb or OKABE_ITO[ser.colour % len(OKABE_ITO)]
                x = np.asarray(ser.x, dtype=float)
                if ser.lower is not None and ser.upper is not None:
                    lo = pg.PlotDataItem(x, np.asarray(ser.lower, dtype=float), pen=pg.mkPen(None))
                    hi = pg.PlotDataItem(x, np.asarray(ser.upper, dtype=float), pen=pg.mkPen(None))
                    band = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(qcolor(rgb, 55)))
                    plot.addItem(band)
                style_ = (QtCore.Qt.PenStyle.DashLine if ser.dashed else QtCore.Qt.PenStyle.SolidLine)
                marks: dict[str, Any] = {}
                if ser.markers:
                    marks = {"symbol": ser.symbol or SYMBOLS[ser.colour % len(SYMBOLS)],
                             "symbolSize": (s.point_size + 2) * ser.weight,
                             "symbolBrush": pg.mkBrush(255, 255, 255) if ser.hollow
                             else pg.mkBrush(qcolor(rgb)),
                             "symbolPen": (pg.mkPen(qcolor(rgb), width=1.8) if ser.hollow
                                           else pg.mkPen(255, 255, 255, width=0.8))}
                item = pg.PlotDataItem(
                    x, np.asarray(ser.y, dtype=float),
                    pen=make_pen(rgb, s.line_width * 1.3 * ser.weight, style=style_), **marks)
                plot.addItem(item)
                if listed:
                    entries.setdefault(key_of(ser), (item, ser.label))
            if panel.y_range is not None:
                plot.setYRange(*panel.y_range, padding=0.02)
        if entries:  # right of the panels: a key inside a panel covers its curves
            key = figure_key(widget, s, row=1 if title else 0, col=ncols, rowspan=nrows)
            for item, label in entries.values():
                key.addItem(item, label)
            widget.resize(widget.width() + key_width(key), widget.height())
        add_notes(widget, notes, row=nrows + (1 if title else 0), ncols=ncols, style=s)
        widget.show()
        QtCore.QCoreApplication.processEvents()
        return export_scene(widget, path, scale)
    finally:
        import shiboken6

        widget.close()
        if shiboken6.isValid(widget):
            shiboken6.delete(widget)
