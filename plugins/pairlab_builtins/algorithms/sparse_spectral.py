"""Sparse k-nearest-neighbour affinities and CSC's eigenproblem on them (issue 37).

``knn_affinity`` keeps the RBF affinity exp(-|x - y|^2 / b) only on a symmetric k-nearest-
neighbour graph (the union of each point's k nearest, scipy's cKDTree), so memory is O(n k);
with k >= n - 1 it is the dense affinity. The default bandwidth b is the mean squared distance
over all pairs, computed in O(n d) as 2 sum_i |x_i - mean|^2 / (n - 1) (the dense path's value).

``sparse_constrained_embedding`` solves CSC's generalised eigenproblem (Wang & Davidson 2010;
see csc.py) L_bar v = lambda (Q_bar - beta/vol I) v on the orthogonal complement of D^1/2 1
without dense n x n matrices: shift-invert Lanczos (scipy's ``eigsh`` with a sparse LU factor of
L_bar + 1e-3 I) gives the ``n_candidates`` smoothest eigenvectors of L_bar orthogonal to
D^1/2 1; the pencil is solved exactly on their span (Rayleigh-Ritz) and the K - 1 Ritz vectors of
least cost v' L_bar v are kept. Without links B is a multiple of I and this is the dense path's
embedding; with links it is the dense answer restricted to that subspace, exact when the subspace
is the whole complement (n_candidates >= n / 5 uses it). It needs B positive definite (beta below
lambda_min(Q_bar) vol: the ``blend`` rule and the no-link default), so every vector is feasible.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg, sparse
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator, splu

from pairlab.errors import InvalidInputError

__all__ = [
    "knn_affinity",
    "knn_of_similarity",
    "mean_squared_distance_fast",
    "pair_matrix",
    "sparse_constrained_embedding",
]


def mean_squared_distance_fast(X: np.ndarray) -> float:
    """mean_{i != j} |x_i - x_j|^2 in O(n d): 2 sum_i |x_i - mean|^2 / (n - 1)."""
    n = X.shape[0]
    if n < 2:
        return 0.0
    Xc = X - X.mean(axis=0)
    return float(2.0 * np.einsum("ij,ij->", Xc, Xc) / (n - 1))


def _knn_pairs(X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    from scipy.spatial import cKDTree

    n = X.shape[0]
    _, idx = cKDTree(X).query(X, k=k + 1)
    idx = np.asarray(idx, dtype=np.int64).reshape(n, k + 1)
    rows = np.repeat(np.arange(n, dtype=np.int64), k + 1)
    cols = idx.ravel()
    keep = rows != cols
    return rows[keep], cols[keep]


def knn_affinity(X: np.ndarray, n_neighbors: int, bandwidth: float | None = None
                 ) -> sparse.csr_matrix:
    """Symmetric (n, n) CSR RBF affinity on the k-nearest-neighbour graph, zero diagonal."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    k = min(int(n_neighbors), n - 1)
    if k < 1:
        raise InvalidInputError("n_neighbors must be at least 1 and n at least 2.")
    b = mean_squared_distance_fast(X) if bandwidth is None else float(bandwidth)
    if not b > 0:
        b = 1.0
    rows, cols = _knn_pairs(X, k)
    d2 = np.einsum("ij,ij->i", X[rows] - X[cols], X[rows] - X[cols])
    A = sparse.csr_matrix((np.exp(-d2 / b), (rows, cols)), shape=(n, n))
    return A.maximum(A.T).tocsr()


def knn_of_similarity(S: np.ndarray, n_neighbors: int) -> sparse.csr_matrix:
    """Each row's k largest off-diagonal entries of a dense similarity, symmetrised (max)."""
    n = S.shape[0]
    k = min(int(n_neighbors), n - 1)
    off = np.array(S, dtype=float)
    off.flat[:: n + 1] = -np.inf
    idx = np.argsort(-off, axis=1, kind="stable")[:, :k]
    rows = np.repeat(np.arange(n), k)
    A = sparse.csr_matrix((off[rows, idx.ravel()], (rows, idx.ravel())), shape=(n, n))
    return A.maximum(A.T).tocsr()


def pair_matrix(n: int, constraints: Any, weight: float = 1.0) -> sparse.csr_matrix:
    """Symmetric sparse matrix: +w c on must-links, -w c on cannot-links (c the confidence)."""
    rows, cols, vals = [], [], []
    for pairs, conf, sign in ((constraints.must_link, constraints.ml_confidence, 1.0),
                              (constraints.cannot_link, constraints.cl_confidence, -1.0)):
        if len(pairs):
            v = sign * weight * np.broadcast_to(np.asarray(conf, dtype=float), (len(pairs),))
            rows += [pairs[:, 0], pairs[:, 1]]
            cols += [pairs[:, 1], pairs[:, 0]]
            vals += [v, v]
    if not rows:
        return sparse.csr_matrix((n, n))
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(n, n))


def _low_subspace(Lb: sparse.csr_matrix, v0: np.ndarray, m: int, shift: float = 1e-3) -> np.ndarray:
    """Orthonormal basis of the m eigenvectors of least eigenvalue of L_bar orthogonal to v0.

    Shift-invert Lanczos (scipy's ``eigsh`` with a sparse LU factor of L_bar + shift I, fixed
    start): the m + 1 eigenvalues nearest -shift, i.e. the smallest, converge in a few dozen
    solves; the trivial pair (0, v0) is the one most aligned with v0 and is dropped. (LOBPCG
    preconditioned by the same factor needed ten times the time at n = 10^4, issue 37.)"""
    from scipy.sparse.linalg import eigsh

    n = Lb.shape[0]
    lu = splu((Lb + shift * sparse.identity(n, format="csr")).tocsc())
    op = LinearOperator((n, n), matvec=lu.solve, dtype=float)
    start = np.random.default_rng(0).standard_normal(n)
    _, V = eigsh(Lb, k=m + 1, sigma=-shift, which="LM", OPinv=op, v0=start, tol=1e-10)
    trivial = int(np.argmax(np.abs(v0 @ V)))
    P = np.delete(V, trivial, axis=1)
    P, _ = np.linalg.qr(P - v0[:, None] * (v0 @ P)[None, :])
    return P


def sparse_constrained_embedding(A: sparse.csr_matrix, Q: sparse.csr_matrix, n_vectors: int,
                                 beta: float | None = None, beta_rule: str = "blend",
                                 n_candidates: int | None = None) -> dict[str, Any]:
    """CSC's embedding from a sparse affinity ``A`` (zero diagonal) and sparse ``Q``.

    Returns the same keys as :func:`csc.constrained_embedding`. ``n_candidates`` (default
    max(2 n_vectors, n_vectors + 8)) eigenvectors of least lambda are computed.
    """
    from .csc_beta import default_beta

    n = A.shape[0]
    d = np.asarray(A.sum(axis=1)).ravel()
    if np.any(d <= 0):
        raise InvalidInputError(
            f"{int(np.sum(d <= 0))} point(s) have no affinity to any other point (isolated in the "
            "graph); use a larger bandwidth or n_neighbors.")
    n_comp, _ = connected_components(A, directed=False)
    if n_comp > 1:
        raise InvalidInputError(
            f"the k-nearest-neighbour graph has {n_comp} connected components; use a larger "
            "n_neighbors or cluster each component separately.")
    vol = float(d.sum())
    s = 1.0 / np.sqrt(d)
    S = sparse.diags(s)
    Lb = (sparse.identity(n, format="csr") - S @ A @ S).tocsr()
    Qb = (S @ Q @ S).tocsr()
    involved = np.unique(Q.nonzero()[0])
    eig_Qb = (linalg.eigvalsh(Qb[involved][:, involved].toarray()) if involved.size
              else np.zeros(1))
    lam_max = float(eig_Qb[-1])
    if beta is None:
        beta = default_beta(eig_Qb, vol, beta_rule, n_vectors + 1) if lam_max > 0 else -vol
    lam_min_all = min(float(eig_Qb[0]), 0.0) if involved.size < n else float(eig_Qb[0])
    if not beta < lam_min_all * vol:
        raise InvalidInputError(
            f"with n_neighbors, beta={beta:.6g} must be below lambda_min(Q_bar) * vol = "
            f"{lam_min_all * vol:.6g} (Q_bar - beta/vol I positive definite); use "
            "beta_rule='blend' or the dense path (n_neighbors unset).")
    B = (Qb - (beta / vol) * sparse.identity(n, format="csr")).tocsr()
    v0 = np.sqrt(d) / np.sqrt(vol)
    m = min(n - 1, n_candidates or max(4 * n_vectors, n_vectors + 16))
    if 5 * m >= n:                       # small problem: the whole complement, exact pencil
        P = linalg.null_space(v0[None, :])
    else:
        P = _low_subspace(Lb, v0, m)
    mu, Z = linalg.eigh(P.T @ (B @ P), P.T @ (Lb @ P))   # Ritz pairs of B w = mu L w
    lam = 1.0 / mu
    V = P @ Z
    V = V - v0[:, None] * (v0 @ V)[None, :]        # remove round-off along the trivial vector
    V *= np.sqrt(vol) / np.linalg.norm(V, axis=0)
    cost = np.einsum("ij,ij->j", V, Lb @ V)
    order = np.argsort(cost, kind="stable")[:n_vectors]
    V, lam = V[:, order], lam[order]
    big = np.argmax(np.abs(V), axis=0)
    V *= np.sign(V[big, np.arange(V.shape[1])])
    return {
        "U": s[:, None] * V, "V": V, "cost": np.einsum("ij,ij->j", V, Lb @ V),
        "satisfaction": np.einsum("ij,ij->j", V, Qb @ V), "lam": lam, "beta": float(beta),
        "lambda_max": lam_max, "vol": vol, "n_feasible": int(m),
    }
