import numpy as np
import pytest
from scipy.special import logsumexp

from pairlab import Algorithm, Dataset, InvalidInputError, get_registry
from pairlab.mixture import (
    EStep,
    MixtureAlgorithm,
    estimate_log_gaussian,
    kmeans_plusplus,
    log_normalize,
    precision_cholesky,
)


def test_log_normalize_matches_logsumexp_and_survives_far_points():
    rng = np.random.default_rng(0)
    log_p = rng.normal(scale=300, size=(50, 4)) - 5000
    post, log_norm = log_normalize(log_p)
    np.testing.assert_allclose(log_norm, logsumexp(log_p, axis=1), rtol=1e-12)
    np.testing.assert_allclose(post, np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True)),
                               atol=1e-14)
    log_p[3] = -np.inf
    post, log_norm = log_normalize(log_p)
    assert log_norm[3] == -np.inf and np.all(np.isfinite(post)) and post[3, 0] == 0.25


@pytest.mark.parametrize("k", [1, 2, 3, 4, 7, 8, 11])
def test_row_reduce_has_the_bits_of_numpys_axis_reduction(k):
    from pairlab.mixture import _row_reduce

    rng = np.random.default_rng(k)
    a = np.exp(rng.normal(scale=8, size=(3000, k)))  # wide range: the order of additions shows
    a[5] = -np.inf
    a[7, 0] = np.nan
    for ufunc in (np.add, np.maximum):
        want = ufunc.reduce(a, axis=1)
        got = _row_reduce(ufunc, a)
        assert got.tobytes() == want.tobytes()
    with np.errstate(divide="ignore"):
        log_p = np.log(np.where(np.isfinite(a), a, 0.0))  # row 5 all -inf, row 7 one
    m = log_p.max(axis=1)  # log_normalize as written with numpy's reductions
    empty = ~np.isfinite(m)
    m[empty] = 0.0
    shifted = log_p - m[:, None]
    shifted[shifted < -700.0] = -np.inf
    want = np.exp(shifted)
    want[empty] = 1.0
    total = want.sum(axis=1)
    want /= total[:, None]
    want_norm = np.log(total) + m
    want_norm[empty] = -np.inf
    post, log_norm = log_normalize(log_p)
    assert post.tobytes() == want.tobytes() and log_norm.tobytes() == want_norm.tobytes()


def test_log_gaussian_matches_scipy():
    from scipy.stats import multivariate_normal

    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 3))
    means = rng.normal(size=(2, 3))
    a = rng.normal(size=(2, 3, 3))
    covs = a @ a.transpose(0, 2, 1) + np.eye(3)
    got = estimate_log_gaussian(X, means, precision_cholesky(covs))
    want = np.column_stack([multivariate_normal(m, c).logpdf(X) for m, c in zip(means, covs, strict=True)])
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_singular_covariance_message():
    with pytest.raises(InvalidInputError, match="component 1 is singular"):
        precision_cholesky(np.array([np.eye(2), np.zeros((2, 2))]))


def test_kmeans_plusplus_deterministic_and_distinct():
    X = np.random.default_rng(2).normal(size=(100, 2))
    a = kmeans_plusplus(X, 5, np.random.default_rng(3))
    b = kmeans_plusplus(X, 5, np.random.default_rng(3))
    assert np.array_equal(a, b) and len(np.unique(a, axis=0)) == 5
    with pytest.raises(InvalidInputError, match="lower n_components"):
        kmeans_plusplus(X[:3], 5, np.random.default_rng(0))


MIXTURES = ("gmm", "em-pc", "constrained-em", "ppc", "gmpr", "gmpr-mixture")


@pytest.mark.parametrize("name", MIXTURES)
def test_every_mixture_plugin_fills_the_one_e_step_hook(name):
    """The template (make_state, the M-step half, step) is shared; a plugin writes its
    E-step in ``e_step``, which returns an :class:`EStep`."""
    cls = get_registry().algorithm(name)
    assert issubclass(cls, MixtureAlgorithm) and cls.e_step is not MixtureAlgorithm.e_step
    assert cls.make_state is MixtureAlgorithm.make_state
    assert cls.half_step is MixtureAlgorithm.half_step and cls.step is Algorithm.step
    assert not hasattr(cls, "state_from_parameters")
    rng = np.random.default_rng(0)
    algo = cls(Dataset(rng.normal(size=(30, 2))), params={"n_components": 2})
    state = algo.initialize()
    parameters = algo.m_step(state)
    e = algo.e_step(parameters, precision_cholesky(parameters[2], algo.covariance_type), state.extras)
    assert isinstance(e, EStep)
    after = algo.finish_step(algo.half_step(state))
    assert np.array_equal(e.responsibilities, after.responsibilities) and e.objective == after.objective
