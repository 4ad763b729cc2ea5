"""EM with posterior constraints (EM-PC): Graça, Ganchev & Taskar (2007).

"Expectation maximization and posterior constraints", NIPS 20, pp. 569-576. EM maximises

    F(q, theta) = log p_theta(X) - KL(q(Z) || p_theta(Z | X))   over q in Q and theta,

where Q = {q : E_q[f(X, Z)] <= b} is a set of constraints on the posterior. The M-step is the
ordinary one on q; the E-step is the projection

    q* = arg min_{q in Q} KL(q || p_theta(Z | X)),

computed through its dual: q*(Z) is proportional to p_theta(Z | X) exp(-lambda . f(X, Z)) with

    lambda* = arg min_{lambda >= 0}  lambda . b + log sum_Z p_theta(Z | X) exp(-lambda . f(X, Z)),

and min KL = -(value at lambda*) (strong duality). For clustering with cannot-links (the only
links EM-PC uses, as GM-PR's comparison notes) the constraint of a pair (i, j) is, for every
cluster k, that the two points are expected to put at most one point in k:

    E_q[ [z_i = k] + [z_j = k] ] = q_i(k) + q_j(k) <= 1.

The features are sums of per-point indicators, so q* factorises over points:
q_i(k) is proportional to p(k | x_i) exp(-sum_{pairs c containing i} lambda_ck), the dual is
sum_c,k lambda_ck b_c + sum_i log sum_k p(k | x_i) exp(-sum_{c containing i} lambda_ck), and its
gradient is b_c - q_a(k) - q_b(k). We minimise it by projected Newton on the active set
(L-BFGS-B as a fall-back).

Choices (docs/algorithms/em_pc.md): a link's confidence c relaxes its bound to b = 2 - c (c = 1 is
the paper's bound 1; c = 0 no constraint); must-links are not used (a warning says so); the
objective is F(q*, theta), which EM never decreases. Without cannot-links q* is the posterior and
the algorithm is exactly ``gmm``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from pairlab import hookimpl
from pairlab.errors import InvalidInputError
from pairlab.explanation import Explanation
from pairlab.mixture import EStep, MixtureAlgorithm, log_normalize
from pairlab.state import State

from .explain_mixtures import em_pc_explain

__all__ = ["EMPC", "project_posteriors"]


def project_posteriors(log_post: np.ndarray, pairs: np.ndarray, bound: np.ndarray,
                       tol: float = 1e-12, max_iter: int = 200
                       ) -> tuple[np.ndarray, np.ndarray, float]:
    """KL projection of factorised posteriors onto {q_a(k) + q_b(k) <= b for every pair, k}.

    ``log_post`` (n, k) log p(k | x_i); ``pairs`` (m, 2); ``bound`` (m,). Returns the projected
    posteriors q (n, k), the dual variables lambda (m, k) and KL(q || p).
    """
    n, k = log_post.shape
    m = len(pairs)
    post = np.exp(log_post)
    if m == 0:
        return post, np.zeros((0, k)), 0.0
    inc = sp.csr_matrix((np.ones(2 * m), (np.r_[pairs[:, 0], pairs[:, 1]], np.r_[np.arange(m),
                         np.arange(m)])), shape=(n, m))
    rows = np.unique(pairs)
    inc = inc[rows]
    lp = log_post[rows]
    local = np.searchsorted(rows, pairs)

    def dual(flat: np.ndarray) -> tuple[float, np.ndarray]:
        lam = flat.reshape(m, k)
        q, log_z = log_normalize(lp - inc @ lam)
        value = float((lam * bound[:, None]).sum() + log_z.sum())
        grad = bound[:, None] - q[local[:, 0]] - q[local[:, 1]]
        return value, grad.ravel()

    # Hildreth's exact coordinate steps (compiled); projected Newton only where they have not
    # reached ``tol`` within their sweeps (Newton from lambda = 0 stalled on most E-steps of
    # GM-PR's Fig. 7 data, and polishing with it cost more than the sweeps)
    lam, worst = _hildreth(lp, local, bound, tol)
    if worst >= tol:
        polished = _projected_newton(lam, lp, inc, local, bound, dual, max_iter, tol)
        lam = lam if polished is None else polished
    q = post.copy()
    q_rows, _ = log_normalize(lp - inc @ lam)
    q[rows] = q_rows
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(q_rows > 0, q_rows * (np.log(q_rows) - lp), 0.0)
    return q, lam, float(max(terms.sum(), 0.0))


def _hildreth(lp: np.ndarray, local: np.ndarray, bound: np.ndarray, tol: float,
              max_sweeps: int = 2000) -> tuple[np.ndarray, float]:
    """Hildreth's method: exact dual coordinate steps, one constraint (pair c, cluster k) at a
    time, computed from log-odds so that a point whose q rounds to exactly 1 still moves (the
    step is in :func:`.em_pc_kernels.hildreth`, compiled)."""
    from .em_pc_kernels import hildreth

    return hildreth(np.ascontiguousarray(lp, dtype=float), np.ascontiguousarray(local, dtype=np.int64),
                    np.ascontiguousarray(bound, dtype=float), float(tol), int(max_sweeps))


def _active_hessian(q: np.ndarray, pts: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """H = A [k_i = k_j] - B on the active entries i = (pair, k_i), with A[i, j] the sum of
    q[p, k_i] and B[i, j] the sum of q[p, k_i] q[p, k_j] over the points p the two pairs share.

    Dense (the active set is small). Two pairs share at most two points, so each sum has at most
    two non-zero terms: the same numbers, bit for bit, as the sparse products this replaced, which
    built sparse matrices on every Newton step and took most of em-pc's time.
    """
    A = np.zeros((ks.size, ks.size))
    B = np.zeros_like(A)
    for x in range(2):
        p = pts[:, x]
        qi = q[p, ks][:, None]                              # q[p_i, k_i]
        qj = q[p[:, None], ks[None, :]]                     # q[p_i, k_j]
        for y in range(2):
            shared = p[:, None] == pts[None, :, y]
            A += np.where(shared, qi, 0.0)
            B += np.where(shared, qi * qj, 0.0)
    return A * (ks[:, None] == ks[None, :]) - B


def _projected_newton(lam: np.ndarray, lp: np.ndarray, inc: sp.csr_matrix, local: np.ndarray,
                      bound: np.ndarray, dual, steps: int = 100, tol: float = 1e-12
                      ) -> np.ndarray | None:
    """Projected Newton on the dual's active set (lambda > 0 or constraint violated); None if it
    stalls before the active gradient is below ``tol``.

    The Hessian on the active set, H[(c,k),(c',k')] = sum_{i in c and c'} q_ik ([k = k'] - q_ik'),
    is small (few constraints are active) and singular along lambda_c. + t (which leaves q
    unchanged), hence a small ridge; steps backtrack until the dual decreases and are clipped at
    lambda >= 0. (L-BFGS-B alone stopped with violations of about 1e-5 and was slow.)
    """
    m, k = lam.shape
    value, grad = dual(lam.ravel())
    for _ in range(steps):
        g = grad.reshape(m, k)
        # Bertsekas' rule: a bound entry (lambda ~ 0) with a pushing gradient stays out
        active = (lam > 1e-10) | (g < 0)
        if not active.any() or np.abs(np.where(active, g, 0.0)).max() < tol:
            return lam
        q, _ = log_normalize(lp - inc @ lam)
        cs, ks = np.nonzero(active)
        pts = local[cs]                                     # (a, 2) local point rows
        a = cs.size
        H = _active_hessian(q, pts, ks)
        H += (1e-9 + 1e-6 * float(np.abs(np.diag(H)).max(initial=0.0))) * np.eye(a)
        try:
            direction = np.linalg.solve(H, g[cs, ks])
        except np.linalg.LinAlgError:
            return None
        t = 1.0
        while t > 1e-10:
            trial = lam.copy()
            trial[cs, ks] = np.maximum(trial[cs, ks] - t * direction, 0.0)
            v2, g2 = dual(trial.ravel())
            if v2 <= value:
                lam, value, grad = trial, v2, g2
                break
            t /= 2
        else:
            return None
    g = grad.reshape(m, k)
    return lam if np.abs(np.where((lam > 0) | (g < 0), g, 0.0)).max(initial=0.0) < 1e3 * tol else None


class EMPC(MixtureAlgorithm):
    """EM for a Gaussian mixture with posterior constraints from cannot-links (Graça et al. 2007).

    Same parameters, initialisation and M-step as ``gmm``; the E-step projects the posteriors
    onto the cannot-link constraint set through its dual. States as ``gmm``'s, with
    ``responsibilities`` the projected posteriors q*, ``objective`` log p(X) - KL(q* || p(Z | X)),
    and ``extras`` the log-likelihood, the KL, the largest constraint violation and the dual
    variables.
    """

    name = "em-pc"
    title = "EM-PC (EM with posterior constraints)"
    citation = ("Graça, Ganchev & Taskar (2007), Expectation maximization and posterior "
                "constraints, NIPS 20, pp. 569-576")
    objective_name = "log-likelihood - KL(q || posterior)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        c = self.constraints
        keep = c.cl_confidence > 0
        self.pairs = np.asarray(c.cannot_link[keep], dtype=np.int64).reshape(-1, 2)
        self.bound = 2.0 - c.cl_confidence[keep]
        if len(self.pairs) and self.params["n_components"] < 2:
            raise InvalidInputError(
                "em-pc with cannot-links needs n_components >= 2 (two linked points cannot both "
                "be in the only cluster).")
        if c.n_must_link:
            warnings.warn(
                f"em-pc uses cannot-links only (Graça et al.'s clustering constraints); "
                f"{c.n_must_link} must-link(s) are ignored.", UserWarning, stacklevel=2)

    def ignored_links(self) -> tuple[np.ndarray, np.ndarray]:
        """Every must-link, and cannot-links of confidence 0: EM-PC uses the others only."""
        c = self.constraints
        return np.ones(c.n_must_link, dtype=bool), ~(c.cl_confidence > 0)

    def e_step(self, parameters: tuple[np.ndarray, ...], prec_chol: np.ndarray,
               previous: Mapping[str, Any]) -> EStep:
        """The posterior projected onto the cannot-link set, q* = arg min_{q in Q} KL(q ||
        p(Z | X)) through its dual; objective log p(X) - KL(q* || p(Z | X))."""
        weights, means = parameters[:2]
        log_p = self.weighted_log_prob(self.X, weights, means, prec_chol)
        resp, log_norm = log_normalize(log_p)
        loglik = float(log_norm.sum())
        if len(self.pairs) == 0:
            return EStep(resp, loglik)
        log_post = log_p - log_norm[:, None]
        q, lam, kl = project_posteriors(log_post, self.pairs, self.bound)
        excess = q[self.pairs[:, 0]] + q[self.pairs[:, 1]] - self.bound[:, None]
        return EStep(q, loglik - kl, {"log_likelihood": loglik, "kl": kl,
                                      "max_violation": float(max(excess.max(), 0.0)),
                                      "dual": lam})

    def explain(self, state: State, index: int) -> Explanation | None:
        """The projected E-step's prior, distance and dual (link) terms."""
        return em_pc_explain(self, state, index) or super().explain(state, index)


@hookimpl
def pairlab_algorithms():
    return [EMPC]
