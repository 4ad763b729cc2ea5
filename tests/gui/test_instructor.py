"""What an instructor asks of the app beyond the run itself: parameters in the titles, trails of
the means, the metric against iteration, drawing points, and the "predict the next label" game."""

import numpy as np
import pytest

pytest.importorskip("pytestqt")
from PySide6 import QtCore

from .support import make_window

pytestmark = pytest.mark.gui


def test_pane_titles_show_the_chosen_parameters(qtbot, registry):
    window = make_window(qtbot, registry, ("kmeans", "dpmeans", "gmm"),
                         params={1: {"lambda_": 2.5}, 2: {"reg_covar": 0.01}})
    window.refresh()
    h0, h1, h2 = (v.header.text() for v in window.presentation.pane_views)
    assert "(k=2)" in h0                        # the class count, nothing at its default
    assert "λ=2.5" in h1 and "k=" not in h1     # k is unused once lambda is given
    assert "k=2, reg covar=0.01" in h2 and "max iter" not in h2
    window.lab.set_pane_params(0, {"n_clusters": 3, "max_iter": 7})
    window.setup_changed()
    assert window.wait_idle(20)
    window.refresh()
    assert "(k=3, max iter=7)" in window.presentation.pane_views[0].header.text()


def test_trails_follow_the_means_up_to_the_cursor(qtbot, registry):
    from pairlab.draw.trails import mean_trails

    window = make_window(qtbot, registry, ("kmeans",))
    view, pane = window.presentation.pane_views[0], window.lab.panes[0]
    for _ in range(3):
        window.step_forward()
    assert window.wait_idle(20)
    assert view.trails.shown == 0  # off by default
    qtbot.keyClick(window, "T", QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert window.presentation.show_trails and window.presentation.view_options()["trails"]
    expected = mean_trails(pane.run.history[:pane.run.index + 1], window.lab.view_map, 2)
    assert view.trails.shown == len(expected) > 0
    np.testing.assert_allclose(view.trails.segments, expected.segments)
    lines = [line for _, group in view.trails.item.groups for line in group]
    assert sorted((ln.x1(), ln.y1(), ln.x2(), ln.y2()) for ln in lines) == sorted(
        tuple(seg.ravel()) for seg in expected.segments)  # what is painted
    assert view.trails.item.isVisible()
    window.step_back()
    window.step_back()
    shorter = mean_trails(pane.run.history[:pane.run.index + 1], window.lab.view_map, 2)
    assert view.trails.shown == len(shorter) < len(expected)  # only the iterations so far
    qtbot.keyClick(window, "T", QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert view.trails.shown == 0 and not view.trails.item.isVisible()


def test_metric_against_iteration_and_objective_zoom(qtbot, registry):
    from sklearn.metrics import adjusted_rand_score

    window = make_window(qtbot, registry, ("kmeans",), n=80)
    lab, pane = window.lab, window.lab.panes[0]
    plot = window.presentation.pane_views[0].objective
    window.run_to_end()
    assert window.wait_idle(30)
    window.seek(1)
    window.refresh()
    xs, ys = plot.metric_curve.getData()
    truth = [adjusted_rand_score(lab.dataset.y, s.labels) for s in pane.run.history]
    np.testing.assert_allclose(xs, np.arange(len(truth)))
    np.testing.assert_allclose(ys, truth, atol=1e-12)
    assert plot.metric_name == "ARI" and plot.metric_at_cursor() == pytest.approx(truth[1])
    window.presentation.metric_actions["nmi"].trigger()
    assert plot.metric_name == "NMI"
    # mouse zoom: the wheel zooms the objective plot; the range stays while the cursor moves
    full = plot.getPlotItem().getViewBox().viewRange()
    qtbot.wait(50)
    plot.getPlotItem().getViewBox().scaleBy((0.5, 0.5))
    plot.getPlotItem().getViewBox().sigRangeChangedManually.emit([True, True])
    zoomed = plot.getPlotItem().getViewBox().viewRange()
    assert plot.zoomed and zoomed[0][1] - zoomed[0][0] < full[0][1] - full[0][0]
    window.seek(2)
    window.refresh()
    assert plot.getPlotItem().getViewBox().viewRange() == zoomed
    qtbot.keyClick(window, "A")
    assert not plot.zoomed
    np.testing.assert_allclose(plot.getPlotItem().getViewBox().viewRange(), full, rtol=1e-6)


def test_predict_the_next_label_judges_guesses_and_keeps_score(qtbot, registry):
    from .support import click_point

    window = make_window(qtbot, registry, ("kmeans",), n=80)
    lab, pane, game = window.lab, window.lab.panes[0], window.predict
    window.step_forward()
    window.step_forward()
    assert window.wait_idle(20)
    after = np.asarray(pane.run.history[2].labels)
    window.step_back()
    now = np.asarray(pane.run.state.labels)
    links_before = lab.constraints.n_must_link + lab.constraints.n_cannot_link
    qtbot.keyClick(window, "P", QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert game.active and game.score_label.text() == "Predictions: 0/0 right"
    i = 5
    right_j = int(np.flatnonzero((now == after[i]) & (np.arange(80) != i))[0])
    wrong_j = int(np.flatnonzero(now != after[i])[0])
    for j, verdict in ((right_j, "Right!"), (wrong_j, "Wrong:")):
        click_point(qtbot, window, i)
        assert game.target == (0, i) and window.editing.selected_point == i
        click_point(qtbot, window, j)
        assert game.guess is not None and game.guess.cluster == now[j]
        window.step_forward()
        assert window.wait_idle(20)
        assert verdict in window.status.currentMessage() and game.guess is None
        if verdict == "Right!":
            window.step_back()
    assert game.score_label.text() == "Predictions: 1/2 right"
    assert lab.constraints.n_must_link + lab.constraints.n_cannot_link == links_before  # no edits
    game.toggle(on=False)
    assert not game.score_label.isVisible()


def test_drawn_points_join_the_data_undo_and_survive_the_autosave(qtbot, registry):
    from pairlab.gui.session import apply_session, read_autosave, session_dict

    from .support import click_xy

    window = make_window(qtbot, registry, ("kmeans",), n=60)
    lab = window.lab
    n, links = lab.dataset.n_samples, (lab.base.must_link.copy(), lab.base.cannot_link.copy())
    X0 = lab.dataset.X.copy()
    window.set_tool("draw")
    window.editing.draw_class.setValue(1)
    click_xy(qtbot, window, 0.5, 0.25)
    assert window.wait_idle(20)
    assert lab.dataset.n_samples == n + 1 and lab.dataset.y[-1] == 1
    np.testing.assert_allclose(lab.dataset.X[-1], (0.5, 0.25), atol=0.05)  # where it was clicked
    np.testing.assert_array_equal(lab.dataset.X[:n], X0)  # the generated points keep indices
    np.testing.assert_array_equal(lab.base.must_link, links[0])
    pane = lab.panes[0]
    assert pane.run is not None and len(pane.run.state.labels) == n + 1  # restarted on it
    assert "1 point(s) drawn" in window.editing.links_label.text()
    saved = session_dict(lab)
    assert saved["drawn_points"] == [list(lab.drawn[0])]
    # a new point of a class the data does not have: the class count follows
    window.editing.draw_class.setValue(2)
    click_xy(qtbot, window, 1.5, 0.8)
    assert window.wait_idle(20)
    assert lab.n_classes == 3 and pane.params["n_clusters"] == 3
    qtbot.keyClick(window, "Z", QtCore.Qt.KeyboardModifier.ControlModifier)
    assert window.wait_idle(20)
    assert lab.dataset.n_samples == n + 1 and pane.params["n_clusters"] == 2
    # the setup comes back from the autosave (written by the window after the edit)
    from pairlab.gui.model import Lab

    window.files.autosave()
    saved = read_autosave()
    assert saved is not None and len(saved["drawn_points"]) == 1
    other = Lab(registry)
    apply_session(other, saved)
    np.testing.assert_array_equal(other.dataset.X, lab.dataset.X)
    np.testing.assert_array_equal(other.dataset.y, lab.dataset.y)
    np.testing.assert_array_equal(other.base.must_link, links[0])


def test_a_guess_is_judged_at_the_whole_iteration_not_after_the_first_half(qtbot, registry):
    window = make_window(qtbot, registry, ("kmeans",), n=80)
    pane, game = window.lab.panes[0], window.predict
    assert pane.run.has_phases
    game.toggle(on=True)
    game.make_guess(0, 3, 0)
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Right, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert window.wait_idle(20) and pane.run.on_half
    assert game.guess is not None and game.total == 0  # centres moved, labels not yet assigned
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Right, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert window.wait_idle(20) and not pane.run.on_half
    assert game.guess is None and game.total == 1
    assert game.right == int(pane.run.state.labels[3] == 0)
