"""Soft-constraint semi-supervised affinity propagation (SCSSAP) and plain affinity propagation.

Arzeno & Vikalo (2015), "Semi-supervised affinity propagation with soft instance-level
constraints", IEEE TPAMI 37(5). Three plugins:

* ``scssap`` -- Algorithm 1: the availabilities alpha (eq. 14) and responsibilities rho (eq. 25)
  of affinity propagation for all pairs, plus a cannot-link message gamma (eq. 17) and a
  must-link message omega (eq. 20) for every constrained *ordered* pair (i, k) and every
  candidate exemplar j, folded into the modified similarity s_hat of eq. 24.
* ``scssap-metric`` -- Algorithm 2 (section 5.2): SCSSAP alternated with diagonal per-cluster
  (or global) metric learning, closed forms eq. 32 (regulariser eq. 29) and eq. 33 (eq. 30).
* ``affinity-propagation`` -- Frey & Dueck (2007): the unsupervised baseline, with their update
  order (responsibilities, then availabilities), termination and exemplar refinement, i.e.
  exactly scikit-learn's ``AffinityPropagation``.

Notation follows the paper: ``A`` holds alpha, ``R`` rho, ``S`` the similarity s(i, j) with the
preferences on its diagonal. Messages live in dense arrays (A, R and S_hat are (n, n); gamma is
(2|C|, n) and omega (2|M|, n), one row per ordered pair), so memory is O(n^2 + n(|C| + |M|)),
and every update is a handful of whole-array numpy operations.

Choices where the paper is silent or misprinted (each is also in docs/algorithms/scssap.md):

* Algorithm 1 prints the availability update with rho_ij^(t-1) where eq. 14 has rho_jj; eq. 14
  is the affinity propagation update the paper says it reduces to for q = 0, so we use rho_jj.
* Algorithm 1 prints Psi = {k : alpha_ik + rho_ik > 0}; the text after it defines the exemplars
  as the self-exemplars {k : alpha_kk + rho_kk > 0}. We use the text (a point-dependent Psi
  could assign points to non-exemplars). A self-exemplar is its own exemplar (factor E_k, eq. 3).
* One factor per *unordered* link (the paper counts 2N(|C| + |M|) messages, |.| unordered), so
  the objective of eq. 6 charges a broken cannot-link q_c once (at the shared exemplar) and a
  broken must-link q_m twice (at each of the two exemplars j where c_ij != c_mj).
* gamma and omega are not damped (Algorithm 1 damps only alpha and rho).
* Penalties are capped at 2 n (max s - min s) + 1 inside the messages (see
  :meth:`MessageEngine.set_similarity`): with q = inf the printed updates diverge geometrically
  for damping > 1/2; the cap leaves the maximiser of eq. 6 unchanged.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from pairlab import Algorithm, Param, State, hookimpl
from pairlab.constraints import Constraints
from pairlab.errors import InvalidInputError

__all__ = [
    "SCSSAP",
    "AffinityPropagation",
    "LinkSet",
    "MessageEngine",
    "SCSSAPMetric",
    "availability_update",
    "available_memory",
    "cannot_link_update",
    "identify_exemplars",
    "learn_metric",
    "metric_regularizer",
    "modified_similarity",
    "must_link_update",
    "net_similarity",
    "responsibility_update",
    "squared_distances",
]

_EPS = np.finfo(np.float64).eps
_TINY = np.finfo(np.float64).tiny


# -- links ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkSet:
    """Both orders (i, k) and (k, i) of every unordered link: rows p and p + L of 2L rows.

    Row p < L is the link's pair (a, b) and row p + L is (b, a), so ``reverse[p]`` (the row of
    (k, i) for the row (i, k)) is the other half; ``penalty[p]`` is q times the link's confidence
    (confidence 0 gives 0 even when q is infinite).
    """

    first: np.ndarray
    second: np.ndarray
    penalty: np.ndarray

    @classmethod
    def build(cls, pairs: np.ndarray, confidence: np.ndarray, q: float, n: int) -> LinkSet:
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        conf = np.asarray(confidence, dtype=float).reshape(-1)
        if conf.shape != (len(pairs),):
            raise InvalidInputError(f"{len(pairs)} links but {conf.size} confidences.")
        with np.errstate(invalid="ignore"):
            q_pair = np.where(conf == 0, 0.0, conf * q)
        first = np.concatenate([pairs[:, 0], pairs[:, 1]])
        second = np.concatenate([pairs[:, 1], pairs[:, 0]])
        return cls(first, second, np.concatenate([q_pair, q_pair]))

    @property
    def size(self) -> int:
        """Number of ordered pairs (twice the number of links)."""
        return int(self.first.size)

    @property
    def reverse(self) -> np.ndarray:
        half = self.size // 2
        return np.r_[np.arange(half, 2 * half), np.arange(half)]

    def incidence(self, support: np.ndarray) -> sp.csr_matrix:
        """(len(support), 2L) sparse 0/1 matrix summing rows by their first point (eq. 24)."""
        rows = np.searchsorted(support, self.first)
        return sp.csr_matrix((np.ones(self.size), (rows, np.arange(self.size))),
                             shape=(support.size, self.size))


# -- the message updates of Algorithm 1 ------------------------------------------------------------
def _penalties(penalty: np.ndarray, q_max: float) -> float | np.ndarray:
    """Penalties capped at ``q_max``: a scalar when they are all equal (a faster clip), else (P, 1)."""
    q = np.minimum(penalty, q_max)
    if q.size and np.all(q == q[0]):
        return float(q[0])
    return q[:, None]


def _halves(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    half = x.shape[0] // 2
    return x[:half], x[half:]


def cannot_link_update(B: np.ndarray, gamma: np.ndarray, q: float | np.ndarray) -> np.ndarray:
    """New gamma (eq. 17) for every ordered cannot-link (i, k) and every j, shape (2|C|, n).

    ``B`` holds alpha_kj + rho_kj for each row's k (shape (2|C|, n)), ``gamma`` the old messages
    and ``q`` (2|C|, 1) the penalties. With lambda_ki^j = alpha_kj + rho_kj - gamma_ki^j
    (eq. 23), eq. 17 reads gamma_ik^j = -min(q_c + max(0, -lambda), max(0, lambda)), which is
    -clip(lambda, 0, q_c) = clip(-lambda, -q_c, 0) (for lambda < 0 the first argument exceeds the
    second, 0); this form has no inf - inf when q_c = inf. The result is written into ``B``.
    """
    for out, rev in zip(_halves(B), _halves(gamma)[::-1], strict=True):
        np.subtract(rev, out, out=out)                       # -lambda_ki^j
    np.clip(B, -q, 0.0, out=B)
    return B


def must_link_update(B: np.ndarray, omega: np.ndarray, q: float | np.ndarray) -> np.ndarray:
    """New omega (eq. 20) for every ordered must-link (i, m) and every j, shape (2|M|, n).

    ``B``, ``omega`` and ``q`` as for :func:`cannot_link_update`. With tau_mi^j = alpha_mj +
    rho_mj - omega_mi^j (eq. 22), eq. 20 reads omega = max(min(-tau, -q_m), min(tau, q_m)),
    which is clip(tau, -q_m, q_m). The result is written into ``B``.
    """
    for out, rev in zip(_halves(B), _halves(omega)[::-1], strict=True):
        out -= rev                                            # tau_mi^j
    np.clip(B, -q, q, out=B)
    return B


def modified_similarity(S_support: np.ndarray, S_hat: np.ndarray, support: np.ndarray,
                        terms: list[tuple[sp.csr_matrix, np.ndarray]]) -> None:
    """Eq. 24 in place: S_hat[i] = s(i, .) + sum_m omega_im + sum_k gamma_ik for constrained i.

    ``S_support`` is S[support]; ``terms`` lists (incidence matrix, messages) per kind of link.
    Rows outside ``support`` (points without links) keep S_hat = S and are not touched.
    """
    total = S_support.copy()
    for incidence, msgs in terms:
        if msgs.size:
            total += incidence @ msgs
    S_hat[support] = total


def availability_update(R: np.ndarray, A: np.ndarray, damping: float, tmp: np.ndarray) -> None:
    """Damped availabilities (eq. 14) from the responsibilities ``R``, in place in ``A``.

    alpha_ij = min(0, rho_jj + sum_{k not in {i, j}} max(rho_kj, 0)) for i != j and
    alpha_jj = sum_{k != j} max(rho_kj, 0); new = damping * old + (1 - damping) * update.
    """
    n = A.shape[0]
    np.maximum(R, 0, out=tmp)
    tmp.flat[:: n + 1] = R.flat[:: n + 1]
    tmp -= np.sum(tmp, axis=0)
    diag = tmp.flat[:: n + 1].copy()
    np.clip(tmp, 0, np.inf, out=tmp)
    tmp.flat[:: n + 1] = diag
    tmp *= 1 - damping
    A *= damping
    A -= tmp


def responsibility_update(S_hat: np.ndarray, A: np.ndarray, R: np.ndarray, damping: float,
                          tmp: np.ndarray) -> None:
    """Damped responsibilities (eq. 25) from S_hat and ``A``, in place in ``R``.

    rho_ij = s_hat(i, j) - max_{k != j} (s_hat(i, k) + alpha_ik); the max over k != j is the row
    maximum except at the row's arg-max, where it is the second largest value.
    """
    n = A.shape[0]
    ind = np.arange(n)
    np.add(A, S_hat, tmp)
    best = np.argmax(tmp, axis=1)
    first = tmp[ind, best]
    tmp[ind, best] = -np.inf
    second = np.max(tmp, axis=1)
    np.subtract(S_hat, first[:, None], tmp)
    tmp[ind, best] = S_hat[ind, best] - second
    tmp *= 1 - damping
    R *= damping
    R += tmp


class MessageEngine:
    """The message arrays of Algorithm 1 for one similarity matrix, and one iteration of it.

    ``order="scssap"`` is Algorithm 1: gamma and omega from the messages of iteration t-1,
    s_hat (eq. 24), alpha from rho^(t-1), then rho from s_hat^(t) and alpha^(t).
    ``order="frey-dueck"`` is Frey & Dueck's (and scikit-learn's): rho from alpha^(t-1), then
    alpha from rho^(t). Without links the two orders produce the same sequence of messages,
    alpha half an iteration apart: scssap's alpha^(t) is Frey & Dueck's alpha after t-1 steps.
    """

    def __init__(self, S: np.ndarray, must_link: LinkSet, cannot_link: LinkSet, damping: float,
                 order: str = "scssap") -> None:
        self.n = S.shape[0]
        self.damping = damping
        self.order = order
        self.ml, self.cl = must_link, cannot_link
        self.support = np.union1d(must_link.first, cannot_link.first)
        self.ml_pos = np.searchsorted(self.support, must_link.second)
        self.cl_pos = np.searchsorted(self.support, cannot_link.second)
        self.ml_inc = must_link.incidence(self.support)
        self.cl_inc = cannot_link.incidence(self.support)
        n = self.n
        self.A = np.zeros((n, n))
        self.R = np.zeros((n, n))
        self.tmp = np.empty((n, n))
        self.omega = np.zeros((must_link.size, n))
        self.gamma = np.zeros((cannot_link.size, n))
        self._old_links = (self.omega, self.gamma)
        self.set_similarity(S)

    @property
    def constrained(self) -> bool:
        return self.support.size > 0

    def set_similarity(self, S: np.ndarray) -> None:
        """Use ``S`` (preferences on the diagonal) and reset every message to 0.

        Penalties are capped at ``q_max = 2 n (max s - min s) + 1``: a broken link then costs
        more than any change of sum_i s(i, c_i) can gain, so the maximiser of eq. 6 is the same
        as with q = inf, but the messages stay finite. (With q = inf, eq. 20 passes tau through
        unclipped and, for damping > 1/2, the printed updates make omega and rho oscillate with
        geometrically growing amplitude until they overflow.)
        """
        self.S = S
        span = float(S.max() - S.min()) if S.size else 0.0
        self.q_max = 2.0 * self.n * span + 1.0
        self.ml_q = _penalties(self.ml.penalty, self.q_max)
        self.cl_q = _penalties(self.cl.penalty, self.q_max)
        self.S_support = S[self.support]
        self.S_hat = S.copy() if self.constrained else S
        self.reset()

    def reset(self) -> None:
        self.A.fill(0.0)
        self.R.fill(0.0)
        self.omega.fill(0.0)
        self.gamma.fill(0.0)
        if self.constrained:
            self.S_hat[...] = self.S

    def _link_messages(self) -> None:
        """gamma^(t) (eq. 17) and omega^(t) (eq. 20) from the messages of iteration t-1."""
        B = self.A.take(self.support, axis=0)
        B += self.R.take(self.support, axis=0)    # alpha_kj + rho_kj of every constrained k
        self._old_links = (self.omega, self.gamma)
        if self.cl.size:
            self.gamma = cannot_link_update(B.take(self.cl_pos, axis=0), self.gamma, self.cl_q)
        if self.ml.size:
            self.omega = must_link_update(B.take(self.ml_pos, axis=0), self.omega, self.ml_q)

    def iterate(self, track_change: bool = False) -> float | None:
        """One iteration; with ``track_change`` return the largest change of any message."""
        if self.n < 2:
            return 0.0 if track_change else None
        old = (self.A.copy(), self.R.copy()) if track_change else None
        if self.order == "frey-dueck":
            responsibility_update(self.S_hat, self.A, self.R, self.damping, self.tmp)
            availability_update(self.R, self.A, self.damping, self.tmp)
        else:
            if self.constrained:
                self._link_messages()
                modified_similarity(self.S_support, self.S_hat, self.support,
                                    [(self.ml_inc, self.omega), (self.cl_inc, self.gamma)])
            availability_update(self.R, self.A, self.damping, self.tmp)
            responsibility_update(self.S_hat, self.A, self.R, self.damping, self.tmp)
        if old is None:
            return None
        pairs = [(self.A, old[0]), (self.R, old[1])]
        if self.constrained and self.order != "frey-dueck":
            pairs += [(self.omega, self._old_links[0]), (self.gamma, self._old_links[1])]
        return float(max(np.max(np.abs(a - b)) for a, b in pairs if a.size))

    def self_exemplars(self) -> np.ndarray:
        """Boolean (n,): alpha_jj + rho_jj > 0 (end of section 3)."""
        n = self.n
        return (self.A.flat[:: n + 1] + self.R.flat[:: n + 1]) > 0


# -- exemplars, objective ------------------------------------------------------------------------
def _best_candidates(A: np.ndarray, R: np.ndarray, buf: np.ndarray | None = None) -> np.ndarray:
    """Each point's current best candidate arg max_k (alpha_ik + rho_ik), ties to the point itself.

    Used while no self-exemplar has emerged (e.g. iteration 0, where every message is 0 and every
    point is therefore its own candidate); the candidates are then made their own exemplars.
    """
    n = A.shape[0]
    belief = np.add(A, R, out=buf)
    best = np.argmax(belief, axis=1)
    top = belief[np.arange(n), best]
    own = belief.flat[:: n + 1]
    c = np.where(own >= top, np.arange(n), best)
    centers = np.unique(c)
    c[centers] = centers
    return c


def _argmax_over(cols: np.ndarray, M: np.ndarray, M2: np.ndarray | None = None,
                 buf: np.ndarray | None = None) -> np.ndarray:
    """For every row, the column of ``cols`` (sorted) where M (+ M2) is largest; first on ties.

    Few columns: gather them. Many: mask the others with -inf in one contiguous pass.
    """
    m = M.shape[1]
    if cols.size * 4 <= m:
        sub = M[:, cols] if M2 is None else M[:, cols] + M2[:, cols]
        return cols[np.argmax(sub, axis=1)]
    if M2 is not None:
        buf = np.add(M, M2, out=buf)
    elif buf is None:
        buf = M.copy()
    else:
        np.copyto(buf, M)
    mask = np.full(m, -np.inf)
    mask[cols] = 0.0
    buf += mask
    return np.argmax(buf, axis=1)


def identify_exemplars(A: np.ndarray, R: np.ndarray, S: np.ndarray, self_mask: np.ndarray,
                       rule: str = "paper", buf: np.ndarray | None = None) -> np.ndarray:
    """The exemplar of every point, shape (n,).

    ``rule="paper"`` (end of section 3): the exemplars are the self-exemplars
    Psi = {k : alpha_kk + rho_kk > 0}; point i picks arg max_{k in Psi} alpha_ik + rho_ik and
    each k in Psi is its own exemplar. ``rule="refine"`` (Frey & Dueck's reference code, also
    scikit-learn): i picks arg max_{k in Psi} s(i, k); each cluster's exemplar is then moved to
    the member with the largest summed similarity from the other members, and points are
    assigned again. With Psi empty both fall back to :func:`_best_candidates`. ``buf`` is an
    optional (n, n) scratch array.
    """
    n = A.shape[0]
    cols = np.flatnonzero(self_mask)
    if cols.size == 0:
        return _best_candidates(A, R, buf)
    if rule == "paper":
        c = _argmax_over(cols, A, R, buf)
        c[cols] = cols
        return c
    if rule != "refine":
        raise InvalidInputError(f"exemplar_rule must be 'paper' or 'refine', got {rule!r}.")
    k = cols.size
    lab = np.searchsorted(cols, _argmax_over(cols, S, None, buf))
    lab[cols] = np.arange(k)
    # summed similarity to each point j from the members of j's cluster
    onehot = sp.csr_matrix((np.ones(n), (lab, np.arange(n))), shape=(k, n))
    score = np.asarray(onehot @ S)[lab, np.arange(n)]
    order = np.lexsort((np.arange(n), lab))
    starts = np.flatnonzero(np.r_[True, np.diff(lab[order]) != 0])
    top = np.maximum.reduceat(score[order], starts)
    sizes = np.diff(np.r_[starts, n])
    hit_pos = np.flatnonzero(score[order] == np.repeat(top, sizes))
    _, first = np.unique(lab[order][hit_pos], return_index=True)
    refined = order[hit_pos[first]]                  # in cluster order, as Frey & Dueck
    c = refined[np.argmax(S[:, refined], axis=1)]    # (ties to the earlier cluster, as theirs)
    c[refined] = refined
    return c


def net_similarity(S: np.ndarray, exemplars: np.ndarray, ml: LinkSet, cl: LinkSet
                   ) -> tuple[float, int, int]:
    """The objective of eq. 6 for a valid clustering, and the numbers of broken links.

    sum_i s(i, c_i) (preferences for the exemplars) minus q_c for every broken cannot-link and
    2 q_m for every broken must-link (see the module docstring); -inf when a link with infinite
    penalty is broken.
    """
    n = S.shape[0]
    total = float(S[np.arange(n), exemplars].sum())
    half_ml = ml.first < ml.second
    half_cl = cl.first < cl.second
    broken_ml = exemplars[ml.first[half_ml]] != exemplars[ml.second[half_ml]]
    broken_cl = exemplars[cl.first[half_cl]] == exemplars[cl.second[half_cl]]
    penalty = 2.0 * float(ml.penalty[half_ml][broken_ml].sum()) + float(
        cl.penalty[half_cl][broken_cl].sum())
    return total - penalty, int(broken_ml.sum()), int(broken_cl.sum())


# -- similarities, memory ------------------------------------------------------------------------
def squared_distances(X: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """(n, n) matrix D[i, j] = sum_d w_id (x_id - x_jd)^2 (w = 1 without ``weights``).

    Computed as |x|^2 + |y|^2 - 2 x.y on centred data, clipped at 0, with a zero diagonal.
    """
    Xc = X - X.mean(axis=0)
    sq = Xc * Xc
    if weights is None:
        norms = sq.sum(axis=1)
        D = Xc @ Xc.T
        D *= -2.0
        D += norms[:, None]
        D += norms[None, :]
    else:
        D = (weights * Xc) @ Xc.T
        D *= -2.0
        D += (weights * sq).sum(axis=1)[:, None]
        D += weights @ sq.T
    np.maximum(D, 0.0, out=D)
    D.flat[:: D.shape[0] + 1] = 0.0
    return D


def available_memory() -> int | None:
    """Bytes of memory this process can still use: MemAvailable, a cgroup limit, or sysconf."""
    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as fh:
            limit = fh.read().strip()
        if limit != "max":
            with open("/sys/fs/cgroup/memory.current", encoding="ascii") as fh:
                found.append(int(limit) - int(fh.read().strip()))
    except (OSError, ValueError):
        pass
    if not found:
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, OSError, ValueError):
            return None
    return max(0, min(found))


def _check_memory(name: str, n: int, n_square: int, n_pair_rows: int) -> None:
    """Refuse (InvalidInputError) when the message arrays would not fit in available memory."""
    need = 8 * (n_square * n * n + 5 * n_pair_rows * n)
    have = available_memory()
    if have is not None and need > have:
        raise InvalidInputError(
            f"{name} needs about {need / 2**30:.1f} GiB for n_samples={n} "
            f"({n_square} dense n x n arrays of messages and similarities plus the link messages), "
            f"but only {have / 2**30:.1f} GiB of memory is available; cluster a subsample "
            "(memory grows as n^2) or free memory."
        )


# -- the plugins ----------------------------------------------------------------------------------
_COMMON_PARAMS: tuple[Param, ...] = (
    Param("preference", float, None,
          "s(k, k) for every k; none = median of the whole similarity matrix, diagonal zeros "
          "included (as scikit-learn)", nullable=True),
    Param("max_iter", int, 200, "maximum number of iterations", low=1),
    Param("convergence_iter", int, 15,
          "stop when the exemplars have not changed for this many iterations", low=1),
    Param("tol", float, 0.0,
          "also stop when no message changes by tol or more in an iteration (0: off)", low=0.0),
    Param("affinity", str, "euclidean",
          "euclidean: s(i, j) = -|x_i - x_j|^2; precomputed: X is the (n, n) similarity matrix",
          choices=("euclidean", "precomputed")),
)

_PENALTY_PARAMS: tuple[Param, ...] = (
    Param("q_ml", float, math.inf,
          "must-link penalty q_m >= 0; the paper reports exp(-q) in [0, 1]: q = 0 (exp(-q) = 1) "
          "is plain AP, q = inf (exp(-q) = 0) enforces; times each link's confidence", low=0.0),
    Param("q_cl", float, math.inf,
          "cannot-link penalty q_c >= 0; exp(-q) = 1 (q = 0) is plain AP, exp(-q) = 0 (q = inf) "
          "enforces; times each link's confidence", low=0.0),
)


class SCSSAP(Algorithm):
    """Soft-constraint semi-supervised affinity propagation, Algorithm 1 of Arzeno & Vikalo.

    Each step is one iteration of Algorithm 1. States: ``labels`` numbered 0..k-1 in increasing
    order of the exemplars' indices, ``model["exemplars"]`` the index of each point's exemplar
    (the canvas draws a line from each point to it; there is no separate ``centers`` entry, which
    would mark the exemplars twice), ``extras["exemplar_indices"]`` the sorted exemplars,
    ``objective`` the net similarity of eq. 6. Before any self-exemplar exists (iteration 0 and usually the
    first few iterations) each point's exemplar is its best current candidate
    arg max_k (alpha_ik + rho_ik), ties to itself, and candidates are their own exemplars, so
    every state is a valid clustering.

    Termination (:meth:`converged`): the self-exemplars unchanged for ``convergence_iter``
    iterations with at least one of them (and more than ``convergence_iter`` iterations done,
    as scikit-learn), or, with ``tol > 0``, no message changing by ``tol``; ``max_iter`` caps it.

    The seed (``random_state`` of the estimator) draws the tiny noise Frey & Dueck and
    scikit-learn add to S to break ties: s += (eps * s + 100 * tiny) * N(0, 1).
    """

    name = "scssap"
    title = "SCSSAP (soft-constraint semi-supervised affinity propagation)"
    citation = ("Arzeno & Vikalo (2015), Semi-supervised affinity propagation with soft "
                "instance-level constraints, IEEE TPAMI 37(5):1041-1052")
    uses_constraints = True
    params = (
        Param("damping", float, 0.75,
              "damping mu of alpha and rho, in [0.5, 1) (0.75 in the paper, section 4.1)",
              low=0.5, high=1.0, high_open=True),
        *_PENALTY_PARAMS,
        *_COMMON_PARAMS,
        Param("exemplar_rule", str, "paper",
              "paper: arg max over self-exemplars of alpha + rho (section 3); refine: Frey & "
              "Dueck's nearest exemplar plus medoid refinement (scikit-learn)",
              choices=("paper", "refine")),
    )
    order: ClassVar[str] = "scssap"
    objective_name: ClassVar[str] = "net similarity (eq. 6)"

    # -- construction ----------------------------------------------------------------------------
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._noise_seed = int(self.rng.integers(2**63 - 1))
        pref = self.params["preference"]
        if pref is not None and not math.isfinite(pref):
            raise InvalidInputError(f"preference must be a finite number or None, got {pref}.")
        if self.params.get("affinity") == "precomputed":
            n, d = self.X.shape
            if n != d:
                raise InvalidInputError(
                    f"affinity='precomputed' needs X to be the (n, n) similarity matrix, got shape "
                    f"{self.X.shape}; use affinity='euclidean' for feature vectors."
                )
        self._engine: MessageEngine | None = None
        self._last: State | None = None

    def _links(self) -> tuple[LinkSet, LinkSet]:
        n = self.dataset.n_samples
        c = self.constraints if self.uses_constraints else Constraints.empty(n)
        ml = LinkSet.build(c.must_link, c.ml_confidence, self.params.get("q_ml", 0.0), n)
        cl = LinkSet.build(c.cannot_link, c.cl_confidence, self.params.get("q_cl", 0.0), n)
        return ml, cl

    def similarity_matrix(self) -> np.ndarray:
        """s(i, j) before preferences: -|x_i - x_j|^2, or X itself when precomputed.

        Subclasses may override this to use another similarity.
        """
        if self.params["affinity"] == "precomputed":
            return np.array(self.X, dtype=float)
        D = squared_distances(self.X)
        np.negative(D, out=D)
        return D

    def _finish_similarity(self, S: np.ndarray) -> np.ndarray:
        """Put the preferences on the diagonal and add the tie-breaking noise, in place."""
        n = S.shape[0]
        pref = self.params["preference"]
        if pref is None:
            pref = float(np.median(S))
        S.flat[:: n + 1] = pref
        noise = np.random.default_rng(self._noise_seed).standard_normal((n, n))
        noise *= _EPS * S + _TINY * 100
        S += noise
        return S

    def _n_square(self) -> int:
        return 7

    def _start(self) -> None:
        """(Re)build the engine at iteration 0."""
        n = self.dataset.n_samples
        ml, cl = self._links()
        if self._engine is None:
            _check_memory(self.name, n, self._n_square(), ml.size + cl.size)
            S = self._finish_similarity(self.similarity_matrix())
            self._engine = MessageEngine(S, ml, cl, self.params["damping"], self.order)
        else:
            self._engine.reset()
        self._previous_mask = np.zeros(n, dtype=bool)
        self._stable = 0

    def _advance(self) -> tuple[float | None, np.ndarray]:
        change = self._engine.iterate(track_change=self.params["tol"] > 0)
        mask = self._engine.self_exemplars()
        self._stable = self._stable + 1 if np.array_equal(mask, self._previous_mask) else 1
        self._previous_mask = mask
        return change, mask

    def _sync(self, state: State) -> None:
        """Bring the engine to ``state`` (replaying from iteration 0 if it was elsewhere)."""
        if self._last is state and self._engine is not None:
            return
        self._start()
        for _ in range(state.iteration):
            self._advance()

    # -- states ------------------------------------------------------------------------------------
    def _extra_info(self) -> dict[str, Any]:
        """Subclass hook: more entries for ``State.extras``."""
        return {}

    def _regularizer_total(self) -> float:
        """Subclass hook: what the objective subtracts besides the link penalties."""
        return 0.0

    def _state(self, iteration: int, mask: np.ndarray, change: float | None) -> State:
        eng = self._engine
        exemplars = identify_exemplars(eng.A, eng.R, eng.S_hat, mask, self.params["exemplar_rule"],
                                       eng.tmp)
        centers = np.unique(exemplars)
        labels = np.searchsorted(centers, exemplars).astype(np.int64)
        objective, broken_ml, broken_cl = net_similarity(eng.S, exemplars, eng.ml, eng.cl)
        model = {"exemplars": exemplars.astype(np.int64)}
        info = {
            "exemplar_indices": centers,
            "n_self_exemplars": int(mask.sum()),
            "stable_iterations": int(self._stable),
            "message_change": change,
            "broken_must_links": broken_ml,
            "broken_cannot_links": broken_cl,
            **self._extra_info(),
        }
        state = State(iteration, labels, objective=objective - self._regularizer_total(),
                      objective_name=self.objective_name, model=model, extras=info)
        self._last = state
        return state

    def initialize(self) -> State:
        self._engine = None
        self._start()
        return self._state(0, self._previous_mask, None)

    def step(self, state: State) -> State:
        self._sync(state)
        change, mask = self._advance()
        return self._state(state.iteration + 1, mask, change)

    def converged(self, previous: State, current: State) -> bool:
        if self.dataset.n_samples == 1:
            return True
        tol = self.params["tol"]
        change = current.extras.get("message_change")
        if tol > 0 and change is not None and change < tol:
            return True
        k = self.params["convergence_iter"]
        return (current.extras["n_self_exemplars"] > 0
                and current.extras["stable_iterations"] >= k and current.iteration > k)


class AffinityPropagation(SCSSAP):
    """Affinity propagation (Frey & Dueck 2007), the unsupervised baseline.

    Frey & Dueck's update order (responsibilities, then availabilities), termination and
    exemplar refinement, so that it reproduces scikit-learn's ``AffinityPropagation`` with the
    same ``preference``, ``damping``, ``max_iter`` and ``convergence_iter``. Equivalent to
    ``scssap`` without links, whose messages are the same sequence half an iteration apart.
    """

    name = "affinity-propagation"
    title = "Affinity propagation (Frey & Dueck)"
    citation = ("Frey & Dueck (2007), Clustering by passing messages between data points, "
                "Science 315:972-976")
    uses_constraints = False
    params = (
        Param("damping", float, 0.5, "damping factor in [0.5, 1) (scikit-learn's default 0.5)",
              low=0.5, high=1.0, high_open=True),
        *_COMMON_PARAMS,
        Param("exemplar_rule", str, "refine",
              "refine: Frey & Dueck's nearest exemplar plus medoid refinement (scikit-learn); "
              "paper: arg max over self-exemplars of alpha + rho", choices=("refine", "paper")),
    )
    order = "frey-dueck"
    objective_name = "net similarity"


# -- metric learning (Algorithm 2) ---------------------------------------------------------------
def learn_metric(X: np.ndarray, exemplars: np.ndarray, regularizer: str, h: float,
                 scope: str = "cluster") -> tuple[np.ndarray, np.ndarray]:
    """Diagonal metrics (feature weights) per cluster, eq. 32 or eq. 33; rows sum to 1.

    Returns (weights (k, d), cluster of each point (n,)); ``scope="global"`` learns one metric
    for all points. ``regularizer="logdet"`` (eq. 29): a_d = |X_u| / sum_i (x_id - c_id)^2
    (eq. 32), then divided by its sum as in the paper's experiments; features with zero spread
    get infinite weight, so in the limit the weight is uniform over them and 0 elsewhere (the
    paper's remark in section 5.3; a singleton cluster gets uniform weights).
    ``regularizer="entropy"`` (eq. 30): a_d proportional to exp(-sum_i (x_id - c_id)^2 /
    (h |X_u|)) (eq. 33); h = 0 is its limit, uniform over the features of least spread.
    """
    n = X.shape[0]
    if scope == "global":
        lab = np.zeros(n, dtype=np.int64)
    else:
        _, lab = np.unique(exemplars, return_inverse=True)
    k = int(lab.max()) + 1
    dev = (X - X[exemplars]) ** 2
    onehot = sp.csr_matrix((np.ones(n), (lab, np.arange(n))), shape=(k, n))
    spread = np.asarray(onehot @ dev)                       # sum_i (x_id - c_id)^2, (k, d)
    size = np.bincount(lab, minlength=k).astype(float)[:, None]
    if regularizer == "logdet":
        zero = spread <= 0
        with np.errstate(divide="ignore"):
            w = np.where(zero.any(axis=1, keepdims=True), zero.astype(float), size / spread)
    elif regularizer == "entropy":
        if h > 0:
            z = -spread / (h * size)
            z -= z.max(axis=1, keepdims=True)
            w = np.exp(z)
        else:
            w = (spread == spread.min(axis=1, keepdims=True)).astype(float)
    else:
        raise InvalidInputError(f"regularizer must be 'logdet' or 'entropy', got {regularizer!r}.")
    w /= w.sum(axis=1, keepdims=True)
    return w, lab


def metric_regularizer(weights: np.ndarray, regularizer: str, h: float) -> np.ndarray:
    """g(A_u) of eq. 29 (-log det A) or eq. 30 (h sum a log a) for every row of ``weights``."""
    if regularizer == "logdet":
        with np.errstate(divide="ignore"):
            return -np.log(weights).sum(axis=1)
    safe = np.where(weights > 0, weights, 1.0)
    return h * (weights * np.log(safe)).sum(axis=1)


class SCSSAPMetric(SCSSAP):
    """SCSSAP with metric learning, Algorithm 2 of Arzeno & Vikalo (section 5.2).

    Rounds alternate a full SCSSAP run (Algorithm 1 from zero messages, ended by its own
    termination or ``round_max_iter``) with a closed-form update of diagonal, trace-one metrics
    A_u per cluster u (eq. 32 or 33). The similarity is s'(i, j) = -0.5 |x_i - x_j|^2_{A_i}
    - 0.5 |x_i - x_j|^2_{A_j}, A_i the metric of i's cluster, starting from A = I / D for all
    points. Each step is one message iteration; the step that starts a round also updates the
    metric. The run ends when the exemplars at the end of a round equal those of the previous
    round ``round_convergence_iter`` times in a row, after ``max_rounds`` rounds, or at
    ``max_iter`` iterations in all. The objective is eq. 28: eq. 6 under s' minus sum_i g(A_li).
    """

    name = "scssap-metric"
    title = "SCSSAP with metric learning (Algorithm 2)"
    citation = SCSSAP.citation + ", section 5.2"
    params = (
        Param("damping", float, 0.75, "damping mu of alpha and rho, in [0.5, 1)",
              low=0.5, high=1.0, high_open=True),
        *_PENALTY_PARAMS,
        Param("preference", float, None,
              "s(k, k); none = median of the whole similarity matrix of the round (diagonal "
              "zeros included)", nullable=True),
        Param("regularizer", str, "logdet",
              "logdet: g = -log det A (eq. 29, closed form eq. 32); entropy: g = h sum a log a "
              "(eq. 30, eq. 33)", choices=("logdet", "entropy")),
        Param("h", float, 0.1, "h of the entropy regulariser (eq. 30); 0.1 in section 5.3",
              low=0.0),
        Param("metric_scope", str, "cluster", "cluster: one metric per cluster; global: one for all",
              choices=("cluster", "global")),
        Param("max_rounds", int, 10, "maximum number of SCSSAP runs (metric updates + 1)", low=1),
        Param("round_convergence_iter", int, 1,
              "stop when the exemplars are unchanged from one round to the next this many times",
              low=1),
        Param("round_max_iter", int, 200, "maximum iterations of one SCSSAP run", low=1),
        Param("convergence_iter", int, 15,
              "a SCSSAP run ends when its exemplars have not changed for this many iterations",
              low=1),
        Param("tol", float, 0.0, "a SCSSAP run also ends when no message changes by tol (0: off)",
              low=0.0),
        Param("max_iter", int, 2000, "maximum number of message iterations over all rounds", low=1),
        Param("exemplar_rule", str, "paper",
              "paper: arg max over self-exemplars of alpha + rho; refine: Frey & Dueck's",
              choices=("paper", "refine")),
    )
    objective_name = "net similarity with metric (eq. 28)"

    def _n_square(self) -> int:
        return 8

    def _metric_similarity(self) -> np.ndarray:
        W = self._weights[self._metric_of]                   # (n, d) metric of each point's cluster
        D = squared_distances(self.X, W)
        S = D + D.T
        S *= -0.5
        return self._finish_similarity(S)

    def _start(self) -> None:
        n, d = self.X.shape
        self._weights = np.full((1, d), 1.0 / d)
        self._metric_of = np.zeros(n, dtype=np.int64)
        self._round, self._round_iter, self._round_done = 1, 0, False
        self._unchanged_rounds, self._done = 0, False
        self._round_end: np.ndarray | None = None
        self._exemplars = np.arange(n)
        if self._engine is None:
            ml, cl = self._links()
            _check_memory(self.name, n, self._n_square(), ml.size + cl.size)
            self._engine = MessageEngine(self._metric_similarity(), ml, cl,
                                         self.params["damping"], self.order)
        else:
            self._engine.set_similarity(self._metric_similarity())
        self._previous_mask = np.zeros(n, dtype=bool)
        self._stable = 0

    def _advance(self) -> tuple[float | None, np.ndarray]:
        p = self.params
        if self._round_done and not self._done:
            self._weights, self._metric_of = learn_metric(
                self.X, self._exemplars, p["regularizer"], p["h"], p["metric_scope"])
            self._engine.set_similarity(self._metric_similarity())
            self._round += 1
            self._round_iter, self._round_done = 0, False
            self._previous_mask = np.zeros(self.dataset.n_samples, dtype=bool)
            self._stable = 0
        change, mask = super()._advance()
        self._round_iter += 1
        k = p["convergence_iter"]
        inner = (mask.any() and self._stable >= k and self._round_iter > k) or (
            p["tol"] > 0 and change is not None and change < p["tol"])
        if inner or self._round_iter >= p["round_max_iter"] or self.dataset.n_samples == 1:
            self._round_done = True
            self._exemplars = identify_exemplars(self._engine.A, self._engine.R,
                                                 self._engine.S_hat, mask, p["exemplar_rule"],
                                                 self._engine.tmp)
            if self._round_end is not None and np.array_equal(self._round_end, self._exemplars):
                self._unchanged_rounds += 1
            else:
                self._unchanged_rounds = 0
            self._round_end = self._exemplars.copy()
            self._done = (self._unchanged_rounds >= p["round_convergence_iter"]
                          or self._round >= p["max_rounds"])
        return change, mask

    def _extra_info(self) -> dict[str, Any]:
        return {
            "round": self._round,
            "round_iteration": self._round_iter,
            "round_done": self._round_done,
            "metric_converged": self._done,
            "feature_weights": self._weights.copy(),
        }

    def _regularizer_total(self) -> float:
        reg = metric_regularizer(self._weights, self.params["regularizer"], self.params["h"])
        return float(reg[self._metric_of].sum())

    def converged(self, previous: State, current: State) -> bool:
        return bool(current.extras["metric_converged"])


@hookimpl
def pairlab_algorithms():
    return [SCSSAP, AffinityPropagation, SCSSAPMetric]
