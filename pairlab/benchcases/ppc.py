"""PPC with mean field on an image grid (Lu & Leen section 5.2.2) against a plain GMM iteration."""

from __future__ import annotations

import numpy as np

from pairlab.bench import BenchCase
from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.run import Run


def texture_grid(side: int, d: int = 5, k: int = 4, seed: int = 0
                 ) -> tuple[np.ndarray, np.ndarray, Constraints, float]:
    """A side x side "image" of k textured regions (block features), its 4-neighbour links and
    the weight of eq. 5.2, w = 1/2 log((1 - q) / q), q = share of linked pairs across regions."""
    rng = np.random.default_rng(seed)
    r, c = np.divmod(np.arange(side * side), side)
    # quadrants with a wavy border, like the paper's four Brodatz textures
    wave = (side / 8 * np.sin(2 * np.pi * r / side)).astype(int)
    labels = (2 * (r >= side // 2) + ((c + wave) >= side // 2)).astype(int) % k
    centers = rng.normal(scale=1.5, size=(k, d))
    mix = rng.normal(size=(k, d, d)) * 0.6 + np.eye(d)
    X = centers[labels] + np.einsum("nij,nj->ni", mix[labels], rng.normal(size=(side * side, d)))
    idx = np.arange(side * side).reshape(side, side)
    pairs = np.vstack([np.column_stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()]),
                       np.column_stack([idx[:-1].ravel(), idx[1:].ravel()])])
    q = float(np.mean(labels[pairs[:, 0]] != labels[pairs[:, 1]]))
    w = 0.5 * np.log((1 - q) / q)
    return X, labels, Constraints(pairs, n_samples=side * side), w


def cases(quick: bool) -> list[BenchCase]:
    side, d, k = (64, 5, 4) if quick else (128, 5, 4)
    X, _, cons, w = texture_grid(side, d, k)
    data = Dataset(X)
    gmm = Run("gmm", data, params={"n_components": k}, seed=0)
    start = gmm.state.model
    init = {"n_components": k, "weights_init": start["weights"], "means_init": start["means"],
            "covariances_init": start["covariances"]}
    ppc = Run("ppc", data, cons, params={**init, "inference": "mean-field", "must_link_weight": w},
              seed=0)
    ppc_state, gmm_state = ppc.state, gmm.state
    return [BenchCase("ppc-mean-field-grid-iteration", lambda: ppc.algorithm.step(ppc_state),
                      lambda: gmm.algorithm.step(gmm_state), "plain GMM EM iteration (gmm plugin)",
                      side * side, d, k, cons.n_must_link, goal=5.0, group="ppc")]
