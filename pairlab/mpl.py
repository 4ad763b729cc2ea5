"""Figures with matplotlib, without Qt: a :class:`~pairlab.draw.frames.Frame` drawn on an ``Axes``.

The same Qt-free description the app's canvas draws (:mod:`pairlab.draw`) in the same colours,
symbols and conventions: soft labels as saturation, covariance ellipses at 1 and 2 sigma, decision
regions as a pale background, must-links solid, cannot-links dashed, violated links crossed in red.
``pip install "pairlab[figures]"`` (matplotlib only) is enough; figures are written as PNG, SVG or
PDF by :func:`save_figure` and returned as a ``matplotlib.figure.Figure`` to restyle.

Examples
--------
>>> run = pairlab.Run("gmm", data, links, {"n_components": 2}, seed=0)  # doctest: +SKIP
>>> run.run()                                                           # doctest: +SKIP
>>> fig = draw_run(run)                                                 # doctest: +SKIP
>>> save_figure(fig, "gmm.pdf")                                         # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .constraints import Constraints
from .dataset import Dataset
from .draw.frames import Frame, build_frame
from .draw.geometry import ViewMap, data_bounds, region_bounds
from .draw.palette import GREY, INK, N_LEVELS, OKABE_ITO, SYMBOLS, Style, level_colours
from .draw.regions import RegionImage, decision_regions
from .errors import InvalidInputError, PairlabError
from .state import State

__all__ = [
    "FIGURES_INSTALL",
    "FIGURE_FORMATS",
    "add_legend",
    "draw_frame",
    "draw_frames",
    "draw_run",
    "draw_state",
    "fit_to_content",
    "key_outside",
    "require_matplotlib",
    "save_figure",
]

FIGURES_INSTALL = 'pip install "pairlab[figures]"'
#: File suffixes :func:`save_figure` writes.
FIGURE_FORMATS = (".png", ".svg", ".pdf")
#: pyqtgraph symbol names of :data:`~pairlab.draw.palette.SYMBOLS` -> matplotlib markers.
MARKERS = {"o": "o", "s": "s", "t1": "^", "d": "D", "p": "p", "h": "h", "star": "*", "t": "v",
           "x": "x", "+": "+"}
#: Crosses on violated links: the app's canvas colour.
VIOLATION = (200, 0, 60)
#: Pixels (the canvas's unit for sizes) per point at the figures' 100 dpi.
_PT = 72 / 100


def require_matplotlib(purpose: str = "Drawing figures") -> Any:
    """``matplotlib.pyplot``-free import of matplotlib, or a clear error saying what to install."""
    try:
        import matplotlib
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError as exc:
        raise PairlabError(f"{purpose} needs matplotlib, which is not installed. "
                           f"Install it with: {FIGURES_INSTALL}") from exc
    return matplotlib


def _rgb(c: tuple[int, int, int], alpha: float = 1.0) -> tuple[float, float, float, float]:
    return (c[0] / 255, c[1] / 255, c[2] / 255, alpha)


def _point_colours(frame: Frame) -> np.ndarray:
    """RGBA of every point: the class colour at its saturation level, grey without a label."""
    table = np.array([[_rgb(t) for t in level_colours(rgb)] for rgb in OKABE_ITO])  # (c, L, 4)
    out = np.tile(np.array(_rgb(GREY)), (frame.n_points, 1))
    has = frame.colour >= 0
    out[has] = table[frame.colour[has] % len(OKABE_ITO), np.clip(frame.level[has], 0, N_LEVELS - 1)]
    return out


def _segments(ax: Any, segs: np.ndarray, colour: Any, width: float, dashed: bool, z: float) -> None:
    from matplotlib.collections import LineCollection

    if len(segs):
        ax.add_collection(LineCollection(segs, colors=[colour], linewidths=width * _PT,
                                         linestyles=(0, (4, 3)) if dashed else "solid", zorder=z))


def draw_frame(frame: Frame, ax: Any, *, style: Style | None = None,
               view_range: tuple[float, float, float, float] | None = None,
               show_info: bool = True) -> Any:
    """Draw ``frame`` on the matplotlib ``ax`` as the app's canvas draws it; returns ``ax``.

    ``view_range`` (x0, y0, width, height) defaults to the frame's points plus a margin.
    """
    s = style or Style()
    ink = _rgb(INK)
    r = frame.regions
    if r is not None:
        x0, y0, w, h = r.rect
        ax.imshow(r.rgba, extent=(x0, x0 + w, y0, y0 + h), origin="lower", interpolation="bilinear",
                  zorder=-100)
    if frame.exemplar_segments is not None and len(frame.exemplar_segments):
        _segments(ax, frame.exemplar_segments, _rgb((120, 120, 120), 140 / 255),
                  max(0.8, s.line_width * 0.5), False, -20)
    colours = _point_colours(frame)
    symbol = np.where(frame.colour >= 0, frame.colour, 0) % len(SYMBOLS)
    area = (s.point_size * _PT) ** 2
    for k in np.unique(symbol):
        sel = symbol == k
        ax.scatter(frame.xy[sel, 0], frame.xy[sel, 1], s=area, c=colours[sel],
                   marker=MARKERS[SYMBOLS[k]], edgecolors=[(1, 1, 1, 170 / 255)],
                   linewidths=0.6 * _PT, zorder=0)
    for mask, kw, z in ((frame.changed, {"marker": "o", "s": (s.point_size * 1.9 * _PT) ** 2,
                                         "facecolors": "none", "edgecolors": [ink],
                                         "linewidths": max(1.2, s.line_width * 0.8) * _PT}, 2),
                        (frame.wrong, {"marker": "x", "s": (s.point_size * 0.9 * _PT) ** 2,
                                       "c": [ink]}, 3)):
        if mask is not None and mask.any():
            ax.scatter(frame.xy[mask, 0], frame.xy[mask, 1], zorder=z, **kw)
    _segments(ax, frame.must_link, ink, s.link_width, False, 5)
    _segments(ax, frame.cannot_link, ink, s.link_width, True, 5)
    bad = [b for b in (frame.must_link[~frame.must_ok], frame.cannot_link[~frame.cannot_ok]) if len(b)]
    if bad:
        mid = np.concatenate(bad).mean(axis=1)
        ax.scatter(mid[:, 0], mid[:, 1], marker="x", s=(s.point_size * 1.6 * _PT) ** 2,
                   c=[_rgb(VIOLATION)], linewidths=2.0 * _PT * max(1.0, s.link_width / 2.2), zorder=6)
    if frame.ellipses is not None and frame.ellipse_colour is not None:
        for comp in range(frame.ellipses.shape[0]):
            rgb = OKABE_ITO[int(frame.ellipse_colour[comp]) % len(OKABE_ITO)]
            for sigma in range(frame.ellipses.shape[1]):
                curve = frame.ellipses[comp, sigma]
                first = sigma == 0
                ax.plot(curve[:, 0], curve[:, 1], color=_rgb(rgb, 1.0 if first else 150 / 255),
                        linewidth=(s.line_width if first else max(1.0, s.line_width * 0.6)) * _PT,
                        zorder=8)
    edge = max(1.2, s.line_width * 0.8) * _PT
    for pts, cols, marker, size in ((frame.means, frame.mean_colour, "X", s.mean_size * 0.8),
                                    (frame.centers, frame.center_colour, "*", s.mean_size * 1.1)):
        if pts is not None and len(pts) and cols is not None:
            ax.scatter(pts[:, 0], pts[:, 1], marker=marker, s=(size * _PT) ** 2,
                       c=[_rgb(OKABE_ITO[int(c) % len(OKABE_ITO)]) for c in cols],
                       edgecolors=[ink], linewidths=edge, zorder=10)
    if frame.exemplar_points is not None and frame.exemplar_colour is not None:
        cols = [_rgb(OKABE_ITO[int(c) % len(OKABE_ITO)]) if c >= 0 else _rgb(GREY)
                for c in frame.exemplar_colour]
        ax.scatter(frame.exemplar_points[:, 0], frame.exemplar_points[:, 1], marker="o",
                   s=(s.point_size * 2.0 * _PT) ** 2, c=cols, edgecolors=[ink], linewidths=edge, zorder=4)
    if frame.init_means is not None and len(frame.init_means):
        ax.scatter(frame.init_means[:, 0], frame.init_means[:, 1], marker="+", s=(s.mean_size * _PT) ** 2,
                   c=[ink], linewidths=2 * _PT, zorder=11)
    x0, y0, w, h = view_range or data_bounds(frame.xy, margin=0.04)
    ax.set_xlim(x0, x0 + w)
    ax.set_ylim(y0, y0 + h)
    ax.set_aspect("equal", adjustable="box")
    for side in ax.spines.values():
        side.set_color(_rgb(GREY))
    ax.tick_params(colors=_rgb((90, 90, 90)), labelsize=s.font_size * 0.8)
    info = frame.info if show_info else None
    if info:  # in a margin above the data, as the app's canvas: over the points it hid some
        ax.annotate(info, (0, 1), xycoords="axes fraction", xytext=(0, 3), textcoords="offset points",
                    ha="left", va="bottom", fontsize=s.font_size * 0.8, color=ink, zorder=20)
    if frame.title:
        pad = 6 + (s.font_size * 0.8 * 1.3 * (info.count("\n") + 1) if info else 0)
        ax.set_title(frame.title, fontsize=s.title_size, color=ink, pad=pad)
    if frame.message:
        ax.text(0.01, 0.01, frame.message, transform=ax.transAxes, ha="left", va="bottom",
                fontsize=s.font_size * 0.8, color=_rgb((150, 0, 40)), zorder=20,
                bbox={"facecolor": (1, 1, 1, 0.85), "edgecolor": "none"})
    return ax


def add_legend(ax: Any, *, classes: int = 0, style: Style | None = None) -> Any:
    """The app's key: each true class, must-link, cannot-link, violated link, mean."""
    from matplotlib.lines import Line2D

    s = style or Style()
    ink = _rgb(INK)
    handles = [Line2D([], [], linestyle="none", marker=MARKERS[SYMBOLS[k % len(SYMBOLS)]],
                      color=_rgb(OKABE_ITO[k % len(OKABE_ITO)]), label=f"class {k}") for k in range(classes)]
    handles += [Line2D([], [], color=ink, linewidth=s.link_width * _PT, label="must-link"),
                Line2D([], [], color=ink, linewidth=s.link_width * _PT, linestyle=(0, (4, 3)),
                       label="cannot-link"),
                Line2D([], [], linestyle="none", marker="x", color=_rgb(VIOLATION), label="violated"),
                Line2D([], [], linestyle="none", marker="X", markerfacecolor=_rgb((200, 200, 200)),
                       markeredgecolor=ink, label="mean")]
    return ax.legend(handles=handles, loc="upper right", fontsize=s.font_size * 0.8, framealpha=0.85)


def _renderer(figure: Any) -> Any:
    """The figure's renderer (an Agg canvas is attached to a pyplot-free Figure)."""
    if not hasattr(figure.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(figure)
    return figure.canvas.get_renderer()


def key_outside(figure: Any, handles: Sequence[Any], labels: Sequence[str], *,
                style: Style | None = None) -> Any:
    """One key for the whole ``figure`` right of its panels, never over the data: the figure is
    widened by the key's width (constrained layout keeps the panels' size). Returns the Legend."""
    s = style or Style()
    legend = figure.legend(list(handles), list(labels), loc="outside right upper",
                           fontsize=s.font_size * 0.8, frameon=False)
    width = legend.get_window_extent(_renderer(figure)).width / figure.dpi
    w, h = figure.get_size_inches()
    figure.set_size_inches(w + width + 0.15, h)
    return legend


def fit_to_content(figure: Any) -> Any:
    """Widen or heighten ``figure`` until everything drawn (a long title, the notes) is inside it:
    matplotlib cuts what runs past the figure's edges. Returns the figure."""
    for _ in range(3):
        renderer = _renderer(figure)
        figure.draw_without_rendering()
        tight = figure.get_tightbbox(renderer)
        w, h = figure.get_size_inches()
        over_x = max(0.0, -tight.x0) + max(0.0, tight.x1 - w)
        over_y = max(0.0, -tight.y0) + max(0.0, tight.y1 - h)
        if over_x < 0.01 and over_y < 0.01:
            break
        figure.set_size_inches(w + over_x + 0.1 * (over_x > 0), h + over_y + 0.1 * (over_y > 0))
    return figure


def save_figure(figure: Any, path: str | os.PathLike[str], *, dpi: float = 100) -> Path:
    """Write ``figure`` to ``path`` as PNG, SVG or PDF (by suffix); returns the path."""
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise InvalidInputError(f"cannot tell the figure format of {str(path)!r}; use a file name "
                                f"ending in {', '.join(FIGURE_FORMATS)}")
    if not path.parent.is_dir():
        raise InvalidInputError(f"cannot write {str(path)!r}: the folder does not exist")
    matplotlib = require_matplotlib()
    # no date and fixed SVG ids keep a file the same bit for bit when drawn twice
    metadata: dict[str, Any] = {"png": {"Software": None}, "svg": {"Date": None},
                                "pdf": {"CreationDate": None}}[path.suffix.lower()[1:]]
    fit_to_content(figure)
    with matplotlib.rc_context({"svg.hashsalt": "pairlab"}):
        figure.savefig(path, dpi=dpi, metadata=metadata)
    return path


def draw_frames(frames: Sequence[Frame], path: str | os.PathLike[str] | None = None, *,
                ncols: int | None = None, panel_size: tuple[float, float] = (520, 460),
                style: Style | None = None, title: str | None = None, legend: bool = False,
                view_range: tuple[float, float, float, float] | None = None,
                notes: str | None = None) -> Any:
    """Frames side by side (``ncols`` per row) in a new ``Figure``; ``panel_size`` in pixels at
    100 dpi as :func:`pairlab.render.render_frames`. Writes ``path`` (PNG/SVG/PDF) when given."""
    require_matplotlib()
    from .mpl_figure import PairlabFigure

    if not frames:
        raise InvalidInputError("nothing to draw: give at least one frame")
    s = style or Style()
    ncols = ncols or min(len(frames), 4)
    nrows = math.ceil(len(frames) / ncols)
    extra = (0.4 if title else 0) + (0.2 * (notes.count("\n") + 1) + 0.1 if notes else 0)
    fig = PairlabFigure(figsize=(panel_size[0] / 100 * ncols, panel_size[1] / 100 * nrows + extra),
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    rect = view_range or data_bounds(np.vstack([f.xy for f in frames]), margin=0.04)
    for ax, frame in zip(axes, frames, strict=False):
        draw_frame(frame, ax, style=s, view_range=rect)
    for ax in axes[len(frames):]:
        ax.set_visible(False)
    if legend:  # right of the panels, so the key covers no point
        key = add_legend(axes[len(frames) - 1], classes=frames[-1].n_true_classes, style=s)
        key.remove()
        key_outside(fig, key.legend_handles, [t.get_text() for t in key.get_texts()], style=s)
    if title:
        fig.suptitle(title, fontsize=s.title_size + 3, color=_rgb(INK))
    if notes:
        fig.supxlabel(notes, fontsize=s.font_size * 0.8, color=_rgb((80, 80, 80)), ha="left", x=0.01)
    if path is not None:
        save_figure(fig, path)
    return fig


def _frame(dataset: Dataset, constraints: Constraints | None, state: State | None, *, title: str,
           regions: Any, init_means: np.ndarray | None, info: str | None = None) -> Frame:
    vm = ViewMap.of(dataset)
    if regions is not None and not isinstance(regions, RegionImage):
        regions = None if state is None else decision_regions(
            regions, state, dataset, view_map=vm, bounds=region_bounds(dataset.view), resolution=160)
    return build_frame(dataset, constraints, state, view_map=vm, init_means=init_means, regions=regions,
                       title=title, info=info)


def draw_state(dataset: Dataset, constraints: Constraints | None, state: State | None,
               path: str | os.PathLike[str] | None = None, *, ax: Any = None, title: str = "",
               decision_regions: Any = None, init_means: np.ndarray | None = None,
               style: Style | None = None, legend: bool = False,
               size: tuple[float, float] = (640, 560)) -> Any:
    """One state (or the bare data with ``state=None``) as :func:`pairlab.render.render_state`
    draws it; on ``ax`` when given, else in a new ``Figure``. Returns the ``Figure``."""
    require_matplotlib()
    frame = _frame(dataset, constraints, state, title=title, regions=decision_regions,
                   init_means=init_means)
    if ax is None:
        return draw_frames([frame], path, ncols=1, panel_size=size, style=style, legend=legend)
    draw_frame(frame, ax, style=style)
    if legend:
        add_legend(ax, classes=frame.n_true_classes, style=style)
    if path is not None:
        save_figure(ax.figure, path)
    return ax.figure


def draw_run(run: Any, path: str | os.PathLike[str] | None = None, *, ax: Any = None,
             index: int | None = None, title: str | None = None, decision_regions: bool = True,
             **kwargs: Any) -> Any:
    """A :class:`~pairlab.Run` at its cursor (or history ``index``) with its algorithm's decision
    regions when it can classify unseen points; returns the ``Figure`` (see :func:`draw_state`)."""
    if index is not None and not -len(run.history) <= index < len(run.history):
        raise InvalidInputError(f"index {index} is outside the run's history of {len(run.history)} states")
    state = run.state if index is None else run.history[index]
    regions = run.algorithm if decision_regions and run.algorithm_class.can_predict() else None
    return draw_state(run.dataset, run.constraints, state, path, ax=ax,
                      title=run.algorithm_class.title if title is None else title,
                      decision_regions=regions, init_means=run.params.get("means_init"), **kwargs)
