"""GM-PR iterations: without links against scikit-learn's GaussianMixture, with n/10 must-links
and n/10 cannot-links against GM-PR without links (same data, same start); GM-PR with three
Gaussians per class on a problem the size of Fig. 10's digits against GM-PR with one."""

from __future__ import annotations

import numpy as np

from pairlab.bench import BenchCase
from pairlab.benchcases.gmm import blobs, sklearn_em_step
from pairlab.dataset import Dataset
from pairlab.links import random_pairs, random_pairs_count
from pairlab.run import Run


def cases(quick: bool) -> list[BenchCase]:
    n, d, k = (20_000, 2, 4) if quick else (100_000, 2, 4)
    X, y = blobs(n, d, k)
    data = Dataset(X)
    plain = Run("gmpr", data, params={"n_components": k}, seed=0)
    plain_state = plain.state
    m = plain_state.model
    start = {"n_components": k, "weights_init": m["weights"], "means_init": m["means"],
             "covariances_init": m["covariances"]}
    links = random_pairs(y, n // 10, n // 10, np.random.default_rng(0))
    linked = Run("gmpr", data, links, params=start, seed=0)
    linked_state = linked.state
    out = []
    reference, ref_name = sklearn_em_step(X, m)
    out.append(BenchCase("gmpr-em-iteration-no-links", lambda: plain.algorithm.step(plain_state),
                         reference, ref_name, n, d, k, 0, goal=1.0, group="gmpr"))
    out.append(BenchCase("gmpr-em-iteration-links", lambda: linked.algorithm.step(linked_state),
                         lambda: plain.algorithm.step(plain_state),
                         "GM-PR EM iteration without links", n, d, k, len(links), goal=2.0,
                         group="gmpr"))
    # m_K = 3 (gmpr-mixture) at the size of Fig. 10's digits {1, 2, 3}: 540 points in 2-D, 3
    # classes, 256 random pairs typed by the labels (issue 19 reported ~1 s per EM iteration
    # there). Both steps' time is the link structure's (the class-proportion update over the
    # cannot-link components, shared with m_K = 1), so the goal: the mixture adds at most half
    Xm, ym = blobs(540, 2, 3, seed=1, std=3.0)
    small = Dataset(Xm)
    pairs = random_pairs_count(ym, 256, np.random.default_rng(1))
    mixture = Run("gmpr-mixture", small, pairs,
                  params={"n_components": 3, "n_components_per_class": 3}, seed=0)
    single = Run("gmpr", small, pairs, params={"n_components": 3}, seed=0)
    mixture_state, single_state = mixture.state, single.state
    out.append(BenchCase("gmpr-mixture-em-iteration-links",
                         lambda: mixture.algorithm.step(mixture_state),
                         lambda: single.algorithm.step(single_state),
                         "GM-PR (m_K = 1) EM iteration, same links", 540, 2, 9, len(pairs),
                         goal=1.5, group="gmpr"))
    return out
