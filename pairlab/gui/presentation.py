"""Presentation and export: the panes' views and display options, presentation mode, PNG/SVG/GIF."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..draw.geometry import data_bounds
from ..draw.palette import Style
from ..draw.trails import mean_trails
from .controller import Controller, html_escape
from .lab_objective import MetricCurves, objective_in_words, objective_points
from .model import SHOWN_METRICS, Pane
from .widgets import PaneView

if TYPE_CHECKING:
    from .app import MainWindow
    from .figure_extras import PaneExtras

__all__ = ["Presentation"]


#: Metrics the objective plot can draw against iteration, with their axis labels.
CURVE_METRICS = {"ari": "ARI", "nmi": "NMI", "purity": "purity",
                 "constraints-satisfied": "links satisfied"}
#: Pixels the axes of a data canvas take (tick labels), along each direction.
AXIS_PX = 40.0
#: Screen pixels per cell of the decision-region grid (drawn smoothed), and the range of cells
#: across: a small pane of a classroom layout computes fewer cells than a big one.
REGION_CELL_PX = 4
REGION_CELLS = (40, 140)


def region_resolution(width_px: float) -> int:
    """Cells across the decision-region grid of a canvas ``width_px`` pixels wide (a multiple of 8,
    so that resizing by a few pixels keeps the cached regions); the most before the canvas
    has a size."""
    lo, hi = REGION_CELLS
    if not width_px > 0:
        return hi
    cells = int(width_px / REGION_CELL_PX / 8.0) * 8
    return int(min(max(cells, lo), hi))


def best_columns(n: int, width: float, height: float, aspect: float, chrome: float) -> int:
    """Number of columns of the grid of ``n`` panes in a ``width`` x ``height`` area that shows
    data of ``aspect`` (width / height, equal scales) largest; ``chrome`` is the height of a
    pane that is not canvas. Near ties (2 %) go to fewer empty cells, then to more columns."""
    best, best_area, best_empty = 1, -1.0, n
    for ncols in range(n, 0, -1):
        nrows = -(-n // ncols)
        w = width / ncols - AXIS_PX
        h = height / nrows - chrome - AXIS_PX
        if w <= 0 or h <= 0:
            continue
        shown = min(w, h * aspect) * min(h, w / aspect)  # the data's rectangle in one canvas
        empty = ncols * nrows - n
        if shown > best_area * 1.02 or (shown * 1.02 >= best_area and empty < best_empty):
            best, best_area, best_empty = ncols, max(shown, best_area), empty
    return best


class Presentation(Controller):
    """One :class:`PaneView` per pane (drawn at the lab's cursor), the View menu and export."""

    def __init__(self, window: MainWindow, panes_layout: QtWidgets.QGridLayout) -> None:
        super().__init__(window)
        self.panes_layout = panes_layout
        self.style_normal = Style()
        self.canvas_style = self.style_normal
        self.presenting = False
        self.show_regions = True
        self.show_ellipses = True
        self.show_exemplars = True
        self.show_legend = False
        self.show_links = True
        self.show_changes = True
        self.show_errors = False
        self.show_trails = False
        self.pane_views: list[PaneView] = []
        self.ncols = 0
        A = self.action
        self.act_export = A("Export view as PNG/SVG...", self.export_view_dialog, "Ctrl+E")
        self.act_export_gif = A("Export run as GIF...", partial(self.export_animation_dialog, "gif"),
                                "Ctrl+Shift+E")
        self.act_export_frames = A("Export run as PNG frames...",
                                   partial(self.export_animation_dialog, "frames"))
        self.act_export_halves = A("Export run as GIF by half-steps...",
                                   partial(self.export_animation_dialog, "gif", True))
        self.act_present = A("Presentation mode", self.toggle_presentation, "F11", checkable=True,
                             tip="Large points and fonts, full screen")
        self.act_controls = A("Show controls", self.toggle_dock, "F9", checkable=True)
        self.act_controls.setChecked(True)
        self.act_regions = A("Decision regions", self.toggle_view, "Shift+R", checkable=True)
        self.act_regions.setChecked(True)
        self.act_ellipses = A("Covariance ellipses", self.toggle_view, "E", checkable=True)
        self.act_ellipses.setChecked(True)
        self.act_exemplars = A("Exemplar lines", self.toggle_view, "X", checkable=True)
        self.act_exemplars.setChecked(True)
        self.act_legend = A("Legend", self.toggle_view, "L", checkable=True)
        self.act_links = A("Links", self.toggle_view, "Shift+L", checkable=True,
                           tip="Show or hide the links")
        self.act_links.setChecked(True)
        self.act_changes = A("Highlight changed labels", self.toggle_view, "H", checkable=True,
                             tip="Ring the points whose label changed in the last step")
        self.act_changes.setChecked(True)
        self.act_errors = A("Show errors", self.toggle_view, "W", checkable=True,
                            tip="Cross the points assigned against the ground truth")
        self.act_match = A("Colours follow the true classes", self.toggle_view, "T",
                           checkable=True, tip="Draw each cluster in its matched class's colour")
        self.act_match.setChecked(True)
        self.act_skip_first = A("Objective from iteration 1", self.toggle_view, "Z",
                                checkable=True, tip="Fit the objective plot to iterations 1 on "
                                "(iteration 0 flattens the curve)")
        self.act_skip_first.setChecked(True)
        self.act_trails = A("Trails of the means", self.toggle_view, "Shift+T", checkable=True,
                            tip="Draw how each cluster's mean moved over the iterations so far")
        self.act_fit = A("Show all data", self.fit_views, "0")
        self.act_reset_objective = A("Reset objective zoom", self.reset_objective_zoom, "A",
                                     tip="Show the whole objective curve again (or double-click "
                                     "the plot)")
        self.curve_metric = "ari"
        self.metric_curves = MetricCurves()
        self.metric_actions: dict[str, QtGui.QAction] = {}
        group = QtGui.QActionGroup(self)
        for name, text in (*CURVE_METRICS.items(), ("", "none")):
            act = A(f"Metric against iteration: {text}", partial(self.set_curve_metric, name),
                    checkable=True)
            act.setChecked(name == self.curve_metric)
            group.addAction(act)
            self.metric_actions[name] = act
        self._region_timer = QtCore.QTimer(self)
        self._region_timer.setSingleShot(True)
        self._region_timer.setInterval(150)
        self._region_timer.timeout.connect(self._cover_views)
        self._layout_timer = QtCore.QTimer(self)  # re-fit the grid after the window resizes
        self._layout_timer.setSingleShot(True)
        self._layout_timer.setInterval(80)
        self._layout_timer.timeout.connect(self.fit_layout)
        panes_layout.parentWidget().installEventFilter(self)

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:  # Qt's name
        if event.type() == QtCore.QEvent.Type.Resize:
            self._layout_timer.start()
        return False

    def menu_actions(self) -> list[Any]:
        return [self.act_regions, self.act_ellipses, self.act_exemplars, self.act_links,
                self.act_legend, self.act_trails, self.act_skip_first, self.act_reset_objective,
                None, *self.metric_actions.values(), None, self.act_match, self.act_changes,
                self.act_errors, None, self.act_fit, None, self.act_controls, self.act_present]

    def export_actions(self) -> list[Any]:
        return [self.act_export, self.act_export_gif, self.act_export_halves,
                self.act_export_frames]

    # == the panes' views ======================================================================
    def sync_views(self) -> None:
        """Create or drop pane views to match ``lab.panes``; lay them out in a grid."""
        while len(self.pane_views) > len(self.lab.panes):
            view = self.pane_views.pop()
            self.panes_layout.removeWidget(view)
            view.hide()
            view.setParent(None)
            view.deleteLater()
        while len(self.pane_views) < len(self.lab.panes):
            view = PaneView(self.canvas_style)
            view.set_style(self.canvas_style)  # a pane added in presentation mode is big too
            editing = self.window.editing
            view.canvas.clicked.connect(editing.canvas_clicked)
            view.canvas.clicked.connect(partial(self.window.predict.canvas_clicked, view))
            view.canvas.grab = partial(editing.grab, view)
            view.canvas.dragged.connect(partial(editing.drag_to, view))
            view.canvas.dropped.connect(partial(editing.drop, view))
            view.canvas.layers.vb.sigRangeChangedManually.connect(
                partial(self._zoomed, view.canvas.layers.vb))
            view.canvas.layers.vb.sigRangeChanged.connect(self._region_timer.start)
            self.pane_views.append(view)
        self.ncols = 0
        self.fit_layout()
        self.toggle_view()
        self.fit_views()

    def fit_layout(self) -> None:
        """Arrange the panes in the grid that shows the data largest (equal aspect), and give
        each pane's canvas only the height its data can use: the objective plot gets the rest,
        so no canvas is half empty when two or three panes stand side by side."""
        n = len(self.pane_views)
        if n == 0:
            return
        area = self.panes_layout.parentWidget()
        width, height = max(area.width(), 200), max(area.height(), 200)
        aspect = self._data_aspect()
        chrome = 150.0 if self.presenting else 120.0  # header, objective plot, metrics
        ncols = best_columns(n, width, height, aspect, chrome)
        if ncols != self.ncols:
            self.ncols = ncols
            for view in self.pane_views:
                self.panes_layout.removeWidget(view)
            for c in range(max(n, 3)):
                self.panes_layout.setColumnStretch(c, 1 if c < ncols else 0)
            for k, view in enumerate(self.pane_views):
                self.panes_layout.addWidget(view, k // ncols, k % ncols)
        nrows = -(-n // ncols)
        cell_w = width / ncols - 12
        cell_h = height / nrows
        canvas_h = int(min(cell_h - chrome, (cell_w - AXIS_PX) / aspect + AXIS_PX))
        capped = canvas_h < cell_h - chrome - 1
        for view in self.pane_views:
            view.canvas.setMaximumHeight(max(canvas_h, view.canvas.minimumHeight()))
            layout = view.layout()
            layout.setStretch(layout.count() - 1, 1 if capped else 0)  # spare room at the bottom
            # the objective plot may take some of the room the data cannot use, not all of it
            view.objective.setMaximumHeight(int(max(min(cell_h - canvas_h - 60, 0.3 * cell_h),
                                                    150)))

    def _data_aspect(self) -> float:
        if self.lab.dataset is None:
            return 1.0
        _, _, w, h = data_bounds(self.lab.dataset.view, margin=0.05)
        return float(np.clip(w / h, 0.2, 5.0)) if h > 0 else 1.0

    def fit_views(self) -> None:
        """Show all the data in every pane."""
        if self.lab.dataset is None:
            return
        self.fit_layout()
        rect = data_bounds(self.lab.dataset.view, margin=0.05)
        for view in self.pane_views:
            view.canvas.layers.set_range(rect)

    def _zoomed(self, source: Any, *args: Any) -> None:
        """Pan and zoom all panes together (linking aspect-locked views directly makes them fight
        when the panes differ in shape)."""
        (x0, x1), (y0, y1) = source.viewRange()
        for view in self.pane_views:
            vb = view.canvas.layers.vb
            if vb is not source:
                vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)

    def _cover_views(self) -> None:
        """Let decision regions cover what the panes show after a zoom, pan or resize (they are
        recomputed only when a view leaves the covered area or zooms in a lot)."""
        if self.lab.dataset is None or not self.pane_views:
            return
        ranges = [view.canvas.layers.vb.viewRange() for view in self.pane_views]
        x0 = min(r[0][0] for r in ranges)
        x1 = max(r[0][1] for r in ranges)
        y0 = min(r[1][0] for r in ranges)
        y1 = max(r[1][1] for r in ranges)
        bx, by, bw, bh = self.lab.bounds
        inside = bx <= x0 and by <= y0 and x1 <= bx + bw and y1 <= by + bh
        if inside and (x1 - x0) * (y1 - y0) > 0.15 * bw * bh:
            return
        pad_x, pad_y = 0.1 * (x1 - x0), 0.1 * (y1 - y0)
        self.lab.set_region_bounds((x0 - pad_x, y0 - pad_y, x1 - x0 + 2 * pad_x,
                                    y1 - y0 + 2 * pad_y))
        if self.show_regions:
            self.window.refresh()

    def draw(self, *, latest: bool = False) -> None:
        """Draw every pane at the lab's cursor, or (``latest``) at its last stored state while
        the worker computes more (the history is only read: no cursor moves, no regions)."""
        lab = self.lab
        titles = lab.metric_titles()
        editing = self.window.editing
        pending = editing.pending_point if editing.pending_point is not None else (
            editing.selected_point)
        if pending is not None and pending >= lab.dataset.n_samples:
            pending = None
        for view, pane in zip(self.pane_views, lab.panes, strict=False):
            t = pane.last_index if latest else None
            frame = lab.frame(pane, t, regions=self.show_regions and not latest,
                              regions_resolution=region_resolution(
                                  view.canvas.layers.vb.width()),
                              previous=view.frame)
            view.frame = frame
            view.canvas.layers.show(frame)
            view.canvas.layers.set_selection(
                None if pending is None else lab.dataset.view[[pending]])
            state = lab.state(pane, t)
            if pane.run is not None and state is not None:
                index = state.iteration if latest else pane.run.index
                if not latest and pane.run.on_half:
                    index += 0.5  # between the iteration before and the one being made
                view.objective.show_values(pane.run.objectives[:index + 1] if latest
                                           else pane.run.objectives, index, state.objective_name,
                                           font_size=self.canvas_style.font_size - 1,
                                           value=state.objective if index % 1 else None,
                                           points=objective_points(pane.run,
                                                                   index if latest else None))
                view.objective.show_metric(*self._metric_curve(pane), index)
            else:  # no run (stopped while starting, or being rebuilt): no stale curve
                view.objective.clear_values()
                view.objective.show_metric(np.empty(0), np.empty(0), "", 0)
            self._show_trails(view, pane, latest)
            chosen, note = self.lab.chosen_params(pane), pane.ignored_note()
            view.header.setText(self._header(pane, chosen, note))
            tip = " ".join(x for x in (pane.title, chosen, pane.status(), note) if x)
            if tip != view.header.toolTip():  # setToolTip sends an event even when unchanged
                view.header.setToolTip(tip)
            words = objective_in_words(state)  # e.g. DP-means: distortion + λ × clusters
            view.metrics_line.set_text(self._metrics_text(lab.metrics(pane, t), titles)
                                       + (f"<br>{html_escape(words)}" if words else ""))

    def _metric_curve(self, pane: Pane) -> tuple[np.ndarray, np.ndarray, str]:
        """The chosen metric at every stored iteration, else links satisfied (data without
        classes), else nothing."""
        for name in dict.fromkeys((self.curve_metric, "constraints-satisfied")):
            if not name:
                break
            xs, ys = self.metric_curves.curve(self.lab, pane, name)
            if xs.size:
                return xs, ys, CURVE_METRICS.get(name, name)
        return np.empty(0), np.empty(0), ""

    def set_curve_metric(self, name: str, *args: Any) -> None:
        """The metric drawn against iteration in the objective plots ("" for none)."""
        if name and name not in CURVE_METRICS:
            raise ValueError(f"metric must be one of {sorted(CURVE_METRICS)} or '', got {name!r}")
        self.curve_metric = name
        self.metric_actions[name].setChecked(True)
        self.window.refresh()

    def reset_objective_zoom(self) -> None:
        for view in self.pane_views:
            view.objective.reset_zoom()

    def _show_trails(self, view: PaneView, pane: Pane, latest: bool) -> None:
        """The means' trails up to the state shown (Trails of the means, Shift+T)."""
        run, frame = pane.run, view.frame
        if not self.show_trails or run is None or frame is None or self.lab.view_map is None:
            view.trails.show(None, None)
            return
        end = len(run.history) - 1 if latest else run.index
        states = list(run.history[:end + 1])
        if not latest and run.on_half and end in run.halves:
            states.append(run.halves[end])
        colours = frame.mean_colour if frame.means is not None else frame.center_colour
        view.trails.show(mean_trails(states, self.lab.view_map, self.lab.dataset.n_features),
                         colours)

    def _header(self, pane: Pane, chosen: str, note: str) -> str:
        """The pane's title line: its title with ``chosen`` (``Lab.chosen_params``), status and
        ``note`` (``Pane.ignored_note``)."""
        size = self.canvas_style.title_size + 1
        title = pane.title + (f" ({chosen})" if chosen else "")
        status = pane.status()
        colour = "#b00020" if pane.error else ("#0a7d32" if "converged" in status else "#555")
        note = f"&nbsp;&nbsp;<span style='color:#8a5a00'>{html_escape(note)}</span>" if note else ""
        return (f"<span style='font-size:{size}pt'><b>{html_escape(title)}</b></span>"
                f"&nbsp;&nbsp;<span style='color:{colour}'>{html_escape(status)}</span>{note}")

    def _metrics_text(self, values: dict[str, float], titles: dict[str, str]) -> str:
        if not values:
            return "&nbsp;"
        short = {"purity": "purity", "ari": "ARI", "nmi": "NMI",
                 "constraints-satisfied": "links satisfied"}
        parts = []
        for name in SHOWN_METRICS:
            if name in values:
                value = values[name]
                text = f"{100 * value:.0f} %" if name == "constraints-satisfied" else f"{value:.3f}"
                parts.append(f"{short[name]} <b>{text}</b>")
        size = self.canvas_style.font_size
        return f"<span style='font-size:{size}pt'>" + " &nbsp;·&nbsp; ".join(parts) + "</span>"

    # == view options ==========================================================================
    def toggle_view(self, *args: Any) -> None:
        self.show_regions = self.act_regions.isChecked()
        self.show_ellipses = self.act_ellipses.isChecked()
        self.show_exemplars = self.act_exemplars.isChecked()
        self.show_legend = self.act_legend.isChecked()
        self.show_links = self.act_links.isChecked()
        self.show_changes = self.act_changes.isChecked()
        self.show_errors = self.act_errors.isChecked()
        self.show_trails = self.act_trails.isChecked()
        self.lab.match_colours = self.act_match.isChecked()
        for view in self.pane_views:
            view.objective.set_skip_first(self.act_skip_first.isChecked())
            self._apply_view_options(view)
            view.frame = None
        self.window.refresh()

    def _apply_view_options(self, view: PaneView) -> None:
        layers = view.canvas.layers
        layers.show_regions = self.show_regions
        layers.show_ellipses = self.show_ellipses
        layers.show_exemplars = self.show_exemplars
        layers.show_links = self.show_links
        layers.show_changes = self.show_changes
        layers.show_errors = self.show_errors
        legend = self.show_legend and view is self.pane_views[-1]  # one key is enough
        if legend and layers.legend is None:
            layers.add_legend()
        if layers.legend is not None:
            layers.legend.setVisible(legend)

    def view_options(self) -> dict[str, Any]:
        return {"decision_regions": self.show_regions, "ellipses": self.show_ellipses,
                "exemplars": self.show_exemplars, "legend": self.show_legend,
                "links": self.show_links, "changes": self.show_changes,
                "errors": self.show_errors, "match_colours": self.lab.match_colours,
                "objective_from_1": self.act_skip_first.isChecked(),
                "trails": self.show_trails, "metric_curve": self.curve_metric,
                "speed": self.window.transport.speed.value()}

    def _view_actions(self) -> tuple[tuple[str, Any], ...]:
        return (("decision_regions", self.act_regions), ("ellipses", self.act_ellipses),
                ("exemplars", self.act_exemplars), ("legend", self.act_legend),
                ("links", self.act_links), ("changes", self.act_changes),
                ("errors", self.act_errors), ("match_colours", self.act_match),
                ("objective_from_1", self.act_skip_first), ("trails", self.act_trails))

    def set_view_options(self, options: dict[str, Any]) -> None:
        for key, action in self._view_actions():
            if key in options:
                action.setChecked(bool(options[key]))
        if options.get("metric_curve") in self.metric_actions:
            self.curve_metric = options["metric_curve"]
            self.metric_actions[self.curve_metric].setChecked(True)
        if "speed" in options:
            self.window.transport.speed.setValue(int(options["speed"]))
        self.toggle_view()

    def toggle_dock(self) -> None:
        self.window.dock.setVisible(self.act_controls.isChecked())

    def toggle_presentation(self, *args: Any, on: bool | None = None) -> None:
        w = self.window
        on = (not self.presenting) if on is None else on
        self.presenting = on
        self.act_present.setChecked(on)
        self.canvas_style = Style.presentation() if on else self.style_normal
        font = QtGui.QFont(w.font())
        font.setPointSize(15 if on else QtWidgets.QApplication.font().pointSize())
        w.centralWidget().setFont(font)
        w.status.setFont(font)
        w.transport.set_presenting(on)
        for view in self.pane_views:
            view.set_style(self.canvas_style)
        self.fit_layout()
        self.act_controls.setChecked(not on)
        self.toggle_dock()
        if on:
            w.showFullScreen()
        else:
            w.showNormal()
        w.refresh()

    # == export ================================================================================
    def export_view(self, path: str | os.PathLike[str], scale: float = 1.0) -> Any:
        from .export import export_view

        if self.window.executor.busy:
            self.window.wait_idle()
        return export_view(self.lab, path, regions=self.show_regions, style=self.canvas_style,
                           view_range=self._view_range(), scale=scale,
                           extras=[self.pane_extras(pane) for pane in self.lab.panes])

    def pane_extras(self, pane: Pane) -> PaneExtras:
        """What the window shows of ``pane`` beside its frame, for an export: the trails of the
        means (when on) and its objective plot with the metric curve (as drawn)."""
        from .figure_extras import PaneExtras

        out = PaneExtras()
        run, state = pane.run, self.lab.state(pane)
        if run is None or state is None:
            return out
        if self.show_trails and self.lab.view_map is not None:
            frame = self.lab.frame(pane, regions=False)
            states = list(run.history[:run.index + 1])
            if run.on_half and run.index in run.halves:
                states.append(run.halves[run.index])
            out.trails = mean_trails(states, self.lab.view_map, self.lab.dataset.n_features)
            out.trail_colours = frame.mean_colour if frame.means is not None else frame.center_colour
        out.cursor = run.index + (0.5 if run.on_half else 0.0)
        out.objective_x, out.objective_y = objective_points(run)
        out.objective_name = state.objective_name or ""
        out.metric_x, out.metric_y, out.metric_name = self._metric_curve(pane)
        return out

    def _view_range(self) -> tuple[float, float, float, float] | None:
        if not self.pane_views:
            return None
        (x0, x1), (y0, y1) = self.pane_views[0].canvas.layers.vb.viewRange()
        return (x0, y0, x1 - x0, y1 - y0)

    def export_view_dialog(self) -> None:
        w = self.window
        path = w.files.file_dialog(True, "Export view", "PNG image (*.png);;SVG drawing (*.svg)",
                                   ".png")
        if path is not None and w.guard(self.export_view, path, 2.0) is not w.ERROR:
            w.status.showMessage(f"Exported {path}", 5000)

    def export_animation(self, path: str | os.PathLike[str], kind: str = "gif",
                         halves: bool = False) -> Path | None:
        """Compute every pane to its end, then write all iterations (with ``halves``: and the
        half-steps between them) as a GIF or PNG frames."""
        from .export import export_animation

        w = self.window
        if w.executor.busy:
            w.wait_idle()
        if any(not p.finished for p in self.lab.panes):
            w.transport.compute(None, label="running to convergence")
            if not w.wait_idle(timeout=600):
                return None
        bar = w.transport.progress
        bar.setRange(0, (2 if halves else 1) * (self.lab.max_index + 1))
        bar.show()
        w.dock.setEnabled(False)  # no edits while the frames are drawn
        w.panes_area.setEnabled(False)

        def progress(done: int, total: int) -> None:
            bar.setValue(done)
            bar.setFormat(f"{done}/{total}")
            w.status.showMessage(f"Exporting frame {done} of {total}...")
            QtWidgets.QApplication.processEvents()

        try:
            out = w.guard(partial(export_animation, self.lab, path, kind=kind,
                                  fps=w.transport.speed.value(), regions=self.show_regions,
                                  style=self.canvas_style, view_range=self._view_range(),
                                  progress=progress, halves=halves))
            return None if out is w.ERROR else out
        finally:
            w.dock.setEnabled(True)
            w.panes_area.setEnabled(True)
            bar.hide()
            w.refresh()

    def export_animation_dialog(self, kind: str, halves: bool = False) -> None:
        w = self.window
        if kind == "gif":
            path = w.files.file_dialog(True, "Export run as GIF", "Animated GIF (*.gif)", ".gif")
        else:
            name = QtWidgets.QFileDialog.getExistingDirectory(w, "Folder for the PNG frames")
            path = Path(name) if name else None
        if path is not None and self.export_animation(path, kind, halves) is not None:
            w.status.showMessage(f"Exported {path}", 5000)
