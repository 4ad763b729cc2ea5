"""The canvas layer that draws :class:`~pairlab.draw.trails.Trails`: a polyline per cluster in its
colour, older steps fainter (one pyqtgraph curve per colour and fade level, never one per
segment)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from ..draw.palette import OKABE_ITO
from ..draw.trails import Trails
from .qtpaint import make_pen

__all__ = ["FADE_ALPHAS", "TrailsLayer"]

#: Opacity of the trail segments by age, oldest quarter first.
FADE_ALPHAS = (90, 140, 200, 255)


class TrailsLayer:
    """Trail curves on a view box, above the points and below the means."""

    def __init__(self, vb: pg.ViewBox, width: float = 2.0) -> None:
        self.vb = vb
        self.width = width
        self.items: dict[tuple[int, int], pg.PlotCurveItem] = {}
        self.shown = 0  # segments on screen (for tests and the status bar)

    def _item(self, slot: int, level: int) -> pg.PlotCurveItem:
        item = self.items.get((slot, level))
        if item is None:
            item = pg.PlotCurveItem(antialias=True, connect="pairs")
            item.setPen(make_pen(OKABE_ITO[slot], self.width, alpha=FADE_ALPHAS[level]))
            item.setZValue(9)
            self.vb.addItem(item, ignoreBounds=True)
            self.items[(slot, level)] = item
        return item

    def show(self, trails: Trails | None, colours: np.ndarray | None) -> None:
        """Draw ``trails``; ``colours`` is each component's colour slot (None: hide)."""
        used: set[tuple[int, int]] = set()
        self.shown = 0
        if trails is not None and len(trails) and colours is not None and len(colours):
            comp = np.minimum(trails.component, len(colours) - 1)
            slot = np.asarray(colours)[comp] % len(OKABE_ITO)
            level = np.clip(np.ceil(trails.age * len(FADE_ALPHAS)).astype(int) - 1, 0,
                            len(FADE_ALPHAS) - 1)
            for key in sorted(set(zip(slot.tolist(), level.tolist(), strict=True))):
                mask = (slot == key[0]) & (level == key[1])
                flat = trails.segments[mask].reshape(-1, 2)
                item = self._item(*key)
                item.setData(flat[:, 0], flat[:, 1], connect="pairs")
                item.setVisible(True)
                used.add(key)
                self.shown += int(mask.sum())
        for key, item in self.items.items():
            if key not in used:
                item.setVisible(False)

    def set_width(self, width: float) -> None:
        self.width = width
        for (slot, level), item in self.items.items():
            item.setPen(make_pen(OKABE_ITO[slot], width, alpha=FADE_ALPHAS[level]))
