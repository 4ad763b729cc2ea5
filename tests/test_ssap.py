"""SSAP-G (Givoni & Frey 2009) and SSAP-L (Leone, Sumedha & Weigt 2008): no links = affinity
propagation = scikit-learn; the messages against enumeration of their factors; the reductions
(meta-points, macro-nodes) against brute force; links honoured; SCAP's p -> 0 limit."""

import itertools
import warnings

import numpy as np
import pytest
from pairlab_builtins.algorithms.ap_choosers import ChooserAP
from pairlab_builtins.algorithms.ssap_g import SSAPG
from pairlab_builtins.algorithms.ssap_l import SSAPL
from scipy.sparse.csgraph import connected_components

from pairlab import Constraints, Dataset, Run
from pairlab.links import random_pairs


def data(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(30, 70)), int(rng.integers(1, 4))
    k = int(rng.integers(2, 5))
    centers = rng.uniform(-8, 8, size=(k, d))
    return centers[rng.integers(k, size=n)] + rng.normal(size=(n, d))


@pytest.mark.parametrize("cls, extra", [(SSAPG, {}), (SSAPL, {"p": np.inf})])
@pytest.mark.parametrize("seed, damping, preference", [(0, 0.5, None), (1, 0.75, None),
                                                       (2, 0.9, -20.0)])
def test_without_links_is_affinity_propagation(cls, extra, seed, damping, preference):
    from sklearn.cluster import AffinityPropagation

    X = data(seed)
    params = {"damping": damping, "preference": preference, "max_iter": 300}
    ap = Run("affinity-propagation", Dataset(X), None, params, seed=seed)
    ours = Run(cls, Dataset(X), None, {**params, **extra, "exemplar_rule": "refine"}, seed=seed)
    for _ in range(5):                                    # messages bit for bit
        ap.step()
        ours.step()
        np.testing.assert_array_equal(ours.algorithm._engine.A, ap.algorithm._engine.A)
        np.testing.assert_array_equal(ours.algorithm._engine.R, ap.algorithm._engine.R)
    ap.run()
    ours.run()
    assert ours.n_iter == ap.n_iter
    for a, b in zip(ours.history, ap.history, strict=True):
        np.testing.assert_array_equal(a.labels, b.labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = AffinityPropagation(damping=damping, preference=preference, max_iter=300,
                                 random_state=0).fit(X)
    np.testing.assert_array_equal(ours.state.labels, sk.labels_)
    np.testing.assert_array_equal(ours.state.extras["exemplar_indices"],
                                  sk.cluster_centers_indices_)


def _factor_message(rho_col, i, j, p):
    """Max-sum message from candidate j's consistency factor to h_ij, by enumeration: the factor
    costs p when j is chosen by some k != j but h_jj = 0."""
    n = rho_col.size
    best = {0: -np.inf, 1: -np.inf}
    for h in itertools.product((0, 1), repeat=n):
        chosen_by_others = any(h[k] for k in range(n) if k != j)
        f = -p if (h[j] == 0 and chosen_by_others) else 0.0
        val = f + sum(rho_col[k] * h[k] for k in range(n) if k != i)
        best[h[i]] = max(best[h[i]], val)
    return best[1] - best[0]


@pytest.mark.parametrize("p", [np.inf, 2.0, 0.3, 0.0])
def test_soft_availabilities_equal_the_enumerated_factor_messages(p):
    rng = np.random.default_rng(7)
    n = 5
    eng = ChooserAP(rng.normal(size=(n, n)), np.arange(n), damping=0.5, p=p)
    big = 1e6 if np.isinf(p) else p                      # -inf * 0 is avoided by a huge p
    for _ in range(3):
        eng.R[...] = rng.normal(scale=2.0, size=(n, n))
        eng.A[...] = 0.0
        eng._availabilities()
        for i, j in itertools.product(range(n), repeat=2):
            expected = _factor_message(eng.R[:, j], i, j, big)
            assert 0.5 * expected == pytest.approx(eng.A[i, j], abs=1e-12)


def test_cannot_link_messages_equal_the_enumerated_factor():
    """gamma_a<-b(j) = max over h_aj = 1 minus max over h_aj = 0 of the factor (-inf when both
    choose j) plus h_bj times the message from h_bj (alpha + rho - gamma_b<-a)."""
    rng = np.random.default_rng(3)
    S = rng.normal(size=(4, 6))
    eng = ChooserAP(S, np.array([0, 1, 2, 3, 3, 3]), damping=0.5, cl_rows=np.array([[0, 3]]))
    eng.A[...] = rng.normal(size=S.shape)
    eng.R[...] = rng.normal(size=S.shape)
    eng.gamma[...] = -np.abs(rng.normal(size=eng.gamma.shape))
    old = eng.gamma.copy()
    eng._cannot_link()
    for row, (a, b, rev) in enumerate([(0, 3, 1), (3, 0, 0)]):
        for j in range(6):
            msg_b = eng.A[b, j] + eng.R[b, j] - old[rev, j]
            one = max(v for hb, v in ((0, 0.0), (1, msg_b)) if hb == 0)   # both 1 is -inf
            zero = max(0.0, msg_b)
            assert eng.gamma[row, j] == pytest.approx(one - zero)
        np.testing.assert_allclose(eng.S_hat[a], S[a] + eng.gamma[row])


def test_meta_point_similarity_is_the_brute_force_one():
    X = data(4)[:12]
    c = Constraints([[0, 1], [1, 2], [5, 9]], [[0, 5], [3, 4]], n_samples=12)
    alg = SSAPG(Dataset(X), c, {})
    S_rows, _, row_of_point, cl = alg.build()
    S = alg.S
    groups = [np.flatnonzero(row_of_point == r) for r in range(S_rows.shape[0])]
    for r, g in enumerate(groups):
        for j in range(12):
            want = S[j, j] if j in g else max(S[i, j] for i in g)
            assert S_rows[r, j] == want
    assert {tuple(sorted(p)) for p in cl} == {(row_of_point[0], row_of_point[5]),
                                             (row_of_point[3], row_of_point[4])}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ssap_g_honours_links(seed):
    X = data(10 + seed)
    from sklearn.cluster import KMeans

    y = KMeans(3, n_init=3, random_state=seed).fit_predict(X)
    c = random_pairs(y, 12, 12, np.random.default_rng(seed))
    run = Run(SSAPG, Dataset(X), c, {"max_iter": 300}, seed=seed)
    for s in run.history:
        assert s.extras["broken_must_links"] == 0
    run.run()
    assert run.converged
    assert all(s.extras["broken_must_links"] == 0 for s in run.history)
    assert run.state.extras["broken_cannot_links"] == 0
    ex = run.state.model["exemplars"]
    assert np.all(ex[ex] == ex)                           # exemplars are their own exemplars


def test_ssap_g_drops_cannot_links_inside_a_group():
    X = data(1)
    c = Constraints([[0, 1], [1, 2]], [[0, 2], [3, 4]], n_samples=len(X))
    state = Run(SSAPG, Dataset(X), c, {}, seed=0).run()
    assert state.extras["ignored_cannot_links"] == 1
    assert state.labels[0] == state.labels[1] == state.labels[2]


def test_macro_nodes_and_must_links():
    X = data(5)
    n = len(X)
    c = Constraints([[0, 1], [1, 2], [7, 8]], None, n_samples=n)
    alg = SSAPL(Dataset(X), c, {})
    S_nodes, _, node, _ = alg.build()
    S = alg.S
    for a, b in itertools.product(range(S_nodes.shape[0]), repeat=2):
        A, B = np.flatnonzero(node == a), np.flatnonzero(node == b)
        want = max(S[i, i] for i in A) if a == b else max(S[i, j] for i in A for j in B)
        assert S_nodes[a, b] == want
    for p in (np.inf, 1.0):
        run = Run(SSAPL, Dataset(X), c, {"p": p}, seed=0)
        run.run()
        assert all(s.extras["broken_must_links"] == 0 for s in run.history)


def test_scap_p_zero_is_nearest_neighbour_components():
    """Leone et al.: p -> 0 (and no point choosing itself) makes every point select its most
    similar neighbour; the clusters are the components of that graph."""
    X = data(6)
    n = len(X)
    run = Run(SSAPL, Dataset(X), None, {"p": 0.0, "preference": -1e9, "max_iter": 50}, seed=0)
    state = run.run()
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    nn = D.argmin(axis=1)
    from scipy.sparse import csr_matrix

    _, comp = connected_components(csr_matrix((np.ones(n), (np.arange(n), nn)), shape=(n, n)),
                                   directed=False)
    same = comp[:, None] == comp[None, :]
    np.testing.assert_array_equal(state.labels[:, None] == state.labels[None, :], same)


def test_scap_objective_is_similarity_minus_p_per_inconsistent_exemplar():
    X = data(8)
    run = Run(SSAPL, Dataset(X), None, {"p": 0.5, "max_iter": 40}, seed=0)
    state = run.run()
    e = run.algorithm._engine
    c = np.argmax(e.A + e.R, axis=1)
    n = len(c)
    inconsistent = {int(j) for i, j in enumerate(c) if j != i and c[j] != j}
    want = sum(e.S[i, c[i]] for i in range(n)) - 0.5 * len(inconsistent)
    assert state.objective == pytest.approx(want)
    assert state.extras["p"] == 0.5
