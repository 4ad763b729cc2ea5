"""PPC's mean field (eq. 3.5, factor 2): stale-node sweeps against full sweeps and a node-by-node
loop, and the mean-field free energy (eq. 3.3) never decreasing from one sweep to the next."""

from __future__ import annotations

import numpy as np
import pytest
from pairlab_builtins.algorithms.ppc import PenalizedProbabilisticClustering
from scipy.special import entr

from pairlab import Constraints, Dataset
from pairlab.benchcases.ppc import texture_grid


def grid_problem(side: int, scale: float = 1.0, seed: int = 0):
    """The bench's texture grid (4-neighbour links, eq. 5.2's weight times ``scale``) and the
    unaries U = log pi_k + log N(x_i | k) of a GMM start, in the mean-field node order."""
    X, _, cons, w = texture_grid(side, 5, 4, seed=seed)
    params = {"n_components": 4, "inference": "mean-field", "must_link_weight": w * scale}
    algo = PenalizedProbabilisticClustering(Dataset(X), cons, params, np.random.default_rng(seed))
    model = algo.initialize().model
    U = algo.weighted_log_prob(X, model["weights"], model["means"], model["precisions_cholesky"])
    return algo._approx, U[algo._approx.nodes]


def random_graph_problem(seed: int):
    """A random sparse graph (greedy colouring gives more than two classes) with soft links and
    do-not-links of random weights."""
    rng = np.random.default_rng(seed)
    n, M = 300, 3
    pairs = np.unique(np.sort(rng.integers(0, n, size=(900, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    ml, cl = pairs[: len(pairs) // 2], pairs[len(pairs) // 2:]
    cons = Constraints(ml, cl, n_samples=n, confidence=rng.uniform(0.55, 0.95, len(pairs)))
    algo = PenalizedProbabilisticClustering(Dataset(rng.normal(size=(n, 2))), cons, {
        "n_components": M, "inference": "mean-field", "weighting": "confidence"}, np.random.default_rng(seed))
    ap = algo._approx
    return ap, rng.normal(scale=2.0, size=(ap.nodes.size, M))


#: a grid, a grid strong enough for the softmax path (no exp(U) taken once), a random graph
THREE_PROBLEMS = pytest.mark.parametrize(
    "make", [lambda: grid_problem(40), lambda: grid_problem(24, scale=60.0),
             lambda: random_graph_problem(0)], ids=["grid", "grid-no-shift", "random-graph"])


def softmax(a):
    p = np.exp(a - a.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def free_energy(ap, U, Q):
    """Eq. 3.3 for a factorised Q: E_Q[sum_i U_i(z_i) + sum_{i != j} W_ij delta(z_i, z_j)] + H(Q)
    (ordered pairs, hence the factor 2 on each unordered one), written out independently."""
    W = ap.W.toarray()
    return float((Q * U).sum() + np.einsum("ij,ik,jk->", W, Q, Q) + entr(Q).sum())


@THREE_PROBLEMS
def test_stale_node_sweeps_equal_full_sweeps_bit_for_bit_at_tol_zero(make):
    """With tol = 0 only nodes whose neighbours did not move at all are skipped."""
    ap, U = make()
    Q0 = softmax(U)
    for max_iter in (1, 3, 17, 60):
        fast, it_fast = ap.mean_field(U, Q0, max_iter, 0.0, active_set=True)
        full, it_full = ap.mean_field(U, Q0, max_iter, 0.0, active_set=False)
        assert it_fast == it_full
        assert np.array_equal(fast, full), (max_iter, np.abs(fast - full).max())


def jacobi_residual(ap, U, Q):
    """max_i,k |eq. 3.5 at Q - Q_i(k)|: how far one update of any node would move it."""
    W2 = 2.0 * ap.W.toarray()
    return float(np.abs(softmax(U + W2 @ Q) - Q).max())


@THREE_PROBLEMS
@pytest.mark.parametrize("tol", [1e-5, 1e-8])
def test_stale_node_sweeps_converge_as_far_as_full_sweeps(make, tol):
    """With tol > 0, nodes whose field moved by less than tol / 8 are skipped: the fixed point is
    reached to the same tolerance (no node's update would move it by more than a few tol) and is
    the full sweeps' fixed point up to that tolerance."""
    ap, U = make()
    Q0 = softmax(U)
    fast, it_fast = ap.mean_field(U, Q0, 5000, tol, active_set=True)
    full, it_full = ap.mean_field(U, Q0, 5000, tol, active_set=False)
    assert it_fast < 5000 and it_full < 5000
    assert jacobi_residual(ap, U, fast) <= 4 * tol
    assert jacobi_residual(ap, U, full) <= 4 * tol
    np.testing.assert_allclose(fast, full, rtol=0, atol=1000 * tol)


def test_grid_no_shift_case_takes_the_softmax_path():
    ap, _ = grid_problem(24, scale=60.0)
    assert not ap.shift_once and len(ap.blocks) == 2
    ap, _ = random_graph_problem(0)
    assert len(ap.blocks) > 2


@pytest.mark.parametrize("make", [lambda: grid_problem(16), lambda: random_graph_problem(1)],
                         ids=["grid", "random-graph"])
def test_sweeps_are_eq_3_5_node_by_node(make):
    """Full sweeps equal the paper's sequential update of eq. 3.5, one node at a time in colour
    order (nodes of a colour share no relation), to round-off."""
    ap, U = make()
    W2 = 2.0 * ap.W.toarray()
    Q = softmax(U)
    for sweeps in range(1, 6):
        for i in range(U.shape[0]):
            Q[i] = softmax((U[i] + W2[i] @ Q)[None])[0]
        for active in (True, False):
            got, _ = ap.mean_field(U, softmax(U), sweeps, 0.0, active_set=active)
            np.testing.assert_allclose(got, Q, rtol=0, atol=1e-12)


@pytest.mark.parametrize("make", [lambda: grid_problem(32), lambda: grid_problem(24, scale=3.0),
                                  lambda: random_graph_problem(2)],
                         ids=["grid", "grid-strong", "random-graph"])
@pytest.mark.parametrize("tol", [0.0, 1e-6])
def test_free_energy_never_decreases_from_sweep_to_sweep(make, tol):
    """Stale-node sweeps (forced on these small graphs), also when tol > 0 lets them skip nodes."""
    ap, U = make()
    Q0 = softmax(U)
    energies = [free_energy(ap, U, Q0)]
    for sweeps in range(1, 31):
        Q, _ = ap.mean_field(U, Q0, sweeps, tol, active_set=True)
        energies.append(free_energy(ap, U, Q))
        assert np.isclose(ap.bound(U, Q), energies[-1], rtol=1e-12, atol=1e-9)
    steps = np.diff(energies)
    assert np.all(steps >= -1e-9 * np.abs(energies[1:])), steps
    assert steps[0] > 0


def test_an_infinite_tolerance_still_makes_one_sweep():
    ap, U = grid_problem(16)
    Q0 = softmax(U)
    fast, it = ap.mean_field(U, Q0, 50, np.inf, active_set=True)
    full, it_full = ap.mean_field(U, Q0, 50, np.inf, active_set=False)
    assert it == it_full == 1 and np.array_equal(fast, full)


def test_stale_rows_times_q_equal_scipys_rows_bit_for_bit():
    """The stale rows' product adds each row's entries in scipy's order: equal to W2[rows] @ Q
    for a grid's rows, rows of 0 to 3 entries, and (through scipy) rows of unequal lengths."""
    import scipy.sparse as sp
    from pairlab_builtins.algorithms import ppc_mean_field as mf

    rng = np.random.default_rng(3)
    ap, _U = grid_problem(40)
    _sl, grid = ap.blocks[0]
    Q = rng.random((ap.W.shape[0], 4))
    few = np.zeros((400, 400))                           # rows of 0, 1, 2 or 3 entries
    for i, k in enumerate(rng.integers(0, 4, 400)):
        few[i, rng.choice(400, k, replace=False)] = rng.normal(size=k)
    hub = sp.random(400, 400, density=0.004, random_state=4, format="lil")
    hub[7, :200] = 1.5                                   # one row far longer than the others
    for W2, q in ((grid, Q), (sp.csr_matrix(few), Q[:400]), (hub.tocsr(), Q[:400])):
        for rows in (np.arange(min(W2.shape[0], mf._GATHER_ROWS)),
                     np.sort(rng.choice(W2.shape[0], 90, replace=False)), np.array([7, 8]),
                     np.array([], int)):
            assert np.array_equal(mf._rows_times(W2, rows, q), (W2 @ q)[rows])


def test_small_graphs_are_swept_whole_and_large_ones_track_stale_nodes(monkeypatch):
    from pairlab_builtins.algorithms import ppc_mean_field as mf

    ap, U = grid_problem(24)
    calls = []
    real = mf._Staleness
    monkeypatch.setattr(mf, "_Staleness", lambda *a: calls.append(a) or real(*a))
    auto, _ = ap.mean_field(U, softmax(U), 40, 1e-5)          # 288 nodes a class: whole
    assert not calls
    assert np.array_equal(auto, ap.mean_field(U, softmax(U), 40, 1e-5, active_set=False)[0])
    monkeypatch.setattr(mf, "ACTIVE_MIN_CLASS", 288)
    tracked, _ = ap.mean_field(U, softmax(U), 40, 1e-5)
    assert len(calls) == 1
    assert np.array_equal(tracked, ap.mean_field(U, softmax(U), 40, 1e-5, active_set=True)[0])
