"""The explanation panel: for the selected point, the update each pane just applied and its
numbers, as the algorithm's :meth:`~pairlab.Algorithm.explain` states them (the maths stays in the
plugins; this module only draws :class:`~pairlab.Explanation` objects)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..draw.palette import GREY, INK, OKABE_ITO
from ..explanation import Bars, Explanation
from .controller import Controller, html_escape

if TYPE_CHECKING:
    from ..run import Run
    from .app import MainWindow

__all__ = ["BarChart", "ExplanationPanel"]


class BarChart(QtWidgets.QWidget):
    """One :class:`~pairlab.Bars`: a bar per choice with its value, the chosen one dark."""

    def __init__(self, bars: Bars, parent: QtWidgets.QWidget | None = None,
                 before: Bars | None = None) -> None:
        super().__init__(parent)
        self.bars = bars
        #: the same bars one iteration earlier, drawn hollow beside the current ones
        self.before = before
        self.setMinimumHeight(80)
        self.setMinimumWidth(0)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                           QtWidgets.QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(260, 90)

    def before_values(self) -> np.ndarray | None:
        """The previous value of each current bar (NaN where that choice did not exist)."""
        if self.before is None:
            return None
        old = dict(zip(self.before.labels, np.asarray(self.before.values, dtype=float), strict=True))
        return np.array([old.get(label, np.nan) for label in self.bars.labels])

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        bars = self.bars
        values = np.asarray(bars.values, dtype=float)
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        fm = p.fontMetrics()
        line = fm.height()
        w, h = self.width(), self.height()
        n = values.size
        if n == 0:
            p.end()
            return
        old = self.before_values()
        top, bottom = line + 2, h - line - 2  # room for the values above, labels below
        both = values if old is None else np.concatenate([values, old])
        finite = both[np.isfinite(both)]
        lo = min(0.0, float(finite.min())) if finite.size else 0.0
        hi = max(0.0, float(finite.max())) if finite.size else 1.0
        span = hi - lo or 1.0
        slot = w / n
        bar_w = max(4.0, min(slot * 0.7, 48.0))
        zero = bottom - (0.0 - lo) / span * (bottom - top)
        if old is not None:
            bar_w = max(3.0, min(slot * 0.4, 24.0))
        for k, value in enumerate(values):
            x = k * slot + (slot - bar_w * (1 if old is None else 2)) / 2
            chosen = bars.highlight == k
            colour = QtGui.QColor(*(OKABE_ITO[1] if chosen else GREY))
            text = _number(value)
            if old is not None:
                if np.isfinite(old[k]):
                    y = bottom - (old[k] - lo) / span * (bottom - top)
                    p.setPen(QtGui.QPen(QtGui.QColor(*INK), 1.0))
                    p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                    p.drawRect(QtCore.QRectF(x, min(y, zero), bar_w, max(abs(zero - y), 1.0)))
                text = f"{_number(old[k])}→{text}"
                x += bar_w
            if np.isfinite(value):
                y = bottom - (value - lo) / span * (bottom - top)
                p.fillRect(QtCore.QRectF(x, min(y, zero), bar_w, max(abs(zero - y), 1.0)), colour)
            p.setPen(QtGui.QColor(*INK))
            font = p.font()
            font.setBold(chosen)
            p.setFont(font)
            centre = QtCore.Qt.AlignmentFlag.AlignHCenter
            p.drawText(QtCore.QRectF(k * slot, 0, slot, line), centre,
                       fm.elidedText(text, QtCore.Qt.TextElideMode.ElideRight, int(slot)))
            p.drawText(QtCore.QRectF(k * slot, bottom + 2, slot, line), centre,
                       fm.elidedText(bars.labels[k], QtCore.Qt.TextElideMode.ElideRight, int(slot)))
        p.end()


def _number(value: float) -> str:
    if np.isfinite(value):
        return f"{value:.3g}"
    return "∞" if value > 0 else "-∞" if value < 0 else "–"


def objective_change(run: Run | None) -> str:
    """What the half-step (or iteration) under the cursor did to the objective, in words."""
    if run is None or (run.index == 0 and not run.on_half):
        return ""
    state = run.state
    if run.on_half and (state.objective is None or not np.isfinite(state.objective)):
        return (f"{state.phase}: the {state.objective_name} is evaluated after the whole "
                "iteration, not at this half-step.")
    if run.on_half:
        before, now = run.history[run.index].objective, state.objective
        if before is None:
            return ""
        return (f"{state.objective_name} over the half-step {state.phase}: {before:.6g} → "
                f"{now:.6g} (change {now - before:+.3g})")
    before, now = run.history[run.index - 1].objective, state.objective
    if before is None or now is None:
        return ""
    half = f" ({' then '.join(run.algorithm_class.phases)})" if run.has_phases else ""
    return (f"{state.objective_name} over iteration {run.index}{half}: {before:.6g} → {now:.6g} "
            f"(change {now - before:+.3g})")


def _wrapped(text: str, rich: bool = False) -> QtWidgets.QLabel:
    """A label that wraps to the dock's width instead of widening it (nothing is cut)."""
    label = QtWidgets.QLabel(text)
    label.setTextFormat(QtCore.Qt.TextFormat.RichText if rich else QtCore.Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                        QtWidgets.QSizePolicy.Policy.MinimumExpanding)
    return label


class ExplanationPanel(Controller):
    """A dock (View ▸ Explanation, F3) explaining the selected point in every pane."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.dock = QtWidgets.QDockWidget("Explanation", window)
        self.dock.setObjectName("explanation")
        self.dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                              | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QtWidgets.QWidget()
        self.column = QtWidgets.QVBoxLayout(body)
        self.header = QtWidgets.QLabel()
        self.header.setWordWrap(True)
        self.header.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.column.addWidget(self.header)
        self.boxes: list[QtWidgets.QGroupBox] = []
        self.column.addStretch(1)
        scroll.setWidget(body)
        scroll.setMinimumWidth(300)
        self.dock.setWidget(scroll)
        self.act_panel = self.dock.toggleViewAction()
        self.act_panel.setText("Explanation panel")
        self.act_panel.setShortcut(QtGui.QKeySequence("F3"))
        self.act_panel.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        window.addAction(self.act_panel)
        self.dock.visibilityChanged.connect(lambda _visible: self.update())
        self.shown: list[Explanation | None] = []

    def update(self) -> None:
        w = self.window
        if not self.dock.isVisible() or w.executor.busy:
            return  # a worker may own the runs: the panel waits for the next refresh
        lab = self.lab
        i = w.editing.selected_point
        for box in self.boxes:
            self.column.removeWidget(box)
            box.hide()
            box.deleteLater()
        self.boxes, self.shown = [], []
        if i is None or lab.dataset is None or i >= lab.dataset.n_samples:
            self.header.setText("Click a point with the Select tool (S) to see the numbers "
                                "behind its label in every pane.")
            return
        truth = "" if lab.dataset.y is None else f", true class {int(lab.dataset.y[i])}"
        links = [f"{'must' if kind == 'must' else 'cannot'}-linked to {j}"
                 for kind, pairs in (("must", lab.constraints.must_link),
                                     ("cannot", lab.constraints.cannot_link))
                 for a, b in pairs.tolist() for j in ((b,) if a == i else (a,) if b == i else ())]
        extra = ("; " + ", ".join(links)) if links else ""
        self.header.setText(f"<b>Point {i}</b>{html_escape(truth + extra)}")
        for k, pane in enumerate(lab.panes):
            explanation = lab.explain(pane, i)
            self.shown.append(explanation)
            box = self._box(pane.title, explanation)
            change = objective_change(pane.run)
            if change:
                box.layout().insertWidget(0, _wrapped(change))
            self.column.insertWidget(1 + k, box)
            self.boxes.append(box)

    def _box(self, title: str, explanation: Explanation | None) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox(title)
        lay = QtWidgets.QVBoxLayout(box)
        if explanation is None:
            lay.addWidget(QtWidgets.QLabel("No explanation for this point at this state."))
            return box
        lay.addWidget(_wrapped(f"<b>{html_escape(explanation.phase)}</b>", rich=True))
        equation = _wrapped(explanation.equation)
        equation.setObjectName("equation")
        equation.setStyleSheet("QLabel#equation { font-family: 'DejaVu Serif', serif; "
                               "background: #f6f6f2; padding: 4px; }")
        lay.addWidget(equation)
        if explanation.text:
            lay.addWidget(_wrapped(explanation.text))
        before = explanation.before
        if explanation.moved:
            moved = _wrapped(f"Why it moved: {explanation.moved}")
            moved.setObjectName("moved")
            moved.setStyleSheet("QLabel#moved { background: #fff3d6; padding: 4px; }")
            lay.addWidget(moved)
        old = {} if before is None else {b.title: b for b in before.bars}
        for bars in explanation.bars:
            previous = old.get(bars.title)
            title = bars.title + ("  (lowest wins)" if bars.lower_is_better else "")
            if previous is not None:
                title += "  (outline: one iteration before)"
            lay.addWidget(_wrapped(title))
            lay.addWidget(BarChart(bars, before=previous))
        return box

    def texts(self) -> list[str]:
        """What the panel says, pane by pane (for scripts and tests)."""
        return [box.title() + ": " + " | ".join(
            label.text() for label in box.findChildren(QtWidgets.QLabel)) for box in self.boxes]
