"""CSC's reduced solver (csc_pencil.definite_pencil) against LAPACK's generalised solver: the same
eigenvalues, costs and chosen eigenvectors (up to sign) on problems small enough to solve both."""

import numpy as np
import pytest
from pairlab_builtins.algorithms.csc import constrained_embedding

from pairlab.errors import InvalidInputError


def problem(n_per: int, n_links: int, seed: int, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_per, 2)) + 4 * rng.normal(size=2) for _ in range(k)])
    n = len(X)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    A = np.exp(-D / D.mean())
    np.fill_diagonal(A, 0.0)
    Q = np.zeros((n, n))
    for _ in range(n_links):
        i, j = rng.choice(n, 2, replace=False)
        Q[i, j] = Q[j, i] = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.0)
    return A, Q


def assert_same(a: dict, b: dict) -> None:
    for key in ("lam", "cost", "satisfaction"):
        assert np.allclose(a[key], b[key], rtol=1e-9, atol=1e-9 * np.abs(b[key]).max())
    sign = np.sign(np.sum(a["V"] * b["V"], axis=0))
    assert np.allclose(a["V"] * sign, b["V"], atol=1e-8 * np.sqrt(b["vol"]))
    assert a["n_feasible"] == b["n_feasible"]
    assert a["beta"] == b["beta"]


@pytest.mark.parametrize("seed", range(12))
def test_reduced_solver_equals_the_generalised_one(seed):
    n_per = (4, 10, 20)[seed % 3]
    n_links = (0, 1, 3, 12)[seed % 4]
    A, Q = problem(n_per, n_links, seed)
    for n_vectors in (1, 2, 4):
        for beta in (None, -0.3 * A.sum()):
            assert_same(constrained_embedding(A, Q, n_vectors, beta),
                        constrained_embedding(A, Q, n_vectors, beta, solver="generalised"))


def test_reduced_solver_picks_by_cost_over_the_whole_spectrum():
    """On three blobs with 40 links the vectors of least cost are not the pencil's least-lambda
    ones, so a partial (least-lambda) solve would pick others; the reduced solver does not."""
    A, Q = problem(60, 40, 3)
    a = constrained_embedding(A, Q, 2)
    b = constrained_embedding(A, Q, 2, solver="generalised")
    assert_same(a, b)
    n = A.shape[0]
    B = constrained_embedding(A, Q, n - 1, solver="generalised")
    lam_sorted = np.sort(B["lam"])
    assert not np.allclose(np.sort(a["lam"]), lam_sorted[:2])


def test_reduced_solver_falls_back_when_every_point_is_linked():
    A, Q = problem(4, 0, 0)
    n = A.shape[0]
    for i in range(0, n - 1, 2):                           # every point linked: r = n
        Q[i, i + 1] = Q[i + 1, i] = 1.0 if i % 4 else -1.0
    assert_same(constrained_embedding(A, Q, 2), constrained_embedding(A, Q, 2, solver="generalised"))


def test_unknown_solver_is_refused():
    A, Q = problem(4, 2, 0)
    with pytest.raises(InvalidInputError, match="solver"):
        constrained_embedding(A, Q, 2, solver="eig")
