"""The teaching app's Qt-free layer: frames, geometry, the lab controller and sessions."""

import json
import subprocess
import sys

import numpy as np
import pytest

from pairlab import Constraints, Dataset, Param, Registry, Run, State, hookimpl
from pairlab.draw.classes import point_classes
from pairlab.draw.frames import build_frame
from pairlab.draw.geometry import ViewMap, ellipse_curves, nearest_point, nearest_segment
from pairlab.draw.palette import N_LEVELS, OKABE_ITO, saturation_levels
from pairlab.draw.regions import decision_regions
from pairlab.errors import InvalidInputError
from pairlab.gui.model import Lab, flip_noise
from pairlab.gui.session import apply_session, read_session, save_session, session_dict

from .helpers import HalfwayToClassMeans


class Halving(HalfwayToClassMeans):
    name = "test-halving"
    title = "Halving"
    params = (Param("stop", int, 4, "iterations", low=1), Param("max_iter", int, 50, "cap", low=1))


class _Plugin:
    @hookimpl
    def pairlab_algorithms(self):
        return [Halving]


@pytest.fixture
def registry():
    reg = Registry()
    reg.register(_Plugin(), name="gui-model-test")
    return reg


@pytest.fixture
def lab(registry):
    lab = Lab(registry)
    lab.set_dataset("two-moons", {"n_samples": 60}, seed=1)
    return lab


def _build(lab):
    for pane in lab.pending():
        lab.attach(pane, lab.build_run(pane))


def test_saturation_levels_span_undecided_to_certain():
    p = np.array([0.5, 0.5001, 0.75, 0.999, 1.0])
    levels = saturation_levels(p, 2)
    assert levels[0] == 0 and levels[-1] == N_LEVELS - 1
    assert np.all(np.diff(levels) >= 0)
    assert saturation_levels(np.array([1 / 3]), 3)[0] == 0


def test_point_classes_sum_components_of_a_class():
    # four components, two per class; labels are component indices
    r = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.1, 0.1, 0.7]])
    coc = np.array([0, 0, 1, 1])
    state = State(0, np.array([0, 3]), r, model={"class_of_component": coc})
    classes, prob, n = point_classes(state)
    assert n == 2
    np.testing.assert_array_equal(classes, [0, 1])
    np.testing.assert_allclose(prob, [0.7, 0.8])
    # labels that are already classes stay classes
    state = State(0, np.array([0, 1]), r, model={"class_of_component": coc})
    classes, prob, _ = point_classes(state)
    np.testing.assert_array_equal(classes, [0, 1])
    np.testing.assert_allclose(prob, [0.7, 0.8])


def test_view_map_is_exact_for_pca_views_and_lifts_back_to_the_plane(registry):
    data = registry.dataset("gaussian-blobs").make(seed=0, n_samples=80, n_features=4)
    vm = ViewMap.of(data)
    assert vm.exact
    np.testing.assert_allclose(vm.to_view(data.X), data.view, atol=1e-9)
    np.testing.assert_allclose(vm.to_view(vm.lift(data.view)), data.view, atol=1e-9)
    cov = np.cov(data.X.T)[None]
    # the view of a covariance is the covariance of the viewed points
    np.testing.assert_allclose(vm.cov_to_view(cov)[0], np.cov(data.view.T), atol=1e-9)


def test_nonlinear_view_is_flagged_and_model_arrays_are_left_out():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    data = Dataset(X, view=np.column_stack([X[:, 0] ** 2, np.sin(X[:, 1])]))
    assert not ViewMap.of(data).exact
    state = State(0, np.zeros(30, dtype=int), model={"means": X[:1]})
    assert build_frame(data, None, state).means is None


def test_ellipse_contours_have_the_right_mahalanobis_radius():
    cov = np.array([[[2.0, 0.6], [0.6, 1.0]]])
    mean = np.array([[1.0, -1.0]])
    curves = ellipse_curves(mean, cov)
    inv = np.linalg.inv(cov[0])
    for s, sigma in enumerate((1.0, 2.0)):
        d = curves[0, s] - mean[0]
        np.testing.assert_allclose(np.einsum("ij,jk,ik->i", d, inv, d), sigma**2, rtol=1e-9)


def test_hit_tests_measure_pixels():
    xy = np.array([[0.0, 0.0], [10.0, 0.0]])
    assert nearest_point(xy, 8.5, 0.0, px=0.1, py=0.1, radius=12) is None  # 15 px away
    assert nearest_point(xy, 9.5, 0.0, px=0.1, py=0.1, radius=12) == 1
    segs = np.array([[[0.0, 0.0], [10.0, 0.0]], [[0.0, 5.0], [10.0, 5.0]]])
    assert nearest_segment(segs, 5.0, 0.5, 0.1, 0.1, 12) == 0
    assert nearest_segment(segs, 5.0, 4.5, 0.1, 0.1, 12) == 1
    assert nearest_segment(segs, 5.0, 2.5, 0.1, 0.1, 12) is None


def test_frame_draws_links_satisfaction_and_exemplars():
    X = np.array([[0.0, 0], [1, 0], [5, 5], [6, 5]])
    data = Dataset(X, np.array([0, 0, 1, 1]))
    c = Constraints([[0, 1], [1, 2]], [[0, 3]], n_samples=4)
    state = State(1, np.array([0, 0, 1, 1]), model={"exemplars": np.array([0, 0, 3, 3])})
    f = build_frame(data, c, state)
    np.testing.assert_array_equal(f.must_ok, [True, False])
    np.testing.assert_array_equal(f.cannot_ok, [True])
    np.testing.assert_array_equal(f.must_link[1], [[1, 0], [5, 5]])
    assert len(f.exemplar_segments) == 2  # points 1 and 2 are not exemplars
    np.testing.assert_array_equal(f.exemplar_points, [[0, 0], [6, 5]])


def test_decision_regions_follow_predict_proba(lab, registry):
    lab.add_pane("gmm")
    _build(lab)
    lab.compute_to(None)
    pane = lab.panes[0]
    state = pane.run.state
    reg = decision_regions(pane.run.algorithm, state, lab.dataset, resolution=40)
    x0, y0, w, h = reg.rect
    ny, nx, _ = reg.rgba.shape
    for k, mean in enumerate(state.model["means"]):
        col = int((mean[0] - x0) / w * nx)
        row = int((mean[1] - y0) / h * ny)
        pixel = reg.rgba[row, col, :3].astype(float)
        tints = [255 - (255 - np.array(c, float)) * 0.22 for c in OKABE_ITO[:2]]
        dist = [np.abs(pixel - t).sum() for t in tints]
        assert int(np.argmin(dist)) == k
    assert decision_regions(None, state, lab.dataset) is None


def test_lab_steps_panes_together_and_holds_finished_ones(lab):
    lab.add_pane("test-halving", {"stop": 2})
    lab.add_pane("test-halving", {"stop": 5})
    _build(lab)
    assert lab.needs_compute(1) == lab.panes
    lab.compute_to(None)
    assert [p.last_index for p in lab.panes] == [2, 5]
    assert all(p.finished for p in lab.panes)
    lab.seek(4)
    assert lab.panes[0].run.index == 2 and lab.panes[1].run.index == 4
    assert "final" in lab.frame(lab.panes[0]).info
    assert lab.can_advance()  # pane 2 has iteration 5 stored
    lab.seek(5)
    assert lab.at_end()


def test_stepping_back_replays_history_without_recomputing(lab):
    lab.add_pane("test-halving", {"stop": 6})
    _build(lab)
    lab.compute_to(6)
    pane = lab.panes[0]
    states = list(pane.run.history)
    calls = Halving.steps
    for t in (5, 3, 0, 4):
        lab.seek(t)
        assert lab.state(pane) is states[t]
    assert Halving.steps == calls


def test_link_editing_replace_remove_undo(lab):
    assert lab.add_link("must", 3, 7)
    assert not lab.add_link("must", 7, 3)  # same pair
    assert lab.add_link("cannot", 7, 3)  # replaces the must-link
    assert lab.base.n_must_link == 0 and lab.base.cannot_link.tolist() == [[3, 7]]
    assert lab.remove_link(3, 7) and len(lab.base) == 0
    assert not lab.remove_link(3, 7)
    assert lab.undo() and lab.base.cannot_link.tolist() == [[3, 7]]
    assert lab.undo() and lab.base.must_link.tolist() == [[3, 7]]


def test_random_links_follow_the_ground_truth_and_skip_existing(lab):
    lab.add_link("must", 0, 1) if lab.dataset.y[0] == lab.dataset.y[1] else None
    before = len(lab.base)
    added = lab.add_random_links(6, 4)
    assert added == (6, 4)
    assert len(lab.base) == before + 10
    y = lab.dataset.y
    ml, cl = lab.base.must_link, lab.base.cannot_link
    assert np.all(y[ml[:, 0]] == y[ml[:, 1]]) and np.all(y[cl[:, 0]] != y[cl[:, 1]])


def test_random_links_need_labels(registry):
    lab = Lab(registry)
    lab.dataset = Dataset(np.random.default_rng(0).normal(size=(10, 2)))
    with pytest.raises(InvalidInputError, match="ground-truth"):
        lab.add_random_links(1, 1)


def test_noise_flips_the_requested_fraction(lab):
    lab.add_random_links(10, 10)
    lab.set_noise(0.25)
    base, noisy = lab.base, lab.constraints
    ml_base = {tuple(p) for p in base.must_link.tolist()}
    flipped = sum(tuple(p) not in ml_base for p in noisy.must_link.tolist())
    flipped += sum(tuple(p) in ml_base for p in noisy.cannot_link.tolist())
    assert flipped == 5
    assert len(noisy) == len(base)
    same = flip_noise(base, 0.25, np.random.default_rng([lab.dataset_seed, 7919]))
    assert same == noisy  # deterministic


def test_initial_means_reach_the_runs(lab):
    lab.add_pane("kmeans", {"n_clusters": 2})
    lab.add_init_mean(0.0, 0.5)
    lab.add_init_mean(1.0, -0.2)
    _build(lab)
    pane = lab.panes[0]
    assert pane.error is None
    np.testing.assert_allclose(pane.run.history[0].model["centers"], [[0.0, 0.5], [1.0, -0.2]])
    lab.clear_init_means()
    assert lab.init_means is None and lab.pending() == [pane]


def test_errors_of_a_pane_are_recorded_not_raised(lab):
    lab.add_pane("kmeans", {"n_clusters": 2})
    lab.add_init_mean(0.0, 0.5)  # one mean for two clusters
    pane = lab.panes[0]
    with pytest.raises(InvalidInputError, match="means_init"):
        lab.build_run(pane)
    try:
        lab.build_run(pane)
    except InvalidInputError as exc:
        lab.attach(pane, None, exc)
    assert "k-means" in pane.error and "means_init must have shape" in pane.error
    assert pane.finished and lab.frame(pane).message == pane.error


def test_session_round_trip(lab, registry, tmp_path):
    lab.add_pane("test-halving", {"stop": 3})
    lab.add_pane("gmm", {"n_components": 2, "tol": 1e-4})
    lab.add_random_links(4, 3)
    lab.set_noise(0.2)
    lab.seed = 5
    _build(lab)
    lab.compute_to(2)
    lab.seek(2)
    path = tmp_path / "s.json"
    save_session(lab, path, view={"decision_regions": False})
    data = json.loads(path.read_text())
    assert data["panes"][1]["params"]["tol"] == 1e-4
    assert data["iteration"] == 2 and data["noise"] == 0.2
    other = Lab(registry)
    result = apply_session(other, read_session(path))
    assert result == {"iteration": 2, "view": {"decision_regions": False}}
    assert other.base == lab.base and other.constraints == lab.constraints
    assert other.dataset_params == lab.dataset_params and other.seed == 5
    assert [p.name for p in other.panes] == ["test-halving", "gmm"]
    _build(other)
    other.compute_to(2)
    for a, b in zip(lab.panes, other.panes, strict=True):
        assert a.run.history[2].equals(b.run.history[2])
    assert session_dict(other)["panes"] == data["panes"]


def test_session_errors_are_readable(lab, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        read_session(bad)
    with pytest.raises(InvalidInputError, match="not a pairlab session"):
        apply_session(lab, {"panes": []})
    doc = {"format": "pairlab-session", "dataset": {"name": "two-moons"},
           "panes": [{"algorithm": "gmm", "params": {"n_compnents": 2}}]}
    with pytest.raises(InvalidInputError, match="Did you mean 'n_components'"):
        apply_session(lab, doc)


@pytest.mark.ci  # starts Python processes
def test_model_layer_imports_no_qt():
    code = ("import sys\nimport pairlab.gui.model, pairlab.draw.frames, pairlab.gui.session, "
            "pairlab.draw.palette, pairlab.gui.command\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', "
            "'shiboken6')]\nassert not bad, bad\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_moving_a_kmeans_mean_moves_its_centre_and_undo_restores_the_run(lab):
    lab.add_pane("kmeans", {"n_clusters": 2})
    _build(lab)
    lab.compute_to(None)
    pane = lab.panes[0]
    run = pane.run
    old_history, old_last, old_converged = list(run.history), pane.last_index, run.converged
    assert old_last >= 2
    lab.seek_half(2)
    x, y = lab.dataset.view[0]
    lab.move_mean(pane, 0, float(x), float(y))
    half = run.halves[1]
    assert np.array_equal(half.model["centers"], half.model["means"])  # one array, both keys
    np.testing.assert_allclose(half.model["centers"][0], lab.dataset.X[0], atol=1e-9)
    assert pane.last_index == 2 and lab.iteration == 2
    assert np.array_equal(run.history[2].labels, run.algorithm.finish_step(half).labels)
    assert lab.undo() == "history"
    assert run.history == old_history and run.converged == old_converged
    assert lab.iteration == 2 and lab.on_half


def test_two_phase_algorithms_name_every_model_entry_that_holds_their_means(registry):
    """Dragging a mean replaces Algorithm.mean_keys; an entry that is the means under another name
    (k-means' "centers") must be listed, or the moved mean would be ignored."""
    data = registry.dataset("two-moons").make(seed=0, n_samples=40)
    for name in registry.names("algorithms"):
        cls = registry.algorithm(name)
        if len(cls.phases) != 2 or not cls.accepts_means_init:
            continue
        half = Run(cls, data, seed=0).half_step()
        means = half.model.get("means")
        same = [k for k, v in half.model.items() if means is not None and v is means]
        assert set(same) <= set(cls.mean_keys), (name, same, cls.mean_keys)


@pytest.mark.parametrize("d", [2, 4])
def test_decision_regions_only_for_two_dimensional_data(registry, d):
    """Beyond two features the view plane cuts the model where few points lie (issue 32 defect
    13): no flat region colour under points of every class, and the pane says why."""
    lab = Lab(registry)
    lab.set_dataset("gaussian-blobs", {"n_samples": 90, "n_centers": 3, "n_features": d}, seed=0)
    lab.add_pane("gmm", {"n_components": 3})
    _build(lab)
    lab.compute_to(3)
    lab.seek(3)
    frame = lab.frame(lab.panes[0], regions=True)
    if d == 2:
        assert frame.regions is not None and "2-D data only" not in frame.info
    else:
        assert frame.regions is None
        assert "decision regions: 2-D data only; this data has 4 features" in frame.info
