"""Plain EM iteration against scikit-learn's GaussianMixture iteration (same data, same start)."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from pairlab.bench import BenchCase
from pairlab.dataset import Dataset
from pairlab.mixture import COVARIANCE_TYPES, compact_covariances
from pairlab.run import Run


def blobs(n: int, d: int, k: int, seed: int = 0, std: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``k`` isotropic Gaussian blobs with centres uniform in [-10, 10]^d, and their labels."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-10, 10, size=(k, d))
    y = rng.integers(k, size=n)
    return centers[y] + std * rng.normal(size=(n, d)), y


def sklearn_em_step(X: np.ndarray, model, covariance_type: str = "full"
                    ) -> tuple[Callable[[], object] | None, str]:
    """One scikit-learn GaussianMixture E+M step from ``model``'s parameters, and its name.

    The reference every Gaussian-mixture case compares with; ``None`` without scikit-learn.
    """
    try:
        from sklearn.mixture import GaussianMixture
    except ImportError:
        return None, "scikit-learn unavailable"
    covs = compact_covariances(model["covariances"], covariance_type)
    precisions = np.linalg.inv(covs) if covariance_type in ("full", "tied") else 1.0 / covs
    gm = GaussianMixture(len(model["weights"]), covariance_type=covariance_type, max_iter=1,
                         weights_init=model["weights"], means_init=model["means"],
                         precisions_init=precisions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm.fit(X)

    def step() -> object:
        _, log_resp = gm._e_step(X)
        gm._m_step(X, log_resp)
        return gm

    suffix = "" if covariance_type == "full" else f" ({covariance_type})"
    return step, "scikit-learn GaussianMixture E+M step" + suffix


def cases(quick: bool) -> list[BenchCase]:
    n, d, k = (20_000, 2, 4) if quick else (100_000, 2, 4)
    X, _ = blobs(n, d, k)
    run = Run("gmm", Dataset(X), params={"n_components": k}, seed=0)
    state = run.state
    reference, ref_name = sklearn_em_step(X, state.model)
    out = [BenchCase("gmm-em-iteration", lambda: run.algorithm.step(state), reference,
                     ref_name, n, d, k, 0, goal=1.0, group="gmm")]
    # one EM iteration of each covariance type in ten dimensions, against scikit-learn's same type
    n, d, k = (20_000, 10, 4) if quick else (100_000, 10, 4)
    X, _ = blobs(n, d, k, seed=1)
    for cov_type in COVARIANCE_TYPES:
        run = Run("gmm", Dataset(X), params={"n_components": k, "covariance_type": cov_type},
                  seed=0)
        reference, ref_name = sklearn_em_step(X, run.state.model, cov_type)
        out.append(BenchCase(f"gmm-covariance-{cov_type}-d{d}",
                             lambda r=run, s=run.state: r.algorithm.step(s), reference, ref_name,
                             n, d, k, 0, goal=1.0, group="gmm"))
    return out
