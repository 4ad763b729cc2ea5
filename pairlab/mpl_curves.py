"""Reproduction figures with matplotlib: panels of frames and curve panels (no Qt).

Counterparts of :func:`pairlab.render.render_panels` and :func:`pairlab.render.render_curves` with
the same arguments, for an install without Qt (``pairlab[figures]``). The panels are duck-typed
(``pairlab.render.Panel``: ``dataset`` and ``frame(bounds)``; ``CurvePanel``: ``title``, ``series``,
``x_label``, ``y_label``, ``y_range``, ``message``, ``categories``, ``legend``), so this module does
not import the Qt renderer that defines them.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from .draw.geometry import data_bounds, region_bounds
from .draw.palette import INK, OKABE_ITO, SYMBOLS, Style
from .errors import InvalidInputError
from .mpl import _PT, MARKERS, draw_frames, key_outside, require_matplotlib, save_figure

__all__ = ["draw_curves", "draw_panels"]


def draw_panels(panels: Sequence[Any], path: str | os.PathLike[str] | None = None, *,
                scale: float = 1.0, **options: Any) -> Any:
    """Panels (``pairlab.render.Panel``) side by side, as :func:`pairlab.render.render_panels`;
    ``scale`` is ignored (matplotlib writes at its dpi). Returns the ``Figure``."""
    if not panels:
        raise InvalidInputError("nothing to draw: give at least one panel")
    xy = np.vstack([p.dataset.view for p in panels])
    frames = [p.frame(region_bounds(xy)) for p in panels]
    rect = data_bounds(xy, margin=0.04)
    w, h = options.get("panel_size", (520, 460))  # the height fitted to the data (equal aspect):
    options["panel_size"] = (w, min(h, w * rect[3] / rect[2] + 90))  # no empty band above and below
    return draw_frames(frames, path, view_range=rect, **options)


def _rgb(c: Sequence[int], alpha: float = 1.0) -> tuple[float, float, float, float]:
    return (c[0] / 255, c[1] / 255, c[2] / 255, alpha)


def key_of(ser: Any) -> tuple[Any, ...]:
    """What tells two series apart in a figure's key: label and look (one entry per key)."""
    return (ser.label, tuple(ser.rgb) if ser.rgb else ser.colour, ser.dashed, ser.symbol, ser.hollow,
            ser.markers)


def _draw_series(ax: Any, panel: Any, s: Style) -> list[Any]:
    drawn = []
    for ser in panel.series:
        rgb = ser.rgb or OKABE_ITO[ser.colour % len(OKABE_ITO)]
        x, y = np.asarray(ser.x, dtype=float), np.asarray(ser.y, dtype=float)
        if ser.lower is not None and ser.upper is not None:
            ax.fill_between(x, np.asarray(ser.lower, dtype=float), np.asarray(ser.upper, dtype=float),
                            color=_rgb(rgb, 55 / 255), linewidth=0)
        symbol = ser.symbol or SYMBOLS[ser.colour % len(SYMBOLS)]
        # sizes in the Qt canvas's pixels (render_curves), converted to points at 100 dpi
        line, = ax.plot(x, y, color=_rgb(rgb), linestyle="--" if ser.dashed else "-",
                        linewidth=s.line_width * 1.3 * ser.weight * _PT, label=ser.label,
                        marker=MARKERS.get(symbol, "o") if ser.markers else None,
                        markersize=(s.point_size + 2) * ser.weight * _PT,
                        markerfacecolor="white" if ser.hollow else _rgb(rgb),
                        markeredgecolor=_rgb(rgb) if ser.hollow else "white",
                        markeredgewidth=(1.8 if ser.hollow else 0.8) * _PT)
        drawn.append(line)
    return drawn


def _draw_bars(ax: Any, panel: Any, s: Style) -> list[Any]:
    drawn = []
    n = max(1, len(panel.series))
    width = 0.8 / n
    for j, ser in enumerate(panel.series):
        rgb = ser.rgb or OKABE_ITO[ser.colour % len(OKABE_ITO)]
        y = np.asarray(ser.y, dtype=float)
        x = np.arange(y.size) - 0.4 + width * (j + 0.5)
        err = None
        if ser.lower is not None and ser.upper is not None:
            err = np.vstack([y - np.asarray(ser.lower, dtype=float), np.asarray(ser.upper, dtype=float) - y])
        drawn.append(ax.bar(x, y, width * 0.92, color=_rgb(rgb), edgecolor="white", label=ser.label,
                            yerr=err, ecolor=_rgb(INK), capsize=3))
    names = list(panel.categories or ())
    ax.set_xticks(range(len(names)), names)
    return drawn


def draw_curves(panels: Sequence[Any], path: str | os.PathLike[str] | None = None, *,
                ncols: int | None = None, panel_size: tuple[float, float] = (470, 380),
                style: Style | None = None, title: str | None = None, notes: str | None = None,
                scale: float = 1.0) -> Any:
    """Curve panels (lines with bands, or grouped bars with whiskers) as
    :func:`pairlab.render.render_curves`; returns the ``Figure``, writes ``path`` when given."""
    require_matplotlib()
    from .mpl_figure import PairlabFigure

    if not panels:
        raise InvalidInputError("nothing to draw: give at least one panel")
    s = style or Style()
    ncols = ncols or min(len(panels), 4)
    nrows = math.ceil(len(panels) / ncols)
    extra = (0.4 if title else 0) + (0.2 * (notes.count("\n") + 1) + 0.1 if notes else 0)
    fig = PairlabFigure(figsize=(panel_size[0] / 100 * ncols, panel_size[1] / 100 * nrows + extra),
                        layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    key: dict[tuple[Any, ...], Any] = {}  # one entry per series look, over all panels
    for ax, panel in zip(axes, panels, strict=False):
        ax.set_title(panel.title, fontsize=s.title_size, color=_rgb(INK))
        if panel.message or not panel.series:  # no axes, the text wrapped to the panel (as Qt)
            ax.axis("off")
            text = "\n".join(textwrap.fill(line, 50) for line in (panel.message or "no data").split("\n"))
            ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center",
                    fontsize=s.font_size * 0.9, color=_rgb((90, 90, 90)))
            continue
        drawn = (_draw_bars if panel.categories else _draw_series)(ax, panel, s)
        ax.grid(True, color=_rgb((225, 225, 225)), linewidth=0.5)  # the Qt canvas's faint grid
        ax.set_axisbelow(True)
        ax.set_xlabel(panel.x_label)
        ax.set_ylabel(panel.y_label)
        if panel.y_range is not None:
            ax.set_ylim(*panel.y_range)
        if panel.legend or panel.categories:
            for ser, artist in zip(panel.series, drawn, strict=True):
                key.setdefault(key_of(ser), (artist, ser.label))
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    if key:  # right of the panels: a key inside a panel covers its curves
        key_outside(fig, [a for a, _ in key.values()], [label for _, label in key.values()], style=s)
    if title:
        fig.suptitle(title, fontsize=s.title_size + 3, color=_rgb(INK))
    if notes:
        fig.supxlabel(notes, fontsize=s.font_size * 0.8, color=_rgb((80, 80, 80)), ha="left", x=0.01)
    if path is not None:
        save_figure(fig, path)
    return fig
