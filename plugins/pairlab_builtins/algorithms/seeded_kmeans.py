"""Seeded-KMeans and Constrained-KMeans (Basu, Banerjee & Mooney 2002, "Semi-supervised clustering
by seeding", ICML, section 3).

Both take partial labels: a seed set S partitioned into S_1..S_k (``seed_labels``: the cluster
0..k-1 of each labelled point, -1 for the others; the estimator's ``fit(X, labels=...)``).
Initialisation: mu_h = mean of S_h (the paper's step 1). Seeded-KMeans then runs Lloyd's k-means
unchanged, so seeds may change cluster; Constrained-KMeans keeps every seed in its given cluster in
each assignment (the paper's step 2a: x in S_h goes to h, the others to their nearest mean). Without
seeds both are k-means from k-means++ seeding, bit for bit the ``kmeans`` plugin.
"""

from __future__ import annotations

import numpy as np

from pairlab import Param, State, hookimpl
from pairlab.errors import InvalidInputError

from .kmeans import KMeans, _sq_distances

SEED_LABELS = Param("seed_labels", np.ndarray, None, "cluster of each labelled point (0..k-1), "
                    "-1 for unlabelled points; fit(X, labels=...) sets it", nullable=True)


class SeededKMeans(KMeans):
    """Seeded-KMeans: k-means started from the means of the seeds of each cluster."""

    name = "seeded-kmeans"
    title = "Seeded-KMeans"
    citation = ("Basu, Banerjee & Mooney (2002), Semi-supervised clustering by seeding, ICML "
                "(Seeded-KMeans, section 3)")
    params = (*KMeans.params, SEED_LABELS)
    takes_seed_labels = True
    #: seeds keep their cluster in every assignment (Constrained-KMeans)
    clamp_seeds = False

    def _seeds(self) -> np.ndarray | None:
        """The seed labels checked: -1 or a cluster 0..k-1 each, every cluster seeded."""
        seeds = self.params["seed_labels"]
        if seeds is None:
            return None
        n, k = self.X.shape[0], self.params["n_clusters"]
        arr = np.asarray(seeds)
        whole = np.issubdtype(arr.dtype, np.number) and bool(np.all(np.isfinite(arr))) and bool(
            np.all(arr == np.round(arr)))
        if arr.shape != (n,) or not whole:
            raise InvalidInputError(f"seed labels must be {n} whole numbers (one per row of X), "
                                    f"got shape {arr.shape} of {arr.dtype}.")
        arr = arr.astype(np.int64)
        if ((arr < -1) | (arr >= k)).any():
            raise InvalidInputError(f"seed labels must be -1 (unlabelled) or a cluster in "
                                    f"[0, {k - 1}], got {int(arr.max())}: with "
                                    f"{int(arr.max()) + 1} labelled classes, set n_clusters to "
                                    f"at least {int(arr.max()) + 1}.")
        if (arr == -1).all():
            return None
        missing = np.setdiff1d(np.arange(k), arr)
        if missing.size:
            raise InvalidInputError(f"clusters {missing.tolist()} have no seed; Seeded- and "
                                    "Constrained-KMeans start each cluster at its seeds' mean, so "
                                    "label a point of every cluster or lower n_clusters.")
        return arr

    def initialize(self) -> State:
        seeds = self._seeds()
        if seeds is None:
            return super().initialize()
        k = self.params["n_clusters"]
        counts = np.bincount(seeds[seeds >= 0], minlength=k)
        sums = np.zeros((k, self.X.shape[1]))
        np.add.at(sums, seeds[seeds >= 0], self.X[seeds >= 0])
        return self._state(0, sums / counts[:, None])

    def _state(self, iteration: int, centers: np.ndarray) -> State:
        state = super()._state(iteration, centers)
        seeds = self._seeds() if self.clamp_seeds else None
        if seeds is None:
            return state
        labels = np.where(seeds >= 0, seeds, state.labels)
        d2 = _sq_distances(self.X, centers)
        inertia = float(d2[np.arange(labels.size), labels].sum())
        return State(iteration, labels, objective=inertia, objective_name="inertia",
                     model=state.model)


class ConstrainedKMeans(SeededKMeans):
    """Constrained-KMeans: Seeded-KMeans whose seeds never leave their cluster."""

    name = "constrained-kmeans"
    title = "Constrained-KMeans"
    citation = ("Basu, Banerjee & Mooney (2002), Semi-supervised clustering by seeding, ICML "
                "(Constrained-KMeans, section 3)")
    clamp_seeds = True


@hookimpl
def pairlab_algorithms():
    return [SeededKMeans, ConstrainedKMeans]
