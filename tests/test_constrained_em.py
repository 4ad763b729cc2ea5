"""Constrained EM (Shental et al.) against brute-force enumeration, the plain GMM and section 2.1.1."""

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from threadpoolctl import threadpool_limits

from pairlab import (
    Constraints,
    Dataset,
    InconsistentConstraintsError,
    InvalidInputError,
    Run,
    make_estimator,
)

ASSUMPTIONS = (1, 2)
NORMALIZERS = ("exact", "pseudo", "ignore")


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """Tiny LAPACK/BLAS calls (Cholesky solves, L-BFGS) are ~1000x slower when a multithreaded
    BLAS spins on a busy machine; these tests only make tiny ones."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def start(rng, M, d):
    means = rng.normal(size=(M, d))
    covs = np.array([np.eye(d) * rng.uniform(0.5, 2.0) for _ in range(M)])
    return rng.dirichlet(np.ones(M) * 2), means, covs


def make_run(X, cons, weights, means, covs, **params):
    params = {"n_components": len(weights), "weights_init": weights, "means_init": means,
              "covariances_init": covs, "tol": 0.0, **params}
    return Run("constrained-em", Dataset(X), cons, params=params)


def enumerate_model(X, cons, weights, means, covs, assumption):
    """Every labelling of the points that honours the links, with its prior and data weights."""
    n, M = len(X), len(weights)
    log_dens = np.column_stack([multivariate_normal(means[k], covs[k]).logpdf(X)
                                for k in range(M)])
    Y = np.array(list(itertools.product(range(M), repeat=n)))
    ok = np.ones(len(Y), dtype=bool)
    for a, b in cons.must_link:
        ok &= Y[:, a] == Y[:, b]
    for a, b in cons.cannot_link:
        ok &= Y[:, a] != Y[:, b]
    Y = Y[ok]
    if assumption == 1:  # one alpha per chunklet
        first = np.unique(cons.chunklet_index, return_index=True)[1]
        log_prior = np.log(weights)[Y[:, first]].sum(axis=1)
    else:  # one alpha per point
        log_prior = np.log(weights)[Y].sum(axis=1)
    return Y, log_prior, log_dens[np.arange(n), Y].sum(axis=1)


def brute_force(X, cons, weights, means, covs, assumption):
    Y, log_prior, log_lik = enumerate_model(X, cons, weights, means, covs, assumption)
    if not len(Y):  # the links cannot all hold with len(weights) components (scipy 1.11's
        return None, -np.inf, -np.inf  # logsumexp refuses an empty array; 1.17's gives -inf)
    score = log_prior + log_lik
    log_joint, log_z = logsumexp(score), logsumexp(log_prior)
    if not np.isfinite(log_z):
        return None, -np.inf, -np.inf
    p = np.exp(score - log_joint)
    post = np.array([[p[Y[:, i] == k].sum() for k in range(len(weights))] for i in range(len(X))])
    return post, log_joint - log_z, log_joint


def random_problem(rng, n=6, M=3, d=2, n_ml=2, n_cl=4):
    X = rng.normal(size=(n, d)) * 2
    pairs = list(itertools.combinations(range(n), 2))
    rng.shuffle(pairs)
    while True:
        ml = pairs[:n_ml]
        cl = pairs[n_ml:n_ml + n_cl]
        cons = Constraints(ml or None, cl or None, n_samples=n)
        if cons.is_consistent:
            return X, cons
        rng.shuffle(pairs)


@pytest.mark.parametrize("assumption", ASSUMPTIONS)
@pytest.mark.parametrize("seed", range(4))
def test_posteriors_and_likelihood_equal_enumeration(seed, assumption):
    """Mixed links, loopy cannot-link graphs included: the E-step of eq. 3 / eq. 9 is exact."""
    rng = np.random.default_rng(seed)
    for n_ml, n_cl in [(0, 5), (2, 4), (3, 6), (1, 8), (3, 0)]:
        X, cons = random_problem(rng, n_ml=n_ml, n_cl=n_cl)
        w, m, c = start(rng, 3, 2)
        post, loglik, log_joint = brute_force(X, cons, w, m, c, assumption)
        if not np.isfinite(loglik):
            continue
        for normalizer in NORMALIZERS:
            state = make_run(X, cons, w, m, c, sampling_assumption=assumption,
                             normalizer=normalizer).state
            np.testing.assert_allclose(state.responsibilities, post, atol=1e-10)
            np.testing.assert_allclose(state.objective, loglik, rtol=1e-12)
            np.testing.assert_allclose(state.extras["log_joint"], log_joint, rtol=1e-12)
            assert state.extras["exact_inference"]


def test_triangle_of_cannot_links_with_three_components():
    """A loopy component (K3 plus a pendant chunklet) is exact, via loop-cutset conditioning."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(6, 2))
    cons = Constraints([[3, 4]], [[0, 1], [1, 2], [0, 2], [2, 3], [4, 5]], n_samples=6)
    w, m, c = start(rng, 3, 2)
    for assumption in ASSUMPTIONS:
        post, loglik, _ = brute_force(X, cons, w, m, c, assumption)
        state = make_run(X, cons, w, m, c, sampling_assumption=assumption).state
        np.testing.assert_allclose(state.responsibilities, post, atol=1e-10)
        np.testing.assert_allclose(state.objective, loglik, rtol=1e-12)


@pytest.mark.parametrize("assumption", ASSUMPTIONS)
def test_exact_weight_update_maximises_eq_10(assumption):
    """The alpha step solves dF/deta = 0: posterior counts N equal the prior's expected counts."""
    rng = np.random.default_rng(40 + assumption)
    for _ in range(4):
        X, cons = random_problem(rng, n=7, n_ml=2, n_cl=6)
        w, m, c = start(rng, 3, 2)
        if not np.isfinite(brute_force(X, cons, w, m, c, assumption)[1]):
            continue
        run = make_run(X, cons, w, m, c, sampling_assumption=assumption, reg_covar=0.1)
        new_w = run.step().model["weights"]
        sizes = cons.chunklet_sizes[cons.chunklet_index]
        s = np.ones_like(sizes) if assumption == 1 else sizes
        counts = (s / sizes) @ run.history[0].responsibilities
        Y, log_prior, _ = enumerate_model(X, cons, new_w, m, c, assumption)
        p = np.exp(log_prior - logsumexp(log_prior))
        onehot = np.stack([(Y == k) for k in range(3)], axis=-1)
        expected = np.einsum("y,yik,i->k", p, onehot, s / sizes)  # n_l = sum_j s_j [y_j = l]
        np.testing.assert_allclose(counts, expected, atol=1e-7 * counts.sum())


def test_pseudo_likelihood_update_solves_eq_12():
    """Single points: alpha maximises sum N log alpha - c log(1 - sum alpha^2) on the simplex."""
    rng = np.random.default_rng(5)
    n, M = 40, 3
    X = rng.normal(size=(n, 2)) * 2
    pairs = rng.permutation(n)[:30].reshape(-1, 2)  # 15 cannot-links, some chained below
    cl = np.vstack([pairs, [[pairs[0, 0], pairs[1, 0]], [pairs[2, 1], pairs[3, 1]]]])
    cons = Constraints(None, cl, n_samples=n)
    w, m, c = start(rng, M, 2)
    run = make_run(X, cons, w, m, c, normalizer="pseudo")
    alpha = run.step().model["weights"]
    counts = run.history[0].responsibilities.sum(axis=0)
    cnt = len(cl)
    # Lagrange condition of eq. 11 with Z of eq. 12: N_l / alpha_l + 2 c alpha_l / (1 - sum a^2)
    lagrange = counts / alpha + 2 * cnt * alpha / (1 - (alpha ** 2).sum())
    np.testing.assert_allclose(lagrange, lagrange.mean(), rtol=1e-7)


def test_pseudo_equals_exact_when_cannot_links_are_disjoint():
    """Eq. 12 is exact when no chunklet takes part in two cannot-links."""
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(loc=3 * k, size=(15, 2)) for k in range(3)])
    cons = Constraints([[0, 1], [1, 2], [20, 21]],
                       [[0, 16], [3, 33], [20, 40], [5, 35], [18, 41]], n_samples=45)
    w, m, c = start(rng, 3, 2)
    for assumption in ASSUMPTIONS:
        runs = [make_run(X, cons, w, m, c, sampling_assumption=assumption, normalizer=z)
                for z in ("exact", "pseudo")]
        for _ in range(5):
            a, b = (r.step() for r in runs)
            np.testing.assert_allclose(a.model["weights"], b.model["weights"], atol=1e-8)
            np.testing.assert_allclose(a.objective, b.objective, rtol=1e-9)


def test_pseudo_normalizer_corner_is_detected():
    """Overlapping cannot-links (a star at point 0): eq. 12 drives the weights to a corner while
    the true log-likelihood falls; the step warns, naming both values. Disjoint links: no warning."""
    import warnings

    from pairlab import ConvergenceWarning, make_estimator

    X = np.random.default_rng(109).normal(size=(10, 2))
    star = [[0, i] for i in range(1, 6)]
    with pytest.warns(UserWarning, match=r"normalizer='pseudo': the log-likelihood fell from "
                                         r"-7.23\d* to -7.62\d* at iteration 2"):
        est = make_estimator("constrained-em", n_components=3, normalizer="pseudo",
                             random_state=109, max_iter=5).fit(X, cannot_link=star)
    assert est.history_[4].model["weights"].max() > 1 - 1e-4  # the corner
    assert est.objective_history_.min() < -60
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        exact = make_estimator("constrained-em", n_components=3, random_state=109,
                               max_iter=5).fit(X, cannot_link=star)
    assert np.all(np.diff(exact.objective_history_) >= 0)


def test_ignoring_z_is_the_closed_form_of_footnote_3():
    rng = np.random.default_rng(8)
    X, cons = random_problem(rng, n=7, n_ml=2, n_cl=5)
    w, m, c = start(rng, 3, 2)
    for assumption in ASSUMPTIONS:
        run = make_run(X, cons, w, m, c, sampling_assumption=assumption, normalizer="ignore",
                       reg_covar=0.1)
        sizes = cons.chunklet_sizes[cons.chunklet_index]
        s = np.ones_like(sizes) if assumption == 1 else sizes
        counts = (s / sizes) @ run.state.responsibilities
        np.testing.assert_allclose(run.step().model["weights"], counts / counts.sum(),
                                   rtol=1e-12)


@pytest.mark.parametrize("assumption", ASSUMPTIONS)
@pytest.mark.parametrize("normalizer", NORMALIZERS)
def test_no_links_equals_plain_gmm(assumption, normalizer):
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(loc=4 * k, size=(40, 3)) for k in range(3)])
    params = {"n_components": 3, "tol": 0.0, "sampling_assumption": assumption,
              "normalizer": normalizer}
    ce = Run("constrained-em", Dataset(X), params=params, seed=3)
    gmm = Run("gmm", Dataset(X), params={"n_components": 3, "tol": 0.0}, seed=3)
    for _ in range(8):
        a, b = ce.step(), gmm.step()
        for key in ("weights", "means", "covariances"):
            np.testing.assert_allclose(a.model[key], b.model[key], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(a.responsibilities, b.responsibilities, atol=1e-10)
        np.testing.assert_allclose(a.objective, b.objective, rtol=1e-10)


def test_must_links_only_treat_a_chunklet_as_one_weighted_point():
    """Assumption 1, section 2.1.1: the chunklet posterior, alpha = mean chunklet posterior, and
    mean/covariance updates from chunklet means weighted by |X_j| plus within-chunklet scatter."""
    rng = np.random.default_rng(9)
    X = np.vstack([rng.normal(loc=3 * k, size=(12, 2)) for k in range(3)])
    ml = [[0, 1], [1, 2], [2, 3], [12, 13], [13, 20], [24, 25], [5, 30], [7, 8]]
    cons = Constraints(ml, None, n_samples=len(X))
    w, m, c = start(rng, 3, 2)
    reg = 1e-6
    run = make_run(X, cons, w, m, c, sampling_assumption=1, reg_covar=reg)
    chunks = [np.flatnonzero(cons.chunklet_index == j) for j in range(cons.n_chunklets)]
    # chunklet posterior p(Y_j = l | X_j) of 2.1.1
    log_dens = np.column_stack([multivariate_normal(m[k], c[k]).logpdf(X) for k in range(3)])
    log_q = np.array([np.log(w) + log_dens[ch].sum(axis=0) for ch in chunks])
    q = np.exp(log_q - logsumexp(log_q, axis=1, keepdims=True))
    for j, ch in enumerate(chunks):
        np.testing.assert_allclose(run.state.responsibilities[ch], np.tile(q[j], (len(ch), 1)),
                                   atol=1e-12)
    new = run.step().model
    size = np.array([len(ch) for ch in chunks])
    xbar = np.array([X[ch].mean(axis=0) for ch in chunks])
    wts = q * size[:, None]
    np.testing.assert_allclose(new["weights"], q.mean(axis=0), rtol=1e-10)
    mu = (wts.T @ xbar) / wts.sum(axis=0)[:, None]
    np.testing.assert_allclose(new["means"], mu, rtol=1e-10)
    for k in range(3):
        sig_jl = np.array([(X[ch] - mu[k]).T @ (X[ch] - mu[k]) / len(ch) for ch in chunks])
        sig = np.einsum("j,jab->ab", wts[:, k], sig_jl) / wts[:, k].sum() + reg * np.eye(2)
        np.testing.assert_allclose(new["covariances"][k], sig, rtol=1e-9)


def test_assumption_2_weight_update_includes_the_normaliser_of_eq_7():
    """Must-links only, assumption 2: the alpha step solves the stationarity of eq. 7."""
    rng = np.random.default_rng(10)
    X = np.vstack([rng.normal(loc=3 * k, size=(10, 2)) for k in range(3)])
    cons = Constraints([[0, 1], [1, 2], [2, 3], [10, 11], [20, 21]], None, n_samples=30)
    w, m, c = start(rng, 3, 2)
    run = make_run(X, cons, w, m, c, sampling_assumption=2)
    alpha = run.step().model["weights"]
    counts = run.history[0].responsibilities.sum(axis=0)
    size = cons.chunklet_sizes
    # d/d eta of sum_j log sum_m alpha_m^{|X_j|}: expected counts under the chunklet prior
    pw = alpha[None, :] ** size[:, None]
    expected = (size[:, None] * pw / pw.sum(axis=1, keepdims=True)).sum(axis=0)
    np.testing.assert_allclose(counts, expected, rtol=1e-7)
    assert not np.allclose(alpha, counts / counts.sum(), rtol=1e-3)  # it differs from ignoring Z


def test_inconsistent_links_name_the_chain():
    X = np.random.default_rng(0).normal(size=(6, 2))
    cons = Constraints([[0, 4], [4, 2], [2, 5]], [[0, 5]], n_samples=6)
    with pytest.raises(InconsistentConstraintsError, match=r"0 - 4 - 2 - 5"):
        Run("constrained-em", Dataset(X), cons)


def test_unsatisfiable_cannot_links_are_reported():
    X = np.random.default_rng(0).normal(size=(5, 2))
    cons = Constraints([[3, 4]], [[0, 1], [1, 3], [0, 4]], n_samples=5)  # a triangle of chunklets
    with pytest.raises(InconsistentConstraintsError, match=r"points 0, 1, 3, 4 .*n_components=2"):
        Run("constrained-em", Dataset(X), cons, params={"n_components": 2})
    Run("constrained-em", Dataset(X), cons, params={"n_components": 3})
    with pytest.raises(InvalidInputError, match="positive weight in weights_init"):
        Run("constrained-em", Dataset(X), cons,
            params={"n_components": 3, "weights_init": [0.5, 0.5, 0.0]})


def random_monotone_problem(rng):
    n, M = int(rng.integers(20, 40)), int(rng.integers(2, 4))
    X = np.vstack([rng.normal(loc=2.5 * k, size=(n // M + 1, 2)) for k in range(M)])[:n]
    pairs = np.array(list(itertools.combinations(range(n), 2)))
    pick = pairs[rng.choice(len(pairs), size=int(rng.integers(5, 20)), replace=False)]
    cut = int(rng.integers(0, len(pick) // 2))
    cons = Constraints(pick[:cut], pick[cut:], n_samples=n)
    return X, cons, M


@pytest.mark.filterwarnings("ignore:constrained-em:UserWarning")
@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_objective_never_decreases_with_exact_updates():
    rng = np.random.default_rng(12)
    checked = 0
    for trial in range(20):
        X, cons, M = random_monotone_problem(rng)
        if not cons.is_consistent:
            continue
        # (a reg_covar much larger than the default makes the covariance step a regularised
        # one, not the M-step, and the likelihood may then dip by ~1e-7 near convergence)
        params = {"n_components": M, "tol": 0.0, "max_iter": 12,
                  "sampling_assumption": 1 + trial % 2}
        if trial % 3 == 0:
            params["max_exact_work"] = 1  # spanning trees: exact EM for the relaxed model
        try:
            run = Run("constrained-em", Dataset(X), cons, params=params, seed=trial)
        except InconsistentConstraintsError:
            continue
        run.run()
        obj = run.objectives
        assert np.all(np.diff(obj) >= -1e-9 * np.abs(obj[1:])), (trial, np.diff(obj).min())
        checked += 1
    assert checked >= 10


def test_ignoring_z_never_decreases_the_joint_likelihood():
    rng = np.random.default_rng(13)
    for trial in range(8):
        X, cons, M = random_monotone_problem(rng)
        if not cons.is_consistent:
            continue
        params = {"n_components": M, "tol": 0.0, "max_iter": 12,
                  "normalizer": "ignore", "sampling_assumption": 1 + trial % 2}
        try:
            run = Run("constrained-em", Dataset(X), cons, params=params, seed=trial)
        except InconsistentConstraintsError:
            continue
        run.run()
        joint = np.array([s.extras["log_joint"] for s in run.history])
        assert np.all(np.diff(joint) >= -1e-9 * np.abs(joint[1:]))


@pytest.mark.filterwarnings("ignore:constrained-em:UserWarning")
def test_same_seed_same_states_bit_for_bit():
    rng = np.random.default_rng(14)
    X, cons, _ = random_monotone_problem(rng)
    cons = Constraints(cons.must_link[:2], [[0, 5], [5, 9], [9, 0], [1, 7]], n_samples=len(X))
    for params in ({"normalizer": "exact", "sampling_assumption": 2},
                   {"normalizer": "pseudo"}, {"max_exact_work": 1}):
        runs = [Run("constrained-em", Dataset(X), cons, params={"n_components": 3, **params},
                    seed=21) for _ in range(2)]
        for r in runs:
            r.run(10)
        assert len(runs[0].history) == len(runs[1].history)
        for a, b in zip(runs[0].history, runs[1].history, strict=True):
            assert a.equals(b)


def test_predict_proba_uses_the_fitted_mixture():
    rng = np.random.default_rng(15)
    X = np.vstack([rng.normal(loc=4 * k, size=(30, 2)) for k in range(2)])
    est = make_estimator("constrained-em", n_components=2, random_state=0)
    est.fit(X, must_link=[[0, 1], [30, 31]], cannot_link=[[0, 30], [2, 40]])
    Xnew = rng.normal(2, 3, size=(10, 2))
    dens = np.column_stack([w * multivariate_normal(mu, cov).pdf(Xnew) for w, mu, cov in
                            zip(est.weights_, est.means_, est.covariances_, strict=True)])
    np.testing.assert_allclose(est.predict_proba(Xnew), dens / dens.sum(axis=1, keepdims=True),
                               atol=1e-12)


def test_spanning_tree_approximation_is_reported_and_used_throughout():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 2))
    square = [[0, 1], [1, 2], [2, 3], [3, 0]]
    with pytest.warns(UserWarning, match="spanning-tree approximation"):
        run = make_run(X, Constraints(None, square, n_samples=8), *start(rng, 3, 2),
                       max_exact_work=1, normalizer="pseudo")
    state = run.state
    assert state.extras["exact_inference"] is False
    # the model in use is the BFS spanning tree of the square, rooted at point 0: 3 - 0 - 1 - 2
    tree = Constraints(None, [[0, 1], [1, 2], [0, 3]], n_samples=8)
    m, c, w = state.model["means"], state.model["covariances"], state.model["weights"]
    post, loglik, _ = brute_force(X, tree, w, m, c, 1)
    np.testing.assert_allclose(state.responsibilities, post, atol=1e-10)
    np.testing.assert_allclose(state.objective, loglik, rtol=1e-12)
    # and the pseudo-likelihood Z counts the c = 3 edges kept (eq. 12)
    alpha = run.step().model["weights"]
    counts = state.responsibilities.sum(axis=0)
    lagrange = counts / alpha + 2 * 3 * alpha / (1 - (alpha ** 2).sum())
    np.testing.assert_allclose(lagrange, lagrange.mean(), rtol=1e-7)
