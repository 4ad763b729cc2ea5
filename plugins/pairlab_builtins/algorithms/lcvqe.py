"""LCVQE: linear-time constrained vector quantisation error (Pelleg & Baras 2007, "K-means with large
and noisy constraint sets", ECML).

The objective, for labels l and centroids c (the paper's LCVQE_j summed over clusters j)::

    J = 1/2 sum_i ||x_i - c_{l_i}||^2
        + sum_{(a,b) in ML, l_a != l_b} 1/4 ( ||x_b - c_{l_a}||^2 + ||x_a - c_{l_b}||^2 )
        + sum_{(a,b) in CL, l_a = l_b = j} 1/2 ||x_r - c_{M(r)}||^2

where, for a violated cannot-link inside cluster j, r is the point of the pair farther from c_j and
M(r) the centroid nearest to r other than c_j. A violated must-link pulls each point's centroid
towards the other point; a violated cannot-link pulls the runner-up centroid towards r.

E-step (linear in the number of points and links):

1. every point goes to its nearest centroid;
2. each must-link (a, b) split between clusters A = l_a and B = l_b, in the order given, takes the
   cheapest of: keep it violated (1/2 ||x_a - c_A||^2 + 1/2 ||x_b - c_B||^2 + 1/4 ||x_b - c_A||^2
   + 1/4 ||x_a - c_B||^2), both in A (1/2 ||x_a - c_A||^2 + 1/2 ||x_b - c_A||^2) or both in B;
3. each cannot-link (a, b) inside one cluster j, in order, takes the cheaper of: keep it violated
   (1/2 ||x_a - c_j||^2 + 1/2 ||x_b - c_j||^2 + 1/2 ||x_r - c_{M(r)}||^2) or move r to M(r)
   (1/2 ||x_o - c_j||^2 + 1/2 ||x_r - c_{M(r)}||^2, o the other point).

Each decision reads the labels as earlier decisions left them; the links are grouped into rounds of
links that share no point (``_rounds``) so that a round is decided at once with identical results.
Read literally, moving r always costs 1/2 ||x_r - c_j||^2 less than keeping the violation, so an
isolated cannot-link is always satisfied by step 3; violated cannot-links (and their penalty) remain
only where a later decision on a shared point brings the pair back together (or both points sit on
c_j). We implement the rule as printed and say so in docs/algorithms/kmeans_family.md.

M-step: setting the gradient of J to zero with the penalty terms of the current labels fixed,

    c_j = ( sum_{i in j} x_i + 1/2 sum_{violated ML, a in j} x_b + sum_{violated CL, M(r) = j} x_r )
          / ( |C_j| + 1/2 #{violated ML with an end in j} + #{violated CL with M(r) = j} ),

a weighted mean (``pairlab.centroids.cluster_means`` with weights 1, 1/2, 1); r and M(r) are taken
under the centroids the labels were chosen with. J is not guaranteed to decrease: the E-step
considers three (two) options per link rather than every labelling, and r, M(r) move with the
centroids. With no links LCVQE is Lloyd's k-means.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pairlab import Algorithm, State, hookimpl
from pairlab.centroids import INIT, MAX_ITER, MEANS_INIT, N_CLUSTERS, cluster_means, starting_centers
from pairlab.explanation import Bars, Explanation, component_labels

from .kmeans import _sq_distances

__all__ = ["LCVQE"]


def _rounds(pairs: np.ndarray, n: int) -> np.ndarray:
    """Round of each link: 1 + the largest round of an earlier link sharing a point with it."""
    last = np.zeros(n, dtype=np.int64)
    out = np.empty(len(pairs), dtype=np.int64)
    for t, (a, b) in enumerate(pairs.tolist()):
        out[t] = r = max(last[a], last[b])
        last[a] = last[b] = r + 1
    return out


class LCVQE(Algorithm):
    """LCVQE (Pelleg & Baras 2007): k-means whose links are kept or broken by their local cost.

    A state holds the centroids its assignment was made with (``model["centers"]``), the labels and
    J (``objective``); ``extras`` count the violated links. ``predict_proba``: one-hot nearest
    centroid (no links apply to unseen points).
    """

    name = "lcvqe"
    title = "LCVQE (linear-time constrained vector quantisation error)"
    citation = ("Pelleg & Baras (2007), K-means with large and noisy constraint sets, ECML")
    accepts_means_init = True
    mean_keys = ("means", "centers")
    params = (
        N_CLUSTERS,
        MAX_ITER,
        INIT,
        MEANS_INIT,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        c, n = self.constraints, self.dataset.n_samples
        self._ml_groups = self._groups(c.must_link, _rounds(c.must_link, n))
        self._cl_groups = self._groups(c.cannot_link, _rounds(c.cannot_link, n))

    @staticmethod
    def _groups(pairs: np.ndarray, rounds: np.ndarray) -> list[np.ndarray]:
        return [pairs[rounds == r] for r in np.unique(rounds)]

    # -- E-step -------------------------------------------------------------------------------
    def assign(self, centers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Steps 1-3 of the E-step: labels and the squared distances (n, k)."""
        d2 = _sq_distances(self.X, centers)
        labels = d2.argmin(axis=1)
        for pairs in self._ml_groups:
            a, b = pairs[:, 0], pairs[:, 1]
            A, B = labels[a], labels[b]
            split = A != B
            a, b, A, B = a[split], b[split], A[split], B[split]
            aA, bB, bA, aB = d2[a, A], d2[b, B], d2[b, A], d2[a, B]
            keep = 0.5 * (aA + bB) + 0.25 * (bA + aB)
            to_a = 0.5 * (aA + bA)
            to_b = 0.5 * (aB + bB)
            choice = np.argmin(np.column_stack([keep, to_a, to_b]), axis=1)
            labels[b[choice == 1]] = A[choice == 1]
            labels[a[choice == 2]] = B[choice == 2]
        for pairs in self._cl_groups:
            a, b = pairs[:, 0], pairs[:, 1]
            j = labels[a]
            same = j == labels[b]
            a, b, j = a[same], b[same], j[same]
            r, o, m = self._runner_up(a, b, j, d2)
            keep = 0.5 * (d2[a, j] + d2[b, j]) + 0.5 * d2[r, m]
            move = 0.5 * d2[o, j] + 0.5 * d2[r, m]
            moved = move < keep
            labels[r[moved]] = m[moved]
        return labels, d2

    @staticmethod
    def _runner_up(a: np.ndarray, b: np.ndarray, j: np.ndarray, d2: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """r (the point farther from c_j; a on ties), the other point o, and M(r)."""
        far_b = d2[b, j] > d2[a, j]
        r, o = np.where(far_b, b, a), np.where(far_b, a, b)
        others = d2[r].copy()
        others[np.arange(r.size), j] = np.inf
        return r, o, others.argmin(axis=1)

    # -- J and the M-step ---------------------------------------------------------------------
    def _penalty_terms(self, labels: np.ndarray, d2: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Violated links as (points, clusters, weights) pulling clusters, and the ML/CL counts."""
        c = self.constraints
        a, b = c.must_link[:, 0], c.must_link[:, 1]
        split = labels[a] != labels[b]
        a, b = a[split], b[split]
        pts = [b, a]
        clus = [labels[a], labels[b]]
        wts = [np.full(2 * a.size, 0.5)]
        a2, b2 = c.cannot_link[:, 0], c.cannot_link[:, 1]
        same = labels[a2] == labels[b2]
        r, _, m = self._runner_up(a2[same], b2[same], labels[a2[same]], d2)
        pts.append(r)
        clus.append(m)
        wts.append(np.ones(r.size))
        counts = np.array([a.size, r.size])
        return np.concatenate(pts), np.concatenate(clus), np.concatenate(wts), counts

    def _state(self, iteration: int, centers: np.ndarray) -> State:
        labels, d2 = self.assign(centers)
        pts, clus, wts, counts = self._penalty_terms(labels, d2)
        # J = 1/2 sum ||x - c||^2 + 1/2 sum w ||x_p - c_h||^2 over the pulls (w = 1/2 for ML, 1 for CL)
        J = 0.5 * float(d2[np.arange(labels.size), labels].sum()) + 0.5 * float(wts @ d2[pts, clus])
        return State(iteration, labels, objective=J, objective_name="LCVQE",
                     model={"centers": centers, "means": centers},
                     extras={"violated_must_links": int(counts[0]),
                             "violated_cannot_links": int(counts[1])})

    def initialize(self) -> State:
        centers = starting_centers(self.X, self.params["n_clusters"], self.params["means_init"],
                                   self.params["init"], self.rng)
        return self._state(0, centers)

    phases = ("update centroids", "assign points")

    def finish_step(self, half: State) -> State:
        """The E-step under the half-state's centroids."""
        return self._state(half.iteration, np.asarray(half.model["centers"]))

    def half_step(self, state: State) -> State:
        """The M-step: weighted means with the state's violations; the labels not yet moved."""
        old = np.asarray(state.model["centers"])
        labels = np.asarray(state.labels)
        if len(self.constraints):
            d2 = _sq_distances(self.X, old)
            pts, clus, wts, _ = self._penalty_terms(labels, d2)
            X = np.concatenate([self.X, self.X[pts]])
            centers = cluster_means(X, np.concatenate([labels, clus]), old,
                                    weights=np.concatenate([np.ones(labels.size), wts]))
        else:
            centers = cluster_means(self.X, labels, old)
        return State(state.iteration + 1, state.labels, objective=None, objective_name="LCVQE",
                     model={"centers": centers, "means": centers}, phase=self.phases[0])

    def explain(self, state: State, index: int) -> Explanation:
        """Step 1 of the E-step for the point: its squared distance to each centroid."""
        d2 = _sq_distances(self.X[index:index + 1], np.asarray(state.model["centers"]))[0]
        bars = Bars("squared distance to each centroid", component_labels(d2.size), d2, int(d2.argmin()),
                    lower_is_better=True)
        return Explanation(index, state.phase or "assign points", "l_i = argmin_j ||x_i − c_j||², then "
                           "each link keeps or resolves its violation by the cheaper option", (bars,),
                           text="A point in a link may then move with its partner (see the LCVQE page).")

    def converged(self, previous: State, current: State) -> bool:
        return bool(np.array_equal(previous.labels, current.labels))

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """One-hot nearest-centroid rows."""
        d2 = _sq_distances(np.asarray(X, dtype=float), np.asarray(state.model["centers"]))
        out = np.zeros_like(d2)
        out[np.arange(d2.shape[0]), d2.argmin(axis=1)] = 1.0
        return out


@hookimpl
def pairlab_algorithms():
    return [LCVQE]
