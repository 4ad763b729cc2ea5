"""CSC on a sparse k-nearest-neighbour affinity (issue 37): equal to the dense path on the complete
graph, clear errors where the sparse solver cannot go."""

import numpy as np
import pytest
from pairlab_builtins.algorithms.csc import constrained_embedding
from pairlab_builtins.algorithms.kernels import pairwise_kernel
from pairlab_builtins.algorithms.sparse_spectral import (
    knn_affinity,
    sparse_constrained_embedding,
)
from scipy import sparse

from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.errors import InvalidInputError
from pairlab.run import Run


def _blobs(n_per: int = 40) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(c, 1.0, (n_per, 2)) for c in ((0, 0), (5, 0), (0, 5))])


def _Q(n: int) -> np.ndarray:
    Q = np.zeros((n, n))
    for i, j, s in [(0, 50, 1.0), (1, 90, -1.0), (45, 85, 1.0), (3, 4, -1.0)]:
        Q[i, j] = Q[j, i] = s
    return Q


def test_complete_knn_affinity_is_the_dense_affinity():
    X = _blobs()
    n = len(X)
    Ad = pairwise_kernel(X, "rbf")
    np.fill_diagonal(Ad, 0.0)
    assert np.allclose(knn_affinity(X, n - 1).toarray(), Ad, rtol=0, atol=1e-12)
    assert knn_affinity(X, 3).nnz < n * 7           # sparse when k is small


@pytest.mark.parametrize("links", [False, True])
def test_sparse_embedding_equals_dense_on_complete_graph(links):
    X = _blobs()
    n = len(X)
    Ad = pairwise_kernel(X, "rbf")
    np.fill_diagonal(Ad, 0.0)
    Q = _Q(n) if links else np.zeros((n, n))
    dense = constrained_embedding(Ad, Q, 2)
    sp = sparse_constrained_embedding(knn_affinity(X, n - 1), sparse.csr_matrix(Q), 2,
                                      n_candidates=n - 1)
    assert sp["beta"] == pytest.approx(dense["beta"])
    assert np.allclose(sp["cost"], dense["cost"], rtol=1e-9)
    assert np.allclose(sp["U"], dense["U"], atol=1e-8)


def test_csc_with_n_neighbors_recovers_blobs_and_is_reproducible():
    X = _blobs()
    c = Constraints([(0, 1), (40, 41)], [(0, 40)], n_samples=len(X))
    data = Dataset(X)
    base = {"n_clusters": 3}
    a = Run("csc", data, c, {**base, "n_neighbors": 15}, seed=0).run()
    b = Run("csc", data, c, {**base, "n_neighbors": 15}, seed=0).run()
    assert np.array_equal(a.labels, b.labels)
    assert np.array_equal(a.extras["embedding"], b.extras["embedding"])
    from sklearn.metrics import adjusted_rand_score
    y = np.repeat(np.arange(3), 40)
    assert adjusted_rand_score(y, a.labels) > 0.9


def test_sparse_path_refuses_indefinite_pencil_and_disconnected_graph():
    X = _blobs()
    n = len(X)
    with pytest.raises(InvalidInputError, match="positive definite"):
        sparse_constrained_embedding(knn_affinity(X, n - 1), sparse.csr_matrix(_Q(n)), 2,
                                     beta=0.0)
    far = np.vstack([X, X + 1000.0])
    with pytest.raises(InvalidInputError, match="connected components"):
        sparse_constrained_embedding(knn_affinity(far, 3), sparse.csr_matrix((2 * n, 2 * n)), 2)
