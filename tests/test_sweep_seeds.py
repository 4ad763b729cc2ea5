"""The vectorized trial seeds equal numpy's SeedSequence (grid.trial_seed) bit for bit."""

from __future__ import annotations

import random

import pytest

from pairlab.sweep.grid import trial_seed
from pairlab.sweep.seeds import trial_seeds


def test_trial_seeds_equal_seed_sequence_for_random_inputs():
    rng = random.Random(37)
    for _ in range(200):
        # entropy of 3, 4, 5 and more words: the pool's padding and its extra-words loop
        seed = rng.choice([0, 1, 2**32 - 1, 2**32, rng.randrange(2**32), rng.randrange(2**64),
                           rng.randrange(2**200)])
        name = rng.choice(["", "a", 'data|["iris",{}]', "fit|" + "x" * rng.randrange(50), "é"])
        trials = [0, 1, 2**32 - 1, *(rng.randrange(2**32) for _ in range(4))]
        assert trial_seeds(seed, name, trials) == [trial_seed(seed, name, t) for t in trials]


def test_trial_seeds_of_a_range_and_of_nothing():
    assert trial_seeds(5, "links|x", range(300)) == [trial_seed(5, "links|x", t) for t in range(300)]
    assert trial_seeds(0, "a", []) == []


@pytest.mark.parametrize("seed, trials", [(-1, [0]), (0, [-1]), (0, [2**32]), (0, [[0, 1]])])
def test_trial_seeds_refuse_what_seed_sequence_cannot_take(seed, trials):
    with pytest.raises(ValueError):
        trial_seeds(seed, "a", trials)


def test_a_cells_seeds_of_trials_equal_its_seeds_one_by_one():
    from pairlab.sweep import parse_spec

    spec = parse_spec({"algorithms": [{"name": "kmeans", "params": {"n_clusters": 3}}],
                       "datasets": [{"name": "iris"}], "links": {"generator": "random",
                                                                  "budget": [0, 10]},
                       "trials": 7, "seed": 2**40 + 3})
    for cell in spec.cells():
        assert cell.seeds_of_trials(spec.seed, 7) == [cell.seeds(spec.seed, t) for t in range(7)]
