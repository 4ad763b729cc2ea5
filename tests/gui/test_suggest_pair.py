"""Ask ▸ Suggest a pair (issue 36): the strategy's pair is ringed and explained, the instructor
answers with Shift+M / Shift+C, the link is added and Ctrl+Z takes it back."""

import numpy as np
from PySide6 import QtCore

from pairlab.query import binary_entropy, pair_same_probability

from .support import make_window


def _press(qtbot, window, key, modifier=QtCore.Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window, key, modifier)
    assert window.wait_idle(20)


def _ringed(window):
    return [np.asarray(v.canvas.layers.selection.getData()).T for v in window.presentation.pane_views
            if v.canvas.layers.selection.isVisible()]


def test_keys_are_free_and_in_the_ask_menu(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",), n=60, links=(0, 0),
                         params={0: {"n_components": 2}})
    shortcuts = {}
    for action in window.actions():
        key = action.shortcut().toString()
        if key:
            assert key not in shortcuts, f"{key} is taken by {shortcuts[key]} and {action.text()}"
            shortcuts[key] = action.text()
    assert shortcuts["Q"] == "Suggest a pair"
    assert shortcuts["Shift+M"] == "Answer: must-link" and shortcuts["Shift+C"] == "Answer: cannot-link"
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles.index("&Ask") == titles.index("&Help") - 1
    assert not window.suggest.act_must.isEnabled()


def test_suggest_rings_the_pair_explains_it_and_answers_add_an_undoable_link(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",), n=60, links=(0, 0),
                         params={0: {"n_components": 2}})
    window.run_to_end()
    assert window.wait_idle(20)
    window.explanation.dock.show()
    lab = window.lab
    _press(qtbot, window, QtCore.Qt.Key.Key_Q)
    s = window.suggest
    assert s.pair is not None and s._name() == "uncertainty"  # the pane has posteriors
    i, j = s.pair
    # the pair is the strategy's: its most uncertain pair under the pane's posteriors
    state = lab.state(lab.panes[0])
    q = state.responsibilities
    p = pair_same_probability(q, np.array([i]), np.array([j]))[0]
    assert f"P(same cluster) = {p:.3f}" in " ".join(s.reason)
    assert f"H = {binary_entropy(np.array([p]))[0]:.3f}" in " ".join(s.reason)
    (ring,) = _ringed(window)
    np.testing.assert_allclose(ring, lab.dataset.view[[i, j]])
    text = " ".join(window.explanation.texts())
    assert f"Suggested pair {i} and {j}" in text and f"point {i}: posterior" in text
    assert lab.base.n_must_link == lab.base.n_cannot_link == 0
    _press(qtbot, window, QtCore.Qt.Key.Key_M, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert lab.base.must_link.tolist() == [[i, j]] and lab.base.n_cannot_link == 0
    assert s.pair is None and s.told == [((i, j), True)]
    # the next suggestion is another pair; a cannot-link answer adds a cannot-link
    window.run_to_end()
    assert window.wait_idle(20)
    _press(qtbot, window, QtCore.Qt.Key.Key_Q)
    second = s.pair
    assert second is not None and second != (i, j)
    _press(qtbot, window, QtCore.Qt.Key.Key_C, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert lab.base.cannot_link.tolist() == [list(second)]
    assert window.editing.tool == "select"  # Shift+C answered; it did not pick the link tool
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Z, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert window.wait_idle(20)
    assert lab.base.n_cannot_link == 0 and lab.base.must_link.tolist() == [[i, j]]
    # the undone answer is forgotten by the strategy before its next proposal
    _press(qtbot, window, QtCore.Qt.Key.Key_Q)
    assert s.told == [((i, j), True)]


def test_a_chosen_neighbourhood_strategy_without_a_model_and_no_pair_to_answer(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink",), n=40, links=(0, 0))
    s = window.suggest
    _press(qtbot, window, QtCore.Qt.Key.Key_M, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert window.lab.base.n_must_link == 0 and not s.act_must.isEnabled()
    s.answer(True)  # from a script: refused with a message
    assert window.lab.base.n_must_link == 0 and "Press Q" in window.status.currentMessage()
    act = next(a for a in s.strategy_menu.actions() if a.text() == "explore-consolidate")
    act.trigger()
    _press(qtbot, window, QtCore.Qt.Key.Key_Q)
    assert s.pair is not None and s.reason[0].startswith("Strategy explore-consolidate: explore")


def test_no_two_actions_share_a_shortcut(qtbot, registry):
    """Every action's key in the whole window is its own (the suggest-a-pair answers and the
    trails once both took Shift+M; window.actions() alone did not see the menus' actions)."""
    from PySide6.QtGui import QAction

    window = make_window(qtbot, registry, ("gmm",), n=60, links=(0, 0),
                         params={0: {"n_components": 2}})
    seen: dict[str, str] = {}
    for action in window.findChildren(QAction):
        for key in action.shortcuts():
            text = key.toString()
            if text:
                assert text not in seen, f"{text!r}: {seen.get(text)!r} and {action.text()!r}"
                seen[text] = action.text()
    assert "Shift+T" in seen and "Shift+M" in seen
