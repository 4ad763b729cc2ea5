"""A :class:`~pairlab.Run`'s states as a self-contained HTML scrubber for notebooks.

Every stored state (each iteration and, where the run computed them, the half-steps between) is
drawn with matplotlib (:mod:`pairlab.mpl`, never Qt) as an inline PNG; a range slider and a few
lines of JavaScript show one at a time. Nothing talks to a kernel, so the slider works wherever the
notebook's HTML may run scripts (a saved notebook, an HTML export). Where scripts are stripped the
cursor's picture shows alone: the other frames carry ``hidden="hidden"``, which JupyterLab's
sanitizer keeps (a bare ``hidden``, an empty attribute, it drops). The size is bounded: at most
``max_frames`` pictures (spread evenly over the states, always with the first, the last and the
cursor's) of ``size`` pixels; the caption says how many of how many states are shown and the bytes
they take.
"""

from __future__ import annotations

import html
import io
import itertools
from typing import Any

import numpy as np

from .display import img_tag
from .errors import InvalidInputError

__all__ = ["MAX_FRAMES", "png_size", "position_label", "run_positions", "scrubber", "scrubber_html",
           "shown_positions"]

#: Pictures in a Run's scrubber at most (each about 35-45 kB of HTML at the default size).
MAX_FRAMES = 20
_ids = itertools.count()

_SCRIPT = """<script>(function () {{
  var root = document.getElementById("{id}");
  if (!root) return;
  var frames = root.querySelectorAll("[data-frame]"), slider = root.querySelector("input");
  var label = root.querySelector("[data-label]");
  slider.disabled = false;
  slider.addEventListener("input", function () {{
    var k = Number(slider.value);
    frames.forEach(function (f, i) {{ f.hidden = i !== k; }});
    label.textContent = frames[k].getAttribute("data-frame");
  }});
}})();</script>"""


def run_positions(run: Any) -> list[tuple[int, bool]]:
    """Every stored state of ``run`` in order: ``(i, False)`` is ``history[i]``, ``(i, True)`` the
    half-step after it (``halves[i]``), when the run has it."""
    out: list[tuple[int, bool]] = []
    for i in range(len(run.history)):
        out.append((i, False))
        if i in run.halves:
            out.append((i, True))
    return out


def position_label(run: Any, position: tuple[int, bool]) -> str:
    """``"iteration 3"`` or, for a half-step, ``"½ before iteration 4 (after <first phase>)"``."""
    i, half = position
    if not half:
        return f"iteration {run.history[i].iteration}"
    phase = run.halves[i].phase or run.algorithm_class.phases[0]
    return f"½ before iteration {run.history[i].iteration + 1} (after {phase})"


def shown_positions(n: int, cursor: int, max_frames: int) -> list[int]:
    """Which of ``n`` positions get a picture: all when ``n <= max_frames``, else ``max_frames``
    spread evenly from the first to the last, the cursor's among them."""
    if max_frames < 1:
        raise InvalidInputError(f"max_frames must be at least 1, got {max_frames}")
    if n <= max_frames:
        return list(range(n))
    if max_frames == 1:
        return [cursor]
    picks = [int(k) for k in np.round(np.linspace(0, n - 1, max_frames))]  # distinct: n > max_frames
    if cursor not in picks:  # the cursor takes the place of the pick nearest to it, ends kept
        inner = picks[1:-1] or picks
        picks[picks.index(min(inner, key=lambda k: abs(k - cursor)))] = cursor
    return sorted(picks)


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height of a PNG, read from its header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise InvalidInputError("not a PNG")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _encode(canvas: Any) -> bytes:
    """The canvas's pixels as a PNG of 256 colours without dithering (a third of the bytes of
    full colour, no visible change at this size)."""
    from PIL import Image

    buf = io.BytesIO()
    rgb = Image.fromarray(np.asarray(canvas.buffer_rgba())[..., :3])
    rgb.quantize(256, dither=Image.Dither.NONE).save(buf, format="png", optimize=True)
    return buf.getvalue()


def _data_artists(ax: Any) -> list[Any]:
    return [*ax.collections, *ax.lines, *ax.images, *ax.texts]


def _pngs(run: Any, positions: list[tuple[int, bool]], size: tuple[float, float]) -> list[bytes]:
    """One PNG per position on one reused figure: the first drawn whole (its layout, axes and
    ticks), the others over a copy of the empty axes, drawing only what changes (the data
    artists, the spines over the regions, the title); the ticks were a quarter of the time."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from .draw.geometry import data_bounds
    from .mpl import _frame, draw_frame, require_matplotlib
    from .mpl_figure import PairlabFigure

    require_matplotlib("A Run's scrubber")
    rect = data_bounds(run.dataset.view, margin=0.04)
    height = min(size[1], size[0] * rect[3] / rect[2] + 50)  # no empty band under wide data
    fig = PairlabFigure(figsize=(size[0] / 100, height / 100), dpi=100, layout="constrained")
    canvas = FigureCanvasAgg(fig)
    ax = fig.subplots()
    regions = run.algorithm if run.algorithm_class.can_predict() else None
    out: list[bytes] = []
    background = None
    for i, half in positions:
        state = run.halves[i] if half else run.history[i]
        frame = _frame(run.dataset, run.constraints, state, title=position_label(run, (i, half)),
                       regions=regions, init_means=run.params.get("means_init"))
        draw_frame(frame, ax, view_range=rect)
        if background is None:
            canvas.draw()
            out.append(_encode(canvas))
            fig.set_layout_engine("none")  # the panel never moves
            for artist in _data_artists(ax):
                artist.remove()
            title = ax.title.get_text()
            ax.title.set_text("")
            canvas.draw()
            background = canvas.copy_from_bbox(fig.bbox)
            ax.title.set_text(title)
            continue
        canvas.restore_region(background)
        for artist in sorted([*_data_artists(ax), *ax.spines.values()], key=lambda a: a.get_zorder()):
            ax.draw_artist(artist)
        ax.draw_artist(ax.title)
        out.append(_encode(canvas))
        for artist in _data_artists(ax):
            artist.remove()
    return out


def scrubber(run: Any, *, max_frames: int | None = None,
             size: tuple[float, float] = (400, 350)) -> tuple[str, bytes]:
    """The run's stored states as inline PNGs with a slider (see the module's docstring), the
    cursor's picture showing first; returns the HTML and the cursor's PNG. ``size`` is the
    largest picture in pixels (wide data gets a shorter one). With one state, no slider.
    ``max_frames`` defaults to :data:`MAX_FRAMES`, read at each call (set it to 1 for the cursor's
    picture alone, the cheapest display)."""
    max_frames = MAX_FRAMES if max_frames is None else max_frames
    positions = run_positions(run)
    cursor = positions.index((run.index, run.on_half))
    keep = shown_positions(len(positions), cursor, max_frames)
    chosen = [positions[k] for k in keep]
    pngs = _pngs(run, chosen, size)
    start = keep.index(cursor)
    labels = [position_label(run, p) for p in chosen]
    hide = ' hidden="hidden"'
    frames = "".join(
        f'<div data-frame="{html.escape(lab)}"{"" if k == start else hide}>'
        f"{img_tag(png, lab)}</div>" for k, (lab, png) in enumerate(zip(labels, pngs, strict=True)))
    if len(keep) == 1:
        return f'<div class="pairlab-scrubber">{frames}</div>', pngs[0]
    width, height = png_size(pngs[0])
    kb = sum(len(p) for p in pngs) / 1000
    shown = (f"{len(keep)} of {len(positions)} states shown, spread evenly (at most {max_frames})"
             if len(keep) < len(positions) else f"all {len(positions)} states")
    note = f"{run.algorithm_class.title}: {shown}; {width}x{height} px PNGs, {kb:.0f} kB"
    uid = f"pairlab-scrub-{next(_ids)}"
    slider = (f'<div style="display:flex;gap:8px;align-items:center">'
              f'<input type="range" min="0" max="{len(keep) - 1}" value="{start}" step="1" disabled '
              f'style="width:{width * 0.6:.0f}px" aria-label="state"/>'
              f'<span data-label="1">{html.escape(labels[start])}</span></div>')
    body = (f'<div id="{uid}" class="pairlab-scrubber">{frames}{slider}'
            f'<div style="font-size:80%;color:#555">{html.escape(note)}</div>'
            f"{_SCRIPT.format(id=uid)}</div>")
    return body, pngs[start]


def scrubber_html(run: Any, *, max_frames: int | None = None,
                  size: tuple[float, float] = (400, 350)) -> str:
    """The HTML of :func:`scrubber`."""
    return scrubber(run, max_frames=max_frames, size=size)[0]
