"""SSKK on a sparse k-nearest-neighbour kernel (issue 37): the dense run on the complete graph,
a sparse eigensolver for sigma, clear errors."""

import itertools

import numpy as np
import pytest
from pairlab_builtins.algorithms.sskk import SSKK
from pairlab_builtins.algorithms.sskk_sparse import smallest_eigenvalue, spectral_labels
from scipy import sparse

from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.errors import InvalidInputError
from pairlab.run import Run


def _blobs(n_per: int = 40) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(c, 1.0, (n_per, 2)) for c in ((0, 0), (5, 0), (0, 5))])


@pytest.mark.parametrize("init", ["farthest-first", "k-means++", "spectral"])
@pytest.mark.parametrize("links", [False, True])
def test_complete_graph_run_equals_the_dense_run(links, init):
    X = _blobs()
    n = len(X)
    # a few links, one must-link neighbourhood across blobs, so the links change the clustering
    c = (Constraints([(0, 50), (1, 2), (45, 85)], [(3, 90), (4, 5)], n_samples=n) if links
         else Constraints(n_samples=n))
    params = {"n_clusters": 3, "init": init}
    dense = Run("sskk", Dataset(X), c, params, seed=0)
    sp = Run("sskk", Dataset(X), c, {**params, "n_neighbors": n - 1}, seed=0)
    a, b = dense.algorithm, sp.algorithm
    assert sparse.issparse(b.K_tilde) and not sparse.issparse(a.K_tilde)
    assert np.allclose(b.K_tilde.toarray(), a.K_tilde, rtol=0, atol=1e-12)
    assert b.sigma == pytest.approx(a.sigma, rel=1e-9, abs=1e-12)
    dense.run()
    sp.run()
    assert len(dense.history) == len(sp.history)
    for s, t in zip(dense.history, sp.history, strict=True):
        assert np.array_equal(s.labels, t.labels)
        assert t.objective == pytest.approx(s.objective, rel=1e-10)
        assert t.extras["broken_must_links"] == s.extras["broken_must_links"]
    e_dense, e_sparse = a.explain(dense.state, 7), b.explain(sp.state, 7)
    assert np.allclose(e_sparse.bars[0].values, e_dense.bars[0].values, rtol=1e-10)


def test_sparse_kernel_is_sparse_and_the_objective_never_increases():
    X = _blobs(60)
    n = len(X)
    c = Constraints([(0, 1), (60, 61)], [(0, 60), (1, 130)], n_samples=n)
    run = Run("sskk", Dataset(X), c, {"n_clusters": 3, "n_neighbors": 8}, seed=0)
    algo = run.algorithm
    assert algo.K_tilde.nnz < 20 * n
    # sigma makes K + W positive semi-definite, and no less would
    lam = np.linalg.eigvalsh((algo.K + algo.W).toarray())[0]
    assert algo.sigma == pytest.approx(max(0.0, -lam), rel=1e-9)
    run.run()
    obj = [s.objective for s in run.history]
    assert all(b <= a + 1e-9 * abs(a) for a, b in itertools.pairwise(obj))
    again = Run("sskk", Dataset(X), c, {"n_clusters": 3, "n_neighbors": 8}, seed=0).run()
    assert np.array_equal(again.labels, run.state.labels)


@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_lanczos_smallest_eigenvalue_matches_lapack():
    rng = np.random.default_rng(3)
    n = 2500
    M = sparse.random(n, n, density=3 / n, random_state=4, data_rvs=rng.standard_normal)
    M = (M + M.T + sparse.identity(n)).tocsr()
    assert smallest_eigenvalue(M) == pytest.approx(np.linalg.eigvalsh(M.toarray())[0], rel=1e-8)


def test_n_neighbors_refuses_the_linear_kernel():
    X = _blobs(10)
    with pytest.raises(InvalidInputError, match="linear"):
        SSKK(Dataset(X), None, {"n_clusters": 2, "kernel": "linear", "n_neighbors": 5})
    with pytest.raises(InvalidInputError, match="n_neighbors"):
        SSKK(Dataset(X), None, {"n_clusters": 2, "n_neighbors": 0})


@pytest.mark.parametrize("n", [400, 2400])  # dense LAPACK below 2,000 points, Lanczos above
def test_spectral_start_finds_the_blocks_of_a_block_diagonal_kernel(n):
    """Four disconnected groups of unequal size, each a sparse random graph (every point linked to
    5 random points of its group): the leading eigenvectors of D^-1/2 K D^-1/2 span the groups'
    indicators scaled by D^1/2, so the k-means on them returns the groups exactly."""
    rng = np.random.default_rng(1)
    sizes = np.array([n // 8, n // 4, 3 * n // 8, n - n // 8 - n // 4 - 3 * n // 8])
    truth = np.repeat(np.arange(4), sizes)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    i = np.repeat(np.arange(n), 5)
    j = first[truth[i]] + rng.integers(0, sizes[truth[i]])
    A = sparse.coo_matrix((np.ones(i.size), (i, j)), shape=(n, n)).tocsr()
    A.data[:] = 1.0
    K = (A.maximum(A.T) + sparse.identity(n)).tocsr()
    perm = np.random.default_rng(1).permutation(n)
    K, truth = K[perm][:, perm].tocsr(), truth[perm]
    for M in (K, K.toarray()) if n < 2000 else (K,):
        labels = spectral_labels(M, np.asarray(K.sum(axis=1)).ravel(), 4, np.random.default_rng(0))
        pairs = np.unique(np.column_stack([truth, labels]), axis=0)
        assert len(pairs) == 4 and len(np.unique(pairs[:, 1])) == 4


@pytest.mark.parametrize("links", [False, True])
def test_spectral_start_on_a_knn_kernel_reaches_the_dense_quality(links):
    """4 blobs, n = 2,000, k = 10 (docs/algorithms/sskk.md): from the spectral start SSKK on the
    sparse kernel reaches the dense kernel's ARI (0.94); the paper's farthest-first start finds
    most points at the same distance from every seed there and stays near ARI 0."""
    from sklearn.metrics import adjusted_rand_score

    from pairlab.benchcases.gmm import blobs
    from pairlab.links import random_pairs

    X, y = blobs(2000, 2, 4, std=1.5)
    c = random_pairs(y, 500, 500, np.random.default_rng(1)) if links else None
    params = {"n_clusters": 4, "n_neighbors": 10}
    spectral = Run("sskk", Dataset(X), c, {**params, "init": "spectral"}, seed=0).run()
    assert adjusted_rand_score(y, spectral.labels) > 0.9
    again = Run("sskk", Dataset(X), c, {**params, "init": "spectral"}, seed=0).run()
    assert np.array_equal(again.labels, spectral.labels)
