"""LCVQE (Pelleg & Baras 2007) against a literal transcription, brute force and its k-means limit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pairlab import Constraints, Dataset, Registry, Run
from pairlab.testing import make_check_dataset

from .helpers import assert_runs_as_kmeans

REG = Registry(external=False)


def _d(x, c):
    return float(((x - c) ** 2).sum())


def objective_bf(X, links, labels, C):
    """The LCVQE objective term by term (r: the farther point, M(r): the runner-up centroid)."""
    J = sum(0.5 * _d(X[i], C[labels[i]]) for i in range(len(X)))
    for a, b in links.must_link:
        if labels[a] != labels[b]:
            J += 0.25 * (_d(X[b], C[labels[a]]) + _d(X[a], C[labels[b]]))
    for a, b in links.cannot_link:
        j = labels[a]
        if j == labels[b]:
            r = b if _d(X[b], C[j]) > _d(X[a], C[j]) else a
            m = min((h for h in range(len(C)) if h != j), key=lambda h: (_d(X[r], C[h]), h))
            J += 0.5 * _d(X[r], C[m])
    return J


def e_step_literal(X, links, C):
    """The E-step one link at a time, in order, as the paper describes it."""
    k = len(C)
    labels = [min(range(k), key=lambda h: (_d(x, C[h]), h)) for x in X]
    for a, b in links.must_link:
        A, B = labels[a], labels[b]
        if A != B:
            costs = [0.5 * (_d(X[a], C[A]) + _d(X[b], C[B])) + 0.25 * (_d(X[b], C[A]) + _d(X[a], C[B])),
                     0.5 * (_d(X[a], C[A]) + _d(X[b], C[A])),
                     0.5 * (_d(X[a], C[B]) + _d(X[b], C[B]))]
            choice = int(np.argmin(costs))
            if choice == 1:
                labels[b] = A
            elif choice == 2:
                labels[a] = B
    for a, b in links.cannot_link:
        j = labels[a]
        if j == labels[b]:
            r, o = (b, a) if _d(X[b], C[j]) > _d(X[a], C[j]) else (a, b)
            m = min((h for h in range(k) if h != j), key=lambda h: (_d(X[r], C[h]), h))
            keep = 0.5 * (_d(X[a], C[j]) + _d(X[b], C[j])) + 0.5 * _d(X[r], C[m])
            move = 0.5 * _d(X[o], C[j]) + 0.5 * _d(X[r], C[m])
            if move < keep:
                labels[r] = m
    return np.array(labels)


def _problem(seed, n=16, n_links=14, disjoint=False, kinds=("ml", "cl")):
    rng = np.random.default_rng(seed)
    y = rng.integers(3, size=n)
    X = rng.normal(size=(n, 2)) + 2.5 * y[:, None]
    if disjoint:
        perm = rng.permutation(n)
        chosen = [tuple(sorted(p)) for p in perm[: 2 * (n_links // 2)].reshape(-1, 2).tolist()]
    else:
        pairs = list(itertools.combinations(range(n), 2))
        chosen = [pairs[c] for c in rng.choice(len(pairs), size=n_links, replace=False)]
    flip = rng.random(len(chosen)) < 0.25
    ml = [p for p, f in zip(chosen, flip, strict=True) if (y[p[0]] == y[p[1]]) != f and "ml" in kinds]
    cl = [p for p, f in zip(chosen, flip, strict=True) if (y[p[0]] == y[p[1]]) == f and "cl" in kinds]
    return X, Constraints(ml, cl, n_samples=n)


def test_e_step_and_objective_match_the_literal_transcription():
    for seed in range(25):
        X, links = _problem(seed)
        run = Run("lcvqe", Dataset(X), links, {"n_clusters": 3, "max_iter": 10}, seed=seed, registry=REG)
        run.run()
        for state in run.history:
            C = state.model["centers"]
            assert state.labels.tolist() == e_step_literal(X, links, C).tolist()
            assert state.objective == pytest.approx(objective_bf(X, links, state.labels, C), rel=1e-10)


def test_m_step_is_the_weighted_mean_that_minimises_the_objective_with_fixed_pulls():
    X, links = _problem(5, n=24, n_links=20)
    run = Run("lcvqe", Dataset(X), links, {"n_clusters": 3}, seed=1, registry=REG)
    s0 = run.state
    s1 = run.step()
    C0, C1 = s0.model["centers"], s1.model["centers"]

    def surrogate(C):  # J with the violations (and r, M(r)) of s0's labels under s0's centroids
        J = sum(0.5 * _d(X[i], C[s0.labels[i]]) for i in range(len(X)))
        for a, b in links.must_link:
            if s0.labels[a] != s0.labels[b]:
                J += 0.25 * (_d(X[b], C[s0.labels[a]]) + _d(X[a], C[s0.labels[b]]))
        for a, b in links.cannot_link:
            j = s0.labels[a]
            if j == s0.labels[b]:
                r = b if _d(X[b], C0[j]) > _d(X[a], C0[j]) else a
                m = min((h for h in range(3) if h != j), key=lambda h: (_d(X[r], C0[h]), h))
                J += 0.5 * _d(X[r], C[m])
        return J

    rng = np.random.default_rng(0)
    best = surrogate(C1)
    for _ in range(30):
        assert surrogate(C1 + rng.normal(scale=0.05, size=C1.shape)) >= best


def test_two_clusters_disjoint_must_links_exact_e_step_and_monotone():
    """k = 2, must-links sharing no point: the three options cover every labelling, so the E-step
    is the exact minimiser (checked against all 2^n labellings) and J never increases."""
    for seed in range(6):
        X, links = _problem(seed, n=10, n_links=8, disjoint=True, kinds=("ml",))
        run = Run("lcvqe", Dataset(X), links, {"n_clusters": 2, "max_iter": 10}, seed=seed, registry=REG)
        run.run()
        C = run.history[0].model["centers"]
        best = min(objective_bf(X, links, np.array(z), C) for z in itertools.product((0, 1), repeat=10))
        assert run.history[0].objective == pytest.approx(best, rel=1e-12)
        objs = [s.objective for s in run.history]
        assert all(b <= a + 1e-12 for a, b in itertools.pairwise(objs)), objs


def test_isolated_cannot_links_are_always_satisfied():
    """Read literally, moving r is cheaper by 1/2 ||x_r - c_j||^2 than keeping the violation."""
    for seed in range(10):
        X, links = _problem(seed, n=20, n_links=10, disjoint=True, kinds=("cl",))
        state = Run("lcvqe", Dataset(X), links, {"n_clusters": 3}, seed=seed, registry=REG).run()
        assert links.satisfied(state.labels)[1].all()
        assert state.extras["violated_cannot_links"] == 0


def test_without_links_it_is_kmeans():
    data = make_check_dataset(60, seed=8)
    params = {"n_clusters": 3, "means_init": data.X[[1, 2, 3]].copy()}
    ours = Run("lcvqe", data, None, params, registry=REG)
    assert_runs_as_kmeans(ours, data, params, REG, objective_factor=0.5)
