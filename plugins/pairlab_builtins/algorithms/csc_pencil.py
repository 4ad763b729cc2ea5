"""CSC's pencil when Q_bar - beta/vol I is positive definite, without a generalised solver.

After the Householder reflection that removes the trivial vector (:mod:`.csc`), the pencil is
L_t w = lambda B_t w with B_t = c I + V Qb_II V' (c = -beta/vol > 0, V = H[1:, I] for the linked
points I; Wang & Davidson 2010, the generalised eigenproblem of their relaxed problem). With
V = Y R (thin QR) and R Qb_II R' = E diag(g) E', B_t = c I + F diag(g) F' (F = Y E), so

    B_t^-1/2 = c^-1/2 I + V K_h V',     B_t^-1 = c^-1 I + V K_i V',
    K_h = R^-1 E diag((c+g)^-1/2 - c^-1/2) E' R^-T,   K_i likewise with (c+g)^-1 - c^-1,

and the pencil is the standard problem M x = lambda x, M = B_t^-1/2 L_t B_t^-1/2, w = B_t^-1/2 x /
sqrt(lambda) (w' L_t w = 1, as ``eigh(B_t, L_t)`` returns). M is L_t / c plus a rank-2r term built
from L_t V, which the reflection gives in O(n r) from the unreflected columns L[:, I]. The cost of
each eigenvector, v' L_bar v / v' v = 1 / |w|^2 = lambda / x' B_t^-1 x, needs only V' x: one
tridiagonal reduction of M (LAPACK ``dsytrd``), all eigenpairs of the tridiagonal matrix
(``dstevd``), and V' x = (Q_T' V)' s for every eigenvector s of it; the eigenvectors of least cost
are then back-transformed alone. Exact: the same eigenpairs as the generalised solver (tested).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

__all__ = ["definite_pencil"]


def _lt_times_v(L_I: np.ndarray, Lr0: np.ndarray, HI: np.ndarray, u: np.ndarray | None
                ) -> np.ndarray:
    """L_t V in O(n r): (H L H)[1:, 1:] H[1:, I] = (H L[:, I])[1:] - (H L H)[1:, 0] H[0, I]."""
    HL = L_I if u is None else L_I - 2.0 * np.outer(u, u @ L_I)
    return HL[1:] - np.outer(Lr0[1:], HI[0])


def definite_pencil(Lt: np.ndarray, Lr0: np.ndarray, L_I: np.ndarray, Qb_II: np.ndarray,
                    involved: np.ndarray, u: np.ndarray | None, c: float, n_vectors: int
                    ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The ``n_vectors`` pencil eigenpairs of least cost, as (mu = 1/lambda, W, number feasible).

    ``Lt`` is the reflected L_bar without its first row and column, ``Lr0`` the reflected L_bar's
    first column, ``L_I`` the unreflected columns L_bar[:, I], ``c`` = -beta/vol. Every eigenvector
    is feasible (lambda > 0) since B_t is positive definite. Returns None when B_t is not (safely)
    positive definite or R is singular (the caller then uses the generalised solver).
    """
    n = Lt.shape[0] + 1
    N, r = n - 1, involved.size
    if c <= 0 or n_vectors > N or r >= N:
        return None
    if r == 0:                          # B_t = c I: the least-cost vectors are the least-lambda ones
        lam, X = linalg.eigh(Lt, subset_by_index=[0, n_vectors - 1], driver="evr")
        return c / lam, X / np.sqrt(lam), N
    HI = np.zeros((n, r))
    HI[involved, np.arange(r)] = 1.0
    if u is not None:
        HI -= 2.0 * np.outer(u, u[involved])
    V = HI[1:]
    _, R = linalg.qr(V, mode="economic")
    Rd = np.abs(np.diag(R))
    if Rd.min() <= 1e-8 * Rd.max():
        return None
    g, E = linalg.eigh(R @ Qb_II @ R.T)
    if (c + g).min() <= 1e-8 * (c + g).max():
        return None
    RiE = linalg.solve_triangular(R, E, lower=False)          # R^-1 E
    Kh = (RiE * ((c + g) ** -0.5 - c ** -0.5)) @ RiE.T
    Ki = (RiE * (1.0 / (c + g) - 1.0 / c)) @ RiE.T
    Z = _lt_times_v(L_I, Lr0, HI, u)                           # L_t V
    Xm = c ** -0.5 * Z @ Kh + 0.5 * V @ (Kh @ (V.T @ Z) @ Kh)
    M = Lt / c
    rows = involved[involved > 0] - 1                          # V X' = E_I[1:] X' - 2 u u_I' X'
    cols = np.flatnonzero(involved > 0)
    M[rows, :] += Xm[:, cols].T
    M[:, rows] += Xm[:, cols]
    if u is not None:
        Xu = Xm @ u[involved]
        M -= 2.0 * (np.outer(u[1:], Xu) + np.outer(Xu, u[1:]))
    lwork = int(lapack.dsytrd_lwork(N, lower=1)[0])
    T, d, e, tau, info = lapack.dsytrd(M, lower=1, lwork=lwork, overwrite_a=1)
    if info != 0:
        return None
    lam, S, info = lapack.dstevd(d, e)
    if info != 0 or lam[0] <= 0:
        return None
    H_T = np.asfortranarray(T[1:, : N - 1])                   # Q_T = I (+) Householder product

    def apply_qt(C: np.ndarray, trans: str) -> np.ndarray:
        C = np.asfortranarray(C)
        if N > 1:
            lw = int(lapack.dormqr("L", trans, H_T, tau, C[1:], -1)[1][0])
            C[1:] = lapack.dormqr("L", trans, H_T, tau, C[1:], max(lw, 1))[0]
        return C

    P = apply_qt(V.copy(), "T").T @ S                          # V' x for every eigenvector x
    q = 1.0 / c + np.einsum("ij,ij->j", P, Ki @ P)             # x' B_t^-1 x
    cost = lam / q
    order = np.argsort(cost, kind="stable")[:n_vectors]
    X = apply_qt(S[:, order], "N")
    W = (c ** -0.5 * X + V @ (Kh @ (V.T @ X))) / np.sqrt(lam[order])
    return 1.0 / lam[order], W, N
