"""The Help menu: keyboard shortcuts, the algorithms installed and the plugin report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtGui, QtWidgets

from .controller import Controller, html_escape
from .widgets import plugins_report, text_dialog

if TYPE_CHECKING:
    from .app import MainWindow

__all__ = ["HelpMenu"]


class HelpMenu(Controller):
    """Non-modal dialogs built from the registry and the window's actions."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._dialogs: list[QtWidgets.QDialog] = []
        self.act_plugins = self.action("Plugins...", self.show_plugins)
        self.act_keys = self.action("Keyboard shortcuts...", self.show_shortcuts, "F1")
        self.act_about = self.action("About the algorithms...", self.show_algorithms)

    def menu_actions(self) -> list[Any]:
        return [self.act_keys, self.act_about, self.act_plugins]

    def _show_dialog(self, dialog: QtWidgets.QDialog) -> QtWidgets.QDialog:
        self._dialogs = [d for d in self._dialogs if d.isVisible()] + [dialog]
        dialog.show()
        return dialog

    def show_plugins(self) -> QtWidgets.QDialog:
        return self._show_dialog(text_dialog(self.window, "Plugins",
                                             plugins_report(self.lab.registry)))

    def show_shortcuts(self) -> QtWidgets.QDialog:
        rows = []
        for action in self.window.actions():
            key = action.shortcut().toString(QtGui.QKeySequence.SequenceFormat.NativeText)
            if key:
                rows.append(f"<tr><td><b>{html_escape(key)}</b></td>"
                            f"<td>{html_escape(action.text())}</td></tr>")
        body = ("<h3>Keyboard shortcuts</h3><table cellpadding='3'>" + "".join(rows) + "</table>"
                "<p>Mouse: left-drag pans, right-drag or wheel zooms, click with a link tool to "
                "link two points.</p>")
        return self._show_dialog(text_dialog(self.window, "Keyboard shortcuts", body, (520, 620)))

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
        return self._show_dialog(text_dialog(self.window, "Algorithms", "".join(parts)))
