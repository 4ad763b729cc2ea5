"""Sequential (ICM) assignment sweeps with pairwise link costs, vectorised by dependency rounds.

MPCK-means and PCK-means assign points one after another in a random order, each to the cluster
that minimises the objective given the current labels of all other points (points visited earlier
in the pass already hold their new labels). :func:`sweep` computes exactly that sequence of choices
without a Python loop over points: a point's choice depends only on its link partners, so the
constrained points are split into rounds in which no two are partners and every partner visited
earlier sits in an earlier round. A round is one vectorised argmin. Unconstrained points depend on
nobody and take their cheapest cluster at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairlab.constraints import Constraints

__all__ = ["LinkCosts", "LinkGraph", "link_graphs", "point_costs", "sweep"]


@dataclass(frozen=True)
class LinkGraph:
    """Links as directed edges (each pair twice), with the undirected pair each edge came from."""

    src: np.ndarray          # (E,) point that chooses
    dst: np.ndarray          # (E,) its partner
    pair: np.ndarray         # (E,) index into the pair arrays
    weight: np.ndarray       # (E,) w_ij of the pair
    pairs: np.ndarray        # (P, 2) undirected pairs
    pair_weight: np.ndarray  # (P,)
    constrained: np.ndarray  # points with at least one link of either kind

    @classmethod
    def of(cls, pairs: np.ndarray, weights: np.ndarray, constrained: np.ndarray) -> LinkGraph:
        p = np.arange(len(pairs))
        return cls(np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1], pairs[:, 0]]),
                   np.concatenate([p, p]), np.concatenate([weights, weights]),
                   pairs, np.asarray(weights, dtype=float), constrained)


def link_graphs(constraints: Constraints, w_ml: float, w_cl: float) -> tuple[LinkGraph, LinkGraph]:
    """Must-link and cannot-link graphs with weights ``w * confidence``."""
    c = constraints
    linked = np.zeros(c.n_samples, dtype=bool)
    linked[c.must_link.ravel()] = True
    linked[c.cannot_link.ravel()] = True
    constrained = np.flatnonzero(linked)
    return (LinkGraph.of(c.must_link, w_ml * c.ml_confidence, constrained),
            LinkGraph.of(c.cannot_link, w_cl * c.cl_confidence, constrained))


@dataclass(frozen=True)
class LinkCosts:
    """What a violated link costs the point that chooses cluster h.

    ``ml(e, h, partner_label)`` and ``cl(e, h)`` return (len(e), k) arrays; the sweep applies the
    must-link cost where h != the partner's label and the cannot-link cost where h == it.
    """

    ml: Callable[[np.ndarray, np.ndarray], np.ndarray]
    cl: Callable[[np.ndarray], np.ndarray]


def _rounds(order: np.ndarray, ml: LinkGraph, cl: LinkGraph, n: int) -> np.ndarray:
    """Round of each point of ``order``: 1 + the largest round among partners visited before it."""
    rank = np.full(n, -1)
    rank[order] = np.arange(order.size)
    src = np.concatenate([ml.src, cl.src])
    dst = np.concatenate([ml.dst, cl.dst])
    earlier = rank[dst] < rank[src]
    src, dst = src[earlier], dst[earlier]
    depth = np.zeros(n, dtype=np.int64)
    while src.size:  # longest path in the DAG of "visited before" edges; a few passes in practice
        new = depth.copy()
        np.maximum.at(new, src, depth[dst] + 1)
        if np.array_equal(new, depth):
            break
        depth = new
    return depth[order]


def _penalties(points: np.ndarray, local: np.ndarray, labels: np.ndarray, k: int,
               graph: LinkGraph, cost: Callable[..., np.ndarray], must: bool) -> np.ndarray:
    """(len(points), k) link costs of the points in one round (partners' labels as they stand)."""
    out = np.zeros((points.size, k))
    e = np.flatnonzero(local[graph.src] >= 0)
    if e.size == 0:
        return out
    partner = labels[graph.dst[e]]
    placed = partner >= 0  # at iteration 0, partners not yet visited do not count
    e, partner = e[placed], partner[placed]
    if e.size == 0:
        return out
    where = local[graph.src[e]]
    hit = np.arange(k)[None, :] == partner[:, None]
    if must:
        c = cost(e, partner) * ~hit
    else:
        c = cost(e) * hit
    for h in range(k):
        out[:, h] = np.bincount(where, c[:, h], minlength=points.size)
    return out


def sweep(base: np.ndarray, labels: np.ndarray, order: np.ndarray, ml: LinkGraph, cl: LinkGraph,
          costs: LinkCosts) -> np.ndarray:
    """One sequential assignment pass over ``order`` (the constrained points) from ``labels``.

    ``base`` (n, k) is each point's own cost of each cluster; ``labels`` holds the previous labels
    (or -1 where a point has none yet: such a partner does not count until it is placed). Points
    outside ``order`` take ``base.argmin``. Returns the new labels; equal to visiting ``order`` one
    point at a time (ties go to the lowest cluster index).
    """
    n = base.shape[0]
    out = labels.copy()
    free = np.ones(n, dtype=bool)
    free[order] = False
    out[free] = base[free].argmin(axis=1)
    if order.size == 0:
        return out
    rounds = _rounds(order, ml, cl, n)
    by_round = np.argsort(rounds, kind="stable")
    bounds = np.searchsorted(rounds[by_round], np.arange(rounds.max() + 2))
    for r in range(rounds.max() + 1):
        points = order[by_round[bounds[r]:bounds[r + 1]]]
        out[points] = point_costs(base, out, points, ml, cl, costs).argmin(axis=1)
    return out


def point_costs(base: np.ndarray, labels: np.ndarray, points: np.ndarray, ml: LinkGraph, cl: LinkGraph,
                costs: LinkCosts) -> np.ndarray:
    """(len(points), k): each point's cost of each cluster given every other point's label (the
    choice the pass would make if it visited the point now); ``points`` must share no link."""
    n, k = base.shape
    local = np.full(n, -1)
    local[points] = np.arange(points.size)
    out = base[points].copy()
    if ml.src.size:
        out += _penalties(points, local, labels, k, ml, costs.ml, True)
    if cl.src.size:
        out += _penalties(points, local, labels, k, cl, costs.cl, False)
    return out
