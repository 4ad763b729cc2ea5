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

Exact inference (posterior marginals and ``log Z``) is :class:`pairlab.markov.LabelNetwork`
over the chunklets, with "different class" edges: belief propagation on trees (single edges are
eq. 14), loop-cutset conditioning on components with cycles. A cyclic component whose cutset
would cost more than ``cutset_budget`` (``n_classes ** |cutset| * size``) is reduced to its BFS
spanning tree, and the cannot-links outside that tree are treated **as in the paper, as
independent pairs**: each such pair gets its own latent labels and its two points enter the
likelihood once more through that pair term (eq. 9, 14). Inference stays exact for the model
actually fitted, so EM stays monotone; :attr:`LinkStructure.n_independent_pairs` counts these
links.

``Z_comp(alpha)`` is needed for the objective and for the update of ``alpha`` (eq. 19). It
depends only on the component's shape, so isomorphic components are grouped
(:meth:`LabelNetwork.compress`); a shape with few enough proper colourings is enumerated once
into a table of class-count vectors (``log Z`` is then a log-sum-exp of linear functions of
``log alpha``), larger ones use the same network inference with ``log alpha`` as the only
evidence.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pairlab.constraints import Constraints
from pairlab.errors import InconsistentConstraintsError, InvalidInputError
from pairlab.markov import LabelNetwork

__all__ = ["EPS", "LinkStructure", "argmax_rows", "softmax_logsumexp"]

#: Added to total responsibilities, as scikit-learn (and pairlab.mixture) do.
EPS = 10 * np.finfo(np.float64).eps
#: Largest number of proper colourings of one component shape enumerated for its normaliser.
ENUM_LIMIT = 1 << 17


# -- log-space helpers -------------------------------------------------------------------------
def softmax_logsumexp(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise softmax and log-sum-exp of ``a`` (n, k); rows need one finite entry.

    One exponential per entry (the normalised exponentials are the softmax), and reductions run
    column by column (numpy is slow over a short last axis), so the E-step of a link-free
    problem costs less than scikit-learn's.
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


def argmax_rows(a: np.ndarray) -> np.ndarray:
    """``a.argmax(axis=1)`` (first maximum wins), one vectorised pass per column."""
    best = a[:, 0].copy()
    out = np.zeros(a.shape[0], dtype=np.intp)
    for j in range(1, a.shape[1]):
        better = a[:, j] > best
        out[better] = j
        np.maximum(best, a[:, j], out=best)
    return out


# -- normalisers Z_comp(alpha) ------------------------------------------------------------------
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
        codes = counts.astype(np.int64) @ ((size + 1) ** np.arange(n_classes, dtype=np.int64))
        _, first, mult = np.unique(codes, return_index=True, return_counts=True)
        return counts[first], mult
    uniq, mult = np.unique(counts, axis=0, return_counts=True)
    return uniq, mult


class _PriorNormaliser:
    """``sum_comp log Z_comp(alpha)``, its gradient and Hessian in ``theta = log alpha``.

    ``log Z`` of a component is the log-partition function of the class counts of its proper
    colourings: for the shapes small enough to enumerate, ``log Z(theta) = logsumexp_r(log w_r +
    c_r . theta)`` over the distinct count vectors ``c_r`` (with multiplicities ``w_r``); gradient
    and Hessian are the mean and covariance of the counts. Larger shapes use network inference
    with ``theta`` on every node for ``log Z`` and the gradient, and central differences of the
    gradient for the Hessian (all ``2M + 1`` evaluations in one batched call).
    """

    def __init__(self, n_classes: int, max_exact_work: int) -> None:
        self.n_classes = n_classes
        self.max_exact_work = max_exact_work
        self.counts: list[np.ndarray] = []
        self.logw: list[np.ndarray] = []
        self.mult: list[float] = []
        self.n_nodes = 0.0
        self.big: list[tuple[float, int, np.ndarray]] = []

    def add_shape(self, mult: float, size: int, edges: np.ndarray) -> bool:
        """Add ``mult`` components of this shape (local edges); False if it has no proper colouring."""
        self.n_nodes += mult * size
        table = _colouring_counts(size, edges, self.n_classes, ENUM_LIMIT)
        if table is None:
            net = LabelNetwork(size, edges, self.n_classes, max_exact_work=self.max_exact_work)
            if not np.isfinite(net.infer(np.zeros((size, self.n_classes))).log_partition):
                return False
            self.big.append((mult, size, edges))
            return True
        counts, mult_r = table
        if counts.shape[0] == 0:
            return False
        self.counts.append(counts)
        self.logw.append(np.log(mult_r))
        self.mult.append(float(mult))
        return True

    def finish(self) -> None:
        if self.counts:
            sizes = [c.shape[0] for c in self.counts]
            self.table = np.vstack(self.counts)
            self.table_logw = np.concatenate(self.logw)
            self.table_group = np.repeat(np.arange(len(sizes)), sizes)
            self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            self.group_mult = np.array(self.mult)
            self.row_mult = self.group_mult[self.table_group]
        else:
            self.table = np.zeros((0, self.n_classes))
        if self.big:
            offsets = np.cumsum([0] + [size for _, size, _ in self.big])
            edges = np.vstack([e + o for (_, _, e), o in zip(self.big, offsets, strict=False)])
            self.big_net = LabelNetwork(int(offsets[-1]), edges, self.n_classes,
                                        max_exact_work=self.max_exact_work)
            # components are numbered by their smallest node, i.e. in the order added
            self.node_mult = np.repeat([m for m, _, _ in self.big], [s for _, s, _ in self.big])
            self.big_mult = np.array([m for m, _, _ in self.big])

    def log_z(self, theta: np.ndarray) -> float:
        """``sum_comp log Z_comp`` at ``theta = log alpha`` (entries may be -inf)."""
        total = 0.0
        if self.table.shape[0]:
            pos = np.isfinite(theta)
            if pos.all():  # the usual case, without the column gathers (same numbers)
                s = self.table_logw + self.table @ theta
            else:
                s = self.table_logw + self.table[:, pos] @ theta[pos]
                s[(self.table[:, ~pos] > 0).any(axis=1)] = -np.inf
            total += float(self.group_mult @ self._group_lse(s))
        if self.big:
            res = self.big_net.infer(np.broadcast_to(theta, (self.node_mult.size, self.n_classes)))
            total += float(res.component_log_partition @ self.big_mult)
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
                wp = (self.row_mult * p)[:, None]
                cov += self.table.T @ (wp * self.table) - mu_g.T @ (self.group_mult[:, None] * mu_g)
        if self.big:
            h = 1e-5
            thetas = theta[None, :]
            if hessian:
                thetas = np.vstack([theta, theta + h * np.eye(k), theta - h * np.eye(k)])
            n = self.node_mult.size
            res = self.big_net.infer(np.broadcast_to(thetas[:, None, :], (thetas.shape[0], n, k)))
            lz = res.component_log_partition @ self.big_mult
            m = np.einsum("n,bnm->bm", self.node_mult, res.marginals)
            total += float(lz[0])
            mu += m[0]
            if hessian:
                # d mu_a / d theta_b by central differences. The Hessian is symmetric; each pair
                # takes the entry whose differenced mean is the smaller one (a rare class's
                # expected count is computed to full relative precision, a common one's change
                # by a rare class's step would drown in rounding)
                d = ((m[1:k + 1] - m[k + 1:]) / (2 * h)).T
                small = m[0][:, None] <= m[0][None, :]
                cov += np.where(small, d, d.T)
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
        cc = np.sort(chunk[cl], axis=1) if len(cl) else np.empty((0, 2), dtype=np.int64)
        deg = np.bincount(cc.ravel(), minlength=n_chunk)
        linked = (sizes >= 2) | (deg > 0)
        lc_of_chunk = np.cumsum(linked) - 1
        self._chunk, self._chunk_of_lc = chunk, np.flatnonzero(linked)
        n_real = self._chunk_of_lc.size
        edges = lc_of_chunk[cc]
        net = LabelNetwork(n_real, edges, k, max_exact_work=cutset_budget)

        # cannot-links outside the spanning tree of a too-large cyclic component: independent pairs
        if not net.exact:
            dropped = net.dropped_edges[:, 0] * n_real + net.dropped_edges[:, 1]
            pair_cl = np.flatnonzero(np.isin(edges[:, 0] * n_real + edges[:, 1], dropped))
            self.n_independent_pairs = int(pair_cl.size)
            self.duplicates = cl[pair_cl].ravel()
            virtual = n_real + np.arange(self.duplicates.size).reshape(-1, 2)
            net = LabelNetwork(n_real + self.duplicates.size,
                               np.vstack([net.edges[net.edge_used], virtual]), k,
                               max_exact_work=cutset_budget)
        self.network = net
        aug_lc = np.concatenate([np.where(linked[chunk], lc_of_chunk[chunk], -1),
                                 n_real + np.arange(self.duplicates.size)])
        self.free_mask = (aug_lc[:n] < 0).astype(float)
        self.link_points = np.flatnonzero(aug_lc >= 0)
        self.point_chunk = aug_lc[self.link_points]
        self.incidence = sp.csr_matrix(
            (np.ones(self.link_points.size), (self.point_chunk, np.arange(self.link_points.size))),
            shape=(net.n_nodes, self.link_points.size))

        # the normalisers, one per shape of component (isolated chunklets need none)
        rep, mult, rep_nodes = net.compress(np.zeros(net.n_nodes, dtype=np.int64))
        size = np.bincount(rep.component_index, minlength=rep.n_components)
        redges = rep.edges[rep.edge_used]
        ecomp = rep.component_index[redges[:, 0]]
        prior = _PriorNormaliser(k, cutset_budget)
        for c in np.flatnonzero(size >= 2):
            nodes = np.flatnonzero(rep.component_index == c)
            local = np.searchsorted(nodes, redges[ecomp == c])
            if not prior.add_shape(float(mult[c]), int(size[c]), local):
                self._raise_uncolourable(rep_nodes[nodes])
        prior.finish()
        if prior.n_nodes:
            self.prior = prior

    def _raise_uncolourable(self, lc_nodes: np.ndarray) -> None:
        real = lc_nodes[lc_nodes < self._chunk_of_lc.size]
        pts = np.flatnonzero(np.isin(self._chunk, self._chunk_of_lc[real]))
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
        # (row gathers use np.take: several times faster than fancy indexing of rows)
        dens = log_dens if not self.duplicates.size else np.vstack(
            [log_dens, np.take(log_dens, self.duplicates, axis=0)])
        # eq. 11 for every real point (cheaper than gathering the free ones); linked rows are
        # overwritten below and left out of the sums
        q, lse = softmax_logsumexp(log_dens + log_alpha)
        loglik = float(lse @ self.free_mask)
        counts = self.free_mask @ q
        if self.duplicates.size:
            q = np.vstack([q, np.empty((self.duplicates.size, self.n_classes))])
        phi = self.incidence @ np.take(dens, self.link_points, axis=0) + log_alpha
        res = self.network.infer(phi)  # eq. 12 (chunklets), eq. 14 (cannot-links), exactly
        qc = res.marginals
        loglik += float(res.log_partition)
        if self.prior is not None:
            loglik -= self.prior.log_z(log_alpha)
        q[self.link_points] = np.take(qc, self.point_chunk, axis=0)
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
            step = np.linalg.lstsq(h + scale * np.ones((k, k)) / k, g, rcond=None)[0]
            step *= min(1.0, 30.0 / max(np.abs(step).max(), 1e-300))  # at most e^30 per step
            slope = float(g @ step)
            t, g_max = 1.0, np.abs(g).max()
            while True:
                # the full step usually succeeds: evaluate its Hessian at once for the next step
                # (enumerated shapes only: there f and g do not depend on that flag, to the bit)
                f_new, g_new, h_new = value(theta + t * step, t == 1.0 and not prior.big)
                # Armijo; or, where f moves by rounding only, a full step that halves the gradient
                if (f_new >= f + 1e-4 * t * slope or t < 1e-12
                        or (t == 1.0 and np.abs(g_new).max() < 0.5 * g_max)):
                    break
                t *= 0.5
            if not f_new > f and np.abs(g_new).max() >= g_max:
                break
            theta = theta + t * step
            f, g, h = (f_new, g_new, h_new) if h_new is not None else value(theta, True)
        alpha = np.exp(np.maximum(theta - theta.max(), -700.0))  # never exactly 0
        alpha /= alpha.sum()
        if alpha_old is not None and self.class_objective(counts, alpha) < self.class_objective(
                counts, alpha_old):
            return np.array(alpha_old, dtype=float)
        return alpha
