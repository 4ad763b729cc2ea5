"""Canvas items that draw exactly what pyqtgraph's items draw, with less Python per frame.

A frame of three panes at 5,000 points (issue 32) paints about fourteen scatter items and a dozen
curves; pyqtgraph recomputes for every paint what changes only when the data or the view does.

* :class:`LeanScatter` is a ``ScatterPlotItem`` whose on-screen paint (pixel-size symbols drawn
  from the symbol atlas with one ``drawPixmapFragments``) keeps the points' device positions
  until the view or the positions change, and only copies the atlas rectangles when the styles
  change; its bounding rectangle is kept until the data, the symbol sizes or the view change.
  Exports, data-size symbols and a changed device pixel ratio use pyqtgraph's own paint.
  :meth:`LeanScatter.move_points` moves points without rebuilding their records (a cursor
  marker moves every frame); :meth:`LeanScatter.set_points` sets marks of one style anew (the
  rings of changed labels) by copying a drawn record.
* :class:`LeanLine` is an ``InfiniteLine`` that keeps its bounding rectangle when it moves
  across itself (an objective plot's cursor moves every frame; pyqtgraph maps the view
  rectangle again).
* :class:`EllipseSet` draws every covariance ellipse of a canvas in one item (pyqtgraph needs one
  ``PlotCurveItem`` per pen), each as the same path with the same pen.

``tests/gui/test_speed.py`` checks both against pyqtgraph's items pixel for pixel.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from pyqtgraph import functions as fn
from pyqtgraph.Qt.internals import PrimitiveArray
from PySide6 import QtCore, QtGui

__all__ = ["EllipseSet", "LeanLine", "LeanScatter"]

_FEW = 64  # data bounds of up to this many points are taken in Python (numpy's overhead)
_ONE_POLYGON = 20000  # arrayToQPath builds curves up to this long from one polygon
_LIMIT = 2.0 ** 30  # pyqtgraph clips device coordinates to this (Qt crashes beyond)


def _length(vector: object) -> float:
    """A pixel vector's length as pyqtgraph's ``boundingRect`` takes it (0 when undefined)."""
    try:
        return 0.0 if vector is None else vector.length()
    except OverflowError:
        return 0.0


def _few_on_screen(tr: QtGui.QTransform, data: np.ndarray, width: int, height: int,
                   reach: float) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray | None]:
    """The lean paint's device positions and mask of a few points (a marker, the means) in
    Python floats, the same arithmetic as the numpy path (``m11 x + m21 y + dx``, clipped), which
    costs about 50 us of numpy calls even for one point."""
    m11, m21, dx, m12, m22, dy = tr.m11(), tr.m21(), tr.dx(), tr.m12(), tr.m22(), tr.dy()
    px, py, keep = [], [], []
    for x, y, shown in zip(data["x"].tolist(), data["y"].tolist(), data["visible"].tolist(),
                           strict=True):
        u = min(max(m11 * x + m21 * y + dx, -_LIMIT), _LIMIT)
        v = min(max(m12 * x + m22 * y + dy, -_LIMIT), _LIMIT)
        px.append(u)
        py.append(v)
        keep.append(shown and -reach < u < width + reach and -reach < v < height + reach)
    if all(keep):
        return (np.array(px), np.array(py)), None
    mask = np.array(keep, dtype=bool)
    return (np.array(px)[mask], np.array(py)[mask]), mask


def _rects(data: np.ndarray) -> np.ndarray:
    """The points' atlas rectangles (x, y, w, h) as an (n, 4) integer view of pyqtgraph's
    records (copying the nested record field costs about 0.1 ms per 5,000 points)."""
    field = data["sourceRect"]
    names = field.dtype.names or ()
    kind = field.dtype[0] if names else None
    if (len(names) == 4 and data.ndim == 1 and kind.kind == "i"
            and all(field.dtype[k] == kind for k in range(4))
            and field.dtype.itemsize == 4 * kind.itemsize):
        return field[:, None].view(kind)
    return np.frombuffer(np.ascontiguousarray(field), dtype=int).reshape((-1, 4))


def _transform_key(tr: QtGui.QTransform) -> tuple[float, ...]:
    return (tr.m11(), tr.m12(), tr.m13(), tr.m21(), tr.m22(), tr.m23(), tr.m31(), tr.m32(),
            tr.m33())


class LeanScatter(pg.ScatterPlotItem):
    """A ``ScatterPlotItem`` that paints the same pixels with less work per paint (see module).

    ``lean = False`` (on an instance) paints with pyqtgraph's code, to compare the two."""

    lean = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._rect_cache: tuple[list, QtCore.QRectF] | None = None
        self._pad_cache: tuple[float, float, float] | None = None  # (padding, x, y) in data units
        self._where: tuple | None = None  # (key, device x/y of the drawn points, their mask)
        self._drawn: tuple | None = None  # what self._frags holds
        self._placed: tuple | None = None  # (self._where, dpr) whose positions self._frags holds
        self._frags = PrimitiveArray(QtGui.QPainter.PixmapFragment, 10)
        self._one_style: tuple[dict, tuple] | None = None  # set_points' style, while it holds
        super().__init__(*args, **kwargs)

    # -- bounds -------------------------------------------------------------------------------
    def boundingRect(self) -> QtCore.QRectF:
        # pyqtgraph gives ``self.bounds`` a new list whenever the data or the symbol sizes change
        # (and fills it in place), so the list itself tells whether the rectangle still holds
        cached = self._rect_cache
        if cached is not None and cached[0] is self.bounds:
            return QtCore.QRectF(cached[1])
        bounds = self.bounds
        if self.getViewWidget() is None:
            return super().boundingRect()
        rect = self._bounding_rect()
        self._rect_cache = (bounds, QtCore.QRectF(rect))  # a new view transform clears it
        return rect

    def _bounding_rect(self) -> QtCore.QRectF:
        """pyqtgraph's ``boundingRect`` with the same arithmetic, its pixel padding kept while
        the view transform and the symbol sizes stay, and the data bounds of a few points (a
        marker, the means, moved every frame) taken without numpy's per-call overhead: a miss
        cost about 0.12 ms, about fifteen a three-pane frame (issue 32)."""
        (xmn, xmx) = self._data_bounds(0)
        (ymn, ymx) = self._data_bounds(1)
        if xmn is None or xmx is None:
            xmn = xmx = 0
        if ymn is None or ymx is None:
            ymn = ymx = 0
        px = py = 0.0
        pad = self.pixelPadding()
        if pad > 0:
            kept = self._pad_cache
            if kept is None or kept[0] != pad:
                vx, vy = self.pixelVectors()
                kept = (pad, _length(vx) * pad, _length(vy) * pad)
                if vx is not None and vy is not None:  # else not on screen yet: ask again
                    self._pad_cache = kept
            px, py = kept[1], kept[2]
        return QtCore.QRectF(xmn - px, ymn - py, (2 * px) + xmx - xmn, (2 * py) + ymx - ymn)

    def _data_bounds(self, ax: int) -> tuple:
        """``dataBounds(ax)`` (pyqtgraph's values, kept in ``self.bounds`` as it keeps them)."""
        known = self.bounds[ax]
        data = self.data
        if known is not None or data is None or not 0 < len(data) <= _FEW:
            return self.dataBounds(ax=ax)
        values = [v for v in data["x" if ax == 0 else "y"].tolist() if v == v]  # NaN skipped
        if not values:  # all NaN: pyqtgraph's answer (and its warning)
            return self.dataBounds(ax=ax)
        reach = self._maxSpotWidth * 0.7072
        self.bounds[ax] = (min(values) - reach, max(values) + reach)
        return self.bounds[ax]

    def viewTransformChanged(self) -> None:
        self._rect_cache = self._pad_cache = None
        super().viewTransformChanged()

    def move_points(self, x: np.ndarray | list[float], y: np.ndarray | list[float]) -> None:
        """Put the points at ``x``, ``y`` with the styles they have: ``setData`` without
        rebuilding the point records and looking their styles up again (a cursor marker moves
        every frame). With another number of points, ``setData`` does it."""
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        data = self.data
        if len(data) == 0 or len(data) != len(x) or x.shape != y.shape:
            self.setData(x=x, y=y)
            return
        if np.array_equal(data["x"], x) and np.array_equal(data["y"], y):
            return  # where it is (a converged pane's marker): no repaint
        self.prepareGeometryChange()
        data["x"] = x
        data["y"] = y
        self.bounds = [None, None]
        self.informViewBoundsChanged()
        self.invalidate()

    def set_points(self, pos: np.ndarray, **style: object) -> None:
        """``setData(pos=pos, **style)`` for marks of one style whose number changes every frame
        (the rings of changed labels): when ``style`` holds the objects of the last call and
        nothing restyled the item since, the new records are copies of a drawn one with the new
        positions (the records ``setData`` would build, without looking the style up again)."""
        pos = np.asarray(pos, dtype=float)
        data = self.data
        opts = self.opts
        now = (opts["pen"], opts["brush"], opts["symbol"], opts["size"])
        last = self._one_style
        if (last is None or len(data) == 0 or len(pos) == 0 or pos.ndim != 2 or pos.shape[1] != 2
                or last[0].keys() != style.keys()
                or any(last[0][k] is not v and last[0][k] != v for k, v in style.items())
                or any(a is not b for a, b in zip(last[1], now, strict=True))):
            self.setData(pos=pos, **style)
            self._one_style = (dict(style), (opts["pen"], opts["brush"], opts["symbol"],
                                             opts["size"]))
            return
        new = np.empty(len(pos), dtype=data.dtype)
        new[:] = data[:1]
        new["x"] = pos[:, 0]
        new["y"] = pos[:, 1]
        new["item"] = None
        self.data = new
        self.prepareGeometryChange()
        self.informViewBoundsChanged()
        self.bounds = [None, None]
        self.invalidate()
        self.sigPlotChanged.emit(self)

    def setData(self, *args: object, **kwargs: object) -> None:
        self._one_style = None  # other styles or data: set_points looks them up again
        super().setData(*args, **kwargs)

    # -- painting -----------------------------------------------------------------------------
    def _lean(self, widget: object) -> bool:
        """Whether this paint is the on-screen atlas paint the lean path reproduces."""
        opts = self.opts
        return (self.lean and self._exportOpts is False and opts["pxMode"] is True and bool(opts["useCache"])
                and opts.get("compositionMode") is None and widget is not None
                and widget.devicePixelRatioF() == self.fragmentAtlas.devicePixelRatio())

    def _fragments(self, tr: QtGui.QTransform, width: int, height: int) -> None:
        """Fill ``self._frags`` for the points drawn at device transform ``tr``: kept while the
        view, the widget size, the positions and the symbols' atlas rectangles stay (a pane's
        scatter between frames that restyle no point, a still marker).

        The positions are mapped with pyqtgraph's arithmetic (``transformCoordinates``:
        ``m11 x + m21 y`` then the translation, same pixels) without its general-case work.
        Points whose symbol lies wholly outside the widget are skipped; pyqtgraph skips those
        outside the view box, whose clip hides the rest, so the painted pixels are the same."""
        data = self.data
        atlas = self.fragmentAtlas
        dpr = atlas.devicePixelRatio()
        where = (_transform_key(tr), width, height, data["x"].tobytes(), data["y"].tobytes(),
                 data["visible"].tobytes())
        rects = _rects(data)
        key = (where, rects.tobytes(), dpr)
        if self._drawn == key:
            return
        if self._where is None or self._where[0] != where:
            reach = float(atlas.maxWidth) / 2 + 2  # half a symbol and a margin
            if len(data) <= _FEW:
                self._where = (where, *_few_on_screen(tr, data, width, height, reach))
            else:
                px = tr.m11() * data["x"] + tr.m21() * data["y"] + tr.dx()
                py = tr.m12() * data["x"] + tr.m22() * data["y"] + tr.dy()
                np.clip(px, -_LIMIT, _LIMIT, out=px)
                np.clip(py, -_LIMIT, _LIMIT, out=py)
                mask = (data["visible"] & (px > -reach) & (px < width + reach)
                        & (py > -reach) & (py < height + reach))
                every = bool(mask.all())
                self._where = (where, (px, py) if every else (px[mask], py[mask]),
                               None if every else mask)
        (px, py), mask = self._where[1], self._where[2]
        placed = self._placed
        if placed is None or placed[0] is not self._where or placed[1] != dpr:  # else only rects
            self._frags.resize(len(px))
            frags = self._frags.ndarray()
            frags[:, 0] = px
            frags[:, 1] = py
            frags[:, 6:10] = [1 / dpr, 1 / dpr, 0.0, 1.0]
            self._placed = (self._where, dpr)
        self._frags.ndarray()[:, 2:6] = rects if mask is None else rects[mask]
        self._drawn = key

    def paint(self, p: QtGui.QPainter, option: object, widget: object) -> None:
        if not self._lean(widget):
            return super().paint(p, option, widget)
        if len(self.data) == 0:
            return
        self._fragments(p.transform(), widget.width(), widget.height())
        p.resetTransform()
        p.drawPixmapFragments(*self._frags.drawargs(), self.fragmentAtlas.pixmap)


def _closed_paths(curves: list[tuple[np.ndarray, np.ndarray]]) -> list[QtGui.QPainterPath]:
    """``fn.arrayToQPath(x, y, connect="all")`` of each curve ``(x, y)``, the same paths: curves
    of finite points short enough for pyqtgraph's one-polygon case are written into one polygon
    reused for every curve of its length (a path copies the polygon) instead of a new one per
    curve (``frame_ab.py round5``: ``EllipseSet.set_curves`` of two canvases of eight ellipses
    1.12 -> 0.83 ms a frame). Other curves (a NaN or an infinity, one point, more than 20,000
    points) are pyqtgraph's."""
    polygon = QtGui.QPolygonF()
    xy: np.ndarray | None = None  # polygon's points, while its length stays
    paths = []
    for x, y in curves:
        n = len(x)
        # a sum is finite only if every term is (an overflow only sends a curve to pyqtgraph)
        if (x.ndim != 1 or y.shape != x.shape or not 2 <= n <= _ONE_POLYGON
                or not math.isfinite(float(np.add.reduce(x)) + float(np.add.reduce(y)))):
            paths.append(fn.arrayToQPath(x, y, connect="all"))
            continue
        if xy is None or len(xy) != n:
            polygon.resize(n)
            xy = fn.ndarray_from_qpolygonf(polygon)
        xy[:, 0] = x
        xy[:, 1] = y
        path = QtGui.QPainterPath()
        path.reserve(n)
        path.addPolygon(polygon)
        paths.append(path)
    return paths


class EllipseSet(pg.GraphicsObject):
    """Closed curves (covariance ellipses), each with its own cosmetic pen, in one item.

    :meth:`set_curves` takes a list of ``(x, y, pen)``; each is drawn antialiased as the path
    pyqtgraph's ``PlotCurveItem`` would build from ``x``, ``y``, in list order."""

    def __init__(self) -> None:
        super().__init__()
        self._curves: list[tuple[QtGui.QPainterPath, QtGui.QPen]] = []
        self._bounds = QtCore.QRectF()
        self._pad = 0.0
        self._rect: QtCore.QRectF | None = None

    def set_curves(self, curves: list[tuple[np.ndarray, np.ndarray, QtGui.QPen]]) -> None:
        self.prepareGeometryChange()
        paths = _closed_paths([(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
                               for x, y, _ in curves])
        self._curves = [(path, pen) for path, (_, _, pen) in zip(paths, curves, strict=True)]
        bounds = QtCore.QRectF()
        for path, _ in self._curves:
            bounds = bounds.united(path.boundingRect())
        self._bounds = bounds
        self._pad = max((pen.widthF() * 0.7072 for _, pen in self._curves), default=0.0)
        self._rect = None
        self.informViewBoundsChanged()
        self.update()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange: object = None):
        if not self._curves:
            return (None, None)
        b = self._bounds
        return (b.left(), b.right()) if ax == 0 else (b.top(), b.bottom())

    def pixelPadding(self) -> float:
        return self._pad

    def boundingRect(self) -> QtCore.QRectF:
        if not self._curves:
            return QtCore.QRectF()
        if self._rect is None:
            px, py = self.pixelVectors()
            px = 0.0 if px is None else px.length() * self._pad
            py = 0.0 if py is None else py.length() * self._pad
            self._rect = self._bounds.adjusted(-px, -py, px, py)
        return QtCore.QRectF(self._rect)

    def viewTransformChanged(self) -> None:
        self._rect = None
        self.prepareGeometryChange()
        super().viewTransformChanged()

    def paint(self, p: QtGui.QPainter, *args: object) -> None:
        opts = self._exportOpts  # as PlotCurveItem: an export may turn antialiasing off
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing,
                        True if opts is False else bool(opts.get("antialias", True)))
        for path, pen in self._curves:
            p.setPen(pen)
            p.drawPath(path)


class LeanLine(pg.InfiniteLine):
    """An ``InfiniteLine`` that keeps its bounding rectangle (and end points) when a horizontal
    or vertical line moves across itself (an objective plot's cursor, every frame).

    pyqtgraph computes the rectangle again after every move: the view rectangle mapped into the
    line's coordinates (along the line: the view's extent, exactly, as the translation across
    the line is multiplied by the rotation's zeros) and a pixel's length across the line (from
    the device transform without its translation). Neither depends on where the line is across
    itself, so the kept rectangle is the one pyqtgraph would compute, bit for bit, and the line
    draws the same pixels (``tests/gui/test_lean_items.py``)."""

    def setPos(self, pos: object) -> None:
        kept, before = getattr(self, "_boundingRect", None), self._along()
        super().setPos(pos)
        if (kept is not None and self._boundingRect is None and before is not None
                and self._along() == before):
            self._boundingRect = kept  # moved across itself only: the same rectangle

    def _along(self) -> float | None:
        """The position's coordinate along a horizontal or vertical line, None for other lines
        and positions that are not finite (their rectangle is NaN)."""
        angle, p = getattr(self, "angle", None), getattr(self, "p", None)  # None in __init__
        if p is None or angle not in (0, 90) or not all(math.isfinite(v) for v in p):
            return None
        return float(p[1] if angle == 90 else p[0])
