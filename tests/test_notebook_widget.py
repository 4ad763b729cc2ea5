"""The notebook stepper (pairlab.notebook), driven by the messages its front-end sends: stepping,
the scrubber, links added and removed by two point indices (validated, undoable, through the app's
Qt-free model), the objective and ARI curves, the hit-test map; and a real Jupyter kernel."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

pytest.importorskip("anywidget")
pytest.importorskip("matplotlib")

from pairlab.links import random_pairs
from pairlab.metrics import adjusted_rand
from pairlab.registry import get_registry

PARAMS = {"gmm": {"n_components": 2}, "gmpr": {"n_components": 2}}


def _widget(n=80, algorithms=("gmm", "gmpr"), **kwargs):
    """Two panes on two moons; tests of the state, not the picture, pass ``regions_resolution=12``
    (coarse regions: the 100-cell default took most of these tests' CPU)."""
    from pairlab.notebook import Stepper

    data = get_registry().dataset("two-moons").make(seed=0, n_samples=n)
    links = random_pairs(data.y, 2, 2, np.random.default_rng(0))
    return Stepper(data, links, list(algorithms), params=PARAMS, **kwargs)


def _pairs(c):
    return sorted(map(tuple, c.must_link.tolist())), sorted(map(tuple, c.cannot_link.tolist()))


def test_steps_and_half_steps_move_every_pane_and_the_scrubber_lists_them():
    w = _widget(regions_resolution=12)
    assert w.positions == ["iteration 0"] and w.position == 0
    w.handle({"event": "step"})
    w.handle({"event": "half_step"})
    assert w.error == ""
    assert "gmm: iteration 2 (half)" in w.status and "gmpr: iteration 2 (half)" in w.status
    assert w.positions == ["iteration 0", "½ before iteration 1", "iteration 1", "½ before iteration 2"]
    assert w.position == 3
    w.handle({"event": "seek", "position": 1})  # the scrubber
    assert [r.on_half for r in w.runs] == [True, True] and w.lab.iteration == 1
    w.handle({"event": "seek", "position": 0})
    assert [r.state.iteration for r in w.runs] == [0, 0] and w.position == 0
    w.handle({"event": "step"})
    w.handle({"event": "back"})
    assert w.lab.iteration == 0 and not w.lab.on_half


def test_the_curves_are_the_objective_and_the_ari_of_every_stored_state():
    w = _widget(regions_resolution=12)
    for _ in range(4):
        w.step()
    curves = w.curves
    assert curves["cursor"] == 4 and curves["objective"]["name"] == "log-likelihood"
    assert curves["metric"]["name"] == "ARI"
    for run, objective, ari in zip(w.runs, curves["objective"]["series"], curves["metric"]["series"],
                                   strict=True):
        assert objective == [s.objective for s in run.history]
        assert ari == pytest.approx([adjusted_rand(w.dataset.y, s.labels) for s in run.history])
        assert len(ari) == 5


def test_two_point_indices_add_a_link_a_second_time_remove_it_and_undo_brings_it_back():
    w = _widget(regions_resolution=12)
    w.step()
    before = _pairs(w.constraints)
    w.handle({"event": "select", "point": 3})
    assert w.explanation.startswith("gmm, point 3")
    w.handle({"event": "link", "i": 40, "j": 3})
    must, cannot = _pairs(w.constraints)
    assert (3, 40) in must and cannot == before[1] and w.can_undo
    assert w.lab.iteration == 0  # the panes restart with the new links
    assert "3 must, 2 cannot" in w.status
    w.link_kind = "cannot"  # the front-end's select
    w.handle({"event": "link", "i": 3, "j": 40})  # linked already: removed
    assert _pairs(w.constraints) == before
    w.handle({"event": "link", "i": 3, "j": 40})
    assert (3, 40) in _pairs(w.constraints)[1]
    w.handle({"event": "undo"})
    assert _pairs(w.constraints) == before
    w.handle({"event": "undo"})
    assert (3, 40) in _pairs(w.constraints)[0]
    w.handle({"event": "undo"})
    assert _pairs(w.constraints) == before and not w.can_undo


@pytest.mark.parametrize("message, says", [
    ({"event": "link", "i": 3, "j": 3}, "two different points"),
    ({"event": "link", "i": 3, "j": 80}, "not a point"),
    ({"event": "link", "i": -1, "j": 4}, "not a point"),
    ({"event": "link", "i": "3", "j": 4}, "integer"),
    ({"event": "link", "i": True, "j": 4}, "integer"),
    ({"event": "link", "i": 3}, "integer"),
    ({"event": "select", "point": 1.5}, "integer"),
    ({"event": "seek", "position": 7}, "position"),
    ({"event": "explode"}, "unknown message"),
])
def test_a_bad_message_is_refused_with_a_clear_error_and_changes_nothing(message, says):
    # what is checked is the refusal, not the picture: one pane, coarse regions
    # (two full panes drew 18 pictures in 11 s of CPU for these nine tests, 2026-11-27)
    w = _widget(algorithms=("gmm",), regions_resolution=12)
    before, status = _pairs(w.constraints), w.status
    w.handle(message)
    assert says in w.error, w.error
    assert _pairs(w.constraints) == before and w.status == status
    w.handle({"event": "step"})
    assert w.error == ""


def test_the_hit_test_map_puts_each_point_where_matplotlib_drew_it():
    w = _widget()
    fig, view = w._figure, np.asarray(w.view).reshape(-1, 2)
    height = fig.get_size_inches()[1] * fig.dpi
    assert len(w.axes) == 2 and len(view) == w.dataset.n_samples
    for ax, (x0, top, width, h, a, b, c, d) in zip(fig.axes, w.axes, strict=True):
        drawn = ax.transData.transform(w.dataset.view)
        mapped = np.c_[a * view[:, 0] + b, c * view[:, 1] + d]
        np.testing.assert_allclose(mapped, np.c_[drawn[:, 0], height - drawn[:, 1]], atol=0.05)
        assert ((mapped[:, 0] > x0) & (mapped[:, 0] < x0 + width)).all()
        assert ((mapped[:, 1] > top) & (mapped[:, 1] < top + h)).all()


def test_the_same_seed_draws_the_same_picture():
    a, b = _widget(seed=3), _widget(seed=3)
    first = a.image
    a.step()
    a.reset()  # drawn again with the layout of the first picture kept: the same pixels
    assert a.image == first
    for w in (a, b):
        w.step()
        w.toggle_link(5, 60, "cannot")
        w.half_step()
    assert a.image == b.image and a.curves == b.curves


def test_the_front_end_module_is_valid_javascript(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the ES module's syntax is checked by the browser test")
    from pairlab.notebook_js import ESM

    (tmp_path / "widget.mjs").write_text(ESM)
    out = subprocess.run([node, "--check", str(tmp_path / "widget.mjs")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


CELLS = [
    """import sys, numpy as np
from pairlab.registry import get_registry
from pairlab.links import random_pairs
from pairlab.notebook import Stepper
data = get_registry().dataset("two-moons").make(seed=0, n_samples=80)
links = random_pairs(data.y, 2, 2, np.random.default_rng(0))
w = Stepper(data, links, ["gmm", "gmpr"], params={"gmm": {"n_components": 2}, "gmpr": {"n_components": 2}})
w""",
    """w.step(); w.step(); w.half_step()
print(w.status)""",
    """w.handle({"event": "select", "point": 3})
w.handle({"event": "link", "i": 3, "j": 40})
print("links", len(w.constraints), [3, 40] in w.constraints.must_link.tolist())
w.handle({"event": "select", "point": 40})
print(w.explanation.splitlines()[0])
print("qt", [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6")])""",
]


@pytest.mark.ci
def test_in_a_kernel_the_widget_shows_steps_links_and_explains(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    from tests.notebook_kernel import execute, text

    nb = execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS]), tmp_path)
    assert "application/vnd.jupyter.widget-view+json" in nb.cells[0].outputs[0]["data"]
    assert "gmm: iteration 3 (half)   gmpr: iteration 3 (half)" in text(nb.cells[1])
    out = text(nb.cells[2])
    assert "links 5 True" in out
    assert out.splitlines()[1].startswith("gmm, point 40")
    assert "qt []" in out
