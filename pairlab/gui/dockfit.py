"""A scrolling dock whose content is never cut on the right: the body is at least as wide as its
widest unbreakable piece (a word of a wrapped label, a group title, a bar chart's bars) and the
dock scrolls sideways beyond that, after first growing up to a share of the window."""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtWidgets

__all__ = ["DockFitter", "needed_width"]

#: Width a bar of a bar chart needs to show its value and label (pixels).
BAR_WIDTH = 30


def _depth_indent(widget: QtWidgets.QWidget, body: QtWidgets.QWidget) -> int:
    """Horizontal margins of the layouts and frames between ``body`` and ``widget``."""
    total, w = 0, widget.parentWidget()
    while w is not None and w is not body.parentWidget():
        lay = w.layout()
        if lay is not None:
            m = lay.contentsMargins()
            total += m.left() + m.right()
        if isinstance(w, QtWidgets.QFrame):
            total += 2 * w.frameWidth()
        w = w.parentWidget()
    return total


def needed_width(body: QtWidgets.QWidget) -> int:
    """The narrowest width of ``body`` at which none of its content is cut."""
    need = body.minimumSizeHint().width()
    for label in body.findChildren(QtWidgets.QLabel):
        if label.isHidden():
            continue
        fm = label.fontMetrics()
        text = label.text()
        if label.textFormat() != QtCore.Qt.TextFormat.PlainText and "<" in text:
            text = _strip_tags(text)  # tags are not printed
        lines = text.splitlines() or [""]
        if label.wordWrap():
            pieces = [word for line in lines for word in line.split()]
        else:
            pieces = lines
        widest = max((fm.horizontalAdvance(p) for p in pieces), default=0)
        m = label.contentsMargins()
        need = max(need, widest + m.left() + m.right() + 2 * label.margin() + 8
                   + _depth_indent(label, body))
    for box in body.findChildren(QtWidgets.QGroupBox):
        if not box.isHidden():
            need = max(need, box.fontMetrics().horizontalAdvance(box.title()) + 28
                       + _depth_indent(box, body))
    for chart in body.findChildren(QtWidgets.QWidget):
        bars = getattr(chart, "bars", None)
        values = getattr(bars, "values", None)
        if values is not None and not chart.isHidden():
            need = max(need, BAR_WIDTH * len(values) + _depth_indent(chart, body))
    return need


def _strip_tags(text: str) -> str:
    out, inside = [], False
    for ch in text:
        if ch == "<":
            inside = True
        elif ch == ">":
            inside = False
        elif not inside:
            out.append(ch)
    return "".join(out).replace("&nbsp;", " ")


class DockFitter(QtCore.QObject):
    """Keeps a dock's scroll area wide enough for its content (see the module docstring).

    ``share`` is the largest part of the window's width the dock grows to by itself; beyond it
    the content scrolls sideways (the scroll bar shows as needed).
    """

    def __init__(self, window: QtWidgets.QMainWindow, dock: QtWidgets.QDockWidget, *,
                 share: float = 0.45) -> None:
        super().__init__(dock)
        self.window, self.dock, self.share = window, dock, share
        scroll = dock.widget()
        assert isinstance(scroll, QtWidgets.QScrollArea)
        self.scroll = scroll
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._pending = False
        scroll.widget().installEventFilter(self)
        dock.visibilityChanged.connect(lambda _visible: self.schedule())

    def eventFilter(self, obj: Any, event: QtCore.QEvent) -> bool:
        if event.type() in (QtCore.QEvent.Type.LayoutRequest, QtCore.QEvent.Type.ChildAdded):
            self.schedule()
        return False

    def schedule(self) -> None:
        """Fit once the event loop is idle (content arrives widget by widget)."""
        if not self._pending:
            self._pending = True
            QtCore.QTimer.singleShot(0, self.fit)

    def fit(self) -> None:
        """Give the body its needed width and widen the dock towards it."""
        self._pending = False
        body = self.scroll.widget()
        need = needed_width(body)
        if body.minimumWidth() != need:
            body.setMinimumWidth(need)
        if not self.dock.isVisible() or self.dock.isFloating():
            return
        bar = self.scroll.verticalScrollBar().sizeHint().width()
        frame = 2 * self.scroll.frameWidth()
        want = min(need + bar + frame + 4, int(self.share * self.window.width()))
        if self.dock.width() < want:
            self.window.resizeDocks([self.dock], [want], QtCore.Qt.Orientation.Horizontal)
