"""Half-steps (E-step apart from M-step) and per-point explanations."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pairlab import Algorithm, Constraints, Dataset, Run, get_registry
from pairlab.explanation import Bars, Explanation
from pairlab.links import random_pairs


def _blobs(seed=0, n_per=15, k=3):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=4.0, size=(k, 2))
    X = np.vstack([c + rng.normal(size=(n_per, 2)) for c in centers])
    y = np.repeat(np.arange(k), n_per)
    return Dataset(X, y, name="blobs")


def _links(data, n_ml=6, n_cl=6, seed=1):
    rng = np.random.default_rng(seed)
    return random_pairs(data.y, n_ml, n_cl, rng)


PHASED = [name for name in get_registry().names("algorithms")
          if len(get_registry().algorithm(name).phases) == 2]
PARAMS = {"gmm": {"n_components": 3}, "gmpr": {"n_components": 3}, "gmpr-mixture": {"n_components": 3},
          "constrained-em": {"n_components": 3}, "ppc": {"n_components": 3}, "kmeans": {"n_clusters": 3}}


def test_the_em_family_and_kmeans_have_phases():
    assert {"gmm", "gmpr", "gmpr-mixture", "constrained-em", "ppc", "kmeans"} <= set(PHASED)


@pytest.mark.parametrize("name", PHASED)
def test_half_steps_give_the_same_states_as_whole_steps_bit_for_bit(name):
    data = _blobs()
    cons = _links(data) if get_registry().algorithm(name).uses_constraints else None
    params = PARAMS.get(name, {})
    whole = Run(name, data, cons, params, seed=4)
    halves = Run(name, data, cons, params, seed=4)
    mixed = Run(name, data, cons, params, seed=4)
    first_phase = halves.algorithm_class.phases[0]
    for t in range(4):
        whole.step()
        half = halves.half_step()
        assert half.phase == first_phase and half.iteration == t + 1 and halves.on_half
        assert halves.half_step().phase == ""
        (mixed.half_step() and mixed.step()) if t % 2 else mixed.step()
    for a, b, c in zip(whole.history, halves.history, mixed.history, strict=True):
        assert a.equals(b) and a.equals(c)
    assert np.array_equal(whole.objectives, halves.objectives, equal_nan=True)


def test_phased_plugins_take_step_from_the_base_class():
    """``Algorithm.step`` is ``finish_step(half_step(s))``; only TVClust's variational step keeps
    its own (it skips the half-state's ELBO), checked bit for bit above."""
    own = {name for name in PHASED if get_registry().algorithm(name).step is not Algorithm.step}
    assert own == {"tvclust-variational"}


def test_half_back_replays_stored_halves_without_recomputing():
    data = _blobs()
    run = Run("gmm", data, params={"n_components": 3}, seed=0)
    run.run(3)
    assert set(run.halves) == {0, 1, 2}  # every computed iteration keeps its half-state
    end = run.state
    half = run.half_back()
    assert run.on_half and half is run.halves[2] and half.phase == "M-step"
    assert run.half_back() is run.history[2]
    assert run.half_back() is run.halves[1]
    assert run.half_step() is run.history[2]
    assert run.half_step() is run.halves[2]
    assert run.half_step() is end and len(run.history) == 4
    run.half_back()
    assert run.back() is run.history[2] and not run.on_half
    run.seek(0)
    assert run.half_back() is run.history[0]  # nothing before iteration 0


def test_the_m_step_half_moves_the_parameters_not_the_posteriors():
    data = _blobs()
    run = Run("gmm", data, params={"n_components": 3}, seed=0)
    start = run.state
    half = run.half_step()
    assert half.responsibilities is start.responsibilities
    assert not np.array_equal(half.model["means"], start.model["means"])
    after = run.half_step()
    assert np.array_equal(after.model["means"], half.model["means"])
    assert not np.array_equal(after.responsibilities, start.responsibilities)


def test_algorithms_without_phases_step_whole_iterations():
    data = _blobs()
    run = Run("dpmeans", data, seed=0)
    state = run.half_step()
    assert state.phase == "" and state.iteration == 1 and not run.on_half


def test_drop_after_forgets_the_future_and_its_halves():
    data = _blobs()
    run = Run("kmeans", data, params={"n_clusters": 3}, seed=0)
    run.run(4)
    run.drop_after(1)
    assert len(run.history) == 2 and set(run.halves) == {0} and run.index == 1
    assert not run.converged


def test_mixture_explanation_is_the_point_responsibilities():
    data = _blobs()
    run = Run("gmm", data, params={"n_components": 3}, seed=0)
    run.step()
    ex = run.explain(5)
    assert isinstance(ex, Explanation) and ex.phase == "E-step" and "E-step" in ex.equation
    assert np.array_equal(ex.bars[0].values, run.state.responsibilities[5])
    assert ex.bars[0].highlight == run.state.labels[5]
    run.half_step()
    assert run.explain(5).phase == "M-step"


def _gauss(X, state):
    m = state.model
    return np.array([[multivariate_normal(m["means"][k], m["covariances"][k]).pdf(x)
                      for k in range(m["means"].shape[0])] for x in X])


def test_gmpr_pair_posterior_of_an_isolated_cannot_link_is_eq_14():
    data = _blobs(n_per=6, k=2)
    a, b = 0, 11
    cons = Constraints(n_samples=data.n_samples, cannot_link=[[a, b]])
    run = Run("gmpr", data, cons, {"n_components": 2}, seed=0)
    run.step()
    ex = run.explain(a)
    joint = ex.bars[-1].values.reshape(2, 2)
    p = _gauss(data.X[[a, b]], run.state)
    alpha = run.state.model["weights"]
    brute = np.outer(alpha * p[0], alpha * p[1])
    np.fill_diagonal(brute, 0.0)
    np.testing.assert_allclose(joint, brute / brute.sum(), rtol=1e-9, atol=1e-12)
    assert "eq. 14" in ex.equation


def test_gmpr_pair_posterior_of_a_must_link_shares_the_label():
    data = _blobs(n_per=6, k=2)
    cons = Constraints(n_samples=data.n_samples, must_link=[[0, 7]])
    run = Run("gmpr", data, cons, {"n_components": 2}, seed=0)
    run.step()
    joint = run.explain(7).bars[-1].values.reshape(2, 2)
    p = _gauss(data.X[[0, 7]], run.state)
    brute = run.state.model["weights"] * p[0] * p[1]
    np.testing.assert_allclose(np.diag(joint), brute / brute.sum(), rtol=1e-9)
    assert joint[0, 1] == joint[1, 0] == 0.0


def test_gmpr_pair_posterior_on_a_loopy_network_has_the_state_marginals():
    data = _blobs(n_per=8, k=3)
    cons = Constraints(n_samples=data.n_samples, must_link=[[0, 1], [2, 9]],
                       cannot_link=[[0, 9], [1, 17], [9, 17], [2, 20]])
    run = Run("gmpr", data, cons, {"n_components": 3}, seed=0)
    run.run(3)
    joint = run.explain(9).bars[-1].values.reshape(3, 3)
    partner = 2  # the first link of point 9 is its must-link to 2
    q = run.state.responsibilities
    np.testing.assert_allclose(joint.sum(axis=1), q[9], atol=1e-10)
    np.testing.assert_allclose(joint.sum(axis=0), q[partner], atol=1e-10)


def test_rdpmeans_costs_are_section_4_3_by_brute_force():
    data = _blobs(n_per=10)
    cons = _links(data, 8, 8)
    run = Run("rdpmeans", data, cons, {"lambda_": 20.0, "xi0": 0.5}, seed=0)
    run.step()
    state = run.state
    xi = state.extras["xi"]
    centers = np.asarray(state.model["centers"])
    for i in (0, int(cons.must_link[0, 0]), int(cons.cannot_link[0, 1])):
        expect = ((data.X[i] - centers) ** 2).sum(axis=1)
        for a, b in cons.must_link:
            if i in (a, b):
                expect[state.labels[b if a == i else a]] -= xi
        for a, b in cons.cannot_link:
            if i in (a, b):
                expect[state.labels[b if a == i else a]] += xi
        ex = run.explain(i)
        np.testing.assert_allclose(ex.bars[0].values, [*expect, 20.0], rtol=1e-12)
        assert ex.bars[0].labels[-1] == "new" and ex.bars[0].lower_is_better


def test_kmeans_explanation_argmin_is_the_label():
    data = _blobs()
    run = Run("kmeans", data, params={"n_clusters": 3}, seed=0)
    run.run(3)
    for i in range(0, data.n_samples, 7):
        ex = run.explain(i)
        assert ex.bars[0].highlight == run.state.labels[i]


def test_a_failing_explain_is_reported_not_raised():
    data = _blobs()
    run = Run("gmm", data, params={"n_components": 3}, seed=0)

    def broken(state, index):
        raise KeyError("oops")

    run.algorithm.explain = broken
    with pytest.warns(RuntimeWarning, match="could not explain point 3"):
        assert run.explain(3) is None
    with pytest.raises(IndexError):
        run.explain(data.n_samples)


def test_bars_check_their_lengths():
    with pytest.raises(ValueError, match="2 labels for 3 values"):
        Bars("x", ("a", "b"), np.zeros(3))
    ex = Explanation(0, "E-step", "eq", (Bars("x", ("a",), np.ones(1), 0),))
    assert ex.describe()["bars"][0]["values"] == [1.0]
