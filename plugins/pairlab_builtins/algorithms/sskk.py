"""Semi-supervised kernel k-means (SSKK): Kulis, Basu, Dhillon & Mooney (2009).

"Semi-supervised graph clustering: a kernel approach", Machine Learning 74(1):1-22. The
HMRF-k-means objective with constraint penalties scaled by cluster size,

    J(pi) = sum_c sum_{i in c} |phi(x_i) - m_c|^2 - sum_{(i,j) in M, same c} 2 w_ij / |c|
            + sum_{(i,j) in C, same c} 2 w_ij / |c|,

is the kernel k-means objective of the matrix K_tilde = sigma I + K + W, with W_ij = W_ji = w_ij
for a must-link, -w_ij for a cannot-link and 0 otherwise (the paper's reduction; the factor 2 is
the two entries W_ij and W_ji). Adding sigma I changes every partition's objective by the same
sigma (n - k) but makes K_tilde positive semi-definite, so the kernel k-means iterations never
increase it. Each step reassigns every point to the nearest cluster mean in the feature space of
K_tilde:

    d(i, c) = K_ii - 2 sum_{j in c} K_ij / |c| + sum_{j, l in c} K_jl / |c|^2   (K = K_tilde).

Choices where the paper leaves freedom (each also in docs/algorithms/sskk.md): the RBF bandwidth
defaults to GM-PR's (mean squared distance); ``weight`` None is the largest |K_ij| (1 for the
RBF kernel); ``sigma`` None is the smallest shift that makes K_tilde positive
semi-definite; an empty cluster stays empty.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from pairlab import Algorithm, Param, State, hookimpl
from pairlab.errors import InvalidInputError
from pairlab.explanation import Bars, Explanation

from .kernels import KERNELS, kernel_to_points, mean_squared_distance, pairwise_kernel
from .sskk_sparse import (
    dense_row,
    diagonal,
    farthest_first,
    smallest_eigenvalue,
    sparse_farthest_first,
    sparse_kernel,
    spectral_labels,
)

__all__ = ["SSKK", "kernel_kmeans_distances", "kernel_kmeans_objective"]


def _indicator(labels: np.ndarray, k: int) -> np.ndarray:
    Z = np.zeros((labels.size, k))
    Z[np.arange(labels.size), labels] = 1.0
    return Z


def kernel_kmeans_distances(K: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """(n, k) squared feature-space distance of every point to every cluster mean; inf if empty.
    ``K`` may be dense or scipy-sparse."""
    Z = _indicator(labels, k)
    sizes = Z.sum(axis=0)
    KZ = np.asarray(K @ Z)
    within = np.einsum("ic,ic->c", Z, KZ)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = diagonal(K)[:, None] - 2.0 * KZ / sizes + within / sizes**2
    d[:, sizes == 0] = np.inf
    return d


def kernel_kmeans_objective(K: np.ndarray, labels: np.ndarray) -> float:
    """sum_i K_ii - sum_c (1/|c|) sum_{i,j in c} K_ij (empty clusters contribute nothing)."""
    k = int(labels.max()) + 1 if labels.size else 0
    Z = _indicator(labels, k)
    sizes = Z.sum(axis=0)
    within = np.einsum("ic,ic->c", Z, np.asarray(K @ Z))
    used = sizes > 0
    return float(diagonal(K).sum() - (within[used] / sizes[used]).sum())


class SSKK(Algorithm):
    """Semi-supervised kernel k-means on K + W (Kulis et al. 2009, SS-kernel-k-means).

    States: ``labels``; ``model["centers"]`` the input-space mean of each cluster (what the canvas
    can draw; for a non-linear kernel it only locates the cluster); ``objective`` the kernel
    k-means objective of K_tilde = sigma I + K + W, which never increases. ``extras`` hold the
    penalised objective J of the paper and the numbers of violated links.
    """

    name = "sskk"
    title = "SSKK (semi-supervised kernel k-means)"
    citation = ("Kulis, Basu, Dhillon & Mooney (2009), Semi-supervised graph clustering: a kernel "
                "approach, Machine Learning 74(1):1-22")
    accepts_means_init = True
    params = (
        Param("n_clusters", int, 2, "number of clusters k", low=1),
        Param("kernel", str, "rbf",
              "rbf: exp(-|x-y|^2 / bandwidth); linear: x.y (k-means); precomputed: X is the "
              "(n, n) kernel or similarity matrix", choices=KERNELS),
        Param("bandwidth", float, None,
              "RBF bandwidth b; none = mean squared distance between all pairs (GM-PR)",
              low=0.0, low_open=True, nullable=True),
        Param("weight", float, None,
              "link weight w (reward for a must-link, penalty for a cannot-link, times each "
              "link's confidence); none = largest |K_ij| (1 for rbf)", low=0.0, nullable=True),
        Param("sigma", float, None,
              "diagonal shift sigma of K + W; none = smallest value making it positive "
              "semi-definite (so the objective never increases)", low=0.0, nullable=True),
        Param("init", str, "farthest-first",
              "farthest-first: over must-link neighbourhoods, then points (the paper); "
              "k-means++: kernel-space k-means++; spectral: k-means on the k leading eigenvectors "
              "of D^-1/2 (K + W) D^-1/2 (D: the kernel's row sums; recommended with n_neighbors)",
              choices=("farthest-first", "k-means++", "spectral")),
        Param("means_init", np.ndarray, None,
              "initial centres (k, d) in input space (linear or rbf kernel); points start at "
              "the nearest one in feature space", nullable=True),
        Param("max_iter", int, 100, "maximum number of iterations", low=1),
        Param("n_neighbors", int, None,
              "none: dense n x n kernel; k: the kernel kept only on a symmetric k-nearest-neighbour "
              "graph (sparse, memory O(n k)), sigma from a sparse eigensolver", nullable=True, low=1),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.params
        n = self.dataset.n_samples
        if p["n_clusters"] > n:
            raise InvalidInputError(f"n_clusters={p['n_clusters']} exceeds the number of points ({n}).")
        if p["means_init"] is not None and p["kernel"] == "precomputed":
            raise InvalidInputError("means_init needs feature vectors; it cannot be used with "
                                    "kernel='precomputed'.")
        if p["n_neighbors"] is not None:
            self._build_sparse()
            return
        K = pairwise_kernel(self.X, p["kernel"], p["bandwidth"])
        self.bandwidth = p["bandwidth"]
        if p["kernel"] == "rbf" and self.bandwidth is None:
            from .ap_messages import squared_distances

            self.bandwidth = mean_squared_distance(squared_distances(self.X)) or 1.0
        self.K = K
        w = p["weight"] if p["weight"] is not None else float(np.abs(K).max(initial=0.0)) or 1.0
        c = self.constraints
        W = np.zeros_like(K)
        for pairs, conf, sign in ((c.must_link, c.ml_confidence, 1.0),
                                  (c.cannot_link, c.cl_confidence, -1.0)):
            if len(pairs):
                np.add.at(W, (pairs[:, 0], pairs[:, 1]), sign * w * conf)
                np.add.at(W, (pairs[:, 1], pairs[:, 0]), sign * w * conf)
        self.W = W
        KW = K + W
        sigma = p["sigma"]
        if sigma is None:
            lam_min = float(np.linalg.eigvalsh(KW)[0]) if n else 0.0
            sigma = max(0.0, -lam_min)
        self.sigma = float(sigma)
        KW.flat[:: n + 1] += self.sigma
        self.K_tilde = KW
        self.weight = w

    def _build_sparse(self) -> None:
        """K, W and K_tilde as CSR matrices on the kNN graph (see :mod:`.sskk_sparse`)."""
        from .sparse_spectral import pair_matrix

        p = self.params
        K, self.bandwidth = sparse_kernel(self.X, p["kernel"], p["n_neighbors"], p["bandwidth"])
        w = p["weight"] if p["weight"] is not None else float(abs(K).max()) or 1.0
        W = pair_matrix(K.shape[0], self.constraints, w).tocsr()
        KW = (K + W).tocsr()
        sigma = p["sigma"]
        if sigma is None:
            sigma = max(0.0, -smallest_eigenvalue(KW))
        self.K, self.W, self.weight, self.sigma = K, W, w, float(sigma)
        self.K_tilde = (KW + self.sigma * sparse.identity(K.shape[0], format="csr")).tocsr()

    # -- initialisation ------------------------------------------------------------------------
    def _seed_labels(self) -> np.ndarray:
        k = self.params["n_clusters"]
        Kt = self.K_tilde
        means = self.params["means_init"]
        if means is not None:
            means = np.asarray(means, dtype=float)
            if means.shape != (k, self.X.shape[1]):
                raise InvalidInputError(
                    f"means_init must have shape {(k, self.X.shape[1])}, got {means.shape}.")
            kxm = kernel_to_points(self.X, means, self.params["kernel"], self.bandwidth)
            kmm = np.diag(kernel_to_points(means, means, self.params["kernel"], self.bandwidth))
            return np.argmin(kmm[None, :] - 2.0 * kxm, axis=1)
        if self.params["init"] == "spectral":
            # sigma I drops out of the relaxation (it adds sigma k to trace Y'K_tilde Y)
            return spectral_labels(self.K + self.W, np.asarray(self.K.sum(axis=1)).ravel(), k,
                                   self.rng)
        if self.params["init"] == "k-means++":
            seeds = [[int(i)] for i in self._kernel_plusplus(k)]
        else:
            seeds = self._farthest_first(k)
        Z = np.zeros((Kt.shape[0], k))
        for c, members in enumerate(seeds):
            Z[members, c] = 1.0
        sizes = Z.sum(axis=0)
        KZ = Kt @ Z
        d = -2.0 * KZ / sizes + np.einsum("ic,ic->c", Z, KZ) / sizes**2
        labels = np.argmin(d, axis=1)
        for c, members in enumerate(seeds):       # seed members start in their own cluster
            labels[members] = c
        return labels

    def _kernel_plusplus(self, k: int) -> np.ndarray:
        """k-means++ seeding with feature-space distances d(i, j) = K_ii + K_jj - 2 K_ij."""
        Kt = self.K_tilde
        n = Kt.shape[0]
        diag = diagonal(Kt)
        chosen = [int(self.rng.integers(n))]
        sq = np.maximum(diag + diag[chosen[0]] - 2 * dense_row(Kt, chosen[0]), 0.0)
        for _ in range(1, k):
            total = sq.sum()
            if total <= 0:
                nxt = int(self.rng.integers(n))
            else:
                nxt = int(min(np.searchsorted(np.cumsum(sq), self.rng.random() * total), n - 1))
            chosen.append(nxt)
            sq = np.minimum(sq, np.maximum(diag + diag[nxt] - 2 * dense_row(Kt, nxt), 0.0))
        return np.array(chosen)

    def _farthest_first(self, k: int) -> list[np.ndarray]:
        """The paper's initialisation: farthest-first traversal over the must-link neighbourhoods
        (the largest first); with fewer than k neighbourhoods, all of them and then farthest-first
        over the remaining single points (the first point drawn at random when there are no
        neighbourhoods). Distances are between means in the feature space of K_tilde.
        """
        hoods = sorted(self.constraints.chunklets, key=lambda g: (-g.size, int(g[0])))
        covered = np.zeros(self.K_tilde.shape[0], dtype=bool)
        for g in hoods:
            covered[g] = True
        if len(hoods) >= k:
            candidates, chosen = hoods, [0]
        else:
            candidates = hoods + [np.array([i]) for i in np.flatnonzero(~covered)]
            chosen = list(range(len(hoods))) or [int(self.rng.integers(len(candidates)))]
        Kt = self.K_tilde
        if sparse.issparse(Kt):
            return [candidates[c] for c in sparse_farthest_first(Kt, candidates, chosen, k)]
        Z = np.zeros((Kt.shape[0], len(candidates)))
        for c, g in enumerate(candidates):
            Z[g, c] = 1.0 / g.size
        KZ = Kt @ Z
        norms = np.einsum("ic,ic->c", Z, KZ)               # |m_c|^2

        def dist(c: int) -> np.ndarray:                    # |m_x - m_c|^2 for every candidate x
            return norms + norms[c] - 2.0 * (Z[:, c] @ KZ)

        return [candidates[c] for c in farthest_first(dist, chosen, k)]

    # -- states ------------------------------------------------------------------------------------
    def _state(self, iteration: int, labels: np.ndarray,
               assigned_from: np.ndarray | None = None) -> State:
        k = self.params["n_clusters"]
        labels = labels.astype(np.int64)
        centers = np.zeros((k, self.X.shape[1]))
        counts = np.bincount(labels, minlength=k)
        np.add.at(centers, labels, self.X)
        centers /= np.maximum(counts, 1)[:, None]
        c = self.constraints
        broken_ml = int(np.sum(labels[c.must_link[:, 0]] != labels[c.must_link[:, 1]]))
        broken_cl = int(np.sum(labels[c.cannot_link[:, 0]] == labels[c.cannot_link[:, 1]]))
        objective = kernel_kmeans_objective(self.K_tilde, labels)
        n_used = int(np.count_nonzero(counts))
        model = {} if self.params["kernel"] == "precomputed" else {"centers": centers}
        return State(iteration, labels, objective=objective,
                     objective_name="kernel k-means objective of sigma I + K + W",
                     model=model,
                     extras={"penalised_objective": objective - self.sigma * (len(labels) - n_used),
                             "sigma": self.sigma, "weight": self.weight,
                             "broken_must_links": broken_ml, "broken_cannot_links": broken_cl,
                             "cluster_sizes": counts,
                             **({} if assigned_from is None else {"assigned_from": assigned_from})})

    def initialize(self) -> State:
        return self._state(0, self._seed_labels())

    def step(self, state: State) -> State:
        d = kernel_kmeans_distances(self.K_tilde, state.labels, self.params["n_clusters"])
        labels = np.argmin(d, axis=1)
        return self._state(state.iteration + 1, labels, state.labels)

    def explain(self, state: State, index: int) -> Explanation:
        """The feature-space distance behind the assignment, split into the kernel's, the links'
        and the shift's parts (d is linear in the matrix K_tilde = sigma I + K + W)."""
        k = self.params["n_clusters"]
        source = state.extras.get("assigned_from")
        first = source is None
        labels = np.asarray(state.labels if first else source)
        Z = _indicator(labels, k)
        sizes = Z.sum(axis=0)
        own = Z[index]

        def part(M: np.ndarray) -> np.ndarray:
            within = np.einsum("ic,ic->c", Z, np.asarray(M @ Z))
            row = dense_row(M, index)
            with np.errstate(divide="ignore", invalid="ignore"):
                d = row[index] - 2.0 * (row @ Z) / sizes + within / sizes**2
            return np.where(sizes > 0, d, np.inf)

        d_k, d_w = part(self.K), part(self.W)
        with np.errstate(divide="ignore", invalid="ignore"):
            d_s = np.where(sizes > 0, self.sigma * (1.0 - 2.0 * own / sizes + 1.0 / sizes), np.inf)
        total = d_k + d_w + d_s
        best = int(state.labels[index]) if first else int(np.argmin(total))
        names = tuple(f"k={c}" for c in range(k))
        decided = "" if first else "by"  # the seeding, not these distances, gave the first labels
        bars = (Bars("d(i, c) in the space of σI + K + W", names, total, best, lower_is_better=True),
                Bars("distance: kernel part", names, d_k, best, True, term=decided and "distance"),
                Bars("link term: W part (−2 Σ_j∈c W_ij / |c| + Σ_jl∈c W_jl / |c|²)", names, d_w,
                     best, True, term=decided and "link term"),
                Bars("σ shift (same for every partition)", names, d_s, best, True,
                     term=decided and "shift"))
        when = ("The seeding chose this label; these are the distances the first step compares."
                if first else "Distances to the clusters of the previous iteration.")
        return Explanation(index, "assign points",
                           "z_i = argmin_c K̃_ii − 2 Σ_{j∈c} K̃_ij / |c| + Σ_{j,l∈c} K̃_jl / |c|², "
                           "K̃ = σI + K + W (Kulis et al., kernel k-means on K + W)", bars,
                           text=when + f" Cluster sizes: {sizes.astype(int).tolist()}.")

    def converged(self, previous: State, current: State) -> bool:
        return bool(np.array_equal(previous.labels, current.labels))


@hookimpl
def pairlab_algorithms():
    return [SSKK]
