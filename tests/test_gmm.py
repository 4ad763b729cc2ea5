"""The plain GMM plugin against scikit-learn's GaussianMixture, from the same start."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.mixture import GaussianMixture

from pairlab import Dataset, InvalidInputError, Run, get_registry, make_estimator


def start(X, k, rng):
    means = X[rng.choice(len(X), k, replace=False)]
    covs = np.array([np.cov(X.T) + 0.1 * np.eye(X.shape[1]) for _ in range(k)])
    w = rng.dirichlet(np.ones(k))
    return w, means, covs


@pytest.mark.parametrize("seed, k, d", [(0, 2, 2), (1, 3, 2), (2, 4, 3), (3, 3, 5)])
def test_matches_sklearn_from_the_same_start(seed, k, d):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(loc=3 * i, size=(60, d)) for i in range(k)])
    w, m, c = start(X, k, rng)
    for n_iter in (1, 5, 20):
        sk = GaussianMixture(k, covariance_type="full", tol=0, max_iter=n_iter, reg_covar=1e-6,
                             weights_init=w, means_init=m, precisions_init=np.linalg.inv(c))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkConvergenceWarning)
            sk.fit(X)
        run = Run("gmm", Dataset(X), params={"n_components": k, "means_init": m,
                                             "weights_init": w, "covariances_init": c, "tol": 0})
        for _ in range(n_iter):
            run.step()
        model = run.state.model
        np.testing.assert_allclose(model["means"], sk.means_, atol=1e-8, rtol=1e-8)
        np.testing.assert_allclose(model["covariances"], sk.covariances_, atol=1e-8, rtol=1e-8)
        np.testing.assert_allclose(model["weights"], sk.weights_, atol=1e-8, rtol=1e-8)
        # sklearn's lower bound is the mean log-likelihood of the previous parameters
        np.testing.assert_allclose(run.history[-2].objective / len(X), sk.lower_bound_,
                                   rtol=1e-10)


def test_log_likelihood_never_decreases():
    for seed in range(15):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(80, 2)) * rng.uniform(0.5, 2, size=2)
        run = Run("gmm", Dataset(X), params={"n_components": 3, "tol": 0, "max_iter": 30},
                  seed=seed)
        run.run()
        assert np.all(np.diff(run.objectives) >= -1e-9 * np.abs(run.objectives[1:]))


def test_predict_proba_matches_scipy_densities():
    from scipy.stats import multivariate_normal

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(50, 2)), rng.normal(4, size=(50, 2))])
    est = make_estimator("gmm", n_components=2, random_state=0).fit(X)
    Xnew = rng.normal(2, 3, size=(30, 2))
    dens = np.column_stack([
        w * multivariate_normal(m, c).pdf(Xnew)
        for w, m, c in zip(est.weights_, est.means_, est.covariances_, strict=True)
    ])
    np.testing.assert_allclose(est.predict_proba(Xnew), dens / dens.sum(1, keepdims=True),
                               atol=1e-12)
    assert est.converged_ and est.n_iter_ > 0
    assert est.objective_history_.shape == (est.n_iter_ + 1,)


def test_estimator_params_and_clone():
    from sklearn.base import clone

    est = make_estimator("gmm", n_components=3, random_state=4)
    assert est.get_params()["n_components"] == 3
    est.set_params(n_components=2)
    assert clone(est).get_params()["n_components"] == 2
    with pytest.raises(InvalidInputError, match="Invalid parameter"):
        est.set_params(n_clusters=2)
    with pytest.raises(InvalidInputError, match="Did you mean 'n_components'"):
        make_estimator("gmm", n_component=2)
    with pytest.raises(InvalidInputError, match="not fitted"):
        est.predict(np.zeros((2, 2)))


def test_too_few_points_and_singular_covariance():
    with pytest.raises(InvalidInputError, match="exceeds the number of points"):
        make_estimator("gmm", n_components=5).fit(np.zeros((3, 2)) + np.arange(3)[:, None])
    X = np.repeat([[0.0, 0.0], [1.0, 1.0]], 10, axis=0)
    with pytest.raises(InvalidInputError, match="increase reg_covar"):
        make_estimator("gmm", n_components=2, reg_covar=0.0, random_state=0).fit(X)
    labels = make_estimator("gmm", n_components=2, random_state=0).fit_predict(X)
    assert len(set(labels[:10])) == 1 and labels[0] != labels[-1]


def test_kmeans_runs_and_inertia_decreases():
    data = get_registry().dataset("gaussian-blobs").make(seed=1)
    run = Run("kmeans", data, params={"n_clusters": 3}, seed=0)
    run.run()
    assert run.converged
    assert np.all(np.diff(run.objectives) <= 1e-9)
