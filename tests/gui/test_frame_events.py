"""Issue 32: a frame's new texts (the iteration label, a pane's header and metrics) must not lay
the main window or the controls dock out again: each layout pass cost about half a millisecond
a frame in the classroom bench (``assets/bench/frame_split.py``)."""

import pytest

pytest.importorskip("pytestqt")
from PySide6 import QtCore, QtWidgets

from .support import make_window

pytestmark = pytest.mark.gui


class _LayoutRequests(QtCore.QObject):
    """Counts LayoutRequest events per receiver."""

    def __init__(self) -> None:
        super().__init__()
        self.receivers: list[QtCore.QObject] = []

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.LayoutRequest:
            self.receivers.append(obj)
        return False


def test_frames_lay_out_neither_the_window_nor_the_dock(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink", "kmeans"), n=80)
    for _ in range(3):
        window.step_forward()
        assert window.wait_idle(20)
    app = QtWidgets.QApplication.instance()
    window.seek(1)
    app.processEvents()
    counter = _LayoutRequests()
    app.installEventFilter(counter)
    try:
        for t in (2, 3, 1, 2):
            window.seek(t)
            app.processEvents()
    finally:
        app.removeEventFilter(counter)
    assert window.transport.iteration_label.text().startswith("iteration 2 /")
    dock = window.dock.widget().widget()  # the scroll area's body: data, panes, links boxes
    watched = {id(window): "main window", id(window.centralWidget()): "central widget",
               id(dock): "controls dock"}
    watched.update({id(box): "a box of the dock" for box in dock.findChildren(QtWidgets.QGroupBox)})
    laid_out = [watched[id(obj)] for obj in counter.receivers if id(obj) in watched]
    assert laid_out == []
