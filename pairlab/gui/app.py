"""The main window of the teaching app (``pairlab gui``).

The window is a thin view of a :class:`~pairlab.gui.model.Lab`: widgets edit it, the canvas
draws its frames, and every initialisation or new iteration runs on the worker thread
(:class:`~pairlab.gui.worker.Executor`) so the window never freezes. Stepping back, the slider and
replays only move the runs' cursors over their stored history.
"""

from __future__ import annotations

import math
import os
from functools import partial
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..errors import PairlabError
from .frames import data_bounds
from .model import SHOWN_METRICS, Lab, Pane
from .palette import Style
from .session import apply_session, read_autosave, read_session, save_session, write_autosave
from .widgets import Banner, PaneConfig, PaneView, ParamForm, plugins_report, text_dialog
from .worker import Executor

__all__ = ["MainWindow", "default_lab"]

TOOLS = ("select", "must", "cannot", "delete", "means")
_TOOL_HINTS = {
    "select": "Select: click a point to see its class, label and soft label.",
    "must": "Must-link tool: click two points that belong together.",
    "cannot": "Cannot-link tool: click two points that belong apart.",
    "delete": "Delete tool: click a link to remove it.",
    "means": "Initial means: click where each starting mean goes.",
}
HIT_RADIUS = 12.0  # pixels
_ERROR = object()  # what _guard returns when the call failed


def default_lab(registry: Any = None) -> Lab:
    """Two moons (or the first data set), GM-PR (or the first algorithm), 3 + 3 random links."""
    lab = Lab(registry)
    lab.set_dataset(lab.default_dataset())
    lab.add_pane(lab.default_algorithm())
    if lab.has_truth:
        try:
            lab.add_random_links(3, 3)
        except PairlabError:
            pass
    lab._undo.clear()
    return lab


class MainWindow(QtWidgets.QMainWindow):
    """The teaching app.

    Methods a script or test drives directly: :meth:`play`, :meth:`pause`, :meth:`step_forward`,
    :meth:`step_back`, :meth:`reset`, :meth:`seek`, :meth:`run_to_end`, :meth:`set_tool`,
    :meth:`save_session`, :meth:`open_session`, :meth:`export_view`, :meth:`export_animation`,
    :meth:`wait_idle`.
    """

    def __init__(self, lab: Lab | None = None, *, autosave: bool = True,
                 offer_restore: bool = False) -> None:
        super().__init__()
        self.lab = lab or default_lab()
        self.executor = Executor(self)
        app = QtWidgets.QApplication.instance()
        if app is not None:  # stop the worker thread even if the window is never closed
            app.aboutToQuit.connect(self.executor.shutdown)
        self.executor.busy_changed.connect(self._busy_changed)
        self.executor.progress.connect(self._progress)
        self.style_normal = Style()
        self.canvas_style = self.style_normal
        self.presenting = False
        self.show_regions = True
        self.show_ellipses = True
        self.show_exemplars = True
        self.show_legend = False
        self.tool = "select"
        self.pending_point: int | None = None
        self.session_path: Path | None = None
        self.autosave_enabled = autosave
        self.playing = False
        self._target: int | None = None
        self._step_when_idle = False
        self._known_errors: set[str] = set()
        self._dialogs: list[QtWidgets.QDialog] = []
        self.pane_views: list[PaneView] = []
        self.pane_configs: list[PaneConfig] = []
        self.setWindowTitle("pairlab")
        self.resize(1440, 900)
        self._build_actions()
        self._build_central()
        self._build_dock()
        self._build_menus()
        self.timer = QtCore.QTimer(self)
        self.timer.timeout.connect(self._tick)
        self.autosave_timer = QtCore.QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(1500)
        self.autosave_timer.timeout.connect(self.autosave)
        self._busy_timer = QtCore.QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.setInterval(250)
        self._busy_timer.timeout.connect(self._show_busy)
        self._region_timer = QtCore.QTimer(self)
        self._region_timer.setSingleShot(True)
        self._region_timer.setInterval(150)
        self._region_timer.timeout.connect(self._cover_views)
        self._sync_panes()
        self.set_tool("select")
        self.rebuild()
        failures = self.lab.registry.failures
        if failures:
            names = ", ".join(p.name for p in failures)
            self.banner.show_message(
                f"{len(failures)} plugin(s) failed to load ({html_escape(names)}); everything else "
                "works. Help > Plugins shows why.", "info", [("Show", self.show_plugins)])
        if offer_restore:
            self._offer_restore()

    # == construction ==========================================================================
    def _action(self, text: str, slot: Any, shortcut: str | QtGui.QKeySequence | None = None, *,
                checkable: bool = False, tip: str = "") -> QtGui.QAction:
        action = QtGui.QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QtGui.QKeySequence(shortcut))
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(f"{tip} ({action.shortcut().toString()})" if shortcut else tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        A = self._action
        Key = QtGui.QKeySequence.StandardKey
        self.act_play = A("Play", self.toggle_play, "Space", tip="Play or pause the animation")
        self.act_step = A("Step", self.step_forward, "Right", tip="One iteration forward")
        self.act_back = A("Back", self.step_back, "Left", tip="One iteration back (replayed)")
        self.act_reset = A("Reset", self.reset, "Home", tip="Back to iteration 0")
        self.act_end = A("Run to end", self.run_to_end, "End",
                         tip="Compute until every pane converges")
        self.act_cancel = A("Cancel", self.cancel, "Escape", tip="Stop the computation")
        self.act_faster = A("Faster", lambda: self.speed.setValue(self.speed.value() + 1), "+")
        self.act_slower = A("Slower", lambda: self.speed.setValue(self.speed.value() - 1), "-")
        self.tool_actions: dict[str, QtGui.QAction] = {}
        group = QtGui.QActionGroup(self)
        for name, text, key in (("select", "Select", "S"), ("must", "Must-link", "M"),
                                ("cannot", "Cannot-link", "C"), ("delete", "Delete link", "D"),
                                ("means", "Place initial means", "I")):
            act = A(text, partial(self.set_tool, name), key, checkable=True, tip=_TOOL_HINTS[name])
            group.addAction(act)
            self.tool_actions[name] = act
        self.act_random = A("Add random links", self.add_random_links, "R",
                            tip="Draw links from the ground truth")
        self.act_clear = A("Clear links", self.clear_links, "Ctrl+Shift+Backspace")
        self.act_clear_means = A("Clear initial means", self.clear_means)
        self.act_undo = A("Undo link edit", self.undo, Key.Undo)
        self.act_new = A("New session", self.new_session, Key.New)
        self.act_open = A("Open session...", self.open_session_dialog, Key.Open)
        self.act_save = A("Save session", self.save_session_dialog, Key.Save)
        self.act_save_as = A("Save session as...", partial(self.save_session_dialog, True), Key.SaveAs)
        self.act_export = A("Export view as PNG/SVG...", self.export_view_dialog, "Ctrl+E")
        self.act_export_gif = A("Export run as GIF...", partial(self.export_animation_dialog, "gif"),
                                "Ctrl+Shift+E")
        self.act_export_frames = A("Export run as PNG frames...",
                                   partial(self.export_animation_dialog, "frames"))
        self.act_quit = A("Quit", self.close, Key.Quit)
        self.act_present = A("Presentation mode", self.toggle_presentation, "F11", checkable=True,
                             tip="Large points and fonts, full screen")
        self.act_controls = A("Show controls", self._toggle_dock, "F9", checkable=True)
        self.act_controls.setChecked(True)
        self.act_regions = A("Decision regions", self._toggle_view, "Shift+R", checkable=True)
        self.act_regions.setChecked(True)
        self.act_ellipses = A("Covariance ellipses", self._toggle_view, "E", checkable=True)
        self.act_ellipses.setChecked(True)
        self.act_exemplars = A("Exemplar lines", self._toggle_view, "X", checkable=True)
        self.act_exemplars.setChecked(True)
        self.act_legend = A("Legend", self._toggle_view, "L", checkable=True)
        self.act_add_pane = A("Add pane for comparison", lambda: self.add_pane(), "P")
        self.act_fit = A("Show all data", self._fit_views, "0")
        self.act_plugins = A("Plugins...", self.show_plugins)
        self.act_keys = A("Keyboard shortcuts...", self.show_shortcuts, "F1")
        self.act_about = A("About the algorithms...", self.show_algorithms)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        m = bar.addMenu("&File")
        for a in (self.act_new, self.act_open, self.act_save, self.act_save_as, None,
                  self.act_export, self.act_export_gif, self.act_export_frames, None, self.act_quit):
            m.addSeparator() if a is None else m.addAction(a)
        m = bar.addMenu("&Edit")
        m.addAction(self.act_undo)
        m.addSeparator()
        for a in self.tool_actions.values():
            m.addAction(a)
        m.addSeparator()
        for a in (self.act_random, self.act_clear, self.act_clear_means):
            m.addAction(a)
        m = bar.addMenu("&Run")
        for a in (self.act_play, self.act_step, self.act_back, self.act_reset, self.act_end,
                  self.act_cancel, None, self.act_faster, self.act_slower, None, self.act_add_pane):
            m.addSeparator() if a is None else m.addAction(a)
        m = bar.addMenu("&View")
        for a in (self.act_regions, self.act_ellipses, self.act_exemplars, self.act_legend,
                  self.act_fit, None,
                  self.act_controls, self.act_present):
            m.addSeparator() if a is None else m.addAction(a)
        m = bar.addMenu("&Help")
        for a in (self.act_keys, self.act_about, self.act_plugins):
            m.addAction(a)

    def _build_central(self) -> None:
        central = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 4)
        self.banner = Banner()
        layout.addWidget(self.banner)
        self.panes_area = QtWidgets.QWidget()
        self.panes_layout = QtWidgets.QGridLayout(self.panes_area)
        self.panes_layout.setContentsMargins(0, 0, 0, 0)
        self.panes_layout.setSpacing(6)
        layout.addWidget(self.panes_area, 1)
        layout.addWidget(self._build_transport())
        self.setCentralWidget(central)
        self.status = self.statusBar()

    def _tool_button(self, action: QtGui.QAction, text: str) -> QtWidgets.QToolButton:
        button = QtWidgets.QToolButton()
        button.setDefaultAction(action)
        button.setText(text)
        button.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        button.setMinimumWidth(38)
        return button

    def _build_transport(self) -> QtWidgets.QWidget:
        bar = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(bar)
        row.setContentsMargins(0, 2, 0, 0)
        sp = QtWidgets.QStyle.StandardPixmap
        self.transport_buttons: list[QtWidgets.QToolButton] = []
        icons = {self.act_reset: sp.SP_MediaSkipBackward, self.act_back: sp.SP_MediaSeekBackward,
                 self.act_play: sp.SP_MediaPlay, self.act_step: sp.SP_MediaSeekForward,
                 self.act_end: sp.SP_MediaSkipForward}
        for action, text in ((self.act_reset, "Reset"), (self.act_back, "Back"),
                             (self.act_play, "Play"), (self.act_step, "Step"),
                             (self.act_end, "Run to end")):
            action.setIcon(self.style().standardIcon(icons[action]))
            button = self._tool_button(action, text)
            button.setToolTip(action.toolTip())
            self.transport_buttons.append(button)
            row.addWidget(button)
            if action is self.act_play:
                self.play_button = button
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setObjectName("iteration_slider")
        self.slider.setRange(0, 0)
        self.slider.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.slider.setMinimumWidth(60)
        self.slider.valueChanged.connect(self._slider_moved)
        row.addWidget(self.slider, 1)
        self.iteration_label = QtWidgets.QLabel("iteration 0")
        self.iteration_label.setMinimumWidth(120)
        row.addWidget(self.iteration_label)
        row.addWidget(QtWidgets.QLabel("speed"))
        self.speed = QtWidgets.QSpinBox()
        self.speed.setRange(1, 30)
        self.speed.setValue(4)
        self.speed.setSuffix(" it/s")
        self.speed.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        self.speed.valueChanged.connect(self._speed_changed)
        row.addWidget(self.speed)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.progress.hide()
        row.addWidget(self.progress)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        row.addWidget(self.cancel_button)
        return bar

    def _build_dock(self) -> None:
        self.dock = QtWidgets.QDockWidget("Controls", self)
        self.dock.setObjectName("controls")
        self.dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QtWidgets.QWidget()
        self.dock_layout = QtWidgets.QVBoxLayout(body)
        # data
        box = QtWidgets.QGroupBox("Data")
        lay = QtWidgets.QVBoxLayout(box)
        self.dataset_combo = QtWidgets.QComboBox()
        self.dataset_combo.setObjectName("dataset")
        self.dataset_combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        for entry in self.lab.registry.entries("datasets"):
            self.dataset_combo.addItem(f"{entry.obj.title or entry.name}  ({entry.name})", entry.name)
        self.dataset_combo.currentIndexChanged.connect(self._dataset_chosen)
        lay.addWidget(self.dataset_combo)
        self.dataset_form_holder = QtWidgets.QVBoxLayout()
        lay.addLayout(self.dataset_form_holder)
        self.dataset_form: ParamForm | None = None
        seeds = QtWidgets.QFormLayout()
        self.data_seed = QtWidgets.QSpinBox()
        self.data_seed.setRange(0, 2**31 - 1)
        self.data_seed.setKeyboardTracking(False)
        self.data_seed.valueChanged.connect(self._dataset_params_changed)
        seeds.addRow("data seed", self.data_seed)
        self.run_seed = QtWidgets.QSpinBox()
        self.run_seed.setRange(0, 2**31 - 1)
        self.run_seed.setKeyboardTracking(False)
        self.run_seed.setToolTip("Seed of the algorithms' random choices (shared by all panes)")
        self.run_seed.valueChanged.connect(self._run_seed_changed)
        seeds.addRow("algorithm seed", self.run_seed)
        lay.addLayout(seeds)
        self.dock_layout.addWidget(box)
        # panes
        self.panes_box = QtWidgets.QGroupBox("Algorithms")
        self.panes_box_layout = QtWidgets.QVBoxLayout(self.panes_box)
        self.add_pane_button = QtWidgets.QPushButton("+ Add pane for comparison")
        self.add_pane_button.clicked.connect(lambda: self.add_pane())
        self.panes_box_layout.addWidget(self.add_pane_button)
        self.dock_layout.addWidget(self.panes_box)
        # links
        box = QtWidgets.QGroupBox("Links")
        lay = QtWidgets.QVBoxLayout(box)
        tools = QtWidgets.QGridLayout()
        for k, (name, text) in enumerate((("select", "Select (S)"), ("must", "Must-link (M)"),
                                          ("cannot", "Cannot-link (C)"),
                                          ("delete", "Delete (D)"), ("means", "Means (I)"))):
            button = QtWidgets.QToolButton()
            button.setDefaultAction(self.tool_actions[name])
            button.setText(text)
            button.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
            button.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding,
                                 QtWidgets.QSizePolicy.Policy.Fixed)
            tools.addWidget(button, k // 2, k % 2)
        lay.addLayout(tools)
        rand = QtWidgets.QHBoxLayout()
        self.n_must = QtWidgets.QSpinBox()
        self.n_must.setRange(0, 100000)
        self.n_must.setValue(5)
        self.n_must.setPrefix("ML ")
        self.n_cannot = QtWidgets.QSpinBox()
        self.n_cannot.setRange(0, 100000)
        self.n_cannot.setValue(5)
        self.n_cannot.setPrefix("CL ")
        add = QtWidgets.QPushButton("Add random")
        add.setToolTip("Draw random links from the ground-truth classes (R)")
        add.clicked.connect(self.add_random_links)
        rand.addWidget(self.n_must)
        rand.addWidget(self.n_cannot)
        rand.addWidget(add)
        lay.addLayout(rand)
        noise = QtWidgets.QHBoxLayout()
        noise.addWidget(QtWidgets.QLabel("noise"))
        self.noise = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.noise.setObjectName("noise")
        self.noise.setRange(0, 50)
        self.noise.setToolTip("Flip this percentage of the links (noisy teachers)")
        self.noise.valueChanged.connect(self._noise_label)
        self.noise.sliderReleased.connect(self._noise_changed)
        self.noise.setTracking(False)
        self.noise.valueChanged.connect(self._noise_changed)
        noise.addWidget(self.noise, 1)
        self.noise_text = QtWidgets.QLabel("0 %")
        self.noise_text.setMinimumWidth(40)
        noise.addWidget(self.noise_text)
        lay.addLayout(noise)
        row = QtWidgets.QHBoxLayout()
        for action, text in ((self.act_undo, "Undo"), (self.act_clear, "Clear links"),
                             (self.act_clear_means, "Clear means")):
            button = QtWidgets.QToolButton()
            button.setDefaultAction(action)
            button.setText(text)
            button.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
            row.addWidget(button)
        lay.addLayout(row)
        self.links_label = QtWidgets.QLabel()
        self.links_label.setWordWrap(True)
        lay.addWidget(self.links_label)
        self.dock_layout.addWidget(box)
        self.dock_layout.addStretch(1)
        scroll.setWidget(body)
        scroll.setMinimumWidth(360)
        self.dock.setWidget(scroll)
        self.addDockWidget(QtCore.Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        self._sync_dataset_form()

    # == keeping widgets in step with the lab ==================================================
    def _sync_dataset_form(self) -> None:
        spec = self.lab.registry.dataset(self.lab.dataset_name)
        self.dataset_combo.blockSignals(True)
        self.dataset_combo.setCurrentIndex(max(0, self.dataset_combo.findData(spec.name)))
        self.dataset_combo.blockSignals(False)
        if self.dataset_form is not None:
            self.dataset_form_holder.removeWidget(self.dataset_form)
            self.dataset_form.hide()
            self.dataset_form.setParent(None)
            self.dataset_form.deleteLater()
        self.dataset_form = ParamForm(spec.params, self.lab.dataset_params)
        self.dataset_form.changed.connect(self._dataset_params_changed)
        self.dataset_form_holder.addWidget(self.dataset_form)
        for box, value in ((self.data_seed, self.lab.dataset_seed), (self.run_seed, self.lab.seed)):
            box.blockSignals(True)
            box.setValue(int(value) if value is not None else 0)
            box.blockSignals(False)
        self.noise.blockSignals(True)
        self.noise.setValue(round(self.lab.noise * 100))
        self.noise.blockSignals(False)
        self._noise_label(self.noise.value())

    def _sync_panes(self) -> None:
        """Create or drop pane views and configs to match ``lab.panes``."""
        algorithms = [e.obj for e in self.lab.registry.entries("algorithms")]
        for cfg in self.pane_configs:
            self.panes_box_layout.removeWidget(cfg)
            cfg.hide()
            cfg.setParent(None)
            cfg.deleteLater()
        self.pane_configs = []
        for k, pane in enumerate(self.lab.panes):
            cfg = PaneConfig(k + 1, algorithms, pane.algorithm, pane.params)
            cfg.algorithm_changed.connect(partial(self._pane_algorithm_changed, k))
            cfg.params_changed.connect(partial(self._pane_params_changed, k))
            cfg.remove_requested.connect(partial(self.remove_pane, k))
            cfg.remove.setEnabled(len(self.lab.panes) > 1)
            self.panes_box_layout.insertWidget(k, cfg)
            self.pane_configs.append(cfg)
        while len(self.pane_views) > len(self.lab.panes):
            view = self.pane_views.pop()
            self.panes_layout.removeWidget(view)
            view.hide()
            view.setParent(None)
            view.deleteLater()
        while len(self.pane_views) < len(self.lab.panes):
            view = PaneView(self.canvas_style)
            view.set_style(self.canvas_style)  # a pane added in presentation mode is big too
            view.canvas.clicked.connect(self._canvas_clicked)
            view.canvas.layers.vb.sigRangeChangedManually.connect(
                partial(self._zoomed, view.canvas.layers.vb))
            view.canvas.layers.vb.sigRangeChanged.connect(self._region_timer.start)
            self.pane_views.append(view)
        n = len(self.pane_views)
        ncols = n if n <= 3 else (2 if n == 4 else 3)
        for c in range(3):
            self.panes_layout.setColumnStretch(c, 1 if c < ncols else 0)
        for k, view in enumerate(self.pane_views):
            self.panes_layout.addWidget(view, k // ncols, k % ncols)
        self._toggle_view()
        self._fit_views()

    def _fit_views(self) -> None:
        """Show all the data in every pane."""
        if self.lab.dataset is None:
            return
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
            self.refresh()

    def _apply_view_options(self, view: PaneView) -> None:
        layers = view.canvas.layers
        layers.show_regions = self.show_regions
        layers.show_ellipses = self.show_ellipses
        layers.show_exemplars = self.show_exemplars
        legend = self.show_legend and view is self.pane_views[-1]  # one key is enough
        if legend and layers.legend is None:
            layers.add_legend()
        if layers.legend is not None:
            layers.legend.setVisible(legend)

    def view_options(self) -> dict[str, Any]:
        return {"decision_regions": self.show_regions, "ellipses": self.show_ellipses,
                "exemplars": self.show_exemplars, "legend": self.show_legend,
                "speed": self.speed.value()}

    def _set_view_options(self, options: dict[str, Any]) -> None:
        for key, action in (("decision_regions", self.act_regions), ("ellipses", self.act_ellipses),
                            ("exemplars", self.act_exemplars), ("legend", self.act_legend)):
            if key in options:
                action.setChecked(bool(options[key]))
        if "speed" in options:
            self.speed.setValue(int(options["speed"]))
        self._toggle_view()

    # == background work =======================================================================
    def rebuild(self) -> None:
        """Build the runs of panes that need one, on the worker thread."""
        for pane in self.lab.pending():
            generation, epoch = pane.generation, self.lab.epoch
            self.executor.submit(
                lambda job, p=pane: self.lab.build_run(p), label=f"starting {pane.name}",
                on_done=partial(self._built, pane, generation, epoch),
                on_error=partial(self._built, pane, generation, epoch, None), cancellable=False)
        self.refresh()

    def _current(self, pane: Pane, generation: int) -> bool:
        return pane in self.lab.panes and pane.generation == generation

    def _built(self, pane: Pane, generation: int, epoch: int, run: Any,
               error: BaseException | None = None) -> None:
        if not self._current(pane, generation):
            return
        self.lab.attach(pane, run, error)
        if not self.lab.pending() and self._target is not None and self.lab.epoch == epoch:
            target, self._target = self._target, None
            self._compute(target, then_seek=target)
        self.refresh()
        self._report_errors()

    def _compute(self, t: int | None, *, then_seek: int | None = None, label: str = "") -> bool:
        """Compute the panes up to iteration ``t`` (None: to the end) in the background."""
        panes = self.lab.needs_compute(10**9 if t is None else t)
        if not panes:
            if then_seek is not None:  # -1: the last stored iteration ("Run to end" when done)
                self.lab.seek(min(then_seek, self.lab.max_index) if then_seek >= 0
                              else self.lab.max_index)
                self.refresh()
            return False
        epoch = self.lab.epoch
        generations = [(p, p.generation) for p in panes]

        def work(job: Any) -> None:
            self.lab.compute_to(t, panes, cancelled=job.cancelled, progress=job.progress)

        def done(_result: Any, error: BaseException | None = None) -> None:
            if error is not None:
                self.banner.show_message(f"Unexpected error: {type(error).__name__}: {error}")
            if self.lab.epoch != epoch or not all(self._current(p, g) for p, g in generations):
                self.rebuild()
                return
            if then_seek is not None:
                self.lab.seek(min(then_seek, self.lab.max_index) if then_seek >= 0
                              else self.lab.max_index)
            self.refresh()
            self._report_errors()

        self.executor.submit(work, label=label or "computing", on_done=done,
                             on_error=partial(done, None))
        return True

    def _busy_changed(self, busy: bool) -> None:
        if busy:
            self._busy_timer.start()
        else:
            self._busy_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()
            if self.status.currentMessage().endswith("(Esc cancels)"):
                self.status.clearMessage()
            self._update_controls()
            if self._step_when_idle:
                self._step_when_idle = False
                QtCore.QTimer.singleShot(0, self.step_forward)

    def _show_busy(self) -> None:
        if not self.executor.busy:
            return
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        job = self.executor.current
        self.status.showMessage((job.label if job else "working") + "...  (Esc cancels)")

    def _progress(self, label: str, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{label} {done}/{total}")

    def cancel(self) -> None:
        self._step_when_idle = False
        if self.executor.busy:
            self.executor.cancel()
            self.status.showMessage("Cancelling after the current iteration...", 4000)
        elif self.pending_point is not None:
            self.pending_point = None
            self.refresh()
        self.pause()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Process events until no background work is left (for scripts and tests)."""
        return self.executor.wait_idle(timeout)

    def _report_errors(self) -> None:
        errors = [p.error for p in self.lab.panes if p.error]
        new = [e for e in errors if e not in self._known_errors]
        self._known_errors = set(errors)
        if new:
            self.pause()
            self.banner.show_message("<br>".join(html_escape(e) for e in new))
            self.status.showMessage(new[-1], 10000)

    # == navigation ============================================================================
    def step_forward(self) -> bool:
        """One iteration forward in every pane; False when every pane is at its end."""
        if self.executor.busy:
            if not self.playing:
                self._step_when_idle = True  # a key press during a rebuild is not lost
            return True
        t = self.lab.iteration + 1
        if self.lab.needs_compute(t):
            return self._compute(t, then_seek=t, label="computing") or True
        if t <= self.lab.max_index:
            self.lab.seek(t)
            self.refresh()
            return True
        return False

    def step_back(self) -> None:
        if self.executor.busy or self.lab.iteration == 0:
            return
        self.lab.seek(min(self.lab.iteration, self.lab.max_index) - 1)
        self.refresh()

    def reset(self) -> None:
        self.pause()
        if not self.executor.busy:
            self.lab.seek(0)
            self.refresh()

    def seek(self, t: int) -> None:
        """Show iteration ``t`` (computing it first when it is not stored yet)."""
        if self.executor.busy:
            return
        if self.lab.needs_compute(t):
            self._compute(t, then_seek=t)
        else:
            self.lab.seek(min(t, self.lab.max_index))
            self.refresh()

    def run_to_end(self) -> None:
        self.pause()
        if not self.executor.busy:
            self._compute(None, then_seek=-1, label="running to convergence")

    def play_to(self, t: int) -> None:
        """Compute and show iteration ``t`` (``pairlab gui --play N``)."""
        if self.lab.pending():
            self._target = t
        else:
            self._compute(t, then_seek=t)

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def play(self) -> None:
        if self.playing:
            return
        if self.lab.at_end() and not self.lab.pending():
            self.lab.seek(0)
        self.playing = True
        self.act_play.setText("Pause")
        self.act_play.setIcon(self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MediaPause))
        self._speed_changed(self.speed.value())
        self.timer.start()

    def pause(self) -> None:
        if not self.playing:
            return
        self.playing = False
        self.timer.stop()
        self.act_play.setText("Play")
        self.act_play.setIcon(self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MediaPlay))
        self.refresh()

    def _tick(self) -> None:
        if self.executor.busy or self.lab.pending():
            return
        if not self.step_forward():
            self.pause()
            finished = [p.status() for p in self.lab.panes]
            self.status.showMessage("Finished: " + "; ".join(finished), 8000)

    def _speed_changed(self, value: int) -> None:
        self.timer.setInterval(int(1000 / max(value, 1)))

    def _slider_moved(self, value: int) -> None:
        if value != self.lab.iteration:
            self.seek(value)

    # == editing the setup =====================================================================
    def _setup_changed(self) -> None:
        """Data, links, means, seed or panes changed: runs restart from iteration 0."""
        self.pause()
        self.rebuild()
        self.schedule_autosave()

    def _guard(self, fn: Any, *args: Any) -> Any:
        """Call ``fn``; a PairlabError becomes a message in the banner and ``_ERROR`` is returned."""
        try:
            return fn(*args)
        except PairlabError as exc:
            self.banner.show_message(html_escape(str(exc)))
            return _ERROR

    def _dataset_chosen(self) -> None:
        name = self.dataset_combo.currentData()
        if name and name != self.lab.dataset_name:
            if self._guard(self.lab.set_dataset, name, None, self.data_seed.value()) is not _ERROR:
                self._sync_dataset_form()
                self._fit_views()
                self._setup_changed()

    def _dataset_params_changed(self, *args: Any) -> None:
        if self.dataset_form is None:
            return
        values = self.dataset_form.values()
        if self.dataset_form.errors:
            return
        if self._guard(self.lab.set_dataset, self.lab.dataset_name, values,
                       self.data_seed.value()) is not _ERROR:
            self._fit_views()
            self._setup_changed()

    def _run_seed_changed(self, value: int) -> None:
        self.lab.set_seed(value)
        self._setup_changed()

    def _pane_algorithm_changed(self, index: int, name: str) -> None:
        if self._guard(self.lab.set_pane_algorithm, index, name) is not _ERROR:
            pane = self.lab.panes[index]
            self.pane_configs[index].set_algorithm(pane.algorithm, pane.params)
            self._setup_changed()

    def _pane_params_changed(self, index: int, values: dict) -> None:
        if self._guard(self.lab.set_pane_params, index, values) is not _ERROR:
            self._setup_changed()

    def add_pane(self, algorithm: str | None = None, params: dict | None = None) -> None:
        """Add a pane; by default the algorithm a first pane is most often compared with."""
        if algorithm is None:
            names = self.lab.algorithm_names()
            used = {p.name for p in self.lab.panes}
            preferred = [n for n in ("gmm", "gmpr", "kmeans") if n in names and n not in used]
            algorithm = preferred[0] if preferred else self.lab.panes[-1].name
        if self._guard(self.lab.add_pane, algorithm, params) is not _ERROR:
            self._sync_panes()
            self._setup_changed()

    def remove_pane(self, index: int) -> None:
        if self._guard(self.lab.remove_pane, index) is not _ERROR:
            self._sync_panes()
            self._setup_changed()

    def add_random_links(self) -> None:
        added = self._guard(self.lab.add_random_links, self.n_must.value(), self.n_cannot.value())
        if added is not _ERROR:
            self.status.showMessage(f"Added {added[0]} must-links and {added[1]} cannot-links "
                                    "from the ground truth.", 5000)
            self._setup_changed()

    def clear_links(self) -> None:
        self.lab.clear_links()
        self.pending_point = None
        self._setup_changed()

    def clear_means(self) -> None:
        self.lab.clear_init_means()
        self._setup_changed()

    def undo(self) -> None:
        if self.lab.undo():
            self._setup_changed()
        else:
            self.status.showMessage("Nothing to undo.", 3000)

    def _noise_label(self, value: int) -> None:
        self.noise_text.setText(f"{value} %")

    def _noise_changed(self, *args: Any) -> None:
        value = self.noise.value() / 100
        if abs(value - self.lab.noise) > 1e-12:
            self.lab.set_noise(value)
            self._setup_changed()

    def set_noise(self, fraction: float) -> None:
        self.noise.setValue(round(fraction * 100))
        self._noise_changed()

    # == tools and clicks ======================================================================
    def set_tool(self, name: str) -> None:
        if name not in TOOLS:
            raise ValueError(f"tool must be one of {TOOLS}, got {name!r}")
        if name == "means" and not self.lab.accepts_means:
            self.status.showMessage("None of the algorithms shown accepts initial means.", 5000)
        self.tool = name
        self.pending_point = None
        self.tool_actions[name].setChecked(True)
        cursor = (QtCore.Qt.CursorShape.ArrowCursor if name == "select"
                  else QtCore.Qt.CursorShape.CrossCursor)
        for view in self.pane_views:
            view.canvas.viewport().setCursor(cursor)
        self.status.showMessage(_TOOL_HINTS[name])
        self.refresh()

    def _canvas_clicked(self, x: float, y: float, px: float, py: float, modifiers: Any) -> None:
        lab = self.lab
        if lab.dataset is None:
            return
        if self.tool in ("must", "cannot"):
            i = lab.point_at(x, y, px, py, HIT_RADIUS)
            if i is None:
                self.status.showMessage("Click closer to a point.", 3000)
                return
            if self.pending_point is None or self.pending_point == i:
                self.pending_point = None if self.pending_point == i else i
                if self.pending_point is not None:
                    self.status.showMessage(f"Point {i} selected; click the second point "
                                            "(Esc cancels).")
                self.refresh()
                return
            first, self.pending_point = self.pending_point, None
            if lab.add_link(self.tool, first, i):
                kind = "must-link" if self.tool == "must" else "cannot-link"
                self.status.showMessage(f"Added a {kind} between points {first} and {i}.", 4000)
                self._setup_changed()
            else:
                self.refresh()
        elif self.tool == "delete":
            pair = lab.link_at(x, y, px, py, HIT_RADIUS)
            if pair is None:
                self.status.showMessage("Click on a link to delete it.", 3000)
                return
            lab.remove_link(*pair)
            self.status.showMessage(f"Removed the link between points {pair[0]} and {pair[1]}.", 4000)
            self._setup_changed()
        elif self.tool == "means":
            lab.add_init_mean(x, y)
            n = 0 if lab.init_means is None else len(lab.init_means)
            self.status.showMessage(f"{n} initial mean(s) placed; the panes restart from them.", 5000)
            self._setup_changed()
        else:
            i = lab.point_at(x, y, px, py, HIT_RADIUS)
            if i is not None:
                self.status.showMessage(self._describe_point(i), 8000)

    def _describe_point(self, i: int) -> str:
        lab = self.lab
        assert lab.dataset is not None
        parts = [f"point {i}"]
        if lab.dataset.y is not None:
            parts.append(f"true class {int(lab.dataset.y[i])}")
        for pane in lab.panes:
            state = lab.state(pane)
            if state is None:
                continue
            text = f"{pane.name}: label {int(state.labels[i])}"
            if state.responsibilities is not None:
                text += f" (p = {float(state.responsibilities[i].max()):.2f})"
            parts.append(text)
        return ";  ".join(parts)

    # == drawing ===============================================================================
    def refresh(self) -> None:
        """Draw every pane at the lab's cursor and update the controls."""
        lab = self.lab
        if lab.dataset is None:
            return
        titles = lab.metric_titles()
        for view, pane in zip(self.pane_views, lab.panes, strict=False):
            frame = lab.frame(pane, regions=self.show_regions, previous=view.frame)
            view.frame = frame
            view.canvas.layers.show(frame)
            view.canvas.layers.set_selection(
                None if self.pending_point is None else lab.dataset.view[[self.pending_point]])
            state = lab.state(pane)
            if pane.run is not None and state is not None:
                view.objective.show_values(pane.run.objectives, pane.run.index, state.objective_name,
                                           font_size=self.canvas_style.font_size - 1)
            else:  # no run (stopped while starting, or being rebuilt): no stale curve
                view.objective.clear_values()
            view.header.setText(self._header(pane))
            view.metrics.setText(self._metrics_text(lab.metrics(pane), titles))
        self._update_controls()
        self.schedule_autosave()

    def _header(self, pane: Pane) -> str:
        size = self.canvas_style.title_size + 1
        status = pane.status()
        colour = "#b00020" if pane.error else ("#0a7d32" if "converged" in status else "#555")
        return (f"<span style='font-size:{size}pt'><b>{html_escape(pane.title)}</b></span>"
                f"&nbsp;&nbsp;<span style='color:{colour}'>{html_escape(status)}</span>")

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

    def _update_controls(self) -> None:
        lab = self.lab
        busy = self.executor.busy
        top = max(lab.max_index, 0)  # -1 while no pane has a run (all stopped while starting)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(top, 0))
        self.slider.setValue(min(lab.iteration, top))
        self.slider.blockSignals(False)
        shown = min(lab.iteration, top)
        finished = all(p.finished for p in lab.panes)
        self.iteration_label.setText(f"iteration {shown} / {top}" + ("" if finished else "+"))
        self.act_back.setEnabled(shown > 0)
        self.act_reset.setEnabled(shown > 0)
        self.act_step.setEnabled(lab.can_advance() or busy)
        self.act_end.setEnabled(not finished or shown < top)  # End also jumps to the last state
        c = lab.constraints
        text = f"{c.n_must_link} must-links, {c.n_cannot_link} cannot-links"
        if lab.noise > 0:
            text += f" ({lab.noise:.0%} flipped)"
        if not c.is_consistent:
            text += f"; {len(c.conflicts)} contradiction(s)"
        if lab.init_means is not None:
            text += f"; {len(lab.init_means)} initial mean(s) placed"
        self.links_label.setText(text)
        self.act_clear_means.setEnabled(lab.init_means is not None)
        self.tool_actions["means"].setEnabled(lab.accepts_means)
        name = self.session_path.name if self.session_path else "untitled"
        self.setWindowTitle(f"pairlab — {lab.dataset_name} — {name}")

    # == view options ==========================================================================
    def _toggle_view(self, *args: Any) -> None:
        self.show_regions = self.act_regions.isChecked()
        self.show_ellipses = self.act_ellipses.isChecked()
        self.show_exemplars = self.act_exemplars.isChecked()
        self.show_legend = self.act_legend.isChecked()
        for view in self.pane_views:
            self._apply_view_options(view)
            view.frame = None
        self.refresh()

    def _toggle_dock(self) -> None:
        self.dock.setVisible(self.act_controls.isChecked())

    def toggle_presentation(self, *args: Any, on: bool | None = None) -> None:
        on = (not self.presenting) if on is None else on
        self.presenting = on
        self.act_present.setChecked(on)
        self.canvas_style = Style.presentation() if on else self.style_normal
        font = QtGui.QFont(self.font())
        font.setPointSize(15 if on else QtWidgets.QApplication.font().pointSize())
        self.centralWidget().setFont(font)
        self.status.setFont(font)
        # big icons without text leave the iteration slider room on a 1280x720 projector
        style = (QtCore.Qt.ToolButtonStyle.ToolButtonIconOnly if on
                 else QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for button in self.transport_buttons:
            button.setToolButtonStyle(style)
            button.setIconSize(QtCore.QSize(28, 28) if on else QtCore.QSize(16, 16))
        self.slider.setMinimumWidth(160 if on else 60)  # never squeezed away by big fonts
        for view in self.pane_views:
            view.set_style(self.canvas_style)
        self.act_controls.setChecked(not on)
        self._toggle_dock()
        if on:
            self.showFullScreen()
        else:
            self.showNormal()
        self.refresh()

    # == dialogs ===============================================================================
    def _show_dialog(self, dialog: QtWidgets.QDialog) -> QtWidgets.QDialog:
        self._dialogs = [d for d in self._dialogs if d.isVisible()] + [dialog]
        dialog.show()
        return dialog

    def show_plugins(self) -> QtWidgets.QDialog:
        return self._show_dialog(text_dialog(self, "Plugins", plugins_report(self.lab.registry)))

    def show_shortcuts(self) -> QtWidgets.QDialog:
        rows = []
        for action in self.actions():
            key = action.shortcut().toString(QtGui.QKeySequence.SequenceFormat.NativeText)
            if key:
                rows.append(f"<tr><td><b>{html_escape(key)}</b></td>"
                            f"<td>{html_escape(action.text())}</td></tr>")
        body = ("<h3>Keyboard shortcuts</h3><table cellpadding='3'>" + "".join(rows) + "</table>"
                "<p>Mouse: left-drag pans, right-drag or wheel zooms, click with a link tool to "
                "link two points.</p>")
        return self._show_dialog(text_dialog(self, "Keyboard shortcuts", body, (520, 620)))

    def show_algorithms(self) -> QtWidgets.QDialog:
        parts = ["<h3>Algorithms</h3>"]
        for entry in self.lab.registry.entries("algorithms"):
            cls = entry.obj
            doc = (cls.__doc__ or "").strip().split("\n\n")[0]
            extras = []
            if cls.can_predict():
                extras.append("classifies unseen points (decision regions)")
            if cls.accepts_means_init:
                extras.append("accepts initial means")
            if not cls.uses_constraints:
                extras.append("ignores links (baseline)")
            parts.append(f"<p><b>{html_escape(cls.title or cls.name)}</b> ({cls.name}, plugin "
                         f"{html_escape(entry.plugin.name)})<br><i>{html_escape(cls.citation)}</i>"
                         f"<br>{html_escape(doc)}<br><small>{'; '.join(extras)}</small></p>")
        return self._show_dialog(text_dialog(self, "Algorithms", "".join(parts)))

    def _file_dialog(self, save: bool, title: str, filters: str, suffix: str) -> Path | None:
        start = str(self.session_path.parent if self.session_path else Path.cwd())
        if save:
            name, _ = QtWidgets.QFileDialog.getSaveFileName(self, title, start, filters)
        else:
            name, _ = QtWidgets.QFileDialog.getOpenFileName(self, title, start, filters)
        if not name:
            return None
        path = Path(name)
        if save and not path.suffix:
            path = path.with_suffix(suffix)
        return path

    # == sessions ==============================================================================
    def save_session(self, path: str | os.PathLike[str]) -> Path:
        path = Path(path)
        save_session(self.lab, path, view=self.view_options())
        self.session_path = path
        self.status.showMessage(f"Saved {path}", 4000)
        self._update_controls()
        return path

    def save_session_dialog(self, save_as: bool = False) -> None:
        path = self.session_path
        if save_as or path is None:
            path = self._file_dialog(True, "Save session", "pairlab sessions (*.json)", ".json")
        if path is not None:
            self._guard(self.save_session, path)

    def open_session(self, path: str | os.PathLike[str]) -> bool:
        """Open a session file; False (with a message in the banner) when it cannot be used."""
        data = self._guard(read_session, path)
        if data is _ERROR:
            return False
        if not self._load(data):
            return False
        self.session_path = Path(path)
        self._update_controls()
        return True

    def _load(self, data: dict) -> bool:
        self.pause()
        self.executor.cancel()
        result = self._guard(apply_session, self.lab, data)
        if result is _ERROR:
            self._sync_dataset_form()
            self._sync_panes()
            self.rebuild()
            return False
        self.pending_point = None
        self._known_errors.clear()
        self._sync_dataset_form()
        self._sync_panes()
        self._set_view_options(result["view"])
        self._target = result["iteration"] or None
        self.rebuild()
        return True

    def open_session_dialog(self) -> None:
        path = self._file_dialog(False, "Open session", "pairlab sessions (*.json)", ".json")
        if path is not None:
            self.open_session(path)

    def new_session(self) -> None:
        self.pause()
        self.executor.cancel()
        fresh = default_lab(self.lab.registry)
        self.lab.__dict__.update(fresh.__dict__)
        self.session_path = None
        self._sync_dataset_form()
        self._sync_panes()
        self.rebuild()

    def schedule_autosave(self) -> None:
        if self.autosave_enabled:
            self.autosave_timer.start()

    def autosave(self, clean: bool = False) -> Path | None:
        if not self.autosave_enabled or self.lab.dataset is None:
            return None
        try:
            return write_autosave(self.lab, view=self.view_options(), clean=clean)
        except OSError as exc:
            self.status.showMessage(f"Autosave failed: {exc}", 8000)
            return None

    def _offer_restore(self) -> None:
        data = read_autosave()
        if data is None or data.get("clean_exit", True):
            return
        self.banner.show_message(
            "The previous session ended unexpectedly. Restore it?", "info",
            [("Restore", partial(self._load, data))])

    # == export ================================================================================
    def export_view(self, path: str | os.PathLike[str], scale: float = 1.0) -> Any:
        from .export import export_view

        if self.executor.busy:
            self.wait_idle()
        return export_view(self.lab, path, regions=self.show_regions, style=self.canvas_style,
                           view_range=self._view_range(), scale=scale)

    def _view_range(self) -> tuple[float, float, float, float] | None:
        if not self.pane_views:
            return None
        (x0, x1), (y0, y1) = self.pane_views[0].canvas.layers.vb.viewRange()
        return (x0, y0, x1 - x0, y1 - y0)

    def export_view_dialog(self) -> None:
        path = self._file_dialog(True, "Export view", "PNG image (*.png);;SVG drawing (*.svg)",
                                 ".png")
        if path is not None and self._guard(self.export_view, path, 2.0) is not _ERROR:
            self.status.showMessage(f"Exported {path}", 5000)

    def export_animation(self, path: str | os.PathLike[str], kind: str = "gif") -> Path | None:
        """Compute every pane to its end, then write all iterations as a GIF or PNG frames."""
        from .export import export_animation

        if self.executor.busy:
            self.wait_idle()
        if any(not p.finished for p in self.lab.panes):
            self._compute(None, label="running to convergence")
            if not self.wait_idle(timeout=600):
                return None
        self.progress.setRange(0, self.lab.max_index + 1)
        self.progress.show()
        self.dock.setEnabled(False)  # no edits while the frames are drawn
        self.panes_area.setEnabled(False)

        def progress(done: int, total: int) -> None:
            self.progress.setValue(done)
            self.progress.setFormat(f"exporting {done}/{total}")
            QtWidgets.QApplication.processEvents()

        try:
            out = self._guard(partial(export_animation, self.lab, path, kind=kind,
                                      fps=self.speed.value(), regions=self.show_regions,
                                      style=self.canvas_style, view_range=self._view_range(),
                                      progress=progress))
            return None if out is _ERROR else out
        finally:
            self.dock.setEnabled(True)
            self.panes_area.setEnabled(True)
            self.progress.hide()
            self.refresh()

    def export_animation_dialog(self, kind: str) -> None:
        if kind == "gif":
            path = self._file_dialog(True, "Export run as GIF", "Animated GIF (*.gif)", ".gif")
        else:
            name = QtWidgets.QFileDialog.getExistingDirectory(self, "Folder for the PNG frames")
            path = Path(name) if name else None
        if path is not None and self.export_animation(path, kind) is not None:
            self.status.showMessage(f"Exported {path}", 5000)

    # == lifecycle =============================================================================
    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        QtCore.QTimer.singleShot(0, self._fit_views)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self.timer.stop()
        self.autosave_timer.stop()
        self.autosave(clean=True)
        self.executor.shutdown()
        super().closeEvent(event)


def html_escape(text: str) -> str:
    import html

    return html.escape(str(text))


def screen_fraction(window: QtWidgets.QWidget, fraction: float = 0.9) -> None:
    """Fit ``window`` into ``fraction`` of the available screen."""
    screen = window.screen() or QtWidgets.QApplication.primaryScreen()
    if screen is None:
        return
    geo = screen.availableGeometry()
    w = min(window.width(), int(geo.width() * fraction))
    h = min(window.height(), int(geo.height() * fraction))
    window.resize(w, h)
    if math.isfinite(w):
        window.move(geo.center() - window.rect().center())

