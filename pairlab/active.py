"""The oracle loop: ask a query strategy for pairs, answer, refit, record the metric (issue 36).

Answers come from the true labels (optionally through a noise model of :mod:`pairlab.links`) or
from a callable ``oracle(i, j) -> bool`` (True for must-link), e.g. a person. The same seed gives
the same queries, answers and scores bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .algorithm import Algorithm
from .constraints import Constraints
from .dataset import Dataset
from .errors import InvalidInputError
from .links import NOISE_MODELS, add_noise
from .query import QueryStrategy

__all__ = ["ActiveResult", "active_learn"]


@dataclass
class ActiveResult:
    """What the loop asked and measured: ``scores[t]`` after ``n_queries[t]`` answers."""

    pairs: list[tuple[int, int]] = field(default_factory=list)
    answers: list[bool] = field(default_factory=list)
    n_queries: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    links: Constraints | None = None


def _links(n: int, pairs: list[tuple[int, int]], answers: list[bool]) -> Constraints:
    ml = [p for p, a in zip(pairs, answers, strict=True) if a]
    cl = [p for p, a in zip(pairs, answers, strict=True) if not a]
    return Constraints(ml or None, cl or None, n_samples=n)


def _noisy(i: int, j: int, truth: bool, n: int, noise: str, level: Any,
           rng: np.random.Generator) -> bool:
    one = Constraints([(i, j)] if truth else None, None if truth else [(i, j)], n_samples=n)
    return add_noise(one, noise, level, rng).n_must_link == 1


def active_learn(algorithm: str | type[Algorithm], dataset: Dataset | str,
                 strategy: str | type[QueryStrategy], budget: int, *,
                 params: Mapping[str, Any] | None = None, strategy_params: Mapping[str, Any] | None = None,
                 n_clusters: int | None = None, seed: int = 0, batch: int = 1,
                 metric: str = "ari", oracle: Callable[[int, int], bool] | None = None,
                 noise: str | None = None, level: Any = None, registry: Any = None,
                 max_iter: int | None = None,
                 on_fit: Callable[[Any, Constraints], None] | None = None) -> ActiveResult:
    """Ask ``budget`` pairs, ``batch`` at a time, refitting ``algorithm`` after each batch.

    ``n_clusters`` defaults to the number of classes of the data set's labels. Seeds: the strategy
    draws from ``seed``, the answer noise from ``seed + 1``, every fit uses ``seed``. ``max_iter``
    limits every fit; ``on_fit(run, links)`` is called after every fit (the sweep engine records
    its metrics there).
    """
    from .registry import get_registry
    from .run import Run

    reg = registry or get_registry()
    if isinstance(dataset, str):
        dataset = reg.dataset(dataset).make(seed)
    if isinstance(strategy, str):
        strategy = reg.query_strategy(strategy)
    if isinstance(algorithm, str):
        algorithm = reg.algorithm(algorithm)
    m = reg.metric(metric)
    y = None if dataset.y is None else np.asarray(dataset.y)
    if oracle is None and y is None:
        raise InvalidInputError(f"data set {dataset.name!r} has no labels: give an oracle callable")
    if (m.needs_truth and y is None) or (noise is not None and noise not in NOISE_MODELS):
        raise InvalidInputError(f"metric {metric!r} needs labels, or noise {noise!r} is unknown "
                                f"(choose one of {', '.join(NOISE_MODELS)})")
    if isinstance(budget, bool) or int(budget) != budget or budget < 0:
        raise InvalidInputError(f"budget must be a whole number >= 0, got {budget!r}.")
    if n_clusters is None:
        if y is None:
            raise InvalidInputError("give n_clusters: the data set has no labels to count")
        n_clusters = int(np.unique(y).size)
    n = dataset.n_samples
    strat = strategy(dataset, n_clusters, dict(strategy_params or {}), np.random.default_rng(seed))
    noise_rng = np.random.default_rng(seed + 1)
    out = ActiveResult()

    def fit(links: Constraints) -> Any:
        run = Run(algorithm, dataset, links, dict(params or {}), seed=seed, registry=reg)
        state = run.run(max_iter)
        args = [y, state.labels] + ([links] if m.needs_constraints else [])
        out.n_queries.append(len(out.pairs))
        out.scores.append(float(m.func(*args)))
        if on_fit is not None:
            on_fit(run, links)
        return state

    links = Constraints.empty(n)
    state = fit(links)
    while len(out.pairs) < budget:
        k = min(batch, budget - len(out.pairs))
        proposed = strat.propose(links, state if strat.uses_model else None, k)
        out.reasons.append(strat.reason)
        for i, j in np.asarray(proposed, dtype=np.int64).reshape(-1, 2).tolist():
            if oracle is not None:
                answer = bool(oracle(i, j))
            else:
                answer = bool(y[i] == y[j])  # type: ignore[index]
                if noise is not None:
                    answer = _noisy(i, j, answer, n, noise, level, noise_rng)
            strat.tell((i, j), answer)
            out.pairs.append((i, j))
            out.answers.append(answer)
        links = _links(n, out.pairs, out.answers)
        state = fit(links)
    out.links = links
    return out
