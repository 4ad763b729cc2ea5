"""The teaching features of issue 20: colours matched to the classes, marks, toggles, objective."""

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from pairlab import State
from pairlab.draw.frames import build_frame
from pairlab.gui.canvas import ObjectivePlot
from pairlab.gui.model import Lab

from .support import click_point, make_window

pytestmark = pytest.mark.gui



def _state(labels, k=2):
    labels = np.asarray(labels)
    r = np.eye(k)[labels]
    return State(1, labels, r, objective=0.0, objective_name="x", model={})


def test_colours_follow_the_matched_true_class_whatever_the_label_numbers():
    lab = Lab()
    lab.set_dataset("two-moons", {"n_samples": 40}, seed=0)
    y = lab.dataset.y
    swapped = _state(1 - y)  # a run that calls class 0 "1" and class 1 "0"
    plain = build_frame(lab.dataset, None, swapped)
    matched = build_frame(lab.dataset, None, swapped, match_truth=True)
    assert np.array_equal(plain.colour, 1 - y)
    assert np.array_equal(matched.colour, y) and not matched.wrong.any()
    assert matched.n_true_classes == 2
    labels = 1 - y
    labels[:3] = y[:3]  # three points in the other cluster
    prev = build_frame(lab.dataset, None, _state(labels), match_truth=True, previous=swapped)
    assert np.flatnonzero(prev.wrong).tolist() == [0, 1, 2]
    assert np.flatnonzero(prev.changed).tolist() == [0, 1, 2]


def test_objective_cursor_moves_without_re_laying_out_the_axes(qtbot):
    plot = ObjectivePlot()
    qtbot.addWidget(plot)
    plot.resize(400, 150)
    plot.show()
    values = -500.0 + 400.0 * (1.0 - np.exp(-np.arange(30) / 3.0))
    plot.show_values(values, 3, "log-likelihood")
    plot.grab()
    vb, axis = plot.getPlotItem().getViewBox(), plot.getPlotItem().getAxis("left")
    before = vb.viewRange()
    assert axis.picture is not None
    for t in (7, 12, 29, 0):
        plot.show_values(values, t, "log-likelihood")
        assert vb.viewRange() == before and axis.picture is not None  # nothing re-laid out
    y0 = before[1][0]
    assert values[0] < y0 < values[1]  # fitted to iterations 1.. (iteration 0 flattened it)
    plot.set_skip_first(False)
    assert vb.viewRange()[1][0] < values[0]


def test_view_toggles_reach_every_pane(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm", "kmeans"), n=60, links=(3, 3),
                         params={0: {"n_components": 2}, 1: {"n_clusters": 2}})
    window.step_forward()
    assert window.wait_idle(10)
    p = window.presentation
    layers = [v.canvas.layers for v in p.pane_views]
    frames = [v.frame for v in p.pane_views]
    # the same true class has the same colour in both panes wherever both agree with the truth
    right = ~frames[0].wrong & ~frames[1].wrong
    assert right.any() and np.array_equal(frames[0].colour[right], frames[1].colour[right])
    assert any(f.changed is not None and f.changed.any() for f in frames)
    assert any(la.changed.isVisible() for la in layers)
    p.act_links.setChecked(False)
    p.toggle_view()
    assert not any(la.links["must"].isVisible() or la.violations.isVisible() for la in layers)
    p.act_errors.setChecked(True)
    p.act_legend.setChecked(True)
    p.toggle_view()
    assert layers[0].wrong.isVisible() == bool(frames[0].wrong.any())
    legend = layers[-1].legend
    names = [label.text for _, label in legend.items]
    assert names[:2] == ["class 0", "class 1"]
    options = p.view_options()
    assert options["links"] is False and options["errors"] is True


def test_half_steps_forward_and_back_in_the_app(qtbot, registry):
    from pairlab import Run

    window = make_window(qtbot, registry, ("gmm", "test-shrink"), n=60, links=(2, 2),
                         params={0: {"n_components": 2}})
    lab, (gmm, shrink) = window.lab, window.lab.panes
    assert all(b.isVisible() for b in window.transport.half_buttons)
    window.transport.half_step()
    assert window.wait_idle(10)
    assert lab.on_half and lab.iteration == 1
    assert gmm.run.on_half and gmm.run.state.phase == "M-step"
    assert shrink.run.index == 0  # whole iterations only: moves on the second half
    assert "M-step" in window.transport.iteration_label.text()
    assert "M-step" in window.presentation.pane_views[0].frame.info
    assert window.presentation.pane_views[0].objective.cursor.value() == 0.5
    window.transport.half_step()
    assert window.wait_idle(10)
    assert not lab.on_half and lab.iteration == 1 and shrink.run.index == 1
    whole = Run("gmm", lab.dataset, lab.constraints, lab.run_params(gmm), seed=lab.seed,
                registry=registry)
    whole.step()
    np.testing.assert_array_equal(gmm.run.state.responsibilities, whole.state.responsibilities)
    window.transport.half_back()  # replayed: nothing is computed
    assert not window.executor.busy and lab.on_half and gmm.run.state.phase == "M-step"
    window.transport.half_back()
    assert not lab.on_half and lab.iteration == 0
    window.step_forward()  # whole steps still work, and from a half-step finish it
    window.transport.half_step()
    assert window.wait_idle(10) and lab.on_half and lab.iteration == 2
    window.step_forward()
    assert window.wait_idle(10) and not lab.on_half and lab.iteration == 2


def test_explanation_panel_explains_the_clicked_point(qtbot, registry):

    window = make_window(qtbot, registry, ("gmm",), n=60, params={0: {"n_components": 2}})
    panel = window.explanation
    panel.dock.show()
    window.set_tool("select")
    click_point(qtbot, window, 7)
    assert window.editing.selected_point == 7
    assert "Point 7" in panel.header.text()
    (explanation,) = panel.shown
    assert explanation.point == 7 and "E-step" in explanation.equation
    r = window.lab.state(window.lab.panes[0]).responsibilities[7]
    np.testing.assert_allclose(explanation.bars[0].values, r)
    assert "E-step" in panel.texts()[0]
    window.transport.half_step()
    assert window.wait_idle(10)
    assert "M-step" in panel.shown[0].equation
    assert window.presentation.pane_views[0].canvas.layers.selection.isVisible()


def test_gif_export_by_half_steps(qtbot, registry, tmp_path):
    from PIL import Image

    window = make_window(qtbot, registry, ("kmeans",), n=40, params={0: {"n_clusters": 2}})
    gif = window.export_animation(tmp_path / "halves.gif", "gif", halves=True)
    last = window.lab.max_index
    with Image.open(gif) as im:
        assert im.n_frames == 2 * last + 1  # iteration 0, then a half and a whole per iteration


def _lessons_from_the_menu(qtbot, count=None):
    """Open the first ``count`` shipped lessons (all if None) from the Lessons menu, in order."""
    from pairlab.gui.app import MainWindow
    from pairlab.gui.lessons import lessons

    shipped = lessons()
    assert len(shipped) >= 6 and all(0 < len(lesson.note.splitlines()) <= 2 for lesson in shipped)
    lab = Lab()
    lab.set_dataset("two-moons", {"n_samples": 40}, seed=0)
    lab.add_pane("gmm")
    window = MainWindow(lab, autosave=False)
    qtbot.addWidget(window)
    window.show()
    assert window.wait_idle(30)
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Lessons")
    assert [a.text() for a in menu.actions()] == [lesson.title for lesson in shipped]
    for action, lesson in list(zip(menu.actions(), shipped, strict=True))[:count]:
        action.trigger()
        assert window.wait_idle(60)
        assert [p.name for p in window.lab.panes] == [p["algorithm"] for p in lesson.data["panes"]]
        assert all(p.run is not None and p.error is None for p in window.lab.panes), lesson.name
        assert lesson.title in window.banner.plain_text()
        assert lesson.title in window.windowTitle()
    window.step_forward()
    assert window.wait_idle(30) and window.lab.iteration == 1


def test_lessons_menu_lists_every_shipped_lesson_and_opens_the_first_with_its_note(qtbot):
    _lessons_from_the_menu(qtbot, count=1)


@pytest.mark.ci  # every lesson's panes build (4.9 s of CPU); the README tier opens the first
def test_lessons_menu_opens_every_shipped_lesson_with_its_note(qtbot):
    _lessons_from_the_menu(qtbot)


def test_pane_grid_shows_the_data_largest():
    from pairlab.gui.presentation import best_columns

    assert best_columns(2, 1400, 800, 1.0, 120) == 2  # side by side
    assert best_columns(3, 1440, 900, 1.0, 120) == 3
    assert best_columns(2, 900, 1000, 3.0, 120) == 1  # wide data in a tall window: stacked
    assert best_columns(4, 1400, 900, 1.4, 120) == 2


def test_side_by_side_canvases_are_not_half_empty(qtbot, registry):
    from PySide6 import QtWidgets

    from pairlab.draw.geometry import data_bounds

    window = make_window(qtbot, registry, ("test-shrink", "test-shrink", "test-shrink"))
    window.resize(1440, 900)
    qtbot.wait(300)
    QtWidgets.QApplication.processEvents()
    window.presentation.fit_views()
    _, _, w, h = data_bounds(window.lab.dataset.view, margin=0.05)
    for view in window.presentation.pane_views:
        (x0, x1), (y0, y1) = view.canvas.layers.vb.viewRange()
        assert (x1 - x0) < 1.4 * w and (y1 - y0) < 1.4 * h  # the data fill the canvas


def test_drag_a_mean_and_continue_then_undo(qtbot, registry):
    from PySide6 import QtCore

    window = make_window(qtbot, registry, ("gmm",), n=60,
                         params={0: {"n_components": 2, "tol": 0.0, "max_iter": 6}})
    lab, pane = window.lab, window.lab.panes[0]
    window.run_to_end()
    assert window.wait_idle(20)
    window.seek(3)
    old_history, old_last = list(pane.run.history), pane.last_index
    assert old_last > 3
    window.set_tool("move")
    canvas = window.presentation.pane_views[0].canvas
    mx, my = window.presentation.pane_views[0].frame.means[0]
    tx, ty = mx + 0.4, my - 0.3
    viewport = canvas.viewport()
    qtbot.mousePress(viewport, QtCore.Qt.MouseButton.LeftButton,
                     pos=canvas.widget_pos(float(mx), float(my)))
    qtbot.mouseMove(viewport, pos=canvas.widget_pos(tx, ty))
    qtbot.mouseRelease(viewport, QtCore.Qt.MouseButton.LeftButton, pos=canvas.widget_pos(tx, ty))
    assert lab.iteration == 3 and pane.last_index == 3  # the later history was dropped
    moved = pane.run.halves[2].model["means"][0]
    np.testing.assert_allclose(moved, [tx, ty], atol=0.05)
    new3 = pane.run.history[3]
    assert new3 is not old_history[3]
    assert not np.allclose(new3.responsibilities, old_history[3].responsibilities)
    window.step_forward()  # the run continues from the moved mean
    assert window.wait_idle(10) and lab.iteration == 4 and pane.run.history[3] is new3
    window.editing.undo()  # Ctrl+Z: the dropped history is back
    assert pane.last_index == old_last and lab.iteration == 3
    assert pane.run.history[3] is old_history[3]
