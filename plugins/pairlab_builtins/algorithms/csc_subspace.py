"""CSC's definite pencil without a tridiagonal reduction: a subspace solve with a certificate.

The pencil (Wang & Davidson 2010, the generalised eigenproblem of their relaxed problem), after
the reflection that removes the trivial vector (:mod:`.csc`): L_t w = lambda B_t w, B_t = c I +
V G V' (c = -beta/vol > 0, V = H[1:, I], G = Q_bar on the linked points I). With the RBF affinity
A = K - I (K the kernel matrix, positive semidefinite, unit diagonal), L_t = I + D_t - K_t with
D_t = (H D^-1 H)[1:, 1:] >= min(1/d) I and K_t = (H D^-1/2 K D^-1/2 H)[1:, 1:] >= 0, so

    every unit w:   w' L_t w >= 1 + min(1/d) - w' K_t w.

Solve: a Rayleigh-Ritz of the pencil on span(V, Y), Y an orthonormal basis of K_t's dominant
range (K_t times a fixed random block), then Davidson steps (diagonal preconditioner, the basis
kept L_t-orthonormal, restarted from the 4m Ritz vectors of least cost) until the m Ritz pairs of
least cost v'L v / v'v solve the pencil to rounding (relative residual <= 1e-12). L_t is applied
as H L H without forming it.

Certificate (why no other eigenvector is cheaper): every other eigenvector w is L_t-orthogonal
to the m found, i.e. in U = (L_t W)^perp, and with Pi the projector on Y, t the trace of
(I - Pi) K_t (I - Pi) (= tr K_t - tr Y'K_t Y, a bound on its norm as K_t >= 0) and any eta > 0,
K_t <= (1 + eta) Pi K_t Pi + (1 + 1/eta) t I, so on U

    w' L_t w / w'w >= 1 + min(1/d) - (1 + eta) lambda_max(Y'P_U Y Theta) - (1 + 1/eta) t,

Theta = Y'K_t Y: a p x p eigenproblem. When that bound exceeds the largest of the n_vectors chosen
costs, they are the pencil's cheapest eigenvectors, as the dense solver's. Otherwise (K_t not
numerically low-rank: many dimensions, a small bandwidth; or no certificate) it returns None and the
caller uses the dense solver (:func:`.csc_pencil.definite_pencil`).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

__all__ = ["certified_pencil"]

_EPS = np.finfo(float).eps
_TOL = 1e-13                  # backward error of a converged pair (_davidson)


class _Reflected:
    """The reflected operators L_t, D_t, B_t, V, V' of one problem, from the unreflected L."""

    def __init__(self, L: np.ndarray, u: np.ndarray | None, involved: np.ndarray,
                 G: np.ndarray, c: float, d: np.ndarray) -> None:
        self.L, self.u, self.I, self.G, self.c, self.dinv = L, u, involved, G, c, 1.0 / d
        self.n = L.shape[0]

    def h(self, F: np.ndarray) -> np.ndarray:
        """H F, H = I - 2 u u'."""
        return F if self.u is None else F - 2.0 * np.outer(self.u, self.u @ F)

    def full(self, X: np.ndarray) -> np.ndarray:
        return self.h(np.vstack([np.zeros((1, X.shape[1])), X]))

    def lt(self, X: np.ndarray) -> np.ndarray:
        """L_t X = (H L H [0; X])[1:]."""
        return self.h(self.L @ self.full(X))[1:]

    def d_t(self, X: np.ndarray) -> np.ndarray:
        """D_t X = (H D^-1 H [0; X])[1:]."""
        return self.h(self.full(X) * self.dinv[:, None])[1:]

    def vt(self, X: np.ndarray) -> np.ndarray:
        """V' X = (H [0; X])[I]."""
        return self.full(X)[self.I]

    def v(self, Z: np.ndarray) -> np.ndarray:
        """V Z = (H E_I Z)[1:]."""
        F = np.zeros((self.n, Z.shape[1]))
        F[self.I] = Z
        return self.h(F)[1:]

    def b(self, X: np.ndarray) -> np.ndarray:
        """B_t X = c X + V G V' X."""
        return self.c * X + (self.v(self.G @ self.vt(X)) if self.I.size else 0.0)

    def diagonals(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(diag L_t, an approximate diag B_t for the preconditioner, trace L_t)."""
        dl = np.diag(self.L).copy()
        if self.u is not None:
            Lu = self.L @ self.u
            dl += -4.0 * self.u * Lu + 4.0 * float(self.u @ Lu) * self.u ** 2
        db = np.full(self.n, self.c)
        db[self.I] += np.diag(self.G)
        return dl[1:], db[1:], float(dl[1:].sum())


def _range(op: _Reflected, N: int, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Y, L_t Y, Theta = Y'K_t Y), Y an orthonormal basis of K_t times a fixed random block;
    K_t X = X + D_t X - L_t X."""
    Om = np.random.default_rng(0).standard_normal((N, p))
    Y, _ = np.linalg.qr(Om + op.d_t(Om) - op.lt(Om))
    LY = op.lt(Y)
    Theta = Y.T @ (Y + op.d_t(Y) - LY)
    return Y, LY, (Theta + Theta.T) / 2.0


def _bound(Y: np.ndarray, Theta: np.ndarray, tail: float, LW: np.ndarray, dmin: float) -> float:
    """Lower bound of w'L_t w / w'w on (L_t W)^perp (module docstring)."""
    C, _ = np.linalg.qr(LW)
    F = C.T @ Y
    om, E = linalg.eigh(Theta)
    Th = (E * np.sqrt(np.maximum(om, 0.0))) @ E.T
    lam = max(float(linalg.eigvalsh(Th @ (np.eye(Y.shape[1]) - F.T @ F) @ Th)[-1]), 0.0)
    eta = np.sqrt(tail / lam) if lam > 0 and tail > 0 else 1.0
    return 1.0 + dmin - (1.0 + eta) * lam - (1.0 + 1.0 / eta) * tail - 1e-12


def _sym(M: np.ndarray) -> np.ndarray:
    return (M + M.T) / 2.0


class _Basis:
    """A basis S of the search space with L_t S, B_t S and the small S'L_t S, S'B_t S, S'S."""

    def __init__(self, S: np.ndarray, LS: np.ndarray, BS: np.ndarray, LL: np.ndarray,
                 BB: np.ndarray, MM: np.ndarray) -> None:
        self.S, self.LS, self.BS = S, LS, BS
        self.LL, self.BB, self.MM = _sym(LL), _sym(BB), _sym(MM)
        self._ritz: tuple[np.ndarray, np.ndarray] | None = None

    def ritz(self, m: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(mu, y) of the m Ritz pairs of least cost (y'LL y = 1), or None; the last solve is
        kept until the basis grows."""
        if self._ritz is None:
            try:
                mu, Yr = linalg.eigh(self.BB, self.LL)
            except linalg.LinAlgError:
                return None
            cost = 1.0 / np.einsum("ij,ij->j", Yr, self.MM @ Yr)
            sel = np.argsort(cost, kind="stable")
            self._ritz = mu[sel], Yr[:, sel]
        return self._ritz[0][:m], self._ritz[1][:, :m]

    def extend(self, op: _Reflected, T: np.ndarray) -> bool:
        """Add T, L_t-orthogonalised against S (two passes; S'L_t T = (L_t S)'T) and then
        orthonormalised (directions below 1e-8 of their norm dropped)."""
        try:
            F = linalg.cho_factor(self.LL)
        except linalg.LinAlgError:
            return False
        T = T / np.linalg.norm(T, axis=0)
        for _ in range(2):
            T = T - self.S @ linalg.cho_solve(F, self.LS.T @ T)
        w, E = linalg.eigh(_sym(T.T @ T))
        keep = w > 1e-16 * T.shape[1]
        if not keep.any():
            return False
        T = T @ (E[:, keep] / np.sqrt(w[keep]))
        LT, BT = op.lt(T), op.b(T)
        self.LL = _sym(np.block([[self.LL, self.S.T @ LT], [LT.T @ self.S, T.T @ LT]]))
        self.BB = _sym(np.block([[self.BB, self.S.T @ BT], [BT.T @ self.S, T.T @ BT]]))
        self.MM = _sym(np.block([[self.MM, self.S.T @ T], [T.T @ self.S, T.T @ T]]))
        self.S, self.LS, self.BS = (np.hstack([self.S, T]), np.hstack([self.LS, LT]),
                                    np.hstack([self.BS, BT]))
        self._ritz = None
        return True


def _davidson(basis: _Basis, op: _Reflected, diag_l: np.ndarray, diag_b: np.ndarray, m: int,
              scale_b: float, max_iter: int = 12
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Davidson steps until the m Ritz pairs of least cost have backward error
    |L w - lambda B w| / ((|L| + lambda |B|) |w|) <= _TOL (|L| <= 2, |B| <= ``scale_b``);
    returns (mu, W, L_t W) or None."""
    for _ in range(max_iter):
        out = basis.ritz(m)
        if out is None:
            return None
        mu, y = out
        X, LX, BX = basis.S @ y, basis.LS @ y, basis.BS @ y
        lam = 1.0 / mu
        R = LX - BX * lam
        res = np.linalg.norm(R, axis=0) / ((2.0 + lam * scale_b) * np.linalg.norm(X, axis=0))
        if res.max() <= _TOL:
            return mu, X, LX
        act = res > _TOL / 4
        den = diag_l[:, None] - lam[act] * diag_b[:, None]
        den = np.where(np.abs(den) < 1e-8, 1e-8, den)
        if not basis.extend(op, -R[:, act] / den):
            return None
    return None


def _start(op: _Reflected, Y: np.ndarray, LY: np.ndarray, r: int) -> _Basis | None:
    """The search space span(V, Y) with its small matrices, in O(n r (r + p))."""
    n = op.n
    if not r:
        return _Basis(Y, LY, op.b(Y), Y.T @ LY, op.c * np.eye(Y.shape[1]), np.eye(Y.shape[1]))
    e1 = np.zeros((n, 1))
    e1[0] = 1.0
    h = op.h(e1)[:, 0]                                          # H e1 = v0
    V = op.v(np.eye(r))
    LV = op.h(op.L[:, op.I] - np.outer(op.L @ h, h[op.I]))[1:]   # L_t V = (H L H [0; V])[1:]
    VtV = op.vt(V)
    try:
        C = np.linalg.solve(VtV, op.vt(Y))             # Y off span(V), then a well-conditioned
    except np.linalg.LinAlgError:
        return None
    Y = Y - V @ C                                       # basis of what is left (near-dependent
    w, E = linalg.eigh(_sym(Y.T @ Y))                   # directions dropped)
    E = E[:, w > 1e-6 * w.max()] / np.sqrt(w[w > 1e-6 * w.max()])
    Y = Y @ E
    LY = op.lt(Y)                                       # afresh: S, L_t S stay consistent
    VtY = op.vt(Y)
    LL = np.block([[op.vt(LV), op.vt(LY)], [Y.T @ LV, Y.T @ LY]])
    MM = np.block([[VtV, VtY], [VtY.T, _sym(Y.T @ Y)]])
    VX = np.hstack([VtV, VtY])
    S = np.hstack([V, Y])
    return _Basis(S, np.hstack([LV, LY]), op.b(S), LL, op.c * MM + VX.T @ op.G @ VX, MM)


def certified_pencil(L: np.ndarray, u: np.ndarray | None, Qb_II: np.ndarray, involved: np.ndarray,
                     c: float, n_vectors: int, d: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The ``n_vectors`` pencil eigenpairs of least cost, as (mu = 1/lambda, W in the reflected
    coordinates with w'L_t w = 1, number feasible = n - 1), or None when no certificate was
    obtained (module docstring).

    ``L`` is the unreflected L_bar, ``u`` the Householder vector (None: H = I), ``d`` the degrees.
    The caller asserts that A + I is positive semidefinite (an RBF kernel matrix) and that
    Q_bar - beta/vol I is positive definite (c + lambda_min(Q_bar) > 0).
    """
    n = L.shape[0]
    N, r = n - 1, involved.size
    if c <= 0 or N < 64 or n_vectors > N // 8 or r > N // 2:
        return None
    op = _Reflected(L, u, involved, Qb_II, c, d)
    diag_l, diag_b, tr_l = op.diagonals()
    tr_k = N + float(np.sum(1.0 / d)) - n / float(d.sum()) - tr_l   # N + tr D_t - tr L_t
    delta = 8.0 * N * _EPS * max(1.0, float(np.max(1.0 / d)))   # rounding: K_t + delta I >= 0
    p = 64
    while True:
        Y, LY, Theta = _range(op, N, p)
        raw = tr_k - float(np.trace(Theta))
        if raw <= 1e-9:
            break
        p *= 2
        if p > min(512, N // 4):
            return None
    Theta = Theta + delta * np.eye(p)
    tail = max(raw, 0.0) + delta * (N - p) + 64.0 * N * _EPS
    dmin = float(np.min(1.0 / d))
    basis = _start(op, Y, LY, r)
    if basis is None:
        return None
    scale_b = c + float(np.abs(Qb_II).sum(axis=1).max(initial=0.0))   # >= |B_t|
    ms = sorted({min(n_vectors + e, N // 4) for e in (4, 8, 16, 32, 64)})
    out = basis.ritz(ms[-1])
    if out is None:
        return None
    y0 = out[1]                                         # the Ritz pairs of least cost, in order
    if y0.shape[1] <= n_vectors:
        return None
    LX0 = basis.LS @ y0
    sigma0 = float(1.0 / (y0[:, n_vectors - 1] @ basis.MM @ y0[:, n_vectors - 1]))
    for m in ms:
        if _bound(Y, Theta, tail, LX0[:, :m], dmin) <= sigma0 + 1e-6:
            continue                                   # the estimate from the start fails
        out = _davidson(basis, op, diag_l, diag_b, m, scale_b)
        if out is None:
            return None
        mu, W, LW = out
        cost = 1.0 / np.einsum("ij,ij->j", W, W)
        sel = np.argsort(cost, kind="stable")
        if _bound(Y, Theta, tail, LW, dmin) > float(cost[sel[n_vectors - 1]]):
            return mu[sel[:n_vectors]], W[:, sel[:n_vectors]], N
    return None
