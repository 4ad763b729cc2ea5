"""GM-PR with a mixture of Gaussians per class (Yu, Elhabian & Whitaker, section 3.4.1, App. A)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from pairlab import hookimpl
from pairlab.errors import InvalidInputError
from pairlab.mixture import (
    check_covariances,
    initial_parameters,
    kmeans_plusplus,
    nearest_mean_responsibilities,
)
from pairlab.params import Param

from .gmpr import GMPR

__all__ = ["GMPRMixture"]


class GMPRMixture(GMPR):
    """GM-PR whose class densities are Gaussian mixtures: ``m_K`` clusters in class ``m``.

    ``p(x | z = m) = sum_k pi_{m_k} N(x | mu_{m_k}, Sigma_{m_k})`` (eq. 20-21). Links act on the
    class label only; given its class, every point draws its own cluster. E-step: the class
    posteriors of :class:`~pairlab_builtins.algorithms.gmpr.GMPR` with these class densities (eq. 27, 29,
    32), and the cluster posteriors ``p(z = m, y = m_k | ...) = p(z = m | ...) pi_{m_k}
    N(x | m_k) / p(x | m)`` (eq. 26, 28, 31). M-step: eq. 34-37 for means and covariances,
    eq. 40 for ``pi``, eq. 19 for ``alpha``.

    ``n_components`` is the number of classes ``M``; ``n_components_per_class`` is one integer
    or a list of ``M`` (components are stored class by class). ``means_init`` and
    ``covariances_init`` are per component (``K = sum m_K`` rows); ``weights_init`` gives the
    class proportions ``alpha`` (the cluster proportions start at ``1 / m_K``).

    Initialisation (section 4.1): the class-level initialisation of ``gmpr`` (k-means++ means,
    nearest-mean assignment), then, within the points assigned to each class, k-means++ for its
    ``m_K`` cluster means and covariances from the nearest-mean assignment. A class with one
    cluster keeps its class-level mean and covariance, so ``m_K = 1`` is exactly ``gmpr``. A class
    that received fewer than ``m_K`` points seeds from the ``m_K`` points nearest its mean.

    ``covariance_type`` applies per cluster (full, diag, spherical: one per cluster); ``tied``
    shares one matrix over all ``K`` clusters of all classes (the M-step pools eq. 35 over them),
    initialised from the scatter about the nearest of the ``K`` cluster means.

    State: ``model`` adds ``class_of_component`` (K,) and ``component_weights`` (pi, K,) to
    ``gmpr``'s keys (``means`` etc. are per component, ``weights`` per class);
    ``responsibilities`` are class-level (n, M) and ``extras["component_responsibilities"]`` the
    cluster-level ones (n, K).
    """

    name = "gmpr-mixture"
    title = "GM-PR with a mixture of Gaussians per class"
    params: ClassVar[tuple[Param, ...]] = (
        *GMPR.params,
        Param("n_components_per_class", np.ndarray, 2,
              "clusters per class m_K: one integer, or a list with one per class"),
    )

    def _components_per_class(self) -> np.ndarray:
        k = self.params["n_components"]
        value = np.asarray(self.params["n_components_per_class"], dtype=float)
        if value.ndim == 0:
            value = np.full(k, float(value))
        if value.shape != (k,):
            raise InvalidInputError(
                f"n_components_per_class must be one integer or a list of n_components={k} "
                f"integers, got shape {value.shape}."
            )
        if (value < 1).any() or (value != np.round(value)).any():
            raise InvalidInputError(
                f"n_components_per_class must hold whole numbers >= 1, got {value.tolist()}."
            )
        return value.astype(np.int64)

    def _initial_parameters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        p, X = self.params, self.X
        k, n_comp = p["n_components"], int(self.per_class.sum())
        pi = 1.0 / self.per_class[self.class_of_component].astype(float)
        if self.single:
            return super()._initial_parameters()
        alpha = p["weights_init"]
        if alpha is None:
            alpha = np.full(k, 1.0 / k)
        elif np.shape(alpha) != (k,) or (np.asarray(alpha) < 0).any() or not np.isclose(
                np.sum(alpha), 1.0):
            raise InvalidInputError(
                f"weights_init holds the class proportions: {k} non-negative values summing to 1."
            )
        alpha = np.array(alpha, dtype=float)
        flat = {**p, "weights_init": None}
        if p["means_init"] is not None:
            _, means, covs = initial_parameters(X, flat, self.rng, k=n_comp)
            return alpha, means, covs, pi
        if X.shape[0] < n_comp:
            raise InvalidInputError(
                f"{n_comp} components in all exceed the number of points ({X.shape[0]}); lower "
                "n_components or n_components_per_class."
            )
        _, class_means, class_covs = initial_parameters(
            X, {**flat, "covariances_init": None}, self.rng, k=k)
        assigned = nearest_mean_responsibilities(X, class_means).argmax(axis=1)
        tied = self.covariance_type == "tied"
        means, covs = [], []
        for m in range(k):
            mk = int(self.per_class[m])
            if mk == 1:
                means.append(class_means[m:m + 1])
                if not tied:
                    covs.append(class_covs[m:m + 1])
                continue
            pool = X[assigned == m]
            if pool.shape[0] < mk:
                nearest = np.argsort(((X - class_means[m]) ** 2).sum(axis=1), kind="stable")
                pool = X[nearest[:mk]]
            if p["init"] == "random":
                seeds = pool[self.rng.choice(pool.shape[0], size=mk, replace=False)]
            else:
                seeds = kmeans_plusplus(pool, mk, self.rng)
            means.append(seeds)
            if not tied:
                _, _, c = self.gaussian_m_step(pool, nearest_mean_responsibilities(pool, seeds))
                covs.append(c)
        means = np.vstack(means)
        if p["covariances_init"] is not None:
            covs = check_covariances(p["covariances_init"], self.covariance_type, n_comp,
                                     X.shape[1])
        elif tied:  # one matrix: the scatter about the nearest of all K cluster means
            _, _, covs = self.gaussian_m_step(X, nearest_mean_responsibilities(X, means))
        else:
            covs = np.concatenate(covs)
        return alpha, means, covs, pi


@hookimpl
def pairlab_algorithms():
    return [GMPRMixture]
