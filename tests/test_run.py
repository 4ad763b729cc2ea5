import numpy as np
import pytest

from pairlab import Algorithm, Dataset, InvalidInputError, Param, PluginError, Run, State, get_registry
from pairlab.links import random_pairs


@pytest.fixture
def moons():
    return get_registry().dataset("two-moons").make(seed=3, n_samples=120)


def test_same_seed_same_states_bit_for_bit(moons):
    a = Run("gmm", moons, seed=7)
    b = Run("gmm", moons, seed=7)
    a.run()
    b.run()
    assert len(a.history) == len(b.history)
    assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))
    c = Run("gmm", moons, seed=8)
    assert not c.history[0].equals(a.history[0])


def test_back_and_seek_replay_without_recomputing(moons):
    run = Run("kmeans", moons, params={"n_clusters": 3}, seed=0)
    run.run()
    n = len(run.history)
    first = run.history[1]
    run.seek(0)
    assert run.step() is first and len(run.history) == n
    assert run.back() is run.history[0]
    assert run.back() is run.history[0]
    with pytest.raises(IndexError):
        run.seek(n)


def test_events_are_emitted(moons):
    events = []
    run = Run("gmm", moons, seed=0)
    run.subscribe(lambda ev, r: events.append((ev, r.index)))
    run.run()
    assert events[0] == ("state", 1)
    assert events[-1][0] == "converged"
    run.back()
    assert events[-1] == ("state", run.n_iter - 1)


def test_states_are_read_only(moons):
    state = Run("gmm", moons, seed=0).state
    with pytest.raises(ValueError):
        state.labels[0] = 5
    with pytest.raises(ValueError):
        state.model["means"][0, 0] = 1.0
    with pytest.raises(TypeError):
        state.model["means"] = None


class NaNAlgorithm(Algorithm):
    name = "nan"
    title = "returns NaN"
    params = (Param("max_iter", int, 5, "steps"),)

    def initialize(self):
        return State(0, np.zeros(self.dataset.n_samples, dtype=int), objective=0.0)

    def step(self, state):
        return State(1, state.labels, objective=float("nan"))


class WrongShape(NaNAlgorithm):
    name = "wrong-shape"

    def step(self, state):
        return State(1, np.zeros(3, dtype=int))


def test_invalid_states_name_the_plugin(moons):
    run = Run(NaNAlgorithm, moons)
    with pytest.raises(PluginError, match="'nan' returned an invalid state: objective"):
        run.step()
    assert len(run.history) == 1  # nothing recorded
    with pytest.raises(PluginError, match="'wrong-shape'.*labels must be an array"):
        Run(WrongShape, moons).step()


def test_constraint_size_mismatch(moons):
    from pairlab import Constraints, InvalidInputError

    with pytest.raises(InvalidInputError, match="constraints refer to 5 points"):
        Run("gmm", moons, Constraints(n_samples=5))


def test_random_pairs_agree_with_labels(moons):
    rng = np.random.default_rng(0)
    c = random_pairs(moons.y, 30, 40, rng)
    assert c.n_must_link == 30 and c.n_cannot_link == 40
    assert np.all(moons.y[c.must_link[:, 0]] == moons.y[c.must_link[:, 1]])
    assert np.all(moons.y[c.cannot_link[:, 0]] != moons.y[c.cannot_link[:, 1]])
    c2 = random_pairs(moons.y, 30, 40, np.random.default_rng(0))
    assert c == c2


def test_dataset_validation_messages():
    from pairlab import InvalidInputError

    X = np.zeros((4, 2))
    X[2, 1] = np.nan
    with pytest.raises(InvalidInputError, match=r"1 row\(s\) \(0-based: 2\)"):
        Dataset(X)
    with pytest.raises(InvalidInputError, match="reshape"):
        Dataset(np.zeros(4))
    with pytest.raises(InvalidInputError, match="y must have shape"):
        Dataset(np.zeros((4, 2)), y=[0, 1])
    d = Dataset(np.random.default_rng(0).normal(size=(10, 5)))
    assert d.view.shape == (10, 2)


# -- the operations the teaching app edits a run with -------------------------------------------
def test_snapshot_and_restore_bring_back_history_halves_cursor_and_convergence(moons):
    run = Run("kmeans", moons, params={"n_clusters": 3}, seed=0)
    run.run()
    run.seek(1)
    run.half_step()
    snap = run.snapshot()
    states, halves = list(run.history), dict(run.halves)
    run.drop_after(0)
    assert len(run.history) == 1 and not run.converged
    run.restore(snap)
    assert run.history == states and run.halves == halves
    assert (run.index, run.on_half, run.converged) == (1, True, True)
    assert run.state is halves[1]
    with pytest.raises(IndexError):
        run.restore(type(snap)(history=(), index=0))


def test_replace_half_drops_the_later_states_and_step_finishes_from_it(moons):
    run = Run("kmeans", moons, params={"n_clusters": 3}, seed=0)
    run.run()
    run.seek(0)
    old = run.half_step()
    means = np.array(old.model["means"]) + 0.25
    moved = run.algorithm.with_means(old, means)
    assert np.array_equal(moved.model["centers"], means)  # k-means: one array under both keys
    run.replace_half(0, moved)
    assert run.state is moved and run.on_half and len(run.history) == 1 and not run.converged
    new = run.step()
    expected = run.algorithm.finish_step(moved)
    assert np.array_equal(new.labels, expected.labels) and new.objective == expected.objective
    with pytest.raises(InvalidInputError, match="needs phase"):
        run.replace_half(0, run.history[0])


def test_replace_half_needs_an_algorithm_with_phases(moons):
    run = Run(NaNAlgorithm, moons)
    with pytest.raises(InvalidInputError, match="whole iterations"):
        run.replace_half(0, run.history[0])


def test_mark_converged_emits_once_and_stops_run(moons):
    run = Run("kmeans", moons, params={"n_clusters": 3}, seed=0)
    events = []
    run.subscribe(lambda ev, r: events.append(ev))
    run.mark_converged()
    run.mark_converged()
    assert events.count("converged") == 1
    run.run()
    assert run.n_iter == 0
