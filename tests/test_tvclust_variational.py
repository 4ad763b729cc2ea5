"""TVClust by mean field (tvclust-variational) against exact answers, scikit-learn's variational DP
mixture and the Gibbs sampler; the sampler's log joint, consensus and predictions against direct
evaluations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import betaln, logsumexp

from pairlab import Constraints, Dataset, Run, make_estimator
from pairlab.errors import InvalidInputError

from .test_tvclust import X4, canonical, link_log_lik, log_crp, log_marginal


def _blobs3(seed=0, n_per=6, spread=0.35):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [1.2, 0.0], [0.5, 3.0]])
    y = np.repeat([0, 1, 2], n_per)
    return centres[y] + spread * rng.normal(size=(len(y), 2)), y


# -- the ELBO ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("covariance", ["full", "fixed"])
def test_elbo_never_decreases(covariance):
    """Block coordinate ascent: every update is an exact maximiser, so the ELBO never goes down,
    with may-links, may-not-links, confidences and a contradictory chain of links."""
    X, _ = _blobs3(1, n_per=10, spread=0.5)
    ml = [(0, 1), (1, 12), (12, 25), (3, 4), (14, 15)]
    cl = [(0, 25), (5, 15), (6, 16), (20, 2)]
    cons = Constraints(ml, cl, n_samples=len(X), confidence={"must_link": [1.0, 0.5, 1.0, 0.8, 1.0],
                                                             "cannot_link": [1.0, 1.0, 0.3, 1.0]})
    run = Run("tvclust-variational", Dataset(X * 40.0 + 7.0), cons,
              {"covariance": covariance, "init": "random", "truncation": 8, "p": 0.95, "q": 0.8,
               "max_iter": 60, "tol": 0.0}, seed=2)
    run.run()
    elbo = np.array(run.objectives)
    assert len(elbo) == 61
    assert np.all(np.diff(elbo) >= -1e-9 * np.abs(elbo[1:])), np.diff(elbo).min()
    assert elbo[-1] - elbo[0] > 1.0  # it did climb
    # by halves: q(z) (under the old q(v), q(theta)), then q(v), q(theta); each half climbs too
    algo, state = run.algorithm, run.history[0]
    seen = [state.objective]
    for _ in range(10):
        half = algo.half_step(state)
        state = algo.finish_step(half)
        seen += [half.objective, state.objective]
    assert np.all(np.diff(seen) >= -1e-9 * np.abs(seen[1:])), np.diff(seen).min()
    assert state.objective == run.history[10].objective


@pytest.mark.parametrize("covariance", ["full", "fixed"])
def test_elbo_is_exact_with_one_component(covariance):
    """T = 1: the posterior of (v_1, theta_1) given that every point sits in the first stick
    factorises, so mean field is exact and the ELBO equals
    log p(x, E, z = 1) = log m(X) + log B(1 + n, alpha) / B(1, alpha) + sum log p(E_ij | H_ij = 1)."""
    X = np.array([[0.0, 1.0], [2.0, 0.5], [1.0, -1.0], [3.0, 3.0], [-1.0, 0.0]]) * 3.0
    ml, cl = [(0, 1)], [(2, 3), (0, 4)]
    params = {"covariance": covariance, "truncation": 1, "alpha": 0.8, "p": 0.7, "q": 0.9,
              "variance": 2.0, "prior_variance": 10.0}
    state = Run("tvclust-variational", Dataset(X), Constraints(ml, cl, n_samples=5), params).state
    expected = (log_marginal(X, X.mean(axis=0), 2.0, 10.0, covariance)
                + betaln(1 + 5, 0.8) - betaln(1, 0.8) + link_log_lik([0] * 5, ml, cl, 0.7, 0.9))
    assert state.objective == pytest.approx(expected, rel=1e-10, abs=1e-9)


def _assignment_log_joint(X, ml, cl, params, T):
    """log p(x, E, z) for every z in {1..T}^n: prod_k E[v_k^n_k (1 - v_k)^n_{>k}] m(X_k) prod p(E|H)."""
    n, alpha = len(X), params["alpha"]
    m0 = X.mean(axis=0)
    out = {}
    for z in itertools.product(range(T), repeat=n):
        z = np.array(z)
        counts = np.bincount(z, minlength=T)
        above = counts[::-1].cumsum()[::-1] - counts
        lp = float((betaln(1 + counts, alpha + above) - betaln(1, alpha)).sum())
        lp += link_log_lik(z, ml, cl, params["p"], params["q"])
        for k in np.unique(z):
            lp += log_marginal(X[z == k], m0, params["variance"], params["prior_variance"],
                               params["covariance"])
        out[tuple(z)] = lp
    return out


@pytest.mark.parametrize("covariance", ["full", "fixed"])
def test_elbo_against_enumeration(covariance):
    """T = 3 on 4 points (81 assignments). For a hard q(z) = 1[z] the posterior of (v, theta) given z
    factorises, so the ELBO is exactly log p(x, E, z); the ELBO reached from the default start is
    below log p(x, E, z in the first T sticks); started from the best assignment it ends between that
    assignment's log p(x, E, z) and the evidence."""
    params = {"covariance": covariance, "alpha": 1.0, "p": 0.8, "q": 0.75, "variance": 0.3,
              "prior_variance": 1.5, "truncation": 3}
    ml, cl = [(0, 2)], [(1, 3)]
    run = Run("tvclust-variational", Dataset(X4), Constraints(ml, cl, n_samples=4),
              {**params, "max_iter": 100, "tol": 1e-10}, seed=0)
    run.run()
    joint = _assignment_log_joint(X4, ml, cl, params, 3)
    evidence = float(logsumexp(list(joint.values())))
    assert run.state.objective <= evidence + 1e-9
    algo = run.algorithm
    for z, value in joint.items():
        hard = np.eye(3)[list(z)]
        assert algo._state(0, hard).objective == pytest.approx(value, rel=1e-10, abs=1e-10), z
    best = max(joint, key=joint.get)
    state = algo._state(0, np.eye(3)[list(best)])
    for _ in range(30):
        state = algo.step(state)
    assert joint[best] - 1e-9 <= state.objective <= evidence + 1e-9


def test_without_links_equals_scikit_learns_dirichlet_process_mixture():
    """No links, covariance='full': the updates are those of scikit-learn's BayesianGaussianMixture
    (dirichlet_process weights, Wishart precisions) with the same priors and start."""
    from sklearn.mixture import BayesianGaussianMixture

    X, _ = _blobs3(3, n_per=15, spread=0.5)
    T, alpha, d = 5, 0.6, 2
    run = Run("tvclust-variational", Dataset(X), None, {"truncation": T, "alpha": alpha}, seed=0)
    Z = run.algorithm.std.Z  # standardised data: prior mean 0, sigma^2 = 0.1, rho^2 = 1
    bgm = BayesianGaussianMixture(
        n_components=T, weight_concentration_prior_type="dirichlet_process",
        weight_concentration_prior=alpha, mean_prior=np.zeros(d), mean_precision_prior=0.1,
        degrees_of_freedom_prior=d + 2.0, covariance_prior=(d + 2.0) * 0.1 * np.eye(d), reg_covar=0.0)
    bgm.weight_concentration_prior_ = alpha
    bgm.mean_prior_, bgm.mean_precision_prior_ = np.zeros(d), 0.1
    bgm.degrees_of_freedom_prior_, bgm.covariance_prior_ = d + 2.0, (d + 2.0) * 0.1 * np.eye(d)
    bgm._initialize(Z, np.array(run.state.responsibilities))
    for _ in range(8):
        _, log_resp = bgm._e_step(Z)
        bgm._m_step(Z, log_resp)
        run.step()
        np.testing.assert_allclose(run.state.responsibilities, np.exp(log_resp), atol=1e-12)
    means = run.algorithm.std.transform(run.state.model["means"])
    np.testing.assert_allclose(means, bgm.means_, atol=1e-10)


@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_variational_agrees_with_the_gibbs_sampler():
    """Two overlapping groups the data alone would merge, kept apart by may-links inside and
    may-not-links across: the mean-field co-clustering probabilities are within 0.05 of the sampler's
    co-clustering frequencies (1000 sweeps), and the links change the sampler's answer. (Without the
    links the posterior has several modes and mean field keeps one: docs/algorithms/tvclust.md.)"""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(6, 2)) * 0.5, rng.normal(size=(6, 2)) * 0.5 + [1.0, 0.0]])
    ml = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]
    cl = [(0, 6), (2, 8), (5, 11), (3, 9), (1, 7), (4, 10)]
    cons = Constraints(ml, cl, n_samples=12)
    params = {"covariance": "fixed", "alpha": 1.0, "p": 0.95, "q": 0.95, "variance": 0.25,
              "prior_variance": 2.0}

    def gibbs(c):
        run = Run("tvclust", Dataset(X), c, params, seed=0)
        algo, state = run.algorithm, run.state
        together = np.zeros((12, 12))
        for t in range(1100):
            state = algo.step(state)
            if t >= 100:
                together += state.labels[:, None] == state.labels[None, :]
        return together / 1000

    def variational(c):
        run = Run("tvclust-variational", Dataset(X), c, {**params, "truncation": 6, "tol": 1e-9}, seed=0)
        run.run()
        r = run.state.responsibilities
        return r @ r.T

    g, v = gibbs(cons), variational(cons)
    off = ~np.eye(12, dtype=bool)
    assert np.abs(g - v)[off].max() < 0.05, np.abs(g - v).max()
    g0 = gibbs(None)
    assert np.abs(g - g0)[off].max() > 0.4  # the links matter


# -- the sampler's reported quantities --------------------------------------------------------------
@pytest.mark.parametrize("covariance", ["full", "fixed"])
def test_gibbs_log_joint_is_evaluated_in_data_units(covariance):
    """The objective of a state equals log p(x, E, z, theta) computed with scipy's densities from
    the state's model (data far from the origin and on a large scale: the standardisation's
    Jacobian is accounted for)."""
    X, _ = _blobs3(2)
    X = X * 50.0 - 300.0
    ml, cl = [(0, 1), (2, 8)], [(0, 7), (12, 13)]
    sigma2, rho2, alpha, p, q = 40.0, 900.0, 1.3, 0.85, 0.7
    params = {"covariance": covariance, "variance": sigma2, "prior_variance": rho2, "alpha": alpha,
              "p": p, "q": q, "init_clusters": 3}
    run = Run("tvclust", Dataset(X), Constraints(ml, cl, n_samples=len(X)), params, seed=4)
    run.step()
    d, m0 = 2, X.mean(axis=0)
    for state in run.history:
        z, m = state.labels, state.model
        expected = log_crp(z, alpha) + link_log_lik(z, ml, cl, p, q)
        for k in range(z.max() + 1):
            mu, cov = m["means"][k], m["covariances"][k]
            expected += stats.multivariate_normal(mu, cov).logpdf(X[z == k]).sum()
            if covariance == "fixed":
                np.testing.assert_allclose(cov, sigma2 * np.eye(d))
                expected += stats.multivariate_normal(m0, rho2 * np.eye(d)).logpdf(mu)
            else:
                nu0, k0 = d + 2.0, sigma2 / rho2
                expected += stats.multivariate_normal(m0, cov / k0).logpdf(mu)
                expected += stats.invwishart(nu0, nu0 * sigma2 * np.eye(d)).logpdf(cov)
        assert state.objective == pytest.approx(expected, rel=1e-9)


def test_consensus_is_dahls_least_squares_draw():
    """labels='consensus': the kept draw minimising sum_ij (1[z_i = z_j] - pi_ij)^2, pi the
    co-clustering frequencies of the draws after burn-in (computed here by brute force)."""
    X, _ = _blobs3(6, n_per=5, spread=0.6)
    params = {"labels": "consensus", "burn_in": 3, "covariance": "fixed", "variance": 0.3}
    run = Run("tvclust", Dataset(X), Constraints([(0, 5)], [(1, 2)], n_samples=len(X)), params, seed=0)
    for _ in range(12):
        run.step()
    draws = [s.extras["sample"] for s in run.history[3:]]
    A = np.array([z[:, None] == z[None, :] for z in draws], dtype=float)
    pi = A.mean(axis=0)
    loss = ((A - pi) ** 2).sum(axis=(1, 2))
    assert canonical(run.state.labels) == canonical(draws[int(np.argmin(loss))])
    assert len({canonical(z) for z in draws}) > 1  # there was a choice to make
    assert np.array_equal(run.history[2].labels, run.history[2].extras["sample"])  # before burn-in
    halves = Run("tvclust", Dataset(X), Constraints([(0, 5)], [(1, 2)], n_samples=len(X)), params, seed=0)
    for _ in range(12):
        halves.half_step()
        halves.step()
    assert halves.state.equals(run.state)  # half states record no draw


def test_predictions():
    """Variational: predict_proba is the q(z) update without links (so on the training points of a
    run without links it is the next step's q(z)). Gibbs: unseen points near a blob join its cluster."""
    X, y = _blobs3(7, n_per=8, spread=0.2)
    X[y == 1] += [3.0, 0.0]
    run = Run("tvclust-variational", Dataset(X), None, {"truncation": 5}, seed=0)
    run.step()
    proba = run.algorithm.predict_proba(run.state, X)
    run.step()
    np.testing.assert_allclose(proba, run.state.responsibilities, atol=1e-12)
    est = make_estimator("tvclust", max_iter=30, random_state=0).fit(X)
    near = np.array([[0.05, 0.0], [4.15, 0.05], [0.5, 2.9]])
    assert len(set(est.predict(near))) == 3
    np.testing.assert_array_equal(est.predict(near), est.labels_[[0, 8, 16]])


def test_clear_errors():
    X, _ = _blobs3()
    with pytest.raises(InvalidInputError, match=r"prior_dof = 0.5 must exceed d - 1 = 1"):
        Run("tvclust", Dataset(X), None, {"prior_dof": 0.5})
    with pytest.raises(InvalidInputError, match=r"init_clusters=30 exceeds the number of points \(18\)"):
        Run("tvclust", Dataset(X), None, {"init_clusters": 30})
    with pytest.raises(InvalidInputError, match=r"variance = 1e-300 is too small"):
        Run("tvclust-variational", Dataset(X * 1e10), None, {"variance": 1e-300})
    with pytest.raises(InvalidInputError, match="'p' must be < 1"):
        make_estimator("tvclust", p=1.0).fit(X)
    assert math.isfinite(make_estimator("tvclust-variational", truncation=40).fit(X).objective_history_[-1])


def test_explanations():
    """Gibbs: eq. 13 for a point, whose existing-cluster part is the state's responsibility row;
    variational: without links, the q(z_i) update is the next state's q(z_i)."""
    X, _ = _blobs3(8, n_per=6, spread=0.4)
    cons = Constraints([(0, 1), (2, 7)], [(0, 6)], n_samples=len(X))
    run = Run("tvclust", Dataset(X), cons, {"covariance": "fixed"}, seed=0)
    run.step()
    state = run.state
    for i in (0, 7):
        bars = run.algorithm.explain(state, i).bars[0]
        assert bars.values.sum() == pytest.approx(1.0) and bars.labels[-1] == "new"
        if np.sum(state.labels == state.labels[i]) > 1:
            existing = bars.values[:-1]
            np.testing.assert_allclose(existing / existing.sum(), state.responsibilities[i], rtol=1e-10)
    run = Run("tvclust-variational", Dataset(X), None, {"truncation": 4}, seed=0)
    explained = run.algorithm.explain(run.state, 3).bars[0].values
    run.step()
    np.testing.assert_allclose(explained, run.state.responsibilities[3], atol=1e-12)
