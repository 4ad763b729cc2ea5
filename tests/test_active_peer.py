"""Test-only comparison with active-semi-supervised-clustering's query strategies (issue 36).

The peer is never a dependency: these tests skip when it is not installed
(pip install --no-deps active-semi-supervised-clustering). Task and loader:
docs/measurements/active_peer.py (the docs table uses more seeds and both data sets).
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

from pairlab import Constraints, Dataset
from pairlab.registry import get_registry

_SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "docs" / "measurements" / "active_peer.py"


@pytest.fixture(scope="module")
def mod():
    spec = importlib.util.spec_from_file_location("active_peer", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["active_peer"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def peer(mod):
    p = mod.load_peer()
    if p is None:
        pytest.skip("active-semi-supervised-clustering is not installed (optional test-only peer)")
    return p


class _LoggingOracle:
    def __init__(self, oracle):
        self.inner, self.asked = oracle, []
        self.max_queries_cnt = oracle.max_queries_cnt

    def query(self, i, j):
        self.asked.append((int(i), int(j)))
        return self.inner.query(i, j)


@pytest.mark.parametrize("data", ["iris", "wine"])
def test_explore_asks_the_same_pairs_as_the_peer_from_the_same_first_point(mod, peer, data):
    X, y = mod.task(data)
    for seed in range(3):
        np.random.seed(seed)  # noqa: NPY002 (the peer draws its first point from numpy's global rng)
        first = int(np.random.choice(len(y)))  # noqa: NPY002
        np.random.seed(seed)  # noqa: NPY002
        oracle = _LoggingOracle(peer["Oracle"](y, max_queries_cnt=1000))
        peer["ExploreConsolidate"](n_clusters=3)._explore(X, 3, oracle)
        ours = get_registry().query_strategy("explore-consolidate")(Dataset(X, y), 3)
        ours.hoods, ours.placed[first] = [[first]], True
        ours._visit(first)
        asked, links = [], Constraints.empty(len(y))
        while len(ours.hoods) < 3:
            i, j = (int(v) for v in ours.propose(links)[0])
            asked.append((i, j))
            ours.tell((i, j), bool(y[i] == y[j]))
        assert [tuple(sorted(p)) for p in oracle.asked] == asked


def test_explore_consolidate_with_pck_means_is_as_good_as_the_peers_on_iris(mod, peer):
    X, y = mod.task("iris")
    seeds = range(3)
    ours = np.mean([mod.ours(X, y, "explore-consolidate", s)[0][50] for s in seeds])
    theirs = np.mean([mod.peer(X, y, "ExploreConsolidate", 50, s, peer)[0] for s in seeds])
    assert ours >= theirs - 0.1, (ours, theirs)
