"""COP-KMeans (Wagstaff, Cardie, Rogers & Schroedl 2001) and its soft variant (soft-CKmeans).

Table 1 of the paper:

1. Let C_1 ... C_k be the initial cluster centres.
2. Assign each point d_i, in turn, to the closest cluster C_j such that
   ``violate-constraints(d_i, C_j)`` is false. If no such cluster exists, fail.
3. Update each centre to the mean of the points assigned to it.
4. Iterate (2) and (3) until convergence.

``violate-constraints(d, C)`` is true when a must-link partner of ``d`` is not in ``C`` or a
cannot-link partner of ``d`` is in ``C``; only partners already assigned in the current pass count
(read literally, a point with an unplaced partner could never be assigned).

Choices the paper leaves open (docs/algorithms/kmeans_family.md):

* ``links="must-link"`` ignores the cannot-links (Shental et al.'s Fig. 5 bar b), ``"both"`` uses
  both kinds (bar c).
* ``closure=True`` runs Table 1 on the transitive closure of the links (must-link chains are one
  group; a cannot-link between groups forbids every pair across them); ``closure=False`` checks
  the pairs as given, so a chain a-b-c visited a, c, b can fail although a clustering exists.
* ``order="data"`` visits points in data order as the paper's loop does; ``"random"`` shuffles the
  constrained points in every pass. Unconstrained points simply take their nearest centre.
* An empty cluster keeps its previous centre in step 3 (``pairlab.centroids.cluster_means``).
* When no cluster is feasible the paper returns no clustering. Here the run restarts from new
  initial centres drawn with a generator derived from the run's own (``max_restarts`` times, as a
  user of the other implementations reruns with another seed), then raises
  :class:`InfeasibleAssignmentError` naming the point and its cannot-linked neighbours.

``soft-cop-kmeans`` keeps Table 1's visiting order but prices each violated link with a weight
``penalty`` (times the pair's confidence) instead of forbidding it: each point takes the cluster
minimising ``1/2 ||x - mu_h||^2 + w * (violations with the points already placed in this pass)``.
It reports the cost function Lu & Leen (2007, eq. C.1) call soft-CKmeans. With ``penalty = 0`` it is
Lloyd's k-means; with a penalty larger than any distance it makes the choices of hard COP-KMeans
with ``closure=False`` whenever those exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from pairlab import Algorithm, Param, State, hookimpl
from pairlab.centroids import INIT, MAX_ITER, MEANS_INIT, N_CLUSTERS, cluster_means, starting_centers
from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.errors import PairlabError
from pairlab.explanation import Bars, Explanation, component_labels
from pairlab.params import resolve_params

__all__ = ["COPKMeans", "InfeasibleAssignmentError", "SoftCOPKMeans"]

_CITATION = ("Wagstaff, Cardie, Rogers & Schroedl (2001), Constrained K-means clustering with "
             "background knowledge, ICML")


class InfeasibleAssignmentError(PairlabError):
    """COP-KMeans met a point that no cluster can take without violating a constraint."""

    def __init__(self, message: str, point: int, iteration: int, blockers: list[int]) -> None:
        super().__init__(message)
        self.point = point
        self.iteration = iteration
        self.blockers = blockers


def squared_distances(X: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """||x_i - c_j||^2 for every point and centre, shape (n, k)."""
    return ((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)


def _neighbours(pairs: np.ndarray, n: int, weights: np.ndarray | None = None) -> sp.csr_matrix:
    """Symmetric adjacency of ``pairs`` over ``n`` nodes (a node's neighbours are one CSR row)."""
    w = np.ones(len(pairs)) if weights is None else np.asarray(weights, dtype=float)
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]]).astype(np.int64)
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]]).astype(np.int64)
    adj = sp.coo_matrix((np.concatenate([w, w]), (rows, cols)), shape=(n, n)).tocsr()
    adj.sum_duplicates()
    return adj


def _row(adj: sp.csr_matrix, i: int) -> np.ndarray:
    return adj.indices[adj.indptr[i]:adj.indptr[i + 1]]


def _row_weights(adj: sp.csr_matrix, i: int) -> np.ndarray:
    return adj.data[adj.indptr[i]:adj.indptr[i + 1]]


class COPKMeans(Algorithm):
    """COP-KMeans (Wagstaff et al. 2001, Table 1): hard must-links and cannot-links in k-means.

    A state holds the centres used for its assignment (``model["centers"]``), the constrained
    assignment (``labels``) and its within-cluster sum of squares (``objective``, "inertia");
    ``extras["restarts"]`` counts restarts so far. ``step`` is Table 1's step 3 then step 2.
    ``predict_proba`` classifies unseen points by their nearest centre, as Lu & Leen (2007,
    section 5.1.2) evaluate hard constrained k-means on test data (one-hot rows).
    """

    name = "cop-kmeans"
    title = "COP-KMeans (constrained k-means)"
    citation = _CITATION
    hard_constraints = True
    accepts_means_init = True
    mean_keys = ("means", "centers")
    params = (
        N_CLUSTERS,
        MAX_ITER,
        Param("links", str, "both", "which links to enforce: both kinds, or must-links only",
              choices=("both", "must-link")),
        INIT,
        Param("order", str, "data", "order of assignment: data order (the paper) or shuffled "
              "in every pass", choices=("data", "random")),
        Param("closure", bool, True, "enforce the links' transitive closure (entailed links)"),
        Param("search", str, "backtracking", "when the greedy pass of Table 1 meets a point no cluster "
              "can take: backtrack over the must-link groups (DSATUR order) or fail as the paper "
              "does (then restart)", choices=("backtracking", "greedy")),
        Param("max_restarts", int, 10, "restarts from new initial centres when an assignment is "
              "infeasible, before giving up", low=0),
        MEANS_INIT,
    )

    def __init__(self, dataset: Dataset, constraints: Constraints | None = None,
                 params: Mapping[str, Any] | None = None, rng: np.random.Generator | None = None) -> None:
        given = resolve_params(type(self).params, params, owner=f"algorithm {self.name!r}")
        if constraints is not None and given["links"] == "must-link":
            # the cannot-links play no part: drop them before the consistency check of hard links
            constraints = Constraints(constraints.must_link, None, n_samples=constraints.n_samples,
                                      confidence={"must_link": constraints.ml_confidence})
        super().__init__(dataset, constraints, params, rng)
        c = self._links = self.constraints
        n = self.dataset.n_samples
        linked = np.zeros(n, dtype=bool)
        linked[c.must_link.ravel()] = True
        linked[c.cannot_link.ravel()] = True
        self._constrained = np.flatnonzero(linked)
        self._ml = _neighbours(c.must_link, n, c.ml_confidence)
        self._cl = _neighbours(c.cannot_link, n, c.cl_confidence)
        if self._uses_closure():
            self._chunk = c.chunklet_index
            self._chunk_cl = _neighbours(c.chunklet_cannot_link, c.n_chunklets)

    def _uses_closure(self) -> bool:
        return bool(self.params["closure"])

    # -- Table 1 ------------------------------------------------------------------------------
    def _initial_centers(self, rng: np.random.Generator, use_given: bool = True) -> np.ndarray:
        given = self.params["means_init"] if use_given else None
        return starting_centers(self.X, self.params["n_clusters"], given, self.params["init"], rng)

    def _visiting_order(self) -> np.ndarray:
        todo = self._constrained
        if self.params["order"] == "random":
            todo = self.rng.permutation(todo)
        return todo

    def assign(self, centers: np.ndarray, iteration: int) -> tuple[np.ndarray, np.ndarray]:
        """Step 2 of Table 1: labels (n,) and the squared distances (n, k) they came from."""
        d2 = squared_distances(self.X, centers)
        labels = d2.argmin(axis=1)
        todo = self._visiting_order()
        if todo.size == 0:
            return labels, d2
        k = centers.shape[0]
        preference = np.argsort(d2[todo], axis=1, kind="stable")
        if self._uses_closure():
            group = np.full(int(self._chunk.max()) + 1, -1)
            for i, pref in zip(todo.tolist(), preference, strict=True):
                a = self._chunk[i]
                if group[a] < 0:
                    feasible = np.ones(k, dtype=bool)
                    taken = group[_row(self._chunk_cl, a)]
                    feasible[taken[taken >= 0]] = False
                    if not feasible.any():
                        if self.params["search"] == "greedy":
                            raise self._infeasible(i, k, iteration, group=group)
                        return self._backtrack(i, d2, todo, labels, iteration, group), d2
                    group[a] = pref[feasible[pref].argmax()]
                labels[i] = group[a]
        else:
            assigned = np.full(self.dataset.n_samples, -1)
            for i, pref in zip(todo.tolist(), preference, strict=True):
                feasible = np.ones(k, dtype=bool)
                ml = assigned[_row(self._ml, i)]
                ml = ml[ml >= 0]
                if ml.size:
                    feasible[:] = False
                    if (ml == ml[0]).all():
                        feasible[ml[0]] = True
                cl = assigned[_row(self._cl, i)]
                feasible[cl[cl >= 0]] = False
                if not feasible.any():
                    raise self._infeasible(i, k, iteration, assigned=assigned)
                assigned[i] = labels[i] = pref[feasible[pref].argmax()]
        return labels, d2

    def _backtrack(self, i: int, d2: np.ndarray, todo: np.ndarray, labels: np.ndarray,
                   iteration: int, greedy: np.ndarray) -> np.ndarray:
        """Step 2 as a constraint-satisfaction search: each must-link group takes a cluster with no
        cannot-linked group in it, the cheapest first (summed squared distances of its points),
        groups in DSATUR order (most distinct clusters among its cannot-linked neighbours first,
        then most neighbours; Brelaz 1979), backtracking on a dead end. Deciding whether cannot-
        links admit k clusters is graph k-colouring (Davidson & Ravi 2005), so the search is
        bounded; it raises the error of point ``i`` (naming its blockers in the greedy pass
        ``greedy``) when it proves no assignment exists or runs out of its budget."""
        k = d2.shape[1]
        n_groups = int(self._chunk.max()) + 1
        cost = np.zeros((n_groups, k))
        np.add.at(cost, self._chunk[todo], d2[todo])
        adj = self._chunk_cl
        group = np.full(n_groups, -1)
        active = np.unique(self._chunk[todo])
        found = _dsatur(adj, cost, active, group, budget=100_000)
        if not found:
            raise self._infeasible(i, k, iteration, group=greedy)
        labels[todo] = group[self._chunk[todo]]
        return labels

    def _infeasible(self, i: int, k: int, iteration: int, *, group: np.ndarray | None = None,
                    assigned: np.ndarray | None = None) -> InfeasibleAssignmentError:
        """The error for point ``i``: its cannot-linked (and must-linked) neighbours and their clusters."""
        if group is not None:  # closure: cannot-linked groups (through must-link chains) fill every cluster
            blocked = [(int(j), int(group[b])) for b in _row(self._chunk_cl, self._chunk[i])
                       if group[b] >= 0 for j in np.flatnonzero(self._chunk == b)]
            blocked.sort()
            what = "cannot-linked (directly or through must-link chains) to " + _points(blocked)
        else:
            ml = [(int(j), int(assigned[j])) for j in _row(self._ml, i) if assigned[j] >= 0]
            blocked = sorted((int(j), int(assigned[j])) for j in _row(self._cl, i) if assigned[j] >= 0)
            parts = []
            if ml:
                parts.append("must-linked to " + _points(ml))
            if blocked:
                parts.append("cannot-linked to " + _points(blocked))
            what = "; ".join(parts)
        restarts = self.params["max_restarts"]
        message = (
            f"COP-KMeans cannot assign point {i} at iteration {iteration}: it is {what}, so every one "
            f"of the {k} cluster(s) violates a constraint (Wagstaff et al. 2001 return no clustering "
            f"here), and {restarts} restart(s) from new initial centres did not help. Increase "
            "n_clusters or max_restarts, use closure=True or order='random', remove some of these "
            "links, or use soft constraints (soft-cop-kmeans, pck-means, ppc)."
        )
        return InfeasibleAssignmentError(message, i, iteration, [j for j, _ in blocked])

    def objective(self, labels: np.ndarray, d2: np.ndarray) -> float:
        """Within-cluster sum of squares (the quantity Table 1's k-means steps improve)."""
        return float(d2[np.arange(labels.size), labels].sum())

    objective_name = "inertia"

    def _state(self, iteration: int, centers: np.ndarray, restarts: int) -> State:
        while True:
            try:
                labels, d2 = self.assign(centers, iteration)
                break
            except InfeasibleAssignmentError:
                if restarts >= self.params["max_restarts"]:
                    raise
                restarts += 1
                # A derived generator per restart: the same seed gives the same restarts.
                centers = self._initial_centers(self.rng.spawn(1)[0], use_given=False)
        return State(iteration, labels, objective=self.objective(labels, d2),
                     objective_name=self.objective_name,
                     model={"centers": centers, "means": centers}, extras={"restarts": restarts})

    # -- the stepper protocol -----------------------------------------------------------------
    def initialize(self) -> State:
        return self._state(0, self._initial_centers(self.rng), 0)

    phases = ("update centres", "assign points")

    def half_step(self, state: State) -> State:
        """Step 3: centres to the means of their points (an empty cluster keeps its centre); the
        labels not yet moved."""
        centers = cluster_means(self.X, state.labels, state.model["centers"])
        return State(state.iteration + 1, state.labels, objective=None,
                     objective_name=self.objective_name, model={"centers": centers, "means": centers},
                     extras={"restarts": int(state.extras.get("restarts", 0))}, phase=self.phases[0])

    def finish_step(self, half: State) -> State:
        """Step 2: the constrained assignment under the half-state's centres."""
        return self._state(half.iteration, np.asarray(half.model["centers"]), int(half.extras["restarts"]))

    def explain(self, state: State, index: int) -> Explanation:
        """The point's squared distance to each centre; Table 1 takes the nearest one that violates
        no link with the points placed before it in the pass."""
        d2 = squared_distances(self.X[index:index + 1], np.asarray(state.model["centers"]))[0]
        bars = Bars("squared distance to each centre", component_labels(d2.size), d2,
                    int(state.labels[index]) if not state.phase else int(d2.argmin()), lower_is_better=True)
        return Explanation(index, state.phase or "assign points",
                           "z_i = the nearest cluster that violates no constraint (Table 1, step 2)", (bars,),
                           text="Highlighted: the cluster the point took (or, after the centre update, "
                                "the nearest one).")

    def converged(self, previous: State, current: State) -> bool:
        """Table 1, step 4: the assignment no longer changes."""
        return bool(np.array_equal(previous.labels, current.labels))

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """One-hot nearest-centre classification of unseen points (no links apply to them)."""
        X = np.asarray(X, dtype=float)
        d2 = squared_distances(X, state.model["centers"])
        out = np.zeros_like(d2)
        out[np.arange(X.shape[0]), d2.argmin(axis=1)] = 1.0
        return out


def _dsatur(adj: sp.csr_matrix, cost: np.ndarray, active: np.ndarray, group: np.ndarray,
            budget: int) -> bool:
    """Fill ``group[active]`` with clusters so that no two adjacent groups share one (in place);
    False when none exists or ``budget`` search nodes were spent."""
    k = cost.shape[1]

    def feasible(a: int) -> np.ndarray:
        ok = np.ones(k, dtype=bool)
        taken = group[_row(adj, a)]
        ok[taken[taken >= 0]] = False
        return ok

    def pick() -> int:
        todo = active[group[active] < 0]
        if todo.size == 0:
            return -1
        sat = [k - int(feasible(int(a)).sum()) for a in todo]
        deg = [_row(adj, int(a)).size for a in todo]
        return int(todo[max(range(todo.size), key=lambda t: (sat[t], deg[t], -t))])

    free = active[np.array([_row(adj, int(a)).size == 0 for a in active], dtype=bool)]
    group[free] = cost[free].argmin(axis=1)  # no cannot-link: the cheapest cluster
    stack: list[tuple[int, list[int]]] = []  # (group, clusters still to try), iterative DFS
    while True:
        a = pick()
        if a < 0:
            return True
        budget -= 1
        if budget < 0:
            return False
        ok = feasible(a)
        stack.append((a, [int(h) for h in np.argsort(cost[a], kind="stable") if ok[h]][::-1]))
        while stack and not stack[-1][1]:  # dead end: undo and try the previous group's next cluster
            group[stack.pop()[0]] = -1
            if stack:
                group[stack[-1][0]] = -1
        if not stack:
            return False
        b, options = stack[-1]
        group[b] = options.pop()


def _points(pairs: list[tuple[int, int]], limit: int = 8) -> str:
    shown = ", ".join(f"point {j} (cluster {c})" for j, c in pairs[:limit])
    return shown + (f" and {len(pairs) - limit} more" if len(pairs) > limit else "")


class SoftCOPKMeans(COPKMeans):
    """Table 1 with priced links: soft-CKmeans (Lu & Leen 2007, eq. C.1).

    Each constrained point, in Table 1's order, takes the cluster minimising
    ``1/2 ||x_i - mu_h||^2 + sum_j w_ij [link (i, j) violated if i joins h]`` over the partners j
    already placed in this pass; w_ij = ``penalty`` x the pair's confidence. The objective is eq.
    C.1 over all pairs: ``1/2 sum_i ||x_i - mu_{z_i}||^2 + sum_ML w [z_i != z_j] +
    sum_CL w [z_i = z_j]``. Links are never transitively closed (a soft link entails nothing) and
    contradictory links are accepted; no assignment is ever infeasible.
    """

    name = "soft-cop-kmeans"
    title = "soft COP-KMeans (soft-CKmeans)"
    citation = _CITATION + "; soft-CKmeans cost of Lu & Leen (2007), eq. C.1"
    hard_constraints = False
    params = (
        *(p for p in COPKMeans.params if p.name not in ("closure", "max_restarts")),
        Param("penalty", float, 1.0, "weight w of a violated link (times its confidence)", low=0.0),
    )
    objective_name = "soft-CKmeans cost"

    def _uses_closure(self) -> bool:
        return False

    def assign(self, centers: np.ndarray, iteration: int) -> tuple[np.ndarray, np.ndarray]:
        d2 = squared_distances(self.X, centers)
        labels = d2.argmin(axis=1)
        w = self.params["penalty"]
        todo = self._visiting_order()
        if todo.size == 0:
            return labels, d2
        from .cop_kmeans_kernels import soft_pass  # compiled Table 1 pass, same numbers

        ml, cl = self._ml, self._cl
        soft_pass(d2, labels, todo.astype(np.int64), ml.indptr, ml.indices,
                  ml.data.astype(float), cl.indptr, cl.indices, cl.data.astype(float), float(w))
        return labels, d2

    def objective(self, labels: np.ndarray, d2: np.ndarray) -> float:
        c, w = self._links, self.params["penalty"]
        ml, cl = c.must_link, c.cannot_link
        broken_ml = c.ml_confidence[labels[ml[:, 0]] != labels[ml[:, 1]]].sum()
        broken_cl = c.cl_confidence[labels[cl[:, 0]] == labels[cl[:, 1]]].sum()
        return 0.5 * float(d2[np.arange(labels.size), labels].sum()) + w * float(broken_ml + broken_cl)


@hookimpl
def pairlab_algorithms():
    return [COPKMeans, SoftCOPKMeans]
