"""The link structure of GM-PR and exact inference over it (Yu, Elhabian & Whitaker).

The paper writes the likelihood as independent factors: unlinked points (eq. 3), must-linked
pairs sharing one latent label (eq. 5) and cannot-linked pairs with the joint class prior of
eq. 6-8, ``p(z_a = m, z_b = m') = alpha_m alpha_m' / (1 - sum alpha^2)`` for ``m != m'``. Its
experiments draw pairs at random, so pairs may share points; the paper does not say what that
means. pairlab fits the following joint model, which is the paper's model whenever the pairs are
disjoint and a proper probability model otherwise:

* must-links are closed transitively into **chunklets** (``Constraints.chunklet_index``); every
  chunklet has one latent class ``z_c`` drawn once from ``alpha`` (eq. 5 for a pair);
* each point of a chunklet is drawn from its class density ``p(x | z_c)`` (a Gaussian, or the
  mixture of eq. 20-21 whose cluster label ``y_n`` is drawn per point);
* cannot-links become edges between chunklets; the classes of a connected **component** of that
  graph are drawn i.i.d. from ``alpha`` *conditioned on every edge joining different classes*::

      p(z_comp) = prod_c alpha_{z_c} prod_{edges} [z_c != z_c'] / Z_comp(alpha),
      Z_comp(alpha) = sum over proper colourings of prod_c alpha_{z_c}.

  For one edge ``Z = 1 - sum alpha^2`` (eq. 7). For chains or cycles of cannot-links the product
  of per-edge normalisers ``(1 - sum alpha^2)^E`` is *not* a normaliser: for a path of three
  chunklets and two classes the weights then sum to ``1/(4 alpha_1) + 1/(4 alpha_2) > 1`` and the
  "likelihood" grows without bound as ``alpha`` approaches a vertex. The component normaliser
  keeps the model proper, and equals the paper's per-link term in the paper's setting.

Several cannot-links between the same two chunklets are one edge (the event is the same).
Points in no link form the unsupervised term of eq. 3; a point in a link enters the likelihood
only through its chunklet / component (section 3.1: X there is the data without user input), so
every point's density appears exactly once.

Exact inference (posterior marginals and ``log Z``) per component:

* trees (in particular single edges, eq. 14): sum-product belief propagation, vectorised over
  all trees level by level, in log space;
* components with cycles: cutset conditioning — a small set of chunklets is enumerated over all
  its proper class assignments and tree BP is run on the rest for every assignment. When
  ``n_classes ** |cutset| * component size`` would exceed ``cutset_budget``, the cannot-links
  that close the remaining cycles are treated **as in the paper, as independent pairs**: each
  such pair gets its own latent labels and its two points enter the likelihood once more through
  that pair term (eq. 9, 14). Inference stays exact for the model actually fitted, so EM stays
  monotone; :attr:`LinkStructure.n_independent_pairs` counts these links.

``Z_comp(alpha)`` is needed for the objective and for the update of ``alpha`` (eq. 19). It
depends only on the component's shape, so components are grouped by shape; small shapes are
enumerated once into tables of class-count vectors (``log Z`` is then a log-sum-exp of linear
functions of ``log alpha``), larger ones use the same BP with ``log alpha`` as the only evidence.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from pairlab.constraints import Constraints
from pairlab.errors import InconsistentConstraintsError, InvalidInputError

__all__ = ["EPS", "LinkStructure", "logsumexp_others", "softmax_logsumexp"]

#: Added to total responsibilities, as scikit-learn (and pairlab.mixture) do.
EPS = 10 * np.finfo(np.float64).eps
#: Largest number of proper colourings of one component shape enumerated for its normaliser.
ENUM_LIMIT = 1 << 17


# -- log-space helpers -------------------------------------------------------------------------
# Reductions over a short axis of a (n, k) array are slow in numpy; the helpers below reduce over
# columns (one vectorised pass per class) or over axis 0 of class-major (k, n) arrays.
def softmax_logsumexp(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise softmax and log-sum-exp of ``a`` (n, k); rows need one finite entry.

    One exponential per entry (the normalised exponentials are the softmax), so the E-step of a
    link-free problem costs no more than scikit-learn's.
    """
    k = a.shape[1]
    mx = a[:, 0].copy()
    for j in range(1, k):
        np.maximum(mx, a[:, j], out=mx)
    e = a - mx[:, None]
    np.exp(e, out=e)
    s = e[:, 0].copy()
    for j in range(1, k):
        s += e[:, j]
    e /= s[:, None]
    return e, mx + np.log(s)


def lse_rows(a: np.ndarray) -> np.ndarray:
    """Row-wise log-sum-exp of (n, k); rows of -inf give -inf."""
    return lse_cols(a.T)


def lse_cols(a: np.ndarray) -> np.ndarray:
    """Log-sum-exp over axis 0 of a class-major (k, n) array; columns of -inf give -inf."""
    mx = a.max(axis=0)
    shift = np.where(np.isfinite(mx), mx, 0.0)
    with np.errstate(divide="ignore"):
        return shift + np.log(np.exp(a - shift).sum(axis=0))


def logsumexp_others(h: np.ndarray) -> np.ndarray:
    """``out[m, i] = log sum_{m' != m} exp(h[m', i])`` for class-major ``h`` (k, n)."""
    return _lse_and_others(h)[1]


def _lse_and_others(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-sum-exp over axis 0 of class-major ``h`` (k, n), and the cannot-link message
    ``log sum_{m' != m} exp(h[m'])`` for every ``m``, without cancellation or underflow.

    Shifted by the column maximum, the maxima contribute exactly 1 each and the other terms are
    summed on their own (shifted by their own maximum, so a far-away class does not underflow):
    "all but a unique maximum" is that sum, "all but a tied maximum" is it plus ``n_max - 1``, and
    "all but a non-maximal m" is at least ``n_max >= 1`` (no small difference of large sums).
    Columns of -inf give -inf.
    """
    mx = h.max(axis=0)
    finite = np.isfinite(mx)
    shift = np.where(finite, mx, 0.0)
    top = (h == mx) & finite
    n_top = top.sum(axis=0)
    low = np.where(top, -np.inf, h)
    m2 = low.max(axis=0)
    finite2 = np.isfinite(m2)
    shift2 = np.where(finite2, m2, 0.0)
    e = np.exp(low - shift2)
    rest2 = e.sum(axis=0)
    scale = np.where(finite2, np.exp(np.where(finite2, m2 - shift, 0.0)), 0.0)
    rest = rest2 * scale  # the non-maximal terms relative to the maximum (may underflow: harmless)
    e *= scale
    with np.errstate(divide="ignore", invalid="ignore"):  # unselected branches of np.where
        total = shift + np.log(rest + n_top)
        alone = shift2 + np.log(rest2)
        others = np.where(top, np.where(n_top == 1, alone, shift + np.log(rest + (n_top - 1))),
                          shift + np.log((rest - e) + n_top))
    return total, others


def _incoming(fin: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """Sum of messages kept as (finite part, number of -inf terms)."""
    return np.where(cnt > 0, -np.inf, fin)


def _normalise(msg: np.ndarray, log_total: np.ndarray) -> np.ndarray:
    ok = np.isfinite(log_total)
    return np.where(ok, msg - np.where(ok, log_total, 0.0), -np.inf)


# -- forests of cannot-link trees ----------------------------------------------------------------
class _Forest:
    """Trees of chunklets joined by cannot-links, with sum-product BP over all of them at once.

    Nodes are *expanded* nodes: a chunklet of a tree component once, a chunklet of a cyclic
    component once per cutset assignment ("copy"). ``src`` maps nodes to rows of the potentials,
    clamps forbid the classes of cutset neighbours, ``cut_*`` lists each copy's cutset classes.
    Messages are class-major (k, n_nodes) arrays; the sum of the messages a node receives is kept
    as a finite part plus a count of -inf terms, so that "all but one child" needs no
    ``-inf - -inf``.
    """

    def __init__(self, src, parent, depth, tree, copy_of_tree, comp_of_copy, n_comps,
                 clamp_rows, clamp_cols, cut_copy, cut_src, cut_class, simple):
        self.src, self.parent, self.tree = src, parent, tree
        self.copy_of_tree, self.comp_of_copy, self.n_comps = copy_of_tree, comp_of_copy, n_comps
        self.n_trees, self.n_copies = copy_of_tree.size, comp_of_copy.size
        self.clamp_rows, self.clamp_cols = clamp_rows, clamp_cols
        self.cut_copy, self.cut_src, self.cut_class = cut_copy, cut_src, cut_class
        self.simple = simple
        order = np.argsort(depth, kind="stable")
        bounds = np.searchsorted(depth[order], np.arange((depth.max() if depth.size else -1) + 2))
        self.roots = order[: bounds[1]] if depth.size else order[:0]
        self.levels = []
        for d in range(1, bounds.size - 1):
            nodes = order[bounds[d]: bounds[d + 1]]
            uniq, inv = np.unique(parent[nodes], return_inverse=True)
            self.levels.append((nodes, uniq, inv.ravel()))
        self.nonroot = np.flatnonzero(depth > 0)
        if simple:
            self.chunks = src
        else:
            self.chunks = np.unique(np.concatenate([src, cut_src]))
            self.src_pos = np.searchsorted(self.chunks, src)
            self.cut_pos = np.searchsorted(self.chunks, cut_src)
            self.copy_of_node = copy_of_tree[tree]
            self.copy_starts = np.searchsorted(comp_of_copy, np.arange(n_comps))

    def infer(self, phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact ``log Z`` of every component and class marginals (n_chunks, k) of ``self.chunks``.

        ``phi`` (n_rows, k) holds each chunklet's log potential ``log alpha_m + sum_n log
        p(x_n | m)``; cannot-link edges contribute ``[z != z']``.
        """
        k = phi.shape[1]
        U = np.ascontiguousarray(phi[self.src].T)
        if self.clamp_rows.size:
            U[self.clamp_cols, self.clamp_rows] = -np.inf
        n = U.shape[1]
        safe = bool(np.isinf(U).any())  # -inf potentials (clamps, zero weights) need bookkeeping
        fin = np.zeros((k, n))
        cnt = np.zeros((k, n)) if safe else None
        up = np.zeros((k, n))
        norm = np.zeros(n)
        for nodes, parents, inv in reversed(self.levels):  # leaves to roots
            h = U[:, nodes] + (_incoming(fin[:, nodes], cnt[:, nodes]) if safe else fin[:, nodes])
            total, msg = _lse_and_others(h)
            msg = _normalise(msg, total) if safe else msg - total
            up[:, nodes] = msg
            norm[nodes] = total
            m = parents.size
            if safe:
                dead = np.isneginf(msg)
                msg = np.where(dead, 0.0, msg)
                cnt[:, parents] += np.vstack([np.bincount(inv, weights=dead[j], minlength=m)
                                              for j in range(k)])
            fin[:, parents] += np.vstack([np.bincount(inv, weights=msg[j], minlength=m)
                                          for j in range(k)])
        inc = _incoming(fin, cnt) if safe else fin
        log_z = np.zeros(self.n_trees)
        log_z[self.tree[self.roots]] = lse_cols(U[:, self.roots] + inc[:, self.roots])
        log_z += np.bincount(self.tree[self.nonroot], weights=norm[self.nonroot],
                             minlength=self.n_trees)
        down = np.zeros((k, n))
        for nodes, _, _ in self.levels:  # roots to leaves
            p = self.parent[nodes]
            upv = up[:, nodes]
            if safe:
                dead = np.isneginf(upv)
                rest = _incoming(fin[:, p] - np.where(dead, 0.0, upv), cnt[:, p] - dead)
            else:
                rest = fin[:, p] - upv
            msg = logsumexp_others(U[:, p] + down[:, p] + rest)
            down[:, nodes] = _normalise(msg, lse_cols(msg)) if safe else msg - msg.max(axis=0)
        belief = U + down + inc
        if safe:
            lb = lse_cols(belief)
            ok = np.isfinite(lb)
            marg = np.where(ok, np.exp(belief - np.where(ok, lb, 0.0)), 0.0)
        else:
            marg = np.exp(belief - belief.max(axis=0))
            marg /= marg.sum(axis=0)
        marg = marg.T
        if self.simple:
            return log_z, marg
        logw = np.bincount(self.copy_of_tree, weights=log_z, minlength=self.n_copies)
        if self.cut_src.size:
            logw += np.bincount(self.cut_copy, weights=phi[self.cut_src, self.cut_class],
                                minlength=self.n_copies)
        mx = np.maximum.reduceat(logw, self.copy_starts)
        shift = np.where(np.isfinite(mx), mx, 0.0)
        with np.errstate(divide="ignore"):
            comp_z = shift + np.log(np.add.reduceat(np.exp(logw - shift[self.comp_of_copy]),
                                                    self.copy_starts))
        ok = np.isfinite(comp_z)[self.comp_of_copy]
        w = np.where(ok, np.exp(logw - np.where(ok, comp_z[self.comp_of_copy], 0.0)), 0.0)
        out = np.zeros((self.chunks.size, k))
        np.add.at(out, self.src_pos, w[self.copy_of_node][:, None] * marg)
        np.add.at(out, (self.cut_pos, self.cut_class), w[self.cut_copy])
        return comp_z, out


class _ForestBuilder:
    """Collects trees and cutset-conditioned components into one :class:`_Forest`."""

    def __init__(self, simple: bool = True) -> None:
        self.parts: dict[str, list[np.ndarray]] = {key: [] for key in (
            "src", "parent", "depth", "tree", "copy_of_tree", "comp_of_copy", "clamp_rows",
            "clamp_cols", "cut_copy", "cut_src", "cut_class")}
        self.n_nodes = self.n_trees = self.n_copies = self.n_comps = 0
        self.simple = simple

    def add(self, src, parent, depth, tree, n_trees, copy_of_tree, comp_of_copy, n_comps,
            clamp_rows=(), clamp_cols=(), cut_copy=(), cut_src=(), cut_class=()) -> None:
        p = self.parts
        parent = np.asarray(parent, dtype=np.int64)
        p["src"].append(np.asarray(src, dtype=np.int64))
        p["parent"].append(np.where(parent >= 0, parent + self.n_nodes, -1))
        p["depth"].append(np.asarray(depth, dtype=np.int64))
        p["tree"].append(np.asarray(tree, dtype=np.int64) + self.n_trees)
        p["copy_of_tree"].append(np.asarray(copy_of_tree, dtype=np.int64) + self.n_copies)
        p["comp_of_copy"].append(np.asarray(comp_of_copy, dtype=np.int64) + self.n_comps)
        p["clamp_rows"].append(np.asarray(clamp_rows, dtype=np.int64) + self.n_nodes)
        p["clamp_cols"].append(np.asarray(clamp_cols, dtype=np.int64))
        p["cut_copy"].append(np.asarray(cut_copy, dtype=np.int64) + self.n_copies)
        p["cut_src"].append(np.asarray(cut_src, dtype=np.int64))
        p["cut_class"].append(np.asarray(cut_class, dtype=np.int64))
        self.n_nodes += len(src)
        self.n_trees += n_trees
        self.n_copies += len(comp_of_copy)
        self.n_comps += n_comps

    def add_component(self, comp: _CycleComponent, src_of_local: np.ndarray) -> None:
        """Add one component (tree or cyclic) once per proper assignment of its cutset."""
        a, f, t = comp.assign.shape[0], comp.forest.size, comp.n_trees
        c = comp.cut.size
        fparent = np.tile(comp.fparent, a)
        shift = np.repeat(np.arange(a) * f, f)
        self.add(
            src=np.tile(src_of_local[comp.forest], a),
            parent=np.where(fparent >= 0, fparent + shift, -1),
            depth=np.tile(comp.fdepth, a),
            tree=np.tile(comp.ftree, a) + np.repeat(np.arange(a) * t, f),
            n_trees=a * t,
            copy_of_tree=np.repeat(np.arange(a), t),
            comp_of_copy=np.zeros(a, dtype=np.int64),
            n_comps=1,
            clamp_rows=(np.arange(a)[:, None] * f + comp.clamp_node[None, :]).ravel(),
            clamp_cols=comp.assign[:, comp.clamp_cut].ravel(),
            cut_copy=np.repeat(np.arange(a), c),
            cut_src=np.tile(src_of_local[comp.cut], a),
            cut_class=comp.assign.ravel(),
        )

    def build(self) -> _Forest | None:
        if self.n_comps == 0:
            return None
        arr = {key: np.concatenate(val) if val else np.empty(0, dtype=np.int64)
               for key, val in self.parts.items()}
        return _Forest(arr["src"], arr["parent"], arr["depth"], arr["tree"], arr["copy_of_tree"],
                       arr["comp_of_copy"], self.n_comps, arr["clamp_rows"], arr["clamp_cols"],
                       arr["cut_copy"], arr["cut_src"], arr["cut_class"], self.simple)


# -- one component: spanning forest, cutset, assignments ------------------------------------------
@dataclass
class _CycleComponent:
    """A component in local numbering, prepared for cutset conditioning."""

    size: int
    edges: np.ndarray       # (E, 2) kept edges, local
    kept: np.ndarray        # (E_all,) which of the given edges are kept
    cut: np.ndarray         # cutset, local
    assign: np.ndarray      # (A, |cut|) proper class assignments of the cutset
    forest: np.ndarray      # the other nodes, local
    fparent: np.ndarray     # parent (position in forest) or -1
    fdepth: np.ndarray
    ftree: np.ndarray
    n_trees: int
    clamp_node: np.ndarray  # forest positions next to a cutset node ...
    clamp_cut: np.ndarray   # ... and the position of that cutset node


def _bfs_forest(size: int, edges: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, ...]:
    """BFS parents/depths/tree ids of ``nodes`` (local ids) over ``edges`` (a forest)."""
    pos = {int(v): i for i, v in enumerate(nodes)}
    adj: list[list[int]] = [[] for _ in range(size)]
    for a, b in edges:
        adj[int(a)].append(int(b))
        adj[int(b)].append(int(a))
    parent = np.full(nodes.size, -1, dtype=np.int64)
    depth = np.full(nodes.size, -1, dtype=np.int64)
    tree = np.full(nodes.size, -1, dtype=np.int64)
    n_trees = 0
    for root in nodes:
        root = int(root)
        if depth[pos[root]] >= 0:
            continue
        depth[pos[root]] = 0
        tree[pos[root]] = n_trees
        queue = deque([root])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if v in pos and depth[pos[v]] < 0:
                    depth[pos[v]] = depth[pos[u]] + 1
                    parent[pos[v]] = pos[u]
                    tree[pos[v]] = n_trees
                    queue.append(v)
        n_trees += 1
    return parent, depth, tree, n_trees


def _proper_assignments(n_nodes: int, edges: np.ndarray, n_classes: int) -> np.ndarray:
    """All (A, n_nodes) class assignments with different classes across every edge."""
    codes = np.arange(n_classes ** n_nodes)
    assign = (codes[:, None] // n_classes ** np.arange(n_nodes)[None, :]) % n_classes
    if len(edges):
        ok = (assign[:, edges[:, 0]] != assign[:, edges[:, 1]]).all(axis=1)
        assign = assign[ok]
    return assign


def _prepare_component(size: int, edges: np.ndarray, n_classes: int, budget: int) -> _CycleComponent:
    """Spanning tree, a greedy cutset covering the other edges (within ``budget``), and the rest."""
    n_edges = len(edges)
    adj: list[list[tuple[int, int]]] = [[] for _ in range(size)]
    for e, (a, b) in enumerate(edges):
        adj[int(a)].append((int(b), e))
        adj[int(b)].append((int(a), e))
    seen = np.zeros(size, dtype=bool)
    in_tree = np.zeros(n_edges, dtype=bool)
    seen[0] = True
    queue = deque([0])
    while queue:
        u = queue.popleft()
        for v, e in adj[u]:
            if not seen[v]:
                seen[v] = True
                in_tree[e] = True
                queue.append(v)
    uncovered = [int(e) for e in np.flatnonzero(~in_tree)]
    cut: list[int] = []
    while uncovered:
        counts: dict[int, int] = {}
        for e in uncovered:
            for v in edges[e]:
                counts[int(v)] = counts.get(int(v), 0) + 1
        best = max(counts, key=lambda v: (counts[v], -v))
        if n_classes ** (len(cut) + 1) * size > budget:
            break
        cut.append(best)
        uncovered = [e for e in uncovered if best not in (int(edges[e][0]), int(edges[e][1]))]
    kept = np.ones(n_edges, dtype=bool)
    kept[uncovered] = False
    kedges = edges[kept]
    cut_arr = np.array(sorted(cut), dtype=np.int64)
    in_cut = np.zeros(size, dtype=bool)
    in_cut[cut_arr] = True
    cut_pos = np.full(size, -1, dtype=np.int64)
    cut_pos[cut_arr] = np.arange(cut_arr.size)
    both = in_cut[kedges[:, 0]] & in_cut[kedges[:, 1]]
    assign = _proper_assignments(cut_arr.size, cut_pos[kedges[both]], n_classes)
    forest = np.flatnonzero(~in_cut)
    fpos = np.full(size, -1, dtype=np.int64)
    fpos[forest] = np.arange(forest.size)
    none = ~in_cut[kedges[:, 0]] & ~in_cut[kedges[:, 1]]
    fparent, fdepth, ftree, n_trees = _bfs_forest(size, kedges[none], forest)
    mixed = kedges[in_cut[kedges[:, 0]] != in_cut[kedges[:, 1]]]
    fnode = np.where(in_cut[mixed[:, 0]], mixed[:, 1], mixed[:, 0])
    cnode = np.where(in_cut[mixed[:, 0]], mixed[:, 0], mixed[:, 1])
    return _CycleComponent(size, kedges, kept, cut_arr, assign, forest, fparent, fdepth, ftree,
                           n_trees, fpos[fnode], cut_pos[cnode])


# -- normalisers Z_comp(alpha) ----------------------------------------------------------------------
def _colouring_counts(size: int, edges: np.ndarray, n_classes: int, limit: int
                      ) -> tuple[np.ndarray, np.ndarray] | None:
    """Distinct class-count vectors of the proper colourings of a connected graph, with how many
    colourings give each; None if there are more than ``limit`` colourings.

    Colourings are grown node by node in BFS order, each new node taking every class that differs
    from its already coloured neighbours (``k (k-1)^(s-1)`` rows for a tree).
    """
    adj: list[list[int]] = [[] for _ in range(size)]
    for a, b in edges:
        adj[int(a)].append(int(b))
        adj[int(b)].append(int(a))
    order, seen = [0], {0}
    for u in order:
        for v in adj[u]:
            if v not in seen:
                seen.add(v)
                order.append(v)
    pos = {v: i for i, v in enumerate(order)}
    dtype = np.int16 if n_classes > 127 else np.int8
    rows = np.arange(n_classes, dtype=dtype)[:, None]
    classes = np.arange(n_classes, dtype=dtype)
    for i, v in enumerate(order[1:], start=1):
        before = [pos[u] for u in adj[v] if pos[u] < i]
        cand = np.repeat(rows, n_classes, axis=0)
        new = np.tile(classes, rows.shape[0])
        ok = np.ones(new.size, dtype=bool)
        for j in before:
            ok &= cand[:, j] != new
        rows = np.column_stack([cand[ok], new[ok]])
        if rows.shape[0] > limit:
            return None
    counts = np.zeros((rows.shape[0], n_classes))
    for j in range(size):
        counts[np.arange(rows.shape[0]), rows[:, j]] += 1
    if rows.shape[0] == 0:
        return counts, np.zeros(0)
    if (size + 1) ** n_classes < 2**62:  # one integer per count vector: a fast 1-D unique
        codes = counts @ ((size + 1) ** np.arange(n_classes, dtype=np.float64))
        _, first, mult = np.unique(codes.astype(np.int64), return_index=True, return_counts=True)
        return counts[first], mult
    uniq, mult = np.unique(counts, axis=0, return_counts=True)
    return uniq, mult


class _PriorNormaliser:
    """``sum_comp log Z_comp(alpha)``, its gradient and Hessian in ``theta = log alpha``.

    ``log Z`` of a component is the log-partition function of the class counts of its proper
    colourings: for the shapes small enough to enumerate, ``log Z(theta) = logsumexp_r(log w_r +
    c_r . theta)`` over the distinct count vectors ``c_r`` (with multiplicities ``w_r``); gradient
    and Hessian are the mean and covariance of the counts. Larger shapes use tree BP / cutset
    conditioning for the gradient, and central differences of it for the Hessian (all ``2M + 1``
    evaluations in one vectorised BP pass).
    """

    def __init__(self, n_classes: int) -> None:
        self.n_classes = n_classes
        self.counts: list[np.ndarray] = []
        self.logw: list[np.ndarray] = []
        self.mult: list[float] = []
        self.n_nodes = 0.0
        self.big_comps: list[_CycleComponent] = []
        self.big_mult: list[float] = []
        self._forests: dict[int, tuple[_Forest, np.ndarray]] = {}

    def add_shape(self, mult: int, comp: _CycleComponent) -> bool:
        """Add ``mult`` components of this shape; False if it has no proper colouring."""
        self.n_nodes += mult * comp.size
        table = _colouring_counts(comp.size, comp.edges, self.n_classes, ENUM_LIMIT)
        if table is not None:
            counts, mult_r = table
            if counts.shape[0] == 0:
                return False
            self.counts.append(counts)
            self.logw.append(np.log(mult_r))
            self.mult.append(float(mult))
            return True
        if comp.assign.shape[0] == 0:
            return False
        alone = _ForestBuilder(simple=False)
        alone.add_component(comp, np.arange(comp.size))
        if not np.isfinite(alone.build().infer(np.zeros((comp.size, self.n_classes)))[0][0]):
            return False
        self.big_comps.append(comp)
        self.big_mult.append(float(mult))
        return True

    def finish(self) -> None:
        k = self.n_classes
        if self.counts:
            sizes = [c.shape[0] for c in self.counts]
            self.table = np.vstack(self.counts)
            self.table_logw = np.concatenate(self.logw)
            self.table_group = np.repeat(np.arange(len(sizes)), sizes)
            self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            self.group_mult = np.array(self.mult)
        else:
            self.table = np.zeros((0, k))
        self.big_mult_arr = np.array(self.big_mult)
        self.n_big_chunks = sum(c.size for c in self.big_comps)

    def _big_forest(self, replicas: int) -> tuple[_Forest, np.ndarray]:
        """The big shapes ``replicas`` times over, and the (replica, shape) of every chunklet."""
        if replicas not in self._forests:
            builder = _ForestBuilder(simple=False)
            owner, offset = [], 0
            for r in range(replicas):
                for j, comp in enumerate(self.big_comps):
                    builder.add_component(comp, offset + np.arange(comp.size))
                    owner.append(np.full(comp.size, r * len(self.big_comps) + j))
                    offset += comp.size
            self._forests[replicas] = (builder.build(), np.concatenate(owner))
        return self._forests[replicas]

    def _big(self, thetas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``sum_comp mult log Z`` (B,) and ``sum_comp mult E[counts]`` (B, M) per row of thetas."""
        b, k = thetas.shape
        forest, owner = self._big_forest(b)
        phi = np.repeat(thetas, self.n_big_chunks, axis=0)
        log_z, marg = forest.infer(phi)
        mu = np.zeros((log_z.size, k))
        np.add.at(mu, owner[forest.chunks], marg)
        n_big = len(self.big_comps)
        return (log_z.reshape(b, n_big) @ self.big_mult_arr,
                np.einsum("j,bjm->bm", self.big_mult_arr, mu.reshape(b, n_big, k)))

    def log_z(self, theta: np.ndarray) -> float:
        """``sum_comp log Z_comp`` at ``theta = log alpha`` (entries may be -inf)."""
        total = 0.0
        if self.table.shape[0]:
            pos = np.isfinite(theta)
            s = self.table_logw + self.table[:, pos] @ theta[pos]
            s[(self.table[:, ~pos] > 0).any(axis=1)] = -np.inf
            total += float(self.group_mult @ self._group_lse(s))
        if self.big_comps:
            total += float(self._big(theta[None, :])[0][0])
        return total

    def _group_lse(self, s: np.ndarray) -> np.ndarray:
        mx = np.maximum.reduceat(s, self.starts)
        shift = np.where(np.isfinite(mx), mx, 0.0)
        with np.errstate(divide="ignore"):
            return shift + np.log(np.add.reduceat(np.exp(s - shift[self.table_group]), self.starts))

    def evaluate(self, theta: np.ndarray, hessian: bool) -> tuple[float, np.ndarray, np.ndarray | None]:
        """``(sum log Z, sum E[counts], sum Cov[counts])`` at finite ``theta``."""
        k = self.n_classes
        total, mu, cov = 0.0, np.zeros(k), np.zeros((k, k)) if hessian else None
        if self.table.shape[0]:
            s = self.table_logw + self.table @ theta
            lz = self._group_lse(s)
            p = np.exp(s - lz[self.table_group])
            total += float(self.group_mult @ lz)
            mu_g = np.add.reduceat(p[:, None] * self.table, self.starts, axis=0)
            mu += self.group_mult @ mu_g
            if hessian:
                wp = (self.group_mult[self.table_group] * p)[:, None]
                cov += self.table.T @ (wp * self.table) - mu_g.T @ (self.group_mult[:, None] * mu_g)
        if self.big_comps:
            h = 1e-5
            thetas = theta[None, :]
            if hessian:
                eye = h * np.eye(k)
                thetas = np.vstack([thetas, theta + eye, theta - eye])
            lz, m = self._big(thetas)
            total += float(lz[0])
            mu += m[0]
            if hessian:
                fd = (m[1:k + 1] - m[k + 1:]).T / (2 * h)
                cov += 0.5 * (fd + fd.T)
        return total, mu, cov


# -- the whole structure -------------------------------------------------------------------------
class LinkStructure:
    """Chunklets, cannot-link components and everything the E-step and the alpha update need.

    Built once per (constraints, number of classes); see the module docstring for the model.
    Points are "augmented" with the duplicated endpoints of cannot-links treated as independent
    pairs (``n_independent_pairs`` of them; usually none): augmented point ``n + i`` is a copy
    of real point ``duplicates[i]``.
    """

    def __init__(self, constraints: Constraints, n_classes: int, cutset_budget: int = 100_000) -> None:
        n, k = constraints.n_samples, n_classes
        self.n_samples, self.n_classes = n, k
        self.has_links = len(constraints) > 0
        self.duplicates = np.empty(0, dtype=np.int64)
        self.n_independent_pairs = 0
        self.tree_forest = self.cycle_forest = None
        self.prior: _PriorNormaliser | None = None
        if not self.has_links:
            return
        cl = constraints.cannot_link
        if len(cl) and k < 2:
            raise InvalidInputError(
                f"{len(cl)} cannot-link(s) need n_components >= 2 classes; increase n_components "
                "or remove the cannot-links."
            )
        constraints.check_consistent()
        chunk = np.asarray(constraints.chunklet_index)
        n_chunk = int(chunk.max()) + 1
        sizes = np.bincount(chunk, minlength=n_chunk)
        self._chunk = chunk
        cc = np.sort(chunk[cl], axis=1) if len(cl) else np.empty((0, 2), dtype=np.int64)
        if len(cc):
            edges, edge_of_cl = np.unique(cc, axis=0, return_inverse=True)
            edge_of_cl = edge_of_cl.ravel()
        else:
            edges, edge_of_cl = np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=np.int64)
        deg = np.bincount(edges.ravel(), minlength=n_chunk)
        adj = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])),
                            shape=(n_chunk, n_chunk)).tocsr()
        _, lab = connected_components(adj, directed=False)
        comp_nodes = np.bincount(lab[deg > 0], minlength=lab.max() + 1)
        comp_edges = np.bincount(lab[edges[:, 0]], minlength=lab.max() + 1)
        cyclic = comp_edges >= np.maximum(comp_nodes, 1)

        # components with cycles: prepared one by one (rare, and small in practice)
        cyc_edge = cyclic[lab[edges[:, 0]]] if len(edges) else np.zeros(0, dtype=bool)
        dropped = np.zeros(len(edges), dtype=bool)
        cyc_comps: list[tuple[np.ndarray, _CycleComponent]] = []
        if cyc_edge.any():
            e_ids = np.flatnonzero(cyc_edge)
            e_ids = e_ids[np.argsort(lab[edges[e_ids, 0]], kind="stable")]
            groups = np.split(e_ids, np.flatnonzero(np.diff(lab[edges[e_ids, 0]])) + 1)
            for ids in groups:
                nodes, local = np.unique(edges[ids], return_inverse=True)
                local = local.reshape(-1, 2)
                comp = _prepare_component(nodes.size, local, k, cutset_budget)
                if comp.assign.shape[0] == 0:
                    self._raise_uncolourable(nodes)
                dropped[ids[~comp.kept]] = True
                cyc_comps.append((nodes, comp))

        # cannot-links closing cycles beyond the budget: independent pairs, as in the paper
        pair_cl = np.flatnonzero(dropped[edge_of_cl]) if len(cl) else np.empty(0, dtype=np.int64)
        self.n_independent_pairs = int(pair_cl.size)
        self.duplicates = cl[pair_cl].ravel()
        n_virt = self.duplicates.size
        aug_chunk = np.concatenate([chunk, n_chunk + np.arange(n_virt)])
        linked_chunk = np.concatenate([(sizes >= 2) | (deg > 0), np.ones(n_virt, dtype=bool)])
        lc_of_chunk = np.cumsum(linked_chunk) - 1
        n_lc = int(linked_chunk.sum())
        linked_point = linked_chunk[aug_chunk]
        self.free = np.flatnonzero(~linked_point[:n])
        self.free_mask = (~linked_point[:n]).astype(float)
        self.link_points = np.flatnonzero(linked_point)
        self.point_chunk = lc_of_chunk[aug_chunk[self.link_points]]
        self.incidence = sp.csr_matrix(
            (np.ones(self.link_points.size), (self.point_chunk, np.arange(self.link_points.size))),
            shape=(n_lc, self.link_points.size))
        self.n_linked_chunklets = n_lc
        real_in_comp = deg > 0
        iso = linked_chunk[:n_chunk] & ~real_in_comp
        self.iso = lc_of_chunk[np.flatnonzero(iso)]

        prior = _PriorNormaliser(k)
        # tree components (and independent pairs), vectorised
        tedges = lc_of_chunk[edges[~cyc_edge]] if len(edges) else np.empty((0, 2), dtype=np.int64)
        vpairs = lc_of_chunk[n_chunk + np.arange(n_virt)].reshape(-1, 2)
        tedges = np.vstack([tedges.reshape(-1, 2), vpairs])
        self.tree_forest = self._tree_forest(tedges, n_lc, prior)
        # cyclic components
        builder = _ForestBuilder(simple=False)
        shapes: dict[tuple, list] = {}
        for nodes, comp in cyc_comps:
            builder.add_component(comp, lc_of_chunk[nodes])
            key = (comp.size, tuple(map(tuple, comp.edges.tolist())))
            shapes.setdefault(key, [0, comp, nodes])[0] += 1
        self.cycle_forest = builder.build()
        for mult, comp, nodes in shapes.values():
            if not prior.add_shape(mult, comp):
                self._raise_uncolourable(nodes)
        prior.finish()
        self.prior = prior if (self.tree_forest is not None or self.cycle_forest is not None) else None

    def _tree_forest(self, tedges: np.ndarray, n_lc: int, prior: _PriorNormaliser) -> _Forest | None:
        if len(tedges) == 0:
            return None
        adj = sp.coo_matrix((np.ones(len(tedges)), (tedges[:, 0], tedges[:, 1])),
                            shape=(n_lc, n_lc))
        adj = (adj + adj.T).tocsr()
        nodes = np.unique(tedges)
        _, lab = connected_components(adj, directed=False)
        _, first, comp = np.unique(lab[nodes], return_index=True, return_inverse=True)
        order = np.argsort(first)  # renumber trees by their smallest chunklet
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        comp = rank[comp.ravel()]
        n_trees = order.size
        roots = nodes[np.sort(first)]
        pos = np.full(n_lc, -1, dtype=np.int64)
        pos[nodes] = np.arange(nodes.size)
        parent = np.full(nodes.size, -1, dtype=np.int64)
        depth = np.full(nodes.size, -1, dtype=np.int64)
        depth[pos[roots]] = 0
        frontier, d = roots, 0
        while frontier.size:
            lo, hi = adj.indptr[frontier], adj.indptr[frontier + 1]
            cnt = hi - lo
            idx = np.repeat(lo - np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt) + np.arange(cnt.sum())
            nbr, owner = adj.indices[idx], np.repeat(frontier, cnt)
            new = depth[pos[nbr]] < 0
            nbr, owner = nbr[new], owner[new]
            depth[pos[nbr]] = d + 1
            parent[pos[nbr]] = pos[owner]
            frontier, d = nbr, d + 1
        builder = _ForestBuilder(simple=True)
        builder.add(nodes, parent, depth, comp, n_trees, np.arange(n_trees), np.arange(n_trees),
                    n_trees)
        # normalisers, grouped by shape: all 2-trees are one edge, all 3-trees a path
        size = np.bincount(comp, minlength=n_trees)
        for s in (2, 3):
            mult = int((size == s).sum())
            if mult:
                path = np.array([[i, i + 1] for i in range(s - 1)])
                prior.add_shape(mult, _prepare_component(s, path, self.n_classes, 1))
        big = np.flatnonzero(size >= 4)
        if big.size:
            ecomp = comp[pos[tedges[:, 0]]]
            shapes: dict[tuple, list] = {}
            for t in big:
                e = tedges[ecomp == t]
                cn, local = np.unique(e, return_inverse=True)
                local = np.sort(local.reshape(-1, 2), axis=1)
                local = local[np.lexsort((local[:, 1], local[:, 0]))]
                key = (cn.size, tuple(map(tuple, local.tolist())))
                shapes.setdefault(key, [0, local])[0] += 1
            for (s, _), (mult, local) in shapes.items():
                prior.add_shape(mult, _prepare_component(s, local, self.n_classes, 1))
        return builder.build()

    def _raise_uncolourable(self, chunklets: np.ndarray) -> None:
        real = chunklets[chunklets < self._chunk.max() + 1]
        pts = np.flatnonzero(np.isin(self._chunk, real))
        shown = ", ".join(map(str, pts[:12])) + (" ..." if pts.size > 12 else "")
        raise InconsistentConstraintsError(
            f"The cannot-links among points {shown} cannot all hold with n_components="
            f"{self.n_classes} classes (for example, an odd cycle of cannot-links needs 3); "
            "increase n_components or remove one of these cannot-links."
        )

    # -- E-step ---------------------------------------------------------------------------------
    @property
    def n_augmented(self) -> int:
        return self.n_samples + self.duplicates.size

    @property
    def has_cannot_links(self) -> bool:
        return self.prior is not None

    def class_posteriors(self, log_dens: np.ndarray, log_alpha: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, float]:
        """Exact class posteriors of every augmented point, class counts and log-likelihood.

        ``log_dens`` (n, k) holds ``log p(x_n | class m)``. Returns ``q`` (n_augmented, k), the
        expected number of chunklets in each class ``N_m`` (plus :data:`EPS`, the counts of
        eq. 19), and the observed-data log-likelihood ``log sum_Z p(X, Z)`` (eq. 4 summed over
        the latent labels) including the normalisers of the cannot-link priors.
        """
        if not self.has_links:
            q, lse = softmax_logsumexp(log_dens + log_alpha)
            return q, q.sum(axis=0) + EPS, float(lse.sum())
        dens = log_dens if not self.duplicates.size else np.vstack([log_dens, log_dens[self.duplicates]])
        # eq. 11 for every real point (cheaper than gathering the free ones); linked rows are
        # overwritten below and left out of the sums
        q, lse = softmax_logsumexp(log_dens + log_alpha)
        loglik = float(lse @ self.free_mask)
        counts = self.free_mask @ q
        if self.duplicates.size:
            q = np.vstack([q, np.empty((self.duplicates.size, self.n_classes))])
        phi = self.incidence @ dens[self.link_points] + log_alpha
        qc = np.empty_like(phi)
        if self.iso.size:
            qi, li = softmax_logsumexp(phi[self.iso])
            qc[self.iso] = qi
            loglik += float(li.sum())
        for forest in (self.tree_forest, self.cycle_forest):
            if forest is not None:
                log_z, marg = forest.infer(phi)
                qc[forest.chunks] = marg
                loglik += float(log_z.sum())
        if self.prior is not None:
            loglik -= self.prior.log_z(log_alpha)
        q[self.link_points] = qc[self.point_chunk]
        counts += qc.sum(axis=0)
        return q, counts + EPS, loglik

    # -- M-step for the class proportions -------------------------------------------------------
    def class_objective(self, counts: np.ndarray, alpha: np.ndarray) -> float:
        """The alpha-part of Q (eq. 19 with the component normalisers): N . log alpha - sum log Z."""
        with np.errstate(divide="ignore", invalid="ignore"):
            log_alpha = np.log(alpha)
            base = float(np.sum(np.where(counts > 0, counts * log_alpha, 0.0)))
        return base - (self.prior.log_z(log_alpha) if self.prior is not None else 0.0)

    def class_proportions(self, counts: np.ndarray, alpha_old: np.ndarray | None = None,
                          tol: float = 1e-11, max_iter: int = 100) -> np.ndarray:
        """Maximise ``N . log alpha - sum_comp log Z_comp(alpha)`` over the simplex (eq. 19).

        Without cannot-links this is the closed form ``N / sum N``. Otherwise Newton-Raphson in
        ``theta = log alpha`` started, as the paper says, from that closed form; the function is
        concave in ``theta`` (an exponential-family log-likelihood) and invariant to ``theta + c``,
        so the Newton system is solved on the sum-zero subspace and backtracking keeps every step
        uphill. Stops when the gradient is below ``tol * sum N``. If the result were worse than
        ``alpha_old`` (it cannot be, up to rounding), ``alpha_old`` is kept: EM stays monotone.
        """
        total = float(counts.sum())
        if self.prior is None:
            return counts / total
        prior = self.prior
        iso = total - prior.n_nodes
        k = self.n_classes

        def value(theta: np.ndarray, hessian: bool):
            lz, mu, cov = prior.evaluate(theta, hessian)
            mx = theta.max()
            lse = mx + np.log(np.exp(theta - mx).sum())
            a = np.exp(theta - lse)
            f = float(counts @ theta - iso * lse - lz)
            g = counts - iso * a - mu
            h = None if cov is None else iso * (np.diag(a) - np.outer(a, a)) + cov
            return f, g, h

        theta = np.log(counts / total)
        f, g, h = value(theta, True)
        for _ in range(max_iter):
            if np.abs(g).max() <= tol * total:
                break
            scale = max(float(np.trace(h)) / k, 1e-300)
            step = np.linalg.solve(h + scale * np.ones((k, k)) / k, g)
            slope = float(g @ step)
            t = 1.0
            while True:
                f_new, g_new, _ = value(theta + t * step, False)
                if f_new >= f + 1e-4 * t * slope or t < 1e-12:
                    break
                t *= 0.5
            if not f_new > f and np.abs(g_new).max() >= np.abs(g).max():
                break
            theta = theta + t * step
            f, g, h = value(theta, True)
        alpha = np.exp(np.maximum(theta - theta.max(), -700.0))  # never exactly 0
        alpha /= alpha.sum()
        if alpha_old is not None and self.class_objective(counts, alpha) < self.class_objective(
                counts, alpha_old):
            return np.array(alpha_old, dtype=float)
        return alpha
