"""Regression tests for the defects of the second classroom trial of the teaching app (issue 32)."""

import pytest

pytest.importorskip("pytestqt")

from .support import make_window

pytestmark = pytest.mark.gui


def _gmm_window(qtbot, registry, n=60):
    return make_window(qtbot, registry, ("gmm",), n=n, params={0: {"n_components": 2}})


def test_back_from_a_half_step_lands_on_the_iteration_before_it(qtbot, registry):
    window = _gmm_window(qtbot, registry)
    transport, lab = window.transport, window.lab
    transport.step_forward()
    assert window.wait_idle(10) and lab.iteration == 1
    transport.half_step()
    assert window.wait_idle(10) and lab.on_half and lab.iteration == 2
    assert "iteration 2 / 1+" in transport.iteration_label.text()
    transport.step_back()
    assert not lab.on_half and lab.iteration == 1  # was iteration 0: one iteration skipped
    assert lab.panes[0].run.index == 1


def test_objective_marker_stays_on_a_half_step_of_the_newest_iteration(qtbot, registry):
    window = _gmm_window(qtbot, registry)
    transport, lab = window.transport, window.lab
    transport.step_forward()
    assert window.wait_idle(10)
    transport.half_step()
    assert window.wait_idle(10) and lab.on_half and lab.panes[0].last_index == 1
    plot = window.presentation.pane_views[0].objective
    x, y = plot.marker.getData()
    assert list(x) == [1.5]  # the marker sits between iterations 1 and 2
    assert y[0] == pytest.approx(lab.panes[0].run.objectives[1])
    (x0, x1), (y0, y1) = plot.getPlotItem().viewRange()
    assert x0 <= 1.5 <= x1 and y0 <= y[0] <= y1  # and the axes show it
