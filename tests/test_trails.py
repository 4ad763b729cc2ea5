"""Trails of the means (pairlab.draw.trails) against the states' own means."""

import numpy as np

from pairlab import Constraints, Dataset, Run
from pairlab.draw.geometry import ViewMap
from pairlab.draw.trails import mean_trails


def test_trails_join_each_mean_across_iterations():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(4, 1, (20, 2))])
    data = Dataset(X)
    run = Run("kmeans", data, Constraints.empty(40), {"n_clusters": 2}, seed=1)
    for _ in range(3):
        run.step()
    states = run.history
    trails = mean_trails(states, ViewMap.of(data), 2)
    expected = []
    for t in range(len(states) - 1):
        a, b = states[t].model["means"], states[t + 1].model["means"]
        for c in range(2):
            if not np.array_equal(a[c], b[c]):
                expected.append((c, (t + 1) / (len(states) - 1), a[c], b[c]))
    assert len(trails) == len(expected) > 0
    for (c, age, a, b), seg, comp, got_age in zip(expected, trails.segments, trails.component,
                                                  trails.age, strict=True):
        assert comp == c and got_age == age
        np.testing.assert_allclose(seg, [a, b], atol=1e-12)


def test_trails_of_4d_data_are_the_projected_means_and_none_without_an_exact_view():
    rng = np.random.default_rng(1)
    data = Dataset(rng.normal(size=(30, 4)))
    run = Run("kmeans", data, Constraints.empty(30), {"n_clusters": 2}, seed=0)
    run.step()
    vm = ViewMap.of(data)  # the PCA view: a linear map, so the means' trails are exact
    trails = mean_trails(run.history, vm, 4)
    a, b = (vm.to_view(s.model["means"]) for s in run.history)
    np.testing.assert_allclose(trails.segments, np.stack([a, b], axis=1)[trails.component])
    assert len(trails) == 2
    bent = ViewMap(vm.center, vm.matrix, vm.offset, exact=False)  # a plugin's non-linear view
    assert len(mean_trails(run.history, bent, 4)) == 0
    data2 = Dataset(rng.normal(size=(30, 2)))
    run2 = Run("affinity-propagation", data2, Constraints.empty(30), {}, seed=0)
    run2.step()
    assert len(mean_trails(run2.history, ViewMap.of(data2), 2)) == 0  # no means


def test_trails_follow_components_by_index_when_their_number_changes():
    from pairlab import State

    labels = np.zeros(3, dtype=int)
    means = [np.array([[0.0, 0.0]]), np.array([[1.0, 0.0], [5.0, 5.0]]),
             np.array([[1.0, 0.0], [6.0, 5.0]]), np.array([[2.0, 0.0], [6.0, 5.0], [9.0, 9.0]])]
    states = [State(t, labels, model={"means": m}) for t, m in enumerate(means)]
    data = Dataset(np.zeros((3, 2)) + np.arange(3)[:, None])
    trails = mean_trails(states, ViewMap.of(data), 2)
    np.testing.assert_array_equal(trails.component, [0, 1, 0])  # t=1 no move of 0; new ones skip
    np.testing.assert_allclose(trails.segments, [[[0, 0], [1, 0]], [[5, 5], [6, 5]],
                                                 [[1, 0], [2, 0]]])
    np.testing.assert_allclose(trails.age, [1 / 3, 2 / 3, 1.0])
