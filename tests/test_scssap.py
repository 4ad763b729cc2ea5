"""SCSSAP (Arzeno & Vikalo): message updates against the printed equations, equivalences, links."""

import itertools
import math
import warnings

import numpy as np
import pytest
from pairlab_builtins.algorithms import ap_messages as mod
from pairlab_builtins.algorithms.scssap_metric import learn_metric
from sklearn.cluster import AffinityPropagation as SkAffinityPropagation

from pairlab import Constraints, Dataset, InvalidInputError, Run, get_registry, make_estimator
from pairlab.links import random_pairs
from pairlab.testing import check_algorithm


# -- helpers ---------------------------------------------------------------------------------------
def same_partition(a, b) -> bool:
    """True when the two labelings group the points identically (up to renaming)."""
    a, b = np.asarray(a), np.asarray(b)
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def blobs(seed, n_per=25, k=3, spread=10.0, std=1.0, d=2):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-spread, spread, size=(k, d))
    centers[:, 0] += np.arange(k) * 3 * spread   # well separated
    y = np.repeat(np.arange(k), n_per)
    return centers[y] + rng.normal(scale=std, size=(y.size, d)), y


def random_links(n, n_ml, n_cl, rng):
    pairs = list(itertools.combinations(range(n), 2))
    pick = rng.choice(len(pairs), n_ml + n_cl, replace=False)
    chosen = [pairs[p] for p in pick]
    return chosen[:n_ml], chosen[n_ml:]


def by_pair(links, messages):
    """{(i, k): messages row of the ordered pair (i, k)}."""
    return {(int(a), int(b)): list(messages[r])
            for r, (a, b) in enumerate(zip(links.first, links.second, strict=True))}


# -- the loop-based reference of Algorithm 1, written from the printed equations --------------------
def reference_iteration(S, A, R, gamma, omega, ml_pairs, cl_pairs, q_ml, q_cl, mu):
    """One iteration of Algorithm 1 with explicit loops.

    gamma / omega: dict (i, k) -> list over j, for both orders of every link; q_ml / q_cl: dict
    (i, k) -> penalty. Returns new (gamma, omega, S_hat, A, R).
    """
    n = S.shape[0]
    new_gamma, new_omega = {}, {}
    for (i, k) in gamma:                          # eq. 17 with lambda_ki^j from eq. 23
        q = q_cl[(i, k)]
        new_gamma[(i, k)] = []
        for j in range(n):
            lam = A[k, j] + R[k, j] - gamma[(k, i)][j]
            new_gamma[(i, k)].append(-min(q + max(0.0, -lam), max(0.0, lam)))
    for (i, m) in omega:                          # eq. 20 with tau_mi^j from eq. 22
        q = q_ml[(i, m)]
        new_omega[(i, m)] = []
        for j in range(n):
            tau = A[m, j] + R[m, j] - omega[(m, i)][j]
            new_omega[(i, m)].append(max(min(-tau, -q), min(tau, q)))
    S_hat = np.array(S, dtype=float)               # eq. 24
    for i in range(n):
        for j in range(n):
            S_hat[i, j] = S[i, j] + sum(new_omega[(a, b)][j] for (a, b) in new_omega if a == i) \
                + sum(new_gamma[(a, b)][j] for (a, b) in new_gamma if a == i)
    A_new = np.empty_like(A)                       # eq. 14 (rho_jj, see the module docstring)
    for i in range(n):
        for j in range(n):
            if i != j:
                upd = min(0.0, R[j, j] + sum(max(R[k, j], 0.0) for k in range(n) if k not in (i, j)))
            else:
                upd = sum(max(R[k, j], 0.0) for k in range(n) if k != j)
            A_new[i, j] = mu * A[i, j] + (1 - mu) * upd
    R_new = np.empty_like(R)                       # eq. 25
    for i in range(n):
        for j in range(n):
            best = max(S_hat[i, k] + A_new[i, k] for k in range(n) if k != j)
            R_new[i, j] = mu * R[i, j] + (1 - mu) * (S_hat[i, j] - best)
    return new_gamma, new_omega, S_hat, A_new, R_new


@pytest.mark.parametrize("seed, q_ml, q_cl", [(0, 1.5, 0.7), (1, math.inf, math.inf), (2, 0.0, 3.0),
                                               (3, 0.4, math.inf), (4, 2.0, 2.0)])
def test_each_message_update_matches_the_printed_equations(seed, q_ml, q_cl):
    rng = np.random.default_rng(seed)
    n = 9
    S = -rng.uniform(0, 10, size=(n, n))
    ml_pairs, cl_pairs = random_links(n, 4, 4, rng)
    conf_ml, conf_cl = rng.uniform(0.2, 1, 4), rng.uniform(0.2, 1, 4)
    conf_ml[0] = 1.0
    mu = rng.uniform(0.5, 0.9)
    ml = mod.LinkSet.build(np.array(ml_pairs), conf_ml, q_ml, n)
    cl = mod.LinkSet.build(np.array(cl_pairs), conf_cl, q_cl, n)
    eng = mod.MessageEngine(S, ml, cl, mu)
    # random messages (small enough that the engine's cap on q never binds)
    eng.A[...] = rng.normal(size=(n, n))
    eng.R[...] = rng.normal(size=(n, n))
    eng.gamma[...] = -np.abs(rng.normal(size=eng.gamma.shape))
    eng.omega[...] = rng.normal(size=eng.omega.shape)
    gamma = by_pair(cl, eng.gamma)
    omega = by_pair(ml, eng.omega)
    qm, qc = {}, {}
    for (a, b), c in zip(ml_pairs, conf_ml, strict=True):
        qm[(a, b)] = qm[(b, a)] = c * q_ml
    for (a, b), c in zip(cl_pairs, conf_cl, strict=True):
        qc[(a, b)] = qc[(b, a)] = c * q_cl
    ref = reference_iteration(S, eng.A.copy(), eng.R.copy(), gamma, omega, ml_pairs, cl_pairs,
                              qm, qc, mu)
    eng.iterate()
    got_gamma = by_pair(cl, eng.gamma)
    got_omega = by_pair(ml, eng.omega)
    assert set(got_gamma) == set(ref[0]) and set(got_omega) == set(ref[1])
    for key in ref[0]:
        np.testing.assert_allclose(got_gamma[key], ref[0][key], rtol=1e-12, atol=1e-12)
    for key in ref[1]:
        np.testing.assert_allclose(got_omega[key], ref[1][key], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eng.S_hat, ref[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eng.A, ref[3], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eng.R, ref[4], rtol=1e-12, atol=1e-12)
    assert np.all(eng.gamma <= 0)                  # cannot-links only lower s_hat (after eq. 25)


def test_closed_forms_17_and_20_equal_the_max_sum_messages():
    """Eq. 17 and eq. 20 against eqs. 15-16 and 18-19 by enumerating c_kj in {0, 1}."""
    rng = np.random.default_rng(0)
    for _ in range(500):
        q = float(rng.choice([0.0, rng.exponential(2.0), math.inf]))
        l0, l1 = rng.normal(scale=3, size=2)        # lambda_ki^j(0), lambda_ki^j(1)
        lam = {0: l0, 1: l1}
        pen = {c: (q if c == 1 else 0.0) for c in (0, 1)}
        g1 = max(-pen[c] + lam[c] for c in (0, 1))  # eq. 15: c_ij = 1 shares exemplar j with c_kj
        g0 = max(lam[c] for c in (0, 1))             # eq. 16
        d = l1 - l0
        B = np.array([[d], [0.0]])                  # rows (i, k) and (k, i); old messages 0
        got = mod.cannot_link_update(B, np.zeros((2, 1)), np.array([[q], [q]]))[0, 0]
        assert math.isclose(got, g1 - g0, abs_tol=1e-12)
        w1 = max(-(q if c == 0 else 0.0) + lam[c] for c in (0, 1))   # eq. 18
        w0 = max(-(q if c == 1 else 0.0) + lam[c] for c in (0, 1))   # eq. 19
        B = np.array([[d], [0.0]])
        got = mod.must_link_update(B, np.zeros((2, 1)), np.array([[q], [q]]))[0, 0]
        if math.isinf(q):
            assert math.isclose(got, d, abs_tol=1e-12)
        else:
            assert math.isclose(got, w1 - w0, abs_tol=1e-12)


# -- equivalence with affinity propagation ------------------------------------------------------------
def sklearn_fit(X, damping, preference=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SkAffinityPropagation(damping=damping, preference=preference, random_state=0,
                                     **kw).fit(X)


@pytest.mark.parametrize("seed", range(5))
def test_without_links_scssap_equals_sklearn(seed):
    rng = np.random.default_rng(100 + seed)
    n, d = int(rng.integers(40, 90)), int(rng.integers(1, 4))
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3)
    damping = [0.5, 0.6, 0.75, 0.5, 0.8][seed]
    sk = sklearn_fit(X, damping)
    assert sk.n_iter_ < 200
    # no links, and links with exp(-q) = 1 (q = 0)
    ml, cl = random_pairs(rng.integers(3, size=n), 8, 8, rng).must_link, None
    links = Constraints(ml, cl, n_samples=n)
    for constraints, q in ((None, math.inf), (links, 0.0)):
        run = Run("scssap", Dataset(X), constraints, {"damping": damping, "q_ml": q, "q_cl": q,
                                                      "exemplar_rule": "refine"}, seed=seed)
        run.run()
        assert run.converged
        assert same_partition(run.state.labels, sk.labels_)
        np.testing.assert_array_equal(run.state.extras["exemplar_indices"],
                                      sk.cluster_centers_indices_)


@pytest.mark.parametrize("seed", range(4))
def test_paper_exemplar_rule_equals_sklearn_on_separated_data(seed):
    X, _ = blobs(seed, n_per=20, k=3)
    sk = sklearn_fit(X, 0.75)
    run = Run("scssap", Dataset(X), None, {}, seed=seed)
    run.run()
    assert same_partition(run.state.labels, sk.labels_)


def test_q_zero_is_plain_affinity_propagation_bit_for_bit():
    X, y = blobs(3, n_per=15)
    links = random_pairs(y, 6, 6, np.random.default_rng(0))
    plain = Run("scssap", Dataset(X), None, {"max_iter": 40}, seed=1)
    zero = Run("scssap", Dataset(X), links, {"q_ml": 0.0, "q_cl": 0.0, "max_iter": 40}, seed=1)
    for _ in range(40):
        a, b = plain.step(), zero.step()
        assert np.array_equal(a.labels, b.labels) and a.objective == b.objective
    np.testing.assert_array_equal(plain.algorithm._engine.R, zero.algorithm._engine.R)
    np.testing.assert_array_equal(plain.algorithm._engine.A, zero.algorithm._engine.A)
    assert not np.any(zero.algorithm._engine.omega) and not np.any(zero.algorithm._engine.gamma)


def test_confidence_multiplies_q():
    X, y = blobs(4, n_per=12)
    links = random_pairs(y, 5, 5, np.random.default_rng(1))
    conf = np.random.default_rng(2).uniform(0.1, 1, size=len(links))
    conf[0] = 0.0
    soft = Constraints(links.must_link, links.cannot_link, n_samples=X.shape[0], confidence=conf)
    ml = mod.LinkSet.build(soft.must_link, soft.ml_confidence, 4.0, X.shape[0])
    np.testing.assert_allclose(ml.penalty, 4.0 * np.r_[soft.ml_confidence, soft.ml_confidence])
    np.testing.assert_array_equal(ml.first[ml.reverse], ml.second)
    inf = mod.LinkSet.build(soft.must_link, soft.ml_confidence, math.inf, X.shape[0])
    assert np.all(np.isnan(inf.penalty) == False)  # noqa: E712
    assert (inf.penalty == 0).sum() == 2 and np.all(np.isinf(inf.penalty[inf.penalty > 0]))
    # a zero-confidence link is no link at all
    one_link = Constraints([[0, 20]], None, n_samples=X.shape[0], confidence=0.0)
    a = Run("scssap", Dataset(X), one_link, {"max_iter": 30}, seed=0)
    b = Run("scssap", Dataset(X), None, {"max_iter": 30}, seed=0)
    a.run()
    b.run()
    assert np.array_equal(a.state.labels, b.state.labels)


# -- links ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_infinite_penalty_honours_consistent_links(seed):
    X, y = blobs(seed, n_per=20, k=3, std=1.5)
    links = random_pairs(y, 12, 12, np.random.default_rng(seed))
    run = Run("scssap", Dataset(X, y), links, {"q_ml": math.inf, "q_cl": math.inf}, seed=seed)
    run.run()
    ml, cl = links.satisfied(run.state.labels)
    assert ml.all() and cl.all()
    assert math.isfinite(run.state.objective)
    assert run.state.extras["broken_must_links"] == run.state.extras["broken_cannot_links"] == 0


def test_penalty_decides_between_links_and_geometry():
    """Must-links across far apart blobs: kept with exp(-q) = 0, broken with exp(-q) = 0.9."""
    X, y = blobs(7, n_per=12, k=3)
    links = Constraints([[0, 12], [1, 13]], None, n_samples=X.shape[0])
    labels = {}
    for q in (math.inf, -math.log(0.9)):
        run = Run("scssap", Dataset(X, y), links, {"q_ml": q}, seed=0)
        run.run()
        assert run.converged
        labels[q] = run.state.labels
    hard, soft = labels[math.inf], labels[-math.log(0.9)]
    assert hard[0] == hard[12] and hard[1] == hard[13]
    assert soft[0] != soft[12] and soft[1] != soft[13]


def test_infinite_q_never_gives_nan():
    X, y = blobs(2, n_per=10, k=3)
    links = Constraints([[0, 1], [1, 12], [5, 25]], [[0, 12], [3, 4], [20, 21]], n_samples=30)
    run = Run("scssap", Dataset(X, y), links, {"convergence_iter": 10**6, "max_iter": 1500}, seed=0)
    run.run()
    eng = run.algorithm._engine
    for arr in (eng.A, eng.R, eng.S_hat, eng.gamma, eng.omega):
        assert np.all(np.isfinite(arr))
    assert not any(np.isnan(run.objectives))
    # contradictory links (a cannot-link inside a must-link chain) are allowed and stay finite
    assert not links.is_consistent


def test_objective_is_eq_6_by_enumerating_the_factors():
    rng = np.random.default_rng(5)
    n = 8
    S = -rng.uniform(0, 5, size=(n, n))
    ml_pairs, cl_pairs = random_links(n, 3, 3, rng)
    q_m, q_c = 1.7, 0.6
    ml = mod.LinkSet.build(np.array(ml_pairs), np.ones(3), q_m, n)
    cl = mod.LinkSet.build(np.array(cl_pairs), np.ones(3), q_c, n)
    for _ in range(30):
        centers = rng.choice(n, size=int(rng.integers(1, n)), replace=False)
        ex = centers[rng.integers(centers.size, size=n)]
        ex[centers] = centers
        c = np.zeros((n, n), dtype=int)
        c[np.arange(n), ex] = 1
        total = sum(S[i, j] for i in range(n) for j in range(n) if c[i, j])           # eq. 7
        for (i, k) in cl_pairs:                                                          # eq. 5
            total -= sum(q_c for j in range(n) if c[i, j] == 1 and c[i, j] == c[k, j])
        for (i, m) in ml_pairs:                                                          # eq. 4
            total -= sum(q_m for j in range(n) if c[i, j] != c[m, j])
        got, _, _ = mod.net_similarity(S, ex, ml, cl)
        assert math.isclose(got, total, rel_tol=1e-12)


# -- exemplars ---------------------------------------------------------------------------------------
def test_exemplar_rules_against_loops():
    rng = np.random.default_rng(9)
    for _ in range(40):                  # few self-exemplars (gathered) and many (masked)
        n = int(rng.integers(3, 30))
        A, R, S = rng.normal(size=(3, n, n))
        mask = rng.random(n) < rng.uniform(0.05, 0.6)
        got = mod.identify_exemplars(A, R, S, mask, "paper")
        psi = [k for k in range(n) if mask[k]]
        if psi:
            for i in range(n):
                want = i if i in psi else max(psi, key=lambda k: (A[i, k] + R[i, k], -k))
                assert got[i] == want
            # Frey & Dueck's loop (as in scikit-learn)
            ex = np.array(psi)
            c = np.argmax(S[:, ex], axis=1)
            c[ex] = np.arange(ex.size)
            for k in range(ex.size):
                ii = np.flatnonzero(c == k)
                ex[k] = ii[np.argmax(S[np.ix_(ii, ii)].sum(axis=0))]
            c = np.argmax(S[:, ex], axis=1)
            c[ex] = np.arange(ex.size)
            np.testing.assert_array_equal(mod.identify_exemplars(A, R, S, mask, "refine"), ex[c])
        else:
            best = np.argmax(A + R, axis=1)
            own = np.diag(A + R) >= (A + R)[np.arange(n), best]
            cand = np.where(own, np.arange(n), best)
            assert set(got) == set(cand)
            for i in range(n):
                assert got[i] == (i if i in set(cand) else cand[i])


def test_states_describe_a_valid_clustering_from_iteration_0():
    X, y = blobs(1, n_per=12)
    run = Run("scssap", Dataset(X, y), random_pairs(y, 4, 4, np.random.default_rng(0)), {}, seed=0)
    s0 = run.state
    np.testing.assert_array_equal(s0.model["exemplars"], np.arange(X.shape[0]))
    assert s0.n_clusters == X.shape[0]
    run.run()
    for state in run.history:
        ex = state.model["exemplars"]
        centers = np.unique(ex)
        np.testing.assert_array_equal(ex[centers], centers)            # exemplars choose themselves
        np.testing.assert_array_equal(state.labels, np.searchsorted(centers, ex))
        assert state.objective is not None and not math.isnan(state.objective)
    assert run.state.extras["n_self_exemplars"] == run.state.n_clusters


# -- determinism, termination, errors -------------------------------------------------------------------
def test_same_seed_same_states_and_replay():
    X, y = blobs(0, n_per=15)
    links = random_pairs(y, 6, 6, np.random.default_rng(0))
    a = Run("scssap", Dataset(X), links, {"q_ml": 2.0}, seed=3)
    b = Run("scssap", Dataset(X), links, {"q_ml": 2.0}, seed=3)
    a.run()
    b.run()
    assert len(a.history) == len(b.history)
    assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))
    # stepping from an older state replays it exactly
    again = a.algorithm.step(a.history[5])
    assert again.equals(a.history[6])
    assert a.algorithm.step(a.history[-1]).iteration == a.history[-1].iteration + 1


def test_message_change_tolerance_stops_early():
    X, _ = blobs(0, n_per=15)
    run = Run("scssap", Dataset(X), None, {"tol": 1e-3, "convergence_iter": 10**4, "max_iter": 2000})
    run.run()
    assert run.converged and run.n_iter < 2000
    assert run.state.extras["message_change"] < 1e-3
    assert run.history[-2].extras["message_change"] >= 1e-3


def test_refuses_n_that_does_not_fit_in_memory(monkeypatch):
    X, _ = blobs(0, n_per=10)
    monkeypatch.setattr(mod, "available_memory", lambda: 10_000)
    with pytest.raises(InvalidInputError, match="GiB.*subsample"):
        Run("scssap", Dataset(X))
    with pytest.raises(InvalidInputError, match="n_samples=30"):
        Run("affinity-propagation", Dataset(X))


def test_bad_inputs_are_clear_errors():
    X, _ = blobs(0, n_per=5)
    with pytest.raises(InvalidInputError, match="precomputed"):
        Run("scssap", Dataset(X), params={"affinity": "precomputed"})
    with pytest.raises(InvalidInputError, match="preference"):
        Run("scssap", Dataset(X), params={"preference": math.inf})
    with pytest.raises(InvalidInputError, match="damping"):
        Run("scssap", Dataset(X), params={"damping": 1.0})
    with pytest.raises(InvalidInputError, match="q_ml"):
        Run("scssap", Dataset(X), params={"q_ml": -1.0})


def test_single_point_and_two_points():
    run = Run("scssap", Dataset(np.zeros((1, 2))))
    run.run()
    assert run.converged and run.state.labels.tolist() == [0]
    run = Run("scssap", Dataset(np.array([[0.0, 0], [5, 5]])), Constraints([[0, 1]], n_samples=2))
    run.run()
    assert run.state.labels[0] == run.state.labels[1]


def test_precomputed_similarity_and_estimator():
    X, _ = blobs(2, n_per=10)
    S = -((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    est = make_estimator("scssap", affinity="precomputed", random_state=0)
    est.fit(S, must_link=[[0, 1]], cannot_link=[[0, 10]])
    ref = make_estimator("scssap", random_state=0).fit(X, must_link=[[0, 1]], cannot_link=[[0, 10]])
    assert same_partition(est.labels_, ref.labels_)
    assert ref.exemplars_.shape == (X.shape[0],)
    np.testing.assert_array_equal(est.exemplars_, ref.exemplars_)


@pytest.mark.parametrize("name", ["scssap", "scssap-metric"])
def test_conformance(name):
    check_algorithm(get_registry().algorithm(name), n_steps=4)


# -- metric learning (Algorithm 2) ----------------------------------------------------------------------
@pytest.mark.parametrize("regularizer, h, scope", [("logdet", 0.1, "cluster"), ("entropy", 0.1, "cluster"),
                                                   ("entropy", 0.0, "cluster"), ("logdet", 0.1, "global"),
                                                   ("entropy", 5.0, "global")])
def test_metric_weights_are_a_distribution(regularizer, h, scope):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4)) * [1, 5, 0.2, 1]
    X[:10, 3] = 7.0                                   # zero spread of feature 3 in one cluster
    ex = np.repeat([0, 10, 20, 30], 10)
    ex[35] = 35                                       # a singleton cluster
    w, lab = learn_metric(X, ex, regularizer, h, scope)
    assert np.all(w >= 0) and np.allclose(w.sum(axis=1), 1.0) and np.all(np.isfinite(w))
    assert w.shape == ((1 if scope == "global" else 5), 4) and lab.shape == (40,)
    if scope == "cluster" and regularizer == "logdet":
        assert w[0].tolist() == [0, 0, 0, 1]          # zero spread: all weight there (section 5.3)
        np.testing.assert_allclose(w[4], 0.25)        # singleton: uniform


def test_metric_closed_forms_minimise_eq_31():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(15, 3)) * [0.5, 1, 2]
    ex = np.zeros(15, dtype=int)
    dev = ((X - X[ex]) ** 2).sum(axis=0)
    size = 15
    # eq. 32 (before normalisation) is the stationary point of sum_d a_d dev_d - |X_u| sum log a_d
    a = size / dev
    np.testing.assert_allclose(dev - size / a, 0, atol=1e-12)
    w, _ = learn_metric(X, ex, "logdet", 0.0)
    np.testing.assert_allclose(w[0], a / a.sum())
    # eq. 33 minimises sum_d a_d dev_d + |X_u| h sum a log a on the simplex
    h = 0.3
    w, _ = learn_metric(X, ex, "entropy", h)

    def f(a):
        return float(a @ dev + size * h * np.sum(a * np.log(a)))

    best = f(w[0])
    for _ in range(300):
        b = rng.dirichlet(np.ones(3))
        assert f(b) >= best - 1e-12


def test_scssap_metric_runs_and_honours_links():
    rng = np.random.default_rng(0)
    n_per = 15
    y = np.repeat([0, 1, 2], n_per)
    X = np.column_stack([y * 4.0 + rng.normal(scale=0.5, size=y.size),
                         rng.normal(scale=6.0, size=y.size)])   # feature 2 is noise
    links = random_pairs(y, 8, 8, np.random.default_rng(1))
    for reg in ("logdet", "entropy"):
        run = Run("scssap-metric", Dataset(X, y), links, {"regularizer": reg, "h": 1.0}, seed=0)
        run.run()
        assert run.converged
        st = run.state
        w = st.extras["feature_weights"]
        assert np.all(w >= 0) and np.allclose(w.sum(axis=1), 1)
        assert st.extras["round"] >= 2
        ml, cl = links.satisfied(st.labels)
        assert ml.all() and cl.all()
        assert not any(np.isnan(run.objectives))
        assert w[:, 0].mean() > w[:, 1].mean()           # the informative feature gains weight


def test_scssap_metric_first_round_is_scssap_on_scaled_data():
    X, y = blobs(5, n_per=12, d=3)
    links = random_pairs(y, 5, 5, np.random.default_rng(0))
    a = Run("scssap-metric", Dataset(X), links, {"max_rounds": 1}, seed=2)
    b = Run("scssap", Dataset(X / np.sqrt(3)), links, {}, seed=2)   # A = I / D: s = -|x - y|^2 / D
    a.run()
    b.run()
    assert same_partition(a.state.labels, b.state.labels)
