"""Penalized probabilistic clustering, PPC (Lu & Leen, Neural Computation 19, 2007).

A Gaussian mixture whose prior on the assignments Z of the *training* points is tilted by pairwise
preferences (eq. 2.4-2.8)::

    P(Z | Theta, W) = (1 / Omega(pi)) prod_i pi_{z_i} prod_{i != j} exp(W_ij delta(z_i, z_j)).

Conventions and choices (each checked against brute-force enumeration in ``tests/test_ppc.py``):

* **Factor 2.** The product of eq. 2.7 runs over *ordered* pairs, so every unordered pair {i, j}
  carries ``exp(2 W_ij delta(z_i, z_j))``. ``W`` is kept in the paper's convention, so eq. 2.15
  (``W = 1/2 log(gamma / (1 - gamma))``) makes the pair factor exactly ``gamma / (1 - gamma)``
  (Appendix B), and the Gibbs conditional of eq. 3.1 carries ``exp(2 W delta)``. The general
  mean-field equation printed under eq. 3.5 omits the 2 (``exp(sum_j W_ij Q_j(z_i))``); the
  derivative of ``E_Q[log g(Z)]`` picks up both ``W_ij`` and ``W_ji``, so the 2 belongs there, as
  the paper itself writes in section 5.2.2. We use ``exp(2 sum_j W_ij Q_j(k))``.
* **Hard relations** (``W = +/- inf``) are implemented through eq. 2.10: hard links merge points
  into chunklets that share one label (section 3.1, second special case), hard do-not-links are
  ``(1 - delta)`` factors, and ``Omega`` sums over the assignments that satisfy them.
* **Omega for non-overlapping relations.** For a single pair with weight w the normaliser is
  ``1 + (exp(2w) - 1) S`` with ``S = sum_k pi_k^2``; in the hard limit (eq. 2.10) a link gives
  ``S`` and a do-not-link ``1 - S``, so ``Omega = S^N_L (1 - S)^N_N``. The formula printed in
  section 3.1, ``(1 - S)^N_L S^N_N``, swaps the two exponents; we use the derived one.
* **Overlapping relations.** ``Omega`` factorises over cliques (connected components of the
  links). A clique of |T| chunklets is enumerated exactly when ``M^|T| <= max_exact_configs``,
  else solved exactly by :class:`pairlab.markov.LabelNetwork` (trees, small loop cutsets) when
  ``M^cutset |T| <= max_exact_work``; beyond both (``omega="auto"``) its relations are treated as
  if they did not overlap (the approximation of Shental et al. 2004 that section 2.3 mentions):
  each edge contributes its pair normaliser divided by that of two independent nodes.
* **Prior update (eq. 2.13)** is maximised over the simplex with L-BFGS on a softmax
  parametrisation with the analytic gradient ``N_k - E_prior[count_k]`` (a generalised EM step:
  the previous weights are kept if the optimiser does not improve on them); ``weights_update=
  "grid"`` reproduces the paper's 0.01 grid search (eq. 2.14) with ``log Omega`` tabulated once.
* **Posteriors** over each clique: exact (enumeration, O(M^|T|), vectorised over all cliques of
  the same size; sum-product / cutset conditioning beyond), Gibbs sampling (eq. 3.1) or mean
  field (eq. 3.5). Gibbs and mean field visit
  the nodes one colour class of a greedy graph colouring at a time; nodes of one class share no
  relation, so this is the paper's sequential scan in another order, vectorised.
* **Objective**: the penalized log-likelihood ``log P_p(X | Theta, W)`` (what EM maximises,
  section 2.3). Under Gibbs or mean field the cliques they handle contribute the variational lower
  bound ``E_Q[log P_p(X, Z)] + H(Q)`` of the factorised ``Q`` they produce.
* ``predict_proba`` of unseen points uses the fitted GMM alone (section 2.1).
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

from pairlab import Constraints, Param, State, hookimpl
from pairlab.errors import InconsistentConstraintsError, InvalidInputError
from pairlab.mixture import (
    MIXTURE_PARAMS,
    MixtureAlgorithm,
    gaussian_m_step,
    log_normalize,
    weighted_log_prob,
)

__all__ = [
    "PenalizedProbabilisticClustering",
    "log_omega_nonoverlapping",
    "ppc_weight_matrix",
]

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


def _row_max(a: np.ndarray) -> np.ndarray:
    """Row maxima of an (n, M) array, column by column (numpy's axis=1 reduction is slow for small M)."""
    m = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        np.maximum(m, a[:, k], out=m)
    return m


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

    def mean_field(self, U: np.ndarray, Q: np.ndarray, max_iter: int, tol: float) -> tuple[np.ndarray, int]:
        """Q_i(k) <- exp(U_i(k) + 2 sum_j W_ij Q_j(k)) / norm, one colour class at a time."""
        Q = Q.copy()
        ones = np.ones(U.shape[1])
        P0 = np.exp(U - _row_max(U)[:, None]) if self.shift_once else None
        it = 0
        while it < max_iter:
            it += 1
            delta = 0.0
            for sl, W2 in self.blocks:
                field = W2 @ Q
                if P0 is not None:
                    new = P0[sl] * np.exp(field)
                    new /= (new @ ones)[:, None]
                else:
                    new = _softmax_rows(U[sl] + field)
                delta = max(delta, float(np.abs(new - Q[sl]).max()))
                Q[sl] = new
            if delta <= tol:
                break
        return Q, it

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


# -- the algorithm --------------------------------------------------------------------------------
class PenalizedProbabilisticClustering(MixtureAlgorithm):
    """Penalized probabilistic clustering (Lu & Leen 2007): EM for a GMM with a pairwise prior.

    See the module docstring for the conventions (factor 2, hard relations through eq. 2.10,
    the corrected Omega of section 3.1, overlapping relations) and ``docs/algorithms/ppc.md``.
    """

    name = "ppc"
    title = "Penalized probabilistic clustering"
    citation = "Lu & Leen (2007), Penalized probabilistic clustering, Neural Computation 19(6):1528-1567"
    params = (
        *MIXTURE_PARAMS,
        Param("weighting", str, "uniform", "how W is built: uniform weights, eq. 2.15 from per-pair "
              "confidences, or hard (eq. 2.10)", choices=("uniform", "confidence", "hard")),
        Param("must_link_weight", float, 1.5, "W of a link for weighting='uniform' (inf = hard)", low=0.0),
        Param("cannot_link_weight", float, 1.5, "-W of a do-not-link for weighting='uniform' "
              "(inf = hard)", low=0.0),
        Param("inference", str, "auto", "posterior over cliques: exact (enumeration, sum-product), "
              "Gibbs (eq. 3.1), mean field (eq. 3.5), or auto (exact where feasible, else mean field)",
              choices=("auto", "exact", "gibbs", "mean-field")),
        Param("max_exact_configs", int, 10_000, "largest M^|T| a clique may have to be enumerated",
              low=1),
        Param("max_exact_work", int, 200_000, "larger cliques are solved exactly (sum-product, loop "
              "cutset conditioning) while M^cutset * |T| stays below this", low=1),
        Param("gibbs_sweeps", int, 200, "Gibbs sweeps averaged per E-step", low=1),
        Param("gibbs_burn_in", int, 50, "Gibbs sweeps discarded per E-step", low=0),
        Param("rao_blackwell", bool, False, "average Gibbs conditionals instead of indicators"),
        Param("mean_field_iter", int, 50, "maximum mean-field sweeps per E-step", low=1),
        Param("mean_field_tol", float, 1e-5, "stop mean field when no Q_i(k) moves more", low=0.0),
        Param("omega", str, "auto", "log Omega(pi) in the prior update: exact per clique, auto "
              "(exact where feasible, else relations treated as non-overlapping), pairwise "
              "(always so), or ignore (pi_k = N_k / N)",
              choices=("auto", "exact", "pairwise", "ignore")),
        Param("weights_update", str, "optimize", "maximise eq. 2.13 by L-BFGS on the simplex, or "
              "search the paper's grid (eq. 2.14)", choices=("optimize", "grid")),
        Param("grid_step", float, 0.01, "grid resolution for weights_update='grid'", low=0.0,
              low_open=True, high=0.5),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.params
        M = p["n_components"]
        self.W = ppc_weight_matrix(self.constraints, p["weighting"], p["must_link_weight"],
                                   p["cannot_link_weight"])
        g = self._graph = _LinkGraph(self.W)
        sizes = g.comp_size
        multi = np.flatnonzero(sizes > 1)
        small = np.array([s * math.log(M) <= math.log(p["max_exact_configs"]) + 1e-12
                          for s in sizes[multi]], dtype=bool)
        inference, omega = p["inference"], p["omega"]
        # cliques too large to enumerate: exact by sum-product / cutset conditioning where possible
        large = multi[~small]
        network = None
        if large.size and (inference in ("auto", "exact") or omega in ("auto", "exact")):
            network = _NetworkCliques(g, large, M, p["max_exact_work"])
        inexact = network.inexact if network is not None else large
        for what, mode in (("inference", inference), ("omega", omega)):
            if mode == "exact" and inexact.size:
                s = int(sizes[inexact].max())
                raise InvalidInputError(
                    f"{what}='exact' cannot handle a loopy clique of {s} linked chunklets: "
                    f"enumeration needs {M}^{s} assignments (max_exact_configs="
                    f"{p['max_exact_configs']}) and its loop cutset exceeds max_exact_work="
                    f"{p['max_exact_work']}; raise those limits or use {what}='auto'"
                    + (", 'gibbs' or 'mean-field'." if what == "inference" else " or 'pairwise'."))
        use_net = network is not None and network.nodes.size > 0
        if inference in ("auto", "exact"):
            exact_comps, approx_comps = multi[small], inexact
        else:
            exact_comps, approx_comps = multi[:0], multi
        omega_exact = multi[small] if omega in ("auto", "exact") else multi[:0]
        omega_pair = (inexact if omega in ("auto", "exact") else multi) if omega != "ignore" else multi[:0]

        self._groups: list[Any] = _build_groups(g, exact_comps, M)
        omega_groups = (list(self._groups) if np.array_equal(exact_comps, omega_exact)
                        else _build_groups(g, omega_exact, M))
        if use_net and inference in ("auto", "exact"):
            self._groups.append(network)
        if use_net and omega in ("auto", "exact"):
            omega_groups.append(network)
        self._single = np.flatnonzero(sizes[g.comp] == 1)
        self._all_single = self._single.size == g.n_nodes

        self._approx = None
        if approx_comps.size:
            nodes = np.flatnonzero(np.isin(g.comp, approx_comps))
            if g.hard[nodes].nnz:
                raise InvalidInputError(
                    "Gibbs sampling and mean field need finite weights, but a clique left to them holds "
                    "hard do-not-links; give those finite weights (weighting='uniform' with a finite "
                    "cannot_link_weight, or confidences below 1), or use inference='exact' or "
                    "'auto' (raising max_exact_work if the clique is large and loopy).")
            self._approx = _Approximate(g, nodes)

        # Omega: exact cliques, plus nodes and edges of the cliques treated as non-overlapping
        pair_nodes = np.isin(g.comp, omega_pair)
        a, b, w = g.edges()
        on = pair_nodes[a]
        isolated = g.sizes[(sizes[g.comp] == 1)]
        node_sizes = np.concatenate([isolated[isolated > 1], g.sizes[pair_nodes]])
        if omega == "ignore":
            node_sizes = node_sizes[:0]
        self._omega = _Omega(omega_groups, node_sizes, (g.sizes[a[on]], g.sizes[b[on]], w[on]))
        self._grid: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._warm: dict[str, Any] | None = None

        parts = []
        if self._approx is not None:
            parts.append("mean-field bound" if inference in ("auto", "mean-field")
                         else "bound from Gibbs marginals")
        if omega == "ignore" and (multi.size or (g.sizes > 1).any()):
            parts.append("log Omega omitted")
        elif omega_pair.size:
            parts.append("Omega with relations treated as non-overlapping")
        self.objective_name = "penalized log-likelihood" + (f" ({', '.join(parts)})" if parts else "")
        self._ignore_omega = omega == "ignore"

    # -- EM -------------------------------------------------------------------------------------
    def step(self, state: State) -> State:
        self._warm = dict(state.extras)
        try:
            return super().step(state)
        finally:
            self._warm = None

    def e_step(self, weights: np.ndarray, means: np.ndarray, prec_chol: np.ndarray
               ) -> tuple[np.ndarray, float, dict[str, Any]]:
        """Posteriors P_p(z_i = k | X, Theta, W) per clique and log P_p(X | Theta, W) (section 3)."""
        g = self._graph
        log_p = weighted_log_prob(self.X, weights, means, prec_chol)
        U = log_p if g.agg is None else g.agg @ log_p
        extras: dict[str, Any] = {}
        if self._all_single:
            Q, log_norm = log_normalize(U)
            total = float(log_norm.sum())
        else:
            Q = np.empty_like(U)
            Q[self._single], log_norm = log_normalize(U[self._single])
            total = float(log_norm.sum())
            for grp in self._groups:
                total += grp.posteriors(U, Q)
            if self._approx is not None:
                total += self._approximate(U, Q, extras)
        if not self._omega.trivial and not self._ignore_omega:
            with np.errstate(divide="ignore"):
                total -= float(self._omega.value(np.log(weights)[None])[0])
        resp = Q if g.agg is None else Q[g.node_of]
        return resp, total, extras

    def _approximate(self, U: np.ndarray, Q: np.ndarray, extras: dict[str, Any]) -> float:
        p, ap, warm = self.params, self._approx, self._warm or {}
        Ua = U[ap.nodes]
        if p["inference"] == "gibbs":
            Qa, z = ap.gibbs(Ua, warm.get("gibbs_state"), self.rng, p["gibbs_burn_in"],
                             p["gibbs_sweeps"], p["rao_blackwell"])
            extras["gibbs_state"] = z
        else:
            start = warm.get("mean_field_q")
            Qa, it = ap.mean_field(Ua, _softmax_rows(Ua) if start is None else start,
                                   p["mean_field_iter"], p["mean_field_tol"])
            extras["mean_field_q"] = Qa
            extras["mean_field_iterations"] = it
        Q[ap.nodes] = Qa
        return ap.bound(Ua, Qa)

    def m_step(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Means and covariances as in a GMM (section 2.3); mixing weights by eq. 2.13.

        When Omega is constant (no relations, or ``omega="ignore"``) eq. 2.13 has the GMM's closed
        form N_k / N, used whatever ``weights_update`` says.
        """
        nk, means, covs = gaussian_m_step(self.X, state.responsibilities, self.params["reg_covar"])
        if self._omega.trivial or self._ignore_omega:
            return nk / nk.sum(), means, covs
        return self.update_weights(nk, state.model["weights"]), means, covs

    def update_weights(self, nk: np.ndarray, previous: np.ndarray) -> np.ndarray:
        """argmax_pi sum_k N_k log pi_k - log Omega(pi) over the simplex (eq. 2.13)."""
        if self.params["weights_update"] == "grid":
            if self._grid is None:
                H = _simplex_grid(self.params["grid_step"], nk.size)
                logH = np.log(H)
                self._grid = (H, logH, self._omega.value(logH))
            H, logH, log_om = self._grid
            return H[int(np.argmax(logH @ nk - log_om))].copy()
        return maximize_prior(nk, self._omega, previous)


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


@hookimpl
def pairlab_algorithms():
    return [PenalizedProbabilisticClustering]
