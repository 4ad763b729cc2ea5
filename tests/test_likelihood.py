"""score_samples, score, bic, aic and sample of the Gaussian family (pairlab.likelihood)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pairlab import make_estimator
from pairlab.errors import InvalidInputError, NotFittedError

sklearn = pytest.importorskip("sklearn")
from sklearn.mixture import GaussianMixture  # noqa: E402
from sklearn.mixture._gaussian_mixture import _compute_precision_cholesky  # noqa: E402

GAUSSIAN = ("gmm", "gmpr", "gmpr-mixture", "constrained-em", "ppc", "em-pc", "tvclust-variational")


def _blobs(seed: int = 1, n: int = 40):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])
    X = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centers])
    return X, np.repeat(np.arange(3), n)


def _links(y: np.ndarray, seed: int = 0, n_pairs: int = 30):
    pairs = np.random.default_rng(seed).choice(y.size, (n_pairs, 2))
    pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    return pairs[same], pairs[~same]


def _k(algorithm: str, k: int) -> dict:
    if algorithm == "tvclust-variational":
        return {"truncation": k}
    if algorithm == "gmpr-mixture":
        return {"n_components": k, "n_components_per_class": 1}
    return {"n_components": k}


def _sklearn_twin(est) -> GaussianMixture:
    """A GaussianMixture holding the estimator's fitted parameters."""
    m = est._mixture()
    g = GaussianMixture(m.weights.size, covariance_type=m.covariance_type)
    g.weights_, g.means_, g.covariances_ = m.weights, m.means, m.covariances
    g.precisions_cholesky_ = _compute_precision_cholesky(m.covariances, m.covariance_type)
    return g


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gmm_equals_sklearn_for_every_covariance_type(covariance_type):
    X, _ = _blobs()
    Xnew = np.random.default_rng(5).normal(3.0, 4.0, (25, 2))
    est = make_estimator("gmm", n_components=3, covariance_type=covariance_type,
                         random_state=0).fit(X)
    # the same start gives scikit-learn's fit: compare with its own fitted parameters too
    sk = GaussianMixture(3, covariance_type=covariance_type, means_init=est.history_[0].model[
        "means"], tol=1e-3, max_iter=100).fit(X)
    np.testing.assert_allclose(est.means_, sk.means_, rtol=1e-6, atol=1e-8)
    twin = _sklearn_twin(est)
    for data in (X, Xnew):
        np.testing.assert_allclose(est.score_samples(data), twin.score_samples(data), rtol=1e-12)
        assert est.score(data) == pytest.approx(twin.score(data), rel=1e-12)
        assert est.bic(data) == pytest.approx(twin.bic(data), rel=1e-12)
        assert est.aic(data) == pytest.approx(twin.aic(data), rel=1e-12)
        assert est.bic(data) == pytest.approx(sk.bic(data), rel=1e-6)
    assert est.n_parameters() == twin._n_parameters() == sk._n_parameters()


@pytest.mark.parametrize("algorithm", GAUSSIAN)
def test_every_gaussian_plugin_scores_its_mixture_as_sklearn(algorithm):
    X, y = _blobs(n=25)
    ml, cl = _links(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make_estimator(algorithm, random_state=0, **_k(algorithm, 3)).fit(
            X, must_link=ml, cannot_link=cl)
    twin = _sklearn_twin(est)
    np.testing.assert_allclose(est.score_samples(X), twin.score_samples(X), rtol=1e-12)
    assert est.bic(X) == pytest.approx(twin.bic(X), rel=1e-12)
    assert est.n_parameters() == twin._n_parameters()
    assert np.isfinite(est.score(X))


def test_gmpr_mixture_weights_are_class_times_cluster_proportions():
    X, _ = _blobs(n=25)
    est = make_estimator("gmpr-mixture", n_components=2, n_components_per_class=[1, 2],
                         random_state=0).fit(X)
    m = est._mixture()
    assert m.weights.size == 3 and m.weights.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(m.weights, est.weights_[[0, 1, 1]] * est.component_weights_)
    assert est.n_parameters() == _sklearn_twin(est)._n_parameters()  # (M-1) + (K-M) = K-1


@pytest.mark.parametrize("algorithm", GAUSSIAN)
def test_bic_picks_the_true_number_of_components_with_links(algorithm):
    X, y = _blobs(n=25)
    ml, cl = _links(y)
    bic = {}
    for k in (2, 3, 4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = make_estimator(algorithm, random_state=0, **_k(algorithm, k)).fit(
                X, must_link=ml, cannot_link=cl)
        bic[k] = est.bic(X)
    assert min(bic, key=bic.get) == 3, bic


def test_sample_is_seeded_and_follows_the_mixture():
    X, _ = _blobs()
    est = make_estimator("gmm", n_components=3, covariance_type="full", random_state=3).fit(X)
    a, la = est.sample(4000)
    b, lb = est.sample(4000)
    assert np.array_equal(a, b) and np.array_equal(la, lb)
    assert a.shape == (4000, 2) and la.shape == (4000,)
    for j in range(3):
        np.testing.assert_allclose(a[la == j].mean(axis=0), est.means_[j], atol=0.15)
        np.testing.assert_allclose(np.cov(a[la == j].T), est.covariances_[j], atol=0.25)
    np.testing.assert_allclose(np.bincount(la) / 4000, est.weights_, atol=0.03)
    with pytest.raises(InvalidInputError, match="n_samples"):
        est.sample(0)


def test_not_fitted_and_non_gaussian_algorithms():
    with pytest.raises(NotFittedError):
        make_estimator("gmm").bic(np.zeros((3, 2)))
    with pytest.raises(NotFittedError):
        make_estimator("gmm").sample(3)
    km = make_estimator("kmeans", n_clusters=2)
    assert not hasattr(km, "bic") and not hasattr(km, "score_samples")
    assert hasattr(make_estimator("ppc"), "score")
