"""The oracle loop pairlab.active.active_learn (issue 36)."""

from __future__ import annotations

import numpy as np
import pytest

from pairlab.active import active_learn
from pairlab.dataset import Dataset
from pairlab.errors import InvalidInputError


def _blobs() -> Dataset:
    rng = np.random.default_rng(7)
    centres = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 2.0]])
    x = np.concatenate([c + 0.8 * rng.normal(size=(10, 2)) for c in centres])
    return Dataset(x, np.repeat(np.arange(3), 10), name="blobs")


PCK = ("pck-means", {"n_clusters": 3})


@pytest.mark.parametrize("strategy", ["random", "explore-consolidate", "minmax", "npu"])
def test_same_seed_same_result_and_true_answers(strategy: str) -> None:
    ds = _blobs()
    a = active_learn(PCK[0], ds, strategy, 6, params=PCK[1], seed=3)
    b = active_learn(PCK[0], ds, strategy, 6, params=PCK[1], seed=3)
    assert a.pairs == b.pairs and a.answers == b.answers and a.scores == b.scores
    assert a.n_queries == list(range(7)) and len(a.scores) == 7
    assert a.answers == [bool(ds.y[i] == ds.y[j]) for i, j in a.pairs]
    assert len(a.links) == 6


def test_uncertainty_with_a_posterior_model_and_batches() -> None:
    ds = _blobs()
    r = active_learn("gmpr", ds, "uncertainty", 6, params={"n_components": 3}, seed=1, batch=3)
    assert r.n_queries == [0, 3, 6]
    assert "information gain" in r.reasons[0]


def test_person_oracle_and_noise() -> None:
    ds = _blobs()
    asked = []

    def person(i: int, j: int) -> bool:
        asked.append((i, j))
        return False

    r = active_learn(PCK[0], ds, "random", 4, params=PCK[1], oracle=person)
    assert r.pairs == asked and r.answers == [False] * 4
    flipped = active_learn(PCK[0], ds, "random", 30, params=PCK[1], noise="flip-fraction", level=1.0)
    assert flipped.answers == [not bool(ds.y[i] == ds.y[j]) for i, j in flipped.pairs]


def test_bad_input() -> None:
    ds = _blobs()
    with pytest.raises(InvalidInputError, match="budget"):
        active_learn(PCK[0], ds, "random", -1, params=PCK[1])
    with pytest.raises(InvalidInputError, match="noise"):
        active_learn(PCK[0], ds, "random", 2, params=PCK[1], noise="nope", level=0.1)
    with pytest.raises(InvalidInputError, match="label posteriors"):
        active_learn(PCK[0], ds, "uncertainty", 2, params=PCK[1])
