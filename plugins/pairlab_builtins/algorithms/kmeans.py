"""k-means (Lloyd's algorithm) with k-means++ seeding."""

from __future__ import annotations

import numpy as np

from pairlab import Algorithm, Param, State, hookimpl
from pairlab.centroids import cluster_means, starting_centers
from pairlab.explanation import Bars, Explanation


def _sq_distances(X: np.ndarray, centers: np.ndarray) -> np.ndarray:
    # |x|^2 - 2 x.c + |c|^2 cancels catastrophically far from the origin: centre first.
    shift = X.mean(axis=0)
    X, centers = X - shift, centers - shift
    d2 = (X**2).sum(axis=1)[:, None] - 2 * X @ centers.T + (centers**2).sum(axis=1)[None, :]
    return np.maximum(d2, 0.0)


class KMeans(Algorithm):
    """Lloyd's k-means: assign each point to its nearest centre, move centres to the means.

    The objective is the within-cluster sum of squares (inertia); an empty cluster keeps its
    previous centre.
    """

    name = "kmeans"
    title = "k-means (Lloyd)"
    citation = "Lloyd (1982); Arthur & Vassilvitskii (2007) for k-means++ seeding"
    uses_constraints = False
    accepts_means_init = True
    mean_keys = ("means", "centers")
    params = (
        Param("n_clusters", int, 2, "number of clusters", low=1),
        Param("max_iter", int, 300, "maximum number of iterations", low=1),
        Param("means_init", np.ndarray, None, "initial centres (k, d)", nullable=True),
    )

    def _state(self, iteration: int, centers: np.ndarray) -> State:
        d2 = _sq_distances(self.X, centers)
        labels = d2.argmin(axis=1)
        inertia = float(d2[np.arange(labels.size), labels].sum())
        return State(iteration, labels, objective=inertia, objective_name="inertia",
                     model={"centers": centers, "means": centers})

    def initialize(self) -> State:
        centers = starting_centers(self.X, self.params["n_clusters"], self.params["means_init"],
                                   "k-means++", self.rng)
        return self._state(0, centers)

    phases = ("update centres", "assign points")

    def half_step(self, state: State) -> State:
        """Lloyd's update: every centre to the mean of its points; the labels not yet moved.
        Its objective is the inertia of the old labels about the new centres (never above the
        state before: the mean minimises each cluster's sum of squares)."""
        centers = cluster_means(self.X, state.labels, state.model["centers"])
        inertia = float(((self.X - centers[np.asarray(state.labels)]) ** 2).sum())
        return State(state.iteration + 1, state.labels, objective=inertia, objective_name="inertia",
                     model={"centers": centers, "means": centers}, phase=self.phases[0])

    def finish_step(self, half: State) -> State:
        """Assignment: every point to its nearest centre."""
        return self._state(half.iteration, np.asarray(half.model["centers"]))

    def explain(self, state: State, index: int) -> Explanation:
        """The squared distances the assignment compares, ||x_i - c_k||^2."""
        centers = np.asarray(state.model["centers"])
        d2 = _sq_distances(self.X[index:index + 1], centers)[0]
        names = [f"k={k}" for k in range(d2.size)]
        if state.phase:
            bars = Bars("squared distance to each new centre", names, d2, int(d2.argmin()),
                        lower_is_better=True)
            return Explanation(index, state.phase, "c_k = mean of the points assigned to k", (bars,),
                               text="The next half-step assigns the point to the nearest centre.")
        bars = Bars("squared distance to each centre", names, d2, int(d2.argmin()), lower_is_better=True,
                    term="distance")
        return Explanation(index, "assign points", "z_i = argmin_k ||x_i - c_k||²", (bars,))

    def converged(self, previous: State, current: State) -> bool:
        return bool(np.array_equal(previous.labels, current.labels))


@hookimpl
def pairlab_algorithms():
    return [KMeans]
