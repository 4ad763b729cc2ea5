"""The teaching app driven through its real widgets, offscreen (pytest-qt)."""

import json
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("pytestqt")
from PIL import Image
from PySide6 import QtCore

from pairlab import PluginError, Registry
from pairlab.gui.app import MainWindow, default_lab
from pairlab.gui.model import Lab

from .support import BrokenPlugin, Shrink, click_point, click_xy, make_window

pytestmark = pytest.mark.gui


def test_launch_defaults(qtbot):
    lab = default_lab()
    assert lab.dataset_name == "two-moons"
    names = lab.algorithm_names()
    assert lab.panes[0].name == ("gmpr" if "gmpr" in names else names[0])
    window = MainWindow(lab)
    qtbot.addWidget(window)
    window.show()
    assert window.wait_idle(20)
    assert lab.panes[0].run is not None and lab.panes[0].error is None
    view = window.presentation.pane_views[0]
    assert len(view.canvas.layers.scatter.data) == lab.dataset.n_samples
    assert lab.constraints.n_must_link == 3 and lab.constraints.n_cannot_link == 3
    assert window.setup.dataset_combo.count() == len(lab.dataset_names())
    assert window.setup.pane_configs[0].combo.count() == len(names)


def test_play_until_convergence(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink", "gmm"), params={0: {"stop": 4}})
    window.transport.speed.setValue(30)
    window.play()
    qtbot.waitUntil(lambda: not window.transport.playing, timeout=20000)
    lab = window.lab
    assert all(p.finished and p.error is None for p in lab.panes)
    assert lab.panes[0].last_index == 4
    assert lab.iteration == lab.max_index
    assert window.transport.slider.value() == lab.max_index
    assert "converged" in window.presentation.pane_views[0].header.text()
    assert "purity" in window.presentation.pane_views[0].metrics.text()


def test_step_back_restores_the_earlier_state_exactly(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink",), params={0: {"stop": 6}})
    lab, pane = window.lab, window.lab.panes[0]
    layers = window.presentation.pane_views[0].canvas.layers
    seen = {}
    for _ in range(6):
        window.step_forward()
        assert window.wait_idle(10)
        seen[lab.iteration] = (lab.state(pane), layers.scatter.data["brush"].copy(),
                               window.transport.slider.value())
    steps = Shrink.steps
    for t in (5, 4, 3, 2):
        window.step_back()
        assert lab.iteration == t and not window.executor.busy  # nothing was computed
        state, brushes, slider = seen[t]
        assert lab.state(pane) is state
        assert all(a is b for a, b in zip(layers.scatter.data["brush"], brushes, strict=True))
        assert window.transport.slider.value() == slider == t
    window.seek(5)
    assert lab.state(pane) is seen[5][0]
    assert Shrink.steps == steps


def test_links_by_clicking_points(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink", "test-shrink"), links=None)
    lab = window.lab
    xy = lab.dataset.view
    # two well separated points
    i = int(np.argmin(xy[:, 0]))
    j = int(np.argmax(xy[:, 0]))
    k = int(np.argmax(xy[:, 1]))
    window.set_tool("must")
    click_point(qtbot, window, i)
    assert window.editing.pending_point == i
    assert window.presentation.pane_views[1].canvas.layers.selection.isVisible()
    click_point(qtbot, window, j, pane=1)  # either pane: they share the data
    assert lab.base.must_link.tolist() == [sorted([i, j])]
    window.set_tool("cannot")
    click_point(qtbot, window, j)
    click_point(qtbot, window, k)
    assert lab.base.cannot_link.tolist() == [sorted([j, k])]
    assert window.wait_idle(10)
    layers = window.presentation.pane_views[0].canvas.layers
    assert layers.links["must"].isVisible() and layers.links["cannot"].isVisible()
    dashed = (QtCore.Qt.PenStyle.DashLine, QtCore.Qt.PenStyle.CustomDashLine)
    assert layers.links["cannot"].opts["pen"].style() in dashed
    assert layers.links["must"].opts["pen"].style() == QtCore.Qt.PenStyle.SolidLine
    # delete the must-link by clicking the middle of its line
    window.set_tool("delete")
    mid = (xy[i] + xy[j]) / 2
    click_xy(qtbot, window, *mid)
    assert lab.base.n_must_link == 0 and lab.base.n_cannot_link == 1
    window.editing.undo()
    assert lab.base.n_must_link == 1


def test_place_initial_means_by_clicking(qtbot, registry):
    window = make_window(qtbot, registry, ("kmeans",), links=None, params={0: {"n_clusters": 2}})
    window.set_tool("means")
    click_xy(qtbot, window, 0.0, 0.5)
    assert window.wait_idle(10)
    assert "means_init" in window.lab.panes[0].error  # one mean for two clusters: explained
    assert "means_init" in window.banner.text()
    click_xy(qtbot, window, 1.0, -0.3)
    assert window.wait_idle(10)
    pane = window.lab.panes[0]
    assert pane.error is None
    np.testing.assert_allclose(pane.run.history[0].model["centers"], [[0.0, 0.5], [1.0, -0.3]],
                               atol=0.05)
    assert window.presentation.pane_views[0].canvas.layers.init_means.isVisible()


def test_random_links_and_noise_widgets(qtbot, registry):
    window = make_window(qtbot, registry, links=None)
    window.editing.n_must.setValue(4)
    window.editing.n_cannot.setValue(6)
    window.editing.add_random_links()
    lab = window.lab
    assert (lab.base.n_must_link, lab.base.n_cannot_link) == (4, 6)
    window.editing.set_noise(0.3)
    assert lab.noise == 0.3 and lab.constraints != lab.base and len(lab.constraints) == 10
    assert "30%" in window.editing.links_label.text()
    window.editing.clear_links()
    assert len(lab.base) == 0


def test_session_save_and_open_round_trip(qtbot, registry, tmp_path):
    window = make_window(qtbot, registry, ("test-shrink", "gmm"), params={0: {"stop": 4}})
    window.editing.set_noise(0.2)
    window.presentation.act_ellipses.setChecked(False)
    window.presentation.toggle_view()
    window.step_forward()  # while the runs are rebuilt: done once they are ready
    assert window.wait_idle(10)
    for _ in range(2):
        window.step_forward()
        assert window.wait_idle(10)
    path = tmp_path / "lesson.json"
    window.save_session(path)
    data = json.loads(path.read_text())
    assert data["iteration"] == 3 and data["view"]["ellipses"] is False
    assert [p["algorithm"] for p in data["panes"]] == ["test-shrink", "gmm"]

    other = make_window(qtbot, registry, ("test-shrink",), links=None)
    assert other.open_session(path)
    assert other.wait_idle(20)
    a, b = window.lab, other.lab
    assert b.iteration == 3 and b.constraints == a.constraints and b.noise == 0.2
    assert [p.name for p in b.panes] == ["test-shrink", "gmm"]
    assert len(other.presentation.pane_views) == 2 and not other.presentation.show_ellipses
    for pa, pb in zip(a.panes, b.panes, strict=True):
        assert pa.run.state.equals(pb.run.state)
    # a bad file leaves the app working and says why
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "pairlab-session", "dataset": {"name": "nope"}, '
                   '"panes": [{"algorithm": "gmm"}]}')
    assert not other.open_session(bad)
    assert "nope" in other.banner.text()
    assert other.wait_idle(10) and b.panes[0].run is not None


def test_autosave_writes_and_offers_restore(qtbot, registry, tmp_path):
    window = make_window(qtbot, registry)
    path = window.files.autosave()
    assert path.parent == tmp_path / "autosave"
    data = json.loads(path.read_text())
    assert data["clean_exit"] is False and data["format"] == "pairlab-session"
    restored = MainWindow(default_lab(registry), offer_restore=True)
    qtbot.addWidget(restored)
    assert "ended unexpectedly" in restored.banner.text()
    restored.banner.answer("restore")  # dismissed: the new session may take the autosave over
    restored.close()  # a clean exit is recorded
    assert json.loads(path.read_text())["clean_exit"] is True


def test_nan_algorithm_stops_with_a_message_and_the_app_keeps_working(qtbot, registry):
    window = make_window(qtbot, registry, ("test-nan", "test-shrink"))
    window.transport.speed.setValue(30)
    window.play()
    qtbot.waitUntil(lambda: not window.transport.playing, timeout=20000)
    bad, good = window.lab.panes
    assert bad.error is not None and "NaN" in bad.error and "test-nan" in bad.error
    assert "NaN" in window.banner.text()
    assert bad.last_index == 1
    # the app still works: the other pane goes on, and the broken one can be replaced
    window.run_to_end()
    assert window.wait_idle(10)
    assert good.finished and good.error is None and good.last_index == 5
    window.setup.pane_configs[0].combo.setCurrentIndex(window.setup.pane_configs[0].combo.findData("test-shrink"))
    assert window.wait_idle(10)
    assert window.lab.panes[0].name == "test-shrink" and window.lab.panes[0].error is None


def test_plugin_exception_is_reported_readably(qtbot, registry):
    window = make_window(qtbot, registry, ("test-crash",))
    window.step_forward()
    assert window.wait_idle(10)
    pane = window.lab.panes[0]
    assert "KeyError" in pane.error and "bug in the plugin" in pane.error
    assert "stopped: error" in window.presentation.pane_views[0].header.text()
    assert not window.step_forward()  # nothing more to compute, no exception


def test_broken_plugin_is_listed_and_does_not_stop_the_app(qtbot, registry):
    info = registry.register(BrokenPlugin(), name="broken-plugin")
    assert not info.ok and registry.failures
    window = make_window(qtbot, registry)
    dialog = window.help.show_plugins()
    text = dialog.browser.toPlainText()
    assert "broken-plugin" in text and "FAILED" in text and "broken on purpose" in text
    assert "gui-test-plugin" in text
    assert "failed to load" in window.banner.text() and "broken-plugin" in window.banner.text()
    window.step_forward()
    assert window.wait_idle(10) and window.lab.iteration == 1
    with pytest.raises(PluginError):
        registry.algorithm("broken-plugin")


def test_plugin_that_cannot_be_imported_is_listed(qtbot):
    from importlib import metadata

    bad = metadata.EntryPoint(name="ghost", value="pairlab_no_such_module_xyz", group="pairlab")
    registry = Registry(external=True, entry_points=[*metadata.entry_points(group="pairlab"), bad])
    window = make_window(qtbot, registry, ("kmeans",), params={0: {"n_clusters": 2}})
    text = window.help.show_plugins().browser.toPlainText()
    assert "ghost" in text and "failed to import" in text and "No module named" in text
    window.run_to_end()
    assert window.wait_idle(10) and window.lab.panes[0].run.converged


def test_long_steps_run_off_the_gui_thread_and_can_be_cancelled(qtbot, registry):
    window = make_window(qtbot, registry, ("test-slow",), params={0: {"stop": 50}})
    ticks = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(20)
    window.run_to_end()
    qtbot.waitUntil(lambda: window.transport.progress.isVisible(), timeout=3000)
    qtbot.wait(500)
    assert len(ticks) >= 10  # the event loop kept running while the worker computed
    window.transport.cancel()
    assert window.wait_idle(5)
    timer.stop()
    pane = window.lab.panes[0]
    assert 1 <= pane.last_index < 10 and not pane.finished
    assert not window.transport.progress.isVisible()


def test_cancel_while_runs_are_built_leaves_no_pane_behind(qtbot, registry):
    window = make_window(qtbot, registry, ("test-slow-start", "test-shrink"))
    window.setup.run_seed.setValue(3)  # a new algorithm seed rebuilds both panes
    assert window.executor.busy
    window.transport.cancel()
    assert window.wait_idle(10)
    assert all(p.run is not None and p.error is None for p in window.lab.panes)
    assert window.lab.seed == 3


def test_keyboard_shortcuts(qtbot, registry):
    window = make_window(qtbot, registry)
    window.activateWindow()
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Right)
    assert window.wait_idle(10) and window.lab.iteration == 1
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Left)
    assert window.lab.iteration == 0
    qtbot.keyClick(window, QtCore.Qt.Key.Key_M)
    assert window.editing.tool == "must"
    qtbot.keyClick(window, QtCore.Qt.Key.Key_C)
    assert window.editing.tool == "cannot"
    keys = {a.shortcut().toString() for a in window.actions()}
    assert {"Space", "Right", "Left", "M", "C", "D", "Ctrl+S", "Ctrl+O", "F11"} <= keys


def test_presentation_mode(qtbot, registry):
    window = make_window(qtbot, registry)
    small = window.presentation.pane_views[0].canvas.layers.scatter.opts["size"]
    window.presentation.toggle_presentation(on=True)
    assert (window.presentation.presenting
            and window.presentation.pane_views[0].canvas.layers.scatter.opts["size"] > small)
    assert not window.dock.isVisible()
    window.presentation.toggle_presentation(on=False)
    assert window.presentation.pane_views[0].canvas.layers.scatter.opts["size"] == small


def test_exports_are_not_blank(qtbot, registry, tmp_path):
    window = make_window(qtbot, registry, ("test-shrink", "gmm"), params={0: {"stop": 3}})
    window.step_forward()
    assert window.wait_idle(10)
    png, svg = tmp_path / "view.png", tmp_path / "view.svg"
    window.export_view(png)
    window.export_view(svg)
    pixels = np.asarray(Image.open(png).convert("RGB"), dtype=float)
    assert pixels.shape[1] > 600 and pixels.std() > 10
    # coloured points, not just black and white
    assert (np.ptp(pixels, axis=2) > 60).mean() > 0.002
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg") and len(list(root.iter())) > 50
    gif = tmp_path / "run.gif"
    window.export_animation(gif, "gif")
    with Image.open(gif) as im:
        assert im.n_frames == window.lab.max_index + 1
    folder = tmp_path / "frames"
    window.export_animation(folder, "frames")
    assert len(list(folder.glob("frame_*.png"))) == window.lab.max_index + 1


def test_compare_panes_and_parameter_form(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink",))
    window.setup.add_pane("gmm")
    assert window.wait_idle(10)
    assert len(window.presentation.pane_views) == 2 and window.lab.panes[1].run is not None
    form = window.setup.pane_configs[0].form
    field = form.fields["stop"]
    field.setValue(2)  # a spin box: committed at once
    assert window.wait_idle(10)
    assert window.lab.panes[0].params["stop"] == 2
    window.run_to_end()
    assert window.wait_idle(10)
    assert window.lab.panes[0].last_index == 2
    gmm_form = window.setup.pane_configs[1].form
    tol = gmm_form.fields["tol"]
    tol.setText("-1")
    tol.editingFinished.emit()
    assert "tol" in gmm_form.errors and "must be >=" in gmm_form.errors["tol"]
    window.setup.remove_pane(0)
    assert [p.name for p in window.lab.panes] == ["gmm"] and len(window.presentation.pane_views) == 1


def test_cli_screenshot(qtbot, tmp_path):
    from pairlab.cli import main

    out = tmp_path / "shot.png"
    code = main(["gui", "--dataset", "two-moons", "--data", "n_samples=80", "--algorithm", "gmm",
                 "--algorithm", "kmeans", "--set", "2:n_clusters=2", "--play", "3",
                 "--screenshot", str(out), "--size", "900x600"])
    assert code == 0
    pixels = np.asarray(Image.open(out).convert("RGB"), dtype=float)
    assert pixels.shape[:2] == (600, 900) and pixels.std() > 10


def test_cli_session_restores_its_iteration(qtbot, registry, tmp_path, capsys):
    from pairlab.cli import main

    window = make_window(qtbot, registry, ("gmm",))
    window.seek(2)
    assert window.wait_idle(10)
    session = window.save_session(tmp_path / "s.json")
    out = tmp_path / "shot.png"
    assert main(["gui", "--session", str(session), "--screenshot", str(out), "--size", "640x480"]) == 0
    assert "(iteration 2)" in capsys.readouterr().out
    assert out.exists()


def test_decision_regions_cover_a_zoomed_out_view(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",))
    vb = window.presentation.pane_views[0].canvas.layers.vb
    (x0, x1), (y0, y1) = vb.viewRange()
    vb.setRange(xRange=(x0 - 10, x1 + 10), yRange=(y0 - 10, y1 + 10), padding=0)
    qtbot.waitUntil(lambda: window.lab.bounds[0] <= vb.viewRange()[0][0], timeout=3000)
    bx, by, bw, bh = window.lab.bounds
    (x0, x1), (y0, y1) = vb.viewRange()
    assert by <= y0 and x1 <= bx + bw and y1 <= by + bh
    region = window.presentation.pane_views[0].canvas.layers.frame.regions
    assert region is not None and region.rect == window.lab.bounds


@pytest.mark.ci  # 15 s of CPU; every algorithm runs headless in test_conformance_builtins
def test_every_registered_algorithm_runs_in_a_pane(qtbot):
    registry = Registry()
    lab = Lab(registry)
    lab.set_dataset("two-moons", {"n_samples": 40}, seed=0)
    lab.add_pane("gmm")
    lab.add_random_links(3, 3)
    window = MainWindow(lab)
    qtbot.addWidget(window)
    window.show()
    combo = window.setup.pane_configs[0].combo
    assert sorted(combo.itemData(i) for i in range(combo.count())) == sorted(registry.names("algorithms"))
    for name in registry.names("algorithms"):
        window.setup.pane_configs[0].combo.setCurrentIndex(window.setup.pane_configs[0].combo.findData(name))
        assert window.wait_idle(30)
        for _ in range(2):
            window.step_forward()
            assert window.wait_idle(30)
        pane = window.lab.panes[0]
        assert pane.name == name
        assert pane.run is not None or pane.error, name  # ran, or says why not
        layers = window.presentation.pane_views[0].canvas.layers
        assert len(layers.scatter.data) == 40


def test_objective_plot_has_a_point_per_half_step(qtbot, registry):
    window = make_window(qtbot, registry, ("kmeans",), params={0: {"n_clusters": 3}})
    for _ in range(4):  # two whole iterations, by halves
        window.transport.half_step()
        assert window.wait_idle(20)
    window.refresh()
    run = window.lab.panes[0].run
    assert run.index == 2 and not run.on_half
    x, y = window.presentation.pane_views[0].objective.curve.getData()
    assert list(x) == [0.0, 0.5, 1.0, 1.5, 2.0]
    expected = [run.history[0].objective, run.halves[0].objective, run.history[1].objective,
                run.halves[1].objective, run.history[2].objective]
    assert list(y) == pytest.approx(expected)
    assert y[1] != y[0] and y[1] != y[2]  # the half-step's own change is drawn
    window.transport.half_step()
    assert window.wait_idle(20)
    window.refresh()
    x, _ = window.presentation.pane_views[0].objective.curve.getData()
    assert x[-1] == 2.5  # the half-step on screen is on the curve
    mx, my = window.presentation.pane_views[0].objective.marker.getData()
    assert (mx[0], my[0]) == (2.5, pytest.approx(run.state.objective))
    from pairlab.gui.explain_panel import objective_change

    assert "over the half-step update centres" in objective_change(run)
    for i in range(3):  # the centre step never raises the inertia (means minimise it)
        assert run.halves[i].objective <= run.history[i].objective + 1e-9
