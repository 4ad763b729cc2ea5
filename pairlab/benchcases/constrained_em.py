"""Constrained EM iteration with n/10 cannot-links against a plain GMM iteration (issue 4: goal 5x)."""

from __future__ import annotations

import numpy as np

from pairlab.bench import BenchCase
from pairlab.benchcases.gmm import blobs
from pairlab.dataset import Dataset
from pairlab.links import random_pairs
from pairlab.run import Run


def _case(name: str, n: int, n_ml: int, n_cl: int, goal: float | None, **params: object
          ) -> BenchCase:
    d, k = 2, 4
    X, y = blobs(n, d, k)
    cons = random_pairs(y, n_ml, n_cl, np.random.default_rng(1))
    data = Dataset(X)
    subject = Run("constrained-em", data, cons, params={"n_components": k, **params}, seed=0)
    reference = Run("gmm", data, params={"n_components": k}, seed=0)
    s_state, r_state = subject.state, reference.state  # the same start (same seed, same init)
    return BenchCase(name, lambda: subject.algorithm.step(s_state),
                     lambda: reference.algorithm.step(r_state), "plain GMM EM iteration (gmm)",
                     n, d, k, n_ml + n_cl, goal=goal, group="constrained-em")


def cases(quick: bool) -> list[BenchCase]:
    n = 20_000
    out = [_case("constrained-em-cannot-links", n, 0, n // 10, 5.0)]
    if not quick:
        out += [
            _case("constrained-em-cannot-links-pseudo", n, 0, n // 10, 5.0, normalizer="pseudo"),
            _case("constrained-em-mixed-links-assumption-2", n, n // 10, n // 10, None,
                  sampling_assumption=2),
            _case("constrained-em-cannot-links-100k", 100_000, 0, 10_000, 5.0),
        ]
    return out
