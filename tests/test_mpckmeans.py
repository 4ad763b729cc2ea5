"""PCK-means and MPCK-means (Bilenko, Basu & Mooney 2004) against their equations and limits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pairlab_builtins.algorithms.mpckmeans import farthest_pair, neighbourhood_centers
from sklearn.cluster import KMeans as SkKMeans

from pairlab import Constraints, Dataset, Registry, Run
from pairlab.links import random_pairs
from pairlab.testing import make_check_dataset

from .helpers import assert_runs_as_kmeans

REG = Registry(external=False)


def _problem(seed, n=14, n_links=10, k_true=3, d=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(k_true, size=n)
    X = rng.normal(size=(n, d)) + 3.0 * y[:, None]
    pairs = list(itertools.combinations(range(n), 2))
    chosen = [pairs[c] for c in rng.choice(len(pairs), size=n_links, replace=False)]
    flip = rng.random(len(chosen)) < 0.2  # some links contradict the classes
    ml = [p for p, f in zip(chosen, flip, strict=True) if (y[p[0]] == y[p[1]]) != f]
    cl = [p for p, f in zip(chosen, flip, strict=True) if (y[p[0]] == y[p[1]]) == f]
    conf = rng.uniform(0.5, 1.0, size=len(ml) + len(cl))
    return X, Constraints(ml, cl, n_samples=n, confidence=conf)


# -- the objective from the equations, with plain loops: the oracle ------------------------------
def objective_bf(alg, labels, centers, metrics):
    """Eq. 2 (PCK-means) or eq. 3 (MPCK-means) evaluated term by term."""
    X, c, p = alg.X, alg.constraints, alg.params
    wm, wc = p["must_link_weight"], p["cannot_link_weight"]
    if metrics is None:
        J = sum(0.5 * ((X[i] - centers[labels[i]]) ** 2).sum() for i in range(len(X)))
        J += sum(wm * q for (a, b), q in zip(c.must_link, c.ml_confidence, strict=True)
                 if labels[a] != labels[b])
        J += sum(wc * q for (a, b), q in zip(c.cannot_link, c.cl_confidence, strict=True)
                 if labels[a] == labels[b])
        return J
    V = np.diag(np.where(X.var(axis=0) > 0, X.var(axis=0), 1.0))
    R = np.diag(np.ptp(X, axis=0) ** 2) * (1 if p["metric"] == "diagonal" else X.shape[1])

    def norm(v, A):
        return float(v @ A @ v)

    J = 0.0
    for i in range(len(X)):
        A = metrics[labels[i]]
        J += norm(X[i] - centers[labels[i]], A) + p["eps"] * np.trace(A @ V) - np.linalg.slogdet(A)[1]
    for (a, b), q in zip(c.must_link, c.ml_confidence, strict=True):
        if labels[a] != labels[b]:
            v = X[a] - X[b]
            J += wm * q * (0.5 * norm(v, metrics[labels[a]]) + 0.5 * norm(v, metrics[labels[b]]))
    for (a, b), q in zip(c.cannot_link, c.cl_confidence, strict=True):
        if labels[a] == labels[b]:
            A = metrics[labels[a]]
            if p["cannot_link_penalty"] == "farthest":  # eq. 5: the farthest pair under A
                top = max(norm(X[u] - X[v], A) for u, v in itertools.combinations(range(len(X)), 2))
            else:
                top = np.trace(A @ R)
            J += wc * q * (top - norm(X[a] - X[b], A))
    return J


VARIANTS = [("pck-means", {}), ("mpck-means", {"metric": "diagonal"}), ("mpck-means", {"metric": "full"}),
            ("mpck-means", {"metric": "diagonal", "metric_scope": "shared"}),
            ("mpck-means", {"metric": "full", "metric_scope": "shared"})]


def _run(name, X, links, params, seed=0):
    return Run(name, Dataset(X), links, {"n_clusters": 3, "max_iter": 12, "order": "data", **params},
               seed=seed, registry=REG)


def _steps(name, params, assignment, seeds):
    """Run each seed's problem to the end, check J never increased, and yield every step as
    (algorithm, previous state, state, centres, metrics)."""
    for seed in seeds:
        X, links = _problem(seed)
        run = _run(name, X, links, {**params, "assignment": assignment}, seed=seed)
        run.run()
        objs = [s.objective for s in run.history]
        assert all(b <= a + 1e-9 * abs(a) for a, b in itertools.pairwise(objs)), objs
        for prev, state in itertools.pairwise(run.history):
            yield run.algorithm, prev, state, state.model["centers"], state.model.get("metrics")


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_each_step_is_a_literal_icm_pass_and_the_objective_never_increases(name, params):
    for alg, prev, state, mu, A in _steps(name, params, "icm", range(6)):
        assert state.objective == pytest.approx(objective_bf(alg, state.labels, mu, A), rel=1e-9)
        assert _icm_pass(alg, prev.labels, mu, A) == state.labels.tolist()


def _icm_pass(alg, previous, mu, A, k=3):
    """A literal ICM pass in data order: each point takes the cluster with the least J (by brute
    force) given the others' current labels."""
    labels = np.array(previous)
    for i in range(labels.size):
        costs = []
        for h in range(k):
            labels[i] = h
            costs.append(objective_bf(alg, labels, mu, A))
        labels[i] = int(np.argmin(costs))
    return labels.tolist()


def _fresh_pass(alg, mu, A, k=3):
    """A literal pass from no labels in data order: each point takes the cluster with the least
    cost of its own terms of J, counting a link only once its partner has been placed."""
    X, c, p = alg.X, alg.constraints, alg.params
    labels = np.full(len(X), -1)
    if A is not None:
        V = np.diag(np.where(X.var(axis=0) > 0, X.var(axis=0), 1.0))
        R = np.diag(np.ptp(X, axis=0) ** 2) * (1 if p["metric"] == "diagonal" else X.shape[1])
    for i in range(len(X)):
        costs = []
        for h in range(k):
            if A is None:
                cost = 0.5 * ((X[i] - mu[h]) ** 2).sum()
            else:
                v = X[i] - mu[h]
                cost = v @ A[h] @ v + p["eps"] * np.trace(A[h] @ V) - np.linalg.slogdet(A[h])[1]
            for (a, b), q in zip(c.must_link, c.ml_confidence, strict=True):
                j = b if a == i else a if b == i else None
                if j is not None and labels[j] >= 0 and labels[j] != h:
                    d = X[a] - X[b]
                    f = 1.0 if A is None else 0.5 * (d @ A[h] @ d + d @ A[labels[j]] @ d)
                    cost += p["must_link_weight"] * q * f
            for (a, b), q in zip(c.cannot_link, c.cl_confidence, strict=True):
                j = b if a == i else a if b == i else None
                if j is not None and labels[j] == h:
                    d = X[a] - X[b]
                    f = 1.0 if A is None else np.trace(A[h] @ R) - d @ A[h] @ d
                    cost += p["cannot_link_weight"] * q * f
            costs.append(cost)
        labels[i] = int(np.argmin(costs))
    return labels.tolist()


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_fresh_steps_are_literal_passes_from_no_labels(name, params):
    """assignment="fresh" (active-semi-supervised-clustering's E-step): every pass starts from no
    labels; J is still eq. 2/3 of the labels it returns."""
    for seed in range(3):
        X, links = _problem(seed)
        run = _run(name, X, links, {**params, "assignment": "fresh"}, seed=seed)
        run.run()
        alg = run.algorithm
        for state in run.history[1:]:
            mu, A = state.model["centers"], state.model.get("metrics")
            assert _fresh_pass(alg, mu, A) == state.labels.tolist()
            assert state.objective == pytest.approx(objective_bf(alg, state.labels, mu, A), rel=1e-9)


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_best_steps_keep_the_cheaper_pass_and_never_increase_the_objective(name, params):
    """assignment="best" (MPCK-means' default): both passes under the step's centres and metrics,
    the one with the lower J kept (ties: the ICM pass), so J never increases."""
    chose_fresh = 0
    for alg, prev, state, mu, A in _steps(name, params, "best", range(8)):
        icm, fresh = _icm_pass(alg, prev.labels, mu, A), _fresh_pass(alg, mu, A)
        j_icm, j_fresh = objective_bf(alg, icm, mu, A), objective_bf(alg, fresh, mu, A)
        want = fresh if j_fresh < j_icm - 1e-9 * abs(j_icm) else icm
        assert want == state.labels.tolist()
        chose_fresh += want != icm
    if params.get("metric_scope") == "shared":  # there the fresh pass wins on some of these steps
        assert chose_fresh > 0


def test_log_det_base_does_not_change_the_shared_metric_run(monkeypatch):
    """The peer's E-step takes log det in base 2: with one shared metric the term is the same for
    every cluster, so the labels cannot change (only J's value)."""
    from pairlab_builtins.algorithms import mpckmeans as mod

    X, links = _problem(5, n=30, n_links=20)
    params = {"metric": "diagonal", "metric_scope": "shared"}
    plain = _run("mpck-means", X, links, params, seed=1)
    plain.run()
    orig = mod.MPCKMeans._constants
    monkeypatch.setattr(mod.MPCKMeans, "_constants",
                        lambda self, A: orig(self, A) + (1 / np.log(2) - 1) * -np.linalg.slogdet(A)[1])
    base2 = _run("mpck-means", X, links, params, seed=1)
    base2.run()
    assert [s.labels.tolist() for s in plain.history] == [s.labels.tolist() for s in base2.history]
    assert plain.state.objective != pytest.approx(base2.state.objective)


@pytest.mark.parametrize("metric", ["diagonal", "full"])
def test_shared_metric_without_links_is_metric_learning_kmeans(metric):
    """No links: MPCK-means-S is k-means under one learned metric (the paper's unconstrained limit):
    labels = argmin_h ||x - mu_h||^2_A (log det equal for all h), mu_h the means, and
    A = N (sum_i (x_i - mu_{l_i})(x_i - mu_{l_i})^T + eps N V)^{-1} (its diagonal for diagonal)."""
    data = make_check_dataset(60, seed=7)
    X = data.X * np.array([1.0, 3.0])  # anisotropic, so the metric matters
    start = X[[0, 20, 40]].copy()
    params = {"n_clusters": 3, "means_init": start, "metric": metric, "metric_scope": "shared"}
    run = Run("mpck-means", Dataset(X), None, params, seed=0, registry=REG)
    run.run()
    eps, N = run.algorithm.params["eps"], len(X)
    V = np.diag(X.var(axis=0))
    mu, A = start, np.eye(2)
    labels = None
    for state in run.history:
        if labels is not None:
            mu = np.array([X[labels == h].mean(axis=0) if np.any(labels == h) else mu[h] for h in range(3)])
            r = X - mu[labels]
            S = r.T @ r + eps * N * V
            A = N * np.linalg.inv(S) if metric == "full" else np.diag(N / np.diag(S))
        d = np.array([[(x - m) @ A @ (x - m) for m in mu] for x in X])
        labels = d.argmin(axis=1)
        assert np.array_equal(state.labels, labels)
        np.testing.assert_allclose(state.model["metrics"][0], A, rtol=1e-9, atol=1e-12)
    assert run.n_iter >= 2


def test_shared_metric_held_at_the_identity_is_kmeans(monkeypatch):
    """No links and the metric held at the identity: the run is the kmeans plugin's, step for step."""
    from pairlab_builtins.algorithms import mpckmeans as mod

    monkeypatch.setattr(mod.MPCKMeans, "_update_metrics", lambda self, labels, c, prev: prev)
    data = make_check_dataset(60, seed=5)
    start = data.X[[0, 30, 59]].copy()
    ours = Run("mpck-means", data, None, {"n_clusters": 3, "means_init": start,
                                          "metric_scope": "shared"}, registry=REG)
    ours.run()
    plain = Run("kmeans", data, None, {"n_clusters": 3, "means_init": start}, registry=REG)
    plain.run()
    assert ours.n_iter == plain.n_iter
    for a, b in zip(ours.history, plain.history, strict=True):
        assert np.array_equal(a.labels, b.labels)
        np.testing.assert_array_equal(a.model["centers"], b.model["centers"])


@pytest.mark.parametrize("metric", ["diagonal", "full"])
def test_farthest_f_c_is_eq_5_and_each_pass_is_literal_icm(metric):
    """The paper's f_C: J is eq. 3 with eq. 5 and each E-step a literal ICM pass; J may rise after
    an M-step (eq. 6 ignores f_C's dependence on A), so monotonicity is not asserted here."""
    for seed in range(3):
        X, links = _problem(seed)
        run = _run("mpck-means", X, links, {"metric": metric, "cannot_link_penalty": "farthest",
                                            "assignment": "icm"}, seed=seed)
        run.run()
        alg = run.algorithm
        for prev, state in itertools.pairwise(run.history):
            mu, A = state.model["centers"], state.model["metrics"]
            assert state.objective == pytest.approx(objective_bf(alg, state.labels, mu, A), rel=1e-9)
            assert _icm_pass(alg, prev.labels, mu, A) == state.labels.tolist()


def test_farthest_pair_matches_brute_force():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    M = rng.normal(size=(3, 3))
    A = M @ M.T + 0.1 * np.eye(3)
    top, diff = farthest_pair(X, A, chunk=7)
    best = max(float((X[i] - X[j]) @ A @ (X[i] - X[j])) for i, j in itertools.combinations(range(40), 2))
    assert top == pytest.approx(best, rel=1e-12)
    assert float(diff @ A @ diff) == pytest.approx(best, rel=1e-12)


def test_shared_metric_is_one_matrix_and_the_joint_minimiser():
    X, links = _problem(11, n=20)
    run = _run("mpck-means", X, links, {"metric": "full", "metric_scope": "shared"})
    s0 = run.state
    s1 = run.step()
    alg, mu, A = run.algorithm, s1.model["centers"], s1.model["metrics"]
    assert np.array_equal(A[0], A[1]) and np.array_equal(A[0], A[2])
    best = objective_bf(alg, s0.labels, mu, A)
    rng = np.random.default_rng(0)
    for _ in range(20):
        E = rng.normal(scale=0.05, size=(2, 2))
        B = A[0] @ (np.eye(2) + 0.5 * (E + E.T))
        B = 0.5 * (B + B.T)
        if np.linalg.eigvalsh(B).min() > 0:
            assert objective_bf(alg, s0.labels, mu, np.stack([B] * 3)) >= best - 1e-9


@pytest.mark.parametrize("metric", ["diagonal", "full"])
def test_metric_update_is_the_minimiser(metric):
    X, links = _problem(11, n=20)
    run = _run("mpck-means", X, links, {"metric": metric})
    s0 = run.state
    s1 = run.step()
    alg, mu, A = run.algorithm, s1.model["centers"], s1.model["metrics"]
    best = objective_bf(alg, s0.labels, mu, A)
    rng = np.random.default_rng(0)
    for _ in range(20):
        h = int(rng.integers(3))
        E = rng.normal(scale=0.05, size=(2, 2))
        E = np.diag(np.diag(E)) if metric == "diagonal" else 0.5 * (E + E.T)
        B = A.copy()
        B[h] = A[h] @ (np.eye(2) + E)
        B[h] = 0.5 * (B[h] + B[h].T)
        if np.linalg.eigvalsh(B[h]).min() > 0:
            assert objective_bf(alg, s0.labels, mu, B) >= best - 1e-9


def test_pck_means_without_links_is_kmeans_and_scikit_learn():
    data = make_check_dataset(60, seed=5)
    start = data.X[[0, 30, 59]].copy()
    params = {"n_clusters": 3, "means_init": start}
    ours = Run("pck-means", data, None, params, registry=REG)
    assert_runs_as_kmeans(ours, data, params, REG, objective_factor=0.5)
    sk = SkKMeans(3, init=start, n_init=1, algorithm="lloyd", tol=0).fit(data.X)
    final = ours.state
    # our last state's labels are those of its centres; scikit-learn's labels_ follow its last update
    np.testing.assert_allclose(ours.algorithm.step(final).model["centers"], sk.cluster_centers_,
                               atol=1e-10)
    assert np.array_equal(final.labels, sk.labels_)


def test_metric_learning_recovers_an_anisotropic_scale():
    rng = np.random.default_rng(0)
    scale = 4.0
    y = np.repeat([0, 1], 150)
    X = np.column_stack([rng.normal(size=300) + 8.0 * y, scale * rng.normal(size=300)])
    links = random_pairs(y, 60, 60, rng)
    run = Run("mpck-means", Dataset(X, y), links, {"n_clusters": 2, "metric": "diagonal"}, seed=0,
              registry=REG)
    state = run.run()
    assert (state.labels == y).mean() in (0.0, 1.0) or min((state.labels == y).mean(),
                                                           (state.labels != y).mean()) < 0.02
    for A in state.model["metrics"]:
        ratio = A[0, 0] / A[1, 1]
        assert ratio == pytest.approx(scale**2, rel=0.25)
    full = Run("mpck-means", Dataset(X, y), links, {"n_clusters": 2, "metric": "full"}, seed=0,
               registry=REG).run()
    for A in full.model["metrics"]:
        w = np.linalg.eigvalsh(A)
        assert w[1] / w[0] == pytest.approx(scale**2, rel=0.3)


def test_neighbourhood_initialisation():
    X = np.array([[0.0, 0], [0, 1], [10, 0], [10, 1], [5, 5], [20, 20], [21, 20], [-3, -3]])
    chunk = Constraints([[0, 1], [2, 3], [5, 6]], [[4, 0], [4, 2], [4, 5]], n_samples=8).chunklet_index
    cl = np.array([[4, 0], [4, 2], [4, 5]])
    rng = np.random.default_rng(0)
    # three neighbourhoods of two points, k = 2: farthest-first from the first (ties: the first)
    got = neighbourhood_centers(X, chunk, cl, 2, rng)
    np.testing.assert_allclose(got, [[0, 0.5], [20.5, 20]])
    # k = 5: the three centroids, the point cannot-linked to all of them, then a perturbed mean
    got = neighbourhood_centers(X, chunk, cl, 5, rng)
    np.testing.assert_allclose(got[:4], [[0, 0.5], [10, 0.5], [20.5, 20], [5, 5]])
    assert np.all(np.abs(got[4] - X.mean(axis=0)) < 0.6 * X.std(axis=0))


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_same_seed_same_run_and_predict_matches_labels_without_links(name, params):
    data = make_check_dataset(50, seed=2)
    links = random_pairs(data.y, 6, 6, np.random.default_rng(1))
    a = Run(name, data, links, {"n_clusters": 2, **params}, seed=4, registry=REG)
    b = Run(name, data, links, {"n_clusters": 2, **params}, seed=4, registry=REG)
    a.run()
    b.run()
    assert all(s.equals(t) for s, t in zip(a.history, b.history, strict=True))
    free = Run(name, data, None, {"n_clusters": 2, **params}, seed=4, registry=REG)
    state = free.run()
    proba = free.algorithm.predict_proba(state, data.X)
    assert np.array_equal(proba.argmax(axis=1), state.labels)


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_explain_gives_the_change_in_j_of_relabelling_the_point(name, params):
    X, links = _problem(4, n=14)
    run = _run(name, X, links, params)
    state = run.run()
    alg, mu, A = run.algorithm, state.model["centers"], state.model.get("metrics")
    for i in range(len(X)):
        ex = alg.explain(state, i)
        cost = ex.bars[0].values
        assert ex.bars[0].highlight == state.labels[i]  # converged: every point sits at its cheapest
        labels = np.array(state.labels)
        J = []
        for h in range(3):
            labels[i] = h
            J.append(objective_bf(alg, labels, mu, A))
        np.testing.assert_allclose(cost - cost[0], np.array(J) - J[0], rtol=1e-9, atol=1e-9)
