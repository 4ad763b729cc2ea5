"""Exact inference on small discrete pairwise Markov networks with Potts potentials.

A :class:`LabelNetwork` has ``n_nodes`` discrete variables y_v in {0, ..., M-1}, a unary
log-potential per node and label (given to :meth:`LabelNetwork.infer`), and undirected edges
(u, v) with the Potts potential

    psi_uv(y_u, y_v) = exp(w_uv * [y_u == y_v]),      w_uv in [-inf, +inf),

so ``w = -inf`` is the "different label" potential 1 - delta of Shental et al. (section 2.2)
and a finite ``w`` is a soft link (PPC's exp(2 W_ij delta), Lu & Leen eq. 2.8). It computes

    p(y) = (1 / Z) prod_v exp(u_v(y_v)) prod_(u,v) psi_uv(y_u, y_v),

the node marginals p(y_v = l) and log Z, exactly where the structure allows:

* isolated nodes: a softmax of the unary;
* tree components: sum-product (Pearl's belief propagation), vectorised over all trees level
  by level (one upward and one downward sweep);
* loopy components: loop-cutset conditioning (Pearl 1988, section 4.3): the nodes of a greedy
  vertex cover of the edges outside a BFS spanning tree are clamped to each of their M^c joint
  labels, and the remaining forest is solved for all clamped labels at once. Exact while
  ``M^c * (component size) <= max_exact_work``;
* beyond that limit a loopy component is replaced by its BFS spanning tree (rooted at its
  smallest node), the approximation Shental et al. use (section 2.2). The result is then exact
  for the network without the dropped edges (:attr:`LabelNetwork.dropped_edges`).

The structure (components, trees, cutsets, schedules) is analysed once in the constructor; each
:meth:`~LabelNetwork.infer` call only does array arithmetic, so an EM loop builds the network once.
All work is in log space (no underflow for confident nodes; ``-inf`` potentials are exact).

Example
-------
>>> net = LabelNetwork(3, [[0, 1], [1, 2]], n_labels=2)          # a path with "different" edges
>>> res = net.infer(np.log([[0.9, 0.1], [0.5, 0.5], [0.5, 0.5]]))
>>> res.marginals.round(3)[2]                                    # y2 == y0 on a 2-coloured path
array([0.9, 0.1])
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components

from .errors import InvalidInputError

__all__ = ["LabelNetwork", "NetworkInference", "brute_force", "lse_excluding"]

_NEG_INF = -np.inf


@dataclass(frozen=True)
class NetworkInference:
    """What :meth:`LabelNetwork.infer` returns.

    Attributes
    ----------
    marginals : ndarray of shape (..., n_nodes, n_labels)
        p(y_v = l); rows sum to one (uniform rows for nodes of an impossible component).
    log_partition : float or ndarray of shape (...)
        log Z, the sum of :attr:`component_log_partition`; ``-inf`` when no labelling has
        positive weight (e.g. three mutually "different" nodes and two labels).
    component_log_partition : ndarray of shape (..., n_components)
        log Z of each connected component (indexed like :attr:`LabelNetwork.component_index`).
    """

    marginals: np.ndarray
    log_partition: float | np.ndarray
    component_log_partition: np.ndarray


# Internally arrays are laid out (label, batch, node): reductions over labels run over the
# leading axis and every elementwise loop runs along the long node axis (numpy is slow when the
# innermost axis is the short label axis, ~10x here).


def _exp(x: np.ndarray) -> np.ndarray:
    """exp(x), with exp(x) = 0 below -700.

    numpy's vectorised exp drops to a slow scalar path (~40x) for arguments whose result is
    near or below the smallest normal double; a difference of 700 in log space is far below
    double precision whenever the result is added to something of order one, as it is here.
    """
    out = np.exp(np.maximum(x, -700.0))
    out[x < -700.0] = 0.0
    return out


def _lse0(a: np.ndarray) -> np.ndarray:
    """logsumexp over axis 0; -inf (no warning, no NaN) when all entries are -inf."""
    m = a.max(axis=0)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(_exp(a - m).sum(axis=0)) + m


def lse_excluding(b: np.ndarray) -> np.ndarray:
    """out[y] = log sum_{y' != y} exp(b[y']) along axis 0 (labels first), without cancellation.

    With m the maximum and e = exp(b - m), the sum for a label below the maximum is
    total - e_y >= 1 (relative error ~ M eps). For the maximum label itself the other entries
    are summed directly, shifted by their own maximum, so a node that is almost certainly label y
    still sends an accurate (tiny, not zero or -inf) message for y.
    """
    b = np.asarray(b, dtype=float)
    if b.shape[0] == 1:
        return np.full(b.shape, _NEG_INF)
    m = b.max(axis=0)
    m[~np.isfinite(m)] = 0.0
    top = b == m
    n_top = top.sum(axis=0)
    e = _exp(b - m)
    total = e.sum(axis=0)
    below = np.where(top, _NEG_INF, b)
    m2 = below.max(axis=0)
    m2[~np.isfinite(m2)] = 0.0
    rest = _exp(below - m2).sum(axis=0)
    with np.errstate(divide="ignore"):
        excl_top = np.where(n_top > 1, np.log(np.maximum(total - 1.0, 1.0)) + m, np.log(rest) + m2)
        others = np.log(total - e) + m
    return np.where(top, excl_top, others)


def _potts_message(b: np.ndarray, w: np.ndarray, hard: bool) -> np.ndarray:
    """m(y) = log sum_{y'} exp(b(y') + w [y == y']) for b of shape (M, B, k), w of shape (k,)."""
    others = lse_excluding(b)
    if hard:  # every w is -inf: the "different label" message
        return others
    return np.logaddexp(others, b + w)


class _Forest:
    """Sum-product on a forest over ``n`` local nodes, for a batch of unaries (M, B, n).

    Nodes are renumbered in BFS order from each tree's smallest node, so every level is a
    contiguous block (``order[k]`` is the local node at position k); a sparse 0/1 matrix per
    level adds the children's messages into their parents.
    """

    def __init__(self, n: int, edges: np.ndarray, weights: np.ndarray) -> None:
        self.n = n
        self.bounds: list[int] = [0, 0]
        self.level_parent: list[np.ndarray] = []  # parent offset inside the previous level
        self.level_sum: list[sp.csr_matrix] = []  # (size of previous level, size of level)
        self.level_w: list[np.ndarray] = []
        self.level_hard: list[bool] = []
        if n == 0:
            self.n_trees, self.order = 0, np.empty(0, dtype=np.int64)
            return
        wmat = sp.coo_matrix((np.r_[weights, weights], (np.r_[edges[:, 0], edges[:, 1]],
                                                        np.r_[edges[:, 1], edges[:, 0]])),
                             shape=(n, n)).tocsr()
        wmat.sort_indices()
        n_trees, tree = connected_components(wmat, directed=False)
        _, roots = np.unique(tree, return_index=True)
        roots = np.sort(roots)  # tree t has root roots[t], its smallest node
        self.n_trees = n_trees
        seen = np.zeros(n, dtype=bool)
        seen[roots] = True
        blocks, frontier, bounds = [roots], roots, [0, roots.size]
        while frontier.size:
            starts, stops = wmat.indptr[frontier], wmat.indptr[frontier + 1]
            counts = stops - starts
            idx = np.repeat(stops - counts.cumsum(), counts) + np.arange(counts.sum())
            nbr, wv = wmat.indices[idx], wmat.data[idx]
            src = np.repeat(np.arange(frontier.size), counts)
            new = ~seen[nbr]
            nbr, src, wv = nbr[new], src[new], wv[new]
            if nbr.size == 0:
                break
            seen[nbr] = True
            blocks.append(nbr)
            bounds.append(bounds[-1] + nbr.size)
            self.level_parent.append(src)
            self.level_sum.append(sp.csr_matrix((np.ones(nbr.size), (src, np.arange(nbr.size))),
                                                shape=(frontier.size, nbr.size)))
            self.level_w.append(wv)
            self.level_hard.append(bool(np.all(np.isneginf(wv))))
            frontier = nbr
        self.order = np.concatenate(blocks)
        self.bounds = bounds

    def _add_to_parents(self, d: int, msg: np.ndarray, target: np.ndarray) -> None:
        """target[..., parents] += sum of ``msg`` (M, B, k) over each parent's children."""
        M, B, k = msg.shape
        S = self.level_sum[d - 1]
        agg = S @ msg.reshape(M * B, k).T  # (kp, M * B)
        target += agg.T.reshape(M, B, S.shape[0])

    def run(self, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """U: unaries (M, B, n) in BFS order. Return (log marginals (M, B, n), log Z (B, n_trees))."""
        M, B, n = U.shape
        bd = self.bounds
        inc = np.zeros((M, B, n))  # sum of the finite messages from the children
        n_inf: np.ndarray | None = None  # number of -inf messages from the children
        up = np.empty((M, B, n))
        for d in range(len(self.level_w), 0, -1):
            sl, psl = slice(bd[d], bd[d + 1]), slice(bd[d - 1], bd[d])
            inc_d = inc[..., sl] if n_inf is None else np.where(n_inf[..., sl] > 0, _NEG_INF,
                                                                 inc[..., sl])
            msg = _potts_message(U[..., sl] + inc_d, self.level_w[d - 1], self.level_hard[d - 1])
            up[..., sl] = msg
            fin = np.isfinite(msg)
            if fin.all():
                self._add_to_parents(d, msg, inc[..., psl])
            else:
                if n_inf is None:
                    n_inf = np.zeros((M, B, n))
                self._add_to_parents(d, np.where(fin, msg, 0.0), inc[..., psl])
                self._add_to_parents(d, (~fin).astype(float), n_inf[..., psl])
        below = U + (inc if n_inf is None else np.where(n_inf > 0, _NEG_INF, inc))
        log_z = _lse0(below[..., : bd[1]])
        down = np.zeros((M, B, n))
        for d in range(1, len(self.level_w) + 1):
            sl, psl = slice(bd[d], bd[d + 1]), slice(bd[d - 1], bd[d])
            par = self.level_parent[d - 1]
            mu = up[..., sl]
            if n_inf is None:
                bp = np.take(U[..., psl] + down[..., psl] + inc[..., psl], par, axis=2) - mu
            else:
                fin = np.isfinite(mu)
                rest = np.take(inc[..., psl], par, axis=2) - np.where(fin, mu, 0.0)
                rest_inf = np.take(n_inf[..., psl], par, axis=2) - ~fin
                bp = np.take(U[..., psl] + down[..., psl], par, axis=2) + np.where(
                    rest_inf > 0, _NEG_INF, rest)
            down[..., sl] = _potts_message(bp, self.level_w[d - 1], self.level_hard[d - 1])
        log_marg = below + down
        norm = _lse0(log_marg)
        with np.errstate(invalid="ignore"):
            log_marg = np.where(np.isfinite(norm), log_marg - norm, -np.log(M))
        return log_marg, log_z


class _Conditioned:
    """An exactly solved loopy component: clamp a loop cutset, solve the forest that remains."""

    def __init__(self, nodes: np.ndarray, edges: np.ndarray, weights: np.ndarray,
                 cutset: np.ndarray, n_labels: int) -> None:
        self.nodes = nodes  # global ids, sorted
        le = np.searchsorted(nodes, edges)
        is_cut = np.isin(nodes, cutset)
        self.cut = np.flatnonzero(is_cut)  # local ids of cutset nodes
        self.free = np.flatnonzero(~is_cut)
        pos = np.empty(len(nodes), dtype=np.int64)
        pos[self.cut] = np.arange(self.cut.size)
        pos[self.free] = np.arange(self.free.size)
        a_cut, b_cut = is_cut[le[:, 0]], is_cut[le[:, 1]]
        both = a_cut & b_cut
        self.cc_edges, self.cc_w = pos[le[both]], weights[both]
        mixed = a_cut ^ b_cut
        cm, fm = np.where(a_cut[mixed][:, None], le[mixed], le[mixed][:, ::-1]).T
        self.cf_cut, self.cf_free, self.cf_w = pos[cm], pos[fm], weights[mixed]
        neither = ~(a_cut | b_cut)
        self.forest = _Forest(self.free.size, pos[le[neither]].reshape(-1, 2), weights[neither])
        self.configs = np.array(list(itertools.product(range(n_labels), repeat=self.cut.size)),
                                dtype=np.int64).reshape(-1, self.cut.size)

    def run(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """u (M, B, n_c) in local order; return (log marginals (M, B, n_c), log Z (B,))."""
        M, B, _ = u.shape
        cfg = self.configs  # (K, c)
        K, c = cfg.shape
        f, order = self.free.size, self.forest.order
        # weight of each clamped labelling of the cutset: its unaries and its internal edges
        cw = u[:, :, self.cut][cfg, :, np.arange(c)[None, :]].sum(axis=1).T  # (B, K)
        if len(self.cc_w):
            same = cfg[:, self.cc_edges[:, 0]] == cfg[:, self.cc_edges[:, 1]]  # (K, e)
            cw = cw + np.where(same, self.cc_w, 0.0).sum(axis=1)
        fu = np.repeat(u[:, :, None, self.free], K, axis=2)  # (M, B, K, f)
        if len(self.cf_w):
            kk = np.repeat(np.arange(K), len(self.cf_w))
            ll = cfg[:, self.cf_cut].ravel()
            np.add.at(fu, (ll, slice(None), kk, np.tile(self.cf_free, K)),
                      np.tile(self.cf_w, K)[:, None])
        lm, lz = self.forest.run(np.take(fu.reshape(M, B * K, f), order, axis=2))
        log_marg_f = np.empty((M, B * K, f))
        log_marg_f[..., order] = lm
        total = cw + lz.sum(axis=1).reshape(B, K)
        log_z = _lse0(total.T)
        with np.errstate(invalid="ignore"):
            post = np.where(np.isfinite(log_z)[:, None], _exp(total - log_z[:, None]), 1.0 / K)
        out = np.empty(u.shape)
        onehot = (cfg.T[None, :, :] == np.arange(M)[:, None, None]).astype(float)  # (M, c, K)
        with np.errstate(divide="ignore"):
            out[..., self.free] = np.log(np.einsum("bk,mbkf->mbf", post,
                                                   _exp(log_marg_f).reshape(M, B, K, f)))
            out[..., self.cut] = np.log(np.einsum("bk,mck->mbc", post, onehot))
        return out, log_z


class LabelNetwork:
    """A pairwise Markov network over labels {0..n_labels-1} with Potts edge potentials.

    Parameters
    ----------
    n_nodes : int
        Number of variables.
    edges : array-like of shape (n_edges, 2)
        Undirected edges; repeated edges are merged (their weights add).
    n_labels : int
        Number of labels M.
    weights : float or array-like of shape (n_edges,), default -inf
        Potts log-weights w in [-inf, +inf): psi(y_u, y_v) = exp(w [y_u == y_v]). The default,
        -inf, is the "different label" potential (1 - delta).
    max_exact_work : int, default 200_000
        A loopy component with c cutset nodes and s nodes is solved exactly while
        M^c * s <= max_exact_work (time and memory grow with it); beyond that it is replaced by
        its BFS spanning tree (Shental et al. section 2.2).

    Attributes
    ----------
    component_index : ndarray (n_nodes,)
        Connected component of each node (numbered by smallest node).
    exact : bool
        False when some component was replaced by its spanning tree.
    dropped_edges : ndarray (m, 2)
        The edges left out by that approximation (empty when ``exact``).
    edges, weights, edge_used : ndarray
        The merged edges (sorted pairs), their weights, and which of them the inference uses.
    """

    def __init__(self, n_nodes: int, edges: object, n_labels: int, weights: object = _NEG_INF,
                 *, max_exact_work: int = 200_000) -> None:
        if int(n_nodes) < 1 or int(n_labels) < 1:
            raise InvalidInputError("n_nodes and n_labels must be >= 1.")
        self.n_nodes, self.n_labels = int(n_nodes), int(n_labels)
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2) if np.size(edges) else np.empty(
            (0, 2), dtype=np.int64)
        w = np.array(np.broadcast_to(np.asarray(weights, dtype=float), (len(e),)))
        if e.size and (e.min() < 0 or e.max() >= self.n_nodes):
            raise InvalidInputError(f"edge indices must lie in [0, {self.n_nodes - 1}].")
        if (e[:, 0] == e[:, 1]).any():
            raise InvalidInputError("an edge joins a node to itself; remove self-loops.")
        if np.isnan(w).any() or np.isposinf(w).any():
            raise InvalidInputError(
                "edge weights must lie in [-inf, +inf); merge must-linked nodes into one node "
                "instead of using +inf.")
        e = np.sort(e, axis=1)
        keys, inv = np.unique(e[:, 0] * self.n_nodes + e[:, 1], return_inverse=True)
        merged = np.zeros(keys.size)
        np.add.at(merged, inv.ravel(), w)
        self.edges = np.column_stack([keys // self.n_nodes, keys % self.n_nodes])
        self.weights = merged
        self.max_exact_work = int(max_exact_work)
        self._analyse()

    # -- structure ------------------------------------------------------------------------------
    def _analyse(self) -> None:
        n, e = self.n_nodes, self.edges
        adj = sp.coo_matrix((np.ones(2 * len(e)), (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])),
                            shape=(n, n)).tocsr()
        n_comp, comp = connected_components(adj, directed=False)
        _, first = np.unique(comp, return_index=True)
        order = np.argsort(first)
        relabel = np.empty(n_comp, dtype=np.int64)
        relabel[order] = np.arange(n_comp)
        comp = relabel[comp]
        self.component_index = comp
        self.n_components = n_comp
        size = np.bincount(comp, minlength=n_comp)
        n_edges = np.bincount(comp[e[:, 0]], minlength=n_comp) if len(e) else np.zeros(n_comp, int)
        self.isolated = np.flatnonzero(size[comp] == 1)
        tree_comp = (size > 1) & (n_edges == size - 1)
        keep = tree_comp[comp[e[:, 0]]] if len(e) else np.zeros(0, bool)
        forest_edges, forest_w = [e[keep]], [self.weights[keep]]
        self.conditioned: list[_Conditioned] = []
        dropped = []
        for c in np.flatnonzero(n_edges > size - 1):
            nodes = np.flatnonzero(comp == c)
            in_c = comp[e[:, 0]] == c
            ce, cw = e[in_c], self.weights[in_c]
            budget = self.max_exact_work / nodes.size
            max_cut = 64 if self.n_labels == 1 else int(np.floor(np.log(max(budget, 1.0))
                                                                 / np.log(self.n_labels) + 1e-9))
            tree_mask, cutset = _spanning_tree_and_cutset(nodes, ce, min(max_cut, 64))
            if cutset is not None:
                self.conditioned.append(_Conditioned(nodes, ce, cw, cutset, self.n_labels))
            else:
                forest_edges.append(ce[tree_mask])
                forest_w.append(cw[tree_mask])
                dropped.append(ce[~tree_mask])
        self.dropped_edges = np.vstack(dropped) if dropped else np.empty((0, 2), dtype=np.int64)
        self.exact = len(self.dropped_edges) == 0
        self.edge_used = np.ones(len(e), dtype=bool)
        if not self.exact:
            self.edge_used = ~np.isin(e[:, 0] * n + e[:, 1],
                                      self.dropped_edges[:, 0] * n + self.dropped_edges[:, 1])
        fe, fw = np.vstack(forest_edges), np.concatenate(forest_w)
        self.forest_nodes = np.unique(fe) if len(fe) else np.empty(0, dtype=np.int64)
        local = np.searchsorted(self.forest_nodes, fe)
        self._forest = _Forest(self.forest_nodes.size, local.reshape(-1, 2), fw)
        self._forest_index = self.forest_nodes[self._forest.order]
        self._forest_comp = comp[self._forest_index[: self._forest.n_trees]]

    # -- isomorphic components ----------------------------------------------------------------
    def compress(self, node_labels: np.ndarray, max_size: int = 64
                 ) -> tuple[LabelNetwork, np.ndarray, np.ndarray]:
        """One representative per class of identical components, for unaries shared by label.

        When the unary of every node depends only on ``node_labels[v]`` (e.g. a prior
        ``s_v log alpha`` with no data), isomorphic components -- same tree, same node labels,
        same edge weights -- have the same marginals and log Z, so inference on one
        representative each suffices. Trees of up to ``max_size`` nodes (in the network in use,
        i.e. after any spanning-tree approximation) and isolated nodes are grouped by an AHU
        canonical form; other components are their own class.

        Returns ``(network, multiplicity, nodes)``: the network over the representatives' nodes,
        the number of components each of its components stands for (indexed like its
        ``component_index``) and the representatives' node ids in this network. Then
        ``log Z = multiplicity @ res.component_log_partition`` and sums over nodes of this
        network's marginals are weighted by ``multiplicity[network.component_index]``.
        """
        labels = np.asarray(node_labels)
        if labels.shape != (self.n_nodes,):
            raise InvalidInputError(f"node_labels must have shape ({self.n_nodes},).")
        e, w = self.edges[self.edge_used], self.weights[self.edge_used]
        comp = self.component_index
        size = np.bincount(comp, minlength=self.n_components)
        n_edges = np.bincount(comp[e[:, 0]], minlength=self.n_components)
        nbrs: list[list[tuple[int, float]]] = [[] for _ in range(self.n_nodes)]
        small_tree = (size <= max_size) & (n_edges == size - 1)
        for (a, b), wt in zip(e.tolist(), w.tolist(), strict=True):
            if small_tree[comp[a]]:
                nbrs[a].append((b, wt))
                nbrs[b].append((a, wt))
        order = np.argsort(comp, kind="stable")
        members = np.split(order, np.cumsum(size)[:-1])
        rep_of: dict[object, int] = {}
        mult = np.zeros(self.n_components, dtype=np.int64)
        for c, nodes in enumerate(members):
            key: object = ("tree", _ahu_form(nodes.tolist(), nbrs, labels)) if small_tree[c] else c
            r = rep_of.setdefault(key, c)
            mult[r] += 1
        reps = np.flatnonzero(mult)
        keep_node = np.isin(comp, reps)
        nodes = np.flatnonzero(keep_node)
        ek = keep_node[e[:, 0]]
        net = LabelNetwork(nodes.size, np.searchsorted(nodes, e[ek]), self.n_labels, w[ek],
                           max_exact_work=self.max_exact_work)
        first = nodes[np.unique(net.component_index, return_index=True)[1]]
        return net, mult[comp[first]].astype(float), nodes

    # -- inference ------------------------------------------------------------------------------
    def infer(self, log_unary: np.ndarray) -> NetworkInference:
        """Node marginals and log Z for unary log-potentials of shape (n_nodes, M) or (B, n_nodes, M).

        Entries may be ``-inf`` (label impossible); ``+inf`` and NaN are rejected.
        """
        u = np.asarray(log_unary, dtype=float)
        batched = u.ndim == 3
        if u.ndim == 2:
            u = u[None]
        if u.ndim != 3 or u.shape[1:] != (self.n_nodes, self.n_labels):
            raise InvalidInputError(
                f"log_unary must have shape ({self.n_nodes}, {self.n_labels}) or "
                f"(batch, {self.n_nodes}, {self.n_labels}), got {np.shape(log_unary)}.")
        if u.size and not u.max() < np.inf:  # one pass: the maximum is NaN or +inf if any entry is
            raise InvalidInputError("log_unary contains NaN or +inf.")
        B, M = u.shape[0], self.n_labels
        U = u.transpose(2, 0, 1)  # (M, B, n)
        log_marg = np.empty((M, B, self.n_nodes))
        comp_z = np.zeros((B, self.n_components))
        iso = self.isolated
        if iso.size:
            ui = np.take(U, iso, axis=2)
            z = _lse0(ui)
            with np.errstate(invalid="ignore"):
                log_marg[..., iso] = np.where(np.isfinite(z), ui - z, -np.log(M))
            comp_z[:, self.component_index[iso]] = z
        if self.forest_nodes.size:
            idx = self._forest_index
            lm, z = self._forest.run(np.take(U, idx, axis=2))
            log_marg[..., idx] = lm
            comp_z[:, self._forest_comp] = z
        for cond in self.conditioned:
            lm, z = cond.run(np.take(U, cond.nodes, axis=2))
            log_marg[..., cond.nodes] = lm
            comp_z[:, self.component_index[cond.nodes[0]]] = z
        marg = _exp(log_marg)
        marg = np.ascontiguousarray((marg / marg.sum(axis=0)).transpose(1, 2, 0))
        total = comp_z.sum(axis=-1)
        if not batched:
            return NetworkInference(marg[0], float(total[0]), comp_z[0])
        return NetworkInference(marg, total, comp_z)


def _spanning_tree_and_cutset(nodes: np.ndarray, edges: np.ndarray, max_cut: int
                              ) -> tuple[np.ndarray, np.ndarray | None]:
    """BFS spanning tree from the smallest node (mask over ``edges``) and a loop cutset.

    The cutset is a greedy vertex cover of the non-tree edges (most uncovered non-tree edges
    first, ties to the smallest node); removing it leaves a subgraph of the tree, a forest.
    The cutset is None when it would exceed ``max_cut`` nodes.
    """
    local = np.searchsorted(nodes, edges)
    s = nodes.size
    adj = sp.coo_matrix((np.ones(2 * len(local)), (np.r_[local[:, 0], local[:, 1]],
                                                   np.r_[local[:, 1], local[:, 0]])),
                        shape=(s, s)).tocsr()
    adj.sort_indices()
    _, pred = breadth_first_order(adj, 0, directed=False, return_predecessors=True)
    a, b = local[:, 0], local[:, 1]
    tree_mask = (pred[a] == b) | (pred[b] == a)
    rest = [(int(x), int(y)) for x, y in local[~tree_mask]]
    cut: list[int] = []
    while rest:
        if len(cut) >= max_cut:
            return tree_mask, None
        deg: dict[int, int] = {}
        for x, y in rest:
            deg[x] = deg.get(x, 0) + 1
            deg[y] = deg.get(y, 0) + 1
        best = min(deg, key=lambda v: (-deg[v], v))
        cut.append(best)
        rest = [(x, y) for x, y in rest if best not in (x, y)]
    return tree_mask, nodes[np.sort(np.array(cut, dtype=np.int64))]


def _ahu_form(nodes: list[int], nbrs: list[list[tuple[int, float]]], labels: np.ndarray) -> str:
    """Canonical string of a labelled, edge-weighted tree (Aho, Hopcroft & Ullman), rooted at
    its centre (the smaller string of the two rootings when there are two centres)."""
    if len(nodes) == 1:
        return repr(labels[nodes[0]].item())
    deg = {v: len(nbrs[v]) for v in nodes}
    leaves = [v for v in nodes if deg[v] <= 1]
    left = len(nodes)
    while left > 2:
        left -= len(leaves)
        nxt = []
        for v in leaves:
            for u, _ in nbrs[v]:
                deg[u] -= 1
                if deg[u] == 1:
                    nxt.append(u)
        leaves = nxt
    forms = []
    for root in leaves:
        code: dict[int, str] = {}
        stack = [(root, -1, 0.0, False)]
        while stack:
            v, parent, wt, done = stack.pop()
            if done:
                kids = sorted(code[u] for u, _ in nbrs[v] if u != parent)
                code[v] = f"({labels[v].item()!r}:{wt!r}{''.join(kids)})"
                continue
            stack.append((v, parent, wt, True))
            stack.extend((u, v, x, False) for u, x in nbrs[v] if u != parent)
        forms.append(code[root])
    return min(forms)


def brute_force(log_unary: np.ndarray, edges: object, weights: object = _NEG_INF
                ) -> tuple[np.ndarray, float]:
    """Marginals and log Z by enumerating all M^n labellings (the test oracle; tiny n only)."""
    u = np.asarray(log_unary, dtype=float)
    n, M = u.shape
    if M ** n > 2_000_000:
        raise InvalidInputError(f"brute force over {M}^{n} labellings is too large.")
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    w = np.broadcast_to(np.asarray(weights, dtype=float), (len(e),))
    Y = np.array(list(itertools.product(range(M), repeat=n)), dtype=np.int64).reshape(-1, n)
    score = u[np.arange(n), Y].sum(axis=1)
    for (a, b), wt in zip(e, w, strict=True):
        score = score + np.where(Y[:, a] == Y[:, b], wt, 0.0)
    log_z = float(_lse0(score))
    if not np.isfinite(log_z):
        return np.full((n, M), 1.0 / M), log_z
    p = np.exp(score - log_z)
    marg = np.zeros((n, M))
    for v in range(n):
        np.add.at(marg[v], Y[:, v], p)
    return marg, log_z
