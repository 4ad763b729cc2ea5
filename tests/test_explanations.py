"""Every algorithm's explanation against an independent computation of the same numbers."""

import itertools

import numpy as np
import pytest
from scipy import linalg as scipy_linalg
from scipy.special import log_softmax, logsumexp, softmax
from scipy.stats import multivariate_normal

from pairlab import Constraints, Dataset, Run
from pairlab.explanation import Bars, Explanation, why_moved

RNG = np.random.default_rng(3)
X6 = np.vstack([RNG.normal(0.0, 1.0, (3, 2)), RNG.normal(2.5, 1.0, (3, 2))])
DATA6 = Dataset(X6, name="six")


def bars(e: Explanation, term: str) -> np.ndarray:
    return next(b.values for b in e.bars if b.term == term)


def log_densities(state, X):
    m, c = state.model["means"], state.model["covariances"]
    return np.column_stack([multivariate_normal(m[k], c[k]).logpdf(X) for k in range(len(m))])


def enumerate_marginals(X, state, allowed, pair_log):
    """Posterior marginals of every point by enumerating all labellings: ``allowed(Z)`` masks
    the admissible ones and ``pair_log(Z)`` adds the relations' log-factor."""
    n, M = len(X), len(state.model["weights"])
    Z = np.array(list(itertools.product(range(M), repeat=n)))
    Z = Z[allowed(Z)]
    logN = log_densities(state, X)
    log_joint = np.log(state.model["weights"])[Z].sum(1) + logN[np.arange(n), Z].sum(1) + pair_log(Z)
    post = np.exp(log_joint - logsumexp(log_joint))
    return np.stack([(post[:, None] * (Z == k)).sum(0) for k in range(M)], axis=1)


def implied(r, unary):
    with np.errstate(divide="ignore"):
        return np.log(r) - log_softmax(unary)


# -- PPC ------------------------------------------------------------------------------------------
ML, CL = [(0, 1), (3, 4)], [(1, 2)]


def ppc_run(**params):
    run = Run("ppc", DATA6, Constraints(ML, CL, n_samples=6),
              {"n_components": 2, "max_iter": 5, **params}, seed=1)
    for _ in range(3):
        run.step()
    return run


def test_ppc_exact_terms_match_enumeration():
    run = ppc_run(inference="exact", must_link_weight=1.5, cannot_link_weight=1.0)
    s = run.state
    W = np.zeros((6, 6))
    for (i, j), w in [*((p, 1.5) for p in ML), *((p, -1.0) for p in CL)]:
        W[i, j] = W[j, i] = w
    # eq. 2.7 over ordered pairs: each unordered pair counts twice
    marg = enumerate_marginals(X6, s, lambda Z: np.ones(len(Z), bool),
                               lambda Z: (W * (Z[:, :, None] == Z[:, None, :])).sum((1, 2)))
    logN = log_densities(s, X6)
    for i in range(6):
        e = run.explain(i)
        assert ("exact" if i < 5 else "no relations") in e.text
        np.testing.assert_allclose(e.bars[0].values, marg[i], atol=1e-9)
        np.testing.assert_allclose(bars(e, "prior"), np.log(s.model["weights"]), atol=1e-12)
        np.testing.assert_allclose(bars(e, "distance"), logN[i], atol=1e-9)
        np.testing.assert_allclose(bars(e, "link term"),
                                   implied(marg[i], np.log(s.model["weights"]) + logN[i]), atol=1e-7)
    assert np.all(bars(run.explain(5), "link term") == 0)  # point 5 has no relation


def test_ppc_mean_field_link_term_is_eq_3_5():
    run = ppc_run(inference="mean-field", mean_field_tol=1e-13, mean_field_iter=2000,
                  must_link_weight=1.2, cannot_link_weight=0.8)
    s = run.state
    r = s.responsibilities
    logN = log_densities(s, X6)
    for i, partners in {1: [(0, 1.2), (2, -0.8)], 3: [(4, 1.2)]}.items():
        e = run.explain(i)
        assert "mean field" in e.text
        expected = 2 * sum(w * r[j] for j, w in partners)
        np.testing.assert_allclose(bars(e, "link term"), expected, atol=1e-12)
        # the fixed point of eq. 3.5: Q_i = softmax(prior + distance + link term)
        np.testing.assert_allclose(softmax(np.log(s.model["weights"]) + logN[i] + expected), r[i],
                                   atol=1e-9)


def test_ppc_gibbs_and_hard_chunklets():
    run = ppc_run(inference="gibbs", gibbs_sweeps=50, gibbs_burn_in=5)
    e = run.explain(0)
    assert "Gibbs" in e.text and "eq. 3.1" in e.equation
    r, s = run.state.responsibilities[0], run.state
    unary = np.log(s.model["weights"]) + log_densities(s, X6)[0]
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(bars(e, "link term"), implied(r, unary), atol=1e-9)
    hard = ppc_run(weighting="hard")
    e = hard.explain(3)
    logN = log_densities(hard.state, X6)
    np.testing.assert_allclose(bars(e, "distance"), logN[3] + logN[4], atol=1e-9)
    np.testing.assert_allclose(bars(e, "prior"), 2 * np.log(hard.state.model["weights"]))
    assert "chunklet" in e.text


def test_ppc_m_step_half_is_explained():
    run = ppc_run()
    run.half_step()
    assert run.state.phase == "M-step"
    assert run.explain(0).phase == "M-step"


# -- constrained EM -------------------------------------------------------------------------------
@pytest.mark.parametrize("assumption", [1, 2])
def test_constrained_em_terms_match_enumeration(assumption):
    ml, cl = [(0, 1)], [(1, 3), (3, 4)]
    run = Run("constrained-em", DATA6, Constraints(ml, cl, n_samples=6),
              {"n_components": 2, "sampling_assumption": assumption}, seed=2)
    for _ in range(2):
        run.step()
    s = run.state
    w = np.log(s.model["weights"])

    def allowed(Z):
        ok = np.ones(len(Z), bool)
        for i, j in ml:
            ok &= Z[:, i] == Z[:, j]
        for i, j in cl:
            ok &= Z[:, i] != Z[:, j]
        return ok

    # assumption 1 draws the chunklet {0, 1}'s label once: remove one of its two alpha factors
    extra = (lambda Z: -w[Z[:, 1]]) if assumption == 1 else (lambda Z: 0.0 * Z[:, 0])
    marg = enumerate_marginals(X6, s, allowed, extra)
    logN = log_densities(s, X6)
    for i in range(6):
        e = run.explain(i)
        np.testing.assert_allclose(e.bars[0].values, marg[i], atol=1e-9)
        members = [0, 1] if i in (0, 1) else [i]
        s_j = 1 if assumption == 1 else len(members)
        np.testing.assert_allclose(bars(e, "prior"), s_j * w, atol=1e-12)
        np.testing.assert_allclose(bars(e, "distance"), logN[members].sum(0), atol=1e-9)
        seen = marg[i] > 1e-12  # below, the posterior underflows differently on either side
        np.testing.assert_allclose(bars(e, "link term")[seen],
                                   implied(marg[i], s_j * w + logN[members].sum(0))[seen], atol=1e-7)
    assert np.all(bars(run.explain(2), "link term") == 0)


# -- why it moved ---------------------------------------------------------------------------------
def _expl(dist, link):
    names = ("k=0", "k=1")
    score = -np.asarray(dist) + np.asarray(link)
    best = int(score.argmax())
    return Explanation(0, "assign", "z = argmin d - l", (
        Bars("d", names, dist, best, lower_is_better=True, term="distance"),
        Bars("l", names, link, best, term="link term")))


def test_why_moved_names_the_term_whose_margin_rose_most():
    before, after = _expl([1.0, 2.0], [0.0, 0.5]), _expl([1.0, 1.8], [0.0, 2.0])
    moved = why_moved(before, after, before.choice, after.choice)
    assert moved.before is before and before.choice == "k=0" and after.choice == "k=1"
    assert "the link term tipped it" in moved.moved
    assert "distance: -1 -> -0.8" in moved.moved and "link term: +0.5 -> +2" in moved.moved
    moved = why_moved(_expl([1.0, 2.0], [0.0, 0.5]), _expl([1.0, 0.2], [0.0, 0.5]), "k=0", "k=1")
    assert "the distance tipped it" in moved.moved


def test_run_attaches_before_when_a_label_changes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (15, 2)), rng.normal(3, 1, (15, 2))])
    run = Run("ppc", Dataset(X), Constraints([(0, 20), (1, 2)], [(3, 4)], n_samples=30),
              {"n_components": 2, "inference": "exact", "means_init": [[1.4, 1.6], [1.6, 1.4]]},
              seed=0)
    moved = 0
    for _ in range(6):
        before = run.state.labels.copy()
        run.half_step()
        assert all(run.explain(i).before is None for i in range(30))  # the M-step moves no label
        run.half_step()
        for i in range(30):
            e = run.explain(i)
            assert (e.before is not None) == (before[i] != run.state.labels[i])
            if e.before is not None:
                moved += 1
                assert "tipped it" in e.moved and e.before.choice != e.choice
                old, new = e.before.choice, e.choice
                margin = [sum(float(b.values[b.labels.index(new)] - b.values[b.labels.index(old)])
                              for b in x.terms) for x in (e.before, e)]
                assert margin[0] <= 0 < margin[1]
    assert moved > 0


# -- EM-PC ----------------------------------------------------------------------------------------
def test_em_pc_link_term_is_the_dual_and_satisfies_kkt():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (10, 2)), rng.normal(2, 1, (10, 2))])
    cl = [(0, 1), (1, 2), (12, 13)]
    run = Run("em-pc", Dataset(X), Constraints([], cl, n_samples=20), {"n_components": 2}, seed=0)
    run.step()
    s = run.state
    q, logN = s.responsibilities, log_densities(s, X)
    total = np.zeros((20, 2))
    for i in range(20):
        e = run.explain(i)
        total[i] = bars(e, "link term")
        # q_i = softmax(prior + distance + link term): the dual form of the projection
        np.testing.assert_allclose(softmax(np.log(s.model["weights"]) + logN[i] + total[i]), q[i],
                                   atol=1e-9)
    assert np.all(total[[3, 4, 5]] == 0)
    # KKT of the projection: lambda >= 0, q_a + q_b <= 1, and lambda > 0 only where tight
    lam = -total  # point 0 is in one pair only, so its link term is -lambda of (0, 1)
    assert np.all(lam >= -1e-12)
    for k in range(2):
        if lam[0, k] > 1e-8:
            assert q[0, k] + q[1, k] == pytest.approx(1.0, abs=1e-6)
    assert np.all(q[[0, 1, 12]] + q[[1, 2, 13]] <= 1 + 1e-6)


# -- SSKK -----------------------------------------------------------------------------------------
def test_sskk_distance_split_matches_feature_space_means():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(0, 1, (8, 2)), rng.normal(2, 1, (8, 2))])
    cons = Constraints([(0, 9)], [(1, 2), (3, 12)], n_samples=16)
    run = Run("sskk", Dataset(X), cons, {"n_clusters": 2, "kernel": "linear"}, seed=0)
    run.step()
    run.step()
    algo, prev = run.algorithm, run.history[-2].labels
    w = algo.weight
    W = np.zeros((16, 16))
    for (i, j), sgn in [((0, 9), 1), ((1, 2), -1), ((3, 12), -1)]:
        W[i, j] = W[j, i] = sgn * w
    Kt = X @ X.T + W + algo.sigma * np.eye(16)
    vals, vecs = np.linalg.eigh(Kt)
    phi = vecs * np.sqrt(np.clip(vals, 0, None))  # a feature map of K_tilde
    for i in range(16):
        e = run.explain(i)
        total, d_k, d_w, d_s = (b.values for b in e.bars)
        for c in range(2):
            members = np.flatnonzero(prev == c)
            assert total[c] == pytest.approx(((phi[i] - phi[members].mean(0)) ** 2).sum(), abs=1e-8)
            assert d_k[c] == pytest.approx(((X[i] - X[members].mean(0)) ** 2).sum(), abs=1e-9)
            m = len(members)
            link = -2 * W[i, members].sum() / m + W[np.ix_(members, members)].sum() / m**2
            assert d_w[c] == pytest.approx(link, abs=1e-12)
            assert d_s[c] == pytest.approx(algo.sigma * (1 - 2 * (prev[i] == c) / m + 1 / m))
        assert e.choice == f"k={run.state.labels[i]}"


# -- CSC ------------------------------------------------------------------------------------------
def _csc_embedding(X, ml, cl, beta, m):
    """Wang & Davidson's embedding from scratch: the pencil L_bar v = lambda (Q_bar - beta/vol I) v
    on the complement of the trivial vector D^1/2 1 (an orthonormal basis from scipy's null_space,
    scipy's general solver), eigenvectors with lambda > 0, v'v = vol, the m of least cost
    v'L_bar v, u = D^-1/2 v (each column up to sign)."""
    n = len(X)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    A = np.exp(-D2 / (D2.sum() / (n * (n - 1))))  # bandwidth: mean over pairs i != j
    np.fill_diagonal(A, 0.0)
    d = A.sum(1)
    vol = d.sum()
    Dm = np.diag(d**-0.5)
    L = np.eye(n) - Dm @ A @ Dm
    Q = np.zeros((n, n))
    for pairs, sign in ((ml, 1.0), (cl, -1.0)):
        for i, j in pairs:
            Q[i, j] = Q[j, i] = sign
    B = Dm @ Q @ Dm - beta / vol * np.eye(n)
    P = scipy_linalg.null_space(np.sqrt(d)[None, :])
    lam, W = scipy_linalg.eig(P.T @ L @ P, P.T @ B @ P)
    lam, V = lam.real, P @ W.real
    keep = np.flatnonzero(np.isfinite(lam) & (lam > 1e-8))
    V = V[:, keep] * np.sqrt(vol) / np.linalg.norm(V[:, keep], axis=0)
    cost = np.einsum("ij,ij->j", V, L @ V)
    return Dm @ V[:, np.argsort(cost)[:m]]


def test_csc_explains_by_embedding_distances():
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(0, 1, (7, 2)), rng.normal(3, 1, (7, 2)), rng.normal((0, 4), 1, (7, 2))])
    ml, cl = [(0, 8), (15, 16)], [(1, 2), (3, 17)]
    run = Run("csc", Dataset(X), Constraints(ml, cl, n_samples=21),
              {"n_clusters": 3, "bandwidth_rule": "mean-sq"}, seed=0)   # _csc_embedding's RBF
    U_ref = _csc_embedding(X, ml, cl, run.algorithm.solution["beta"], 2)
    U = run.algorithm.solution["U"]
    for j in range(2):
        assert min(abs(U[:, j] - U_ref[:, j]).max(), abs(U[:, j] + U_ref[:, j]).max()) < 1e-8
    for t in range(3):
        if t:
            run.step()
        prev = run.history[-2].labels if t else None
        for i in range(21):
            e = run.explain(i)
            total, part1, part2, coords = (b.values for b in e.bars)
            np.testing.assert_allclose(coords, U[i], atol=1e-12)
            for c in range(3):
                centre = (run.state.model["embedding_centers"][c] if t == 0
                          else U[prev == c].mean(0))
                np.testing.assert_allclose([part1[c], part2[c]], (U[i] - centre) ** 2, atol=1e-12)
                assert total[c] == pytest.approx(((U[i] - centre) ** 2).sum(), abs=1e-12)
            assert e.choice == f"k={run.state.labels[i]}" and np.argmin(total) == run.state.labels[i]


# -- the affinity-propagation family --------------------------------------------------------------
def _ap_messages(S, iterations, damping, order, ml=(), cl=()):
    """Affinity propagation written out from the papers: Frey & Dueck's order (rho then alpha)
    or Algorithm 1 of SCSSAP (gamma eq. 17, omega eq. 20, s_hat eq. 24, alpha eq. 14, rho
    eq. 25), q = infinity capped at 2 n (max s - min s) + 1."""
    n = len(S)
    A, R = np.zeros((n, n)), np.zeros((n, n))
    q = 2 * n * (S.max() - S.min()) + 1
    ordered = lambda pairs: [*pairs, *[(k, i) for i, k in pairs]]  # noqa: E731
    gamma = {p: np.zeros(n) for p in ordered(cl)}
    omega = {p: np.zeros(n) for p in ordered(ml)}
    S_hat = S.copy()

    def rho():
        T = S_hat + A
        for i in range(n):
            for j in range(n):
                R[i, j] = damping * R[i, j] + (1 - damping) * (S_hat[i, j] - np.delete(T[i], j).max())

    def alpha():
        P = np.maximum(R, 0)
        new = np.empty_like(A)
        for i in range(n):
            for j in range(n):
                rest = sum(P[k, j] for k in range(n) if k not in (i, j))
                new[i, j] = rest if i == j else min(0.0, R[j, j] + rest)
        A[:] = damping * A + (1 - damping) * new

    for _ in range(iterations):
        if order == "frey-dueck":
            rho()
            alpha()
            continue
        B = A + R
        gamma = {(i, k): np.clip(-(B[k] - gamma[(k, i)]), -q, 0) for i, k in gamma}
        omega = {(i, m): np.clip(B[m] - omega[(m, i)], -q, q) for i, m in omega}
        S_hat = S.copy()
        for (i, _), msg in [*gamma.items(), *omega.items()]:
            S_hat[i] += msg
        alpha()
        rho()
    return A, R, S_hat


def _two_blobs(n=10):
    rng = np.random.default_rng(0)
    return Dataset(np.vstack([rng.normal(0, 1, (n, 2)), rng.normal(4, 1, (n, 2))]))


@pytest.mark.parametrize("name", ["affinity-propagation", "scssap"])
def test_ap_messages_match_the_papers_updates(name):
    data = _two_blobs()
    ml, cl = ([(0, 15)], [(1, 2), (3, 4)]) if name == "scssap" else ([], [])
    run = Run(name, data, Constraints(ml, cl, n_samples=20), {}, seed=0)
    for _ in range(9):
        run.step()
    algo = run.algorithm
    S = algo._engine.S  # the input similarity (with its tie-breaking noise)
    damping = algo.params["damping"]
    seen_similarity = False
    for t in (9, 4):  # the newest state, and one replayed on a copy
        run.seek(t)
        A, R, S_hat = _ap_messages(S, t, damping, algo.order, ml, cl)
        centers = run.state.extras["exemplar_indices"]
        for i in (0, 1, 7, 15):
            e = run.explain(i)
            named = {b.title.split(" ")[0]: b.values for b in e.bars}
            np.testing.assert_allclose(named["availability"], A[i, centers], atol=1e-9)
            np.testing.assert_allclose(named["responsibility"], R[i, centers], atol=1e-9)
            np.testing.assert_allclose(named["self-evidence"], (A + R)[centers, centers], atol=1e-9)
            if name == "scssap":
                np.testing.assert_allclose(named["constraint"], (S_hat - S)[i, centers], atol=1e-9)
                if i not in centers:  # a self-exemplar is its own exemplar
                    best = centers[int(np.argmax((A + R)[i, centers]))]
                    assert e.choice == f"ex {best}" == f"ex {run.state.model['exemplars'][i]}"
            elif run.state.extras["n_self_exemplars"]:  # the refined choice: by similarity
                np.testing.assert_allclose(named["similarity"], S[i, centers], atol=1e-12)
                seen_similarity = True
    assert name == "scssap" or seen_similarity
    run.seek(9)
    assert run.state.equals(Run(name, data, Constraints(ml, cl, n_samples=20), {}, seed=0).run(9))


def _chooser_messages(S, self_row, iterations, damping, p=np.inf, cl_rows=()):
    """Frey & Dueck on a rectangular chooser similarity, SCAP's availabilities with penalty p,
    Givoni & Frey's cannot-link messages folded into s_hat (capped as the engine caps q)."""
    r, n = S.shape
    A, R = np.zeros((r, n)), np.zeros((r, n))
    q = 2 * n * (S.max() - S.min()) + 1
    gamma = {pair: np.zeros(n) for a, b in cl_rows for pair in ((a, b), (b, a))}
    S_hat = S.copy()
    for _ in range(iterations):
        if gamma:
            gamma = {(a, b): np.clip(-(A[b] + R[b] - gamma[(b, a)]), -q, 0) for a, b in gamma}
            S_hat = S.copy()
            for (a, _), msg in gamma.items():
                S_hat[a] += msg
        T = S_hat + A
        R = damping * R + (1 - damping) * np.array(
            [[S_hat[i, j] - np.delete(T[i], j).max() for j in range(n)] for i in range(r)])
        new = np.empty_like(A)
        P = np.maximum(R, 0)
        for j in range(n):
            own = self_row[j]
            for i in range(r):
                rest = sum(P[k, j] for k in range(r) if k not in (i, own))
                new[i, j] = (min(p, rest) if i == own
                             else min(0.0, max(R[own, j], -p) + rest))
        A = damping * A + (1 - damping) * new
    return A, R, S_hat


@pytest.mark.parametrize("name", ["ssap-g", "ssap-l"])
def test_chooser_messages_match_the_papers_updates(name):
    data = _two_blobs(6)
    cons = Constraints([(0, 9), (3, 4)], [(1, 2)] if name == "ssap-g" else [], n_samples=12)
    run = Run(name, data, cons, {}, seed=0)
    for _ in range(7):
        run.step()
    e = run.algorithm._engine
    cl = [tuple(x) for x in cons.chunklet_cannot_link] if name == "ssap-g" else ()
    for t in (7, 3):
        run.seek(t)
        A, R, S_hat = _chooser_messages(e.S, e.self_row, t, run.algorithm.params["damping"],
                                        run.algorithm.p_soft, cl)
        for i in (0, 1, 4, 10):
            x = run.explain(i)
            row = run.algorithm.row_of_point[i]
            cols = np.array([int(s.split()[1]) for s in x.bars[0].labels])
            named = {b.title.split(" ")[0]: b.values for b in x.bars}
            np.testing.assert_allclose(named["availability"], A[row, cols], atol=1e-9)
            np.testing.assert_allclose(named["responsibility"], R[row, cols], atol=1e-9)
            if name == "ssap-g":
                np.testing.assert_allclose(named["cannot-link"], (S_hat - e.S)[row, cols], atol=1e-9)
            else:  # SCAP components: the node's own choice is its arg max alpha + rho
                assert x.choice == f"cand {int(np.argmax(A[row] + R[row]))}"


# -- every registered algorithm -------------------------------------------------------------------
def _all_algorithms():
    from pairlab.registry import get_registry

    return sorted(get_registry().names("algorithms"))


def _small_problem():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 0.8, (12, 2)), rng.normal(3, 0.8, (12, 2))])
    return Dataset(X, name="two-blobs"), Constraints([(0, 5), (13, 20), (2, 14)], [(1, 15), (3, 4)],
                                                     n_samples=24)


def _sizes(name):
    from pairlab.registry import get_registry

    names = {p.name for p in get_registry().algorithm(name).params}
    return {k: 2 for k in ("n_components", "n_clusters") if k in names}


@pytest.mark.parametrize("name", _all_algorithms())
def test_every_algorithm_explains_every_point_at_every_half_step(name):
    """Each explanation has numbers; where it names additive terms, they add up to the choice:
    the highlighted choice has the best total (for TVClust's sampler, the terms give eq. 13's
    probabilities)."""
    data, cons = _small_problem()
    with pytest.warns() if name in ("ssap-l", "em-pc") else _nothing():
        run = Run(name, data, cons, _sizes(name), seed=0)
    seen_terms = False
    for _ in range(6):
        for i in range(data.n_samples):
            e = run.explain(i)
            assert e is not None and e.point == i and e.bars and e.equation
            terms = e.terms
            if not terms:
                continue
            seen_terms = True
            score = sum((-1.0 if b.lower_is_better else 1.0) * np.asarray(b.values) for b in terms)
            if name == "tvclust":
                np.testing.assert_allclose(softmax(score), e.bars[0].values, atol=1e-9)
                continue
            best = terms[0].highlight
            assert all(b.highlight == best for b in terms)
            assert score[best] >= np.max(score) - 1e-9 * max(1.0, abs(np.max(score)))
        run.half_step()
    kinds = {"cop-kmeans", "soft-cop-kmeans", "lcvqe"}  # the choice is a rule beyond a score
    assert seen_terms or name in kinds


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# -- GMM and GM-PR --------------------------------------------------------------------------------
def test_gmm_terms_are_log_weight_and_log_density():
    run = Run("gmm", DATA6, None, {"n_components": 2}, seed=0)
    run.step()
    s = run.state
    logN = log_densities(s, X6)
    for i in range(6):
        e = run.explain(i)
        np.testing.assert_allclose(bars(e, "prior"), np.log(s.model["weights"]), atol=1e-12)
        np.testing.assert_allclose(bars(e, "distance"), logN[i], atol=1e-9)
        np.testing.assert_allclose(softmax(bars(e, "prior") + logN[i]), s.responsibilities[i],
                                   atol=1e-9)


def test_gmpr_link_term_matches_enumeration():
    # GM-PR (eq. 4-7): a must-linked pair shares one class draw; a cannot-linked pair draws two
    # different classes with the prior alpha_m alpha_m' / (1 - sum alpha^2)
    ml, cl = [(0, 1)], [(2, 3)]
    run = Run("gmpr", DATA6, Constraints(ml, cl, n_samples=6), {"n_components": 2}, seed=0)
    run.step()
    s = run.state
    w = np.log(s.model["weights"])
    logN = log_densities(s, X6)
    Z = np.array(list(itertools.product(range(2), repeat=6)))
    Z = Z[(Z[:, 0] == Z[:, 1]) & (Z[:, 2] != Z[:, 3])]
    # one alpha for the must-linked pair; the others' alphas as drawn (the cannot-link
    # normaliser 1 - sum alpha^2 is the same for every admissible Z)
    log_joint = w[Z[:, [0, 2, 3, 4, 5]]].sum(1) + logN[np.arange(6), Z].sum(1)
    post = np.exp(log_joint - logsumexp(log_joint))
    marg = np.stack([(post[:, None] * (Z == k)).sum(0) for k in range(2)], axis=1)
    for i in range(6):
        e = run.explain(i)
        np.testing.assert_allclose(e.bars[0].values, marg[i], atol=1e-8)
        np.testing.assert_allclose(bars(e, "distance"), logN[i], atol=1e-9)
        np.testing.assert_allclose(bars(e, "link term"), implied(marg[i], w + logN[i]), atol=1e-6)
    assert np.all(np.abs(bars(run.explain(5), "link term")) < 1e-9)


def test_ap_renumbered_labels_are_not_moves():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1.5, (15, 2)), rng.normal(2, 1.5, (15, 2))])
    run = Run("scssap", Dataset(X), Constraints([(0, 20), (1, 2)], [(3, 4)], n_samples=30), {},
              seed=1)
    renumbered = 0
    for _ in range(12):
        old_labels, old_ex = run.state.labels.copy(), run.state.model["exemplars"].copy()
        run.step()
        for i in np.flatnonzero(old_labels != run.state.labels):
            same = old_ex[i] == run.state.model["exemplars"][i]
            renumbered += bool(same)
            assert (run.explain(int(i)).before is None) == same
    assert renumbered
