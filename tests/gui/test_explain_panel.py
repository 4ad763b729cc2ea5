"""The explanation dock: why a point moved, before and after side by side, nothing cut off."""

import numpy as np
from PySide6 import QtWidgets

from .support import click_point, make_window


def _moved_point(window, pane=0, steps=8):
    """Step until some point's label changes over an E-step; return it (or None)."""
    lab = window.lab
    for _ in range(steps):
        before = lab.state(lab.panes[pane]).labels.copy()
        window.step_forward()
        assert window.wait_idle(10)
        changed = np.flatnonzero(before != lab.state(lab.panes[pane]).labels)
        if changed.size:
            return int(changed[0])
    return None


def test_panel_shows_why_a_point_moved_with_before_and_after(qtbot, registry):
    window = make_window(qtbot, registry, ("ppc",), n=60, links=(3, 3),
                         params={0: {"n_components": 3}})
    panel = window.explanation
    panel.dock.show()
    window.set_tool("select")
    i = _moved_point(window)
    assert i is not None, "no label changed in eight iterations"
    click_point(qtbot, window, i)
    if window.editing.selected_point != i:  # another point under the cursor: select directly
        window.editing.selected_point = i
        panel.update()
    (explanation,) = panel.shown
    assert explanation.before is not None and "tipped it" in explanation.moved
    text = panel.texts()[0]
    assert "Why it moved" in text and "one iteration before" in text
    assert all(b.title in text for b in explanation.bars)  # titles wrap in labels, never elided
    run = window.lab.panes[0].run
    before, now = run.history[run.index - 1].objective, run.state.objective
    assert f"{before:.6g} → {now:.6g} (change {now - before:+.3g})" in text
    charts = [c for c in panel.boxes[0].findChildren(QtWidgets.QWidget) if hasattr(c, "before")]
    with_before = [c for c in charts if c.before is not None]
    assert with_before
    chart = with_before[0]
    np.testing.assert_array_equal(chart.before_values(), explanation.before.bars[0].values)
    # issue 32 defect 5: nothing in the dock is wider than its viewport (no text cut on the right)
    scroll = panel.dock.widget()
    for width in (300, 420):
        panel.dock.resize(width, 900)
        QtWidgets.QApplication.processEvents()
        right = scroll.viewport().width()
        for widget in panel.boxes[0].findChildren(QtWidgets.QWidget):
            if widget.isVisible():
                edge = widget.mapTo(scroll.viewport(), widget.rect().topRight()).x()
                assert edge <= right, f"{type(widget).__name__} ends at {edge} > {right}"
        for label in panel.boxes[0].findChildren(QtWidgets.QLabel):
            if label.wordWrap() and label.isVisible():
                assert label.heightForWidth(label.width()) <= label.height() + 1
    window.transport.half_step()
    assert window.wait_idle(10)
    assert "evaluated after the whole iteration" in panel.texts()[0]
