"""The canvas layer that draws :class:`~pairlab.draw.trails.Trails`: a polyline per cluster in its
colour, older steps fainter. One graphics item paints every segment with ``drawLines`` (a curve
item per colour and fade level cost about 8 ms a frame per pane to rebuild its path)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ..draw.palette import OKABE_ITO
from ..draw.trails import Trails
from .qtpaint import make_pen

__all__ = ["FADE_ALPHAS", "TrailsLayer"]

#: Opacity of the trail segments by age, oldest quarter first.
FADE_ALPHAS = (120, 165, 210, 255)


class _TrailsItem(pg.GraphicsObject):
    """Segments in data coordinates, grouped by pen."""

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[tuple[QtGui.QPen, list[QtCore.QLineF]]] = []
        self.rect = QtCore.QRectF()

    def set_groups(self, groups: list[tuple[QtGui.QPen, list[QtCore.QLineF]]],
                   rect: QtCore.QRectF) -> None:
        self.prepareGeometryChange()
        self.groups, self.rect = groups, rect
        self.update()

    def boundingRect(self) -> QtCore.QRectF:  # Qt's name
        return self.rect

    def paint(self, p: QtGui.QPainter, *args: object) -> None:
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        for pen, lines in self.groups:
            p.setPen(pen)
            p.drawLines(lines)


class TrailsLayer:
    """The trails on a view box, above the points and below the means."""

    def __init__(self, vb: pg.ViewBox, width: float = 2.0) -> None:
        self.item = _TrailsItem()
        self.item.setZValue(9)
        vb.addItem(self.item, ignoreBounds=True)
        self.segments = np.empty((0, 2, 2))  # what is drawn (for tests)
        self.set_width(width)

    @property
    def shown(self) -> int:
        """Number of segments on screen."""
        return len(self.segments)

    def set_width(self, width: float) -> None:
        self.pens = [[make_pen(rgb, width, alpha=a) for a in FADE_ALPHAS] for rgb in OKABE_ITO]
        self.item.update()

    def show(self, trails: Trails | None, colours: np.ndarray | None) -> None:
        """Draw ``trails``; ``colours`` is each component's colour slot (None: hide)."""
        if trails is None or not len(trails) or colours is None or not len(colours):
            self.segments = np.empty((0, 2, 2))
            self.item.set_groups([], QtCore.QRectF())
            self.item.setVisible(False)
            return
        comp = np.minimum(trails.component, len(colours) - 1)
        slot = np.asarray(colours)[comp] % len(OKABE_ITO)
        level = np.clip(np.ceil(trails.age * len(FADE_ALPHAS)).astype(int) - 1, 0,
                        len(FADE_ALPHAS) - 1)
        groups = []
        for s, lv in sorted(set(zip(slot.tolist(), level.tolist(), strict=True))):
            segs = trails.segments[(slot == s) & (level == lv)].tolist()
            groups.append((self.pens[s][lv], [QtCore.QLineF(a[0], a[1], b[0], b[1])
                                              for a, b in segs]))
        flat = trails.segments.reshape(-1, 2)
        pad = 0.02 * float(np.ptp(flat, axis=0).max()) + 1e-9  # a straight trail has no width
        lo, hi = flat.min(axis=0) - pad, flat.max(axis=0) + pad
        self.segments = trails.segments
        self.item.set_groups(groups, QtCore.QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]))
        self.item.setVisible(True)
