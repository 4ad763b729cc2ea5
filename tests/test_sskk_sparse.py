"""SSKK on a sparse k-nearest-neighbour kernel (issue 37): the dense run on the complete graph,
a sparse eigensolver for sigma, clear errors."""

import itertools

import numpy as np
import pytest
from pairlab_builtins.algorithms.sskk import SSKK
from pairlab_builtins.algorithms.sskk_sparse import smallest_eigenvalue
from scipy import sparse

from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.errors import InvalidInputError
from pairlab.run import Run


def _blobs(n_per: int = 40) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(c, 1.0, (n_per, 2)) for c in ((0, 0), (5, 0), (0, 5))])


@pytest.mark.parametrize("init", ["farthest-first", "k-means++"])
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
