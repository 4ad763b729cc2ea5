"""TVClust's Gibbs sampler (Khashabi, Wieting, Liu & Liang 2015, section 3.3).

The model (Dirichlet-process mixture of Gaussians plus the random graph of eq. 8 for the links) is
in :mod:`.tvclust_model`. The sampler is Neal's (2000) Algorithm 2 with the link factor of eq. 13:
one step is one sweep that visits the points in a fresh random order and draws

    P(z_i = k)   ∝ n_{-i,k} N(x_i | theta_k) exp(sum_{j in k} W_ij)    (eq. 13: W_ij = c xi1 for
    P(z_i = new) ∝ alpha ∫ N(x_i | theta) dG0(theta)                       a may-link, -c xi2 else)

(a new cluster gets theta drawn from G0's posterior given x_i; a cluster that loses its last point
is gone), then draws every theta_k from its conjugate posterior given its points (section 3.3's
closing sentence). Choices (docs/algorithms/tvclust.md):

* State: ``labels`` the current sample (clusters numbered 0..K-1 in order of creation), or with
  ``labels="consensus"`` Dahl's (2006) least-squares partition among the draws after ``burn_in``
  (the draw closest to the posterior co-clustering frequencies); ``model`` the sampled means,
  covariances and weights n_k / n (for the consensus: posterior means given its partition);
  ``responsibilities`` the conditionals of eq. 13 given all other points, over the current
  clusters (a singleton's own column carries the new-cluster weight; other points' new-cluster
  weight is left out); ``objective`` the log joint log p(x, E, z, theta) in data units.
* The chain has no convergence test: :meth:`converged` is true once ``max_iter`` sweeps are done,
  so drivers stop there without a warning.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pairlab import Constraints, Dataset, Param, State, hookimpl
from pairlab.errors import InvalidInputError
from pairlab.explanation import Bars, Explanation, component_labels
from pairlab.mixture import (
    estimate_log_gaussian,
    kmeans_plusplus,
    log_normalize,
    nearest_mean_responsibilities,
    precision_cholesky,
    weighted_log_prob,
)

from .tvclust_model import MODEL_PARAMS, TVClustModel, _suff_stats, log_crp

__all__ = ["TVClust"]


def _readonly(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.setflags(write=False)


class TVClust(TVClustModel):
    """TVClust by Gibbs sampling (Neal's Algorithm 2 with may-link / may-not-link factors, eq. 13)."""

    name = "tvclust"
    title = "TVClust (Gibbs sampler)"
    fixed_steps = "sweeps"  # a Markov chain has no convergence test (see converged)
    citation = ("Khashabi, Wieting, Liu & Liang (2015), Clustering with side information: from a "
                "probabilistic model to a deterministic algorithm, arXiv:1508.06235, section 3.3")
    params = (
        *MODEL_PARAMS,
        Param("init_clusters", int, 1, "clusters of the starting partition (1: all points together; "
              "k > 1: nearest of k k-means++ seeds)", low=1),
        Param("labels", str, "sample",
              "labels shown: the current sample, or the consensus (Dahl's least-squares partition "
              "among the draws after burn_in)", choices=("sample", "consensus")),
        Param("burn_in", int, 20, "sweeps before draws count towards the consensus", low=0),
        Param("max_iter", int, 200, "number of sweeps", low=1),
    )
    objective_name = "log joint p(x, E, z, theta)"
    phases = ("assignments (eq. 13)", "cluster parameters")

    def __init__(self, dataset: Dataset, constraints: Constraints | None = None,
                 params: Mapping[str, Any] | None = None, rng: np.random.Generator | None = None) -> None:
        super().__init__(dataset, constraints, params, rng)
        self.log_alpha = math.log(self.params["alpha"])
        self.log_new = self.log_alpha + self.base.log_predictive(self.Z)  # new-cluster weights (eq. 13)

    # -- posterior draws of the cluster parameters ------------------------------------------------
    def _draw_theta(self, labels: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
        onehot = np.zeros((labels.size, K))
        onehot[np.arange(labels.size), labels] = 1.0
        post = self.base.posterior(*_suff_stats(self.Z, onehot))
        d = self.Z.shape[1]
        means, prec_chol = np.empty((K, d)), np.empty((K, d, d))
        for k in range(K):
            means[k], prec_chol[k] = self.base.sample(post, k, self.rng)
        return means, prec_chol

    # -- stepper protocol -------------------------------------------------------------------------
    def initialize(self) -> State:
        n = self.dataset.n_samples
        k = self.params["init_clusters"]
        if k > n:
            raise InvalidInputError(f"init_clusters={k} exceeds the number of points ({n}); lower it.")
        if k == 1:
            labels = np.zeros(n, dtype=np.int64)
        else:
            seeds = kmeans_plusplus(self.Z, k, self.rng)
            raw = nearest_mean_responsibilities(self.Z, seeds).argmax(axis=1)
            labels = np.unique(raw, return_inverse=True)[1].astype(np.int64).reshape(-1)
        K = int(labels.max()) + 1
        means, prec_chol = self._draw_theta(labels, K)
        return self._state(0, labels, means, prec_chol, None)

    def half_step(self, state: State) -> State:
        """The sweep of eq. 13 only: new labels; surviving clusters keep their theta, new ones have
        the theta drawn when they opened."""
        z, means, prec_chol = self._assign(state)
        return self._state(state.iteration + 1, z, means, prec_chol, state, phase=self.phases[0])

    def finish_step(self, half: State) -> State:
        """theta | z for every cluster of the half state's sample."""
        z = np.asarray(half.extras["sample"])
        means, prec_chol = self._draw_theta(z, int(half.extras["n_clusters"]))
        return self._state(half.iteration, z, means, prec_chol, half)

    def _assign(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        z = np.array(state.extras["sample"], dtype=np.int64)
        means = np.asarray(state.extras["theta_means"])
        prec_chol = np.asarray(state.extras["theta_prec_chol"])
        return self._sweep(z, means, prec_chol, self.rng.permutation(z.size))

    def _sweep(self, z: np.ndarray, means: np.ndarray, prec_chol: np.ndarray, order: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Draw every z_i (in ``order``) from eq. 13; returns compact labels and the theta of the
        clusters that are left (old ones as they were, new ones as drawn when they opened)."""
        Z, base, rng = self.Z, self.base, self.rng
        n, d = Z.shape
        K = means.shape[0]
        cap = K + max(8, K)
        table = np.empty((n, cap))  # log N(z_i | theta_k); theta_k fixed during the sweep
        table[:, :K] = estimate_log_gaussian(Z, means, prec_chol)
        counts = np.zeros(cap)
        counts[:K] = np.bincount(z, minlength=K)
        log_counts = np.full(cap, -np.inf)
        log_counts[:K] = np.log(counts[:K])  # every cluster of a state is non-empty
        theta_m = np.empty((cap, d))
        theta_m[:K] = means
        theta_p = np.empty((cap, d, d))
        theta_p[:K] = prec_chol
        log_new = self.log_new
        links = self.link_model.links
        if links is not None:
            indptr, indices, weights = links.indptr_list, links.indices, links.data
        zero = np.zeros((1, d, d))
        for i in order.tolist():
            old = z[i]
            counts[old] -= 1.0
            log_counts[old] = math.log(counts[old]) if counts[old] > 0 else -math.inf
            w = log_counts[:K] + table[i, :K]
            if links is not None:
                a, b = indptr[i], indptr[i + 1]
                if b > a:
                    w += np.bincount(z[indices[a:b]], weights[a:b], minlength=K)
            top = max(float(w.max()), log_new[i])
            cum = np.cumsum(np.exp(w - top))
            u = rng.random() * (cum[-1] + math.exp(log_new[i] - top))
            k = int(np.searchsorted(cum, u, side="right"))
            if k >= K:  # a new cluster, theta from G0's posterior given x_i
                post = base.posterior(np.ones(1), Z[i:i + 1], zero)
                mean, P = base.sample(post, 0, rng)
                if K == cap:
                    cap *= 2
                    table = np.hstack([table, np.empty((n, cap - K))])
                    counts = np.r_[counts, np.zeros(cap - K)]
                    log_counts = np.r_[log_counts, np.full(cap - K, -np.inf)]
                    theta_m = np.vstack([theta_m, np.empty((cap - K, d))])
                    theta_p = np.concatenate([theta_p, np.empty((cap - K, d, d))])
                table[:, K] = estimate_log_gaussian(Z, mean[None], P[None])[:, 0]
                theta_m[K], theta_p[K] = mean, P
                k = K
                K += 1
            z[i] = k
            counts[k] += 1.0
            log_counts[k] = math.log(counts[k])
        alive = counts[:K] > 0
        remap = np.cumsum(alive) - 1
        return remap[z].astype(np.int64), theta_m[:K][alive], theta_p[:K][alive]

    # -- states -----------------------------------------------------------------------------------
    def _conditionals(self, z: np.ndarray, table: np.ndarray, field: np.ndarray,
                      counts: np.ndarray) -> np.ndarray:
        """Eq. 13 for every point given all the others, over the current clusters."""
        n = z.size
        rows = np.arange(n)
        others = np.broadcast_to(counts, table.shape).copy()
        others[rows, z] -= 1.0
        with np.errstate(divide="ignore"):
            logp = np.log(others) + table + field
        single = np.flatnonzero(others[rows, z] == 0)
        logp[single, z[single]] = self.log_new[single]
        return log_normalize(logp)[0]

    def _state(self, iteration: int, z: np.ndarray, means: np.ndarray, prec_chol: np.ndarray,
               previous: State | None, phase: str = "") -> State:
        n = z.size
        K = means.shape[0]
        counts = np.bincount(z, minlength=K).astype(float)
        table = estimate_log_gaussian(self.Z, means, prec_chol)
        onehot = np.zeros((n, K))
        onehot[np.arange(n), z] = 1.0
        field = self.link_model.field(onehot)
        rows = np.arange(n)
        log_joint = (float(table[rows, z].sum()) + float(self.base.log_prior(means, prec_chol).sum())
                     + log_crp(counts, self.params["alpha"]) + self.link_model.constant
                     + 0.5 * float(field[rows, z].sum()))
        log_s = self.std.log_scale
        log_joint -= n * self.Z.shape[1] * log_s + K * self.base.log_jacobian(log_s)
        resp = self._conditionals(z, table, field, counts)
        model = {"means": self.std.means_out(means),
                 "covariances": self.std.covariances_out(self.base.covariances(prec_chol)),
                 "weights": counts / n}
        _readonly(z, means, prec_chol)
        extras: dict[str, Any] = {"sample": z, "theta_means": means, "theta_prec_chol": prec_chol,
                                  "n_clusters": K}
        labels = z
        if self.params["labels"] == "consensus":
            labels, model, resp = self._consensus(iteration, z, previous, extras, model, resp,
                                                  record=not phase)
        return State(iteration, labels, responsibilities=resp, objective=log_joint,
                     objective_name=self.objective_name, model=model, extras=extras, phase=phase)

    # -- consensus (Dahl 2006) --------------------------------------------------------------------
    def _consensus(self, iteration: int, z: np.ndarray, previous: State | None, extras: dict,
                   model: dict, resp: np.ndarray, record: bool = True) -> tuple[np.ndarray, dict, np.ndarray]:
        """Keep the draws after burn-in and, for each, S_t = sum over kept draws u of the number of
        ordered pairs (i, j) together in both t and u. With pi the co-clustering frequencies,
        sum_ij (1[z_i = z_j] - pi_ij)^2 = sum_k n_k^2 - 2 S_t / T + const, which picks the draw."""
        kept = previous.extras.get("draws", ()) if previous is not None else ()
        scores = previous.extras.get("agreement", np.zeros(0)) if previous is not None else np.zeros(0)
        if record and iteration >= self.params["burn_in"]:  # whole sweeps only, not half states
            K = int(z.max()) + 1
            overlap = np.array([float((np.bincount(u * K + z, minlength=(int(u.max()) + 1) * K) ** 2).sum())
                                for u in kept])
            own = float((np.bincount(z) ** 2).sum())
            scores = np.r_[scores + overlap, overlap.sum() + own]
            kept = (*kept, z)
        extras["draws"] = kept
        extras["agreement"] = scores
        if not kept:
            return z, model, resp
        T = len(kept)
        loss = np.array([float((np.bincount(u) ** 2).sum()) for u in kept]) - 2.0 * scores / T
        best = kept[int(np.argmin(loss))]
        extras["consensus_draw"] = int(np.argmin(loss))
        # model: posterior means of the parameters given the consensus partition
        K = int(best.max()) + 1
        onehot = np.zeros((best.size, K))
        onehot[np.arange(best.size), best] = 1.0
        post = self.base.posterior(*_suff_stats(self.Z, onehot))
        means, covs = self.base.moments(post)
        model = {"means": self.std.means_out(means), "covariances": self.std.covariances_out(covs),
                 "weights": onehot.sum(axis=0) / best.size}
        return best, model, onehot

    def explain(self, state: State, index: int) -> Explanation:
        """Eq. 13 for point i given every other point of this state's sample: the probability of each
        existing cluster and of a new one (what the next sweep draws from when it visits i, before
        it has moved any other point)."""
        z = np.asarray(state.extras["sample"])
        means = np.asarray(state.extras["theta_means"])
        K = means.shape[0]
        others = np.bincount(z, minlength=K).astype(float)
        others[z[index]] -= 1.0
        log_lik = estimate_log_gaussian(self.Z[index:index + 1], means,
                                        np.asarray(state.extras["theta_prec_chol"]))[0]
        link = np.zeros(K)
        links = self.link_model.links
        if links is not None:
            lo, hi = links.indptr[index], links.indptr[index + 1]
            link = np.bincount(z[links.indices[lo:hi]], links.data[lo:hi], minlength=K)
        with np.errstate(divide="ignore"):
            log_others = np.log(others)  # -inf: no other point in the cluster
            logp = np.append(log_others + log_lik + link, self.log_new[index])
        prob = log_normalize(logp[None, :])[0][0]
        labels = (*component_labels(K), "new")
        return Explanation(
            point=index, phase="sweep",
            equation="eq. 13: P(z_i = k) ∝ n_{-i,k} N(x_i | θ_k) (p/(1−q))^{f_ki} ((1−p)/q)^{s_ik}, "
                     "P(z_i = new) ∝ α ∫ N(x_i | θ) dG0(θ)",
            bars=(Bars("P(z_i = k | the rest)", labels, prob, int(z[index])),
                  Bars("prior: log n_{-i,k} (new: 0)", labels, np.append(log_others, 0.0),
                       int(z[index]), term="prior"),
                  Bars("distance: log N(x_i | θ_k) (new: 0)", labels, np.append(log_lik, 0.0),
                       int(z[index]), term="distance"),
                  Bars("link term f ξ1 − s ξ2 (new: 0)", labels, np.append(link, 0.0), int(z[index]),
                       term="link term"),
                  Bars("new cluster: log α ∫ N dG0", labels,
                       np.append(np.zeros(K), self.log_new[index]), int(z[index]), term="new cluster")),
            text=f"ξ1 = {self.link_model.xi1:.3g}, ξ2 = {self.link_model.xi2:.3g}; the bar marked is the "
                 "point's cluster in the current sample.")

    def converged(self, previous: State, current: State) -> bool:
        """A Markov chain has no convergence test: done after ``max_iter`` sweeps."""
        return current.iteration >= self.params["max_iter"]

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """P(k | x) ∝ w_k N(x | mu_k, Sigma_k) under the state's model (which existing cluster an
        unseen point would join)."""
        m = state.model
        Zx = self.std.transform(X)
        means = (np.asarray(m["means"]) - self.std.center) / self.std.scale
        prec = precision_cholesky(np.asarray(m["covariances"]) / self.std.scale**2)
        return log_normalize(weighted_log_prob(Zx, np.asarray(m["weights"]), means, prec))[0]


@hookimpl
def pairlab_algorithms():
    return [TVClust]
