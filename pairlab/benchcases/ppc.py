"""PPC with mean field on an image grid (Lu & Leen section 5.2.2) against a plain GMM iteration."""

from __future__ import annotations

from collections.abc import Callable

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


def gibbs_vs_mean_field(side: int = 128, info: dict | None = None, iterations: int = 20
                        ) -> tuple[Callable[[], None], Callable[[], None]]:
    """Section 5.2.2's comparison: PPC runs of ``iterations`` EM iterations (tol 0, so both do
    the same number) with Gibbs sampling (eq. 3.1, the defaults: 50 burn-in + 200 averaged sweeps
    per E-step) and with mean field (eq. 3.5) from the same start; ``info`` gets accuracy (best
    matching) and ARI against the regions, and the ARI between the two."""
    from pairlab.metrics import accuracy, adjusted_rand

    X, truth, cons, w = texture_grid(side)
    data = Dataset(X)
    start = Run("gmm", data, params={"n_components": 4}, seed=0).state.model
    init = {"n_components": 4, "weights_init": start["weights"], "means_init": start["means"],
            "covariances_init": start["covariances"], "must_link_weight": w, "tol": 0.0,
            "max_iter": iterations}
    labels: dict[str, np.ndarray] = {}
    info = {} if info is None else info

    def run(inference: str) -> None:
        r = Run("ppc", data, cons, params={**init, "inference": inference}, seed=0)
        r.run()
        labels[inference] = r.state.labels
        info[f"{inference} ARI"] = round(adjusted_rand(truth, r.state.labels), 3)
        info[f"{inference} accuracy"] = round(accuracy(truth, r.state.labels), 3)
        if len(labels) == 2:
            info["ARI gibbs vs mean field"] = round(
                adjusted_rand(labels["gibbs"], labels["mean-field"]), 3)

    return (lambda: run("gibbs")), (lambda: run("mean-field"))


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
    out = [BenchCase("ppc-mean-field-grid-iteration", lambda: ppc.algorithm.step(ppc_state),
                     lambda: gmm.algorithm.step(gmm_state), "plain GMM EM iteration (gmm plugin)",
                     side * side, d, k, cons.n_must_link, goal=5.0, group="ppc")]
    if not quick:  # the paper: 160 min (Gibbs) against 3.1 min (mean field), about 52x
        info: dict = {}
        gibbs, mean_field = gibbs_vs_mean_field(side, info)
        out.append(BenchCase("ppc-gibbs-vs-mean-field-run", gibbs, mean_field,
                             "20 EM iterations with mean field (5.2.2)", side * side, d, k,
                             cons.n_must_link, group="ppc", repeats=1, info=info))
    return out
