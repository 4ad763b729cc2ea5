"""Widgets of the teaching app: parameter forms generated from Param specs, panes, the banner and
the plugin report."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..draw.frames import Frame
from ..draw.palette import Style
from ..errors import PairlabError
from ..params import Param
from .canvas import CanvasWidget
from .objective_plot import TeachingObjectivePlot
from .trails_item import TrailsLayer

__all__ = ["Banner", "PaneConfig", "PaneView", "ParamForm", "QuietLine", "plugins_report"]

_BIG = 2_000_000_000


def _text_of(param: Param, value: Any) -> str:
    if value is None:
        return ""
    out = param.to_json(value)
    if isinstance(out, list):
        return str(out)
    if isinstance(out, float):
        return repr(out)
    return str(out)


def is_path_param(param: Param) -> bool:
    """A text parameter naming a file (``path``, ``..._path``, ``file``)."""
    return param.type is str and (param.name in ("path", "file") or param.name.endswith("_path"))


class ParamForm(QtWidgets.QWidget):
    """A form generated from :class:`~pairlab.Param` specs.

    Booleans get a check box, choices a combo box, bounded integers a spin box, everything else a
    line edit parsed by :meth:`Param.parse` (invalid text turns red and explains itself in the
    tooltip). ``changed`` is emitted with the new values when an edit is committed.
    """

    changed = QtCore.Signal(dict)

    def __init__(self, params: Sequence[Param], values: Mapping[str, Any] | None = None, *,
                 skip: Sequence[str] = (), parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.params = [p for p in params if p.name not in skip]
        self.fields: dict[str, QtWidgets.QWidget] = {}
        self._errors: dict[str, str] = {}
        layout = QtWidgets.QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        values = dict(values or {})
        self.browse_buttons: dict[str, QtWidgets.QPushButton] = {}
        for p in self.params:
            widget = self._make(p, values.get(p.name, p.default))
            widget.setToolTip(f"{p.help}\n({p.type_name}{self._range(p)})")
            widget.setObjectName(f"param_{p.name}")
            label = QtWidgets.QLabel(p.name.replace("_", " "))
            label.setToolTip(p.help)
            field = widget
            if is_path_param(p):  # a file to read: the field gets a file picker
                field = QtWidgets.QWidget()
                row = QtWidgets.QHBoxLayout(field)
                row.setContentsMargins(0, 0, 0, 0)
                row.addWidget(widget, 1)
                browse = QtWidgets.QPushButton("Browse...")
                browse.setObjectName(f"browse_{p.name}")
                browse.clicked.connect(partial(self._browse, p.name))
                row.addWidget(browse)
                self.browse_buttons[p.name] = browse
            layout.addRow(label, field)
            self.fields[p.name] = widget
        if not self.params:
            layout.addRow(QtWidgets.QLabel("(no parameters)"))

    @staticmethod
    def _range(p: Param) -> str:
        if p.choices is not None:
            return ", one of " + ", ".join(map(str, p.choices))
        if p.low is None and p.high is None:
            return ", none means automatic" if p.nullable else ""
        lo = "-inf" if p.low is None else f"{p.low:g}"
        hi = "inf" if p.high is None else f"{p.high:g}"
        return f" in [{lo}, {hi}]" + (", empty means automatic" if p.nullable else "")

    def _make(self, p: Param, value: Any) -> QtWidgets.QWidget:
        if p.type is bool:
            w = QtWidgets.QCheckBox()
            w.setChecked(bool(value))
            w.toggled.connect(self._emit)
            return w
        if p.choices is not None:
            w = QtWidgets.QComboBox()
            w.setSizeAdjustPolicy(
                QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            for c in p.choices:
                w.addItem(str(c), c)
            if value in p.choices:
                w.setCurrentIndex(list(p.choices).index(value))
            w.currentIndexChanged.connect(self._emit)
            return w
        if p.type is int and not p.nullable:
            w = QtWidgets.QSpinBox()
            lo = -_BIG if p.low is None else int(np.ceil(p.low)) + (1 if p.low_open else 0)
            hi = _BIG if p.high is None else int(np.floor(p.high)) - (1 if p.high_open else 0)
            w.setRange(max(lo, -_BIG), min(hi, _BIG))
            w.setValue(int(value))
            w.setKeyboardTracking(False)
            w.valueChanged.connect(self._emit)
            return w
        w = QtWidgets.QLineEdit(_text_of(p, value))
        if p.nullable:
            w.setPlaceholderText("automatic")
        w.editingFinished.connect(self._emit)
        return w

    def _read(self, p: Param) -> Any:
        w = self.fields[p.name]
        if isinstance(w, QtWidgets.QCheckBox):
            return w.isChecked()
        if isinstance(w, QtWidgets.QComboBox):
            return w.currentData()
        if isinstance(w, QtWidgets.QSpinBox):
            return w.value()
        assert isinstance(w, QtWidgets.QLineEdit)
        return p.parse(w.text())

    def values(self) -> dict[str, Any]:
        """The valid values (fields with errors keep being marked and are left out)."""
        out: dict[str, Any] = {}
        self._errors.clear()
        for p in self.params:
            w = self.fields[p.name]
            try:
                out[p.name] = self._read(p)
                w.setStyleSheet("")
                w.setToolTip(f"{p.help}\n({p.type_name}{self._range(p)})")
            except PairlabError as exc:
                self._errors[p.name] = str(exc)
                w.setStyleSheet("background: #ffd9d9;")
                w.setToolTip(str(exc))
        return out

    @property
    def errors(self) -> dict[str, str]:
        return dict(self._errors)

    def set_values(self, values: Mapping[str, Any]) -> None:
        for p in self.params:
            if p.name not in values:
                continue
            w, value = self.fields[p.name], values[p.name]
            w.blockSignals(True)
            try:
                if isinstance(w, QtWidgets.QCheckBox):
                    w.setChecked(bool(value))
                elif isinstance(w, QtWidgets.QComboBox):
                    if value in (p.choices or ()):
                        w.setCurrentIndex(list(p.choices or ()).index(value))
                elif isinstance(w, QtWidgets.QSpinBox):
                    w.setValue(int(value))
                else:
                    assert isinstance(w, QtWidgets.QLineEdit)
                    w.setText(_text_of(p, value))
            finally:
                w.blockSignals(False)

    def _browse(self, name: str) -> None:
        edit = self.fields[name]
        assert isinstance(edit, QtWidgets.QLineEdit)
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Choose a data file", edit.text() or "",
            "Tables (*.csv *.tsv *.txt *.npz);;All files (*)")
        if path:
            edit.setText(path)
            self._emit()

    def _emit(self, *args: object) -> None:
        """Emit the valid values: a field in error (marked red, its value left out, so the
        receiver keeps the last good one) never blocks the edits of the other fields."""
        self.changed.emit(self.values())


class PaneConfig(QtWidgets.QGroupBox):
    """The algorithm chooser and parameter form of one pane."""

    algorithm_changed = QtCore.Signal(str)
    params_changed = QtCore.Signal(dict)
    remove_requested = QtCore.Signal()

    def __init__(self, number: int, algorithms: Sequence[Any], current: Any,
                 values: Mapping[str, Any], parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(f"Pane {number}", parent)
        layout = QtWidgets.QVBoxLayout(self)
        row = QtWidgets.QHBoxLayout()
        self.combo = QtWidgets.QComboBox()
        self.combo.setObjectName("algorithm")
        self.combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(16)
        for cls in algorithms:
            self.combo.addItem(f"{cls.title or cls.name}  ({cls.name})", cls.name)
        self.combo.setCurrentIndex(max(0, self.combo.findData(current.name)))
        self.combo.currentIndexChanged.connect(
            lambda _i: self.algorithm_changed.emit(self.combo.currentData()))
        row.addWidget(self.combo, 1)
        self.remove = QtWidgets.QToolButton()
        self.remove.setText("✕")
        self.remove.setToolTip("Remove this pane")
        self.remove.clicked.connect(self.remove_requested)
        row.addWidget(self.remove)
        layout.addLayout(row)
        self.citation = QtWidgets.QLabel()
        self.citation.setWordWrap(True)
        self.citation.setStyleSheet("color: #666; font-size: 9pt;")
        layout.addWidget(self.citation)
        self.form: ParamForm | None = None
        self.set_algorithm(current, values)

    def set_algorithm(self, cls: Any, values: Mapping[str, Any]) -> None:
        layout = self.layout()
        if self.form is not None:
            layout.removeWidget(self.form)
            self.form.hide()
            self.form.setParent(None)
            self.form.deleteLater()
        self.citation.setText(cls.citation or "")
        self.citation.setVisible(bool(cls.citation))
        skip = ("means_init",) if cls.accepts_means_init else ()
        self.form = ParamForm(cls.params, values, skip=skip)
        self.form.changed.connect(self.params_changed)
        layout.addWidget(self.form)
        self.combo.blockSignals(True)
        self.combo.setCurrentIndex(max(0, self.combo.findData(cls.name)))
        self.combo.blockSignals(False)


class QuietLine(QtWidgets.QWidget):
    """Holds a word-wrapped label whose text changes every frame (a pane's metrics) and lays
    the window out again only when the label's height changes.

    A label's ``setText`` asks its parent's layout to lay out again; in a pane that relaid the
    whole window every frame (issue 32). Here the label fills this box, which has no layout, and
    the box reports the label's sizes; :meth:`set_text` tells the pane's layout only when the
    height the text needs at this width changed."""

    def __init__(self, label: QtWidgets.QLabel, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        label.setParent(self)
        self.setSizePolicy(label.sizePolicy())
        self._height: int | None = None

    def set_text(self, text: str) -> None:
        if text == self.label.text():
            return
        self.label.setText(text)
        height = self.label.heightForWidth(self.width())
        if height != self._height:
            self._height = height
            self.updateGeometry()

    def sizeHint(self) -> QtCore.QSize:
        return self.label.sizeHint()

    def minimumSizeHint(self) -> QtCore.QSize:
        return self.label.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:
        return self.label.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:
        return self.label.heightForWidth(width)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self.label.setGeometry(self.rect())
        self._height = self.label.heightForWidth(self.width())
        super().resizeEvent(event)


class PaneView(QtWidgets.QFrame):
    """One pane on screen: header, data canvas, objective plot and metrics line."""

    def __init__(self, style: Style, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        self.header = QtWidgets.QLabel()
        self.header.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.header.setWordWrap(True)  # a long algorithm title must not widen the window
        layout.addWidget(self.header)
        self.canvas = CanvasWidget(style=style)
        layout.addWidget(self.canvas, 3)
        self.trails = TrailsLayer(self.canvas.layers.vb, style.line_width * 1.8)
        self.objective = TeachingObjectivePlot()
        self.objective.setMinimumHeight(70)
        self.objective.setMaximumHeight(150)
        layout.addWidget(self.objective, 1)
        self.metrics = QtWidgets.QLabel()
        self.metrics.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.metrics.setWordWrap(True)
        self.metrics_line = QuietLine(self.metrics)
        layout.addWidget(self.metrics_line)
        layout.addStretch(0)  # takes the room a height-capped canvas leaves (Presentation)
        self.frame: Frame | None = None
        self._fit_header(style)

    def _fit_header(self, style: Style) -> None:
        """Every header is two lines high, however its text wraps, so that the canvases of a
        row of panes line up (the full text is in the tooltip)."""
        font = QtGui.QFont(self.header.font())
        font.setPointSize(style.title_size + 1)
        self.header.setFixedHeight(2 * QtGui.QFontMetrics(font).lineSpacing() + 4)
        self.header.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft
                                 | QtCore.Qt.AlignmentFlag.AlignTop)

    def set_style(self, style: Style) -> None:
        self._fit_header(style)
        self.canvas.layers.set_style(style)
        self.trails.set_width(style.line_width * 1.8)
        big = style.font_size > 12
        self.objective.setMaximumHeight(220 if big else 150)
        self.objective.setMinimumHeight(120 if big else 70)
        self.objective.set_font_size(style.font_size - 2 if big else 9)


class _BannerRow(QtWidgets.QFrame):
    """One message of the banner: rich text, action buttons and a dismiss button."""

    def __init__(self, banner: Banner, source: str) -> None:
        super().__init__()
        self.setObjectName("banner_row")
        self.source = source
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.label = QtWidgets.QLabel()
        self.label.setTextFormat(QtCore.Qt.TextFormat.RichText)  # callers escape their text
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self.buttons = QtWidgets.QHBoxLayout()
        layout.addLayout(self.buttons)
        close = QtWidgets.QToolButton()
        close.setText("✕")
        close.setToolTip("Dismiss")
        close.clicked.connect(lambda: banner.answer(source))
        layout.addWidget(close)


class Banner(QtWidgets.QFrame):
    """Dismissable message strips above the panes (errors, restore offers); never modal.

    Each message has a ``source``; a new message replaces the one of the same source and
    :meth:`clear` removes it once its cause is gone. Messages are rich text: callers escape what
    they did not write. ``answered(source)`` is emitted when the user dismisses a message or
    presses one of its buttons.
    """

    answered = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QtWidgets.QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self.rows: dict[str, _BannerRow] = {}
        self.hide()

    def show_message(self, text: str, kind: str = "error",
                     actions: Sequence[tuple[str, Any]] = (), *, source: str = "") -> None:
        colours = {"error": ("#fde2e1", "#b00020"), "info": ("#e3f0fb", "#0b4f8a")}
        bg, fg = colours.get(kind, colours["info"])
        row = self.rows.get(source)
        if row is None:
            row = self.rows[source] = _BannerRow(self, source)
            self._layout.addWidget(row)
        row.setStyleSheet(f"#banner_row {{ background: {bg}; border: 1px solid {fg}; }} "
                          f"QLabel {{ color: {fg}; }}")
        row.label.setText(text)
        while row.buttons.count():
            item = row.buttons.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        for title, callback in actions:
            button = QtWidgets.QPushButton(title)
            button.clicked.connect(callback)
            button.clicked.connect(lambda _=False, s=source: self.answer(s))
            row.buttons.addWidget(button)
        self.show()

    def clear(self, source: str) -> None:
        """Remove the message of ``source`` (its cause is gone)."""
        row = self.rows.pop(source, None)
        if row is not None:
            self._layout.removeWidget(row)
            row.hide()
            row.deleteLater()
        if not self.rows:
            self.hide()

    def answer(self, source: str) -> None:
        self.clear(source)
        self.answered.emit(source)

    def text(self, source: str | None = None) -> str:
        """The rich text shown (of one source, or of all joined by line breaks)."""
        if self.isHidden():
            return ""
        rows = [r for s, r in self.rows.items() if source is None or s == source]
        return "<br>".join(r.label.text() for r in rows)

    def plain_text(self) -> str:
        """What the reader sees (entities and tags rendered)."""
        doc = QtGui.QTextDocument()
        doc.setHtml(self.text())
        return doc.toPlainText()


def plugins_report(registry: Any) -> str:
    """HTML list of loaded plugins, what they provide, failures (with the cause) and clashes."""
    rows = []
    for p in registry.plugins:
        status = ("<span style='color:#0a7d32'>loaded</span>" if p.ok
                  else "<span style='color:#b00020'><b>FAILED</b></span>")
        kind = "built-in" if p.builtin else "external"
        provides = "; ".join(f"{k}: {', '.join(map(html.escape, v))}" for k, v in p.provides.items())
        rows.append(f"<tr><td><b>{html.escape(p.name)}</b></td>"
                    f"<td>{html.escape(p.distribution)} {html.escape(p.version)} ({kind})</td>"
                    f"<td>{status}</td><td>{provides or '-'}</td></tr>")
        if not p.ok:
            where = f"<br><i>where:</i> {html.escape(p.where)}" if p.where else ""
            rows.append(f"<tr><td></td><td colspan='3' style='color:#b00020'>"
                        f"{html.escape(p.error or '')}{where}</td></tr>")
    out = ["<h3>Plugins</h3><table cellpadding='4'>",
           "<tr><th align='left'>plugin</th><th align='left'>distribution</th>"
           "<th align='left'>status</th><th align='left'>provides</th></tr>", *rows, "</table>"]
    if registry.clashes:
        out.append("<h4>Name clashes</h4><ul>")
        out += [f"<li>{html.escape(c)}</li>" for c in registry.clashes]
        out.append("</ul>")
    if not registry.external:
        out.append("<p><i>External plugins are disabled (PAIRLAB_DISABLE_PLUGINS is set).</i></p>")
    failed = len(registry.failures)
    out.append(f"<p>{len(registry.plugins)} plugin(s), {failed} failed.</p>")
    return "\n".join(out)


def text_dialog(parent: QtWidgets.QWidget, title: str, html_text: str,
                size: tuple[int, int] = (720, 480)) -> QtWidgets.QDialog:
    """A non-modal dialog showing rich text."""
    dialog = QtWidgets.QDialog(parent)
    dialog.setWindowTitle(title)
    layout = QtWidgets.QVBoxLayout(dialog)
    browser = QtWidgets.QTextBrowser()
    browser.setOpenExternalLinks(True)
    browser.setHtml(html_text)
    layout.addWidget(browser)
    buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.close)
    layout.addWidget(buttons)
    dialog.resize(*size)
    dialog.browser = browser  # type: ignore[attr-defined]
    return dialog


def big_font(widget: QtWidgets.QWidget, points: int) -> None:
    font = QtGui.QFont(widget.font())
    font.setPointSize(points)
    widget.setFont(font)
