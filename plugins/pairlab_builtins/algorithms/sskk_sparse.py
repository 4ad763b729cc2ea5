"""SSKK on a sparse k-nearest-neighbour kernel (``n_neighbors``, issue 37).

Kulis et al. (2009) run kernel k-means on K_tilde = sigma I + K + W (section 4 of the paper; see
sskk.py). With ``n_neighbors`` the kernel K keeps the RBF values exp(-|x - y|^2 / b) only on the
symmetric k-nearest-neighbour graph of :func:`.sparse_spectral.knn_affinity` plus its diagonal
(k(x, x) = 1), so K, W and K_tilde are sparse (O(n k + links) memory) and a step costs one sparse
product K_tilde Z. The shift sigma (the smallest making K_tilde positive semi-definite) comes from
a sparse eigensolver: Lanczos (scipy's ``eigsh``) for the smallest eigenvalue of K + W. When the
graph is complete (k >= n - 1) K is the dense path's kernel and the run is the dense one up to
round-off (the bandwidth's sum and the eigensolver's tolerance).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import sparse

from pairlab.errors import InvalidInputError

__all__ = ["dense_row", "diagonal", "smallest_eigenvalue", "sparse_farthest_first", "sparse_kernel",
           "spectral_labels"]


def diagonal(K: np.ndarray | sparse.spmatrix) -> np.ndarray:
    """The diagonal of a dense or sparse square matrix as a 1-D array."""
    return K.diagonal() if sparse.issparse(K) else np.diag(K)


def dense_row(K: np.ndarray | sparse.spmatrix, i: int) -> np.ndarray:
    """Row i of a dense or sparse matrix as a 1-D dense array."""
    return K.getrow(i).toarray().ravel() if sparse.issparse(K) else np.asarray(K[i])


def sparse_kernel(X: np.ndarray, kernel: str, n_neighbors: int, bandwidth: float | None
                  ) -> tuple[sparse.csr_matrix, float | None]:
    """(K, b): the kernel kept on the symmetric kNN graph, diagonal included, as CSR; b the RBF
    bandwidth used (None for 'precomputed'). 'linear' has no neighbourhood meaning: refused."""
    from .kernels import square_matrix
    from .sparse_spectral import knn_affinity, knn_of_similarity, mean_squared_distance_fast

    n = X.shape[0]
    if n < 2:
        raise InvalidInputError("sskk with n_neighbors needs at least 2 points.")
    if kernel == "linear":
        raise InvalidInputError("n_neighbors needs kernel='rbf' or 'precomputed'; a linear kernel "
                                "has no neighbourhood to keep.")
    if kernel == "precomputed":
        S = square_matrix(X, "kernel (similarity) matrix")
        A, b = knn_of_similarity(S, n_neighbors), None
        diag = np.diag(S).copy()
    else:
        b = mean_squared_distance_fast(X) if bandwidth is None else float(bandwidth)
        if not b > 0:
            b = 1.0
        A, diag = knn_affinity(X, n_neighbors, b), np.ones(n)
    return (A + sparse.diags(diag)).tocsr(), b


def smallest_eigenvalue(M: sparse.csr_matrix) -> float:
    """The smallest eigenvalue of the symmetric sparse M (dense LAPACK below 2,000 rows)."""
    n = M.shape[0]
    if n < 2000:
        return float(np.linalg.eigvalsh(M.toarray())[0])
    from scipy.sparse.linalg import eigsh

    v0 = np.random.default_rng(0).standard_normal(n)          # fixed start: same seed, same sigma
    return float(eigsh(M, k=1, which="SA", v0=v0, tol=1e-10, return_eigenvectors=False)[0])


def sparse_farthest_first(Kt: sparse.csr_matrix, candidates: list[np.ndarray], chosen: list[int],
                          k: int) -> list[int]:
    """Farthest-first over candidate groups with feature-space distances between their means,
    |m_x - m_c|^2 = m_x'Km_x + m_c'Km_c - 2 m_x'K m_c, without a dense (n, candidates) matrix."""
    n, m = Kt.shape[0], len(candidates)
    sizes = np.array([g.size for g in candidates])
    Z = sparse.csr_matrix((np.repeat(1.0 / sizes, sizes),
                           (np.concatenate(candidates), np.repeat(np.arange(m), sizes))), shape=(n, m))
    KZ = (Kt @ Z).tocsr()
    norms = np.asarray(Z.multiply(KZ).sum(axis=0)).ravel()
    Zc = Z.tocsc()

    def dist(c: int) -> np.ndarray:
        return norms + norms[c] - 2.0 * (Zc[:, c].T @ KZ).toarray().ravel()

    return farthest_first(dist, chosen, k)


def farthest_first(dist: Callable[[int], np.ndarray], chosen: list[int], k: int) -> list[int]:
    """Add to ``chosen`` the candidate farthest from all chosen ones until there are ``k``;
    ``dist(c)`` is the distance of every candidate to candidate ``c``."""
    nearest = np.min([dist(c) for c in chosen], axis=0)
    while len(chosen) < k:
        nearest[chosen] = -np.inf
        nxt = int(np.argmax(nearest))
        chosen.append(nxt)
        nearest = np.minimum(nearest, dist(nxt))
    return chosen


def spectral_labels(Kt: np.ndarray | sparse.spmatrix, degrees: np.ndarray, k: int,
                    rng: np.random.Generator, max_iter: int = 300) -> np.ndarray:
    """A start for kernel k-means: Lloyd's k-means (k-means++ seeds) on the rows of the k leading
    eigenvectors of D^-1/2 ``Kt`` D^-1/2, D = diag(``degrees``) (the kernel's row sums).

    Dhillon, Guan & Kulis (2004) show that weighted kernel k-means with the degrees as weights is
    the normalised cut, whose spectral relaxation is these eigenvectors; used only to start the
    unweighted iterations of SSKK. Pass K + W without the shift sigma I: in the normalised cut's
    kernel the shift is sigma D^-1, a constant after the scaling, while sigma I scaled by D^-1/2
    would favour the nodes of smallest degree. Without D (ratio association) the leading
    eigenvectors of a k-nearest-neighbour kernel sit on its densest spots, not on clusters
    (measured, sskk.md). Degrees that are not all positive fall back to D = I."""
    from pairlab.centroids import cluster_means
    from pairlab.mixture import kmeans_plusplus

    n = Kt.shape[0]
    scale = 1.0 / np.sqrt(degrees) if np.all(degrees > 0) else np.ones(n)
    if sparse.issparse(Kt) and n >= 2000 and k < n - 1:
        from scipy.sparse.linalg import eigsh

        M = (sparse.diags(scale) @ Kt @ sparse.diags(scale)).tocsr()
        v0 = np.random.default_rng(0).standard_normal(n)        # fixed start: same seed, same bits
        _, V = eigsh(M, k=k, which="LA", v0=v0, tol=1e-8)
    else:
        dense = Kt.toarray() if sparse.issparse(Kt) else np.asarray(Kt)
        V = np.linalg.eigh(scale[:, None] * dense * scale[None, :])[1][:, n - k:]
    centers = kmeans_plusplus(V, k, rng)
    labels = np.full(n, -1)
    for _ in range(max_iter):
        d2 = (V**2).sum(axis=1)[:, None] - 2.0 * V @ centers.T + (centers**2).sum(axis=1)
        new = np.argmin(d2, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        centers = cluster_means(V, labels, centers)
    return labels
