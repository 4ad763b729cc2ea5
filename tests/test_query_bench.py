"""The query bench cases (issue 36): later proposals are timed after the strategy's own queries."""

import pytest

from pairlab.benchcases import query


def test_quick_cases_time_first_and_later_proposals_of_every_strategy():
    names = {c.name for c in query.cases(True)}
    for s in ("random", "explore-consolidate", "minmax", "npu", "uncertainty"):
        assert {f"query-{s}", f"query-{s}-after-100"} <= names


@pytest.mark.parametrize("name", ["explore-consolidate", "npu", "uncertainty"])
def test_a_later_proposal_follows_100_distinct_answered_queries_and_asks_a_new_pair(name):
    strategy, links, _ = query._driven(name, 2_000, 100)
    asked = {tuple(p) for p in links.must_link.tolist() + links.cannot_link.tolist()}
    assert len(asked) == 100 and links.n_samples == 2_000
    if hasattr(strategy, "hoods"):
        assert len(strategy.hoods) == query.K  # the Explore phase is over: a later proposal
    pair = query._propose_later(name, 2_000, 100)
    assert pair.shape == (1, 2) and tuple(sorted(pair[0].tolist())) not in asked
