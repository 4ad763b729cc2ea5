"""COP-KMeans: k-means whose assignment step never violates a must-link or a cannot-link.

The example plugin package: the plain Table 1, registered as ``cop-kmeans-example``. pairlab's
built-in ``cop-kmeans`` adds restarts, a must-links-only mode and a soft variant.

Wagstaff, Cardie, Rogers & Schroedl (2001), "Constrained K-means clustering with background
knowledge", ICML, Table 1:

1. Let C_1 ... C_k be the initial cluster centres.
2. Assign each point d_i, in turn, to the closest cluster C_j such that
   ``violate-constraints(d_i, C_j)`` is false. If no such cluster exists, fail.
3. Update each centre to the mean of the points assigned to it.
4. Iterate (2) and (3) until convergence.

``violate-constraints(d, C)`` is true when a must-link partner of ``d`` is not in ``C`` or a
cannot-link partner of ``d`` is in ``C``. Read literally, the must-link test would also reject
every cluster for a point whose partner has not been placed yet, so no point with a must-link
could ever be assigned; we follow the usual reading that only partners already assigned in the
current pass count (a point placed first opens the way for its partners).

Choices the paper leaves open, documented here:

* ``closure=True`` (default) runs Table 1 on the constraints' transitive closure: points joined by
  a chain of must-links are must-linked, and a cannot-link between two such groups forbids every
  pair across them. Table 1 then fails only when a group's cannot-linked neighbours already
  occupy all k clusters. ``closure=False`` checks only the pairs as given, so a chain a-b-c
  visited in the order a, c, b can fail although a clustering exists.
* ``order="data"`` visits points in data order as the paper's loop does; ``order="random"``
  shuffles the constrained points in every pass with the algorithm's generator. Unconstrained
  points never restrict anyone, so they simply take their nearest centre.
* An empty cluster keeps its previous centre in step (3).
* Initial centres are k-means++ seeds (``init="k-means++"``), k distinct random points
  (``init="random"``) or ``means_init``.

When no cluster is feasible the paper's procedure returns no clustering; here
:class:`InfeasibleAssignmentError` (a :class:`pairlab.PairlabError`) says which point and which
links blocked it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from pairlab import Algorithm, Param, State
from pairlab.centroids import cluster_means
from pairlab.errors import InvalidInputError, PairlabError
from pairlab.mixture import kmeans_plusplus

__all__ = ["COPKMeans", "InfeasibleAssignmentError"]


class InfeasibleAssignmentError(PairlabError):
    """COP-KMeans met a point that no cluster can take without violating a constraint."""

    def __init__(self, message: str, point: int, iteration: int) -> None:
        super().__init__(message)
        self.point = point
        self.iteration = iteration


def squared_distances(X: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """||x_i - c_j||^2 for every point and centre, shape (n, k)."""
    return ((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)


def _neighbours(pairs: np.ndarray, n: int) -> sp.csr_matrix:
    """Symmetric adjacency of ``pairs`` over ``n`` nodes (a node's neighbours are one CSR row)."""
    if len(pairs) == 0:
        return sp.csr_matrix((n, n), dtype=np.int8)
    rows = np.concatenate([pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([pairs[:, 1], pairs[:, 0]])
    adj = sp.coo_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n)).tocsr()
    adj.sum_duplicates()
    return adj


def _row(adj: sp.csr_matrix, i: int) -> np.ndarray:
    return adj.indices[adj.indptr[i]:adj.indptr[i + 1]]


class COPKMeans(Algorithm):
    """COP-KMeans (Wagstaff et al. 2001, Table 1): hard must-links and cannot-links in k-means.

    A state holds the centres used for its assignment (``model["centers"]``), the constrained
    assignment itself (``labels``) and its within-cluster sum of squares (``objective``,
    "inertia"). ``step`` is Table 1's step 3 (move the centres) followed by step 2 (assign).
    ``predict_proba`` classifies unseen points by their nearest centre, as Lu & Leen (2007,
    section 5.1.2) evaluate hard constrained k-means on test data (one-hot probabilities).
    """

    # pairlab's built-in ``cop-kmeans`` is the full algorithm (restarts, must-links only, a soft
    # variant); this example registers the plain Table 1 under its own name so nothing clashes.
    name = "cop-kmeans-example"
    title = "COP-KMeans, example package (Table 1)"
    citation = ("Wagstaff, Cardie, Rogers & Schroedl (2001), Constrained K-means clustering with "
                "background knowledge, ICML")
    hard_constraints = True
    accepts_means_init = True
    params = (
        Param("n_clusters", int, 2, "number of clusters k", low=1),
        Param("max_iter", int, 300, "maximum number of iterations", low=1),
        Param("init", str, "k-means++", "initial centres: k-means++ seeding or k random points",
              choices=("k-means++", "random")),
        Param("order", str, "data", "order of assignment: data order (the paper) or shuffled "
              "in every pass", choices=("data", "random")),
        Param("closure", bool, True, "enforce the links' transitive closure (entailed links)"),
        Param("means_init", np.ndarray, None, "initial centres (k, d)", nullable=True),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        c = self.constraints
        n = self.dataset.n_samples
        linked = np.zeros(n, dtype=bool)
        linked[c.must_link.ravel()] = True
        linked[c.cannot_link.ravel()] = True
        self._constrained = np.flatnonzero(linked)
        if self.params["closure"]:
            self._chunk = c.chunklet_index
            self._chunk_cl = _neighbours(c.chunklet_cannot_link, c.n_chunklets)
        else:
            self._ml = _neighbours(c.must_link, n)
            self._cl = _neighbours(c.cannot_link, n)

    # -- Table 1 ------------------------------------------------------------------------------
    def _initial_centers(self) -> np.ndarray:
        k, (n, d) = self.params["n_clusters"], self.X.shape
        if k > n:
            raise InvalidInputError(f"n_clusters={k} exceeds the number of points ({n}); "
                                    "lower n_clusters.")
        centers = self.params["means_init"]
        if centers is not None:
            if centers.shape != (k, d):
                raise InvalidInputError(f"means_init must have shape {(k, d)}, got {centers.shape}.")
            return np.array(centers, dtype=float)
        if self.params["init"] == "random":
            return self.X[self.rng.choice(n, size=k, replace=False)].copy()
        return kmeans_plusplus(self.X, k, self.rng)

    def assign(self, centers: np.ndarray, iteration: int) -> tuple[np.ndarray, np.ndarray]:
        """Step 2 of Table 1: labels (n,) and the squared distances (n, k) they came from."""
        d2 = squared_distances(self.X, centers)
        labels = d2.argmin(axis=1)
        todo = self._constrained
        if todo.size == 0:
            return labels, d2
        if self.params["order"] == "random":
            todo = self.rng.permutation(todo)
        k = centers.shape[0]
        preference = np.argsort(d2[todo], axis=1, kind="stable")
        if self.params["closure"]:
            group = np.full(int(self._chunk.max()) + 1, -1)
            for i, pref in zip(todo.tolist(), preference, strict=True):
                a = self._chunk[i]
                if group[a] < 0:
                    feasible = np.ones(k, dtype=bool)
                    taken = group[_row(self._chunk_cl, a)]
                    feasible[taken[taken >= 0]] = False
                    group[a] = self._first_feasible(i, pref, feasible, iteration)
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
                assigned[i] = labels[i] = self._first_feasible(i, pref, feasible, iteration,
                                                               assigned)
        return labels, d2

    def _first_feasible(self, i: int, pref: np.ndarray, feasible: np.ndarray, iteration: int,
                        assigned: np.ndarray | None = None) -> int:
        ok = feasible[pref]
        j = int(ok.argmax())
        if ok[j]:
            return int(pref[j])
        raise InfeasibleAssignmentError(self._explain(i, feasible.size, iteration, assigned), i,
                                        iteration)

    def _explain(self, i: int, k: int, iteration: int, assigned: np.ndarray | None) -> str:
        if assigned is None:  # closure: the cannot-linked groups fill every cluster
            blockers = "points cannot-linked to it (directly or through must-link chains) " \
                       f"already occupy all {k} cluster(s)"
        else:
            ml = [(int(j), int(assigned[j])) for j in _row(self._ml, i) if assigned[j] >= 0]
            cl = [(int(j), int(assigned[j])) for j in _row(self._cl, i) if assigned[j] >= 0]
            parts = []
            if ml:
                parts.append("must-linked to " + ", ".join(f"point {j} (cluster {c})" for j, c in ml))
            if cl:
                parts.append("cannot-linked to " + ", ".join(f"point {j} (cluster {c})" for j, c in cl))
            blockers = "; ".join(parts)
        return (
            f"COP-KMeans cannot assign point {i} at iteration {iteration}: {blockers}, so every "
            f"one of the {k} cluster(s) violates a constraint (Wagstaff et al. 2001 return no "
            "clustering here). Increase n_clusters, use closure=True, try order='random' or "
            "another seed, or use an algorithm with soft constraints (ppc, scssap)."
        )

    def _state(self, iteration: int, centers: np.ndarray) -> State:
        labels, d2 = self.assign(centers, iteration)
        inertia = float(d2[np.arange(labels.size), labels].sum())
        return State(iteration, labels, objective=inertia, objective_name="inertia",
                     model={"centers": centers, "means": centers})

    # -- the stepper protocol -----------------------------------------------------------------
    def initialize(self) -> State:
        return self._state(0, self._initial_centers())

    def step(self, state: State) -> State:
        """Step 3 (centres to the means of their points; an empty cluster keeps its centre), then 2."""
        centers = cluster_means(self.X, state.labels, state.model["centers"])
        return self._state(state.iteration + 1, centers)

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
