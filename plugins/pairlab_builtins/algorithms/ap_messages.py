"""The message-passing core shared by ``scssap``, ``scssap-metric`` and ``affinity-propagation``.

Arzeno & Vikalo (2015), Algorithm 1: the availabilities alpha (eq. 14) and responsibilities rho
(eq. 25) of affinity propagation for all pairs, the cannot-link message gamma (eq. 17) and the
must-link message omega (eq. 20) for every constrained *ordered* pair (i, k) and candidate exemplar
j, folded into the modified similarity s_hat of eq. 24; exemplar identification and the net
similarity of eq. 6. Notation follows the paper: ``A`` holds alpha, ``R`` rho, ``S`` the
similarity s(i, j) with the preferences on its diagonal. Messages live in dense arrays (A, R and
S_hat are (n, n); gamma is (2|C|, n) and omega (2|M|, n), one row per ordered pair), so memory is
O(n^2 + n(|C| + |M|)). The availability and responsibility updates (:mod:`.ap_updates`) and the
exemplar rules (:mod:`.ap_exemplars`) are compiled loops, imported at their first use; the link
messages are whole-array numpy operations.
:mod:`.ap_sparse` runs the same updates on the edges of a sparse graph (``n_neighbors``) behind the
same engine interface.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from pairlab.errors import InvalidInputError

_EPS = np.finfo(np.float64).eps
_TINY = np.finfo(np.float64).tiny
_CACHED_MASKS = 16  # refine clusterings kept (masks recur while a run settles)
_TOP_COLUMNS = 32   # most similar columns of each row kept for refine, from n = _TOP_MIN_N on:
_TOP_MIN_N = 1000   # below, S (8 n^2 bytes) stays in cache and reading it is cheaper than the lists


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


def availability_update(R: np.ndarray, A: np.ndarray, damping: float) -> None:
    """Damped availabilities (eq. 14) from the responsibilities ``R``, in place in ``A``.

    alpha_ij = min(0, rho_jj + sum_{k not in {i, j}} max(rho_kj, 0)) for i != j and
    alpha_jj = sum_{k != j} max(rho_kj, 0); new = damping * old + (1 - damping) * update.
    A compiled loop (:func:`.ap_updates.availabilities`) with scikit-learn's floats.
    """
    from .ap_updates import availabilities  # numba: imported at the first iteration
    availabilities(R, A, damping)


def responsibility_update(S_hat: np.ndarray, A: np.ndarray, R: np.ndarray, damping: float) -> None:
    """Damped responsibilities (eq. 25) from S_hat and ``A``, in place in ``R``.

    rho_ij = s_hat(i, j) - max_{k != j} (s_hat(i, k) + alpha_ik); the max over k != j is the row
    maximum except at the row's arg-max, where it is the second largest value. A compiled loop
    (:func:`.ap_updates.responsibilities`) with scikit-learn's floats.
    """
    from .ap_updates import responsibilities
    responsibilities(S_hat, A, R, damping)


class Clustering(NamedTuple):
    """What a state reports of one self-exemplar mask: read-only arrays and the objective."""

    exemplars: np.ndarray       # (n,) each point's exemplar
    centers: np.ndarray         # the sorted exemplars
    labels: np.ndarray          # (n,) index of the exemplar in ``centers``
    objective: float            # net similarity, eq. 6
    broken_ml: int
    broken_cl: int


class Engine:
    """One iteration of Algorithm 1 and the clustering it reports, for the dense and the sparse
    message stores alike (:class:`MessageEngine`, :class:`.ap_sparse.SparseMessageEngine`).

    ``order="scssap"`` is Algorithm 1: gamma and omega from the messages of iteration t-1,
    s_hat (eq. 24), alpha from rho^(t-1), then rho from s_hat^(t) and alpha^(t).
    ``order="frey-dueck"`` is Frey & Dueck's (and scikit-learn's): rho from alpha^(t-1), then
    alpha from rho^(t). Without links the two orders produce the same sequence of messages,
    alpha half an iteration apart: scssap's alpha^(t) is Frey & Dueck's alpha after t-1 steps.
    ``affinity-propagation``, ``scssap`` and ``scssap-metric`` all iterate through
    :meth:`iterate`; a store supplies the updates (``_link_messages``, ``_availabilities``,
    ``_responsibilities``), ``self_exemplars``, ``_identify`` and ``_net_similarity``.
    """

    n: int
    order: str
    ml: LinkSet
    cl: LinkSet
    A: np.ndarray
    R: np.ndarray
    S: np.ndarray
    S_hat: np.ndarray
    omega: np.ndarray
    gamma: np.ndarray
    _old_links: tuple[np.ndarray, np.ndarray]

    @property
    def constrained(self) -> bool:
        return self.ml.size + self.cl.size > 0

    def _forget(self) -> None:
        """Drop what was kept for the previous similarity."""
        self._kept: dict[bytes, Clustering] = {}   # refine clusterings by self-exemplar mask
        self._top: tuple[np.ndarray, np.ndarray] | None = None   # most similar columns of S
        self._net: tuple[bytes, tuple[float, int, int]] | None = None

    def reset(self) -> None:
        self.A.fill(0.0)
        self.R.fill(0.0)
        self.omega.fill(0.0)
        self.gamma.fill(0.0)
        if self.constrained:
            self.S_hat[...] = self.S

    def iterate(self, track_change: bool = False) -> float | None:
        """One iteration; with ``track_change`` return the largest change of any message."""
        if self.n < 2:
            return 0.0 if track_change else None
        old = (self.A.copy(), self.R.copy()) if track_change else None
        if self.order == "frey-dueck":
            self._responsibilities()
            self._availabilities()
        else:
            if self.constrained:
                self._link_messages()
            self._availabilities()
            self._responsibilities()
        if old is None:
            return None
        pairs = [(self.A, old[0]), (self.R, old[1])]
        if self.constrained and self.order != "frey-dueck":
            pairs += [(self.omega, self._old_links[0]), (self.gamma, self._old_links[1])]
        return float(max(np.max(np.abs(a - b)) for a, b in pairs if a.size))

    def clustering(self, mask: np.ndarray, rule: str = "paper") -> Clustering:
        """Exemplars, labels and net similarity for the self-exemplars ``mask`` and ``rule``.

        ``refine`` depends on S_hat and the mask only; without links S_hat is fixed, so its
        clustering is kept per mask (a settling run repeats masks; the last 16 are kept).
        """
        kept = rule == "refine" and not self.constrained and bool(mask.any())
        key = mask.tobytes() if kept else b""
        if key in self._kept:
            return self._kept[key]
        exemplars = self._identify(mask, rule).astype(np.int64)
        centers = np.flatnonzero(np.bincount(exemplars, minlength=exemplars.size))
        labels = np.searchsorted(centers, exemplars)
        for a in (exemplars, centers, labels):
            a.setflags(write=False)
        result = Clustering(exemplars, centers, labels, *self.net_similarity(exemplars))
        if kept:
            if len(self._kept) >= _CACHED_MASKS:
                self._kept.pop(next(iter(self._kept)))
            self._kept[key] = result
        return result

    def exemplars(self, mask: np.ndarray, rule: str = "paper") -> np.ndarray:
        """Each point's exemplar (read-only), as in :meth:`clustering`."""
        return self.clustering(mask, rule).exemplars

    def net_similarity(self, exemplars: np.ndarray) -> tuple[float, int, int]:
        """The net similarity (eq. 6) of ``exemplars`` under this engine's S and links, and the
        numbers of broken must- and cannot-links; kept for the last exemplars (S does not change
        during a run), so a settled run does not recompute it."""
        key = exemplars.tobytes()
        if self._net is None or self._net[0] != key:
            self._net = (key, self._net_similarity(exemplars))
        return self._net[1]


class MessageEngine(Engine):
    """The message arrays of Algorithm 1 for one dense (n, n) similarity matrix."""

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
        self.omega = np.zeros((must_link.size, n))
        self.gamma = np.zeros((cannot_link.size, n))
        self._old_links = (self.omega, self.gamma)
        self.set_similarity(S)

    def set_similarity(self, S: np.ndarray) -> None:
        """Use ``S`` (preferences on the diagonal) and reset every message to 0.

        Penalties are capped at ``q_max = 2 n (max s - min s) + 1``: a broken link then costs
        more than any change of sum_i s(i, c_i) can gain, so the maximiser of eq. 6 is the same
        as with q = inf, but the messages stay finite. (With q = inf, eq. 20 passes tau through
        unclipped and the printed updates let omega and rho grow without bound, about as t^2;
        measured in docs/algorithms/scssap.md.)
        """
        self.S = S
        span = float(S.max() - S.min()) if S.size else 0.0
        self.q_max = 2.0 * self.n * span + 1.0
        self.ml_q = _penalties(self.ml.penalty, self.q_max)
        self.cl_q = _penalties(self.cl.penalty, self.q_max)
        self.S_support = S[self.support]
        self.S_hat = S.copy() if self.constrained else S
        self._forget()
        self.reset()

    def _link_messages(self) -> None:
        """gamma^(t) (eq. 17), omega^(t) (eq. 20) from the messages of iteration t-1; s_hat^(t)
        (eq. 24)."""
        B = self.A.take(self.support, axis=0)
        B += self.R.take(self.support, axis=0)    # alpha_kj + rho_kj of every constrained k
        self._old_links = (self.omega, self.gamma)
        if self.cl.size:
            self.gamma = cannot_link_update(B.take(self.cl_pos, axis=0), self.gamma, self.cl_q)
        if self.ml.size:
            self.omega = must_link_update(B.take(self.ml_pos, axis=0), self.omega, self.ml_q)
        modified_similarity(self.S_support, self.S_hat, self.support,
                            [(self.ml_inc, self.omega), (self.cl_inc, self.gamma)])

    def _availabilities(self) -> None:
        availability_update(self.R, self.A, self.damping)

    def _responsibilities(self) -> None:
        responsibility_update(self.S_hat, self.A, self.R, self.damping)

    def self_exemplars(self) -> np.ndarray:
        """Boolean (n,): alpha_jj + rho_jj > 0 (end of section 3)."""
        n = self.n
        return (self.A.flat[:: n + 1] + self.R.flat[:: n + 1]) > 0

    def _identify(self, mask: np.ndarray, rule: str) -> np.ndarray:
        # without links S_hat is fixed: each row's most similar columns are found once
        top = None
        if rule == "refine" and not self.constrained and self.n >= _TOP_MIN_N and mask.any():
            if self._top is None:
                from .ap_exemplars import top_columns
                self._top = top_columns(self.S_hat, _TOP_COLUMNS)
            top = self._top
        return identify_exemplars(self.A, self.R, self.S_hat, mask, rule, top)

    def _net_similarity(self, exemplars: np.ndarray) -> tuple[float, int, int]:
        return net_similarity(self.S, exemplars, self.ml, self.cl)


# -- exemplars, objective ------------------------------------------------------------------------
def _best_candidates(A: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Each point's current best candidate arg max_k (alpha_ik + rho_ik), ties to the point itself.

    Used while no self-exemplar has emerged (e.g. iteration 0, where every message is 0 and every
    point is therefore its own candidate); the candidates are then made their own exemplars.
    """
    from .ap_exemplars import best_candidates

    c = best_candidates(A, R)
    centers = np.unique(c)
    c[centers] = centers
    return c


def identify_exemplars(A: np.ndarray, R: np.ndarray, S: np.ndarray, self_mask: np.ndarray,
                       rule: str = "paper", top: tuple[np.ndarray, np.ndarray] | None = None
                       ) -> np.ndarray:
    """The exemplar of every point, shape (n,).

    ``rule="paper"`` (end of section 3): the exemplars are the self-exemplars
    Psi = {k : alpha_kk + rho_kk > 0}; point i picks arg max_{k in Psi} alpha_ik + rho_ik and
    each k in Psi is its own exemplar. ``rule="refine"`` (Frey & Dueck's reference code, also
    scikit-learn): i picks arg max_{k in Psi} s(i, k); each cluster's exemplar is then moved to
    the member with the largest summed similarity from the other members, and points are
    assigned again. Both are compiled loops (:mod:`.ap_exemplars`); arg maxes are numpy's (the
    first on ties). With Psi empty both fall back to :func:`_best_candidates`. ``top`` holds
    each row's most similar columns of S (:func:`.ap_exemplars.top_columns`), which spare
    ``refine`` most reads of S.
    """
    if rule not in ("paper", "refine"):
        raise InvalidInputError(f"exemplar_rule must be 'paper' or 'refine', got {rule!r}.")
    cols = np.flatnonzero(self_mask)
    if cols.size == 0:
        return _best_candidates(A, R)
    # numba is imported at the first exemplars, not whenever the plugin registry loads
    from .ap_exemplars import paper_exemplars, refined_exemplars

    if rule == "paper":
        return paper_exemplars(A, R, cols)
    if top is None:
        top = (np.empty((S.shape[0], 0), dtype=np.int64), np.empty((S.shape[0], 0)))
    return refined_exemplars(S, cols, *top)


def _segment_argmax(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """For consecutive non-empty segments (at ``starts``, ``sizes`` long) of ``values``, the
    position of each segment's largest value, the first one on ties."""
    top = np.maximum.reduceat(values, starts)
    hit = np.flatnonzero(values == np.repeat(top, sizes))   # every segment has one
    return hit[np.searchsorted(hit, starts)]


def _cluster_argmax(score: np.ndarray, lab: np.ndarray) -> np.ndarray:
    """For clusters 0..k-1 of ``lab`` (every one non-empty), the member with the largest score;
    the smallest index on ties."""
    order = np.argsort(lab, kind="stable")           # by cluster, then by index
    sizes = np.bincount(lab)
    starts = np.cumsum(sizes)
    starts -= sizes
    return order[_segment_argmax(score[order], starts, sizes)]


def net_similarity(S: np.ndarray, exemplars: np.ndarray, ml: LinkSet, cl: LinkSet
                   ) -> tuple[float, int, int]:
    """The objective of eq. 6 for a valid clustering, and the numbers of broken links.

    sum_i s(i, c_i) (preferences for the exemplars) minus q_c for every broken cannot-link and
    2 q_m for every broken must-link (see the module docstring); -inf when a link with infinite
    penalty is broken.
    """
    n = S.shape[0]
    total = float(S[np.arange(n), exemplars].sum())
    penalty, broken_ml, broken_cl = link_penalty(exemplars, ml, cl)
    return total - penalty, broken_ml, broken_cl


def link_penalty(exemplars: np.ndarray, ml: LinkSet, cl: LinkSet) -> tuple[float, int, int]:
    """What eq. 6 charges the broken links: q_c per cannot-link, 2 q_m per must-link; counts."""
    if ml.size + cl.size == 0:
        return 0.0, 0, 0
    half_ml = ml.first < ml.second
    half_cl = cl.first < cl.second
    broken_ml = exemplars[ml.first[half_ml]] != exemplars[ml.second[half_ml]]
    broken_cl = exemplars[cl.first[half_cl]] == exemplars[cl.second[half_cl]]
    penalty = 2.0 * float(ml.penalty[half_ml][broken_ml].sum()) + float(
        cl.penalty[half_cl][broken_cl].sum())
    return penalty, int(broken_ml.sum()), int(broken_cl.sum())


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
            f"but only {have / 2**30:.1f} GiB of memory is available; set n_neighbors (messages "
            "on a k-nearest-neighbour graph, memory grows as n k), cluster a subsample "
            "(memory grows as n^2) or free memory."
        )
