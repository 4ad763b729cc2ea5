"""Offscreen figures drawn by the app's canvas and written with pyqtgraph's exporters (PNG, SVG,
animated GIF). The headless renderer (:mod:`pairlab.render`) and the app's export
(:mod:`pairlab.gui.export`) both write through this module, so imports run one way: the drawing
layer (:mod:`pairlab.draw`) <- the canvas <- this module <- the renderer and the export.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..draw.frames import Frame
from ..draw.geometry import data_bounds
from ..draw.palette import Style
from ..errors import InvalidInputError

__all__ = ["FigureRenderer", "add_notes", "ensure_app", "export_scene", "figure_key", "fit_widget",
           "notes_height", "qimage_to_array", "quiet_offscreen", "render_frames", "save_gif"]

_APP: Any = None


def ensure_app() -> Any:
    """The running ``QApplication``, creating one (offscreen when there is no display)."""
    global _APP
    from ..extras import require_gui

    require_gui("Drawing figures")
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance()
    if app is None:
        if (not os.environ.get("QT_QPA_PLATFORM") and not os.environ.get("DISPLAY")
                and not os.environ.get("WAYLAND_DISPLAY") and os.name == "posix"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        app = _APP = QtWidgets.QApplication(["pairlab"])
        if app.platformName() == "offscreen":
            quiet_offscreen()
    return app


def quiet_offscreen() -> None:
    """Drop the offscreen platform's "This plugin does not support propagateSizeHints()" warning
    (printed whenever a window is shown; it says nothing about pairlab); pass on everything else."""
    from PySide6 import QtCore

    previous = None

    def handler(mode: Any, context: Any, message: str) -> None:
        if "does not support propagateSizeHints" in message:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = QtCore.qInstallMessageHandler(handler)


class FigureRenderer:
    """A reusable offscreen figure of ``n_panels`` canvases (``ncols`` per row).

    :meth:`render` draws one list of frames and returns the ``QImage`` (and writes ``path``);
    reuse one renderer for the frames of an animation. Use as a context manager or call
    :meth:`close`. ``notes`` (lines separated by newlines) are printed small under the panels.
    ``curves`` puts an objective plot under each panel (filled by :meth:`render`'s ``extras``).
    """

    def __init__(self, n_panels: int, *, ncols: int | None = None,
                 panel_size: tuple[int, int] = (520, 460), style: Style | None = None,
                 title: str | None = None, legend: bool = False, notes: str | None = None,
                 curves: bool = False) -> None:
        import pyqtgraph as pg
        from PySide6 import QtCore

        from .canvas import CanvasLayers

        ensure_app()
        if n_panels < 1:
            raise InvalidInputError("nothing to render: give at least one panel")
        ncols = ncols or min(n_panels, 4)
        nrows = math.ceil(n_panels / ncols)
        self.widget = widget = pg.GraphicsLayoutWidget()
        widget.setBackground("w")
        widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        from .figure_extras import CURVE_HEIGHT, ExportCurvePlot

        extra = (40 if title else 0) + notes_height(notes) + (CURVE_HEIGHT * nrows if curves else 0)
        widget.resize(int(panel_size[0] * ncols), int(panel_size[1] * nrows + extra))
        self.style = style or Style()
        if title:
            widget.addLabel(title, row=0, col=0, colspan=ncols,
                            size=f"{self.style.title_size + 3}pt", color="#191919")
        self.layers = []
        self.curve_panels: list[ExportCurvePlot] = []
        self.trails: list[Any] = []  # a TrailsLayer per panel, made when trails are first drawn
        self.panels_width = int(panel_size[0] * ncols)
        for k in range(n_panels):
            row, col = divmod(k, ncols)
            if curves:  # the canvas above its objective plot, as in the app's pane
                cell = widget.addLayout(row=row + (1 if title else 0), col=col)
                plot = cell.addPlot(row=0, col=0)
                self.curve_panels.append(ExportCurvePlot(cell.addPlot(row=1, col=0), self.style))
            else:
                plot = widget.addPlot(row=row + (1 if title else 0), col=col)
            self.layers.append(CanvasLayers(plot, self.style))
        # the key right of the panels, so it covers no point (filled by render: it lists the classes)
        self.key = figure_key(widget, self.style, row=1 if title else 0, col=ncols,
                              rowspan=nrows) if legend else None
        self._key_classes = -1
        add_notes(widget, notes, row=nrows + (1 if title else 0), ncols=ncols, style=self.style)
        widget.show()

    def render(self, frames: Sequence[Frame], path: str | os.PathLike[str] | None = None, *,
               view_range: tuple[float, float, float, float] | None = None,
               scale: float = 1.0, extras: Sequence[Any] | None = None) -> Any:
        """Draw ``frames`` (and ``extras``, one :class:`~pairlab.gui.figure_extras.PaneExtras`
        per panel: trails and curves) and write ``path``; returns the ``QImage``."""
        from PySide6 import QtCore

        if len(frames) != len(self.layers):
            raise InvalidInputError(f"this figure has {len(self.layers)} panels, got "
                                    f"{len(frames)} frames")
        if extras is not None and len(extras) != len(frames):
            raise InvalidInputError(f"{len(frames)} frames need as many extras, got {len(extras)}")
        for canvas, frame in zip(self.layers, frames, strict=True):
            canvas.show(frame)
        if extras is not None:
            self._show_extras(extras)
        if self.key is not None and frames[-1].n_true_classes != self._key_classes:
            self._key_classes = frames[-1].n_true_classes
            self.key.clear()
            self.layers[-1].fill_key(self.key, self._key_classes)
            self.widget.resize(self.panels_width + key_width(self.key), self.widget.height())
        rect = view_range or data_bounds(np.vstack([f.xy for f in frames]), margin=0.04)
        for canvas in self.layers:
            canvas.set_range(rect)
        QtCore.QCoreApplication.processEvents()
        for panel in self.curve_panels:  # the metric axis follows the laid-out plot
            panel.sync()
        return export_scene(self.widget, path, scale)

    def _show_extras(self, extras: Sequence[Any]) -> None:
        from .trails_item import TrailsLayer

        for k, extra in enumerate(extras):
            if extra.trails is not None and not self.trails:
                self.trails = [TrailsLayer(c.vb, self.style.line_width * 1.8)
                               for c in self.layers]
            if self.trails:
                self.trails[k].show(extra.trails, extra.trail_colours)
            if k < len(self.curve_panels):
                self.curve_panels[k].show(extra)

    def close(self) -> None:
        """Free the figure now (scripts that draw many figures run no event loop that would)."""
        import shiboken6

        self.widget.close()
        self.layers = []
        if shiboken6.isValid(self.widget):
            shiboken6.delete(self.widget)

    def __enter__(self) -> FigureRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def _tolerant_svg_paths() -> Iterator[None]:
    """Let pyqtgraph's SVG exporter read the paths Qt >= 6.10 writes.

    ``QSvgGenerator`` now ends closed subpaths with a separate ``Z`` token, which pyqtgraph 0.14's
    ``correctCoordinates`` cannot split into "x,y"; it then fails on every plot (the view box's
    clip path is closed). The closing segment is already in the path (Qt adds an explicit line
    back to the start before ``Z``), so dropping the token keeps the geometry.
    """
    import sys

    module = sys.modules["pyqtgraph.exporters.SVGExporter"]
    original = module.correctCoordinates

    def correct(node: Any, defs: Any, item: Any, options: Any) -> Any:
        for element in node.getElementsByTagName("path"):
            d = element.getAttribute("d")
            if "Z" in d or "z" in d:
                tokens = [t for t in d.replace("Z", " Z ").replace("z", " z ").split()
                          if t not in ("Z", "z")]
                element.setAttribute("d", " ".join(tokens))
        return original(node, defs, item, options)

    module.correctCoordinates = correct
    try:
        yield
    finally:
        module.correctCoordinates = original


def figure_key(widget: Any, style: Style, *, row: int, col: int, rowspan: int = 1) -> Any:
    """An empty key (``pg.LegendItem``) in cell (``row``, ``col``) of ``widget``'s layout, beside
    the panels rather than over their data; fill it with ``addItem``."""
    import pyqtgraph as pg
    from PySide6 import QtCore, QtWidgets

    from ..draw.palette import INK
    from .qtpaint import qcolor

    key = pg.LegendItem(offset=None, labelTextSize=f"{style.font_size}pt", pen=pg.mkPen(None),
                        labelTextColor=qcolor(INK))
    widget.addItem(key, row=row, col=col, rowspan=rowspan)
    policy = QtWidgets.QSizePolicy.Policy
    key.setSizePolicy(policy.Fixed, policy.Fixed)
    widget.ci.layout.setAlignment(key, QtCore.Qt.AlignmentFlag.AlignTop)
    return key


def key_width(key: Any) -> int:
    """Pixels the figure widens by for ``key`` (its entries' width and a margin)."""
    from PySide6 import QtCore

    return int(key.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize).width()) + 16


def fit_widget(widget: Any) -> None:
    """Grow ``widget`` to its layout's minimum size: a long title or notes line would otherwise run
    past the exported image's edge (the scene is cut at the widget's size)."""
    from PySide6 import QtCore

    need = widget.ci.layout.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
    w, h = max(widget.width(), int(need.width()) + 1), max(widget.height(), int(need.height()) + 1)
    if (w, h) != (widget.width(), widget.height()):
        widget.resize(w, h)
        QtCore.QCoreApplication.processEvents()


def export_scene(widget: Any, path: str | os.PathLike[str] | None, scale: float) -> Any:
    """Write ``widget``'s scene to ``path`` (PNG or SVG by suffix), grown to fit its content
    (:func:`fit_widget`); return the image (QImage)."""
    from pyqtgraph.exporters import ImageExporter, SVGExporter

    fit_widget(widget)
    scene = widget.scene()
    png = ImageExporter(scene)
    png.parameters()["width"] = round(widget.width() * scale)
    image = png.export(toBytes=True)
    if path is not None:
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            with _tolerant_svg_paths():
                SVGExporter(scene).export(str(path))
        elif suffix in (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"):
            if not image.save(str(path)):
                raise InvalidInputError(f"could not write {str(path)!r}")
        else:
            raise InvalidInputError(
                f"cannot tell the image format of {str(path)!r}; use a .png or .svg file name.")
    return image


def render_frames(frames: Sequence[Frame], path: str | os.PathLike[str] | None = None, *,
                  ncols: int | None = None, panel_size: tuple[int, int] = (520, 460),
                  style: Style | None = None, title: str | None = None, legend: bool = False,
                  view_range: tuple[float, float, float, float] | None = None,
                  scale: float = 1.0, notes: str | None = None) -> Any:
    """Render prepared frames side by side (``ncols`` per row); returns the ``QImage``.

    ``path`` ending in ``.svg`` writes vector graphics, any image suffix a raster image
    (``scale`` > 1 for high resolution). All panels share ``view_range`` (x0, y0, w, h),
    by default the bounds of the data. ``notes`` (lines separated by newlines) are printed in
    small type under the panels.
    """
    with FigureRenderer(len(frames), ncols=ncols, panel_size=panel_size, style=style, title=title,
                        legend=legend, notes=notes) as fig:
        return fig.render(frames, path, view_range=view_range, scale=scale)


def qimage_to_array(image: Any) -> np.ndarray:
    """An (h, w, 4) uint8 RGBA copy of a ``QImage``."""
    from PySide6 import QtGui

    img = image.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    w, h = img.width(), img.height()
    buf = np.frombuffer(img.constBits(), dtype=np.uint8, count=img.sizeInBytes())
    return buf.reshape(h, img.bytesPerLine())[:, : 4 * w].reshape(h, w, 4).copy()


def save_gif(images: Sequence[Any], path: str | os.PathLike[str], *, fps: float = 4.0,
             hold_last: float = 1.5) -> None:
    """Write ``QImage`` frames as a looping animated GIF (Pillow); the last frame is held longer."""
    from PIL import Image

    if not images:
        raise InvalidInputError("no frames to write")
    pil = [Image.fromarray(qimage_to_array(im)).convert("RGB") for im in images]
    duration = [round(1000 / fps)] * len(pil)
    duration[-1] += int(hold_last * 1000)
    tmp = Path(path).with_name(f".{Path(path).name}.tmp.gif")
    pil[0].save(tmp, save_all=True, append_images=pil[1:], duration=duration, loop=0,
                optimize=False, disposal=1)
    os.replace(tmp, path)


_NOTE_LINE = 17


def notes_height(notes: str | None) -> int:
    return 0 if not notes else 10 + _NOTE_LINE * (notes.count("\n") + 1)


def add_notes(widget: Any, notes: str | None, *, row: int, ncols: int, style: Style) -> None:
    """Small grey lines under the panels (e.g. what data stands in for the paper's)."""
    if not notes:
        return
    import html

    text = "<br>".join(html.escape(line) for line in notes.splitlines())
    label = widget.addLabel(text, row=row, col=0, colspan=ncols, size=f"{style.font_size}pt",
                            color="#505050", justify="left")
    label.setMaximumHeight(notes_height(notes))
