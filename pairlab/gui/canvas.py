"""The data canvas: draws a :class:`~pairlab.draw.frames.Frame` on a pyqtgraph ``PlotItem``.

:class:`CanvasLayers` owns every graphics item of one plot and is shared by the app
(:class:`CanvasWidget`) and the headless renderer (:mod:`pairlab.render`), so a paper figure and
the lecture view are drawn by the same code. Drawing only: all numbers come precomputed in the
frame.

Points are one ``ScatterPlotItem`` whose positions are set once per data set; a frame only swaps
brushes and symbols, both taken from small lookup tables (``len(OKABE_ITO) * N_LEVELS + 1``
brushes), never one brush per point.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ..draw.frames import Frame
from ..draw.palette import GREY, INK, N_LEVELS, OKABE_ITO, SYMBOLS, Style, level_colours
from ..draw.regions import RegionImage
from .lean_items import EllipseSet, LeanLine, LeanScatter
from .qtpaint import cache_axis, cache_item, make_pen, qcolor

__all__ = ["CanvasLayers", "CanvasWidget", "ObjectivePlot"]

_N_COLOURS = len(OKABE_ITO)
_VIOLATION = (200, 0, 60)


class _SmoothImage(pg.ImageItem):
    """An image item drawn with bilinear filtering (decision regions are a coarse grid)."""

    def paint(self, p: QtGui.QPainter, *args: object) -> None:
        p.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform, True)
        super().paint(p, *args)


def _segments_xy(segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y arrays for a ``connect="pairs"`` curve from (m, 2, 2) segments."""
    flat = segments.reshape(-1, 2)
    return flat[:, 0], flat[:, 1]


class CanvasLayers:
    """All graphics items of one data canvas, attached to ``plot``.

    Call :meth:`show` with a frame; :meth:`set_style` switches sizes (presentation mode).
    ``show_regions``, ``show_ellipses`` and ``show_exemplars`` switch layers on and off.
    """

    def __init__(self, plot: pg.PlotItem, style: Style | None = None) -> None:
        self.plot = plot
        self.vb = plot.getViewBox()
        self.style = style or Style()
        self.show_regions = True
        self.show_ellipses = True
        self.show_exemplars = True
        self.show_links = True
        self.show_changes = True  # ring points whose label changed since the previous state
        self.show_errors = False  # mark points drawn in another class than their true one
        self.show_title = True
        self.fast_styles = True
        # ViewBox paints an invisible border path that pyqtgraph's SVG exporter cannot parse
        # under Qt 6.11 ("M0,0 ... Z"); without a border nothing is painted.
        self.vb.border = None
        plot.setAspectLocked(True)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.showGrid(x=False, y=False)
        for name in ("left", "bottom"):
            ax = plot.getAxis(name)
            ax.setPen(make_pen(GREY, 1))
            ax.setTextPen(make_pen((90, 90, 90), 1))
            cache_axis(ax)
        self._xy: np.ndarray | None = None
        self._xy_sent = 0
        self.regions = _SmoothImage()
        self.regions.setZValue(-100)
        self.exemplar_lines = pg.PlotCurveItem(connect="pairs")
        self.exemplar_lines.setZValue(-20)
        self.ellipses = EllipseSet()  # every ellipse in one item (lean_items)
        self.ellipses.setZValue(8)
        self.links = {  # "..._ignored": links the algorithm does not use, drawn faded
            key: pg.PlotCurveItem(connect="pairs", antialias=True)
            for key in ("must", "cannot", "must_ignored", "cannot_ignored")
        }
        self.scatter = LeanScatter(pxMode=True, hoverable=False)
        self.scatter.setZValue(0)
        self.violations = LeanScatter(pxMode=True)
        self.violations.setZValue(6)
        self.exemplar_marks = LeanScatter(pxMode=True)
        self.exemplar_marks.setZValue(4)
        self.means = LeanScatter(pxMode=True)
        self.means.setZValue(10)
        self.centers = LeanScatter(pxMode=True)
        self.centers.setZValue(10)
        self.init_means = LeanScatter(pxMode=True)
        self.init_means.setZValue(11)
        self.selection = LeanScatter(pxMode=True)
        self.selection.setZValue(12)
        self.changed = LeanScatter(pxMode=True)
        self.changed.setZValue(2)
        self.wrong = LeanScatter(pxMode=True)
        self.wrong.setZValue(3)
        for item in (self.exemplar_lines, *self.links.values(), self.scatter,
                     self.violations, self.exemplar_marks, self.means, self.centers,
                     self.init_means, self.selection, self.changed, self.wrong):
            plot.addItem(item)
        self.vb.addItem(self.regions, ignoreBounds=True)  # the background never widens the view
        self.vb.addItem(self.ellipses, ignoreBounds=True)
        for item in self.links.values():
            item.setZValue(5)  # pixmap-cached on screen only (CanvasWidget)
        self.info = pg.TextItem(anchor=(0, 0), color=qcolor(INK))
        self.info.setParentItem(self.vb)
        self.info.setPos(6, 2)
        self.message = pg.TextItem(anchor=(0, 1), color=qcolor((150, 0, 40)),
                                   fill=pg.mkBrush(255, 255, 255, 215))
        self.message.setParentItem(self.vb)
        self.vb.sigResized.connect(self._place_message)
        self.legend: pg.LegendItem | None = None
        self._legend_classes = 0  # true classes listed in the legend
        self.frame: Frame | None = None
        self._shown_regions: object = None
        self._shown_links: dict[str, np.ndarray] = {}
        self._drawn: dict[str, tuple] = {}  # what each small item shows (setData only on change)
        self._styled: tuple | None = None  # (scatter records, style codes) last given to them
        self._text_width: float | None = None  # the info and message lines' wrapping width
        self.set_style(self.style)

    # -- style --------------------------------------------------------------------------------
    def set_style(self, style: Style) -> None:
        self.style = style
        s = style
        self._brushes = np.empty(_N_COLOURS * N_LEVELS + 1, dtype=object)
        for c, rgb in enumerate(OKABE_ITO):
            for level, tint in enumerate(level_colours(rgb)):
                self._brushes[c * N_LEVELS + level] = pg.mkBrush(qcolor(tint))
        self._brushes[-1] = pg.mkBrush(qcolor(GREY))
        self._symbols = np.array(list(SYMBOLS), dtype=object)
        self._full = [pg.mkBrush(qcolor(rgb)) for rgb in OKABE_ITO]
        self._class_pens = [make_pen(rgb, s.line_width) for rgb in OKABE_ITO]
        self._class_pens2 = [make_pen(rgb, max(1.0, s.line_width * 0.6), alpha=150) for rgb in OKABE_ITO]
        # the marks' pens and brushes, made once per style: pyqtgraph's symbol atlas knows a
        # style by its pen and brush objects, and new ones each frame rendered the symbols again
        ink = max(1.2, s.line_width * 0.8)
        self._marks = {
            "ink": pg.mkPen(qcolor(INK), width=ink),
            "ring": make_pen(INK, ink), "clear": pg.mkBrush(0, 0, 0, 0),
            "ink_brush": pg.mkBrush(qcolor(INK)), "none": pg.mkPen(None),
            "violation": pg.mkBrush(qcolor(_VIOLATION)),
            "violation_pen": pg.mkPen(255, 255, 255, width=0.8),
            "init_pen": pg.mkPen(255, 255, 255, width=1), "selection": make_pen(INK, 2.0),
        }
        # empty the scatter first: setSize and setPen visit every point in Python (2.5 s at
        # 20,000 points when F11 switched styles); show() below puts the points back once
        self.scatter.clear()
        self._xy, self._styled = None, None
        self.scatter.setSize(s.point_size)
        self.scatter.setPen(pg.mkPen(255, 255, 255, 170, width=0.6) if s.point_outline == 0
                            else pg.mkPen(INK, width=s.point_outline))
        self.links["must"].setPen(make_pen(INK, s.link_width))
        self.links["cannot"].setPen(make_pen(INK, s.link_width, style=QtCore.Qt.PenStyle.DashLine))
        self.links["must_ignored"].setPen(make_pen(GREY, s.link_width * 0.7, alpha=110))
        self.links["cannot_ignored"].setPen(make_pen(GREY, s.link_width * 0.7, alpha=110,
                                                     style=QtCore.Qt.PenStyle.DashLine))
        self.exemplar_lines.setPen(make_pen((120, 120, 120), max(0.8, s.line_width * 0.5), alpha=140))
        font = QtGui.QFont()
        font.setPointSize(s.font_size)
        self.info.setFont(font)
        self.message.setFont(font)
        for name in ("left", "bottom"):
            self.plot.getAxis(name).setStyle(tickFont=font)
        self.plot.titleLabel.setText(self.plot.titleLabel.text, size=f"{s.title_size}pt")
        self._shown_regions, self._shown_links, self._drawn = None, {}, {}
        if self.legend is not None:  # rebuild the key at the new sizes
            visible = self.legend.isVisible()
            if self.legend.scene() is not None:
                self.legend.scene().removeItem(self.legend)
            self.legend = None
            self.add_legend(classes=self._legend_classes).setVisible(visible)
        if self.frame is not None:
            self._xy = None
            self.show(self.frame)

    # -- drawing ------------------------------------------------------------------------------
    def show(self, frame: Frame) -> None:
        """Draw ``frame`` (positions are only sent to the scatter item when the data changed)."""
        self.frame = frame
        s = self.style
        if frame.xy is not self._xy:
            self.scatter.setData(pos=frame.xy, size=s.point_size)
            self._xy = frame.xy
            self._xy_sent += 1  # the marks compare this, not 5,000 positions, every frame
        colour = frame.colour
        has = colour >= 0
        brush = np.where(has, (colour % _N_COLOURS) * N_LEVELS + frame.level, len(self._brushes) - 1)
        symbol = np.where(has, colour, 0) % len(SYMBOLS)
        if not (self.fast_styles and self._set_styles_fast(brush, symbol)):
            self.scatter.setBrush(self._brushes[brush], update=False)
            self.scatter.setSymbol(self._symbols[symbol], update=False)
            self.scatter.updateSpots()
        self._show_regions(frame)
        self._show_links(frame)
        self._show_ellipses(frame)
        self._show_model_points(frame)
        self._show_marks(frame)
        if self.legend is not None and frame.n_true_classes != self._legend_classes:
            self._rebuild_legend(frame.n_true_classes)
        self.place_legend()
        if self._changed("info", frame.info):  # setText lays the text out again, even unchanged
            self.info.setText(frame.info)
        if self._changed("message", frame.message or ""):
            self.message.setText(frame.message or "")
        self.message.setVisible(bool(frame.message))
        self._place_message()
        if frame.title and self.show_title:
            self.plot.setTitle(frame.title, size=f"{s.title_size}pt", color=INK)

    def _set_styles_fast(self, brush: np.ndarray, symbol: np.ndarray) -> bool:
        """Give every point its brush and symbol from the lookup tables in a few numpy operations.

        ``ScatterPlotItem.setBrush`` and ``updateSpots`` visit every point in Python (about 10 ms
        per 5,000 points); here the atlas is asked once per distinct style (at most
        ``len(brushes) * len(SYMBOLS)``) and the per-point records are filled by fancy indexing,
        only for the points whose style changed since the last call on the same records.
        This reaches into pyqtgraph's point records (``data`` fields brush, symbol, sourceRect
        and the symbol atlas); if they ever change shape, False is returned and the public API is
        used instead.
        """
        sc = self.scatter
        try:
            data = sc.data
            if len(data) != len(brush):
                return False
            code = brush * len(SYMBOLS) + symbol
            last = self._styled
            todo: np.ndarray | slice = slice(None)  # every point, unless only some changed
            if last is not None and last[0] is data:
                todo = np.flatnonzero(code != last[1])
                if not todo.size:
                    return True
            part = code[todo]
            n_codes = len(self._brushes) * len(SYMBOLS)
            uniq = np.flatnonzero(np.bincount(part, minlength=n_codes))
            slot = np.empty(n_codes, dtype=np.intp)
            slot[uniq] = np.arange(len(uniq))
            ub, us = np.divmod(uniq, len(SYMBOLS))
            size, pen = sc.opts["size"], sc.opts["pen"]
            styles = [(self._symbols[j], size, pen, self._brushes[i])
                      for i, j in zip(ub.tolist(), us.tolist(), strict=True)]
            coords = sc.fragmentAtlas[styles]
            rects = np.empty(len(uniq), dtype=data["sourceRect"].dtype)
            rects[:] = [tuple(c) for c in coords]
            data["brush"][todo] = self._brushes[brush[todo]]
            data["symbol"][todo] = self._symbols[symbol[todo]]
            data["sourceRect"][todo] = rects[slot[part]]
            self._styled = (data, code)
            sc.invalidate()
            return True
        except (AttributeError, KeyError, ValueError, TypeError, IndexError):
            self.fast_styles = False
            return False

    def _changed(self, name: str, *parts: object) -> bool:
        """Whether item ``name`` would be given other data than it shows (remembered for the
        next call): pyqtgraph's ``setData`` rebuilds an item even when nothing changed."""
        key = tuple((p.dtype.str, p.shape, p.tobytes()) if isinstance(p, np.ndarray) else p
                    for p in parts)
        if self._drawn.get(name) == key:
            return False
        self._drawn[name] = key
        return True

    def _show_regions(self, frame: Frame) -> None:
        r = frame.regions
        if r is None or not self.show_regions:
            self.regions.setVisible(False)
            return
        if r is self._shown_regions:
            self.regions.setVisible(True)
            return
        old, self._shown_regions = self._shown_regions, r
        self.regions.setImage(np.ascontiguousarray(r.rgba.transpose(1, 0, 2)), autoLevels=False,
                              levels=(0, 255))
        if not (isinstance(old, RegionImage) and old.rect == r.rect
                and old.rgba.shape == r.rgba.shape):  # the same transform: Qt re-indexes on set
            self.regions.setRect(QtCore.QRectF(*r.rect))
        self.regions.setVisible(True)

    def _show_marks(self, frame: Frame) -> None:
        """Rings around points whose label just changed; crosses on points against the truth."""
        s = self.style
        for item, mask, on, kwargs in (
            (self.changed, frame.changed, self.show_changes,
             {"symbol": "o", "size": s.point_size * 1.9, "brush": self._marks["clear"],
              "pen": self._marks["ring"]}),
            (self.wrong, frame.wrong, self.show_errors,
             {"symbol": "x", "size": s.point_size * 0.9, "brush": self._marks["ink_brush"],
              "pen": self._marks["none"]}),
        ):
            if not on or mask is None or not mask.any():
                item.setVisible(False)
                continue
            if self._changed(f"marks{id(item)}", mask, self._xy_sent, s.point_size):
                item.set_points(frame.xy[mask], **kwargs)
            item.setVisible(True)

    def _show_links(self, frame: Frame) -> None:
        if not self.show_links:
            for item in (*self.links.values(), self.violations):
                item.setVisible(False)
            return
        for key, segs in _link_groups(frame):
            item = self.links[key]
            if np.array_equal(segs, self._shown_links.get(key)):
                item.setVisible(len(segs) > 0)
                continue
            self._shown_links[key] = segs
            if len(segs):
                item.setData(*_segments_xy(segs))
                item.setVisible(True)
            else:
                item.setVisible(False)
        bad = [frame.must_link[~frame.must_ok], frame.cannot_link[~frame.cannot_ok]]
        bad = np.concatenate([b for b in bad if len(b)] or [np.empty((0, 2, 2))])
        if len(bad):
            mid = bad.mean(axis=1)
            if not self._changed("violations", mid):
                self.violations.setVisible(True)
                return
            self.violations.set_points(mid, symbol="x", size=self.style.point_size * 1.6,
                                       brush=self._marks["violation"],
                                       pen=self._marks["violation_pen"])
            self.violations.setVisible(True)
        else:
            self.violations.setVisible(False)

    def _show_ellipses(self, frame: Frame) -> None:
        curves = frame.ellipses if self.show_ellipses else None
        if curves is None or curves.size == 0:
            self.ellipses.setVisible(False)
            return
        assert frame.ellipse_colour is not None
        colours = np.asarray(frame.ellipse_colour, dtype=int) % _N_COLOURS
        if self._changed("ellipses", curves, colours):  # component by component, 1 then 2 sigma
            self.ellipses.set_curves([
                (curves[comp, sigma, :, 0], curves[comp, sigma, :, 1],
                 self._class_pens[colours[comp]] if sigma == 0 else self._class_pens2[colours[comp]])
                for comp in range(curves.shape[0]) for sigma in range(curves.shape[1])])
        self.ellipses.setVisible(True)

    def _show_model_points(self, frame: Frame) -> None:
        s = self.style
        ink = self._marks["ink"]
        for name, item, pts, cols, symbol, size in (
            ("means", self.means, frame.means, frame.mean_colour, "x", s.mean_size),
            ("centers", self.centers, frame.centers, frame.center_colour, "star",
             s.mean_size * 1.1),
        ):
            if pts is None or len(pts) == 0:
                item.setVisible(False)
                continue
            cols = np.asarray(cols)
            if self._changed(name, pts, cols):
                if not self._changed(f"{name} styles", cols, size) and len(item.data) == len(pts):
                    item.move_points(pts[:, 0], pts[:, 1])  # the means moved, nothing else
                else:
                    brushes = [self._full[int(c) % _N_COLOURS] for c in cols]
                    item.setData(pos=pts, symbol=symbol, size=size, brush=brushes, pen=ink)
            item.setVisible(True)
        if frame.exemplar_segments is not None and self.show_exemplars:
            if len(frame.exemplar_segments):
                if self._changed("exemplar_lines", frame.exemplar_segments):
                    self.exemplar_lines.setData(*_segments_xy(frame.exemplar_segments))
                self.exemplar_lines.setVisible(True)
            else:
                self.exemplar_lines.setVisible(False)
            assert frame.exemplar_points is not None and frame.exemplar_colour is not None
            if self._changed("exemplar_marks", frame.exemplar_points, frame.exemplar_colour):
                brushes = [self._full[int(c) % _N_COLOURS] if c >= 0 else self._brushes[-1]
                           for c in frame.exemplar_colour]
                self.exemplar_marks.setData(pos=frame.exemplar_points, symbol="o",
                                            size=s.point_size * 2.0, brush=brushes, pen=ink)
            self.exemplar_marks.setVisible(True)
        else:
            self.exemplar_lines.setVisible(False)
            self.exemplar_marks.setVisible(False)
        if frame.init_means is not None and len(frame.init_means):
            if not self._changed("init_means", frame.init_means):
                self.init_means.setVisible(True)
                return
            self.init_means.setData(pos=frame.init_means, symbol="+", size=s.mean_size,
                                    brush=self._marks["ink_brush"],
                                    pen=self._marks["init_pen"])
            self.init_means.setVisible(True)
        else:
            self.init_means.setVisible(False)

    def preview_mean(self, k: int, x: float, y: float) -> None:
        """Draw mean ``k`` at (x, y) while it is being dragged."""
        frame = self.frame
        if frame is None or frame.means is None or not 0 <= k < len(frame.means):
            return
        means = np.array(frame.means, dtype=float)
        means[k] = (x, y)
        self._drawn.pop("means", None)  # the frame's means are not what is shown now
        self.means.setData(pos=means, symbol="x", size=self.style.mean_size,
                           brush=[self._full[int(c) % _N_COLOURS] for c in frame.mean_colour],
                           pen=self._marks["ink"])

    def set_selection(self, points: np.ndarray | None) -> None:
        """Ring the given view points (the first end of a link being drawn)."""
        if points is None or len(points) == 0:
            self.selection.setVisible(False)
            return
        points = np.atleast_2d(points)
        if not self._changed("selection", points, self.style.point_size):
            self.selection.setVisible(True)
            return
        self.selection.setData(pos=points, symbol="o", size=self.style.point_size * 3,
                               brush=self._marks["clear"], pen=self._marks["selection"])
        self.selection.setVisible(True)

    def _place_message(self) -> None:
        rect = self.vb.boundingRect()
        width = max(rect.width() - 12, 60)
        if width != self._text_width:  # setTextWidth lays the text out again, even unchanged
            self._text_width = width
            # wrap long messages (errors name the algorithm and the bad value) to the pane's
            # width; the info line ("iteration 4  log-likelihood ...") wraps in narrow panes
            self.message.setTextWidth(width)
            self.info.setTextWidth(width)
        self.message.setPos(6, rect.height() - 4)

    def set_range(self, rect: tuple[float, float, float, float]) -> None:
        x0, y0, w, h = rect
        self.vb.setRange(xRange=(x0, x0 + w), yRange=(y0, y0 + h), padding=0)

    def legend_corners(self) -> dict[tuple[int, int], int]:
        """How many points the legend would cover in each corner of the view, keyed by the
        corner's (x side, y side): -1 left / bottom, +1 right / top."""
        legend, frame = self.legend, self.frame
        if legend is None or frame is None or not len(frame.xy):
            return {}
        (x0, x1), (y0, y1) = self.vb.viewRange()
        px, py = self.vb.viewPixelSize()
        rect = legend.boundingRect()
        w, h = (rect.width() + 8) * px, (rect.height() + self._legend_top()) * py
        xy = frame.xy
        out = {}
        for sx in (-1, 1):
            for sy in (-1, 1):
                left = x0 if sx < 0 else x1 - w
                bottom = y0 if sy < 0 else y1 - h
                inside = ((xy[:, 0] >= left) & (xy[:, 0] <= left + w)
                          & (xy[:, 1] >= bottom) & (xy[:, 1] <= bottom + h))
                out[(sx, sy)] = int(inside.sum())
        return out

    def _legend_top(self) -> float:
        """Pixels kept free above a legend in a top corner (the info line)."""
        return 8 + 2.2 * self.style.font_size * 96 / 72

    def place_legend(self) -> None:
        """Put a visible legend in the corner of the view where it covers the fewest points
        (top right first on ties)."""
        legend = self.legend
        if legend is None or not legend.isVisible():
            return
        counts = self.legend_corners()
        if not counts:
            return
        order = [(1, 1), (-1, 1), (1, -1), (-1, -1)]
        sx, sy = min(order, key=lambda c: (counts[c], order.index(c)))
        offset = (8 if sx < 0 else -8, -8 if sy < 0 else self._legend_top())
        if tuple(legend.opts.get("offset") or ()) != offset:
            legend.setOffset(offset)

    def _rebuild_legend(self, classes: int) -> None:
        visible = self.legend is not None and self.legend.isVisible()
        if self.legend is not None and self.legend.scene() is not None:
            self.legend.scene().removeItem(self.legend)
        self.legend = None
        self.add_legend(classes=classes).setVisible(visible)

    def add_legend(self, offset: tuple[float, float] | None = None, *,
                   classes: int = 0) -> pg.LegendItem:
        """A key to the symbols: each true class (when colours follow the truth), must-link,
        cannot-link, violated link, mean (top right, below the info line by default)."""
        if self.legend is not None:
            return self.legend
        self._legend_classes = classes
        s = self.style
        if offset is None:
            offset = (-8, 8 + 2.2 * s.font_size * 96 / 72)
        legend = pg.LegendItem(offset=offset, labelTextSize=f"{s.font_size}pt",
                               brush=pg.mkBrush(255, 255, 255, 210), pen=pg.mkPen(GREY),
                               labelTextColor=qcolor(INK))
        legend.setParentItem(self.vb)
        self.fill_key(legend, classes)
        self.legend = legend
        return legend

    def fill_key(self, legend: pg.LegendItem, classes: int = 0) -> None:
        """Add the key's entries (each true class, must-link, cannot-link, violated link, mean) to
        ``legend``, which may live outside the canvas (a figure's key right of its panels)."""
        s = self.style
        for k in range(classes):
            legend.addItem(pg.ScatterPlotItem(symbol=SYMBOLS[k % len(SYMBOLS)], size=11,
                                              brush=self._full[k % _N_COLOURS],
                                              pen=pg.mkPen(255, 255, 255, 170)), f"class {k}")
        legend.addItem(pg.PlotDataItem(pen=make_pen(INK, s.link_width)), "must-link")
        dashed = make_pen(INK, s.link_width, style=QtCore.Qt.PenStyle.CustomDashLine)
        dashed.setDashPattern([2.5, 2.0])  # a short sample must still look dashed at any width
        legend.addItem(pg.PlotDataItem(pen=dashed), "cannot-link")
        legend.addItem(pg.ScatterPlotItem(symbol="x", size=12, brush=pg.mkBrush(qcolor(_VIOLATION)),
                                          pen=pg.mkPen(None)), "violated")
        legend.addItem(pg.ScatterPlotItem(symbol="x", size=14, brush=pg.mkBrush(200, 200, 200),
                                          pen=pg.mkPen(qcolor(INK))), "mean")


def one_rect_updates(view: QtWidgets.QGraphicsView) -> None:
    """Repaint the bounding rectangle of what changed in one piece (pyqtgraph asks for the
    changed region's rectangles: a moved cursor marker gave 5 to 11 small ones, each clipped and
    painted; issue 32: about 3.5 ms less painting in a three-pane frame, the same pixels)."""
    view.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)


def unindexed(view: QtWidgets.QGraphicsView) -> None:
    """Keep no item index in the view's scene: Qt's BSP tree is updated on every geometry change
    (markers and means move every frame) and a plot holds a few dozen items, which Qt finds by a
    linear scan as fast (issue 32: about 0.7 ms a three-pane frame, the same pixels)."""
    view.scene().setItemIndexMethod(QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex)


class CanvasWidget(pg.PlotWidget):
    """The interactive canvas of one pane: a plot with :class:`CanvasLayers` that reports clicks.

    ``clicked(x, y, px, py, modifiers)`` carries the data coordinates of a left click and the data
    size of one pixel along each axis (for hit tests measured in pixels).
    """

    clicked = QtCore.Signal(float, float, float, float, object)
    #: a drag that :attr:`grab` accepted: ``dragged(x, y)`` while moving, ``dropped(x, y)`` at
    #: the end (data coordinates)
    dragged = QtCore.Signal(float, float)
    dropped = QtCore.Signal(float, float)

    def __init__(self, parent=None, style: Style | None = None) -> None:
        super().__init__(parent=parent, background="w")
        one_rect_updates(self)
        unindexed(self)
        self.layers = CanvasLayers(self.getPlotItem(), style)
        self.layers.show_title = False  # the pane's header names the algorithm
        # on screen the links, which rarely change, are kept as pixmaps (issue 32: about 1 ms a
        # canvas of 100 links less); that moves antialiased edge pixels by at most 2/255, so
        # figures and exports (pairlab.render) draw them directly
        for item in self.layers.links.values():
            cache_item(item)
        self.scene().sigMouseClicked.connect(self._on_click)
        self.setMinimumSize(220, 200)
        #: ``grab(x, y, px, py) -> bool``: whether a left press there starts a drag (instead of
        #: panning the view); None: never
        self.grab = None
        self._dragging = False

    def _view_point(self, pos: QtCore.QPointF) -> tuple[float, float, float, float]:
        vb = self.layers.vb
        p = vb.mapSceneToView(self.mapToScene(pos.toPoint()))
        px, py = vb.viewPixelSize()
        return float(p.x()), float(p.y()), float(px), float(py)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if self.grab is not None and event.button() == QtCore.Qt.MouseButton.LeftButton:
            if self.grab(*self._view_point(event.position())):
                self._dragging = True
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._dragging:
            x, y, _, _ = self._view_point(event.position())
            self.dragged.emit(x, y)
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._dragging:
            self._dragging = False
            x, y, _, _ = self._view_point(event.position())
            self.dropped.emit(x, y)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _on_click(self, event) -> None:
        if event.button() != QtCore.Qt.MouseButton.LeftButton or event.double():
            return
        vb = self.layers.vb
        pos = event.scenePos()
        if not vb.sceneBoundingRect().contains(pos):
            return
        p = vb.mapSceneToView(pos)
        px, py = vb.viewPixelSize()
        self.clicked.emit(float(p.x()), float(p.y()), float(px), float(py), event.modifiers())

    def widget_pos(self, x: float, y: float) -> QtCore.QPoint:
        """Viewport coordinates of the data point (x, y) (for tests and tooltips)."""
        scene = self.layers.vb.mapViewToScene(QtCore.QPointF(x, y))
        return self.mapFromScene(scene)


class _IterationAxis(pg.AxisItem):
    """An axis of iteration numbers: whole numbers only, never an SI prefix ("x0.001")."""

    def __init__(self, orientation: str = "bottom") -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)

    def tickValues(self, minVal, maxVal, size):  # pyqtgraph's names
        levels = []
        for spacing, values in super().tickValues(minVal, maxVal, size):
            if spacing < 1:
                continue
            levels.append((spacing, [v for v in values if float(v).is_integer()]))
        if not levels:  # a range shorter than one iteration: its whole numbers
            levels = [(1.0, [float(v) for v in range(math.ceil(minVal), math.floor(maxVal) + 1)])]
        return levels


def _link_groups(frame: Frame) -> list[tuple[str, np.ndarray]]:
    """The frame's link segments by how they are drawn: used, or ignored by the algorithm."""
    out = []
    for kind, segs, ignored in (("must", frame.must_link, frame.must_ignored),
                                ("cannot", frame.cannot_link, frame.cannot_ignored)):
        if len(ignored) != len(segs) or not ignored.any():
            out += [(kind, segs), (f"{kind}_ignored", segs[:0])]
        else:
            out += [(kind, segs[~ignored]), (f"{kind}_ignored", segs[ignored])]
    return out


class ObjectivePlot(pg.PlotWidget):
    """The objective of every stored state against iteration, with the current one marked.

    The axes' ranges are set here, only when the curve (or the zoom) changes: moving the cursor
    to another iteration repaints the marker and the cursor line but never re-lays out the axes
    (with auto-range on, every marker move re-computed the range and repainted the tick labels,
    about 8 ms a frame). ``skip_first`` fits the y axis to iterations 1.. (iteration 0 of an EM
    run is far below the rest and flattens the curve).
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent=parent, background="w",
                         axisItems={"bottom": _IterationAxis("bottom")})
        one_rect_updates(self)
        unindexed(self)
        plot = self.getPlotItem()
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.disableAutoRange()
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.getAxis("left").enableAutoSIPrefix(False)
        self.curve = plot.plot(pen=make_pen((0, 114, 178), 1.8))
        for part in (self.curve.curve, self.curve.scatter):  # moves only when the curve grows
            cache_item(part)
        self.marker = LeanScatter(size=9, brush=pg.mkBrush(213, 94, 0),
                                         pen=pg.mkPen(qcolor(INK)))
        plot.addItem(self.marker, ignoreBounds=True)
        self.cursor = LeanLine(angle=90, pen=make_pen(GREY, 1))
        plot.addItem(self.cursor, ignoreBounds=True)
        plot.setLabel("bottom", "iteration")
        for name in ("left", "bottom"):
            plot.getAxis(name).setPen(make_pen(GREY, 1))
            plot.getAxis(name).setTextPen(make_pen((90, 90, 90), 1))
            cache_axis(plot.getAxis(name))
        self.setMinimumHeight(90)
        self.skip_first = True
        self.label_cap = 11  # largest axis-label font (points)
        self._values: np.ndarray | None = None
        self._points: tuple[bytes, bytes] | None = None
        self._shown_points: tuple[np.ndarray, np.ndarray] | None = None
        self._x_end = 1
        self._label: tuple[str, int, int] | None = None

    def set_skip_first(self, on: bool) -> None:
        self.skip_first = bool(on)
        if self._values is not None:
            self._fit(self._values, 0.0, self._shown_points)

    def _fit(self, values: np.ndarray, index: float = 0.0,
             points: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Set both ranges for the curve ``values`` (once per change of curve or zoom)."""
        plot = self.getPlotItem()
        # iterations from 0 to the last stored one or the half-step being made after it (at
        # least 0..1, never "x0.001" around 0)
        self._x_end = max(values.size - 1, math.ceil(index), 1)
        plot.setXRange(0, self._x_end, padding=0.03)
        first = 1 if self.skip_first and values.size >= 3 else 0
        shown = values[first:]
        shown = shown[np.isfinite(shown)]
        if not shown.size:  # the only finite objective is iteration 0's
            shown = values[np.isfinite(values)]
        if points is not None:  # the half-steps' objectives too (from iteration ``first``)
            shown = np.append(shown, points[1][points[0] >= first])
        lo, hi = float(shown.min()), float(shown.max())
        pad = 0.08 * (hi - lo) if hi > lo else max(abs(hi) * 0.01, 1e-3)
        plot.setYRange(lo - pad, hi + pad, padding=0)

    def show_values(self, values: np.ndarray, index: float, name: str, font_size: int = 9,
                    value: float | None = None,
                    points: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Plot ``values`` and mark iteration ``index`` (``x.5`` at a half-step), at ``value``
        when given (the half-state's objective) else at the iteration's stored objective.
        ``points`` (x, y), when given, is the curve instead: a dot per whole and half-step."""
        values = np.asarray(values, dtype=float)
        points = None if points is None or not len(points[0]) else points
        plot = self.getPlotItem()
        finite = np.isfinite(values)
        if not finite.any():
            self.curve.setData([], [])
            self.marker.setData([], [])
            plot.setLabel("left", "(no objective)")
            self._label = None  # the next objective name must replace this label
            plot.setXRange(0, max(values.size - 1, 1))
            plot.setYRange(0, 1)
            self._values = None
            self.cursor.setValue(index)
            return
        key = None if points is None else (points[0].tobytes(), points[1].tobytes())
        if (not np.array_equal(values, self._values, equal_nan=True) or index > self._x_end
                or key != self._points):
            if points is None:
                x = np.arange(values.size)
                self.curve.setData(x[finite], values[finite], symbol=None)
            else:  # a dot per whole and half-step: what each half-step changed
                self.curve.setData(points[0], points[1], symbol="o", symbolSize=4,
                                   symbolBrush=(0, 114, 178), symbolPen=None)
            self._values, self._points, self._shown_points = values, key, points
            self._fit(values, index, None if points is None else points)
        font_size = min(font_size, self.label_cap)  # long names must fit beside a short plot
        room = max(self.height() - 45, 40)  # pixels along the rotated axis label
        if (name, font_size, room) != self._label:
            font = QtGui.QFont()
            font.setPointSize(font_size)
            short = QtGui.QFontMetrics(font).elidedText(name, QtCore.Qt.TextElideMode.ElideRight,
                                                        room)
            plot.setLabel("left", short, **{"font-size": f"{font_size}pt"})
            self.setToolTip(name)
            self._label = (name, font_size, room)
        # a half-step sits between two iterations: its own objective, else the one before it
        at = math.floor(index)
        if value is None and 0 <= at < values.size and finite[at]:
            value = float(values[at])
        if value is not None and math.isfinite(value):
            self.marker.move_points([index], [value])
        else:
            self.marker.setData([], [])
        self.cursor.setValue(index)

    def set_font_size(self, points: int) -> None:
        """Tick and axis-label size (larger in presentation mode)."""
        font = QtGui.QFont()
        font.setPointSize(points)
        plot = self.getPlotItem()
        for name in ("left", "bottom"):
            plot.getAxis(name).setStyle(tickFont=font)
        plot.setLabel("bottom", "iteration", **{"font-size": f"{points}pt"})
        self.label_cap = points + 2
        self._label = None

    def clear_values(self) -> None:
        """Nothing to plot (the pane has no run, e.g. it stopped while starting)."""
        self.show_values(np.array([np.nan]), 0, "")
