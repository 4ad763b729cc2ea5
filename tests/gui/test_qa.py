"""Regression tests for bugs found by using the teaching app under Xvfb (offscreen here)."""

import numpy as np
import pytest

pytest.importorskip("pytestqt")
from PySide6 import QtCore

from pairlab import hookimpl
from pairlab.gui.app import MainWindow
from pairlab.gui.canvas import ObjectivePlot
from pairlab.gui.model import Lab

from .support import Shrink, make_window

pytestmark = pytest.mark.gui



def test_add_pane_action_and_button_add_a_pane(qtbot, registry):
    # QAction.triggered / QPushButton.clicked pass `checked` (False), which became the algorithm name
    window = make_window(qtbot, registry, ("test-shrink",))
    window.setup.act_add_pane.trigger()
    assert window.wait_idle(10)
    assert len(window.lab.panes) == 2 and len(window.presentation.pane_views) == 2
    qtbot.mouseClick(window.setup.add_pane_button, QtCore.Qt.MouseButton.LeftButton)
    assert window.wait_idle(10)
    assert len(window.lab.panes) == 3
    assert all(p.error is None for p in window.lab.panes)


def test_run_to_end_after_stepping_back_shows_the_last_iteration(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink",), params={0: {"stop": 4}})
    window.run_to_end()
    assert window.wait_idle(10)
    assert window.lab.iteration == 4
    window.step_back()
    window.step_back()
    assert window.lab.iteration == 2
    assert window.transport.act_end.isEnabled()  # End is "go to the last iteration" once all is computed
    window.transport.act_end.trigger()
    assert window.wait_idle(10)
    assert window.lab.iteration == 4 and window.transport.slider.value() == 4
    assert not window.transport.act_end.isEnabled()


def _failing_window(qtbot):
    lab = Lab()
    lab.set_dataset("two-moons", {"n_samples": 40}, seed=0)
    lab.add_pane("gmm", {"n_components": 2})
    window = MainWindow(lab, autosave=False)
    qtbot.addWidget(window)
    window.show()
    assert window.wait_idle(20)
    return window


def test_a_pane_that_stops_while_starting_shows_no_stale_curve_or_negative_iteration(qtbot):
    window = _failing_window(qtbot)
    view = window.presentation.pane_views[0]
    assert view.objective.curve.getData()[0] is not None and len(view.objective.curve.getData()[0])
    params = dict(window.lab.panes[0].params, n_components=500)
    window.setup._pane_params_changed(0, params)
    assert window.wait_idle(20)
    assert window.lab.panes[0].error  # too many components for 40 points
    assert "-1" not in window.transport.iteration_label.text()
    x, _ = view.objective.curve.getData()
    assert x is None or len(x) == 0  # the previous run's curve is gone
    # the message wraps inside the pane instead of running off its right edge
    message = view.canvas.layers.message
    assert message.isVisible()
    assert message.textItem.boundingRect().width() <= view.canvas.layers.vb.width()
    # back to a valid value: the objective's name returns (no stuck "(no objective)")
    window.setup._pane_params_changed(0, dict(params, n_components=2))
    assert window.wait_idle(20)
    window.run_to_end()
    assert window.wait_idle(20)
    label = view.objective.getPlotItem().getAxis("left").labelText
    assert "no objective" not in label and "log" in label
    assert not view.canvas.layers.message.isVisible()


def test_objective_axis_shows_whole_iterations_without_si_prefix(qtbot):
    plot = ObjectivePlot()
    qtbot.addWidget(plot)
    plot.resize(400, 120)
    plot.show_values(np.array([-631.9]), 0, "log-likelihood")
    axis = plot.getPlotItem().getAxis("bottom")
    (x0, x1), _ = plot.getPlotItem().viewRange()
    assert x0 <= 0 and x1 >= 1  # a single state: iterations 0..1, not -400..400 "x0.001"
    ticks = [v for _, values in axis.tickValues(x0, x1, 400) for v in values]
    assert ticks and all(float(v).is_integer() for v in ticks)
    plot.show_values(np.array([1.0, 2e6, 3e7]), 2, "objective")
    assert axis.autoSIPrefixScale == 1.0
    assert plot.getPlotItem().getAxis("left").autoSIPrefixScale == 1.0


def test_long_titles_do_not_widen_the_window(qtbot, registry):
    class LongTitle(Shrink):
        name = "test-long-title"
        title = "A very long algorithm title " * 6

    registry.register(type("P", (), {"pairlab_algorithms": hookimpl(lambda self: [LongTitle])})(),
                      name="long-title-plugin")
    window = make_window(qtbot, registry, ("test-long-title",))
    header = window.presentation.pane_views[0].header
    assert "very long" in header.text()
    assert header.wordWrap() and header.minimumSizeHint().width() < 300
    assert window.presentation.pane_views[0].minimumSizeHint().width() < 400


def test_presentation_keeps_the_slider_and_enlarges_everything(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink", "test-shrink"))
    window.presentation.act_legend.setChecked(True)
    window.presentation.toggle_view()
    window.presentation.act_controls.setChecked(True)
    window.presentation.toggle_presentation(on=True)
    window.presentation.act_controls.setChecked(True)
    window.presentation.toggle_dock()
    window.resize(1280, 720)
    qtbot.wait(50)
    assert window.transport.slider.width() >= 160
    assert all(b.toolButtonStyle() == QtCore.Qt.ToolButtonStyle.ToolButtonIconOnly
               for b in window.transport.transport_buttons)
    assert window.status.font().pointSize() >= 14
    legend = window.presentation.pane_views[-1].canvas.layers.legend
    assert legend is not None and legend.isVisible()
    # the key was rebuilt at the presentation size and sits below the info line
    assert legend.opts["labelTextSize"] == f"{window.presentation.canvas_style.font_size}pt"
    assert legend.opts["offset"][1] > 8
    window.presentation.toggle_presentation(on=False)
    assert all(b.toolButtonStyle() == QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon
               for b in window.transport.transport_buttons)
