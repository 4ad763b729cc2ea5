"""Affinity propagation and SCSSAP with messages on the edges of a sparse similarity graph.

Frey & Dueck (2007) pass messages only between points whose similarity is known; a pair that is
not an edge has s(i, j) = -inf, so c_ij = 0 always and its messages are constants that drop out.
Here the graph is the symmetric k-nearest-neighbour graph plus every linked pair (so every link
has a message path) plus the diagonal (the preferences). Storage is one float per edge per array,
in CSR order (rows sorted, columns sorted within a row), so memory is O(n k + |links| k).

The updates are Algorithm 1 of Arzeno & Vikalo on the edges, with the same damping and order as
the dense core of :mod:`.ap_messages`:

* availabilities (eq. 14): column sums of max(rho, 0) over the column's edges;
* responsibilities (eq. 25): the largest and second largest s_hat + alpha over the row's edges;
* cannot-link gamma_ik^j (eq. 17) and must-link omega_ik^j (eq. 20) for every ordered link
  (i, k) and every j on an edge of i ("slots"). When (k, j) is not an edge, c_kj = 0 is fixed and
  the link factor is a unary one on c_ij: gamma_ik^j = 0 (eq. 17 with alpha_kj + rho_kj = -inf)
  and omega_ik^j = -q_m (eq. 20 with tau = -inf: choosing j costs i the broken must-link);
* s_hat (eq. 24) on the edges of linked points.

With every pair an edge (n_neighbors >= n - 1) each array is the dense one read in row-major
order, so the sparse engine reproduces the dense one (tests: messages to 1e-10, same exemplars).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pairlab.errors import InvalidInputError

from .ap_messages import Engine, LinkSet, _cluster_argmax, link_penalty

__all__ = ["EdgeGraph", "SparseMessageEngine", "knn_graph", "pair_squared_distances"]

_BLOCK = 1 << 20  # pairs per block when computing similarities of many pairs


# -- the graph -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EdgeGraph:
    """Edges (i, j) in CSR order, the diagonal included; ``keys = i * n + j`` is sorted."""

    n: int
    indptr: np.ndarray
    row: np.ndarray
    col: np.ndarray
    keys: np.ndarray
    diag: np.ndarray

    @classmethod
    def from_pairs(cls, n: int, rows: np.ndarray, cols: np.ndarray) -> EdgeGraph:
        """The symmetric graph of the given pairs (both orders) plus the diagonal."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        ar = np.arange(n, dtype=np.int64)
        keys = np.sort(np.concatenate([rows * n + cols, cols * n + rows, ar * n + ar]))
        keys = keys[np.r_[True, keys[1:] != keys[:-1]]]       # unique (sorting beats hashing here)
        row, col = np.divmod(keys, n)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=n), out=indptr[1:])
        diag = np.searchsorted(keys, ar * n + ar)
        return cls(n, indptr, row, col, keys, diag)

    @property
    def nnz(self) -> int:
        return int(self.keys.size)

    @property
    def complete(self) -> bool:
        return self.nnz == self.n * self.n

    def find(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Edge index of each (row, col), -1 where the pair is not an edge."""
        want = np.asarray(rows, dtype=np.int64) * self.n + np.asarray(cols, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.keys, want), max(self.nnz - 1, 0))
        return np.where(self.keys[pos] == want, pos, -1)

    def row_max(self, values: np.ndarray) -> np.ndarray:
        """Largest value of each row (every row has its diagonal edge, so none is empty)."""
        return np.maximum.reduceat(values, self.indptr[:-1])

    def row_argmax(self, values: np.ndarray, top: np.ndarray | None = None) -> np.ndarray:
        """Edge index of each row's largest value, the smallest column on ties (as np.argmax)."""
        if top is None:
            top = self.row_max(values)
        hit = np.flatnonzero(values == top[self.row])       # every row has at least one
        r = self.row[hit]
        return hit[np.r_[True, r[1:] != r[:-1]]]


def knn_graph(X: np.ndarray, n_neighbors: int, pairs: np.ndarray | None = None) -> EdgeGraph:
    """Symmetric k-nearest-neighbour graph (Euclidean, scipy's cKDTree) plus ``pairs``.

    ``n_neighbors >= n - 1`` gives the complete graph. Ties at the k-th distance are broken by
    the tree; the graph is symmetrised, so a point can have more than k neighbours.
    """
    from scipy.spatial import cKDTree

    n = X.shape[0]
    k = min(int(n_neighbors), n - 1)
    rows = np.empty(0, dtype=np.int64)
    cols = rows
    if k > 0:
        _, idx = cKDTree(X).query(X, k=k + 1)
        idx = np.asarray(idx, dtype=np.int64).reshape(n, k + 1)
        rows = np.repeat(np.arange(n, dtype=np.int64), k + 1)
        cols = idx.ravel()
        keep = rows != cols
        rows, cols = rows[keep], cols[keep]
    if pairs is not None and len(pairs):
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        rows, cols = np.concatenate([rows, p[:, 0]]), np.concatenate([cols, p[:, 1]])
    return EdgeGraph.from_pairs(n, rows, cols)


def top_similarity_graph(S: np.ndarray, n_neighbors: int, pairs: np.ndarray | None = None
                         ) -> EdgeGraph:
    """The same graph for a precomputed (n, n) similarity: each row's k largest off-diagonal
    similarities (ties to the smaller column), symmetrised, plus ``pairs``."""
    n = S.shape[0]
    k = min(int(n_neighbors), n - 1)
    rows = np.empty(0, dtype=np.int64)
    cols = rows
    if k > 0:
        off = np.array(S, dtype=float)
        off.flat[:: n + 1] = -np.inf
        idx = np.argsort(-off, axis=1, kind="stable")[:, :k]
        rows = np.repeat(np.arange(n, dtype=np.int64), k)
        cols = idx.ravel().astype(np.int64)
    if pairs is not None and len(pairs):
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        rows, cols = np.concatenate([rows, p[:, 0]]), np.concatenate([cols, p[:, 1]])
    return EdgeGraph.from_pairs(n, rows, cols)


def pair_squared_distances(X: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                           weights: np.ndarray | None = None) -> np.ndarray:
    """D[i, j] of :func:`.ap_messages.squared_distances` for the given pairs only.

    The same formula (|x|^2 + |y|^2 - 2 x.y on centred data, weighted by the row point's
    ``weights``, clipped at 0, 0 on the diagonal), in blocks of pairs.
    """
    Xc = X - X.mean(axis=0)
    sq = Xc * Xc
    out = np.empty(rows.size)
    step = max(1, _BLOCK // max(X.shape[1], 1))
    for lo in range(0, rows.size, step):
        r, c = rows[lo:lo + step], cols[lo:lo + step]
        if weights is None:
            d = sq[r].sum(axis=1) + sq[c].sum(axis=1)
            d -= 2.0 * np.einsum("ij,ij->i", Xc[r], Xc[c])
        else:
            w = weights[r]
            d = (w * sq[r]).sum(axis=1) + np.einsum("ij,ij->i", w, sq[c])
            d -= 2.0 * np.einsum("ij,ij->i", w * Xc[r], Xc[c])
        out[lo:lo + step] = d
    np.maximum(out, 0.0, out=out)
    out[rows == cols] = 0.0
    return out


# -- links on the graph --------------------------------------------------------------------------
class _Slots:
    """The messages of one kind of link: one slot per ordered link (i, k) and edge (i, j).

    ``edge`` is the slot's edge (i, j), ``partner`` the edge (k, j) or -1, ``reverse`` the slot of
    (k, i) at the same j (valid where ``partner >= 0``), ``q`` the capped penalty per slot.
    """

    def __init__(self, graph: EdgeGraph, links: LinkSet) -> None:
        first, second = links.first, links.second
        deg = np.diff(graph.indptr)[first]
        offset = np.zeros(first.size + 1, dtype=np.int64)
        np.cumsum(deg, out=offset[1:])
        self.link = np.repeat(np.arange(first.size), deg)
        within = np.arange(offset[-1]) - offset[self.link]
        self.edge = graph.indptr[first][self.link] + within
        j = graph.col[self.edge]
        k = second[self.link]
        self.partner = graph.find(k, j)
        self.missing = self.partner < 0
        safe = np.where(self.missing, graph.indptr[k], self.partner)
        self.partner_safe = safe
        self.reverse = offset[links.reverse[self.link]] + (safe - graph.indptr[k])
        self.penalty = links.penalty[self.link]
        self.size = int(self.edge.size)

    def capped(self, q_max: float) -> float | np.ndarray:
        q = np.minimum(self.penalty, q_max)
        if q.size and np.all(q == q[0]):
            return float(q[0])
        return q


class SparseMessageEngine(Engine):
    """The message arrays of Algorithm 1 on the edges of ``graph``: the updates of one iteration
    for :class:`.ap_messages.Engine` (which runs them, for the dense store too), with arrays
    indexed by edge instead of (i, j)."""

    def __init__(self, graph: EdgeGraph, S: np.ndarray, must_link: LinkSet, cannot_link: LinkSet,
                 damping: float, order: str = "scssap") -> None:
        self.graph = graph
        self.n = graph.n
        self.damping = damping
        self.order = order
        self.ml, self.cl = must_link, cannot_link
        self.ml_slots = _Slots(graph, must_link)
        self.cl_slots = _Slots(graph, cannot_link)
        m = graph.nnz
        self.A = np.zeros(m)
        self.R = np.zeros(m)
        self.tmp = np.empty(m)
        self.omega = np.zeros(self.ml_slots.size)
        self.gamma = np.zeros(self.cl_slots.size)
        self._old_links = (self.omega, self.gamma)
        self.set_similarity(S)

    def set_similarity(self, S: np.ndarray) -> None:
        """Use the edge similarities ``S`` (preferences on the diagonal edges); reset messages.

        The penalty cap is that of the dense engine, q_max = 2 n (max s - min s) + 1, with the
        span taken over the edges (the only similarities a clustering on the graph can use).
        """
        self.S = S
        span = float(S.max() - S.min()) if S.size else 0.0
        self.q_max = 2.0 * self.n * span + 1.0
        self.ml_q = self.ml_slots.capped(self.q_max)
        self.cl_q = self.cl_slots.capped(self.q_max)
        self.S_hat = S.copy() if self.constrained else S
        self._forget()
        self.reset()

    # -- updates -----------------------------------------------------------------------------------
    def _link_messages(self) -> None:
        """gamma^(t) (eq. 17), omega^(t) (eq. 20) and s_hat^(t) (eq. 24) from iteration t-1.

        Summed in the dense core's order (s, then must-links, then cannot-links, each in link
        order), so that on the complete graph the result is the dense one bit for bit."""
        self._old_links = (self.omega, self.gamma)
        m = self.graph.nnz
        total = self.S.copy()
        if self.ml_slots.size:
            sl = self.ml_slots
            tau = self.A[sl.partner_safe] + self.R[sl.partner_safe]
            tau -= self.omega[sl.reverse]                               # tau_mi^j
            np.clip(tau, -self.ml_q, self.ml_q, out=tau)
            if np.ndim(self.ml_q):
                tau[sl.missing] = -self.ml_q[sl.missing]
            else:
                tau[sl.missing] = -self.ml_q
            self.omega = tau
            total += np.bincount(sl.edge, weights=tau, minlength=m)
        if self.cl_slots.size:
            sl = self.cl_slots
            lam = self.A[sl.partner_safe] + self.R[sl.partner_safe]     # alpha_kj + rho_kj
            np.subtract(self.gamma[sl.reverse], lam, out=lam)          # -lambda_ki^j
            np.clip(lam, -self.cl_q, 0.0, out=lam)
            lam[sl.missing] = 0.0
            self.gamma = lam
            total += np.bincount(sl.edge, weights=lam, minlength=m)
        self.S_hat = total

    def _availabilities(self) -> None:
        """Eq. 14 on the edges, damped, in place in ``A``."""
        g, d = self.graph, self.damping
        tmp = np.maximum(self.R, 0.0, out=self.tmp)
        tmp[g.diag] = self.R[g.diag]
        colsum = np.bincount(g.col, weights=tmp, minlength=self.n)
        new = colsum[g.col]
        new -= tmp
        diag = new[g.diag]
        np.minimum(new, 0.0, out=new)
        new[g.diag] = diag
        new *= 1 - d
        self.A *= d
        self.A += new

    def _responsibilities(self) -> None:
        """Eq. 25 on the edges, damped, in place in ``R``."""
        g, d = self.graph, self.damping
        tmp = np.add(self.A, self.S_hat, out=self.tmp)
        first = g.row_max(tmp)
        best = g.row_argmax(tmp, first)
        tmp[best] = -np.inf
        second = g.row_max(tmp)
        new = self.S_hat - first[g.row]
        new[best] = self.S_hat[best] - second
        new *= 1 - d
        self.R *= d
        self.R += new

    # -- exemplars, objective ------------------------------------------------------------------------
    def self_exemplars(self) -> np.ndarray:
        d = self.graph.diag
        return (self.A[d] + self.R[d]) > 0

    def _pick(self, values: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """Per row, the column of the largest value among edges to ``allowed`` columns; -1 if none."""
        g = self.graph
        masked = np.where(allowed[g.col], values, -np.inf)
        top = g.row_max(masked)
        c = g.col[g.row_argmax(masked, top)]
        c[np.isneginf(top)] = -1
        return c

    def _identify(self, mask: np.ndarray, rule: str) -> np.ndarray:
        """The exemplar of every point, as :func:`.ap_messages.identify_exemplars` on the graph.

        A point none of whose neighbours is a self-exemplar is its own exemplar (on the complete
        graph this never happens). ``refine`` moves each cluster's exemplar to the member with
        the largest summed similarity from the other members among the members adjacent to all
        of them (the old exemplar always is), then assigns points to the best refined exemplar
        among their neighbours.
        """
        if rule not in ("paper", "refine"):
            raise InvalidInputError(f"exemplar_rule must be 'paper' or 'refine', got {rule!r}.")
        g, n = self.graph, self.n
        ar = np.arange(n)
        if not mask.any():
            belief = self.A + self.R
            top = g.row_max(belief)
            c = np.where(belief[g.diag] >= top, ar, g.col[g.row_argmax(belief, top)])
            centers = np.unique(c)
            c[centers] = centers
            return c
        if rule == "paper":
            c = self._pick(self.A + self.R, mask)
            c = np.where(c < 0, ar, c)
            c[mask] = ar[mask]
            return c
        S = self.S_hat
        c = self._pick(S, mask)
        c = np.where(c < 0, ar, c)                       # orphans: their own clusters
        c[mask] = ar[mask]
        centers, lab = np.unique(c, return_inverse=True)
        k = centers.size
        same = lab[g.row] == lab[g.col]
        score = np.bincount(g.col[same], weights=S[same], minlength=n)
        count = np.bincount(g.col[same], minlength=n)
        size = np.bincount(lab, minlength=k)
        score = np.where(count == size[lab], score, -np.inf)
        refined = _cluster_argmax(score, lab)
        is_refined = np.zeros(n, dtype=bool)
        is_refined[refined] = True
        c = self._pick(S, is_refined)
        c = np.where(c < 0, ar, c)
        c[refined] = refined
        return c

    def _net_similarity(self, exemplars: np.ndarray) -> tuple[float, int, int]:
        """The objective of eq. 6 (see :func:`.ap_messages.net_similarity`) on the graph."""
        e = self.graph.find(np.arange(self.n), exemplars)
        if (e < 0).any():
            raise InvalidInputError("an exemplar is not a neighbour of its point in the graph.")
        total = float(self.S[e].sum())
        penalty, broken_ml, broken_cl = link_penalty(exemplars, self.ml, self.cl)
        return total - penalty, broken_ml, broken_cl


def sparse_memory(graph: EdgeGraph, ml: LinkSet, cl: LinkSet, n_edge_arrays: int = 9) -> int:
    """Bytes the sparse engine holds: edge arrays and per-slot arrays (float and int)."""
    deg = np.diff(graph.indptr)
    slots = int(deg[ml.first].sum() + deg[cl.first].sum())
    return 8 * (n_edge_arrays * graph.nnz + 9 * slots)
