"""CSC's certified subspace solver (csc_subspace.certified_pencil) against LAPACK's generalised
solver, and the inertia count that decides how many eigenvectors are feasible."""

import numpy as np
import pytest
from pairlab_builtins.algorithms.csc import CSC, constrained_embedding
from pairlab_builtins.algorithms.kernels import pairwise_kernel
from scipy import linalg

from pairlab import Constraints, Dataset, Run

from .test_csc_pencil import assert_same


def problem(n: int, k: int, n_ml: int, n_cl: int, seed: int, dim: int = 2
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blobs, their RBF affinity (mean squared distance bandwidth, zero diagonal), random links of
    random confidence."""
    rng = np.random.default_rng(seed)
    y = rng.integers(k, size=n)
    X = 4.0 * rng.normal(size=(k, dim))[y] + rng.normal(size=(n, dim))
    A = pairwise_kernel(X, "rbf")
    np.fill_diagonal(A, 0.0)
    Q = np.zeros((n, n))
    for count, sign in ((n_ml, 1.0), (n_cl, -1.0)):
        for _ in range(count):
            i, j = rng.choice(n, 2, replace=False)
            Q[i, j] = Q[j, i] = sign * rng.uniform(0.5, 1.0)
    return X, A, Q


CASES = [  # n, K, must-links, cannot-links, seed
    (200, 3, 10, 10, 0), (200, 3, 10, 10, 1), (300, 4, 0, 30, 0), (300, 4, 30, 0, 1),
    (300, 3, 0, 0, 0), (200, 3, 10, 10, 6), (250, 5, 25, 25, 3),
]


@pytest.mark.parametrize("n, k, n_ml, n_cl, seed", CASES)
def test_subspace_solver_equals_the_generalised_one(n, k, n_ml, n_cl, seed):
    _, A, Q = problem(n, k, n_ml, n_cl, seed)
    a = constrained_embedding(A, Q, k - 1, psd=True)
    assert a["solver"] == "subspace"
    assert_same(a, constrained_embedding(A, Q, k - 1, solver="generalised"))
    assert_same(a, constrained_embedding(A, Q, k - 1, solver="reduced"))


def test_subspace_solver_picks_vectors_far_down_the_lambda_order():
    """The cheapest vectors are not the least-lambda ones (the reason every eigenvalue is
    needed); the certified solve still returns the generalised solver's."""
    _, A, Q = problem(300, 4, 30, 30, 2)
    n = A.shape[0]
    a = constrained_embedding(A, Q, 3, psd=True)
    assert a["solver"] == "subspace"
    full = constrained_embedding(A, Q, n - 1, solver="generalised")
    rank = [int(np.sum(full["lam"] < lam)) for lam in a["lam"]]
    assert max(rank) > 3
    assert_same(a, constrained_embedding(A, Q, 3, solver="generalised"))


def test_falls_back_when_no_certificate_applies():
    """Ten dimensions (the kernel is not numerically low-rank at this size), a precomputed
    affinity (not known to be positive semidefinite), or beta >= 0: the dense paths, same pairs."""
    _, A, Q = problem(300, 3, 20, 20, 0, dim=10)
    a = constrained_embedding(A, Q, 2, psd=True)
    assert a["solver"] == "reduced"
    assert_same(a, constrained_embedding(A, Q, 2, solver="generalised"))
    _, A, Q = problem(200, 3, 10, 10, 0)
    assert constrained_embedding(A, Q, 2)["solver"] == "reduced"
    assert constrained_embedding(A, Q, 2, beta=0.0, psd=True)["solver"] == "low-rank"


def test_csc_uses_it_for_the_rbf_affinity_with_identical_labels_and_is_reproducible():
    X, A, Q = problem(300, 4, 20, 20, 4)
    iu = np.triu_indices_from(Q, 1)
    pairs = np.column_stack(iu)[Q[iu] != 0]
    sign = Q[iu][Q[iu] != 0]
    c = Constraints(pairs[sign > 0], pairs[sign < 0], n_samples=len(X),
                    confidence={"must_link": sign[sign > 0], "cannot_link": -sign[sign < 0]})
    params = {"n_clusters": 4, "bandwidth_rule": "mean-sq"}
    runs = [Run(CSC, Dataset(X), c, params, seed=3) for _ in range(2)]
    assert runs[0].algorithm.solution["solver"] == "subspace"
    labels = [r.run().labels for r in runs]
    np.testing.assert_array_equal(labels[0], labels[1])
    np.testing.assert_array_equal(runs[0].state.extras["embedding"],
                                  runs[1].state.extras["embedding"])    # bit for bit
    pre = Run(CSC, Dataset(A + np.eye(len(A))), c, {**params, "affinity": "precomputed"}, seed=3)
    assert pre.algorithm.solution["solver"] == "reduced"
    np.testing.assert_array_equal(pre.run().labels, labels[0])


@pytest.mark.parametrize("seed", range(8))
def test_feasible_count_is_the_inertia_of_the_constraint_side(seed):
    """Sylvester's law of inertia: L_t is positive definite, so the pencil L_t w = lambda B_t w has
    as many eigenvalues lambda > 0 as B_t = Q_bar - beta/vol I (on the complement of the trivial
    vector) has positive eigenvalues: at most the linked points' count for beta > 0, every one
    (n - 1) for beta below lambda_min(Q_bar) vol (the default beta rule)."""
    rng = np.random.default_rng(seed)
    _, A, Q = problem(24 + 4 * seed, 3, 2 + seed, 3 + seed % 3, seed)
    n = A.shape[0]
    d = A.sum(axis=1)
    vol = d.sum()
    s = 1.0 / np.sqrt(d)
    Qb = s[:, None] * Q * s[None, :]
    U0 = linalg.null_space(np.sqrt(d)[None, :])             # orthonormal basis off D^1/2 1
    lam_Q = linalg.eigvalsh(Qb)
    for beta in (None, rng.uniform(0.05, 0.9) * lam_Q[-1] * vol,
                 rng.uniform(0.1, 0.9) * lam_Q[0] * vol, 3.0 * lam_Q[0] * vol):
        sol = constrained_embedding(A, Q, 1, beta, solver="generalised")
        b = sol["beta"] / vol
        g = linalg.eigvalsh(U0.T @ (Qb - b * np.eye(n)) @ U0)
        assert sol["n_feasible"] == int(np.sum(g > 1e-12 * np.abs(g).max()))
        if b > 0:
            assert sol["n_feasible"] <= int(np.sum(np.any(Q != 0, axis=1)))
        if b < lam_Q[0]:
            assert sol["n_feasible"] == n - 1
