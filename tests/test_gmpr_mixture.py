"""GM-PR with a mixture of Gaussians per class (section 3.4.1, Appendix A): brute force over the
cluster labels, m_K = 1 is gmpr, no links is plain EM over all clusters, monotone EM."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pairlab_builtins.algorithms.gmpr import GMPR
from pairlab_builtins.algorithms.gmpr_mixture import GMPRMixture
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.mixture import GaussianMixture

from pairlab import Constraints, Dataset, InvalidInputError, Run, make_estimator
from pairlab.links import random_pairs

from .test_gmpr import STRUCTURES, brute_force, random_parameters


def mixture_parameters(rng, per_class, d=2):
    k = len(per_class)
    class_of = np.repeat(np.arange(k), per_class)
    alpha, means, covs = random_parameters(rng, k, d, k_all=class_of.size)
    pi = np.concatenate([rng.dirichlet(np.ones(p)) for p in per_class])
    return alpha, means, covs, pi, class_of


@pytest.mark.parametrize("structure", [0, 1, 2, 3, 5])
def test_e_step_equals_brute_force_over_classes_and_clusters(structure):
    """Eq. 26-33 generalised to overlapping links: enumerate every point's cluster label."""
    n, m, ml, cl = STRUCTURES[structure]
    n = min(n, 6)
    ml = [p for p in ml if max(p) < n]
    cl = [p for p in cl if max(p) < n]
    rng = np.random.default_rng(structure)
    per_class = [2] + [1] * (m - 2) + [2] if m > 2 else [2, 2]
    X = rng.normal(scale=2, size=(n, 2))
    algo = GMPRMixture(Dataset(X), Constraints(ml, cl, n_samples=n),
                       {"n_components": m, "n_components_per_class": per_class})
    for _ in range(2):
        alpha, means, covs, pi, class_of = mixture_parameters(rng, per_class)
        st = algo.make_state(0, (alpha, means, covs, pi), {})
        ll, q, r = brute_force(X, ml, cl, alpha, means, covs, pi, class_of)
        np.testing.assert_allclose(st.objective, ll, rtol=1e-11)
        np.testing.assert_allclose(st.responsibilities, q, atol=1e-11)
        np.testing.assert_allclose(st.extras["component_responsibilities"], r, atol=1e-11)
        assert np.array_equal(st.model["class_of_component"], class_of)


def test_one_cluster_per_class_is_gmpr():
    rng = np.random.default_rng(4)
    y = rng.integers(3, size=60)
    X = rng.normal(scale=3, size=(3, 2))[y] + rng.normal(size=(60, 2))
    cons = random_pairs(y, 10, 10, rng)
    params = {"n_components": 3, "tol": 0, "max_iter": 12}
    a = Run("gmpr", Dataset(X), cons, params, seed=3)
    b = Run("gmpr-mixture", Dataset(X), cons, {**params, "n_components_per_class": 1}, seed=3)
    a.run()
    b.run()
    assert len(a.history) == len(b.history) == 13
    assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))


@pytest.mark.parametrize("per_class", [[2, 2], [1, 3], [3, 2, 1]])
def test_no_links_is_plain_em_over_all_clusters_like_sklearn(per_class):
    """Without links, alpha_m pi_{m_k} are plain mixture weights and eq. 34-40 plain EM."""
    rng = np.random.default_rng(sum(per_class))
    k = len(per_class)
    n_comp = sum(per_class)
    X = np.vstack([rng.normal(loc=2.5 * i, size=(40, 2)) for i in range(n_comp)])
    alpha, means, covs, _, class_of = mixture_parameters(rng, per_class)
    covs += np.eye(2)
    start = {"n_components": k, "n_components_per_class": per_class, "means_init": means,
             "weights_init": alpha, "covariances_init": covs, "tol": 0}
    run = Run("gmpr-mixture", Dataset(X), params=start)
    weights = alpha[class_of] / np.asarray(per_class)[class_of]
    done = 0
    for n_iter in (1, 6):
        sk = GaussianMixture(n_comp, covariance_type="full", tol=0, max_iter=n_iter,
                             reg_covar=1e-6, weights_init=weights, means_init=means,
                             precisions_init=np.linalg.inv(covs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkConvergenceWarning)
            sk.fit(X)
        for _ in range(n_iter - done):
            run.step()
        done = n_iter
        model = run.state.model
        np.testing.assert_allclose(model["means"], sk.means_, atol=1e-8, rtol=1e-8)
        np.testing.assert_allclose(model["covariances"], sk.covariances_, atol=1e-8, rtol=1e-8)
        flat = model["weights"][class_of] * model["component_weights"]
        np.testing.assert_allclose(flat, sk.weights_, atol=1e-8, rtol=1e-8)
        np.testing.assert_allclose(run.history[-2].objective / len(X), sk.lower_bound_,
                                   rtol=1e-10)


def test_objective_never_decreases_with_links():
    for seed in range(14):
        rng = np.random.default_rng(100 + seed)
        k = int(rng.integers(2, 4))
        y = rng.integers(2 * k, size=70)
        X = rng.normal(scale=3, size=(2 * k, 2))[y] + rng.normal(size=(70, 2))
        cons = random_pairs(y % k, int(rng.integers(0, 20)), int(rng.integers(1, 20)), rng)
        per_class = rng.integers(1, 4, size=k).tolist()
        run = Run("gmpr-mixture", Dataset(X), cons,
                  {"n_components": k, "n_components_per_class": per_class, "tol": 0,
                   "max_iter": 20}, seed=seed)
        run.run()
        obj = run.objectives
        assert np.all(np.isfinite(obj))
        assert np.all(np.diff(obj) >= -1e-9 * np.abs(obj[1:])), (seed, np.diff(obj).min())


def test_initialisation_follows_section_4_1_within_each_class():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(loc=c, size=(30, 2)) for c in ([0, 0], [6, 0], [0, 6], [6, 6])])
    params = {"n_components": 2, "reg_covar": 1e-6}
    classes = GMPR(Dataset(X), None, params, np.random.default_rng(5)).initialize().model
    algo = GMPRMixture(Dataset(X), None, {**params, "n_components_per_class": [1, 3]},
                       np.random.default_rng(5))
    st = algo.initialize()
    model = st.model
    assert np.array_equal(model["class_of_component"], [0, 1, 1, 1])
    np.testing.assert_allclose(model["weights"], [0.5, 0.5])
    np.testing.assert_allclose(model["component_weights"], [1, 1 / 3, 1 / 3, 1 / 3])
    # the one-cluster class keeps its class-level mean and covariance
    np.testing.assert_array_equal(model["means"][0], classes["means"][0])
    np.testing.assert_array_equal(model["covariances"][0], classes["covariances"][0])
    # the three clusters of class 1 are seeded among the points nearest class 1's mean
    d2 = ((X[:, None, :] - classes["means"][None]) ** 2).sum(axis=2)
    pool = X[d2.argmin(axis=1) == 1]
    for mean in model["means"][1:]:
        assert np.any(np.all(pool == mean, axis=1))
    assert len({tuple(m) for m in model["means"][1:]}) == 3
    # each cluster's covariance comes from the pool points nearest its seed
    seeds = model["means"][1:]
    near = ((pool[:, None, :] - seeds[None]) ** 2).sum(axis=2).argmin(axis=1)
    for j in range(3):
        pts = pool[near == j]
        want = np.cov(pts.T, bias=True) + 1e-6 * np.eye(2)
        np.testing.assert_allclose(model["covariances"][1 + j], want, rtol=1e-10, atol=1e-12)


def test_predict_proba_is_eq_27_and_cluster_responsibilities_are_exposed():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(loc=c, size=(25, 2)) for c in ([0, 0], [5, 0], [0, 5], [5, 5])])
    est = make_estimator("gmpr-mixture", n_components=2, n_components_per_class=2,
                         random_state=0)
    est.fit(X, must_link=[[0, 30]], cannot_link=[[0, 60], [30, 80]])
    Xnew = rng.normal(2.5, 3, size=(20, 2))
    comp = np.column_stack([
        est.weights_[c] * w * multivariate_normal(m, s).pdf(Xnew)
        for c, w, m, s in zip(est.class_of_component_, est.component_weights_, est.means_,
                              est.covariances_, strict=True)])
    cls = np.column_stack([comp[:, est.class_of_component_ == c].sum(axis=1) for c in range(2)])
    np.testing.assert_allclose(est.predict_proba(Xnew), cls / cls.sum(1, keepdims=True),
                               atol=1e-12)
    r = est.state_.extras["component_responsibilities"]
    assert r.shape == (100, 4)
    summed = np.column_stack([r[:, est.class_of_component_ == c].sum(axis=1) for c in range(2)])
    np.testing.assert_allclose(summed, est.state_.responsibilities, atol=1e-12)
    assert est.labels_[0] == est.labels_[30] != est.labels_[60]
    for c in range(2):
        np.testing.assert_allclose(est.component_weights_[est.class_of_component_ == c].sum(), 1)


def test_components_per_class_are_validated():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(InvalidInputError, match="list of n_components=3"):
        Run("gmpr-mixture", Dataset(X), params={"n_components": 3, "n_components_per_class": [2, 2]})
    for bad in (0, 1.5, [1, -1]):
        with pytest.raises(InvalidInputError, match="whole numbers >= 1"):
            Run("gmpr-mixture", Dataset(X),
                params={"n_components": 2, "n_components_per_class": bad})
    with pytest.raises(InvalidInputError, match="exceed the number of points"):
        Run("gmpr-mixture", Dataset(X[:5]), params={"n_components": 2,
                                                    "n_components_per_class": 3})
    with pytest.raises(InvalidInputError, match="means_init must have shape"):
        Run("gmpr-mixture", Dataset(X), params={"n_components": 2, "n_components_per_class": 2,
                                               "means_init": np.zeros((2, 2))})
    spec = {p.name: p for p in GMPRMixture.params}["n_components_per_class"]
    assert spec.parse("[1, 3]").tolist() == [1, 3]


def test_a_class_with_too_few_points_seeds_from_the_points_nearest_its_mean():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(size=(40, 2)), [[30.0, 30.0]]])  # one lonely point
    params = {"n_components": 2}
    classes = GMPR(Dataset(X), None, params, np.random.default_rng(0)).initialize().model
    lonely = int(np.argmin(((classes["means"] - [30.0, 30.0]) ** 2).sum(axis=1)))
    assert np.array_equal(classes["means"][lonely], [30.0, 30.0])  # k-means++ picked it
    algo = GMPRMixture(Dataset(X), None, {**params, "n_components_per_class": 3},
                       np.random.default_rng(0))
    means = algo.initialize().model["means"][3 * lonely: 3 * lonely + 3]
    nearest = X[np.argsort(((X - [30.0, 30.0]) ** 2).sum(axis=1))[:3]]
    assert {tuple(m) for m in means} == {tuple(p) for p in nearest}
    run = Run(GMPRMixture, Dataset(X), None, {**params, "n_components_per_class": 3,
                                              "max_iter": 5}, seed=0)
    run.run()
    assert np.all(np.isfinite(run.objectives))
