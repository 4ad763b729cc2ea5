"""Export what the app shows: the current view as PNG or SVG, a whole run as an animated GIF or a
folder of PNG frames. Everything is drawn by :mod:`pairlab.gui.figure`, i.e. by the same canvas."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..draw.frames import Frame
from ..draw.geometry import data_bounds
from ..draw.palette import Style
from ..errors import InvalidInputError
from .figure import FigureRenderer, render_frames, save_gif
from .figure_extras import PaneExtras
from .model import Lab

__all__ = ["SVG_MAX_POINTS", "export_animation", "export_view", "lab_frames"]

#: Most points (summed over the panes) an SVG export writes: every point is a vector path, and
#: 20,000 took 19.7 s and 9.9 MB in the classroom trial; PNG has no such limit.
SVG_MAX_POINTS = 1_000


def lab_frames(lab: Lab, t: int | None = None, *, regions: bool = True,
               half: bool = False) -> list[Frame]:
    """One frame per pane at iteration ``t`` (default: what is on screen; ``half``: the
    half-step before ``t``)."""
    return [lab.frame(pane, t, regions=regions, half=half) for pane in lab.panes]


def _ncols(n: int) -> int:
    return n if n <= 3 else (2 if n == 4 else 3)


def export_view(lab: Lab, path: str | os.PathLike[str], *, regions: bool = True,
                style: Style | None = None, view_range: tuple[float, float, float, float] | None = None,
                panel_size: tuple[int, int] = (560, 500), scale: float = 1.0,
                extras: Sequence[PaneExtras] | None = None) -> Any:
    """Write the panes as shown to ``path`` (``.png`` or ``.svg``); returns the ``QImage``.
    ``extras`` (one per pane) adds what the window shows beside the frames: the means' trails
    and, under each panel, the objective plot with the metric curve."""
    if lab.dataset is None:
        raise InvalidInputError("nothing to export: no data set is loaded")
    points = lab.dataset.n_samples * max(len(lab.panes), 1)
    if str(path).lower().endswith(".svg") and points > SVG_MAX_POINTS:
        raise InvalidInputError(
            f"an SVG of {points:,} points ({len(lab.panes)} pane(s) × {lab.dataset.n_samples:,}) "
            f"would take many seconds and megabytes (at most {SVG_MAX_POINTS:,}); export a PNG "
            "instead, or fewer points")
    frames = lab_frames(lab, regions=regions)
    view_range = view_range or data_bounds(lab.dataset.view, margin=0.04)
    if extras is None:
        return render_frames(frames, path, ncols=_ncols(len(frames)), panel_size=panel_size,
                             style=style, view_range=view_range, scale=scale)
    curves = any(e.has_curves for e in extras)
    with FigureRenderer(len(frames), ncols=_ncols(len(frames)), panel_size=panel_size,
                        style=style, curves=curves) as fig:
        return fig.render(frames, path, view_range=view_range, scale=scale, extras=extras)


def export_animation(lab: Lab, path: str | os.PathLike[str], *, kind: str = "gif",
                     fps: float = 4.0, regions: bool = True, style: Style | None = None,
                     view_range: tuple[float, float, float, float] | None = None,
                     panel_size: tuple[int, int] = (480, 430),
                     progress: Callable[[int, int], None] | None = None,
                     cancelled: Callable[[], bool] = lambda: False,
                     halves: bool = False) -> Path:
    """Every stored iteration, 0 .. ``lab.max_index``, as a GIF (``kind="gif"``) or as PNG files
    ``frame_0000.png ...`` in the folder ``path`` (``kind="frames"``). With ``halves``, the
    half-step before each iteration comes first when a pane stored one (E-step and M-step apart)."""
    if lab.dataset is None:
        raise InvalidInputError("nothing to export: no data set is loaded")
    if kind not in ("gif", "frames"):
        raise InvalidInputError(f"kind must be 'gif' or 'frames', got {kind!r}")
    path = Path(path)
    if kind == "frames":
        path.mkdir(parents=True, exist_ok=True)
    last = lab.max_index
    steps = [(t, False) for t in range(last + 1)]
    if halves:
        steps = [(t, h) for t in range(last + 1) for h in (True, False)
                 if not h or (t > 0 and any(p.run is not None and (t - 1) in p.run.halves
                                           for p in lab.panes))]
    view_range = view_range or data_bounds(lab.dataset.view, margin=0.04)
    images = []
    with FigureRenderer(len(lab.panes), ncols=_ncols(len(lab.panes)), panel_size=panel_size,
                        style=style) as fig:
        for k, (t, half) in enumerate(steps):
            if cancelled():
                break
            frames = lab_frames(lab, t, regions=regions, half=half)
            target = path / f"frame_{k:04d}.png" if kind == "frames" else None
            images.append(fig.render(frames, target, view_range=view_range))
            if progress is not None:
                progress(k + 1, len(steps))
    if kind == "gif" and images:
        save_gif(images, path, fps=fps)
    return path
