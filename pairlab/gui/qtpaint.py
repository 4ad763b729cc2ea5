"""Qt colours, pens and axis caching in the palette's terms, shared by the canvas and the
figures (:mod:`pairlab.gui.figure`, :mod:`pairlab.render`)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["cache_axis", "cache_item", "make_pen", "qcolor"]


def qcolor(rgb: tuple[int, ...], alpha: int = 255) -> QtGui.QColor:
    """A ``QColor`` of an (r, g, b) tuple."""
    return QtGui.QColor(rgb[0], rgb[1], rgb[2], alpha)


def make_pen(rgb: tuple[int, ...], width: float, *, alpha: int = 255,
             style: QtCore.Qt.PenStyle = QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
    """A cosmetic pen (width in screen pixels); dashed unless ``style`` is solid."""
    pen = QtGui.QPen(qcolor(rgb, alpha))
    pen.setWidthF(width)
    pen.setStyle(style)
    pen.setCosmetic(True)
    if style != QtCore.Qt.PenStyle.SolidLine:
        pen.setDashPattern([4.0, 3.0])
    return pen


def cache_axis(axis: pg.AxisItem) -> None:
    """Keep a painted axis as a pixmap: redrawing tick labels each frame costs milliseconds,
    and an axis only changes when the view is panned or zoomed."""
    axis.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)


def cache_item(item: QtWidgets.QGraphicsItem) -> None:
    """Keep a painted item that rarely changes (the objective and metric curves while the cursor
    moves) as a pixmap: it is painted again only when its data or the view changes. Use it only
    where the cached drawing is pixel-identical to the direct one (antialiased lines over other
    items are not: their edges blend differently)."""
    item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
