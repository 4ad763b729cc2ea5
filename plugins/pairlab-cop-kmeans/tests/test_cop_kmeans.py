"""Tests of the COP-KMeans plugin (run them after `pip install ./plugins/pairlab-cop-kmeans`)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pairlab_cop_kmeans import COPKMeans, InfeasibleAssignmentError

from pairlab import Constraints, Dataset, InconsistentConstraintsError, PairlabError, Registry, Run
from pairlab.testing import check_algorithm, make_check_dataset

# -- a literal transcription of Table 1, the oracle ------------------------------------------


def _closure(n, ml, cl):
    """Entailed links by brute force: must-link components, cannot-links between them."""
    comp = list(range(n))
    changed = True
    while changed:
        changed = False
        for a, b in ml:
            lo = min(comp[a], comp[b])
            if comp[a] != lo or comp[b] != lo:
                comp[a] = comp[b] = lo
                changed = True
        for i in range(n):  # path compression until stable
            if comp[comp[i]] != comp[i]:
                comp[i] = comp[comp[i]]
                changed = True
    ml2 = {(i, j) for i in range(n) for j in range(n) if i != j and comp[i] == comp[j]}
    cl2 = set()
    for a, b in cl:
        for i in range(n):
            for j in range(n):
                if comp[i] == comp[a] and comp[j] == comp[b]:
                    cl2 |= {(i, j), (j, i)}
    return ml2, cl2


def reference_run(X, centers, ml, cl, closure, max_iter):
    """Table 1 with Python sets. Returns (list of label arrays, None) or (labels so far, (i, t))."""
    n, k = X.shape[0], centers.shape[0]
    if closure:
        ML, CL = _closure(n, ml, cl)
    else:
        ML = {(a, b) for a, b in ml} | {(b, a) for a, b in ml}
        CL = {(a, b) for a, b in cl} | {(b, a) for a, b in cl}
    history = []
    for t in range(max_iter + 1):
        labels = {}
        for i in range(n):
            dist = ((X[i] - centers) ** 2).sum(axis=1)
            for c in sorted(range(k), key=lambda c: (dist[c], c)):
                violate = any((i, j) in ML and labels[j] != c for j in labels) or any(
                    (i, j) in CL and labels[j] == c for j in labels)
                if not violate:
                    labels[i] = c
                    break
            else:
                return history, (i, t)
        lab = np.array([labels[i] for i in range(n)])
        history.append(lab)
        if len(history) > 1 and np.array_equal(history[-1], history[-2]):
            break
        new = centers.copy()
        for c in range(k):
            if (lab == c).any():
                new[c] = X[lab == c].mean(axis=0)
        centers = new
    return history, None


def random_problem(rng, n=10, n_links=6):
    X = rng.normal(size=(n, 2))
    y = rng.integers(3, size=n)
    pairs = [p for p in itertools.combinations(range(n), 2)]
    chosen = rng.choice(len(pairs), size=n_links, replace=False)
    ml = [pairs[c] for c in chosen if y[pairs[c][0]] == y[pairs[c][1]]]
    cl = [pairs[c] for c in chosen if y[pairs[c][0]] != y[pairs[c][1]]]
    return X, ml, cl


@pytest.mark.parametrize("closure", [True, False])
def test_matches_a_literal_transcription_of_table_1(closure):
    rng = np.random.default_rng(2001)
    outcomes = {"ok": 0, "failed": 0}
    for _ in range(150):
        X, ml, cl = random_problem(rng)
        k = int(rng.integers(2, 4))
        centers = X[rng.choice(len(X), k, replace=False)]
        data = Dataset(X)
        links = Constraints(ml, cl, n_samples=len(X))
        params = {"n_clusters": k, "means_init": centers, "closure": closure, "max_iter": 20}
        expected, failure = reference_run(X, centers, ml, cl, closure, 20)
        if failure is None:
            run = Run(COPKMeans, data, links, params)
            run.run()
            got = [s.labels for s in run.history]
            assert len(got) == len(expected)
            assert all(np.array_equal(a, b) for a, b in zip(got, expected, strict=True))
            outcomes["ok"] += 1
        else:
            with pytest.raises(InfeasibleAssignmentError) as info:
                Run(COPKMeans, data, links, params).run()
            assert (info.value.point, info.value.iteration) == failure
            outcomes["failed"] += 1
    assert outcomes["ok"] > 30 and outcomes["failed"] > 10, outcomes


def test_every_state_satisfies_every_link():
    data = make_check_dataset(60, seed=4)
    rng = np.random.default_rng(0)
    from pairlab.links import random_pairs

    for seed in range(10):
        links = random_pairs(data.y, 8, 8, rng)
        run = Run(COPKMeans, data, links, {"order": "random"}, seed=seed)
        run.run()
        for state in run.history:
            ml, cl = links.satisfied(state.labels)
            assert ml.all() and cl.all()


def test_without_links_it_is_lloyds_kmeans():
    data = make_check_dataset(50, seed=1)
    centers = data.X[:3].copy()
    ours = Run(COPKMeans, data, None, {"n_clusters": 3, "means_init": centers})
    ours.run()
    plain = Run("kmeans", data, None, {"n_clusters": 3, "means_init": centers},
                registry=Registry(external=False))
    plain.run()
    assert ours.n_iter == plain.n_iter
    for a, b in zip(ours.history, plain.history, strict=True):
        assert np.array_equal(a.labels, b.labels)
        np.testing.assert_allclose(a.model["centers"], b.model["centers"], rtol=0, atol=1e-12)
        assert a.objective == pytest.approx(b.objective, rel=1e-12)


def test_infeasible_points_raise_a_clear_pairlab_error():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [0.2, 0.0], [5.0, 5.0]])
    links = Constraints(None, [[0, 1], [1, 2], [0, 2]], n_samples=4)  # a cannot-link triangle
    with pytest.raises(InfeasibleAssignmentError) as info:
        Run(COPKMeans, Dataset(X), links, {"n_clusters": 2, "means_init": X[[0, 3]]})
    err = info.value
    assert isinstance(err, PairlabError)
    assert err.point == 2 and err.iteration == 0
    assert "cannot assign point 2" in str(err) and "Increase n_clusters" in str(err)
    Run(COPKMeans, Dataset(X), links, {"n_clusters": 3})  # three clusters are enough


def test_closure_avoids_the_order_trap_of_literal_links():
    # The chain 0 - 2 - 1 of must-links; point 1 is visited before 2 and is nearest the other centre.
    X = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 0.0], [5.0, 0.0]])
    links = Constraints([[0, 2], [2, 1]], None, n_samples=4)
    params = {"n_clusters": 2, "means_init": np.array([[0.0, 0.0], [5.0, 0.0]])}
    state = Run(COPKMeans, Dataset(X), links, {**params, "closure": True}).state
    assert state.labels.tolist() == [0, 0, 0, 1]
    with pytest.raises(InfeasibleAssignmentError, match=r"cannot assign point 2 at iteration 0: "
                                                        r"must-linked to point 0 \(cluster 0\), "
                                                        r"point 1 \(cluster 1\)"):
        Run(COPKMeans, Dataset(X), links, {**params, "closure": False})


def test_contradictory_links_are_rejected_up_front():
    links = Constraints([[0, 1], [1, 2]], [[0, 2]], n_samples=5)
    with pytest.raises(InconsistentConstraintsError, match="chain 0 - 1 - 2"):
        COPKMeans(Dataset(np.arange(10.0).reshape(5, 2)), links)


def test_predict_proba_is_nearest_centre():
    data = make_check_dataset(40)
    run = Run(COPKMeans, data, None, {"n_clusters": 2})
    state = run.run()
    proba = run.algorithm.predict_proba(state, data.X)
    assert np.array_equal(proba.argmax(axis=1), state.labels)
    assert set(np.unique(proba)) == {0.0, 1.0}


@pytest.mark.parametrize("params", [{}, {"closure": False, "order": "random", "init": "random"}])
def test_conformance(params):
    check_algorithm(COPKMeans, params=params)


def test_conformance_fixture(pairlab_check_algorithm, pairlab_small_dataset):
    pairlab_check_algorithm(COPKMeans, pairlab_small_dataset, params={"n_clusters": 3})


def test_registered_through_the_entry_point():
    """Under its own name: the built-in ``cop-kmeans`` is a different plugin."""
    reg = Registry(external=True)
    assert reg.algorithm("cop-kmeans-example") is COPKMeans
    info = reg.plugin_of("algorithms", "cop-kmeans-example")
    assert info.distribution == "pairlab-cop-kmeans" and info.ok and not info.builtin
