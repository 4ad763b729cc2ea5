"""What runs: the data set with its parameters and seeds, and one algorithm box per pane."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6 import QtWidgets

from .controller import Controller
from .widgets import PaneConfig, ParamForm

if TYPE_CHECKING:
    from .app import MainWindow

__all__ = ["SetupControls"]


class SetupControls(Controller):
    """The Data and Algorithms boxes of the Controls dock."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.act_add_pane = self.action("Add pane for comparison", lambda: self.add_pane(), "P")
        self.pane_configs: list[PaneConfig] = []
        self.dataset_form: ParamForm | None = None
        self.form_dataset = ""  # the data set the form edits (before a file is chosen: not loaded)
        self.data_box = self._build_data_box()
        self.panes_box = self._build_panes_box()

    def _build_data_box(self) -> QtWidgets.QGroupBox:
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
        return box

    def _build_panes_box(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Algorithms")
        self.panes_box_layout = QtWidgets.QVBoxLayout(box)
        self.add_pane_button = QtWidgets.QPushButton("+ Add pane for comparison")
        self.add_pane_button.clicked.connect(lambda: self.add_pane())
        self.panes_box_layout.addWidget(self.add_pane_button)
        return box

    # == keeping widgets in step with the lab ==================================================
    def sync_dataset_form(self) -> None:
        """Show the lab's data set, its parameters and the seeds."""
        self.show_form(self.lab.dataset_name, self.lab.dataset_params)
        for box, value in ((self.data_seed, self.lab.dataset_seed), (self.run_seed, self.lab.seed)):
            box.blockSignals(True)
            box.setValue(int(value) if value is not None else 0)
            box.blockSignals(False)

    def show_form(self, name: str, values: Mapping[str, Any]) -> None:
        """The parameter form of data set ``name`` (maybe not loaded yet: a file to choose)."""
        spec = self.lab.registry.dataset(name)
        self.form_dataset = spec.name
        self.dataset_combo.blockSignals(True)
        self.dataset_combo.setCurrentIndex(max(0, self.dataset_combo.findData(spec.name)))
        self.dataset_combo.blockSignals(False)
        if self.dataset_form is not None:
            self.dataset_form_holder.removeWidget(self.dataset_form)
            self.dataset_form.hide()
            self.dataset_form.setParent(None)
            self.dataset_form.deleteLater()
        self.dataset_form = ParamForm(spec.params, values)
        self.dataset_form.changed.connect(self._dataset_params_changed)
        self.dataset_form_holder.addWidget(self.dataset_form)

    def sync_configs(self) -> None:
        """One algorithm box per pane of the lab."""
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

    # == edits =================================================================================
    def _dataset_chosen(self) -> None:
        name = self.dataset_combo.currentData()
        if not name or name == self.form_dataset:
            return
        spec = self.lab.registry.dataset(name)
        if any(p.name == "path" for p in spec.params):
            # a data set read from a file: show its form (with a file picker) and wait for a path
            self.show_form(name, {})
            self.window.status.showMessage(f"Choose the file for data set {name!r} (path).", 8000)
            return
        self._load(name, None)

    def _dataset_params_changed(self, *args: Any) -> None:
        if self.dataset_form is None:
            return
        values = self.dataset_form.values()
        if self.dataset_form.errors:  # keep the last good value of a field in error
            self._say_kept(self.dataset_form.errors)
            if self.form_dataset != self.lab.dataset_name:
                return
            values = {**self.lab.dataset_params, **values}
        self._load(self.form_dataset, values)

    def _say_kept(self, errors: dict[str, str]) -> None:
        """Say which fields are in error and that their last valid value is still used."""
        names = ", ".join(name.replace("_", " ") for name in errors)
        first = next(iter(errors.values()))
        self.window.status.showMessage(f"{first} ({names}: the last valid value is kept)", 10000)

    def _load(self, name: str, values: dict | None) -> None:
        """Load data set ``name``; the same data set keeps its links when the number of points
        is unchanged, and any change can be undone (Ctrl+Z)."""
        w = self.window
        same = name == self.lab.dataset_name
        if w.guard(partial(self.lab.set_dataset, keep_links=same, undoable=True), name, values,
                   self.data_seed.value()) is w.ERROR:
            return
        if not same:
            w.sync_dataset_form()
        self.sync_configs()  # class counts follow the data set's number of classes
        w.presentation.fit_views()
        w.setup_changed()
        dropped = self.lab.dropped_links
        if self.lab.redrawn_links:
            n = self.lab.redrawn_links
            w.status.showMessage(f"New points under the same indices: {n} link(s) no longer "
                                 "matched the true classes and were drawn again (random pairs of "
                                 "the classes); Ctrl+Z brings the old data and links back.", 15000)
        elif dropped:
            why = "the number of points changed" if same else "a new data set"
            w.status.showMessage(f"{dropped} link(s) dropped ({why}); Ctrl+Z brings them back.",
                                 10000)

    def _run_seed_changed(self, value: int) -> None:
        self.lab.set_seed(value)
        self.window.setup_changed()

    def _pane_algorithm_changed(self, index: int, name: str) -> None:
        w = self.window
        if w.guard(self.lab.set_pane_algorithm, index, name) is not w.ERROR:
            pane = self.lab.panes[index]
            self.pane_configs[index].set_algorithm(pane.algorithm, pane.params)
            w.setup_changed()

    def _pane_params_changed(self, index: int, values: dict) -> None:
        w = self.window
        form = self.pane_configs[index].form if index < len(self.pane_configs) else None
        if form is not None and form.errors:  # the other fields' edits still apply
            self._say_kept(form.errors)
            values = {**self.lab.panes[index].params, **values}
        if w.guard(self.lab.set_pane_params, index, values) is not w.ERROR:
            w.setup_changed()

    def add_pane(self, algorithm: str | None = None, params: dict | None = None) -> None:
        """Add a pane; by default the algorithm a first pane is most often compared with."""
        if algorithm is None:
            names = self.lab.algorithm_names()
            used = {p.name for p in self.lab.panes}
            preferred = [n for n in ("gmm", "gmpr", "kmeans") if n in names and n not in used]
            algorithm = preferred[0] if preferred else self.lab.panes[-1].name
        w = self.window
        if w.guard(self.lab.add_pane, algorithm, params) is not w.ERROR:
            w.sync_panes()
            w.setup_changed()

    def remove_pane(self, index: int) -> None:
        w = self.window
        if w.guard(self.lab.remove_pane, index) is not w.ERROR:
            w.sync_panes()
            w.setup_changed()
