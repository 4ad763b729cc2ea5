"""GM-PR (Yu, Elhabian & Whitaker): the E-step against brute-force enumeration, the paper's
equations for disjoint pairs, plain EM without links, the alpha update (eq. 19), monotone EM and
degenerate inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pairlab_builtins.algorithms import gmpr_links
from pairlab_builtins.algorithms.gmpr import GMPR
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.mixture import GaussianMixture

from pairlab import (
    Constraints,
    Dataset,
    InconsistentConstraintsError,
    InvalidInputError,
    Run,
    make_estimator,
)
from pairlab.links import random_pairs

from .helpers import union_find_roots


# -- the oracle ---------------------------------------------------------------------------------
def all_labels(n: int, k: int) -> np.ndarray:
    """Every vector of n labels in 0..k-1, shape (k**n, n)."""
    return (np.arange(k**n)[:, None] // k ** np.arange(n)[None, :]) % k


def chunklet_leaders(n: int, ml) -> np.ndarray:
    roots = {}
    for i, r in enumerate(union_find_roots(n, ml)):
        roots.setdefault(r, i)
    return np.array(sorted(roots.values()))


def brute_force(X, ml, cl, alpha, means, covs, pi=None, class_of=None):
    """Enumerate the cluster label of every point: ``(log p(X), class post., cluster post.)``.

    The model of :mod:`pairlab_builtins.algorithms.gmpr_links`: ``p(X, y) = prior(z) prod_n pi_{y_n}
    N(x_n | y_n)`` with ``z = class_of[y]`` and ``prior(z) = prod_{chunklets} alpha_{z_c}
    [every link holds] / sum_z'(same)``.
    """
    n, k_all, m = len(X), len(means), len(alpha)
    class_of = np.arange(k_all) if class_of is None else np.asarray(class_of)
    pi = np.ones(k_all) if pi is None else np.asarray(pi)
    log_n = np.column_stack([multivariate_normal(means[j], covs[j]).logpdf(X)
                             for j in range(k_all)])
    lead = chunklet_leaders(n, ml)

    def holds(Z):
        ok = np.ones(len(Z), dtype=bool)
        for a, b in ml:
            ok &= Z[:, a] == Z[:, b]
        for a, b in cl:
            ok &= Z[:, a] != Z[:, b]
        return ok

    Zc = all_labels(n, m)
    Zc = Zc[holds(Zc)]
    log_norm = logsumexp(np.log(alpha)[Zc[:, lead]].sum(axis=1))
    Y = all_labels(n, k_all)
    Y = Y[holds(class_of[Y])]
    Z = class_of[Y]
    log_w = np.log(alpha)[Z[:, lead]].sum(axis=1) + (np.log(pi)[Y] + log_n[np.arange(n), Y]).sum(1)
    total = logsumexp(log_w)
    w = np.exp(log_w - total)
    q, r = np.zeros((n, m)), np.zeros((n, k_all))
    for i in range(n):
        np.add.at(q[i], Z[:, i], w)
        np.add.at(r[i], Y[:, i], w)
    return total - log_norm, q, r


def satisfiable(n, m, ml, cl) -> bool:
    Z = all_labels(n, m)
    ok = np.ones(len(Z), dtype=bool)
    for a, b in ml:
        ok &= Z[:, a] == Z[:, b]
    for a, b in cl:
        ok &= Z[:, a] != Z[:, b]
    return bool(ok.any())


def random_parameters(rng, m, d, k_all=None, scale=2.0):
    k_all = m if k_all is None else k_all
    alpha = rng.dirichlet(np.ones(m))
    means = rng.normal(scale=scale, size=(k_all, d))
    a = rng.normal(size=(k_all, d, d))
    covs = a @ a.transpose(0, 2, 1) + 0.5 * np.eye(d)
    return alpha, means, covs


# tiny problems with overlapping links: (n, n_classes, must-links, cannot-links)
STRUCTURES = [
    # a chain of must-links; two cannot-links between the same two chunklets; a path beyond
    (7, 3, [(0, 1), (1, 2), (3, 4)], [(2, 3), (0, 4), (4, 5), (5, 6)]),
    # one point in many pairs (a star), two of its partners must-linked
    (6, 3, [(1, 2)], [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5)]),
    # a cycle of cannot-links between must-linked groups (needs cutset conditioning)
    (7, 3, [(0, 1), (2, 3)], [(1, 2), (3, 4), (4, 0), (5, 6), (6, 0)]),
    # an even cycle with two classes, plus a lone must-link
    (7, 2, [(4, 5)], [(0, 1), (1, 2), (2, 3), (3, 0), (5, 6)]),
    # a complete graph of cannot-links: all classes used once
    (6, 4, [(4, 5)], [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 4)]),
    # disjoint pairs, as in the paper
    (7, 3, [(0, 1)], [(2, 3), (4, 5)]),
]


def state_at(algo, alpha, means, covs, pi=None):
    return algo.make_state(0, (alpha, means, covs, np.ones(len(means)) if pi is None else pi), {})


@pytest.mark.parametrize("structure", range(len(STRUCTURES)))
def test_e_step_equals_brute_force_with_overlapping_links(structure):
    n, m, ml, cl = STRUCTURES[structure]
    rng = np.random.default_rng(structure)
    algo = GMPR(Dataset(rng.normal(scale=2, size=(n, 2))), Constraints(ml, cl, n_samples=n),
                {"n_components": m})
    for _ in range(3):
        alpha, means, covs = random_parameters(rng, m, 2)
        st = state_at(algo, alpha, means, covs)
        ll, q, _ = brute_force(algo.X, ml, cl, alpha, means, covs)
        np.testing.assert_allclose(st.objective, ll, rtol=1e-11)
        np.testing.assert_allclose(st.responsibilities, q, atol=1e-11)
        assert np.array_equal(st.labels, q.argmax(axis=1))


def test_e_step_brute_force_on_random_overlapping_links():
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 12:
        n, m = int(rng.integers(5, 8)), int(rng.integers(2, 4))
        pairs = {tuple(sorted(rng.choice(n, 2, replace=False))) for _ in range(2 * n)}
        must = [p for p in pairs if rng.random() < 0.3]
        cannot = [p for p in pairs if p not in must]
        cons = Constraints(must or None, cannot or None, n_samples=n)
        X = rng.normal(scale=3, size=(n, 2))
        try:
            algo = GMPR(Dataset(X), cons, {"n_components": m})
        except InconsistentConstraintsError:
            assert not satisfiable(n, m, must, cannot)
            continue
        assert satisfiable(n, m, must, cannot)
        alpha, means, covs = random_parameters(rng, m, 2)
        ll, q, _ = brute_force(X, must, cannot, alpha, means, covs)
        st = state_at(algo, alpha, means, covs)
        np.testing.assert_allclose(st.objective, ll, rtol=1e-11)
        np.testing.assert_allclose(st.responsibilities, q, atol=1e-11)
        checked += 1


def test_large_shapes_use_belief_propagation_for_the_normaliser(monkeypatch):
    """Shapes too big to enumerate: the normaliser and its gradient come from BP."""
    monkeypatch.setattr(gmpr_links, "ENUM_LIMIT", 1)
    for structure in (0, 2, 4):
        n, m, ml, cl = STRUCTURES[structure]
        rng = np.random.default_rng(structure)
        algo = GMPR(Dataset(rng.normal(scale=2, size=(n, 2))), Constraints(ml, cl, n_samples=n),
                    {"n_components": m})
        assert algo.links.prior.big
        alpha, means, covs = random_parameters(rng, m, 2)
        ll, q, _ = brute_force(algo.X, ml, cl, alpha, means, covs)
        st = state_at(algo, alpha, means, covs)
        np.testing.assert_allclose(st.objective, ll, rtol=1e-11)
        np.testing.assert_allclose(st.responsibilities, q, atol=1e-11)
        check_alpha_optimum(algo.links, st.extras["class_counts"],
                            algo.links.class_proportions(st.extras["class_counts"], alpha))


def test_links_beyond_the_cutset_budget_become_independent_pairs():
    """With a tiny budget, cycle-closing cannot-links are pairs as in the paper (eq. 9, 14)."""
    n, m, ml, cl = 8, 3, [(6, 7)], [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (4, 5), (5, 6)]
    rng = np.random.default_rng(3)
    X = rng.normal(scale=2, size=(n, 2))
    with pytest.warns(UserWarning, match="independent pairs"):
        algo = GMPR(Dataset(X), Constraints(ml, cl, n_samples=n), {"n_components": m,
                                                                    "cutset_budget": 1})
    pairs = algo.links.duplicates.reshape(-1, 2)
    assert algo.links.n_independent_pairs == len(pairs) > 0
    dropped = {tuple(sorted(p)) for p in pairs.tolist()}
    kept = [p for p in cl if p not in dropped]
    alpha, means, covs = random_parameters(rng, m, 2)
    ll, q, _ = brute_force(X, ml, kept, alpha, means, covs)
    log_n = np.column_stack([multivariate_normal(means[j], covs[j]).logpdf(X) for j in range(m)])
    off = np.where(np.eye(m, dtype=bool), -np.inf, 0.0)
    dup_q = []
    for a, b in pairs:
        joint = np.log(alpha)[:, None] + np.log(alpha)[None, :] + log_n[a][:, None] \
            + log_n[b][None, :] + off
        z = logsumexp(joint)
        ll += z - np.log(1 - np.sum(alpha**2))
        p = np.exp(joint - z)
        dup_q += [p.sum(axis=1), p.sum(axis=0)]
    st = state_at(algo, alpha, means, covs)
    np.testing.assert_allclose(st.objective, ll, rtol=1e-11)
    np.testing.assert_allclose(st.responsibilities, q, atol=1e-11)
    np.testing.assert_allclose(st.extras["duplicate_responsibilities"], dup_q, atol=1e-11)
    with pytest.warns(UserWarning, match="independent pairs"):
        run = Run(GMPR, Dataset(X), Constraints(ml, cl, n_samples=n),
                  {"n_components": m, "cutset_budget": 1, "tol": 0, "max_iter": 20}, seed=0)
    run.run()
    assert np.all(np.diff(run.objectives) >= -1e-9 * np.abs(run.objectives[1:]))


def test_far_away_points_do_not_underflow():
    rng = np.random.default_rng(5)
    n, m, ml, cl = STRUCTURES[0]
    X = rng.normal(size=(n, 2)) * 1e4
    algo = GMPR(Dataset(X), Constraints(ml, cl, n_samples=n), {"n_components": m})
    alpha, means, covs = random_parameters(rng, m, 2)
    ll, q, _ = brute_force(X, ml, cl, alpha, means, covs)
    st = state_at(algo, alpha, means, covs)
    assert np.isfinite(st.objective) and st.objective < -1e6
    np.testing.assert_allclose(st.objective, ll, rtol=1e-12)
    np.testing.assert_allclose(st.responsibilities, q, atol=1e-9)


# -- the paper's own equations (disjoint pairs) -------------------------------------------------
def test_disjoint_pairs_follow_eq_11_12_14_and_points_in_pairs_enter_once():
    """Section 3.1: X in eq. 3 is the data without user input, so a linked point contributes
    through its pair term only. The objective is the sum of the eq. 3, 5 and 9 terms, and one
    EM step gives eq. 16-18 with each point's posterior counted once."""
    rng = np.random.default_rng(2)
    n, m, d = 12, 3, 2
    X = rng.normal(scale=2, size=(n, d))
    ml, cl = [(0, 1), (2, 3)], [(4, 5), (6, 7)]
    alpha, means, covs = random_parameters(rng, m, d)
    algo = GMPR(Dataset(X), Constraints(ml, cl, n_samples=n), {"n_components": m,
                                                                "reg_covar": 1e-6})
    st = state_at(algo, alpha, means, covs)
    dens = np.column_stack([multivariate_normal(means[j], covs[j]).pdf(X) for j in range(m)])
    post = np.zeros((n, m))
    loglik = 0.0
    for i in range(8, n):  # eq. 11
        loglik += np.log(alpha @ dens[i])
        post[i] = alpha * dens[i] / (alpha @ dens[i])
    for i, j in ml:  # eq. 12: one shared label
        s = alpha * dens[i] * dens[j]
        loglik += np.log(s.sum())
        post[i] = post[j] = s / s.sum()
    prior = np.outer(alpha, alpha) * (1 - np.eye(m)) / (1 - np.sum(alpha**2))  # eq. 6-8
    for a, b in cl:  # eq. 14
        joint = dens[a][:, None] * dens[b][None, :] * prior
        loglik += np.log(joint.sum())
        post[a], post[b] = joint.sum(axis=1) / joint.sum(), joint.sum(axis=0) / joint.sum()
    np.testing.assert_allclose(st.objective, loglik, rtol=1e-12)
    np.testing.assert_allclose(st.responsibilities, post, atol=1e-12)
    # expected chunklet counts of eq. 19: the must-linked pairs count once
    np.testing.assert_allclose(st.extras["class_counts"].sum(), n - len(ml), rtol=1e-12)
    # eq. 16-18: Z = sum ell + 2 sum s + sum (d_a + d_b) = total posterior, each point once
    alpha1, means1, covs1, _ = algo.m_step(st)
    z = post.sum(axis=0)
    np.testing.assert_allclose(z.sum(), n, rtol=1e-12)
    np.testing.assert_allclose(means1, (post.T @ X) / z[:, None], rtol=1e-10)
    for j in range(m):
        diff = X - means1[j]
        want = (post[:, j, None] * diff).T @ diff / z[j] + 1e-6 * np.eye(d)
        np.testing.assert_allclose(covs1[j], want, rtol=1e-10)
    check_alpha_optimum(algo.links, st.extras["class_counts"], alpha1)
    # the paper's KKT form of eq. 19: N_m / alpha_m + 2 n_C alpha_m / (1 - sum alpha^2) = lambda
    counts = st.extras["class_counts"]
    grad = counts / alpha1 + 2 * len(cl) * alpha1 / (1 - np.sum(alpha1**2))
    np.testing.assert_allclose(grad, grad.mean(), rtol=1e-9)


# -- the class proportions (eq. 19) -------------------------------------------------------------
def check_alpha_optimum(links, counts, alpha):
    """KKT on the simplex: alpha > 0 and the objective is flat along every direction e_i - e_j of
    theta = log alpha (alpha = softmax(theta) keeps the constraints; this is alpha_i (dF/dalpha_i
    - lambda) - alpha_j (dF/dalpha_j - lambda) = 0, with relative steps however small alpha is);
    and no random point of the simplex (nor the closed-form start) is better."""
    f = links.class_objective
    assert np.all(alpha > 0) and np.isclose(alpha.sum(), 1.0, rtol=1e-14)
    best = f(counts, alpha)
    scale = max(1.0, abs(best))
    k = alpha.size

    def at(theta):
        a = np.exp(theta - theta.max())
        return f(counts, a / a.sum())

    theta, h = np.log(alpha), 1e-5
    for i in range(k):
        for j in range(i + 1, k):
            step = np.zeros(k)
            step[i], step[j] = h, -h
            slope = (at(theta + step) - at(theta - step)) / (2 * h)
            assert abs(slope) <= 1e-6 * max(1.0, counts[i], counts[j]), (i, j, slope)
    rng = np.random.default_rng(0)
    for a in [counts / counts.sum(), *rng.dirichlet(np.ones(k), size=200)]:
        assert f(counts, a) <= best + 1e-10 * scale


def test_alpha_update_is_a_verified_optimum_with_overlapping_links():
    rng = np.random.default_rng(11)
    for structure in range(len(STRUCTURES)):
        n, m, ml, cl = STRUCTURES[structure]
        X = rng.normal(scale=2, size=(n, 2))
        algo = GMPR(Dataset(X), Constraints(ml, cl, n_samples=n), {"n_components": m})
        for _ in range(3):
            st = state_at(algo, *random_parameters(rng, m, 2))
            counts = st.extras["class_counts"]  # expected chunklet counts of an E-step
            alpha = algo.links.class_proportions(counts, st.model["weights"])
            check_alpha_optimum(algo.links, counts, alpha)
            if m > 2:  # the normaliser matters (with two classes every colouring is balanced)
                assert not np.allclose(alpha, counts / counts.sum(), rtol=1e-6)


# -- no links: plain EM, identical to gmm and scikit-learn --------------------------------------
@pytest.mark.parametrize("seed, k, d", [(0, 2, 2), (1, 3, 2), (2, 4, 3)])
def test_no_links_is_plain_em_like_gmm_and_sklearn(seed, k, d):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(loc=3 * i, size=(50, d)) for i in range(k)])
    means = X[rng.choice(len(X), k, replace=False)]
    covs = np.array([np.cov(X.T) + 0.1 * np.eye(d) for _ in range(k)])
    w = rng.dirichlet(np.ones(k))
    start = {"n_components": k, "means_init": means, "weights_init": w, "covariances_init": covs,
             "tol": 0}
    gmpr, gmm = Run("gmpr", Dataset(X), params=start), Run("gmm", Dataset(X), params=start)
    done = 0
    for n_iter in (1, 5, 20):
        sk = GaussianMixture(k, covariance_type="full", tol=0, max_iter=n_iter, reg_covar=1e-6,
                             weights_init=w, means_init=means, precisions_init=np.linalg.inv(covs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkConvergenceWarning)
            sk.fit(X)
        for _ in range(n_iter - done):
            gmpr.step()
            gmm.step()
        done = n_iter
        a, b = gmpr.state.model, gmm.state.model
        for key, ref in (("means", sk.means_), ("covariances", sk.covariances_),
                         ("weights", sk.weights_)):
            np.testing.assert_allclose(a[key], ref, atol=1e-8, rtol=1e-8)
            np.testing.assert_allclose(a[key], b[key], atol=1e-12, rtol=1e-12)
        np.testing.assert_allclose(gmpr.history[-2].objective / len(X), sk.lower_bound_,
                                   rtol=1e-10)
        np.testing.assert_allclose(gmpr.objectives, gmm.objectives, rtol=1e-12)


# -- EM never decreases the log-likelihood ------------------------------------------------------
@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_objective_never_decreases_with_links():
    for seed in range(14):
        rng = np.random.default_rng(seed)
        k = int(rng.integers(2, 5))
        y = rng.integers(k, size=60)
        X = rng.normal(scale=2.5, size=(k, 2))[y] + rng.normal(size=(60, 2)) * rng.uniform(0.5, 2)
        cons = random_pairs(y, int(rng.integers(0, 25)), int(rng.integers(1, 25)), rng)
        run = Run("gmpr", Dataset(X), cons, {"n_components": k, "tol": 0, "max_iter": 25},
                  seed=seed)
        run.run()
        obj = run.objectives
        assert np.all(np.isfinite(obj))
        assert np.all(np.diff(obj) >= -1e-9 * np.abs(obj[1:])), (seed, np.diff(obj).min())


@pytest.mark.parametrize("budget", [100_000, 1])
def test_objective_never_decreases_with_cycles_chains_and_stars(budget):
    """The tiny overlapping structures inside larger data sets, exact or with independent pairs."""
    for structure, (_, m, ml, cl) in enumerate(STRUCTURES):
        rng = np.random.default_rng(structure)
        X = np.vstack([rng.normal(size=(10, 2)) + 4 * j for j in range(m)])
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*independent pairs", UserWarning)
            run = Run("gmpr", Dataset(X), Constraints(ml, cl, n_samples=len(X)),
                      {"n_components": m, "tol": 0, "max_iter": 20, "cutset_budget": budget},
                      seed=structure)
        run.run()
        obj = run.objectives
        assert np.all(np.isfinite(obj))
        assert np.all(np.diff(obj) >= -1e-9 * np.abs(obj[1:])), (structure, np.diff(obj).min())


# -- unseen points, estimator, determinism ------------------------------------------------------
def test_predict_proba_is_eq_11_for_unseen_points_and_estimator_attributes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(40, 2)), rng.normal(4, size=(40, 2))])
    est = make_estimator("gmpr", n_components=2, random_state=0)
    est.fit(X, must_link=[[0, 1], [1, 2], [40, 41]], cannot_link=[[0, 40], [2, 41]])
    Xnew = rng.normal(2, 3, size=(25, 2))
    dens = np.column_stack([w * multivariate_normal(m, c).pdf(Xnew) for w, m, c in
                            zip(est.weights_, est.means_, est.covariances_, strict=True)])
    np.testing.assert_allclose(est.predict_proba(Xnew), dens / dens.sum(1, keepdims=True),
                               atol=1e-12)
    assert est.means_.shape == (2, 2) and est.covariances_.shape == (2, 2, 2)
    assert est.weights_.shape == (2,) and est.labels_.shape == (80,)
    assert est.converged_ and est.n_iter_ > 0
    assert est.labels_[0] == est.labels_[2] != est.labels_[41]
    again = make_estimator("gmpr", n_components=2, random_state=0).fit(
        X, must_link=[[0, 1], [1, 2], [40, 41]], cannot_link=[[0, 40], [2, 41]])
    assert all(a.equals(b) for a, b in zip(est.history_, again.history_, strict=True))


# -- degenerate inputs ----------------------------------------------------------------------------
def _finite(run):
    st = run.state
    return (np.all(np.isfinite(run.objectives)) and np.all(np.isfinite(st.responsibilities))
            and all(np.all(np.isfinite(v)) for v in st.model.values()))


def test_duplicate_points_are_regularised_or_rejected_clearly():
    X = np.repeat([[0.0, 0.0], [1.0, 1.0], [5.0, 5.0]], 6, axis=0)
    cons = Constraints([(0, 1), (6, 7)], [(0, 6), (7, 12)], n_samples=18)
    run = Run("gmpr", Dataset(X), cons, {"n_components": 3, "max_iter": 10}, seed=0)
    run.run()
    assert _finite(run)
    with pytest.raises(InvalidInputError, match="increase reg_covar"):
        Run("gmpr", Dataset(X), cons, {"n_components": 3, "reg_covar": 0.0}, seed=0).run()


def test_a_class_that_loses_all_its_mass_stays_finite():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    cons = Constraints([(0, 1)], [(2, 3), (4, 5)], n_samples=40)
    means = np.array([[0.0, 0.0], [0.5, 0.5], [1e4, 1e4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = Run("gmpr", Dataset(X), cons, {"n_components": 3, "means_init": means,
                                             "tol": 0, "max_iter": 15}, seed=0)
        run.run()
    assert _finite(run)
    assert run.state.model["weights"][2] < 1e-8
    assert np.all(np.diff(run.objectives) >= -1e-9 * np.abs(run.objectives[1:]))


def test_more_dimensions_than_points():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(8, 12))
    cons = Constraints([(0, 1)], [(0, 2), (2, 3)], n_samples=8)
    run = Run("gmpr", Dataset(X), cons, {"n_components": 2, "max_iter": 10}, seed=0)
    run.run()
    assert _finite(run)


def test_impossible_constraints_are_rejected_with_a_clear_message():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(InconsistentConstraintsError, match="must-linked through"):
        Run("gmpr", Dataset(X), Constraints([(0, 1), (1, 2)], [(0, 2)], n_samples=10),
            {"n_components": 2})
    with pytest.raises(InconsistentConstraintsError, match="increase n_components"):
        Run("gmpr", Dataset(X), Constraints(None, [(0, 1), (1, 2), (2, 0)], n_samples=10),
            {"n_components": 2})
    with pytest.raises(InvalidInputError, match="n_components >= 2"):
        Run("gmpr", Dataset(X), Constraints(None, [(0, 1)], n_samples=10), {"n_components": 1})
    with pytest.raises(InvalidInputError, match="positive weight"):
        Run("gmpr", Dataset(X), Constraints(None, [(0, 1)], n_samples=10),
            {"n_components": 2, "weights_init": [1.0, 0.0]})
