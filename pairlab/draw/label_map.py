"""Label maps: a segmentation drawn as an image (one coloured cell per block of a picture).

An image-segmentation figure (PPC Fig. 12) shows each block of the picture in the colour of its
cluster, not a scatter of the blocks' feature vectors. :class:`LabelMapPanel` is such a panel for
the headless figures: it has the ``dataset`` / ``frame(bounds)`` interface of
:class:`pairlab.render.Panel`, so both drawing back-ends (the app's canvas and matplotlib) draw it
as the image layer of a :class:`~pairlab.draw.frames.Frame` without points. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dataset import Dataset
from ..errors import InvalidInputError
from .frames import Frame
from .palette import OKABE_ITO
from .regions import RegionImage

__all__ = ["LabelMapPanel", "label_map_image"]

#: image pixels per block side: the canvases smooth images bilinearly, so each block is drawn as
#: a square of this many pixels and only its edge is blended with the neighbour's colour
BLOCK_PIXELS = 8


def label_map_image(labels: np.ndarray, *, block_pixels: int = BLOCK_PIXELS) -> RegionImage:
    """The RGBA image of a (rows, cols) map of class slots (slot k in ``OKABE_ITO[k]``, negative:
    grey), ``block_pixels`` image pixels a block; row 0 of ``labels`` is the picture's top row.
    It covers ``(0, 0, cols, rows)`` in view coordinates, one unit a block."""
    lab = np.asarray(labels)
    if lab.ndim != 2 or lab.size == 0 or lab.dtype.kind not in "iu":
        raise InvalidInputError(f"a label map must be a non-empty 2-D integer array, got shape "
                                f"{lab.shape} and dtype {lab.dtype}")
    if block_pixels < 1:
        raise InvalidInputError(f"block_pixels must be >= 1, got {block_pixels}")
    palette = np.array([*OKABE_ITO, (150, 150, 150)], dtype=np.uint8)  # last: no label (grey)
    idx = np.where(lab >= 0, lab % len(OKABE_ITO), len(OKABE_ITO))
    rgb = palette[idx[::-1]]  # RegionImage rows run from the bottom up
    rgb = np.repeat(np.repeat(rgb, block_pixels, axis=0), block_pixels, axis=1)
    rgba = np.concatenate([rgb, np.full((*rgb.shape[:2], 1), 255, dtype=np.uint8)], axis=2)
    rows, cols = lab.shape
    return RegionImage(rgba, (0.0, 0.0, float(cols), float(rows)))


@dataclass
class LabelMapPanel:
    """One panel showing ``labels`` ((rows, cols) class slots, row 0 at the top) as an image."""

    labels: np.ndarray
    title: str = ""
    info: str | None = None

    @property
    def dataset(self) -> Dataset:
        """The image's corners (what the figure's shared view range is computed from)."""
        rows, cols = np.shape(self.labels)
        corners = np.array([[0.0, 0.0], [cols, 0.0], [0.0, rows], [cols, rows]])
        return Dataset(corners, view=corners, name="label map")

    def frame(self, bounds: tuple[float, float, float, float] | None = None,
              resolution: int = 160) -> Frame:
        """The image as the frame's image layer, no points (``bounds``/``resolution`` unused)."""
        empty = np.empty(0, dtype=np.intp)
        return Frame(xy=np.empty((0, 2)), colour=empty, level=empty.copy(),
                     regions=label_map_image(self.labels), title=self.title,
                     info=self.info or "")
