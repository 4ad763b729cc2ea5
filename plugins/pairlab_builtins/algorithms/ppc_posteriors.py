"""The posteriors behind PPC (Lu & Leen 2007): the weight matrix, exact clique inference, log Omega,
Gibbs sampling and mean field, and the prior update.

* ``ppc_weight_matrix`` -- W from uniform weights or per-pair certainties (eq. 2.15), hard links
  (eq. 2.10) as infinite weights.
* exact posteriors per clique: vectorised enumeration over cliques of equal size, then
  :mod:`pairlab.markov` (trees, loop cutsets) beyond enumeration;
* ``_Omega`` -- log Omega(pi), the normaliser of eq. 2.8, with the corrected closed form of
  section 3.1 (S^N_L (1 - S)^N_N);
* ``_Approximate`` -- Gibbs sampling (eq. 3.1) and mean field (eq. 3.5, with the factor 2 of the
  ordered-pair sum);
* ``maximize_prior`` -- the prior update of eq. 2.13.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.sparse.csgraph import connected_components
from scipy.special import entr, expit

from pairlab import Constraints
from pairlab.errors import InconsistentConstraintsError, InvalidInputError

from .ppc_mean_field import _row_max, mean_field_sweeps

__all__ = ["log_omega_nonoverlapping", "maximize_prior", "ppc_weight_matrix"]

_CHUNK = 1 << 21  # elements per temporary block in the vectorised enumeration


def _lse(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """log sum exp along ``axis`` (rows of -inf give -inf), without scipy's per-call overhead."""
    m = a.max(axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - m).sum(axis=axis)) + np.squeeze(m, axis=axis)


# -- the weight matrix W^p -------------------------------------------------------------------------
def ppc_weight_matrix(constraints: Constraints, weighting: str = "uniform",
                      must_link_weight: float = 1.5, cannot_link_weight: float = 1.5) -> sp.csr_matrix:
    """The symmetric sparse weight matrix W^p of eq. 2.7 (zero diagonal; one entry per ordered pair).

    ``weighting="uniform"``: ``W_ij = must_link_weight`` on links, ``-cannot_link_weight`` on
    do-not-links (section 2.4.1; ``inf`` makes them hard). ``"confidence"``: eq. 2.15 from the
    per-pair certainties gamma of ``constraints`` (gamma = 1 gives a hard relation; gamma < 1/2
    flips its sign, footnote 2). ``"hard"``: every relation is hard (+/- inf, eq. 2.10, A.2).
    """
    n_ml, n_cl = constraints.n_must_link, constraints.n_cannot_link
    if weighting == "uniform":
        if not (must_link_weight >= 0 and cannot_link_weight >= 0):
            raise InvalidInputError("must_link_weight and cannot_link_weight must be >= 0 "
                                    "(the sign comes from the kind of relation).")
        w = np.concatenate([np.full(n_ml, float(must_link_weight)),
                            np.full(n_cl, -float(cannot_link_weight))])
    elif weighting == "confidence":
        gamma = np.concatenate([constraints.ml_confidence, constraints.cl_confidence])
        with np.errstate(divide="ignore"):
            half_logit = 0.5 * (np.log(gamma) - np.log1p(-gamma))
        w = np.concatenate([np.ones(n_ml), -np.ones(n_cl)]) * half_logit
    elif weighting == "hard":
        w = np.concatenate([np.full(n_ml, np.inf), np.full(n_cl, -np.inf)])
    else:
        raise InvalidInputError(
            f"weighting must be 'uniform', 'confidence' or 'hard', got {weighting!r}.")
    W = constraints.adjacency("all", weights=w)
    W.eliminate_zeros()
    return W


def log_omega_nonoverlapping(weights: np.ndarray, link_weights: np.ndarray) -> float:
    """log Omega(pi) for relations that share no point (section 3.1, corrected).

    ``link_weights`` lists W_ij of each relation (+inf / -inf for hard ones). A pair contributes
    ``1 + (exp(2 W) - 1) S`` with ``S = sum_k pi_k^2``; hard links ``S``, hard do-not-links ``1 - S``.
    """
    s = float(np.sum(np.asarray(weights, dtype=float) ** 2))
    total = 0.0
    for w in np.asarray(link_weights, dtype=float):
        if w == np.inf:
            total += math.log(s)
        elif w == -np.inf:
            total += math.log1p(-s)
        else:
            total += math.log1p(math.expm1(2 * w) * s)
    return total


# -- the graph of chunklets ------------------------------------------------------------------------
def _renumber(labels: np.ndarray) -> np.ndarray:
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv.ravel()]


def _sym(a: np.ndarray, b: np.ndarray, data: np.ndarray, n: int) -> sp.csr_matrix:
    m = sp.coo_matrix((np.concatenate([data, data]), (np.concatenate([a, b]), np.concatenate([b, a]))),
                      shape=(n, n)).tocsr()
    m.sum_duplicates()
    m.eliminate_zeros()
    return m


class _LinkGraph:
    """Nodes are chunklets of hard links; soft weights and hard do-not-links join nodes."""

    def __init__(self, W: sp.csr_matrix) -> None:
        n = W.shape[0]
        tri = sp.triu(W, k=1).tocoo()
        i, j, w = tri.row.astype(np.int64), tri.col.astype(np.int64), tri.data
        with np.errstate(over="ignore"):
            hard = np.isinf(2.0 * w)
        hard_ml, hard_cl, soft = hard & (w > 0), hard & (w < 0), ~hard
        if hard_ml.any():
            adj = _sym(i[hard_ml], j[hard_ml], np.ones(int(hard_ml.sum())), n)
            self.node_of = _renumber(connected_components(adj, directed=False)[1])
        else:
            self.node_of = np.arange(n)
        node = self.node_of
        inside = node[i[hard_cl]] == node[j[hard_cl]]
        if inside.any():
            cons = Constraints(np.column_stack([i[hard_ml], j[hard_ml]]),
                               np.column_stack([i[hard_cl], j[hard_cl]]), n_samples=n)
            try:
                cons.check_consistent()
            except InconsistentConstraintsError as exc:
                raise InconsistentConstraintsError(
                    str(exc).split("; remove")[0] + " (hard relations of infinite weight); remove "
                    "one of these links or give them finite weights (weighting='uniform' with "
                    "finite weights, or confidences below 1).") from None
        self.n_nodes = int(node.max()) + 1 if n else 0
        self.sizes = np.bincount(node, minlength=self.n_nodes)
        self.agg = None if self.n_nodes == n else sp.csr_matrix(
            (np.ones(n), (node, np.arange(n))), shape=(self.n_nodes, n))
        a, b = node[i[soft]], node[j[soft]]
        keep = a != b  # soft weights inside a hard chunklet are a constant factor
        self.soft = _sym(a[keep], b[keep], w[soft][keep], self.n_nodes)
        a, b = node[i[hard_cl]], node[j[hard_cl]]
        self.hard = _sym(a, b, np.ones(a.size), self.n_nodes)
        self.hard.data[:] = 1.0
        pattern = (abs(self.soft) + self.hard).tocsr()
        _, self.comp = connected_components(pattern, directed=False)
        self.comp = _renumber(self.comp)
        self.comp_size = np.bincount(self.comp)

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Node pairs a < b with their weight; hard do-not-links get -inf (they dominate)."""
        s = sp.triu(self.soft, k=1).tocoo()
        h = sp.triu(self.hard, k=1).tocoo()
        n = self.n_nodes
        hk = h.row.astype(np.int64) * n + h.col
        sk = s.row.astype(np.int64) * n + s.col
        keep = ~np.isin(sk, hk)
        a = np.concatenate([s.row[keep], h.row]).astype(np.int64)
        b = np.concatenate([s.col[keep], h.col]).astype(np.int64)
        w = np.concatenate([s.data[keep], np.full(h.nnz, -np.inf)])
        return a, b, w


# -- exact enumeration over cliques of equal size ---------------------------------------------------
class _CliqueGroup:
    """All cliques with ``s`` nodes, enumerated over the M^s joint assignments at once."""

    def __init__(self, graph: _LinkGraph, comps: np.ndarray, s: int, M: int) -> None:
        self.s, self.M = s, M
        order = np.argsort(graph.comp, kind="stable")
        start = np.concatenate([[0], np.cumsum(graph.comp_size)[:-1]])
        self.nodes = order[start[comps][:, None] + np.arange(s)]
        self.sizes = graph.sizes[self.nodes].astype(float)
        pos = np.empty(graph.n_nodes, dtype=np.int64)
        pos[order] = np.arange(graph.n_nodes) - start[graph.comp[order]]
        iu = np.triu_indices(s, 1)
        pair_id = np.full((s, s), -1)
        pair_id[iu] = np.arange(iu[0].size)
        row_of = np.full(graph.comp_size.size, -1)
        row_of[comps] = np.arange(comps.size)
        n_pairs = iu[0].size
        self.w_loc = np.zeros((comps.size, n_pairs))
        self.hard_loc = np.zeros((comps.size, n_pairs))
        a, b, w = graph.edges()
        rows = row_of[graph.comp[a]]
        m = rows >= 0
        pa, pb = pos[a[m]], pos[b[m]]
        pid = pair_id[np.minimum(pa, pb), np.maximum(pa, pb)]
        hard = np.isinf(w[m])
        np.add.at(self.w_loc, (rows[m][~hard], pid[~hard]), w[m][~hard])
        self.hard_loc[rows[m][hard], pid[hard]] = 1.0
        self.configs = np.stack(np.unravel_index(np.arange(M**s), (M,) * s), axis=1)
        self.eq_t = (self.configs[:, iu[0]] == self.configs[:, iu[1]]).T.astype(float)  # (P, C)
        self.onehot = (self.configs[:, :, None] == np.arange(M)).reshape(M**s, s * M).astype(float)
        sig = np.hstack([self.sizes, self.w_loc, self.hard_loc])
        _, self.u_idx, self.u_count = np.unique(sig, axis=0, return_index=True, return_counts=True)
        self.u_pair_log = self.pair_log(self.u_idx)

    @property
    def n_configs(self) -> int:
        return self.configs.shape[0]

    def pair_log(self, rows: np.ndarray | slice) -> np.ndarray:
        """sum over the clique's unordered pairs of 2 W delta (and -inf for broken hard ones)."""
        out = 2.0 * (self.w_loc[rows] @ self.eq_t)
        out[(self.hard_loc[rows] @ self.eq_t) > 0] = -np.inf
        return out

    def chunks(self) -> list[slice]:
        step = max(1, _CHUNK // self.n_configs)
        return [slice(k, k + step) for k in range(0, self.nodes.shape[0], step)]

    def check_feasible(self, node_of: np.ndarray) -> None:
        for rows in self.chunks():
            bad = np.isneginf(self.pair_log(rows)).all(axis=1)
            if bad.any():
                nodes = self.nodes[rows][np.flatnonzero(bad)[0]]
                pts = np.flatnonzero(np.isin(node_of, nodes)).tolist()
                raise InconsistentConstraintsError(
                    f"the hard do-not-links among points {pts} cannot all hold with "
                    f"n_components={self.M}; use more components or give them finite weights.")

    def posteriors(self, U: np.ndarray, Q: np.ndarray) -> float:
        """Write the exact node marginals into Q; return sum of log sum_Z (the cliques' evidence)."""
        total = 0.0
        for rows in self.chunks():
            nodes = self.nodes[rows]
            score = self.pair_log(rows)
            for t in range(self.s):
                score += U[nodes[:, t]][:, self.configs[:, t]]
            lse = _lse(score, axis=1)
            P = np.exp(score - lse[:, None])
            Q[nodes] = (P @ self.onehot).reshape(-1, self.s, self.M)
            total += float(lse.sum())
        return total

    def log_omega(self, logpi: np.ndarray, grad: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """sum over these cliques of log Omega_T(pi) for a batch of log pi (B, M)."""
        sizes = self.sizes[self.u_idx]
        B = logpi.shape[0]
        out = np.empty(B)
        g = np.zeros(self.M) if grad else None
        step = max(1, _CHUNK // (self.n_configs * len(self.u_idx)))
        for k in range(0, B, step):
            A = logpi[k:k + step][:, self.configs]  # (b, C, s)
            score = np.einsum("bcs,us->buc", A, sizes) + self.u_pair_log[None]
            lse = _lse(score, axis=2)
            out[k:k + step] = lse @ self.u_count
            if grad:
                P = np.exp(score[0] - lse[0][:, None])
                counts = (P @ self.onehot).reshape(-1, self.s, self.M) * sizes[:, :, None]
                g += self.u_count @ counts.sum(axis=1)
        return out, g


# -- exact inference beyond enumeration: trees and small loop cutsets ------------------------------
class _NetworkCliques:
    """Cliques too large to enumerate, solved exactly by :class:`pairlab.markov.LabelNetwork`
    (sum-product on trees, loop-cutset conditioning on loopy cliques) with Potts log-weights
    2 W (soft) and -inf (hard do-not-links). Cliques it cannot solve exactly within
    ``max_exact_work`` are reported in :attr:`inexact` and left out."""

    def __init__(self, graph: _LinkGraph, comps: np.ndarray, M: int, max_exact_work: int) -> None:
        self.M = M
        self.inexact = comps[:0]
        self.net = self._network(graph, comps, max_exact_work)
        if not self.net.exact:
            local_comp = np.unique(self.net.component_index[self.net.dropped_edges[:, 0]])
            self.inexact = np.unique(graph.comp[self.nodes[np.isin(self.net.component_index,
                                                                    local_comp)]])
            self.net = self._network(graph, np.setdiff1d(comps, self.inexact), max_exact_work)
        self.sizes = graph.sizes[self.nodes].astype(float)
        if self.nodes.size:
            z = self.net.infer(np.zeros((self.nodes.size, M))).component_log_partition
            if np.isneginf(z).any():
                bad = self.nodes[self.net.component_index == int(np.flatnonzero(np.isneginf(z))[0])]
                pts = np.flatnonzero(np.isin(graph.node_of, bad)).tolist()
                raise InconsistentConstraintsError(
                    f"the hard do-not-links among points {pts} cannot all hold with "
                    f"n_components={M}; use more components or give them finite weights.")
            self.omega_net, self.omega_mult, rep = self.net.compress(self.sizes)
            self.omega_sizes = self.sizes[rep]

    def _network(self, graph: _LinkGraph, comps: np.ndarray, max_exact_work: int) -> Any:
        from pairlab.markov import LabelNetwork

        self.nodes = np.flatnonzero(np.isin(graph.comp, comps))
        a, b, w = graph.edges()
        keep = np.isin(graph.comp[a], comps)
        edges = np.column_stack([np.searchsorted(self.nodes, a[keep]),
                                 np.searchsorted(self.nodes, b[keep])])
        weights = np.where(np.isinf(w[keep]), -np.inf, 2.0 * w[keep])
        return LabelNetwork(max(self.nodes.size, 1), edges, self.M, weights,
                            max_exact_work=max_exact_work)

    def posteriors(self, U: np.ndarray, Q: np.ndarray) -> float:
        res = self.net.infer(U[self.nodes])
        Q[self.nodes] = res.marginals
        return float(res.log_partition)

    def log_omega(self, logpi: np.ndarray, grad: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """sum over these cliques of log Omega_T(pi): the log-partition with unary |c| log pi."""
        net, mult, sizes = self.omega_net, self.omega_mult, self.omega_sizes
        B = logpi.shape[0]
        out = np.empty(B)
        step = max(1, _CHUNK // (sizes.size * self.M))
        g = None
        for k in range(0, B, step):
            res = net.infer(sizes[None, :, None] * logpi[k:k + step, None, :])
            out[k:k + step] = res.component_log_partition @ mult
            if grad:
                g = (mult[net.component_index] * sizes) @ res.marginals[0]
        return out, g


# -- log Omega(pi) ----------------------------------------------------------------------------------
class _Omega:
    """log Omega(pi) of eq. 2.12 as a sum over cliques, with its gradient in log pi."""

    def __init__(self, groups: list[Any], node_sizes: np.ndarray,
                 edges: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        self.groups = groups  # _CliqueGroup and _NetworkCliques: anything with log_omega
        sz, cnt = np.unique(node_sizes, return_counts=True)
        self.node_terms = (sz.astype(float), cnt.astype(float))
        sa, sb, w = edges
        if sa.size:
            sig = np.column_stack([np.minimum(sa, sb), np.maximum(sa, sb), w]).astype(float)
            sig, cnt = np.unique(sig, axis=0, return_counts=True)
            self.edge_sa, self.edge_sb, self.edge_w, self.edge_count = sig[:, 0], sig[:, 1], sig[:, 2], cnt
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                pos = self.edge_w > 0
                # log |exp(2w) - 1| and its sign; hard do-not-links have c = -1
                self.edge_logc = np.where(pos, 2 * self.edge_w + np.log1p(-np.exp(-2 * self.edge_w)),
                                          np.log(-np.expm1(2 * self.edge_w)))
        else:
            self.edge_sa = self.edge_sb = np.empty(0)
        self.trivial = not groups and sz.size == 0 and self.edge_sa.size == 0
        # every power m whose sum_k pi_k^m is needed, and where each term finds it
        ea, eb = self.edge_sa, self.edge_sb
        self.powers = np.unique(np.concatenate([sz, ea, eb, ea + eb]).astype(float))
        self.node_idx = np.searchsorted(self.powers, sz)
        self.ia, self.ib, self.iab = (np.searchsorted(self.powers, m) for m in (ea, eb, ea + eb))

    def value(self, logpi: np.ndarray) -> np.ndarray:
        """log Omega for a batch of log pi of shape (B, M)."""
        return self._eval(logpi, grad=False)[0]

    def value_and_grad(self, logpi: np.ndarray) -> tuple[float, np.ndarray]:
        """log Omega and d log Omega / d log pi (= E_prior[count_k]) at one log pi (M,)."""
        v, g = self._eval(logpi[None], grad=True)
        return float(v[0]), g

    def _eval(self, logpi: np.ndarray, grad: bool) -> tuple[np.ndarray, np.ndarray]:
        B, M = logpi.shape
        out = np.zeros(B)
        g = np.zeros(M)
        if self.powers.size:
            z = self.powers[None, :, None] * logpi[:, None, :]
            lp = _lse(z, axis=2)  # log p_m = log sum_k pi_k^m, (B, P)
            # d log p_m / d log pi_k = m pi_k^m / p_m
            D = self.powers[:, None] * np.exp(z[0] - lp[0][:, None]) if grad else None
        _, cnt = self.node_terms
        if cnt.size:
            out += lp[:, self.node_idx] @ cnt
            if grad:
                g += cnt @ D[self.node_idx]
        if self.edge_sa.size:
            # log |c| r with r = p_{a+b} / (p_a p_b); the edge factor relative to independence is 1 + c r
            x = self.edge_logc + lp[:, self.iab] - lp[:, self.ia] - lp[:, self.ib]
            pos = self.edge_w > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                term = np.where(pos, np.logaddexp(0.0, x), np.log1p(-np.exp(np.minimum(x, 0.0))))
                e = np.exp(x[0])
                frac = np.where(pos, expit(x[0]), -e / (1.0 - e))  # t / (1 + t), t = c r
            out += term @ self.edge_count
            if grad:
                g += (self.edge_count * frac) @ (D[self.iab] - D[self.ia] - D[self.ib])
        for grp in self.groups:
            v, gg = grp.log_omega(logpi, grad)
            out += v
            if grad:
                g += gg
        return out, g


def _simplex_grid(step: float, M: int) -> np.ndarray:
    """All weight vectors with entries in {step, 2 step, ...} summing to one (eq. 2.14's grid H)."""
    K = round(1.0 / step)
    if abs(K * step - 1.0) > 1e-9:
        raise InvalidInputError(f"grid_step={step} must divide 1 (e.g. 0.01, 0.02, 0.05).")
    if math.comb(K - 1, M - 1) > 2_000_000:
        raise InvalidInputError(
            f"the weight grid with grid_step={step} and {M} components has "
            f"{math.comb(K - 1, M - 1)} nodes; use weights_update='optimize' or a coarser grid_step.")

    def comp(total: int, parts: int) -> np.ndarray:
        if parts == 1:
            return np.array([[total]])
        blocks = [np.hstack([np.full((r.shape[0], 1), first), r])
                  for first in range(1, total - parts + 2) for r in [comp(total - first, parts - 1)]]
        return np.vstack(blocks)

    return comp(K, M) / K


# -- Gibbs sampling and mean field ------------------------------------------------------------------
def _greedy_colouring(adj: sp.csr_matrix) -> np.ndarray:
    """Greedy colouring in index order (a 2-colouring for grids): nodes of one colour share no edge."""
    n = adj.shape[0]
    indptr, indices = adj.indptr.tolist(), adj.indices.tolist()
    colour = [-1] * n
    for v in range(n):
        used = {colour[u] for u in indices[indptr[v]:indptr[v + 1]]}
        c = 0
        while c in used:
            c += 1
        colour[v] = c
    return np.asarray(colour, dtype=np.int64)


def _softmax_rows(logits: np.ndarray) -> np.ndarray:
    p = np.exp(logits - _row_max(logits)[:, None])
    p /= (p @ np.ones(p.shape[1]))[:, None]
    return p


class _Approximate:
    """Gibbs sampling (eq. 3.1) and mean field (eq. 3.5) over a set of nodes joined by soft weights.

    ``nodes`` is stored sorted by colour class, so each class is a contiguous slice.
    """

    def __init__(self, graph: _LinkGraph, nodes: np.ndarray) -> None:
        W = graph.soft if nodes.size == graph.n_nodes else graph.soft[nodes][:, nodes].tocsr()
        colour = _greedy_colouring(W)
        order = np.argsort(colour, kind="stable")
        self.nodes = nodes[order]
        self.W = W[order][:, order].tocsr()
        bounds = np.searchsorted(colour[order], np.arange(int(colour.max()) + 2 if colour.size else 1))
        self.blocks = [(slice(int(lo), int(hi)), (2.0 * self.W[lo:hi]).tocsr())
                       for lo, hi in itertools.pairwise(bounds)]
        # exp(U - max U) * exp(2 W Q) cannot overflow or vanish when 2 sum_j |W_ij| stays moderate
        self.shift_once = float(2.0 * np.asarray(abs(self.W).sum(axis=1)).max(initial=0.0)) < 500.0

    def mean_field(self, U: np.ndarray, Q: np.ndarray, max_iter: int, tol: float,
                   active_set: bool | None = None) -> tuple[np.ndarray, int]:
        """Q_i(k) <- exp(U_i(k) + 2 sum_j W_ij Q_j(k)) / norm, one colour class at a time, stale
        nodes only on large graphs (:func:`.ppc_mean_field.mean_field_sweeps`); returns (Q, sweeps)."""
        return mean_field_sweeps(self.W, self.blocks, U, Q, max_iter, tol, self.shift_once, active_set)

    def gibbs(self, U: np.ndarray, z: np.ndarray | None, rng: np.random.Generator, burn_in: int,
              sweeps: int, rao_blackwell: bool) -> tuple[np.ndarray, np.ndarray]:
        """Sample means of delta(z_i, k) (or of the conditionals) over ``sweeps`` sweeps."""
        n, M = U.shape
        z = _sample(_softmax_rows(U), rng) if z is None else z.copy()
        onehot = np.zeros((n, M))
        onehot[np.arange(n), z] = 1.0
        acc = np.zeros((n, M))
        for sweep in range(burn_in + sweeps):
            for sl, W2 in self.blocks:
                p = _softmax_rows(U[sl] + W2 @ onehot)
                new = _sample(p, rng)
                rows = np.arange(sl.start, sl.stop)
                onehot[rows, z[sl]] = 0.0
                onehot[rows, new] = 1.0
                z[sl] = new
                if sweep >= burn_in:
                    acc[sl] += p if rao_blackwell else onehot[sl]
        return acc / sweeps, z

    def bound(self, U: np.ndarray, Q: np.ndarray) -> float:
        """E_Q[log P_p(X_T, Z_T) + log g] + H(Q) for factorised Q (without log Omega)."""
        with np.errstate(invalid="ignore"):
            unary = np.where(Q > 0, Q * U, 0.0).sum()
        return float(unary + (Q * (self.W @ Q)).sum() + entr(Q).sum())


def _sample(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(p.shape[0])
    k = (np.cumsum(p, axis=1) < u[:, None]).sum(axis=1)
    return np.minimum(k, p.shape[1] - 1)


def maximize_prior(nk: np.ndarray, omega: _Omega, previous: np.ndarray | None = None) -> np.ndarray:
    """Maximise f(pi) = sum_k N_k log pi_k - log Omega(pi) by L-BFGS over pi = softmax(theta).

    The gradient is analytic: d f / d log pi_k = N_k - E_prior[count_k], projected onto the simplex
    by the softmax. Starts from the better of N_k / N and ``previous``, and returns the optimum
    only if it improves on the start (so the update never lowers eq. 2.13: a generalised EM step).
    """
    N = float(nk.sum())

    def f(logpi: np.ndarray) -> float:
        return float(nk @ logpi - omega.value(logpi[None])[0])

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        logpi = theta - _lse(theta)
        v, g = omega.value_and_grad(logpi)
        gl = nk - g
        return -(float(nk @ logpi) - v) / N, -(gl - np.exp(logpi) * gl.sum()) / N

    candidates = [np.log(nk / N)]
    if previous is not None and np.all(previous > 0):
        candidates.append(np.log(previous / previous.sum()))
    theta0 = max(candidates, key=f)
    res = minimize(fun, theta0, jac=True, method="L-BFGS-B",
                   options={"maxiter": 500, "ftol": 1e-15, "gtol": 1e-11})
    best = max([res.x - _lse(res.x), theta0], key=f)
    weights = np.exp(best)
    return weights / weights.sum()


def _build_groups(graph: _LinkGraph, comps: np.ndarray, M: int) -> list[_CliqueGroup]:
    """One enumeration group per clique size among ``comps``; infeasible hard cliques raise."""
    out = []
    for s in np.unique(graph.comp_size[comps]):
        grp = _CliqueGroup(graph, comps[graph.comp_size[comps] == s], int(s), M)
        grp.check_feasible(graph.node_of)
        out.append(grp)
    return out
