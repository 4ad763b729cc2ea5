"""Sessions and files: new, open, save, the autosave and the offer to restore after a crash."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from .controller import Controller, html_escape
from .lessons import Lesson, lessons
from .model import default_lab
from .session import apply_session, read_autosave, read_session, save_session, write_autosave

if TYPE_CHECKING:
    from .app import MainWindow

__all__ = ["Files"]


class Files(Controller):
    """The session file on screen, its dialogs and the autosave (1.5 s after the last change)."""

    def __init__(self, window: MainWindow, *, autosave: bool) -> None:
        super().__init__(window)
        self.session_path: Path | None = None
        self.autosave_enabled = autosave
        #: A crashed session is on offer: nothing may overwrite the autosave until it is answered.
        self.restore_pending = False
        window.banner.answered.connect(self._answered)
        A = self.action
        Key = QtGui.QKeySequence.StandardKey
        self.act_new = A("New session", self.new_session, Key.New)
        self.act_open = A("Open session...", self.open_session_dialog, Key.Open)
        self.act_save = A("Save session", self.save_session_dialog, Key.Save)
        self.act_save_as = A("Save session as...", partial(self.save_session_dialog, True), Key.SaveAs)
        self.act_quit = A("Quit", window.close, Key.Quit)
        self.autosave_timer = QtCore.QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(1500)
        self.autosave_timer.timeout.connect(self.autosave)

        self.lesson: Lesson | None = None
        self.lesson_actions = [A(lesson.title, partial(self.open_lesson, lesson))
                               for lesson in lessons()]

    def menu_actions(self) -> list[Any]:
        return [self.act_new, self.act_open, self.act_save, self.act_save_as]

    def open_lesson(self, lesson: Lesson) -> bool:
        """Open a shipped lesson and show its note for the instructor."""
        if not self.load(lesson.data):
            return False
        self.session_path = None
        self.lesson = lesson
        note = "<br>".join(html_escape(line) for line in lesson.note.splitlines())
        self.window.banner.show_message(f"<b>{html_escape(lesson.title)}</b><br>{note}", "info",
                                        source="lesson")
        self.window.update_controls()
        return True

    def update(self) -> None:
        name = (self.session_path.name if self.session_path
                else f"lesson: {self.lesson.title}" if self.lesson else "untitled")
        self.window.setWindowTitle(f"pairlab — {self.lab.dataset_name} — {name}")

    def file_dialog(self, save: bool, title: str, filters: str, suffix: str) -> Path | None:
        start = str(self.session_path.parent if self.session_path else Path.cwd())
        if save:
            name, _ = QtWidgets.QFileDialog.getSaveFileName(self.window, title, start, filters)
        else:
            name, _ = QtWidgets.QFileDialog.getOpenFileName(self.window, title, start, filters)
        if not name:
            return None
        path = Path(name)
        if save and not path.suffix:
            path = path.with_suffix(suffix)
        return path

    # == sessions ==============================================================================
    def save_session(self, path: str | os.PathLike[str]) -> Path:
        path = Path(path)
        save_session(self.lab, path, view=self.window.presentation.view_options())
        self.session_path = path
        self.window.status.showMessage(f"Saved {path}", 4000)
        self.window.update_controls()
        return path

    def save_session_dialog(self, save_as: bool = False) -> None:
        path = self.session_path
        if save_as or path is None:
            path = self.file_dialog(True, "Save session", "pairlab sessions (*.json)", ".json")
        if path is not None:
            self.window.guard(self.save_session, path)

    def open_session(self, path: str | os.PathLike[str]) -> bool:
        """Open a session file; False (with a message in the banner) when it cannot be used."""
        data = self.window.guard(read_session, path)
        if data is self.window.ERROR:
            return False
        if not self.load(data):
            return False
        self.session_path = Path(path)
        self.lesson = None
        self.window.banner.clear("lesson")
        self.window.update_controls()
        return True

    def load(self, data: dict) -> bool:
        """Put the session ``data`` on screen; False (message in the banner) when it fails."""
        w = self.window
        w.transport.pause()
        w.executor.cancel()
        result = w.guard(apply_session, self.lab, data)
        if result is w.ERROR:
            w.sync_dataset_form()
            w.sync_panes()
            w.transport.rebuild()
            return False
        w.editing.pending_point = None
        w.forget_errors()
        w.sync_dataset_form()
        w.sync_panes()
        w.presentation.set_view_options(result["view"])
        w.transport.go_to_after_build(result["iteration"] or None)
        w.transport.rebuild()
        return True

    def open_session_dialog(self) -> None:
        path = self.file_dialog(False, "Open session", "pairlab sessions (*.json)", ".json")
        if path is not None:
            self.open_session(path)

    def new_session(self) -> None:
        w = self.window
        w.transport.pause()
        w.executor.cancel()
        fresh = default_lab(self.lab.registry)
        self.lab.__dict__.update(fresh.__dict__)
        self.session_path = None
        self.lesson = None
        w.banner.clear("lesson")
        w.sync_dataset_form()
        w.sync_panes()
        w.transport.rebuild()

    # == autosave ==============================================================================
    def schedule_autosave(self) -> None:
        if self.autosave_enabled:
            self.autosave_timer.start()

    def autosave(self, clean: bool = False) -> Path | None:
        if not self.autosave_enabled or self.lab.dataset is None or self.restore_pending:
            return None
        try:
            return write_autosave(self.lab, view=self.window.presentation.view_options(),
                                  clean=clean)
        except OSError as exc:
            self.window.status.showMessage(f"Autosave failed: {exc}", 8000)
            return None

    def offer_restore(self) -> None:
        data = read_autosave()
        if data is None or data.get("clean_exit", True):
            return
        self.restore_pending = True
        self.window.banner.show_message(
            "The previous session ended unexpectedly. Restore it? (It is kept until you answer.)",
            "info", [("Restore", partial(self.load, data))], source="restore")

    def _answered(self, source: str) -> None:
        if source == "restore":
            self.restore_pending = False
            self.schedule_autosave()
