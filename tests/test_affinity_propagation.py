"""The affinity-propagation plugin against scikit-learn's AffinityPropagation (Frey & Dueck)."""

import warnings

import numpy as np
import pytest
from pairlab_builtins.algorithms import ap_messages as mod
from sklearn.cluster import AffinityPropagation as SkAffinityPropagation

from pairlab import Constraints, Dataset, Run, get_registry, make_estimator
from pairlab.testing import check_algorithm

from .helpers import sklearn_refine


def sklearn_fit(X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SkAffinityPropagation(random_state=0, **kw).fit(X)


def data(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(30, 100)), int(rng.integers(1, 5))
    if seed % 2:
        k = int(rng.integers(2, 5))
        centers = rng.uniform(-8, 8, size=(k, d))
        return centers[rng.integers(k, size=n)] + rng.normal(size=(n, d))
    return rng.normal(size=(n, d)) * rng.uniform(0.3, 3)


@pytest.mark.parametrize("seed, damping, preference", [
    (0, 0.5, None), (1, 0.5, None), (2, 0.7, None), (3, 0.9, None), (4, 0.5, -30.0),
    (5, 0.6, -5.0), (6, 0.5, None), (7, 0.8, None),
])
def test_equals_sklearn(seed, damping, preference):
    X = data(seed)
    sk = sklearn_fit(X, damping=damping, preference=preference, max_iter=400)
    run = Run("affinity-propagation", Dataset(X), None,
              {"damping": damping, "preference": preference, "max_iter": 400}, seed=seed)
    run.run()
    assert run.converged == (sk.n_iter_ < 400)
    assert run.n_iter == sk.n_iter_                      # same termination iteration
    np.testing.assert_array_equal(run.state.labels, sk.labels_)
    np.testing.assert_array_equal(run.state.extras["exemplar_indices"], sk.cluster_centers_indices_)


def sklearn_similarity(X, seed=0):
    """The similarity scikit-learn's AffinityPropagation iterates on: its median, its tie noise."""
    from sklearn.metrics import euclidean_distances

    S = -euclidean_distances(X, squared=True)
    n = len(X)
    S.flat[:: n + 1] = np.median(S)
    eps, tiny = np.finfo(float).eps, np.finfo(float).tiny
    S += (eps * S + tiny * 100) * np.random.RandomState(seed).standard_normal(size=(n, n))
    return S


@pytest.mark.parametrize("seed", [12, 13, 15, 18])
def test_every_iteration_equals_sklearn_on_its_own_similarity(seed):
    """Stopped early (many tiny clusters, where only the tie noise decides the medoid of a pair)
    the messages and the refined exemplars equal scikit-learn's when given its noisy S."""
    X = data(seed)
    S = sklearn_similarity(X)
    empty = mod.LinkSet.build(np.empty((0, 2)), np.empty(0), 0.0, len(X))
    eng = mod.MessageEngine(S, empty, empty, 0.5, order="frey-dueck")
    for max_iter in range(1, 13):
        eng.iterate()
        sk = sklearn_fit(X, max_iter=max_iter)
        if len(sk.cluster_centers_indices_) == 0:
            assert not eng.self_exemplars().any()
            continue
        ex = mod.identify_exemplars(eng.A, eng.R, eng.S, eng.self_exemplars(), "refine")
        np.testing.assert_array_equal(np.unique(ex), sk.cluster_centers_indices_)
        np.testing.assert_array_equal(np.searchsorted(np.unique(ex), ex), sk.labels_)


@pytest.mark.parametrize("seed", range(3))
def test_refine_is_sklearns_loop_bit_for_bit(seed):
    """The compiled refinement (:mod:`.ap_exemplars`) picks exactly what the loop picks, with many
    clusters and few, on real-valued similarities and on integer ones full of ties."""
    rng = np.random.default_rng(seed)
    for trial in range(40):
        n = int(rng.integers(2, 120))
        if trial % 3 == 0:
            S = rng.integers(-4, 1, size=(n, n)).astype(float)
        else:
            X = rng.normal(size=(n, 2)) * rng.uniform(0.5, 4)
            S = -mod.squared_distances(X) + rng.normal(size=(n, n)) * 1e-9
        mask = rng.random(n) < rng.choice([0.01, 0.05, 0.2, 0.5, 0.9])
        mask[rng.integers(n)] = True
        want = sklearn_refine(S, mask)
        np.testing.assert_array_equal(mod.identify_exemplars(S, S, S, mask, "refine"), want)


def test_kept_clusterings_are_the_ones_computed_afresh():
    """Every state's clustering, kept per self-exemplar mask or not, is what the exemplar rule
    and eq. 6 give for that iteration's messages."""
    X = data(9)
    run = Run("affinity-propagation", Dataset(X), None, {"max_iter": 40, "convergence_iter": 41},
              seed=0)
    run.run()
    eng = run.algorithm._engine
    eng.reset()
    empty = mod.LinkSet.build(np.empty((0, 2)), np.empty(0), 0.0, len(X))
    for state in run.history[1:]:
        eng.iterate()
        mask = eng.self_exemplars()
        ex = mod.identify_exemplars(eng.A, eng.R, eng.S, mask, "refine")
        np.testing.assert_array_equal(state.model["exemplars"], ex)
        assert state.objective == mod.net_similarity(eng.S, ex, empty, empty)[0]


def test_precomputed_equals_sklearn():
    X = data(3)
    S = -((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    sk = sklearn_fit(S, affinity="precomputed")
    est = make_estimator("affinity-propagation", affinity="precomputed", random_state=0).fit(S)
    np.testing.assert_array_equal(est.labels_, sk.labels_)


def test_default_damping_and_names_follow_sklearn():
    params = {p.name: p.default for p in get_registry().algorithm("affinity-propagation").params}
    sk = SkAffinityPropagation().get_params()
    for name in ("damping", "preference", "max_iter", "convergence_iter", "affinity"):
        assert params[name] == sk[name]
    scssap = {p.name: p.default for p in get_registry().algorithm("scssap").params}
    assert scssap["damping"] == 0.75                     # section 4.1 of Arzeno & Vikalo


def test_messages_are_scssaps_half_an_iteration_apart():
    """Without links Algorithm 1 and Frey & Dueck give the same messages, alpha one step later."""
    X = data(4)
    S = -mod.squared_distances(X)
    S.flat[:: len(X) + 1] = np.median(S)
    empty = mod.LinkSet.build(np.empty((0, 2)), np.empty(0), 0.0, len(X))
    fd = mod.MessageEngine(S, empty, empty, 0.6, order="frey-dueck")
    sc = mod.MessageEngine(S, empty, empty, 0.6, order="scssap")
    previous_fd_A = fd.A.copy()
    for _ in range(25):
        fd.iterate()
        sc.iterate()
        np.testing.assert_array_equal(sc.R, fd.R)
        np.testing.assert_array_equal(sc.A, previous_fd_A)
        previous_fd_A = fd.A.copy()


def test_ignores_constraints_and_is_deterministic():
    X = data(5)
    links = Constraints([[0, 1]], [[2, 3]], n_samples=len(X))
    a = Run("affinity-propagation", Dataset(X), links, {}, seed=4)
    b = Run("affinity-propagation", Dataset(X), None, {}, seed=4)
    a.run()
    b.run()
    assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))


def test_estimator_exposes_exemplars():
    X = data(1)
    est = make_estimator("affinity-propagation", random_state=0).fit(X)
    sk = sklearn_fit(X)
    np.testing.assert_array_equal(np.unique(est.exemplars_), sk.cluster_centers_indices_)
    np.testing.assert_array_equal(X[np.unique(est.exemplars_)], sk.cluster_centers_)
    assert est.converged_ and est.n_iter_ == sk.n_iter_


def test_conformance():
    check_algorithm(get_registry().algorithm("affinity-propagation"), n_steps=4)
