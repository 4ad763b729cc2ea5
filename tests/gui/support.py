"""What the GUI tests share: small test algorithms, their plugin, and a window built around them."""

import time

from PySide6 import QtCore

from pairlab import Param, Registry, State, hookimpl
from pairlab.gui.app import MainWindow
from pairlab.gui.model import Lab

from ..helpers import HalfwayToClassMeans


class Shrink(HalfwayToClassMeans):
    name = "test-shrink"
    title = "Shrink (test)"
    params = (Param("stop", int, 5, "iterations until convergence", low=1),)


class Diverge(Shrink):
    """Produces a NaN objective at iteration 2."""

    name = "test-nan"
    title = "Diverges (test)"

    def step(self, state):
        new = super().step(state)
        if new.iteration >= 2:
            return State(new.iteration, new.labels, new.responsibilities, objective=float("nan"),
                         objective_name="sse", model=dict(new.model))
        return new


class Crash(Shrink):
    """A plugin bug: raises a plain Python error at the first step."""

    name = "test-crash"
    title = "Crashes (test)"

    def step(self, state):
        raise KeyError("oops")


class Slow(Shrink):
    """Each step takes 0.4 s."""

    name = "test-slow"
    title = "Slow (test)"

    def step(self, state):
        time.sleep(0.4)
        return super().step(state)


class SlowStart(Shrink):
    """Initialisation takes 0.3 s."""

    name = "test-slow-start"
    title = "Slow start (test)"

    def initialize(self):
        time.sleep(0.3)
        return super().initialize()


class GuiTestPlugin:
    @hookimpl
    def pairlab_algorithms(self):
        return [Shrink, Diverge, Crash, Slow, SlowStart]


class BrokenPlugin:
    @hookimpl
    def pairlab_algorithms(self):
        raise RuntimeError("this plugin is broken on purpose")


def gui_registry() -> Registry:
    """A registry with the test algorithms of :class:`GuiTestPlugin` next to the built-in ones."""
    reg = Registry()
    reg.register(GuiTestPlugin(), name="gui-test-plugin")
    return reg


def make_window(qtbot, registry, algorithms=("test-shrink",), n=60, links=(2, 2), params=None):
    lab = Lab(registry)
    lab.set_dataset("two-moons", {"n_samples": n}, seed=0)
    for k, name in enumerate(algorithms):
        lab.add_pane(name, (params or {}).get(k))
    if links:
        lab.add_random_links(*links)
    window = MainWindow(lab)
    qtbot.addWidget(window)
    window.show()
    assert window.wait_idle(20)
    return window


def click_xy(qtbot, window, x, y, pane=0):
    """A left click at data coordinates (x, y) of a pane's canvas."""
    canvas = window.presentation.pane_views[pane].canvas
    qtbot.mouseClick(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     pos=canvas.widget_pos(float(x), float(y)))


def click_point(qtbot, window, index, pane=0):
    """A left click on point ``index`` of the data set."""
    x, y = window.lab.dataset.view[index]
    click_xy(qtbot, window, x, y, pane)
