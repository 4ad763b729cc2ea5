"""PPC (Lu & Leen 2007) against brute-force enumeration, the plain GMM and constrained EM."""

import itertools

import numpy as np
import pytest
from pairlab_builtins.algorithms.ppc import PenalizedProbabilisticClustering
from pairlab_builtins.algorithms.ppc_posteriors import (
    _simplex_grid,
    log_omega_nonoverlapping,
    maximize_prior,
    ppc_weight_matrix,
)
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from pairlab import Constraints, Dataset, InconsistentConstraintsError, InvalidInputError, Run
from pairlab.registry import get_registry


# -- the oracle: eq. 2.4-2.11 summed over every Z -------------------------------------------------
def brute_force(X, W, weights, means, covs):
    """Posterior marginals, log P_p(X | Theta, W) and log Omega by enumerating all M^n assignments.

    g(Z) is the literal product of eq. 2.7 over *ordered* pairs i != j; infinite weights are
    hard relations (eq. 2.10): assignments that break one are dropped from both sums.
    """
    n, M = len(X), len(weights)
    logN = np.column_stack([multivariate_normal(means[k], covs[k]).logpdf(X) for k in range(M)])
    Z = np.array(list(itertools.product(range(M), repeat=n)))  # every assignment, (M^n, n)
    same = Z[:, :, None] == Z[:, None, :]
    off = ~np.eye(n, dtype=bool)
    broken = (same & (W == -np.inf)) | (~same & (W == np.inf) & off)
    Z, same = Z[~broken.any(axis=(1, 2))], same[~broken.any(axis=(1, 2))]
    log_g = np.where(same & off & np.isfinite(W), W, 0.0).sum(axis=(1, 2))  # ordered pairs
    log_prior = np.log(weights)[Z].sum(axis=1) + log_g
    log_joint = log_prior + logN[np.arange(n), Z].sum(axis=1)
    post = np.exp(log_joint - logsumexp(log_joint))
    marg = np.stack([(post[:, None] * (Z == k)).sum(axis=0) for k in range(M)], axis=1)
    log_omega = logsumexp(log_prior)
    return marg, logsumexp(log_joint) - log_omega, log_omega


def dense_w(constraints, **kw):
    return ppc_weight_matrix(constraints, **kw).toarray()


def tiny_problem(seed, n=7, M=3, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 1.5
    means = rng.normal(size=(M, d))
    covs = np.array([np.eye(d) * rng.uniform(0.5, 2.0) for _ in range(M)])
    weights = rng.dirichlet(np.ones(M) * 2)
    return X, weights, means, covs


def start(weights, means, covs, **params):
    return {"n_components": len(weights), "weights_init": weights, "means_init": means,
            "covariances_init": covs, "tol": 0.0, **params}


# overlapping relations with a cycle (0-1-2-0), a chain and a separate pair
LINKS = dict(must_link=[(0, 1), (1, 2), (4, 5)], cannot_link=[(0, 2), (2, 3), (5, 6)])
HARD_LINKS = dict(must_link=[(0, 1), (4, 5)], cannot_link=[(1, 2), (2, 3), (5, 6)])


@pytest.mark.parametrize("case", [
    dict(weighting="uniform", must_link_weight=0.8, cannot_link_weight=1.3),
    dict(weighting="uniform", must_link_weight=2.5, cannot_link_weight=0.4),
    dict(weighting="confidence", confidence=[0.9, 0.6, 0.75, 0.95, 0.3, 0.8]),
    dict(weighting="confidence", confidence=[1.0, 0.7, 0.9, 0.85, 0.95, 1.0]),  # mixed hard/soft
    dict(weighting="uniform", must_link_weight=np.inf, cannot_link_weight=1.0),
    dict(weighting="hard", links=HARD_LINKS),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_posterior_equals_brute_force(case, seed):
    case = dict(case)
    links = case.pop("links", LINKS)
    cons = Constraints(**links, n_samples=7, confidence=case.pop("confidence", None))
    X, w, m, c = tiny_problem(seed)
    run = Run("ppc", Dataset(X), cons, params=start(w, m, c, inference="exact", omega="exact", **case))
    marg, loglik, _ = brute_force(X, dense_w(cons, **case), w, m, c)
    np.testing.assert_allclose(run.state.responsibilities, marg, atol=1e-10)
    assert run.state.objective == pytest.approx(loglik, abs=1e-9)
    assert run.state.objective_name == "penalized log-likelihood"


def test_factor_two_matters():
    """A single link: the oracle's ordered-pair product is exp(2w) per pair, not exp(w)."""
    X, w, m, c = tiny_problem(3, n=2, M=2)
    cons = Constraints([(0, 1)], n_samples=2)
    run = Run("ppc", Dataset(X), cons, params=start(w, m, c, must_link_weight=1.0))
    logN = np.column_stack([multivariate_normal(m[k], c[k]).logpdf(X) for k in range(2)])
    joint = np.log(w)[:, None] + np.log(w)[None, :] + logN[0][:, None] + logN[1][None, :]
    for factor, should_match in ((2.0, True), (1.0, False)):
        j = joint + factor * 1.0 * np.eye(2)
        p0 = np.exp(logsumexp(j, axis=1) - logsumexp(j))
        assert np.allclose(run.state.responsibilities[0], p0, atol=1e-12) == should_match


def test_weight_matrix_eq_2_15_and_symmetry():
    cons = Constraints([(0, 1), (2, 3)], [(1, 4)], n_samples=5, confidence=[0.9, 1.0, 0.7])
    W = ppc_weight_matrix(cons, "confidence")
    assert (W != W.T).nnz == 0
    assert W[0, 1] == pytest.approx(0.5 * np.log(0.9 / 0.1))
    assert W[2, 3] == np.inf
    assert W[4, 1] == pytest.approx(-0.5 * np.log(0.7 / 0.3))
    # Appendix B: the pair factor exp(2 W) equals gamma / (1 - gamma)
    assert np.exp(2 * W[0, 1]) == pytest.approx(9.0)
    H = ppc_weight_matrix(cons, "hard").toarray()
    assert H[0, 1] == np.inf and H[1, 4] == -np.inf and H[0, 2] == 0
    assert ppc_weight_matrix(cons, "uniform", 0.0, 0.0).nnz == 0


# -- Omega ----------------------------------------------------------------------------------------
def brute_omega(W, weights):
    n = W.shape[0]
    _, _, log_omega = brute_force(np.zeros((n, 1)), W, weights, np.zeros((len(weights), 1)),
                                  np.ones((len(weights), 1, 1)))
    return log_omega


@pytest.mark.parametrize("seed", range(4))
def test_omega_closed_form_for_nonoverlapping_relations(seed):
    """Section 3.1: Omega = S^N_L (1 - S)^N_N for hard relations; the printed exponents are swapped."""
    rng = np.random.default_rng(seed)
    M = int(rng.integers(2, 4))
    pi = rng.dirichlet(np.ones(M))
    S = np.sum(pi**2)
    cons = Constraints([(0, 1), (2, 3)], [(4, 5)], n_samples=7)  # N_L = 2, N_N = 1, one free point
    hard = brute_omega(dense_w(cons, weighting="hard"), pi)
    assert hard == pytest.approx(2 * np.log(S) + np.log(1 - S), abs=1e-12)
    assert hard == pytest.approx(log_omega_nonoverlapping(pi, [np.inf, np.inf, -np.inf]), abs=1e-12)
    printed = 2 * np.log(1 - S) + np.log(S)
    assert abs(hard - printed) > 1e-3
    soft = brute_omega(dense_w(cons, must_link_weight=0.7, cannot_link_weight=1.1), pi)
    assert soft == pytest.approx(log_omega_nonoverlapping(pi, [0.7, 0.7, -1.1]), abs=1e-12)
    assert soft == pytest.approx(2 * np.log1p(np.expm1(1.4) * S) + np.log1p(np.expm1(-2.2) * S))


def algorithm(X, cons, **params):
    return PenalizedProbabilisticClustering(Dataset(X), cons, params)


@pytest.mark.parametrize("case", [
    dict(weighting="uniform", must_link_weight=0.8, cannot_link_weight=1.3),
    dict(weighting="confidence", confidence=[1.0, 0.7, 0.9, 0.85, 0.95, 1.0]),
    dict(weighting="hard", links=HARD_LINKS),
])
def test_log_omega_and_gradient_for_overlapping_cliques(case):
    case = dict(case)
    links = case.pop("links", LINKS)
    cons = Constraints(**links, n_samples=7, confidence=case.pop("confidence", None))
    algo = algorithm(np.zeros((7, 1)) + np.arange(7)[:, None], cons, n_components=3, omega="exact",
                     **case)
    W = dense_w(cons, **case)
    rng = np.random.default_rng(0)
    for _ in range(3):
        pi = rng.dirichlet(np.ones(3))
        value, grad = algo._omega.value_and_grad(np.log(pi))
        assert value == pytest.approx(brute_omega(W, pi), abs=1e-10)
        # d log Omega / d log pi_k by central differences of the oracle (pi_k off the simplex)
        for k in range(3):
            h = 1e-5
            up, dn = pi.copy(), pi.copy()
            up[k] *= np.exp(h)
            dn[k] *= np.exp(-h)
            assert grad[k] == pytest.approx((brute_omega(W, up) - brute_omega(W, dn)) / (2 * h),
                                            abs=1e-6)


def test_pairwise_omega_is_exact_for_nonoverlapping_relations():
    cons = Constraints([(0, 1), (2, 3), (6, 7)], [(4, 5), (8, 9)], n_samples=10)
    X = np.arange(10.0)[:, None]
    pi = np.array([0.2, 0.5, 0.3])
    for kw in (dict(must_link_weight=0.9), dict(weighting="hard"),
               dict(must_link_weight=np.inf, cannot_link_weight=0.6)):
        exact = algorithm(X, cons, n_components=3, omega="exact", **kw)._omega
        pair = algorithm(X, cons, n_components=3, omega="pairwise", **kw)._omega
        ve, ge = exact.value_and_grad(np.log(pi))
        vp, gp = pair.value_and_grad(np.log(pi))
        assert vp == pytest.approx(ve, abs=1e-12)
        np.testing.assert_allclose(gp, ge, atol=1e-12)


GRID_4X5 = [(r * 5 + c, r * 5 + c + 1) for r in range(4) for c in range(4)] + \
    [(r * 5 + c, r * 5 + c + 5) for r in range(3) for c in range(5)]


@pytest.mark.parametrize("links, kw", [
    (dict(must_link=[(0, 1), (1, 2), (2, 3), (1, 4), (4, 5)], cannot_link=[(5, 6), (4, 7)]),
     dict(must_link_weight=0.9, cannot_link_weight=1.4)),                                   # a tree
    (dict(must_link=[(0, 1), (1, 2), (1, 4)], cannot_link=[(4, 5), (5, 6), (6, 7), (2, 3)]),
     dict(must_link_weight=0.7, cannot_link_weight=np.inf)),                               # hard do-not-links
    (dict(must_link=[(r * 4 + c, r * 4 + c + 1) for r in range(2) for c in range(3)],       # a ladder
          cannot_link=[(c, c + 4) for c in range(4)]), dict(must_link_weight=0.8)),
])
def test_exact_inference_beyond_enumeration_matches_enumeration(links, kw):
    """Cliques over max_exact_configs go to pairlab.markov (sum-product, cutset conditioning):
    posteriors, objective, Omega and its gradient equal enumeration of the same clique."""
    cons = Constraints(**links, n_samples=8)
    X, w, m, c = tiny_problem(7, n=8, M=3)
    net = Run("ppc", Dataset(X), cons, params=start(w, m, c, inference="exact", omega="exact",
                                                    max_exact_configs=100, **kw))
    enum = Run("ppc", Dataset(X), cons, params=start(w, m, c, inference="exact", omega="exact", **kw))
    assert any(type(g).__name__ == "_NetworkCliques" for g in net.algorithm._groups)
    assert not any(type(g).__name__ == "_NetworkCliques" for g in enum.algorithm._groups)
    for _ in range(3):
        a, b = net.step(), enum.step()
        np.testing.assert_allclose(a.responsibilities, b.responsibilities, atol=1e-10)
        np.testing.assert_allclose(a.model["weights"], b.model["weights"], atol=1e-8)
        assert a.objective == pytest.approx(b.objective, abs=1e-8)
    pi = np.array([0.2, 0.5, 0.3])
    va, ga = net.algorithm._omega.value_and_grad(np.log(pi))
    vb, gb = enum.algorithm._omega.value_and_grad(np.log(pi))
    assert va == pytest.approx(vb, abs=1e-10)
    np.testing.assert_allclose(ga, gb, atol=1e-10)


# -- the prior update (eq. 2.13) --------------------------------------------------------------------
@pytest.mark.parametrize("kw, links", [(dict(must_link_weight=1.2, cannot_link_weight=0.5), LINKS),
                                       (dict(weighting="hard"), HARD_LINKS)])
def test_prior_update_maximises_eq_2_13(kw, links):
    cons = Constraints(**links, n_samples=7)
    algo = algorithm(np.arange(7.0)[:, None], cons, n_components=3, **kw)
    nk = np.array([3.5, 1.2, 2.3])
    pi = maximize_prior(nk, algo._omega)

    def f(p):
        return nk @ np.log(p) - brute_omega(dense_w(cons, **kw), p)

    best = f(pi)
    # KKT on the simplex: d f / d log pi_k = pi_k * lambda, i.e. (N_k - E[count_k]) / pi_k is constant
    _, g = algo._omega.value_and_grad(np.log(pi))
    ratio = (nk - g) / pi
    np.testing.assert_allclose(ratio, ratio.mean(), atol=1e-6)
    # no point of a 0.005 grid (nor any random point) does better
    grid = _simplex_grid(0.005, 3)
    vals = np.log(grid) @ nk - algo._omega.value(np.log(grid))
    assert best >= vals.max() - 1e-12
    assert best > f(nk / nk.sum())  # Omega matters: the plain GMM update is not optimal here
    # the paper's grid option picks the best node of the 0.01 grid
    grid_algo = algorithm(np.arange(7.0)[:, None], cons, n_components=3, weights_update="grid", **kw)
    g01 = grid_algo.update_weights(nk, np.ones(3) / 3)
    assert np.all(np.abs(g01 * 100 - np.round(g01 * 100)) < 1e-9)
    assert np.abs(g01 - pi).max() <= 0.01 + 1e-9


# -- approximate inference ----------------------------------------------------------------------------
def small_cliques(seed, n_cliques=40, size=4, M=3, w=0.6):
    """Many independent small cliques (chains with a chord) of soft links and do-not-links."""
    rng = np.random.default_rng(seed)
    n = n_cliques * size
    X = rng.normal(size=(n, 2)) * 2
    ml, cl = [], []
    for c in range(n_cliques):
        b = c * size
        ml += [(b, b + 1), (b + 2, b + 3)]
        cl += [(b + 1, b + 2), (b, b + 3)]
    cons = Constraints(ml, cl, n_samples=n)
    means = rng.normal(size=(M, 2))
    covs = np.array([np.eye(2) * 1.5] * M)
    weights = np.ones(M) / M
    return X, cons, start(weights, means, covs, must_link_weight=w, cannot_link_weight=w)


def test_gibbs_and_mean_field_agree_with_exact_on_small_cliques():
    """Stated tolerances on 40 four-node loops (2 links, 2 do-not-links each), M = 3.

    Gibbs at |W| = 0.6, 2000 sweeps: within 0.03 of the exact marginals with Rao-Blackwellised
    averages, 0.05 with the paper's indicator averages. Mean field is biased (its Q factorises)
    and its error grows like W^2 (measured max error 0.007 / 0.03 / 0.15-0.19 at |W| = 0.15 / 0.3 / 0.6):
    within 0.05 at |W| = 0.3 and 0.25 at |W| = 0.6.
    """
    X, cons, params = small_cliques(0, w=0.6)
    exact = Run("ppc", Dataset(X), cons, params={**params, "inference": "exact"}).state
    gibbs = Run("ppc", Dataset(X), cons, params={**params, "inference": "gibbs", "gibbs_sweeps": 2000,
                                                 "gibbs_burn_in": 100, "rao_blackwell": True}).state
    gibbs_ind = Run("ppc", Dataset(X), cons, params={**params, "inference": "gibbs", "gibbs_sweeps": 2000,
                                                     "gibbs_burn_in": 100}).state
    np.testing.assert_allclose(gibbs.responsibilities, exact.responsibilities, atol=0.03)
    np.testing.assert_allclose(gibbs_ind.responsibilities, exact.responsibilities, atol=0.05)
    assert gibbs.objective <= exact.objective + 1e-9  # a factorised bound (same Omega)
    for w, tol in ((0.3, 0.05), (0.6, 0.25)):
        X, cons, params = small_cliques(1, w=w)
        exact = Run("ppc", Dataset(X), cons, params={**params, "inference": "exact"}).state
        mf = Run("ppc", Dataset(X), cons, params={**params, "inference": "mean-field"}).state
        np.testing.assert_allclose(mf.responsibilities, exact.responsibilities, atol=tol)
        assert mf.objective <= exact.objective + 1e-9


def test_mean_field_solves_eq_3_5_with_factor_two():
    X, cons, params = small_cliques(1, w=1.2)
    algo = PenalizedProbabilisticClustering(Dataset(X), cons, {**params, "inference": "mean-field",
                                                               "mean_field_tol": 1e-13,
                                                               "mean_field_iter": 2000})
    Q = algo.initialize().responsibilities
    W = algo.W.toarray()
    w, m, c = params["weights_init"], params["means_init"], params["covariances_init"]
    logN = np.column_stack([multivariate_normal(m[k], c[k]).logpdf(X) for k in range(len(w))])
    logits = np.log(w) + logN + 2 * W @ Q
    fixed = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    np.testing.assert_allclose(Q, fixed, atol=1e-10)


def test_mean_field_e_step_starts_from_the_previous_e_step_it_is_given():
    """The warm start is the hook's ``previous`` argument (the last E-step's extras), not state
    kept on the algorithm: the E-step of iteration 2, rerun from iteration 1's extras, gives
    iteration 2's posteriors bit for bit, and a cold start gives others."""
    X, cons, params = small_cliques(1, w=1.2)
    run = Run("ppc", Dataset(X), cons, params={**params, "inference": "mean-field"}, seed=0)
    run.run(2)
    one, two = run.history[1], run.history[2]
    algo, model = run.algorithm, two.model
    parameters = (model["weights"], model["means"], model["covariances"])
    warm = algo.e_step(parameters, model["precisions_cholesky"], one.extras)
    assert np.array_equal(warm.responsibilities, two.responsibilities)
    assert warm.objective == two.objective
    cold = algo.e_step(parameters, model["precisions_cholesky"], {})
    assert not np.array_equal(cold.responsibilities, two.responsibilities)
    assert not hasattr(algo, "_warm")


def test_inference_on_a_grid_runs_mean_field_under_auto():
    side = 12
    idx = np.arange(side * side).reshape(side, side)
    ml = np.vstack([np.column_stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()]),
                    np.column_stack([idx[:-1].ravel(), idx[1:].ravel()])])
    rng = np.random.default_rng(0)
    truth = (np.arange(side)[None, :] >= side // 2).repeat(side, 0).ravel()
    X = rng.normal(size=(side * side, 2)) + 1.2 * truth[:, None]
    cons = Constraints(ml, n_samples=side * side)
    run = Run("ppc", Dataset(X), cons, params={"n_components": 2, "must_link_weight": 0.6,
                                               "max_iter": 15}, seed=0)
    run.run()
    assert "mean-field bound" in run.state.objective_name
    assert "non-overlapping" in run.state.objective_name
    gmm = Run("gmm", Dataset(X), params={"n_components": 2, "max_iter": 15}, seed=0)
    gmm.run()
    acc = max(np.mean(run.state.labels == truth), np.mean(run.state.labels != truth))
    acc_gmm = max(np.mean(gmm.state.labels == truth), np.mean(gmm.state.labels != truth))
    assert acc > acc_gmm and acc > 0.9


# -- equivalences --------------------------------------------------------------------------------
@pytest.mark.parametrize("weighting", ["uniform", "confidence"])
def test_zero_weights_equal_plain_gmm(weighting):
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(40, 2)), rng.normal(2.5, size=(40, 2))])
    cons = Constraints([(0, 1), (2, 50)], [(3, 60)], n_samples=80, confidence=0.5)
    w, m, c = np.array([0.3, 0.7]), X[[0, 50]], np.array([np.eye(2)] * 2)
    extra = {"must_link_weight": 0.0, "cannot_link_weight": 0.0} if weighting == "uniform" else {}
    ppc = Run("ppc", Dataset(X), cons, params=start(w, m, c, weighting=weighting, **extra))
    gmm = Run("gmm", Dataset(X), params=start(w, m, c))
    for _ in range(8):
        a, b = ppc.step(), gmm.step()
        for key in ("weights", "means", "covariances"):
            np.testing.assert_allclose(a.model[key], b.model[key], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(a.responsibilities, b.responsibilities, atol=1e-10)
        assert a.objective == pytest.approx(b.objective, rel=1e-12)


def test_hard_ppc_equals_constrained_em_assumption_2():
    """Appendix A: hard PPC (eq. 2.10) is constrained EM with sampling assumption 2 (and the exact
    normaliser), from the same start: posteriors, parameters and log-likelihoods agree."""
    registry = get_registry()
    if "constrained-em" not in registry.names("algorithms"):
        pytest.fail("the constrained-em plugin is not registered")
    M, rng = 3, np.random.default_rng(5)
    X = np.vstack([rng.normal(3 * i, size=(25, 2)) for i in range(M)])
    y = np.repeat(np.arange(M), 25)
    pairs = rng.choice(len(X), size=(30, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    cons = Constraints(np.unique(np.sort(pairs[same], 1), axis=0),
                       np.unique(np.sort(pairs[~same], 1), axis=0), n_samples=len(X))
    assert max(len(c) for c in cons.components) > 5  # overlapping relations, loops included
    w, m, c = rng.dirichlet(np.ones(M)), X[rng.choice(len(X), M, replace=False)], np.array([np.eye(2)] * M)
    ppc = Run("ppc", Dataset(X), cons, params=start(w, m, c, weighting="hard"))
    cem = Run("constrained-em", Dataset(X), cons,
              params=start(w, m, c, sampling_assumption=2, normalizer="exact"))
    for _ in range(10):
        a, b = ppc.step(), cem.step()
        np.testing.assert_allclose(a.responsibilities, b.responsibilities, atol=1e-7)
        for key in ("weights", "means", "covariances"):
            np.testing.assert_allclose(a.model[key], b.model[key], atol=1e-7)
        assert a.objective == pytest.approx(b.objective, abs=1e-6)


# -- EM properties ----------------------------------------------------------------------------------
def test_exact_em_never_decreases_the_penalized_log_likelihood():
    for seed in range(6):
        rng = np.random.default_rng(seed)
        n = 30
        X = rng.normal(size=(n, 2)) * rng.uniform(0.5, 2, size=2)
        pairs = rng.choice(n, size=(10, 2))
        pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
        half = len(pairs) // 2
        cons = Constraints(pairs[:half], pairs[half:], n_samples=n)
        params = {"n_components": 3, "tol": 0.0, "max_iter": 10, "inference": "exact",
                  "omega": "exact", "max_exact_configs": 3**8,
                  "must_link_weight": float(rng.uniform(0.2, 3)),
                  "cannot_link_weight": float(rng.uniform(0.2, 3))}
        run = Run("ppc", Dataset(X), cons, params=params, seed=seed)
        run.run()
        obj = np.array(run.objectives)
        assert np.all(np.diff(obj) >= -1e-8 * np.abs(obj[1:])), (seed, np.diff(obj))


def test_mean_field_em_never_decreases_its_bound_with_exact_omega():
    X, cons, params = small_cliques(2, n_cliques=15)
    run = Run("ppc", Dataset(X), cons, params={**params, "inference": "mean-field", "omega": "exact",
                                               "mean_field_tol": 1e-12, "mean_field_iter": 500,
                                               "max_iter": 12})
    run.run()
    obj = np.array(run.objectives)
    assert np.all(np.diff(obj) >= -1e-8 * np.abs(obj[1:]))


def test_same_seed_same_states_gibbs_included():
    X, cons, params = small_cliques(3, n_cliques=10)
    params = {**params, "inference": "gibbs", "gibbs_sweeps": 30, "gibbs_burn_in": 5, "max_iter": 4}
    runs = [Run("ppc", Dataset(X), cons, params=params, seed=s) for s in (7, 7, 8)]
    for r in runs:
        r.run()
    assert all(a.equals(b) for a, b in zip(runs[0].history, runs[1].history, strict=True))
    assert not runs[0].history[-1].equals(runs[2].history[-1])


def test_predict_proba_uses_the_fitted_gmm_alone():
    X, cons, params = small_cliques(4, n_cliques=10)
    run = Run("ppc", Dataset(X), cons, params={**params, "max_iter": 5})
    run.run()
    model = run.state.model
    Xnew = np.random.default_rng(0).normal(size=(20, 2))
    dens = np.column_stack([model["weights"][k] * multivariate_normal(model["means"][k],
                                                                      model["covariances"][k]).pdf(Xnew)
                            for k in range(3)])
    np.testing.assert_allclose(run.algorithm.predict_proba(run.state, Xnew),
                               dens / dens.sum(1, keepdims=True), atol=1e-12)


# -- errors -------------------------------------------------------------------------------------------
def test_bad_input_gets_clear_errors():
    X = np.random.default_rng(0).normal(size=(12, 2))
    bad = Constraints([(0, 1), (1, 2)], [(0, 2)], n_samples=12)
    with pytest.raises(InconsistentConstraintsError, match="chain 0 - 1 - 2"):
        Run("ppc", Dataset(X), bad, params={"weighting": "hard"})
    # the same links are fine when they are soft
    Run("ppc", Dataset(X), bad, params={"must_link_weight": np.inf, "cannot_link_weight": 1.0})
    triangle = Constraints(cannot_link=[(0, 1), (1, 2), (0, 2)], n_samples=12)
    with pytest.raises(InconsistentConstraintsError, match=r"\[0, 1, 2\].*n_components=2"):
        Run("ppc", Dataset(X), triangle, params={"weighting": "hard"})
    X = np.random.default_rng(0).normal(size=(20, 2))
    chain = Constraints([(i, i + 1) for i in range(19)], n_samples=20)
    loopy = Constraints(GRID_4X5, n_samples=20)
    with pytest.raises(InvalidInputError, match="max_exact_configs.*max_exact_work=10"):
        Run("ppc", Dataset(X), loopy, params={"inference": "exact", "max_exact_work": 10})
    with pytest.raises(InvalidInputError, match="finite weights"):
        Run("ppc", Dataset(X), Constraints(cannot_link=[(i, i + 1) for i in range(19)], n_samples=20),
            params={"weighting": "hard", "inference": "mean-field"})
    with pytest.raises(InvalidInputError, match="grid_step"):
        algorithm(X, chain, grid_step=0.03, weights_update="grid").update_weights(np.ones(2), None)
