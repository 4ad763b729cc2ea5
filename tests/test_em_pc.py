"""EM-PC (Graça, Ganchev & Taskar 2007): no cannot-links = gmm; the E-step projection against a
direct solution of the primal; EM's objective never decreases; bad input."""

import warnings

import numpy as np
import pytest
from pairlab_builtins.algorithms.em_pc import EMPC, project_posteriors
from scipy.optimize import minimize

from pairlab import Constraints, Dataset, Run
from pairlab.errors import InvalidInputError
from pairlab.links import random_pairs


def blobs(seed=0, n_per=30):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [3.0, 0.5], [0.5, 3.0]])
    X = np.vstack([c + rng.normal(size=(n_per, 2)) for c in centres])
    return X, np.repeat(np.arange(3), n_per)


@pytest.mark.parametrize("seed, must_links, cov", [(0, 0, "full"), (1, 0, "diag"), (2, 5, "full"),
                                                   (3, 0, "tied")])
def test_without_cannot_links_equals_gmm(seed, must_links, cov):
    X, y = blobs(seed)
    c = random_pairs(y, must_links, 0, np.random.default_rng(seed)) if must_links else None
    params = {"n_components": 3, "covariance_type": cov}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)     # must-links are announced as ignored
        ours = Run("em-pc", Dataset(X), c, params, seed=seed)
    ours.run()
    ref = Run("gmm", Dataset(X), None, params, seed=seed)
    ref.run()
    assert ours.n_iter == ref.n_iter
    for a, b in zip(ours.history, ref.history, strict=True):
        for key in ("weights", "means", "covariances"):
            np.testing.assert_allclose(a.model[key], b.model[key], rtol=0, atol=1e-8)
        np.testing.assert_allclose(a.responsibilities, b.responsibilities, rtol=0, atol=1e-8)
        assert a.objective == pytest.approx(b.objective, abs=1e-8)


def test_must_links_are_announced():
    X, y = blobs(0)
    c = random_pairs(y, 3, 2, np.random.default_rng(0))
    with pytest.warns(UserWarning, match="3 must-link"):
        EMPC(Dataset(X), c, {"n_components": 3})


def primal_projection(log_post, pairs, bound):
    """min_q KL(q || p) over per-point distributions with q_a(k) + q_b(k) <= bound, by SLSQP."""
    n, k = log_post.shape

    def kl(flat):
        q = np.clip(flat.reshape(n, k), 1e-300, None)
        return float((q * (np.log(q) - log_post)).sum())

    cons = [{"type": "eq", "fun": lambda f, i=i: f.reshape(n, k)[i].sum() - 1} for i in range(n)]
    for (a, b), bd in zip(pairs, bound, strict=True):
        for j in range(k):
            cons.append({"type": "ineq",
                         "fun": lambda f, a=a, b=b, j=j, bd=bd: bd - f.reshape(n, k)[a, j]
                         - f.reshape(n, k)[b, j]})
    res = minimize(kl, np.full(n * k, 1.0 / k), method="SLSQP", constraints=cons,
                   bounds=[(0, 1)] * (n * k), options={"ftol": 1e-14, "maxiter": 500})
    return res.x.reshape(n, k), res.fun


@pytest.mark.parametrize("seed", range(4))
def test_projection_equals_the_primal_optimum(seed):
    rng = np.random.default_rng(seed)
    n, k = 5, 3
    logits = rng.normal(scale=2.0, size=(n, k))
    log_post = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    pairs = np.array([[0, 1], [1, 2], [0, 2], [3, 4]])
    bound = np.array([1.0, 1.0, 1.0, 1.2])                # confidence 0.8 on the last link
    q, lam, kl = project_posteriors(log_post, pairs, bound)
    q_ref, kl_ref = primal_projection(log_post, pairs, bound)
    np.testing.assert_allclose(q, q_ref, atol=2e-5)      # SLSQP's own accuracy
    assert np.all(q[pairs[:, 0]] + q[pairs[:, 1]] <= bound[:, None] + 1e-10)
    assert kl == pytest.approx(kl_ref, abs=1e-7)
    assert np.all(q[pairs[:, 0]] + q[pairs[:, 1]] <= bound[:, None] + 1e-7)
    assert np.all(lam >= 0)
    # complementary slackness: a positive multiplier only where its constraint is tight
    slack = bound[:, None] - q[pairs[:, 0]] - q[pairs[:, 1]]
    assert np.all((lam < 1e-6) | (np.abs(slack) < 1e-6))


@pytest.mark.parametrize("seed", [1, 2])
def test_objective_never_decreases_and_constraints_hold(seed):
    X, y = blobs(seed, n_per=20)
    c = random_pairs(y, 0, 30, np.random.default_rng(seed))
    run = Run("em-pc", Dataset(X), c, {"n_components": 3, "tol": 1e-6, "max_iter": 12,
                                       "covariance_type": "full" if seed == 1 else "spherical"},
              seed=seed)
    run.run()
    assert np.all(np.diff(run.objectives) >= -1e-7)
    for s in run.history:
        q = s.responsibilities
        assert np.all(q[c.cannot_link[:, 0]] + q[c.cannot_link[:, 1]] <= 1 + 1e-8)
        assert s.objective <= s.extras["log_likelihood"]
        assert s.objective == pytest.approx(s.extras["log_likelihood"] - s.extras["kl"])


def test_bad_input():
    X, _ = blobs(0)
    c = Constraints(None, [[0, 40]], n_samples=len(X))
    with pytest.raises(InvalidInputError, match="n_components >= 2"):
        EMPC(Dataset(X), c, {"n_components": 1})
    c0 = Constraints(None, [[0, 40]], n_samples=len(X), confidence=0.0)
    EMPC(Dataset(X), c0, {"n_components": 1})              # a link of confidence 0 binds nothing


def test_projection_moves_points_whose_posterior_rounds_to_one():
    """Both ends of a cannot-link sure of cluster 0 (log-odds 60 and 800: q rounds to exactly 1).
    The optimum splits them; Hildreth's step was computed from q itself and never moved (the
    sweeps ran to their limit). Reference: the closed form of a single pair, where by symmetry of
    the KL in the log-odds the multiplier solves q_a(0) + q_b(0) = 1."""
    log_post = np.array([[0.0, -60.0, -61.0], [0.0, -800.0, -802.0], [-1.0, 0.0, -2.0]])
    log_post -= np.log(np.exp(log_post).sum(axis=1, keepdims=True))
    pairs, bound = np.array([[0, 1]]), np.array([1.0])
    q, lam, kl = project_posteriors(log_post, pairs, bound)
    assert q[0, 0] + q[1, 0] == pytest.approx(1.0, abs=1e-9)
    # q_i(0) = 1 / (1 + exp(-(o_i - lambda))): o_0 - l and o_1 - l are opposite, l = (o_0 + o_1)/2
    from scipy.special import logsumexp

    odds = [log_post[i, 0] - logsumexp(log_post[i, 1:]) for i in (0, 1)]
    assert lam[0, 0] == pytest.approx(0.5 * sum(odds), rel=1e-9)
    np.testing.assert_array_equal(q[2], np.exp(log_post[2]))
    assert kl > 0 and np.all(lam >= 0)


def test_projection_on_gmpr_fig7_sized_problems_is_exact_and_fast():
    """128 cannot-links among 723 points, posteriors as sharp as the digits data's: constraints
    tight to 1e-10 where their multiplier is positive (the recipe runs thousands of these)."""
    rng = np.random.default_rng(4)
    n, k = 723, 4
    logits = rng.normal(scale=25.0, size=(n, k))
    log_post = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(
        axis=1, keepdims=True)) - logits.max(1, keepdims=True)
    y = rng.integers(k, size=n)
    pairs = random_pairs(y, 0, 128, rng).cannot_link
    q, lam, _ = project_posteriors(log_post, pairs, np.ones(len(pairs)))
    slack = 1.0 - q[pairs[:, 0]] - q[pairs[:, 1]]
    assert slack.min() > -1e-10
    assert np.all((lam == 0) | (np.abs(slack) < 1e-8))
