"""The base of the main window's controllers: one job each, composed by :class:`MainWindow`.

A controller owns the actions, widgets, timers and state of its job and reaches the rest of the
window (the lab, the banner, the other controllers) through ``self.window``. The window lays the
widgets out, fills the menus from the controllers' actions and fans :meth:`MainWindow.refresh` out
to them.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

if TYPE_CHECKING:
    from .app import MainWindow
    from .model import Lab

__all__ = ["Controller", "html_escape"]


def html_escape(text: Any) -> str:
    return html.escape(str(text))


class Controller(QtCore.QObject):
    """One job of the main window (a child QObject of it)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    @property
    def lab(self) -> Lab:
        return self.window.lab

    def action(self, text: str, slot: Any, shortcut: str | QtGui.QKeySequence | None = None, *,
               checkable: bool = False, tip: str = "") -> QtGui.QAction:
        """A window-wide action (its shortcut works wherever the focus is in the window)."""
        action = QtGui.QAction(text, self.window)
        if shortcut is not None:
            action.setShortcut(QtGui.QKeySequence(shortcut))
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(f"{tip} ({action.shortcut().toString()})" if shortcut else tip)
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    def update(self) -> None:
        """Bring this job's widgets in step with the lab (called by ``MainWindow.refresh``)."""


def tool_button(action: QtGui.QAction, text: str) -> QtWidgets.QToolButton:
    """A button for ``action`` that never takes the keyboard focus from the window.

    ``text`` (e.g. "Select (S)", with its key hint) becomes the action's icon text, which a tool
    button shows again whenever the action changes (``setText`` on the button would be lost at
    the first ``setEnabled``).
    """
    if text != action.text():
        action.setIconText(text)
    button = QtWidgets.QToolButton()
    button.setDefaultAction(action)
    button.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
    return button
