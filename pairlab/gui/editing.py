"""Link and means editing: the link tools, clicks on the panes, random links, noise and undo."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..draw.geometry import nearest_point
from .controller import Controller, tool_button

if TYPE_CHECKING:
    from .app import MainWindow

__all__ = ["HIT_RADIUS", "TOOLS", "Editing"]

TOOLS = ("select", "must", "cannot", "delete", "means", "move", "draw")
_TOOL_HINTS = {
    "select": "Select: click a point to see its class, label and the numbers behind it (F3).",
    "must": "Must-link tool: click two points that belong together.",
    "cannot": "Cannot-link tool: click two points that belong apart.",
    "delete": "Delete tool: click a link to remove it.",
    "means": "Initial means: click where each starting mean goes.",
    "move": "Move a mean: drag a mean (×) and the run continues from there (Ctrl+Z undoes).",
    "draw": "Draw points: click to add a point of the chosen class; the runs restart (Ctrl+Z "
            "undoes).",
}
HIT_RADIUS = 12.0  # pixels


class Editing(Controller):
    """The tools (select, must-link, cannot-link, delete, initial means) and the Links box."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.tool = "select"
        self.pending_point: int | None = None  # first end of a link being drawn
        self.selected_point: int | None = None  # the point the explanation panel explains
        self._drag: tuple[int, int] | None = None  # (pane, mean) being dragged
        A = self.action
        Key = QtGui.QKeySequence.StandardKey
        self.tool_actions: dict[str, QtGui.QAction] = {}
        group = QtGui.QActionGroup(self)
        for name, text, key in (("select", "Select", "S"), ("must", "Must-link", "M"),
                                ("cannot", "Cannot-link", "C"), ("delete", "Delete link", "D"),
                                ("means", "Place initial means", "I"),
                                ("move", "Move a mean", "G"), ("draw", "Draw points", "B")):
            act = A(text, partial(self.set_tool, name), key, checkable=True, tip=_TOOL_HINTS[name])
            group.addAction(act)
            self.tool_actions[name] = act
        self.act_random = A("Add random links", self.add_random_links, "R",
                            tip="Draw links from the ground truth")
        self.act_clear = A("Clear links", self.clear_links, "Ctrl+Shift+Backspace")
        self.act_clear_means = A("Clear initial means", self.clear_means)
        self.act_undo = A("Undo", self.undo, Key.Undo, tip="Undo the last link, means or data edit")
        self.box = self._build_box()

    def menu_actions(self) -> list[Any]:
        return [self.act_undo, None, *self.tool_actions.values(), None,
                self.act_random, self.act_clear, self.act_clear_means]

    def _build_box(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Links")
        lay = QtWidgets.QVBoxLayout(box)
        tools = QtWidgets.QGridLayout()
        for k, (name, text) in enumerate((("select", "Select (S)"), ("must", "Must-link (M)"),
                                          ("cannot", "Cannot-link (C)"),
                                          ("delete", "Delete (D)"), ("means", "Means (I)"),
                                          ("move", "Move mean (G)"),
                                          ("draw", "Draw points (B)"))):
            button = tool_button(self.tool_actions[name], text)
            button.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding,
                                 QtWidgets.QSizePolicy.Policy.Fixed)
            tools.addWidget(button, k // 2, k % 2)
        self.draw_class = QtWidgets.QSpinBox()
        self.draw_class.setObjectName("draw_class")
        self.draw_class.setPrefix("class ")
        self.draw_class.setRange(0, 0)
        self.draw_class.setToolTip("The class of the points the Draw tool adds (one more than "
                                   "the data's classes makes a new class)")
        tools.addWidget(self.draw_class, 3, 1)
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
            row.addWidget(tool_button(action, text))
        lay.addLayout(row)
        self.links_label = QtWidgets.QLabel()
        self.links_label.setWordWrap(True)
        lay.addWidget(self.links_label)
        return box

    def sync(self) -> None:
        """Show the lab's noise level (after a new or opened session)."""
        self.noise.blockSignals(True)
        self.noise.setValue(round(self.lab.noise * 100))
        self.noise.blockSignals(False)
        self._noise_label(self.noise.value())

    def update(self) -> None:
        lab = self.lab
        c = lab.constraints
        text = f"{c.n_must_link} must-links, {c.n_cannot_link} cannot-links"
        if lab.noise > 0:
            text += f" ({lab.noise:.0%} flipped)"
        if not c.is_consistent:
            text += f"; {len(c.conflicts)} contradiction(s)"
        if lab.init_means is not None:
            text += f"; {len(lab.init_means)} initial mean(s) placed"
        if len(lab.drawn):
            text += f"; {len(lab.drawn)} point(s) drawn"
        self.links_label.setText(text)
        self.act_clear_means.setEnabled(lab.init_means is not None)
        if self.draw_class.maximum() != (lab.n_classes or 0):  # a new range lays the dock out
            self.draw_class.setMaximum(lab.n_classes or 0)
        self.tool_actions["means"].setEnabled(lab.accepts_means)

    # == edits =================================================================================
    def add_random_links(self) -> None:
        added = self.window.guard(self.lab.add_random_links, self.n_must.value(),
                                  self.n_cannot.value())
        if added is not self.window.ERROR:
            self.window.status.showMessage(f"Added {added[0]} must-links and {added[1]} "
                                           "cannot-links from the ground truth.", 5000)
            self.window.setup_changed()

    def clear_links(self) -> None:
        self.lab.clear_links()
        self.pending_point = None
        self.window.setup_changed()

    def clear_means(self) -> None:
        self.lab.clear_init_means()
        self.window.setup_changed()

    def undo(self) -> None:
        """Undo the last link, means, data set or moved-mean edit."""
        if self.window.executor.busy and self.lab.undo_kind == "history":
            return  # a worker may own that run: undo once it is idle
        before = (self.lab.dataset_name, self.lab.dataset_params, self.lab.dataset_seed)
        what = self.lab.undo()
        if what == "history":
            self.window.status.showMessage("The mean is back, with the history after it.", 5000)
            self.window.refresh()
        elif what:
            w = self.window
            if (self.lab.dataset_name, self.lab.dataset_params, self.lab.dataset_seed) != before:
                w.sync_dataset_form()
                w.setup.sync_configs()
                w.presentation.fit_views()
            w.setup_changed()
            lab = self.lab
            data = (f"data set {lab.dataset_name} (seed {lab.dataset_seed}), "
                    if (lab.dataset_name, lab.dataset_params, lab.dataset_seed) != before else "")
            w.status.showMessage(f"Undone: {data}{len(lab.base.must_link)} must-link(s) and "
                                 f"{len(lab.base.cannot_link)} cannot-link(s) as before.", 6000)
        else:
            self.window.status.showMessage("Nothing to undo.", 3000)

    def _noise_label(self, value: int) -> None:
        self.noise_text.setText(f"{value} %")

    def _noise_changed(self, *args: Any) -> None:
        value = self.noise.value() / 100
        if abs(value - self.lab.noise) > 1e-12:
            self.lab.set_noise(value)
            self.window.setup_changed()

    def set_noise(self, fraction: float) -> None:
        self.noise.setValue(round(fraction * 100))
        self._noise_changed()

    # == tools and clicks ======================================================================
    def set_tool(self, name: str) -> None:
        if name not in TOOLS:
            raise ValueError(f"tool must be one of {TOOLS}, got {name!r}")
        status = self.window.status
        if name == "means" and not self.lab.accepts_means:
            status.showMessage("None of the algorithms shown accepts initial means.", 5000)
        self.tool = name
        self.pending_point = None
        self.tool_actions[name].setChecked(True)
        self.set_cursors()
        status.showMessage(_TOOL_HINTS[name])
        self.window.refresh()

    def set_cursors(self) -> None:
        cursor = (QtCore.Qt.CursorShape.ArrowCursor if self.tool == "select"
                  else QtCore.Qt.CursorShape.CrossCursor)
        for view in self.window.presentation.pane_views:
            view.canvas.viewport().setCursor(cursor)

    # == dragging a mean ========================================================================
    def grab(self, view: Any, x: float, y: float, px: float, py: float) -> bool:
        """A press on a pane: start dragging the mean under it (Move tool only)."""
        if self.tool != "move" or self.window.executor.busy or view.frame is None:
            return False
        means = view.frame.means
        k = None if means is None else nearest_point(means, x, y, px, py, HIT_RADIUS)
        if k is None:
            self.window.status.showMessage("Press on a mean (×) to drag it.", 3000)
            return False
        self._drag = (self.window.presentation.pane_views.index(view), k)
        return True

    def drag_to(self, view: Any, x: float, y: float) -> None:
        if self._drag is not None:
            view.canvas.layers.preview_mean(self._drag[1], x, y)

    def drop(self, view: Any, x: float, y: float) -> None:
        """Move the dragged mean there and continue the run from it."""
        if self._drag is None:
            return
        index, k = self._drag
        self._drag = None
        w = self.window
        pane = self.lab.panes[index]
        before = pane.last_index
        if w.guard(self.lab.move_mean, pane, k, x, y) is not w.ERROR:
            dropped = before - self.lab.iteration
            w.status.showMessage(f"Moved mean {k} of {pane.title}; iteration {self.lab.iteration} "
                                 f"recomputed from it ({max(dropped, 0)} later iteration(s) "
                                 "dropped; Ctrl+Z brings them back).", 8000)
        w.refresh()

    def drop_pending(self) -> None:
        """Esc: forget the first point of a half-drawn link."""
        if self.pending_point is not None:
            self.pending_point = None
            self.window.refresh()

    def canvas_clicked(self, x: float, y: float, px: float, py: float, modifiers: Any) -> None:
        lab = self.lab
        status = self.window.status
        if lab.dataset is None or self.window.predict.active:  # the game takes the clicks
            return
        if self.tool in ("must", "cannot"):
            i = lab.point_at(x, y, px, py, HIT_RADIUS)
            if i is None:
                status.showMessage("Click closer to a point.", 3000)
                return
            if self.pending_point is None or self.pending_point == i:
                self.pending_point = None if self.pending_point == i else i
                if self.pending_point is not None:
                    status.showMessage(f"Point {i} selected; click the second point "
                                       "(Esc cancels).")
                else:
                    status.showMessage(f"Point {i} unselected; no link drawn.", 3000)
                self.window.refresh()
                return
            first, self.pending_point = self.pending_point, None
            kind = "must-link" if self.tool == "must" else "cannot-link"
            if lab.add_link(self.tool, first, i):
                status.showMessage(f"Added a {kind} between points {first} and {i}.", 4000)
                self.window.setup_changed()
            else:  # never leave "click the second point" up after the second click
                status.showMessage(f"Points {first} and {i} already have a {kind}; nothing "
                                   "changed.", 5000)
                self.window.refresh()
        elif self.tool == "delete":
            pair = lab.link_at(x, y, px, py, HIT_RADIUS)
            if pair is None:
                status.showMessage("Click on a link to delete it.", 3000)
                return
            lab.remove_link(*pair)
            status.showMessage(f"Removed the link between points {pair[0]} and {pair[1]}.", 4000)
            self.window.setup_changed()
        elif self.tool == "draw":
            cls = self.draw_class.value()
            i = self.window.guard(lab.add_point, x, y, cls)
            if i is not self.window.ERROR:
                status.showMessage(f"Drew point {i} of class {cls}; the panes restart from the "
                                   "edited data (Ctrl+Z undoes).", 5000)
                self.window.setup_changed()
        elif self.tool == "means":
            lab.add_init_mean(x, y)
            n = 0 if lab.init_means is None else len(lab.init_means)
            status.showMessage(f"{n} initial mean(s) placed; the panes restart from them.", 5000)
            self.window.setup_changed()
        else:
            i = lab.point_at(x, y, px, py, HIT_RADIUS)
            self.selected_point = i
            if i is not None:
                status.showMessage(self.describe_point(i), 8000)
            self.window.refresh()

    def describe_point(self, i: int) -> str:
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
