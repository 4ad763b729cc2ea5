"""Flexible constrained spectral clustering (CSC): Wang & Davidson (2010).

"Flexible constrained spectral clustering", KDD 2010, pp. 563-572. With the affinity A, degrees
D = diag(A 1), vol = sum_i D_ii, the normalised Laplacian L_bar = I - D^-1/2 A D^-1/2 and the
normalised constraint matrix Q_bar = D^-1/2 Q D^-1/2 (Q_ij = Q_ji = +c for a must-link of
confidence c, -c for a cannot-link, 0 otherwise: the paper's degree-of-belief constraints), the
relaxed problem is

    min_v v' L_bar v   s.t.   v' Q_bar v >= beta,   v' v = vol,   v != D^1/2 1,

and the paper reduces it to the generalised eigenproblem

    L_bar v = lambda (Q_bar - beta / vol I) v,

whose eigenvectors with lambda > 0 are the feasible ones (v' Q_bar v >= beta for them). The
algorithm: feasible eigenvectors, normalised to v' v = vol; the K - 1 of least cost v' L_bar v;
u = D^-1/2 v; k-means on the rows of U (beta must be below lambda_max(Q_bar) vol, else nothing is
feasible). With no constraints (Q = 0, beta < 0) every non-trivial eigenvector of L_bar is feasible
and the embedding is normalised spectral clustering's.

Choices (docs/algorithms/csc.md): the pencil is solved on the orthogonal complement of the trivial
vector D^1/2 1 (the constraint v != D^1/2 1 read as v orthogonal to it, as in spectral
clustering), where L_bar is positive definite for a connected graph, so a symmetric-definite solver
applies; the affinity's diagonal is set to 0 (no self-loops; scikit-learn's spectral embedding also
ignores it); beta None follows ``beta_rule`` (default ``blend``: 2 lambda_min(Q_bar) vol, see
:func:`default_beta`; -vol without links, where every negative beta gives the same embedding);
each step of the
stepper is one Lloyd iteration of k-means in the embedding.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from pairlab import Algorithm, Param, State, hookimpl
from pairlab.centroids import cluster_means
from pairlab.errors import InvalidInputError
from pairlab.explanation import Explanation
from pairlab.mixture import kmeans_plusplus

from .csc_affinity import BANDWIDTH_RULES, variance_scaled
from .csc_beta import BETA_RULES, default_beta
from .csc_pencil import definite_pencil
from .csc_subspace import certified_pencil
from .explain_csc import csc_explain
from .kernels import pairwise_kernel

__all__ = ["CSC", "constrained_embedding", "default_beta"]


def _reflect(M: np.ndarray, u: np.ndarray) -> np.ndarray:
    """H M H for the Householder reflection H = I - 2 u u' (|u| = 1), in O(n^2)."""
    Mu = M @ u
    return (M - 2.0 * np.outer(u, Mu) - 2.0 * np.outer(Mu, u)
            + 4.0 * float(u @ Mu) * np.outer(u, u))


def _low_rank_pencil(Lt: np.ndarray, Q_II: np.ndarray, involved: np.ndarray, u: np.ndarray | None,
                     n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The pencil's eigenpairs with mu != 0 when beta = 0, from a problem of the linked points' size.

    With beta = 0, B = Q_bar is supported on the linked points I, so after the reflection
    B_t = V Q_II V' with V = H[1:, I]. Every eigenvector with mu != 0 is w = L_t^-1 V z with
    Q_II G z = mu z, G = V' L_t^-1 V = R'R (Cholesky), i.e. R Q_II R' y = mu y, z = R^-1 y. The
    eigenvectors with mu = 0 are infeasible (lambda > 0 is needed), so nothing is lost. Returns
    (None, None) when a factorisation fails (the caller then solves the full pencil).
    """
    H_I = np.zeros((n, involved.size))
    H_I[involved, np.arange(involved.size)] = 1.0
    if u is not None:
        H_I -= 2.0 * np.outer(u, u[involved])
    V = H_I[1:]
    try:
        C = linalg.cho_factor(Lt, lower=True)
        LiV = linalg.cho_solve(C, V)
        R = linalg.cholesky(V.T @ LiV, lower=False)
    except linalg.LinAlgError:
        return None, None
    mu, Y = linalg.eigh(R @ Q_II @ R.T)
    Z = linalg.solve_triangular(R, Y, lower=False)
    W = LiV @ Z
    W /= np.sqrt(np.einsum("ij,ij->j", W, Lt @ W))       # w' L_t w = 1, as eigh returns
    return mu, W


def _dense_pencil(L: np.ndarray, L_I: np.ndarray, Q_II: np.ndarray, involved: np.ndarray,
                  u: np.ndarray | None, b: float, n_vectors: int, solver: str
                  ) -> tuple[np.ndarray, np.ndarray, int | None, str]:
    """The pencil on the reflected complement by a dense path: (mu, W, number feasible or None,
    path): ``low-rank`` (b = 0), ``reduced`` (b < 0, :func:`.csc_pencil.definite_pencil`) or
    ``generalised`` (LAPACK's ``eigh(B_t, L_t)``)."""
    n = L.shape[0]
    if u is not None:
        L = _reflect(L, u)
    Lt = L[1:, 1:]
    if b == 0 and 0 < involved.size < n:
        mu, W = _low_rank_pencil(Lt, Q_II, involved, u, n)
        if mu is not None:
            return mu, W, None, "low-rank"
    elif b < 0 and solver != "generalised":
        out = definite_pencil(Lt, L[:, 0], L_I, Q_II, involved, u, -b, n_vectors)
        if out is not None:
            return *out, "reduced"
    B = np.zeros((n, n))
    B[np.ix_(involved, involved)] = Q_II
    B.flat[:: n + 1] -= b
    if u is not None:
        B = _reflect(B, u)
    try:
        mu, W = linalg.eigh(B[1:, 1:], Lt)   # B w = mu L w, w' L w = 1; lambda = 1 / mu
    except linalg.LinAlgError:
        raise InvalidInputError(
            "the normalised Laplacian is numerically singular off the trivial vector (a "
            "nearly disconnected affinity graph); use a larger bandwidth.") from None
    return mu, W, None, "generalised"


def constrained_embedding(A: np.ndarray, Q: np.ndarray, n_vectors: int, beta: float | None = None,
                          beta_rule: str = "blend", solver: str = "auto", psd: bool = False
                          ) -> dict[str, Any]:
    """Solve the CSC eigenproblem; return the embedding U (n, m <= n_vectors) and its details.

    ``A`` is the affinity (zero diagonal), ``Q`` the constraint matrix. The result holds ``U``
    (u = D^-1/2 v of the chosen eigenvectors, least cost first), ``V`` (v, |v|^2 = vol), ``cost``
    (v' L_bar v), ``lam`` (their eigenvalues lambda), ``satisfaction`` (v' Q_bar v), ``beta``,
    ``lambda_max`` (of Q_bar), ``vol`` and ``solver`` (the path that solved it). ``beta`` None: the
    value of ``beta_rule`` (:func:`default_beta`); -vol without links. ``solver``: ``auto``
    (default) tries the certified subspace solve (:func:`.csc_subspace.certified_pencil`; only
    when ``psd``, i.e. A + I is positive semidefinite as an RBF kernel matrix, and Q_bar -
    beta/vol I is positive definite) and else ``reduced``: a positive definite pencil as a standard
    problem (:func:`.csc_pencil.definite_pencil`); ``generalised`` always with LAPACK's generalised
    solver (the reference the tests compare with). All paths give the same pairs (tested).
    """
    if solver not in ("auto", "reduced", "generalised"):
        raise InvalidInputError(
            f"solver must be 'auto', 'reduced' or 'generalised', got {solver!r}.")
    n = A.shape[0]
    d = A.sum(axis=1)
    if np.any(d <= 0):
        raise InvalidInputError(
            f"{int(np.sum(d <= 0))} point(s) have no affinity to any other point (isolated in the "
            "graph); use a larger bandwidth or remove them.")
    pos = A > 0
    # a point with an edge to every other makes the graph connected (the usual dense RBF case)
    n_comp = 1 if (pos.sum(axis=1) - pos.diagonal()).max() >= n - 1 else connected_components(
        csr_matrix(pos), directed=False)[0]
    if n_comp > 1:
        raise InvalidInputError(
            f"the affinity graph has {n_comp} connected components (the normalised Laplacian is "
            "singular off the trivial vector); use a larger bandwidth or cluster each component "
            "separately.")
    vol = float(d.sum())
    s = 1.0 / np.sqrt(d)
    L = -(s[:, None] * A * s[None, :])
    L.flat[:: n + 1] += 1.0
    involved = np.flatnonzero(np.any(Q != 0, axis=1))
    Qb_II = s[involved, None] * Q[np.ix_(involved, involved)] * s[None, involved]   # Q_bar on I
    eig_Qb = linalg.eigvalsh(Qb_II) if involved.size else np.zeros(1)
    lam_max = float(eig_Qb[-1])
    if beta is None:
        beta = default_beta(eig_Qb, vol, beta_rule, n_vectors + 1) if lam_max > 0 else -vol
    if beta >= lam_max * vol:
        raise InvalidInputError(
            f"beta={beta:.6g} is not below lambda_max(Q_bar) * vol = {lam_max * vol:.6g}: no "
            "embedding satisfies the constraints that much; lower beta (or leave it unset).")
    # orthogonal complement of the trivial vector v0 = D^1/2 1 / |.| by a Householder reflection
    v0 = np.sqrt(d) / np.sqrt(vol)
    e1 = np.zeros(n)
    e1[0] = 1.0
    u = v0 - e1
    nu = np.linalg.norm(u)
    if nu < 1e-12:                     # v0 is already e1: H = I - 2 e2 e2' keeps it; use identity
        u = None
    else:
        u /= nu
    L_I = L[:, involved]
    mu = W = n_feasible = None
    if beta < 0 and solver == "auto" and psd and eig_Qb[0] - beta / vol > 0:
        out = certified_pencil(L, u, Qb_II, involved, -beta / vol, n_vectors, d)
        if out is not None:
            mu, W, n_feasible = out
            used = "subspace"
    if mu is None:
        mu, W, n_feasible, used = _dense_pencil(L, L_I, Qb_II, involved, u, beta / vol, n_vectors,
                                                solver)
    scale = max(1.0, float(np.abs(mu).max(initial=0.0)))
    feasible = np.flatnonzero(mu > 1e-12 * scale)
    if feasible.size == 0:
        raise InvalidInputError("no eigenvector satisfies the constraints; lower beta.")
    norms2 = np.einsum("ij,ij->j", W[:, feasible], W[:, feasible])
    cost = vol / norms2                # v' L_bar v with v' v = vol
    order = feasible[np.argsort(cost, kind="stable")][:n_vectors]
    Wc = W[:, order]
    Vfull = np.vstack([np.zeros((1, Wc.shape[1])), Wc])
    if u is not None:
        Vfull = Vfull - 2.0 * np.outer(u, u @ Vfull)
    Vfull *= np.sqrt(vol) / np.linalg.norm(Vfull, axis=0)
    # deterministic signs: the entry of largest magnitude positive (as scikit-learn's embedding)
    big = np.argmax(np.abs(Vfull), axis=0)
    Vfull *= np.sign(Vfull[big, np.arange(Vfull.shape[1])])
    Lbar_v = Vfull - s[:, None] * (A @ (s[:, None] * Vfull))
    return {
        "U": s[:, None] * Vfull, "V": Vfull,
        "cost": np.einsum("ij,ij->j", Vfull, Lbar_v),
        "satisfaction": np.einsum("ij,ij->j", Vfull[involved], Qb_II @ Vfull[involved]),
        "lam": 1.0 / mu[order], "beta": float(beta), "lambda_max": lam_max, "vol": vol,
        "n_feasible": int(feasible.size if n_feasible is None else n_feasible), "solver": used,
    }


class CSC(Algorithm):
    """Flexible constrained spectral clustering (Wang & Davidson 2010).

    Iteration 0 solves the generalised eigenproblem and seeds k-means (k-means++ via ``self.rng``)
    in the embedding; each step is one Lloyd iteration there. States: ``labels``;
    ``model["centers"]`` the input-space mean of each cluster; ``objective`` the k-means inertia in
    the embedding; ``extras["embedding"]`` the (n, K-1) embedding U and the cost, constraint
    satisfaction and eigenvalue of each of its vectors.
    """

    name = "csc"
    title = "CSC (flexible constrained spectral clustering)"
    citation = ("Wang & Davidson (2010), Flexible constrained spectral clustering, KDD 2010, "
                "pp. 563-572")
    params = (
        Param("n_clusters", int, 2, "number of clusters K (K - 1 eigenvectors)", low=1),
        Param("affinity", str, "rbf",
              "rbf: exp(-|x-y|^2 / bandwidth); precomputed: X is the (n, n) affinity matrix",
              choices=("rbf", "precomputed")),
        Param("bandwidth", float, None,
              "RBF bandwidth b: exp(-|x-y|^2 / b); none = bandwidth_rule's affinity",
              low=0.0, low_open=True, nullable=True),
        Param("bandwidth_rule", str, "variance",
              "RBF affinity when bandwidth is unset: variance = exp(-sum_m (x_m-y_m)^2 / "
              "(2 var_m)) (the authors' code), mean-sq = exp(-|x-y|^2 / mean squared distance "
              "between all pairs) (GM-PR's setting)", choices=BANDWIDTH_RULES),
        Param("beta", float, None,
              "threshold beta on v' Q_bar v (below lambda_max(Q_bar) vol); none = beta_rule's "
              "value, or -vol without links", nullable=True),
        Param("beta_rule", str, "blend",
              "beta when unset: blend = 2 lambda_min(Q_bar) vol (every eigenvector feasible), "
              "zero = 0, authors = the authors' K-way code (between the K-th and (K+1)-th "
              "largest |eigenvalue| of Q_bar)", choices=BETA_RULES),
        Param("max_iter", int, 100, "maximum number of k-means iterations in the embedding", low=1),
        Param("n_neighbors", int, None,
              "none: dense n x n affinity; k: affinity only on a symmetric k-nearest-neighbour "
              "graph and a sparse eigensolver (memory O(n k); needs beta below "
              "lambda_min(Q_bar) vol, as beta_rule=blend gives)", nullable=True, low=1),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        n = self.dataset.n_samples
        k = self.params["n_clusters"]
        if k > n:
            raise InvalidInputError(f"n_clusters={k} exceeds the number of points ({n}).")
        if n < 2:
            raise InvalidInputError("csc needs at least 2 points; got 1 sample.")
        if self.params["n_neighbors"] is not None:
            self.solution = self._sparse_solution(k)
            return
        X, bandwidth = self._rbf_input()
        A = pairwise_kernel(X, "precomputed" if self.params["affinity"] == "precomputed"
                            else "rbf", bandwidth)
        if np.any(A < 0):
            raise InvalidInputError("the affinity matrix must be non-negative.")
        A.flat[:: n + 1] = 0.0
        c = self.constraints
        Q = np.zeros((n, n))
        for pairs, conf, sign in ((c.must_link, c.ml_confidence, 1.0),
                                  (c.cannot_link, c.cl_confidence, -1.0)):
            if len(pairs):
                np.add.at(Q, (pairs[:, 0], pairs[:, 1]), sign * conf)
                np.add.at(Q, (pairs[:, 1], pairs[:, 0]), sign * conf)
        self.solution = constrained_embedding(A, Q, max(k - 1, 1), self.params["beta"],
                                              self.params["beta_rule"],
                                              psd=self.params["affinity"] == "rbf")

    def _rbf_input(self) -> tuple[np.ndarray, float | None]:
        """(X, bandwidth) for the RBF affinity: with ``bandwidth_rule="variance"`` and no bandwidth,
        X / sqrt(2 var_m) and b = 1 (:func:`.csc_affinity.variance_scaled`)."""
        p = self.params
        if p["affinity"] == "rbf" and p["bandwidth"] is None and p["bandwidth_rule"] == "variance":
            return variance_scaled(self.X), 1.0
        return self.X, p["bandwidth"]

    def _sparse_solution(self, k: int) -> dict[str, Any]:
        from .sparse_spectral import (
            knn_affinity,
            knn_of_similarity,
            pair_matrix,
            sparse_constrained_embedding,
        )

        p = self.params
        if p["affinity"] == "precomputed":
            S = pairwise_kernel(self.X, "precomputed")
            if np.any(S < 0):
                raise InvalidInputError("the affinity matrix must be non-negative.")
            A = knn_of_similarity(S, p["n_neighbors"])
        else:
            X, bandwidth = self._rbf_input()
            A = knn_affinity(X, p["n_neighbors"], bandwidth)
        Q = pair_matrix(self.dataset.n_samples, self.constraints)
        return sparse_constrained_embedding(A, Q, max(k - 1, 1), p["beta"], p["beta_rule"])

    def _state(self, iteration: int, centers: np.ndarray) -> State:
        U = self.solution["U"]
        d2 = ((U[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        labels = d2.argmin(axis=1)
        k = centers.shape[0]
        means = cluster_means(self.X, labels, np.zeros((k, self.X.shape[1])))
        model = {"embedding_centers": centers}
        if self.params["affinity"] != "precomputed":
            model["centers"] = means
        sol = self.solution
        return State(iteration, labels, objective=float(d2[np.arange(labels.size), labels].sum()),
                     objective_name="k-means inertia in the embedding", model=model,
                     extras={"embedding": sol["U"], "cost": sol["cost"],
                             "satisfaction": sol["satisfaction"], "eigenvalues": sol["lam"],
                             "beta": sol["beta"], "lambda_max": sol["lambda_max"],
                             "n_feasible": sol["n_feasible"]})

    def initialize(self) -> State:
        U = self.solution["U"]
        return self._state(0, kmeans_plusplus(U, self.params["n_clusters"], self.rng))

    def step(self, state: State) -> State:
        centers = cluster_means(self.solution["U"], state.labels, state.model["embedding_centers"])
        return self._state(state.iteration + 1, centers)

    def converged(self, previous: State, current: State) -> bool:
        return bool(np.array_equal(previous.labels, current.labels))

    def explain(self, state: State, index: int) -> Explanation:
        """The embedding coordinates and distances to the embedding centres behind the label."""
        return csc_explain(self, state, index)


@hookimpl
def pairlab_algorithms():
    return [CSC]
