"""The main window of the teaching app (``pairlab gui``), composed of one controller per job.

The window is a thin view of a :class:`~pairlab.gui.model.Lab`. It lays out what its controllers
build and fans :meth:`MainWindow.refresh` out to them:

* :class:`~pairlab.gui.transport.Transport`: play, step, back, the slider, and the background
  computation on the worker thread (:class:`~pairlab.gui.worker.Executor`);
* :class:`~pairlab.gui.editing.Editing`: the link and means tools, random links, noise, undo;
* :class:`~pairlab.gui.setup_controls.SetupControls`: the data set, seeds and one box per pane;
* :class:`~pairlab.gui.files.Files`: sessions, file dialogs and the autosave;
* :class:`~pairlab.gui.presentation.Presentation`: the panes' views, display options,
  presentation mode and export;
* :class:`~pairlab.gui.help_menu.HelpMenu`: shortcuts, algorithms and plugin report;
* :class:`~pairlab.gui.explain_panel.ExplanationPanel`: the numbers behind the selected point.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..errors import PairlabError
from .controller import html_escape
from .dockfit import DockFitter
from .editing import Editing
from .explain_panel import ExplanationPanel
from .files import Files
from .help_menu import HelpMenu
from .model import Lab, default_lab
from .predict import PredictGame
from .presentation import Presentation
from .setup_controls import SetupControls
from .suggest import SuggestPair
from .transport import Transport
from .widgets import Banner
from .worker import Executor

__all__ = ["MainWindow", "default_lab"]


class MainWindow(QtWidgets.QMainWindow):
    """The teaching app.

    Methods a script or test drives directly: :meth:`play`, :meth:`pause`, :meth:`step_forward`,
    :meth:`step_back`, :meth:`reset`, :meth:`seek`, :meth:`run_to_end`, :meth:`play_to`,
    :meth:`set_tool`, :meth:`save_session`, :meth:`open_session`, :meth:`export_view`,
    :meth:`export_animation`, :meth:`wait_idle`; everything else through the controllers
    (``window.transport``, ``.editing``, ``.setup``, ``.files``, ``.presentation``, ``.help``,
    ``.explanation``).
    """

    ERROR = object()  # what :meth:`guard` returns when the call failed

    def __init__(self, lab: Lab | None = None, *, autosave: bool = True,
                 offer_restore: bool = False) -> None:
        super().__init__()
        self.lab = lab or default_lab()
        self.executor = Executor(self)
        app = QtWidgets.QApplication.instance()
        if app is not None:  # stop the worker thread even if the window is never closed
            app.aboutToQuit.connect(self.executor.shutdown)
        self._known_errors: set[str] = set()
        self.setWindowTitle("pairlab")
        self.resize(1440, 900)
        self.banner = Banner()
        self.panes_area = QtWidgets.QWidget()
        panes_layout = QtWidgets.QGridLayout(self.panes_area)
        panes_layout.setContentsMargins(0, 0, 0, 0)
        panes_layout.setSpacing(6)
        self.transport = Transport(self)
        self.editing = Editing(self)
        self.files = Files(self, autosave=autosave)
        self.presentation = Presentation(self, panes_layout)
        self.setup = SetupControls(self)
        self.help = HelpMenu(self)
        self.explanation = ExplanationPanel(self)
        self.predict = PredictGame(self)
        self._build_central()
        self._build_dock()
        self.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, self.explanation.dock)
        self.explanation.dock.hide()  # F3 (View menu) shows it; it must not widen a small window
        self.explanation_fit = DockFitter(self, self.explanation.dock)  # never cut on the right
        self._build_menus()
        self.suggest = SuggestPair(self)  # Ask menu: suggest a pair, answer it (issue 36)
        self.sync_dataset_form()
        self.sync_panes()
        self.set_tool("select")
        self.transport.rebuild()
        failures = self.lab.registry.failures
        if failures:
            names = ", ".join(p.name for p in failures)
            self.banner.show_message(
                f"{len(failures)} plugin(s) failed to load ({html_escape(names)}); everything else "
                "works. Help > Plugins shows why.", "info", [("Show", self.help.show_plugins)],
                source="plugins")
        if offer_restore:
            self.files.offer_restore()

    # == layout ================================================================================
    def _build_central(self) -> None:
        central = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 4)
        layout.addWidget(self.banner)
        layout.addWidget(self.panes_area, 1)
        layout.addWidget(self.transport.bar)
        self.setCentralWidget(central)
        self.status = self.statusBar()
        self.status.addPermanentWidget(self.predict.score_label)
        self.status.addPermanentWidget(self.transport.progress)
        self.status.addPermanentWidget(self.transport.cancel_button)

    def _build_dock(self) -> None:
        self.dock = QtWidgets.QDockWidget("Controls", self)
        self.dock.setObjectName("controls")
        self.dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(body)
        for box in (self.setup.data_box, self.setup.panes_box, self.editing.box):
            column.addWidget(box)
        column.addStretch(1)
        scroll.setWidget(body)
        scroll.setMinimumWidth(360)
        self.dock.setWidget(scroll)
        self.addDockWidget(QtCore.Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        for title, actions in (
                ("&File", [*self.files.menu_actions(), None, *self.presentation.export_actions(),
                           None, self.files.act_quit]),
                ("&Edit", self.editing.menu_actions()),
                ("&Run", [*self.transport.menu_actions(), None, self.setup.act_add_pane, None,
                          self.predict.act_predict]),
                ("&View", [*self.presentation.menu_actions(), self.explanation.act_panel]),
                ("&Lessons", self.files.lesson_actions),
                ("&Help", self.help.menu_actions())):
            menu = bar.addMenu(title)
            for action in actions:
                menu.addSeparator() if action is None else menu.addAction(action)

    # == keeping the controllers in step with the lab ==========================================
    def refresh(self) -> None:
        """Draw every pane at the lab's cursor and update the controls."""
        if self.lab.dataset is None:
            return
        self.presentation.draw()
        self.update_controls()
        self.explanation.update()
        self.predict.check()
        self.files.schedule_autosave()

    def update_controls(self) -> None:
        for controller in (self.transport, self.editing, self.files):
            controller.update()

    def sync_dataset_form(self) -> None:
        self.setup.sync_dataset_form()
        self.editing.sync()

    def sync_panes(self) -> None:
        """Create or drop pane configs and views to match ``lab.panes``."""
        self.setup.sync_configs()
        self.presentation.sync_views()

    def setup_changed(self) -> None:
        """Data, links, means, seed or panes changed: runs restart from iteration 0."""
        self.banner.clear("edit")  # an edit went through: the last refused one is history
        self.transport.pause()
        self.transport.rebuild()
        self.files.schedule_autosave()

    def guard(self, fn: Any, *args: Any) -> Any:
        """Call ``fn``; a PairlabError becomes a message in the banner and ``ERROR`` is returned."""
        try:
            return fn(*args)
        except PairlabError as exc:
            self.banner.show_message(html_escape(str(exc)), source="edit")
            return self.ERROR

    def report_errors(self) -> None:
        """Keep the banner in step with the panes' errors: new ones pause the animation and are
        announced; the message goes once no pane has an error."""
        errors = [p.error for p in self.lab.panes if p.error]
        new = [e for e in errors if e not in self._known_errors]
        self._known_errors = set(errors)
        if not errors:
            self.banner.clear("panes")
        elif new:
            self.transport.pause()
            self.banner.show_message("<br>".join(html_escape(e) for e in errors), source="panes")
            self.status.showMessage(new[-1], 10000)

    def forget_errors(self) -> None:
        self._known_errors.clear()

    # == the scripting surface =================================================================
    def play(self) -> None:
        self.transport.play()

    def pause(self) -> None:
        self.transport.pause()

    def step_forward(self) -> bool:
        """One iteration forward in every pane; False when every pane is at its end."""
        return self.transport.step_forward()

    def step_back(self) -> None:
        self.transport.step_back()

    def reset(self) -> None:
        self.transport.reset()

    def seek(self, t: int) -> None:
        """Show iteration ``t`` (computing it first when it is not stored yet)."""
        self.transport.seek(t)

    def run_to_end(self) -> None:
        self.transport.run_to_end()

    def play_to(self, t: int) -> None:
        """Compute and show iteration ``t`` (``pairlab gui --play N``)."""
        self.transport.play_to(t)

    def set_tool(self, name: str) -> None:
        self.editing.set_tool(name)

    def save_session(self, path: str | os.PathLike[str]) -> Path:
        return self.files.save_session(path)

    def open_session(self, path: str | os.PathLike[str]) -> bool:
        """Open a session file; False (with a message in the banner) when it cannot be used."""
        return self.files.open_session(path)

    def export_view(self, path: str | os.PathLike[str], scale: float = 1.0) -> Any:
        return self.presentation.export_view(path, scale)

    def export_animation(self, path: str | os.PathLike[str], kind: str = "gif",
                         halves: bool = False) -> Path | None:
        """Compute every pane to its end, then write all iterations (``halves``: and the
        half-steps between them) as a GIF or PNG frames."""
        return self.presentation.export_animation(path, kind, halves)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Process events until no background work is left (for scripts and tests)."""
        return self.executor.wait_idle(timeout)

    # == lifecycle =============================================================================
    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        QtCore.QTimer.singleShot(0, self.presentation.fit_views)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self.transport.timer.stop()
        self.files.autosave_timer.stop()
        self.files.autosave(clean=True)
        self.executor.shutdown()
        super().closeEvent(event)
