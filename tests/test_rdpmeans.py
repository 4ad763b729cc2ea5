"""RDP-means and DP-means against a literal implementation of Algorithm 1 and the paper's claims."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
import scipy.sparse as sp
from pairlab_builtins.algorithms import rdpmeans as R
from pairlab_builtins.algorithms import rdpmeans_passes as P

from pairlab import Constraints, Dataset, InvalidInputError, Run, State, make_estimator
from pairlab.benchcases.rdpmeans import linked_blobs
from pairlab.links import random_pairs
from pairlab.testing import check_algorithm

# -- a literal Algorithm 1, point by point, centre by centre, link by link ---------------------


def _div(x, c, divergence):
    if divergence == "kl":
        return float(np.sum(x * np.log(x / c)))
    d2 = float(np.sum((x - c) ** 2))
    return float(np.sqrt(d2)) if divergence == "euclidean" else d2


def reference(X, cons, lam, n_passes, seed, xi0, xi_rate, xi1=1.0, xi2=1.0,
              divergence="sqeuclidean", smoothing=0.3):
    """Algorithm 1 as printed, with the random order of pairlab (one permutation per pass)."""
    rng = np.random.default_rng(seed)
    if divergence == "kl":
        X = (X + smoothing) / (X + smoothing).sum(axis=1, keepdims=True)
    n = len(X)
    friends = [[] for _ in range(n)]
    strangers = [[] for _ in range(n)]
    for (i, j), c in zip(cons.must_link, cons.ml_confidence, strict=True):
        friends[i].append((j, c))
        friends[j].append((i, c))
    for (i, j), c in zip(cons.cannot_link, cons.cl_confidence, strict=True):
        strangers[i].append((j, c))
        strangers[j].append((i, c))
    z = [0] * n
    centers = [X.mean(axis=0)]
    history = []
    xi = xi0
    for _ in range(n_passes):
        for i in rng.permutation(n):
            dist = []
            for k, mu in enumerate(centers):
                f = sum(c for j, c in friends[i] if z[j] == k)
                s = sum(c for j, c in strangers[i] if z[j] == k)
                dist.append(_div(X[i], mu, divergence) - xi1 * xi * f + xi2 * xi * s)
            k = int(np.argmin(dist))
            if dist[k] < lam:
                z[i] = k
            else:
                centers.append(X[i].copy())
                z[i] = len(centers) - 1
        used = sorted(set(z))
        remap = {k: r for r, k in enumerate(used)}
        z = [remap[k] for k in z]
        zz = np.array(z)
        centers = [X[zz == r].mean(axis=0) for r in range(len(used))]
        history.append((zz, np.array(centers), xi))
        xi *= xi_rate
    return history


def objective_once(X, labels, centers, cons, lam, xi1, xi2, divergence="sqeuclidean"):
    """Eq. 20 with every link counted once (brute force)."""
    div = sum(_div(X[i], centers[labels[i]], divergence) for i in range(len(X)))
    ml = sum(c for (i, j), c in zip(cons.must_link, cons.ml_confidence, strict=True)
             if labels[i] == labels[j])
    cl = sum(c for (i, j), c in zip(cons.cannot_link, cons.cl_confidence, strict=True)
             if labels[i] == labels[j])
    return div + lam * len(set(labels.tolist())) - xi1 * ml + xi2 * cl


def blobs(seed, n=45, k=3, spread=3.0, std=1.0):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-spread, spread, size=(k, 2))
    y = np.arange(n) % k
    return centers[y] + rng.normal(scale=std, size=(n, 2)), y


def run_states(name, X, cons, params, seed, passes):
    run = Run(name, Dataset(X), cons, params, seed=seed)
    for _ in range(passes):
        run.step()
    return run


# -- Algorithm 1 exactly ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [None, "push", "pull"])
@pytest.mark.parametrize("seed", range(5))
def test_matches_literal_algorithm_1(seed, mode):
    X, y = blobs(seed)
    cons = random_pairs(y, 12, 12, np.random.default_rng(seed))
    params = {"lambda_": 4.0, "xi0": 0.3, "xi_rate": 2.0, "xi1": 1.0, "xi2": 0.5}
    run = Run("rdpmeans", Dataset(X), cons, params, seed=seed)
    run.algorithm._force_mode = mode
    ref = reference(X, cons, 4.0, 8, seed, 0.3, 2.0, xi2=0.5)
    for (z, centers, xi), state in zip(ref, (run.step() for _ in range(8)), strict=True):
        np.testing.assert_array_equal(state.labels, z)
        np.testing.assert_allclose(state.model["centers"], centers, rtol=1e-12, atol=1e-12)
        assert state.extras["xi"] == xi
        expected = objective_once(X, z, centers, cons, 4.0, xi, 0.5 * xi)
        assert state.objective == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_matches_literal_algorithm_1_with_confidences_kl_and_euclidean():
    rng = np.random.default_rng(3)
    topics = rng.dirichlet(np.ones(6) * 0.3, size=3)
    y = np.arange(36) % 3
    X = np.array([rng.multinomial(40, topics[c]) for c in y], dtype=float)
    ml, cl = random_pairs(y, 10, 10, rng).must_link, random_pairs(y, 10, 10, rng).cannot_link
    cons = Constraints(ml, cl, n_samples=36, confidence=rng.uniform(0.2, 1.0, 20))
    for divergence, lam in (("kl", 0.4), ("euclidean", 6.0)):
        params = {"lambda_": lam, "xi0": 0.01, "divergence": divergence}
        run = Run("rdpmeans", Dataset(X), cons, params, seed=1)
        ref = reference(X, cons, lam, 6, 1, 0.01, 2.0, divergence=divergence)
        for z, centers, _ in ref:
            state = run.step()
            np.testing.assert_array_equal(state.labels, z)
            np.testing.assert_allclose(state.model["centers"], centers, rtol=1e-12, atol=1e-12)


def test_push_and_pull_sweeps_agree_on_larger_problems():
    """The two inner loops (propagate each move / recount links at each visit) make one choice."""
    for seed in range(3):
        X, y = blobs(seed, n=400, k=5, spread=6.0, std=1.5)
        cons = random_pairs(y, 600, 1500, np.random.default_rng(seed))
        runs = []
        for mode in ("push", "pull", None):
            run = Run("rdpmeans", Dataset(X), cons, {"k": 5}, seed=seed)
            run.algorithm._force_mode = mode
            runs.append([run.step() for _ in range(12)])
        for a, b, c in zip(*runs, strict=True):
            assert a.equals(b) and a.equals(c)
    modes = {s.extras["sweep"] for s in runs[2]}
    assert modes == {"push", "pull"}  # the cost model used both on this run


HEAVY = {"k": 10, "xi0": 0.5}


@functools.cache
def _heavy_problem():
    """The bench's data on 400 points (~20 links each) with xi0 = 0.5 and the literal Algorithm
    1's first 8 passes: 384 points move in pass 1 as ten clusters open, 59 in pass 2, and
    moves chain through links in the later passes."""
    X, _, cons = linked_blobs(400, 10, 0.05, seed=0)
    run = Run("rdpmeans", Dataset(X), cons, HEAVY, seed=0)
    lam = run.algorithm.lambda_value
    return X, cons, reference(X, cons, lam, 8, 0, 0.5, 2.0)


@pytest.mark.parametrize("mode", ["push", "pull"])
def test_integer_and_float_link_scores_match_literal_algorithm_1_on_heavy_passes(mode):
    """Link scores kept as int16 steps or as floats, with 16- or 32-bit partner indices, give
    Algorithm 1's assignments on passes where many points move, and the same states, bit for
    bit."""
    X, cons, ref = _heavy_problem()
    runs = []
    for as_float, indices in ((False, None), (True, None), (False, np.int32)):
        run = Run("rdpmeans", Dataset(X), cons, HEAVY, seed=0)
        run.algorithm._force_mode = mode
        links = run.algorithm.links
        assert links.exact and links.unit == 1.0 and links.steps.dtype == np.int16
        assert links.indices.dtype == np.uint16
        if as_float:
            links = dataclasses.replace(links, steps=links.data)
        if indices is not None:
            links = dataclasses.replace(links, indices=links.indices.astype(indices))
        run.algorithm.links = links
        runs.append([run.step() for _ in range(8)])
    for (z, centers, _), a, *others in zip(ref, *runs, strict=True):
        np.testing.assert_array_equal(a.labels, z)
        np.testing.assert_allclose(a.model["centers"], centers, rtol=1e-12, atol=1e-12)
        for b in others:
            assert a.equals(b) and a.objective == b.objective
    moves = [s.extras["n_changed"] for s in runs[0]]
    assert moves[0] > 300 and max(moves[1:]) > 40  # heavy passes


def test_link_weights_as_integer_steps():
    """Weights that are multiples of a power of two become integer steps in the smallest type
    that holds every row's sum; others stay floats."""
    def links(ml, cl, n, confidence=None, xi1=1.0, xi2=1.0):
        cons = Constraints(np.array(ml).reshape(-1, 2), np.array(cl).reshape(-1, 2), n_samples=n,
                           confidence=confidence)
        return P.Links.build(cons, xi1, xi2)

    unit = links([[0, 1]], [[1, 2]], 3)
    assert (unit.unit, unit.steps.dtype, unit.steps.tolist()) == (1.0, np.int16, [1, 1, -1, -1])
    half = links([[0, 1]], [[1, 2]], 3, xi2=0.5)
    assert half.unit == 0.5 and half.steps.dtype == np.int16
    np.testing.assert_array_equal(half.steps * half.unit, half.data)
    odd = links([[0, 1]], [[1, 2]], 3, confidence=np.array([0.3, 1.0]))
    assert not odd.exact and odd.unit == 1.0 and odd.steps is odd.data
    n = 40_000  # a star: point 0 has 39,999 unit links, beyond int16
    star = links(np.column_stack([np.zeros(n - 1, int), np.arange(1, n)]), [], n)
    assert star.steps.dtype == np.int32
    labels = np.arange(n) % 3
    np.testing.assert_array_equal(star.step_scores(labels, 3).T, star.scores(labels, 3))


def test_partner_indices_in_the_smallest_type_that_holds_them():
    """uint16 while every point index fits (n <= 65,536), int32 beyond; same partners."""
    assert P.partner_index_type(1 << 16) is np.uint16 and P.partner_index_type(65_537) is np.int32
    for n in (1 << 16, 70_000):
        pairs = np.array([[0, n - 1], [1, n - 2], [n - 3, 2]])
        links = P.Links.build(Constraints(pairs[:2], pairs[2:], n_samples=n), 1.0, 1.0)
        assert links.indices.dtype == P.partner_index_type(n)
        np.testing.assert_array_equal(links.indices, links.matrix.indices)
        assert links.indices.max() == n - 1


def test_link_scores_match_scipy_and_moves_update_them():
    """scores / step_scores (cluster-major) add each row in CSR order, as scipy's toarray;
    moved_scores from the
    scores of earlier labels equals the scores afresh; labels out of range are refused."""
    rng = np.random.default_rng(4)
    _, y = blobs(4, n=300, k=4)
    cons = random_pairs(y, 400, 400, rng)
    conf = Constraints(cons.must_link, cons.cannot_link, n_samples=300,
                       confidence=rng.uniform(0.1, 1.0, 800))
    for c in (cons, conf):
        links = P.Links.build(c, 1.0, 0.5)
        before, after = rng.integers(4, size=300), rng.integers(6, size=300)
        after[:200] = before[:200]
        M = links.matrix.tocsr()
        expected = sp.csr_matrix((M.data, after[M.indices], M.indptr), shape=(300, 6)).toarray()
        np.testing.assert_array_equal(links.scores(after, 6), expected)
        np.testing.assert_array_equal(links.step_scores(after, 6).T * links.unit, expected)
        moved = links.moved_scores(links.step_scores(before, 4), before, after, 6)
        np.testing.assert_array_equal(moved, links.step_scores(after, 6))
        with pytest.raises(ValueError, match=r"\[0, 4\)"):
            links.scores(after, 4)


def test_trace_mode_reproduces_the_passes():
    X, y = blobs(7, n=30)
    cons = random_pairs(y, 8, 8, np.random.default_rng(0))
    plain = Run("rdpmeans", Dataset(X), cons, {"k": 3}, seed=2)
    traced = Run("rdpmeans", Dataset(X), cons, {"k": 3, "trace_every": 7}, seed=2)
    for _ in range(4):
        expected = plain.step()
        visited = []
        for _ in range(5):  # ceil(30 / 7) states per pass
            state = traced.step()
            visited.extend(state.extras["visited"].tolist())
        assert "pass_context" not in state.extras
        assert sorted(visited) == list(range(30))
        np.testing.assert_array_equal(state.labels, expected.labels)
        np.testing.assert_array_equal(state.model["centers"], expected.model["centers"])
        assert state.objective == expected.objective
    middle = traced.history[2]
    assert "pass_context" in middle.extras and len(middle.extras["visited"]) == 7


# -- the paper's claims -------------------------------------------------------------------------


@pytest.mark.parametrize("off", [{"xi0": 0.0}, {"xi1": 0.0, "xi2": 0.0}, None])
def test_xi_zero_is_dp_means(off):
    X, y = blobs(11, n=120, k=4, spread=5.0)
    cons = random_pairs(y, 40, 40, np.random.default_rng(1))
    a = Run("rdpmeans", Dataset(X), cons if off else None, {"k": 4, **(off or {})}, seed=5)
    b = Run("dpmeans", Dataset(X), cons, {"k": 4}, seed=5)
    a.run(max_iter=40)
    b.run(max_iter=40)
    assert a.n_iter == b.n_iter
    for s, t in zip(a.history, b.history, strict=True):
        np.testing.assert_array_equal(s.labels, t.labels)
        np.testing.assert_array_equal(s.model["centers"], t.model["centers"])
        assert s.objective == t.objective


@pytest.mark.parametrize("divergence", ["sqeuclidean", "kl"])
def test_objective_never_increases_with_fixed_xi(divergence):
    for seed in range(12):
        rng = np.random.default_rng(seed)
        if divergence == "kl":
            topics = rng.dirichlet(np.ones(5), size=3)
            y = rng.integers(3, size=50)
            X = np.array([rng.multinomial(30, topics[c]) for c in y], dtype=float)
            lam = rng.uniform(0.05, 0.5)
        else:
            X, y = blobs(seed, n=50, k=3, spread=2.0, std=1.2)
            lam = rng.uniform(1.0, 8.0)
        noisy = np.where(rng.random(50) < 0.3, rng.integers(3, size=50), y)
        cons = random_pairs(noisy, 25, 25, rng)  # noisy side information, even contradictory
        params = {"lambda_": lam, "xi0": rng.uniform(0.05, 3.0), "xi_rate": 1.0,
                  "xi1": rng.uniform(0.2, 2), "xi2": rng.uniform(0.2, 2), "divergence": divergence}
        run = Run("rdpmeans", Dataset(X), cons, params, seed=seed)
        run.run(max_iter=15)
        obj = run.objectives
        assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[1:]) + 1e-12), (seed, obj)
        assert obj[-1] < obj[0]


def test_objective_counts_each_link_once_and_the_literal_double_count_can_rise():
    """Algorithm 1 moves x_1 from the cluster of its may-link partner to the nearer centre: the
    objective with each link once falls by 0.05, the literal double sum of eq. 20 rises by 0.1."""
    X = np.array([[-0.2], [0.6], [1.0], [1.1], [0.9]])
    cons = Constraints([[0, 1]], n_samples=5)
    centers = np.array([[0.0], [1.0]])
    start = State(0, np.array([0, 0, 1, 1, 1]), model={"centers": centers}, extras={"pass": 0})
    algo = R.RDPMeans(Dataset(X), cons, {"lambda_": 10.0, "xi0": 0.15, "xi_rate": 1.0,
                                         "trace_every": 1}, np.random.default_rng(1))
    state = start  # visiting order 4, 0, 1, 2, 3
    while state.extras.get("visited", [None])[0] != 1:
        previous, state = state, algo.step(state)
    assert previous.labels[1] == 0 and state.labels[1] == 1
    once = [objective_once(X, s.labels, centers, cons, 10.0, 0.15, 0.15) for s in (previous, state)]
    twice = [o - 0.15 * (s.labels[0] == s.labels[1]) for o, s in zip(once, (previous, state),
                                                                   strict=True)]
    assert once[1] - once[0] == pytest.approx(-0.05)
    assert twice[1] - twice[0] == pytest.approx(0.1)
    assert "pass_context" in state.extras  # mid-pass: the centres have not moved
    assert state.objective == pytest.approx(once[1], rel=1e-12)


def quadrants(seed, n=80):
    """Two blobs far apart, each split in two classes by the sign of its second coordinate."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal([-6, 0], 1.0, size=(n // 2, 2)), rng.normal([6, 0], 1.0, size=(n // 2, 2))])
    return X, (X[:, 0] > 0) * 2 + (X[:, 1] > 0)


@pytest.mark.parametrize("seed", range(4))
def test_large_xi_honours_consistent_links(seed):
    """DP-means (lambda from k = 2) sees two clusters; the links ask for four. Once xi is large
    every must-link ends inside a cluster and every cannot-link across two."""
    X, y = quadrants(seed)
    cons = random_pairs(y, 10, 10, np.random.default_rng(seed))
    dp = Run("dpmeans", Dataset(X), cons, {"k": 2}, seed=seed)
    dp.run()
    assert cons.satisfied_fraction(dp.state.labels) < 1.0
    run = Run("rdpmeans", Dataset(X), cons, {"k": 2}, seed=seed)
    run.run()
    assert run.converged and run.state.extras["xi"] > 1e3
    ml, cl = cons.satisfied(run.state.labels)
    assert ml.all() and cl.all()


def test_several_clusters_empty_in_one_pass_are_renumbered():
    """Clusters 1 and 3 of 5 lose their only points in the same pass (stale centres far away)."""
    X = np.array([[0.0], [0.2], [-0.1], [5.2], [5.0], [4.9], [10.3], [10.0], [9.8], [0.1]])
    labels = np.array([0, 0, 0, 1, 2, 2, 3, 4, 4, 0])
    centers = np.array([[0.05], [100.0], [5.0], [-100.0], [10.0]])
    cons = Constraints([[3, 4], [6, 7]], [[0, 4]], n_samples=10)
    start = State(0, labels, model={"centers": centers}, extras={"pass": 0})
    algo = R.RDPMeans(Dataset(X), cons, {"lambda_": 4.0, "xi0": 0.01}, np.random.default_rng(0))
    state = algo.step(start)
    np.testing.assert_array_equal(state.labels, [0, 0, 0, 1, 1, 1, 2, 2, 2, 0])
    np.testing.assert_allclose(state.model["centers"].ravel(),
                               [X[[0, 1, 2, 9]].mean(), X[3:6].mean(), X[6:9].mean()])
    assert state.extras["n_changed"] == 2
    expected = objective_once(X, state.labels, state.model["centers"], cons, 4.0, 0.01, 0.01)
    assert state.objective == pytest.approx(expected, rel=1e-12)
    # the link scores kept for the next pass follow the renumbering
    following = algo.step(state)
    expected = objective_once(X, following.labels, following.model["centers"], cons, 4.0, 0.02, 0.02)
    assert following.objective == pytest.approx(expected, rel=1e-12)


def test_new_clusters_open_and_stop_rule():
    X, _ = blobs(4, n=60, k=4, spread=8.0, std=0.5)
    run = Run("rdpmeans", Dataset(X), None, {"k": 4, "stable_passes": 3}, seed=0)
    assert run.step().n_clusters > 1  # from one cluster, lambda opens new ones
    run.run()
    assert run.converged and run.n_iter < run.max_iter
    counts = [s.extras["unchanged_passes"] for s in run.history]
    assert counts[-4:] == [0, 1, 2, 3] and max(counts[:-1]) < 3  # stopped at the first 3
    assert all(np.array_equal(s.labels, run.state.labels) for s in run.history[-4:])
    assert run.history[-4].extras["n_changed"] > 0


def test_xi1_weighs_may_links_and_xi2_may_not_links():
    X, y = blobs(5, n=60, k=3, spread=1.5)
    cons = random_pairs(y, 30, 30, np.random.default_rng(5))
    only_ml = Constraints(cons.must_link, None, n_samples=60)
    only_cl = Constraints(None, cons.cannot_link, n_samples=60)
    for off, kept in (({"xi2": 0.0}, only_ml), ({"xi1": 0.0}, only_cl)):
        a = run_states("rdpmeans", X, cons, {"k": 3, **off}, 1, 12)
        b = run_states("rdpmeans", X, kept, {"k": 3, **off}, 1, 12)
        assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))
    a = run_states("rdpmeans", X, cons, {"k": 3, "xi1": 2.0, "xi2": 0.5}, 1, 12)
    b = run_states("rdpmeans", X, cons, {"k": 3, "xi1": 0.5, "xi2": 2.0}, 1, 12)
    assert not np.array_equal(a.state.labels, b.state.labels)
    assert a.state.extras["xi1"] == 4 * a.state.extras["xi2"]


def test_xi_schedule_and_cap():
    algo = R.RDPMeans(Dataset(np.zeros((3, 1)) + np.arange(3)[:, None]), None,
                      {"xi0": 0.001, "xi_rate": 2.0})
    assert [algo.xi_of_pass(t) for t in (0, 1, 2, 3)] == [0.001, 0.001, 0.002, 0.004]
    assert algo.xi_of_pass(5000) == P.XI_MAX


def test_determinism_for_a_seed():
    X, y = blobs(8, n=150, k=4)
    cons = random_pairs(y, 50, 50, np.random.default_rng(0))
    a = Run("rdpmeans", Dataset(X), cons, {"k": 4}, seed=3)
    b = Run("rdpmeans", Dataset(X), cons, {"k": 4}, seed=3)
    a.run(max_iter=30)
    b.run(max_iter=30)
    assert len(a.history) == len(b.history)
    assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))
    c = Run("rdpmeans", Dataset(X), cons, {"k": 4}, seed=4)
    c.step()
    assert not np.array_equal(c.state.labels, a.history[1].labels) or \
        c.state.objective != a.history[1].objective


@pytest.mark.parametrize("cls", [R.RDPMeans, R.DPMeans])
def test_plugin_contract(cls):
    check_algorithm(cls)


# -- lambda ------------------------------------------------------------------------------------


def test_lambda_heuristics_by_brute_force():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2))
    geo = P.Geometry(X, "sqeuclidean", 0.3)
    for k in (1, 2, 5):
        T = [X.mean(axis=0)]
        for _ in range(k):
            d = np.array([min(np.sum((x - t) ** 2) for t in T) for x in X])
            lam = d.max()
            T.append(X[d.argmax()])
        assert P.farthest_first_lambda(geo, k) == pytest.approx(lam, rel=1e-12)
        d_mean = np.sort([np.sum((x - X.mean(axis=0)) ** 2) for x in X])[::-1]
        assert P.kth_mean_distance_lambda(geo, k) == pytest.approx(d_mean[k - 1], rel=1e-12)
    run = Run("dpmeans", Dataset(X), None, {"k": 5, "lambda_heuristic": "kth_mean_distance"})
    assert run.state.extras["lambda"] == pytest.approx(d_mean[4], rel=1e-12)
    run = Run("dpmeans", Dataset(X), None, {"lambda_": 2.5})
    assert run.state.extras["lambda"] == 2.5


# -- inputs --------------------------------------------------------------------------------------


def test_clear_errors():
    X = np.arange(12, dtype=float).reshape(6, 2)
    with pytest.raises(InvalidInputError, match="k=7 exceeds the number of points"):
        Run("rdpmeans", Dataset(X), None, {"k": 7})
    with pytest.raises(InvalidInputError, match="too few distinct points for k"):
        Run("rdpmeans", Dataset(np.ones((5, 2))), None, {"k": 2})
    with pytest.raises(InvalidInputError, match="non-negative counts"):
        Run("rdpmeans", Dataset(X - 3), None, {"divergence": "kl"})
    with pytest.raises(InvalidInputError, match="must be > 0"):
        Run("rdpmeans", Dataset(X), None, {"lambda_": 0.0})
    with pytest.raises(InvalidInputError, match="must be one of"):
        Run("rdpmeans", Dataset(X), None, {"divergence": "cosine"})
    with pytest.raises(InvalidInputError, match="Did you mean 'xi0'"):
        Run("rdpmeans", Dataset(X), None, {"xi_0": 1.0})
    bad = State(0, np.array([0, 0, 1, 1, 2, 2]), model={"centers": np.zeros((2, 2))})
    with pytest.raises(InvalidInputError, match="expected at least 3 centres"):
        R.RDPMeans(Dataset(X), None, {"lambda_": 1.0}).step(bad)


def test_too_many_clusters_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(P, "TABLE_LIMIT", 200)
    X, _ = blobs(0, n=40)
    run = Run("rdpmeans", Dataset(X), None, {"lambda_": 1e-6})
    with pytest.raises(InvalidInputError, match="increase lambda_"):
        run.step()


def test_estimator_and_predict():
    X, y = blobs(1, n=90, k=3, spread=6.0, std=0.6)
    cons = random_pairs(y, 10, 10, np.random.default_rng(0))
    est = make_estimator("rdpmeans", k=3, random_state=0)
    labels = est.fit_predict(X, constraints=cons)
    assert est.converged_ and est.centers_.shape == (len(set(labels)), 2)
    nearest = ((X[:, None, :] - est.centers_[None]) ** 2).sum(axis=2).argmin(axis=1)
    np.testing.assert_array_equal(est.predict(X), nearest)  # unseen points carry no links
    unlinked = np.setdiff1d(np.arange(90), np.r_[cons.must_link.ravel(), cons.cannot_link.ravel()])
    np.testing.assert_array_equal(nearest[unlinked], labels[unlinked])
    counts = np.random.default_rng(0).poisson(3.0, size=(20, 4))
    est = make_estimator("dpmeans", k=2, divergence="kl", random_state=0).fit(counts)
    proba = est.predict_proba(counts[:5])
    assert proba.shape == (5, est.centers_.shape[0]) and np.all(proba.sum(axis=1) == 1)
    with pytest.raises(InvalidInputError, match="non-negative counts"):
        est.predict(-counts[:2])
