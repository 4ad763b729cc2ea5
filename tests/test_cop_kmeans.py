"""Built-in COP-KMeans and soft COP-KMeans (Wagstaff et al. 2001; Lu & Leen's soft-CKmeans)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pairlab_builtins.algorithms.cop_kmeans import InfeasibleAssignmentError

from pairlab import Constraints, Dataset, InconsistentConstraintsError, PairlabError, Registry, Run
from pairlab.links import random_pairs
from pairlab.testing import make_check_dataset
from tests.helpers import run_cli, union_find_roots

REG = Registry(external=False)


# -- a literal, set-based transcription of Table 1: the oracle --------------------------------
def _table1(X, centers, ml, cl, closure, max_iter):
    """Label arrays of every iteration, or (labels so far, (point, iteration)) when it fails."""
    n, k = X.shape[0], centers.shape[0]
    if closure:
        root = union_find_roots(n, ml)
        ML = {(i, j) for i in range(n) for j in range(n) if i != j and root[i] == root[j]}
        CL = {(i, j) for a, b in cl for i in range(n) for j in range(n)
              if {root[i], root[j]} == {root[a], root[b]}}
    else:
        ML = {(a, b) for a, b in ml} | {(b, a) for a, b in ml}
        CL = {(a, b) for a, b in cl} | {(b, a) for a, b in cl}
    history = []
    for t in range(max_iter + 1):
        labels = {}
        for i in range(n):
            dist = ((X[i] - centers) ** 2).sum(axis=1)
            for c in sorted(range(k), key=lambda c: (dist[c], c)):
                if not any((i, j) in ML and labels[j] != c for j in labels) and \
                        not any((i, j) in CL and labels[j] == c for j in labels):
                    labels[i] = c
                    break
            else:
                return history, (i, t)
        history.append(np.array([labels[i] for i in range(n)]))
        if len(history) > 1 and np.array_equal(history[-1], history[-2]):
            return history, None
        centers = np.array([X[history[-1] == c].mean(axis=0) if (history[-1] == c).any() else centers[c]
                            for c in range(k)])
    return history, None


def _problem(rng, n=10, n_links=6):
    X = rng.normal(size=(n, 2))
    y = rng.integers(3, size=n)
    pairs = list(itertools.combinations(range(n), 2))
    chosen = [pairs[c] for c in rng.choice(len(pairs), size=n_links, replace=False)]
    return X, [p for p in chosen if y[p[0]] == y[p[1]]], [p for p in chosen if y[p[0]] != y[p[1]]]


@pytest.mark.parametrize("closure", [True, False])
def test_matches_table_1_and_fails_where_it_fails(closure):
    rng = np.random.default_rng(2001)
    seen = {"ok": 0, "failed": 0}
    for _ in range(60):
        X, ml, cl = _problem(rng)
        k = int(rng.integers(2, 4))
        centers = X[rng.choice(len(X), k, replace=False)]
        links = Constraints(ml, cl, n_samples=len(X))
        params = {"n_clusters": k, "means_init": centers, "closure": closure, "max_iter": 20,
                  "search": "greedy",
                  "max_restarts": 0}
        expected, failure = _table1(X, centers, ml, cl, closure, 20)
        if failure is None:
            run = Run("cop-kmeans", Dataset(X), links, params, registry=REG)
            run.run()
            assert [s.labels.tolist() for s in run.history] == [e.tolist() for e in expected]
            seen["ok"] += 1
        else:
            with pytest.raises(InfeasibleAssignmentError) as info:
                Run("cop-kmeans", Dataset(X), links, params, registry=REG).run()
            assert (info.value.point, info.value.iteration) == failure
            seen["failed"] += 1
    assert seen["ok"] > 15 and seen["failed"] > 3, seen


def test_without_links_both_are_lloyds_kmeans():
    data = make_check_dataset(50, seed=1)
    params = {"n_clusters": 3, "means_init": data.X[:3].copy()}
    plain = Run("kmeans", data, None, params, registry=REG)
    plain.run()
    for name, factor in (("cop-kmeans", 1.0), ("soft-cop-kmeans", 0.5)):
        run = Run(name, data, None, params, registry=REG)
        run.run()
        assert run.n_iter == plain.n_iter
        for a, b in zip(run.history, plain.history, strict=True):
            assert np.array_equal(a.labels, b.labels)
            np.testing.assert_allclose(a.model["centers"], b.model["centers"], rtol=0, atol=1e-12)
            assert a.objective == pytest.approx(factor * b.objective, rel=1e-12)


def test_soft_limits_zero_penalty_is_kmeans_and_large_penalty_is_hard():
    rng = np.random.default_rng(7)
    compared = 0
    for _ in range(40):
        X, ml, cl = _problem(rng, n=12, n_links=6)
        links = Constraints(ml, cl, n_samples=len(X))
        params = {"n_clusters": 3, "means_init": X[:3].copy(), "max_iter": 15}
        zero = Run("soft-cop-kmeans", Dataset(X), links, {**params, "penalty": 0.0}, registry=REG)
        plain = Run("kmeans", Dataset(X), None, params, registry=REG)
        zero.run()
        plain.run()
        assert [s.labels.tolist() for s in zero.history] == [s.labels.tolist() for s in plain.history]
        try:
            hard = Run("cop-kmeans", Dataset(X), links, {**params, "closure": False, "max_restarts": 0},
                       registry=REG)
            hard.run()
        except InfeasibleAssignmentError:
            continue
        soft = Run("soft-cop-kmeans", Dataset(X), links, {**params, "penalty": 1e6}, registry=REG)
        soft.run()
        assert [s.labels.tolist() for s in soft.history] == [s.labels.tolist() for s in hard.history]
        compared += 1
    assert compared > 10


def test_soft_objective_is_eq_c1():
    rng = np.random.default_rng(3)
    X, ml, cl = _problem(rng, n=14, n_links=10)
    links = Constraints(ml, cl, n_samples=len(X), confidence=0.5)
    state = Run("soft-cop-kmeans", Dataset(X), links, {"n_clusters": 3, "penalty": 2.0}, seed=1,
                registry=REG).run()
    z, mu = state.labels, state.model["centers"]
    expected = 0.5 * sum(((X[i] - mu[z[i]]) ** 2).sum() for i in range(len(X)))
    expected += sum(2.0 * 0.5 for a, b in ml if z[a] != z[b]) + sum(2.0 * 0.5 for a, b in cl if z[a] == z[b])
    assert state.objective == pytest.approx(expected, rel=1e-12)


def test_every_state_satisfies_every_link():
    data = make_check_dataset(60, seed=4)
    rng = np.random.default_rng(0)
    for seed in range(6):
        links = random_pairs(data.y, 8, 8, rng)
        run = Run("cop-kmeans", data, links, {"order": "random"}, seed=seed, registry=REG)
        run.run()
        for state in run.history:
            ml, cl = links.satisfied(state.labels)
            assert ml.all() and cl.all()


def test_must_link_mode_ignores_cannot_links():
    data = make_check_dataset(30, seed=2)
    triangle = Constraints([[3, 4]], [[0, 1], [1, 2], [0, 2]], n_samples=30)
    params = {"n_clusters": 2, "means_init": data.X[[0, 20]], "max_restarts": 0}
    with pytest.raises(InfeasibleAssignmentError):
        Run("cop-kmeans", data, triangle, params, registry=REG)
    run = Run("cop-kmeans", data, triangle, {**params, "links": "must-link"}, registry=REG)
    run.run()
    same = Run("cop-kmeans", data, Constraints([[3, 4]], None, n_samples=30), params, registry=REG)
    same.run()
    assert [s.labels.tolist() for s in run.history] == [s.labels.tolist() for s in same.history]


# The chain 0 - 2 - 1 visited 0, 1, 2 without closure: infeasible from centres that split 0 and 1.
_TRAP_X = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 0.0], [5.0, 0.0]])
_TRAP = Constraints([[0, 2], [2, 1]], None, n_samples=4)
_TRAP_P = {"n_clusters": 2, "closure": False, "init": "random",
           "means_init": np.array([[0.0, 0.0], [5.0, 0.0]])}


def test_infeasible_start_restarts_with_derived_seeds_reproducibly():
    with pytest.raises(InfeasibleAssignmentError, match="cannot assign point 2 at iteration 0"):
        Run("cop-kmeans", Dataset(_TRAP_X), _TRAP, {**_TRAP_P, "max_restarts": 0}, registry=REG)
    # only the random start {4, 5} is feasible (1 in 6)
    runs = [Run("cop-kmeans", Dataset(_TRAP_X), _TRAP, {**_TRAP_P, "max_restarts": 60}, seed=3,
                registry=REG) for _ in range(2)]
    for run in runs:
        run.run()
    a, b = runs
    assert a.history[0].extras["restarts"] >= 1
    assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))
    assert a.state.labels[0] == a.state.labels[1] == a.state.labels[2]


def test_giving_up_names_the_point_and_its_cannot_linked_neighbours():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [0.2, 0.0], [5.0, 5.0]])
    links = Constraints(None, [[0, 1], [1, 2], [0, 2]], n_samples=4)  # a cannot-link triangle
    with pytest.raises(InfeasibleAssignmentError) as info:
        Run("cop-kmeans", Dataset(X), links, {"n_clusters": 2, "max_restarts": 3}, registry=REG)
    err = info.value
    assert isinstance(err, PairlabError)
    assert err.point == 2 and sorted(err.blockers) == [0, 1]
    msg = str(err)
    assert "cannot assign point 2" in msg and "point 0 (cluster" in msg and "point 1 (cluster" in msg
    assert "3 restart(s)" in msg and "Increase n_clusters or max_restarts" in msg
    Run("cop-kmeans", Dataset(X), links, {"n_clusters": 3}, registry=REG)  # three clusters are enough
    soft = Run("soft-cop-kmeans", Dataset(X), links, {"n_clusters": 2}, registry=REG).run()
    assert soft.labels.size == 4  # soft constraints never fail


@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_cli_error_is_one_line(tmp_path):
    path = tmp_path / "links.json"
    path.write_text('{"n_samples": 200, "must_link": [], "cannot_link": [[0, 1], [1, 2], [0, 2]]}')
    out = run_cli("run", "cop-kmeans", "--dataset", "two-moons", "--constraints", str(path),
                  "--set", "max_restarts=1")
    assert out.returncode == 1, out.stdout
    assert out.stderr.startswith("pairlab: error: COP-KMeans cannot assign point")
    assert "Traceback" not in out.stderr


def test_contradictions_rejected_by_hard_accepted_by_soft_and_must_link_mode():
    X = np.arange(10.0).reshape(5, 2)
    links = Constraints([[0, 1], [1, 2]], [[0, 2]], n_samples=5)
    with pytest.raises(InconsistentConstraintsError, match="chain 0 - 1 - 2"):
        Run("cop-kmeans", Dataset(X), links, registry=REG)
    Run("soft-cop-kmeans", Dataset(X), links, registry=REG).run()
    state = Run("cop-kmeans", Dataset(X), links, {"links": "must-link"}, registry=REG).run()
    assert state.labels[0] == state.labels[1] == state.labels[2]


def test_predict_proba_is_nearest_centre():
    data = make_check_dataset(40)
    for name in ("cop-kmeans", "soft-cop-kmeans"):
        run = Run(name, data, None, {"n_clusters": 2}, registry=REG)
        state = run.run()
        proba = run.algorithm.predict_proba(state, data.X)
        assert np.array_equal(proba.argmax(axis=1), state.labels)
        assert set(np.unique(proba)) == {0.0, 1.0}


def test_the_family_runs_from_a_sweep_spec_and_its_no_link_limit_shows_in_the_table(tmp_path):
    import csv

    from pairlab.sweep import parse_spec, run_sweep

    names = ["kmeans", "cop-kmeans", "soft-cop-kmeans", "pck-means", "mpck-means", "lcvqe"]
    spec = {"name": "family", "trials": 2, "metrics": ["ari"],
            "algorithms": [{"name": n, "params": {"n_clusters": 2}} for n in names],
            "datasets": [{"name": "two-moons", "params": {"n_samples": 40}}],
            "links": {"generator": "random", "budget": [0, 6]}}
    result = run_sweep(parse_spec(spec), tmp_path, progress=None)
    rows = list(csv.DictReader(result.table.open()))
    assert len(rows) == len(names) * 2 * 2 and all(r["error"] == "" and r["ari"] for r in rows)
    by = {(r["method"], r["budget"], r["trial"]): r for r in rows}
    for t in "01":  # same k-means++ start in a trial: without links COP-KMeans is k-means
        plain = float(by[("kmeans", "0", t)]["objective"])
        assert float(by[("cop-kmeans", "0", t)]["objective"]) == pytest.approx(plain, rel=1e-12)
        assert by[("cop-kmeans", "0", t)]["ari"] == by[("kmeans", "0", t)]["ari"]
        assert float(by[("lcvqe", "0", t)]["objective"]) == pytest.approx(plain / 2, rel=1e-12)


def _colourable(n_groups, cl_pairs, k):
    """Brute force: can the must-link groups take k clusters with no cannot-linked pair together?"""
    return any(all(z[a] != z[b] for a, b in cl_pairs)
               for z in itertools.product(range(k), repeat=n_groups))


@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_backtracking_finds_an_assignment_exactly_when_one_exists():
    rng = np.random.default_rng(0)
    greedy_failed = 0
    for trial in range(40):
        n, k = 9, 3
        X = rng.normal(size=(n, 2))
        pairs = list(itertools.combinations(range(n), 2))
        chosen = [pairs[c] for c in rng.choice(len(pairs), size=14, replace=False)]
        ml, cl = chosen[:2], chosen[2:]
        links = Constraints(ml, cl, n_samples=n)
        chunk = links.chunklet_index
        if any(chunk[a] == chunk[b] for a, b in cl):
            continue  # the must-links entail a contradicted cannot-link (rejected up front)
        exists = _colourable(int(chunk.max()) + 1, [(chunk[a], chunk[b]) for a, b in cl], k)
        params = {"n_clusters": k, "max_restarts": 0}
        try:
            Run("cop-kmeans", Dataset(X), links, {**params, "search": "greedy"}, seed=trial, registry=REG)
        except InfeasibleAssignmentError:
            greedy_failed += 1
        if not exists:
            with pytest.raises(InfeasibleAssignmentError, match="cannot assign point"):
                Run("cop-kmeans", Dataset(X), links, params, seed=trial, registry=REG)
            continue
        run = Run("cop-kmeans", Dataset(X), links, params, seed=trial, registry=REG)
        run.run()
        for state in run.history:
            z = state.labels
            assert all(z[a] == z[b] for a, b in ml) and all(z[a] != z[b] for a, b in cl)
    assert greedy_failed > 0  # the cases are hard enough for Table 1's greedy pass


# -- the compiled soft-CKmeans pass computes what the NumPy loop it replaced computed ------------
def test_numpy_sum_is_bit_for_bit_ndarray_sum():
    from pairlab_builtins.algorithms.cop_kmeans_kernels import numpy_sum

    rng = np.random.default_rng(3)
    for n in (*range(0, 40), 127, 128, 129, 130, 255, 300, 1031):
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
        assert numpy_sum(a) == a.sum(), n  # exact equality, not approx


def _soft_pass_numpy(d2, todo, ml, cl, w):
    """The Python/NumPy pass soft-cop-kmeans used before the kernel (reference)."""
    from pairlab_builtins.algorithms.cop_kmeans import _row, _row_weights

    labels = d2.argmin(axis=1)
    k = d2.shape[1]
    assigned = np.full(d2.shape[0], -1)
    for i in todo.tolist():
        cost = 0.5 * d2[i]
        m, wm = _row(ml, i), _row_weights(ml, i)
        placed = assigned[m] >= 0
        cost += w * (wm[placed].sum() - np.bincount(assigned[m][placed], wm[placed], minlength=k))
        c, wc = _row(cl, i), _row_weights(cl, i)
        placed = assigned[c] >= 0
        cost += w * np.bincount(assigned[c][placed], wc[placed], minlength=k)
        pref = np.argsort(d2[i], kind="stable")
        assigned[i] = labels[i] = pref[np.argmin(cost[pref])]
    return labels


def test_soft_pass_kernel_matches_the_numpy_loop():
    from pairlab_builtins.algorithms.cop_kmeans import _neighbours
    from pairlab_builtins.algorithms.cop_kmeans_kernels import soft_pass

    rng = np.random.default_rng(7)
    for trial in range(60):
        n, k = int(rng.integers(5, 60)), int(rng.integers(2, 6))
        d2 = rng.random((n, k)) * 4
        if trial % 3 == 0:  # ties in distance and in cost
            d2 = np.round(d2 * 2) / 2
        pairs = rng.integers(0, n, (int(rng.integers(1, 3 * n)), 2))
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        half = len(pairs) // 2
        conf = rng.random(len(pairs)) if trial % 2 else np.ones(len(pairs))
        ml, cl = _neighbours(pairs[:half], n, conf[:half]), _neighbours(pairs[half:], n, conf[half:])
        todo = rng.permutation(np.unique(pairs))
        w = float(rng.choice([0.25, 1.0, 3.7]))
        labels = d2.argmin(axis=1)
        soft_pass(d2, labels, todo.astype(np.int64), ml.indptr, ml.indices, ml.data, cl.indptr,
                  cl.indices, cl.data, w)
        assert labels.tolist() == _soft_pass_numpy(d2, todo, ml, cl, w).tolist(), trial
