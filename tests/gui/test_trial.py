"""Regression tests for what the classroom trial of the teaching app found (issue 20)."""


import numpy as np
import pytest

pytest.importorskip("pytestqt")
from PySide6 import QtCore, QtWidgets

from pairlab.gui.app import MainWindow
from pairlab.gui.model import Lab

from .support import click_xy, make_window

pytestmark = pytest.mark.gui



def test_banner_shows_quotes_not_html_entities(qtbot, registry):
    window = make_window(qtbot, registry, ("test-crash",))
    window.step_forward()
    assert window.wait_idle(10)
    shown = window.banner.plain_text()
    assert "KeyError: 'oops'" in shown and "&#x27;" not in shown


def test_banner_goes_once_the_cause_is_fixed(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",), n=40, params={0: {"n_components": 2}})
    params = dict(window.lab.panes[0].params, n_components=500)
    window.setup._pane_params_changed(0, params)
    assert window.wait_idle(10)
    assert window.lab.panes[0].error and window.banner.text("panes")
    window.setup._pane_params_changed(0, dict(params, n_components=2))
    assert window.wait_idle(10)
    assert window.lab.panes[0].error is None and window.banner.text() == ""
    # the same after placing the first of two initial means
    window.set_tool("means")
    click_xy(qtbot, window, 0.0, 0.5)
    assert window.wait_idle(10) and "means_init" in window.banner.text()
    click_xy(qtbot, window, 1.0, -0.3)
    assert window.wait_idle(10) and window.banner.text() == ""


def test_a_data_parameter_that_keeps_the_points_keeps_the_links(qtbot, registry):
    window = make_window(qtbot, registry, n=60, links=(2, 2))
    lab, form = window.lab, window.setup.dataset_form
    links = lab.base.to_dict()
    form.fields["noise"].setText("0.2")
    form.fields["noise"].editingFinished.emit()
    assert window.wait_idle(10)
    assert lab.dataset_params["noise"] == 0.2 and lab.base.to_dict() == links
    window.setup.data_seed.setValue(5)  # a new data seed: the links that turned wrong are redrawn
    assert window.wait_idle(10) and lab.dataset_seed == 5
    y, base = lab.dataset.y, lab.base
    assert (len(base.must_link), len(base.cannot_link)) == (2, 2)
    assert all(y[a] == y[b] for a, b in base.must_link)
    assert all(y[a] != y[b] for a, b in base.cannot_link)
    links = base.to_dict()
    form = window.setup.dataset_form
    form.fields["n_samples"].setValue(80)  # other points: the links go, undoably, with a word
    assert window.wait_idle(10)
    assert lab.dataset.n_samples == 80 and len(lab.base) == 0
    assert "4 link(s) dropped" in window.status.currentMessage()
    window.editing.undo()
    assert window.wait_idle(10)
    assert lab.dataset.n_samples == 60 and lab.base.to_dict() == links
    assert window.setup.dataset_form.fields["n_samples"].value() == 60


def test_nothing_overwrites_a_crashed_session_before_the_user_answers(qtbot, registry):
    first = make_window(qtbot, registry)
    path = first.files.autosave()  # what a crash leaves behind (clean_exit false)
    crashed = path.read_text()
    first.files.autosave_enabled = False
    restored = MainWindow(_lab(registry), offer_restore=True)
    qtbot.addWidget(restored)
    restored.show()
    assert restored.wait_idle(20)
    restored.editing.add_random_links()  # edits schedule an autosave...
    qtbot.wait(1700)  # ...1.5 s later
    assert restored.files.autosave() is None and path.read_text() == crashed
    restored.close()  # no clean-exit mark either: the offer comes back next time
    assert path.read_text() == crashed
    again = MainWindow(_lab(registry), offer_restore=True)
    qtbot.addWidget(again)
    assert "ended unexpectedly" in again.banner.text()
    again.banner.answer("restore")
    assert again.files.autosave() == path and path.read_text() != crashed


def _lab(registry):
    lab = Lab(registry)
    lab.set_dataset("two-moons", {"n_samples": 50}, seed=1)
    lab.add_pane("test-shrink")
    return lab


def test_csv_data_set_offers_a_file_picker(qtbot, registry, tmp_path, monkeypatch):
    window = make_window(qtbot, registry)
    combo = window.setup.dataset_combo
    combo.setCurrentIndex(combo.findData("csv"))
    assert window.lab.dataset_name == "two-moons"  # nothing to load yet, no error
    assert window.banner.text() == ""
    form = window.setup.dataset_form
    assert "path" in form.fields and "path" in form.browse_buttons
    table = tmp_path / "points.csv"
    rng = np.random.default_rng(0)
    rows = [f"{a:.3f},{b:.3f},{int(a > 0)}" for a, b in rng.normal(size=(30, 2))]
    table.write_text("x,y,class\n" + "\n".join(rows) + "\n")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(table), "")))
    form.fields["label"].setText("class")
    qtbot.mouseClick(form.browse_buttons["path"], QtCore.Qt.MouseButton.LeftButton)
    assert window.wait_idle(10)
    assert window.lab.dataset_name == "csv" and window.lab.dataset.n_samples == 30


def test_transport_keys_act_unless_text_is_being_typed(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",), params={0: {"n_components": 2}})
    window.activateWindow()
    seed = window.setup.data_seed
    seed.setFocus()
    qtbot.waitUntil(seed.hasFocus, timeout=2000)
    qtbot.keyClick(seed, QtCore.Qt.Key.Key_Right)  # a committed field: the transport steps
    assert window.wait_idle(10) and window.lab.iteration == 1
    qtbot.keyClick(seed, QtCore.Qt.Key.Key_Space)
    assert window.transport.playing
    window.pause()
    tol = window.setup.pane_configs[0].form.fields["tol"]
    tol.setFocus()
    qtbot.waitUntil(tol.hasFocus, timeout=2000)
    tol.setText("")
    qtbot.keyClicks(tol, "0.01")  # typing: the field keeps Space and the arrows
    qtbot.keyClick(tol, QtCore.Qt.Key.Key_Space)
    qtbot.keyClick(tol, QtCore.Qt.Key.Key_Left)
    assert tol.text() == "0.01 " and not window.transport.playing
    qtbot.keyClick(tol, QtCore.Qt.Key.Key_Backspace)
    qtbot.keyClick(tol, QtCore.Qt.Key.Key_Return)  # committed: Space plays again
    qtbot.keyClick(tol, QtCore.Qt.Key.Key_Space)
    assert window.transport.playing
    window.pause()


def test_the_transport_keys_watch_only_the_focused_text_field(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",), params={0: {"n_components": 2}})
    window.activateWindow()
    keys = window.transport.keys
    seed = window.setup.data_seed
    seed.setFocus()
    qtbot.waitUntil(seed.hasFocus, timeout=2000)
    assert keys.watched is seed  # the filter follows the focus onto a field
    canvas = window.presentation.pane_views[0].canvas
    canvas.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
    canvas.setFocus()
    qtbot.waitUntil(canvas.hasFocus, timeout=2000)
    assert keys.watched is None  # not a text field: no filter anywhere, Space plays
    qtbot.keyClick(canvas, QtCore.Qt.Key.Key_Right)
    assert window.wait_idle(10) and window.lab.iteration == 1


def test_class_counts_follow_the_data_set(qtbot, registry):
    pytest.importorskip("sklearn")
    window = make_window(qtbot, registry, ("gmm",), params={0: {"n_components": 2}})
    combo = window.setup.dataset_combo
    combo.setCurrentIndex(combo.findData("iris"))
    assert window.wait_idle(20)
    assert window.lab.panes[0].params["n_components"] == 3
    assert window.setup.pane_configs[0].form.values()["n_components"] == 3
    window.setup.add_pane("kmeans")
    assert window.wait_idle(20) and window.lab.panes[1].params["n_clusters"] == 3


def test_wine_view_is_not_a_flat_line():
    pytest.importorskip("sklearn")
    lab = Lab()
    lab.set_dataset("wine")
    spread = lab.dataset.view.std(axis=0)
    assert spread.min() > 0.3 * spread.max()
    assert lab.view_map.exact  # means and ellipses still map onto the view


def test_progress_shows_the_count_and_the_latest_state(qtbot, registry):
    window = make_window(qtbot, registry, ("test-slow",), params={0: {"stop": 50}})
    bar = window.transport.progress
    window.run_to_end()
    view = window.presentation.pane_views[0]
    qtbot.waitUntil(lambda: bar.isVisible() and bar.maximum() > 0 and bar.value() >= 2,
                    timeout=5000)
    assert window.executor.busy and window.lab.iteration == 0
    assert view.frame.info.startswith("iteration ") and int(view.frame.info.split()[1]) >= 1
    assert "computing" in window.transport.iteration_label.text()
    text = bar.text()
    assert "/" in text and bar.fontMetrics().horizontalAdvance(text) < bar.width() - 10
    window.transport.cancel()
    assert window.wait_idle(5)


def test_tool_buttons_keep_their_key_hints(qtbot, registry):
    window = make_window(qtbot, registry, ("kmeans",), params={0: {"n_clusters": 2}})
    window.set_tool("must")
    window.set_tool("means")
    click_xy(qtbot, window, 0.0, 0.5)  # enables "Clear means": the action changes
    assert window.wait_idle(10)
    texts = {b.text() for b in window.dock.findChildren(QtWidgets.QToolButton)}
    assert {"Select (S)", "Must-link (M)", "Means (I)", "Clear means"} <= texts
    tips = [b.toolTip() for b in window.transport.transport_buttons]
    assert all("(" in t for t in tips)  # each names its key
