"""The transport's keys win over form fields, unless the user is typing text.

Qt lets a focused line edit or spin box claim Space, the arrows, Home and End (the
``ShortcutOverride`` event) even after its value was committed, so an instructor who changed a
parameter and pressed Space got a space in the field instead of the animation. Here a field
keeps those keys only while it is being typed in: from the first character typed until the edit
is committed (Enter, Tab, focus leaving the field).

The filter watches only the widget that has the keyboard focus, and only while it is a text field
of the window: an application-wide Python filter was called for every event of every widget
(about 30 a frame of the three-pane animation: paints, update requests, timers), each through
the Python binding (``assets/bench/frame_ab.py keys``).
"""

from __future__ import annotations

import contextlib

import shiboken6
from PySide6 import QtCore, QtWidgets

__all__ = ["TRANSPORT_KEYS", "TransportKeys"]

Key = QtCore.Qt.Key
TRANSPORT_KEYS = frozenset({Key.Key_Space, Key.Key_Left, Key.Key_Right, Key.Key_Home, Key.Key_End})
_TEXT_WIDGETS = (QtWidgets.QLineEdit, QtWidgets.QAbstractSpinBox, QtWidgets.QTextEdit,
                 QtWidgets.QPlainTextEdit)
_EDIT_KEYS = frozenset({Key.Key_Backspace, Key.Key_Delete})
_COMMIT_KEYS = frozenset({Key.Key_Return, Key.Key_Enter, Key.Key_Tab, Key.Key_Backtab,
                          Key.Key_Escape})


def _text_field(widget: QtWidgets.QWidget | None) -> QtWidgets.QWidget | None:
    """The text-entry widget ``widget`` belongs to (a spin box for its inner line edit)."""
    while widget is not None:
        if isinstance(widget, _TEXT_WIDGETS):
            parent = widget.parentWidget()
            return parent if isinstance(parent, QtWidgets.QAbstractSpinBox) else widget
        widget = widget.parentWidget() if isinstance(widget, QtWidgets.QLineEdit) else None
    return None


def _typed(event: QtCore.QEvent) -> bool:
    text = event.text()  # type: ignore[attr-defined]
    return bool(text) and text.isprintable()


class TransportKeys(QtCore.QObject):
    """Event filter on the focused text field of ``window``, routing transport keys to the
    window's shortcuts."""

    def __init__(self, window: QtWidgets.QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.typing: QtWidgets.QWidget | None = None  # the field being typed in
        self.watched: QtWidgets.QWidget | None = None  # the focused field this filter is on

    def focus_changed(self, old: QtWidgets.QWidget | None, new: QtWidgets.QWidget | None) -> None:
        """Move the filter to ``new`` if it is a text field of the window (Qt sends the FocusOut
        to ``old`` before this signal, so the filter has seen it)."""
        if not shiboken6.isValid(self):  # the window is gone
            return
        if self.watched is not None:
            with contextlib.suppress(RuntimeError):  # the field was deleted
                self.watched.removeEventFilter(self)
            self.watched = None
        field = _text_field(new)
        if field is not None and field.window() is self.window:
            new.installEventFilter(self)
            self.watched = new

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:  # Qt's name
        kind = event.type()
        if kind == QtCore.QEvent.Type.FocusOut and obj is self.typing:
            self.typing = None
        elif kind in (QtCore.QEvent.Type.KeyPress, QtCore.QEvent.Type.ShortcutOverride):
            field = _text_field(obj if isinstance(obj, QtWidgets.QWidget) else None)
            if field is None or field.window() is not self.window:
                return False
            key = QtCore.Qt.Key(event.key())  # type: ignore[attr-defined]
            if kind == QtCore.QEvent.Type.KeyPress:
                if key in _COMMIT_KEYS:
                    self.typing = None
                elif key in _EDIT_KEYS or (key not in TRANSPORT_KEYS and _typed(event)):
                    self.typing = field
                return False
            mods = QtCore.Qt.KeyboardModifier  # Shift+arrows: half-steps
            plain = not (event.modifiers() & ~(mods.KeypadModifier | mods.ShiftModifier))  # type: ignore[attr-defined]
            if key in TRANSPORT_KEYS and plain and self.typing is not field:
                event.ignore()  # not claimed by the field: the window's shortcut fires
                return True
        return False


def install(window: QtWidgets.QWidget) -> TransportKeys | None:
    """Put the filter for ``window`` on each text field of it that gets the keyboard focus."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        return None
    keys = TransportKeys(window)
    app.focusChanged.connect(keys.focus_changed)
    keys.focus_changed(None, app.focusWidget())
    return keys
