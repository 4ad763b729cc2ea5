"""The description of a curve figure (reproductions, sweeps): series and panels, free of Qt.

Both :func:`pairlab.render.render_curves` (Qt) and :func:`pairlab.mpl_curves.draw_curves`
(matplotlib) draw these; :mod:`pairlab.render` re-exports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CurvePanel", "CurveSeries"]


@dataclass
class CurveSeries:
    """One line of a curve panel: ``y`` against ``x`` with an optional band ``lower``..``upper``
    (e.g. mean +- one standard deviation); ``colour`` is a palette slot, ``dashed`` the line style,
    ``weight`` scales line width and marker size (a wide line stays visible under an equal one);
    ``rgb`` overrides the palette colour where a paper's figure fixes it (e.g. shades of one
    method), ``symbol`` the palette marker (a pyqtgraph symbol such as "o", "star"), ``hollow``
    draws it as an outline (the paper's empty circles), ``markers=False`` draws the line alone."""

    label: str
    x: np.ndarray
    y: np.ndarray
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    colour: int = 0
    dashed: bool = False
    weight: float = 1.0
    rgb: tuple[int, int, int] | None = None
    symbol: str | None = None
    hollow: bool = False
    markers: bool = True


@dataclass
class CurvePanel:
    """A plot of curves; ``message`` is shown instead when there is nothing to draw.

    With ``categories`` (one name per x = 0, 1, ...) the series are drawn as grouped bars with
    whiskers from ``lower`` to ``upper`` and the names label the x axis (bar charts such as
    Shental et al. Fig. 5); NaN values leave their bar out. The figure has one key right of its
    panels, listing each series once; ``legend=False`` leaves the panel's series out of it (panels
    that repeat another panel's series)."""

    title: str
    series: Sequence[CurveSeries] = ()
    x_label: str = ""
    y_label: str = ""
    y_range: tuple[float, float] | None = None
    message: str | None = None
    categories: Sequence[str] | None = None
    legend: bool = True
