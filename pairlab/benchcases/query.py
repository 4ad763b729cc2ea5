"""Proposing the next pair to ask about (issue 36): every registered query strategy.

Data: n points in 5 Gaussian blobs in 5-D, 1,000 random links typed by the blobs, and the state of a
fitted ``gmm`` (5 components, 20 iterations; the uncertainty strategy reads its posteriors, the
others ignore it). ``query-NAME`` times a fresh strategy's first proposal, its set-up included
(distances, neighbourhoods, candidate points). ``query-NAME-after-L`` times a later proposal: the
strategy has asked L = 100 or 1,000 pairs of its own, answered from the blobs (so Explore-Consolidate
and MinMax have placed their points, NPU its neighbourhoods), and proposes a new point's pair
given those L links (the driving is set-up, not timed; each timed call starts a new point).
Goal: under 100 ms at n = 20,000 for every strategy.
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


@functools.cache
def _driven(name: str, n: int, asked: int) -> tuple[Any, Any, Any]:
    """A strategy after ``asked`` of its own queries answered from the blobs, and its links."""
    from pairlab.constraints import Constraints
    from pairlab.registry import get_registry

    data, _, state = _problem(n, 0)
    strategy = get_registry().query_strategy(name)(data, K, {}, np.random.default_rng(2))
    ml: list[tuple[int, int]] = []
    cl: list[tuple[int, int]] = []
    links = Constraints.empty(n)
    # strategies that keep neighbourhoods ask one pair per point step; the stateless ones (random,
    # uncertainty) are driven in batches of asked / 20 (the links are rebuilt after each batch)
    batch = max(1, asked // 20) if name in ("random", "uncertainty") else 1
    while len(ml) + len(cl) < asked:
        for i, j in strategy.propose(links, state, min(batch, asked - len(ml) - len(cl))).tolist():
            same = bool(data.y[i] == data.y[j])
            strategy.tell((i, j), same)
            (ml if same else cl).append((i, j))
        if batch > 1:
            links = Constraints(ml or None, cl or None, n_samples=n)
    return strategy, Constraints(ml or None, cl or None, n_samples=n), state


def _propose_later(name: str, n: int, asked: int) -> object:
    strategy, links, state = _driven(name, n, asked)
    if getattr(strategy, "pending", None) is not None:
        strategy.pending = None  # a new point to place (its selection is the costly step)
    return strategy.propose(links, state)


def cases(quick: bool) -> list[BenchCase]:
    from pairlab.registry import get_registry

    n, n_links = (2_000, 100) if quick else (20_000, 1_000)
    names = get_registry().names("query_strategies")
    out = [BenchCase(f"query-{name}", functools.partial(_propose, name, n, n_links), None,
                     "a fresh strategy's first proposal (set-up included)", n, 5, K, n_links,
                     group="active selection", goal_seconds=GOAL_SECONDS) for name in names]
    for asked in (100,) if quick else (100, 1_000):
        out += [BenchCase(f"query-{name}-after-{asked}",
                          functools.partial(_propose_later, name, n, asked), None,
                          f"a proposal after {asked} of its own queries", n, 5, K, asked,
                          group="active selection", goal_seconds=GOAL_SECONDS) for name in names]
    return out
