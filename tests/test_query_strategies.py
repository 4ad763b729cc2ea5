"""Query strategies (issue 36) checked against their papers' definitions by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.errors import InvalidInputError
from pairlab.links import draw_links
from pairlab.query import binary_entropy
from pairlab.registry import get_registry
from pairlab.state import State


def _blobs(n_per: int = 8, seed: int = 3) -> Dataset:
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    x = np.concatenate([c + rng.normal(size=(n_per, 2)) for c in centres])
    return Dataset(x, np.repeat(np.arange(3), n_per), name="blobs")


def _strategy(name: str, ds: Dataset, seed: int = 0, **params):
    return get_registry().query_strategy(name)(ds, 3, params, np.random.default_rng(seed))


def test_registered_through_the_hook() -> None:
    names = get_registry().names("query_strategies")
    assert names == ["random", "explore-consolidate", "minmax", "npu", "uncertainty"]


@pytest.mark.parametrize("budget", [1, 7, 40])
def test_random_batch_equals_todays_draw_links(budget: int) -> None:
    ds = _blobs()
    pairs = _strategy("random", ds, seed=11).propose(Constraints.empty(ds.n_samples), batch=budget)
    links = draw_links(ds, "pairs", {"n_pairs": budget}, np.random.default_rng(11))
    y = ds.y
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    want = Constraints(pairs[same] if same.any() else None, pairs[~same] if (~same).any() else None,
                       n_samples=ds.n_samples)
    assert want == links


def test_random_never_repeats_an_asked_pair() -> None:
    ds = Dataset(np.arange(8.0).reshape(4, 2), np.array([0, 0, 1, 1]))
    links = Constraints([(0, 1), (2, 3)], [(0, 2), (1, 3)], n_samples=4)
    got = _strategy("random", ds).propose(links, batch=2)
    assert {tuple(p) for p in got.tolist()} == {(0, 3), (1, 2)}
    with pytest.raises(InvalidInputError):
        _strategy("random", ds).propose(links, batch=3)


def _answer(strat, ds: Dataset, links: Constraints) -> tuple[Constraints, tuple[int, int], bool]:
    (i, j), = strat.propose(links).tolist()
    ml = bool(ds.y[i] == ds.y[j])
    strat.tell((i, j), ml)
    pairs = [*map(tuple, links.must_link.tolist()), *map(tuple, links.cannot_link.tolist())]
    kinds = [True] * links.n_must_link + [False] * links.n_cannot_link
    pairs.append((i, j))
    kinds.append(ml)
    mls = [p for p, k in zip(pairs, kinds, strict=True) if k]
    cls = [p for p, k in zip(pairs, kinds, strict=True) if not k]
    return Constraints(mls or None, cls or None, n_samples=ds.n_samples), (i, j), ml


@pytest.mark.parametrize("name", ["explore-consolidate", "minmax"])
def test_explore_is_farthest_first_and_finds_one_point_per_cluster(name: str) -> None:
    """Basu et al. 2004 sec. 5.1: each explored point maximises the distance to its nearest
    traversed point (brute force), and K well-separated clusters give K neighbourhoods."""
    ds = _blobs()
    strat = _strategy(name, ds, seed=4)
    links = Constraints.empty(ds.n_samples)
    for _ in range(20):
        links, _pair, _ml = _answer(strat, ds, links)
    hoods = strat.hoods
    assert len(hoods) == 3
    assert sorted(int(ds.y[h[0]]) for h in hoods) == [0, 1, 2]
    for h in hoods:  # must-links only join points of one class
        assert len(set(ds.y[h].tolist())) == 1
    # brute-force farthest-first on the first three neighbourhood seeds
    x = ds.X
    seeds = [h[0] for h in hoods]
    d = np.linalg.norm(x[:, None] - x[None, seeds[:1]], axis=-1).min(axis=1)
    assert seeds[1] == int(np.argmax(d))


def test_explore_consolidate_asks_nearest_centroid_first() -> None:
    ds = _blobs()
    strat = _strategy("explore-consolidate", ds, seed=1)
    links = Constraints.empty(ds.n_samples)
    while strat.pending is not None or len(strat.hoods) < 3:
        links, _, _ = _answer(strat, ds, links)
    (i, j), = strat.propose(links).tolist()
    assert strat.phase == "consolidate"
    point = strat.pending
    cent = [ds.X[h].mean(axis=0) for h in strat.hoods]
    nearest = int(np.argmin([np.sum((c - ds.X[point]) ** 2) for c in cent]))
    assert {i, j} == {point, strat.hoods[nearest][0]}


def test_npu_picks_eq6_argmax_by_brute_force() -> None:
    """Xiong et al. 2014 eq. 4-6: argmax over unplaced x of H(N | x) / E[#queries | x]."""
    ds = _blobs(n_per=5)
    n = ds.n_samples
    rng = np.random.default_rng(0)
    resp = rng.dirichlet(np.ones(3), size=n)
    state = State(1, resp.argmax(axis=1), responsibilities=resp)
    strat = _strategy("npu", ds, seed=2)
    links = Constraints.empty(n)
    for _ in range(6):
        (i, j), = strat.propose(links, state).tolist()
        strat.tell((i, j), bool(ds.y[i] == ds.y[j]))
    strat.propose(links, state)
    best, score = None, -np.inf
    placed = {p for h in strat.hoods for p in h}
    for x in range(n):
        if x in placed:
            continue
        p = np.array([resp[x] @ resp[h].mean(axis=0) for h in strat.hoods]) + 1e-12
        p = p / p.sum()
        h_ent = -(p * np.log(p)).sum()
        cost = sum(r * q for r, q in enumerate(sorted(p, reverse=True), start=1))
        if h_ent / cost > score + 1e-12:
            best, score = x, h_ent / cost
    assert strat.pending == best


def test_uncertainty_is_the_brute_force_most_uncertain_pair() -> None:
    ds = _blobs(n_per=4)
    n = ds.n_samples
    resp = np.random.default_rng(5).dirichlet(np.ones(3) * 0.7, size=n)
    state = State(1, resp.argmax(axis=1), responsibilities=resp)
    links = Constraints([(0, 1)], [(2, 5)], n_samples=n)
    comp = links.component_index
    got = _strategy("uncertainty", ds, candidates=n).propose(links, state)
    best = max((p for p in itertools.combinations(range(n), 2) if comp[p[0]] != comp[p[1]]),
               key=lambda p: binary_entropy(np.array([resp[p[0]] @ resp[p[1]]]))[0])
    gain = binary_entropy(np.array([resp[got[0, 0]] @ resp[got[0, 1]]]))[0]
    assert gain == pytest.approx(binary_entropy(np.array([resp[best[0]] @ resp[best[1]]]))[0])


def test_uncertainty_needs_posteriors() -> None:
    ds = _blobs(n_per=3)
    with pytest.raises(InvalidInputError, match="label posteriors"):
        _strategy("uncertainty", ds).propose(Constraints.empty(ds.n_samples), None)


def test_npu_random_forest_similarity_is_eq3_with_leaf_sharing_by_brute_force() -> None:
    """The paper's M(x, y) (Xiong et al. 2014, sec. 4.1): the share of the trees of a random forest
    trained on the current cluster labels in which x and y reach the same leaf; p(x in N_l) (eq. 3)
    is its mean over N_l, normalised; the point asked maximises eq. 6."""
    ds = _blobs(n_per=6)
    n = ds.n_samples
    state = State(1, np.asarray(ds.y))
    strat = _strategy("npu", ds, seed=4, similarity="random-forest", n_trees=20)
    links = Constraints.empty(n)
    for _ in range(5):
        (i, j), = strat.propose(links, state).tolist()
        strat.tell((i, j), bool(ds.y[i] == ds.y[j]))
    strat.propose(links, state)
    leaves = strat._leaves
    assert leaves.shape == (n, 20)
    placed = {p for h in strat.hoods for p in h}
    best, score = None, -np.inf
    for x in range(n):
        if x in placed:
            continue
        m = [np.mean([np.mean([leaves[x, t] == leaves[y, t] for t in range(20)]) for y in h])
             for h in strat.hoods]
        p = np.array(m) + 1e-12
        p = p / p.sum()
        ratio = -(p * np.log(p)).sum() / sum(r * q for r, q in enumerate(sorted(p, reverse=True), 1))
        if ratio > score + 1e-12:
            best, score = x, ratio
    assert strat.pending == best
    # a forest trained on the true classes of well separated blobs puts points with their class
    own = strat._probabilities(np.arange(n))
    hood_class = [int(ds.y[h[0]]) for h in strat.hoods]
    assert all(own[x, hood_class.index(int(ds.y[x]))] > 0.5 for x in range(n)
               if int(ds.y[x]) in hood_class)


def test_npu_random_forest_needs_the_model_labels() -> None:
    ds = _blobs(n_per=4)
    strat = _strategy("npu", ds, similarity="random-forest")
    links = Constraints.empty(ds.n_samples)
    with pytest.raises(InvalidInputError, match="fitted model's labels"):
        for _ in range(6):
            (i, j), = strat.propose(links, None).tolist()
            strat.tell((i, j), bool(ds.y[i] == ds.y[j]))
