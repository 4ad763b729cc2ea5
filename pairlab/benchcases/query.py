"""Proposing the next pair to ask about (issue 36): every registered query strategy.

Data: n points in 5 Gaussian blobs in 5-D, 1,000 random links typed by the blobs, and the state of a
fitted ``gmm`` (5 components, 20 iterations; the uncertainty strategy reads its posteriors, the
others ignore it). A case times a fresh strategy's first proposal, its set-up included (distances,
neighbourhoods, candidate points). Goal: under 100 ms at n = 20,000 for every strategy.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from pairlab.bench import BenchCase

GOAL_SECONDS = 0.1
K = 5


@functools.cache
def _problem(n: int, n_links: int) -> tuple[Any, Any, Any]:
    from pairlab.dataset import Dataset
    from pairlab.links import draw_links
    from pairlab.run import Run

    rng = np.random.default_rng(0)
    y = rng.integers(K, size=n)
    X = rng.normal(scale=6.0, size=(K, 5))[y] + rng.normal(size=(n, 5))
    data = Dataset(X, y)
    links = draw_links(data, "pairs", {"n_pairs": n_links}, np.random.default_rng(1))
    run = Run("gmm", data, None, {"n_components": K, "max_iter": 20}, seed=0)
    run.run()
    return data, links, run.state


def _propose(name: str, n: int, n_links: int) -> object:
    from pairlab.registry import get_registry

    data, links, state = _problem(n, n_links)
    strategy = get_registry().query_strategy(name)(data, K, {}, np.random.default_rng(2))
    return strategy.propose(links, state)


def cases(quick: bool) -> list[BenchCase]:
    from pairlab.registry import get_registry

    n, n_links = (2_000, 100) if quick else (20_000, 1_000)
    return [BenchCase(f"query-{name}", functools.partial(_propose, name, n, n_links), None,
                      "a fresh strategy's first proposal (set-up included)", n, 5, K, n_links,
                      group="active selection", goal_seconds=GOAL_SECONDS)
            for name in get_registry().names("query_strategies")]
