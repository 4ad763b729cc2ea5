"""pairlab.markov: exact inference on Potts networks against brute-force enumeration."""

import doctest
import itertools

import numpy as np
import pytest

from pairlab import InvalidInputError, markov
from pairlab.markov import LabelNetwork, brute_force, lse_excluding


def random_problem(rng, n, M, p_edge, p_soft=0.5, p_impossible=0.1):
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < p_edge]
    edges = np.array(pairs, dtype=int).reshape(-1, 2)
    w = np.where(rng.random(len(edges)) < p_soft, rng.normal(scale=2, size=len(edges)), -np.inf)
    u = rng.normal(scale=3, size=(n, M))
    u[rng.random((n, M)) < p_impossible] = -np.inf
    return u, edges, w


def assert_matches_brute_force(net, u, edges, w):
    res = net.infer(u)
    marg, log_z = brute_force(u, edges, w)
    if np.isfinite(log_z):
        np.testing.assert_allclose(res.log_partition, log_z, rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(res.marginals, marg, atol=1e-10)
    else:
        assert res.log_partition == -np.inf
    np.testing.assert_allclose(res.marginals.sum(axis=1), 1.0)
    assert np.isfinite(res.marginals).all()
    np.testing.assert_allclose(res.component_log_partition.sum(), res.log_partition)


@pytest.mark.parametrize("seed", range(6))
def test_random_networks_equal_brute_force(seed):
    """Forests, loopy graphs (loop-cutset conditioning), soft and hard edges, impossible labels."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        n, M = int(rng.integers(1, 8)), int(rng.integers(1, 5))
        u, edges, w = random_problem(rng, n, M, p_edge=rng.uniform(0.1, 0.8))
        net = LabelNetwork(n, edges, M, w)
        assert net.exact
        assert_matches_brute_force(net, u, edges, w)


def test_structures_each_handled_exactly():
    rng = np.random.default_rng(7)
    shapes = {
        "path": [(0, 1), (1, 2), (2, 3), (3, 4)],
        "star": [(0, 1), (0, 2), (0, 3), (0, 4)],
        "triangle": [(0, 1), (1, 2), (0, 2)],
        "square": [(0, 1), (1, 2), (2, 3), (0, 3)],
        "K4": list(itertools.combinations(range(4), 2)),
        "two triangles sharing an edge plus a tail": [(0, 1), (1, 2), (0, 2), (1, 3), (2, 3),
                                                       (3, 4), (4, 5)],
        "forest plus a cycle": [(0, 1), (2, 3), (3, 4), (4, 5), (5, 2), (6, 7)],
    }
    for name, e in shapes.items():
        edges = np.array(e)
        n = int(edges.max()) + 1
        for M in (2, 3, 4):
            u = rng.normal(scale=2, size=(n, M))
            for w in (-np.inf, rng.normal(size=len(edges))):
                net = LabelNetwork(n, edges, M, w)
                assert net.exact, name
                assert_matches_brute_force(net, u, edges, np.broadcast_to(w, len(edges)))


def test_batch_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    _, edges, w = random_problem(rng, 7, 3, p_edge=0.5, p_impossible=0.0)
    net = LabelNetwork(7, edges, 3, w)
    batch = rng.normal(scale=2, size=(4, 7, 3))
    res = net.infer(batch)
    assert res.marginals.shape == (4, 7, 3) and res.log_partition.shape == (4,)
    for b in range(4):
        one = net.infer(batch[b])
        np.testing.assert_allclose(res.marginals[b], one.marginals, atol=1e-13)
        np.testing.assert_allclose(res.log_partition[b], one.log_partition, rtol=1e-13)


def test_spanning_tree_approximation_beyond_the_limit():
    """A component too large for exact work keeps its BFS spanning tree (section 2.2)."""
    rng = np.random.default_rng(5)
    edges = np.array([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (4, 5), (5, 6), (6, 4)])
    u = rng.normal(scale=2, size=(7, 3))
    exact = LabelNetwork(7, edges, 3)
    assert exact.exact
    approx = LabelNetwork(7, edges, 3, max_exact_work=8)
    assert not approx.exact
    # each loopy component loses (edges - nodes + 1) edges; what remains is solved exactly
    assert len(approx.dropped_edges) == (5 - 4 + 1) + (3 - 3 + 1)
    kept = np.array([e for e in edges.tolist() if e not in approx.dropped_edges.tolist()
                     and e[::-1] not in approx.dropped_edges.tolist()])
    assert len(kept) == 3 + 2
    assert_matches_brute_force(approx, u, kept, -np.inf)
    assert not np.allclose(approx.infer(u).marginals, exact.infer(u).marginals)
    # the spanning tree is rooted at the smallest node: edges at node 0 stay
    assert {(0, 1), (0, 3)} <= {tuple(sorted(e)) for e in kept.tolist()}


def test_impossible_component_has_minus_infinite_partition():
    net = LabelNetwork(5, [(0, 1), (1, 2), (0, 2), (3, 4)], 2)  # a triangle cannot be 2-coloured
    res = net.infer(np.zeros((5, 2)))
    assert res.log_partition == -np.inf
    np.testing.assert_array_equal(np.isneginf(res.component_log_partition), [True, False])
    np.testing.assert_allclose(res.component_log_partition[1], np.log(2))
    assert np.isfinite(res.marginals).all()
    np.testing.assert_array_equal(net.component_index, [0, 0, 0, 1, 1])


def test_confident_nodes_send_accurate_tiny_messages():
    """Both ends of a "different" edge sure of the same label: no cancellation to log 0."""
    u = np.array([[0.0, -800.0, -900.0], [0.0, -800.0, -950.0], [0.0, -700.0, -990.0]])
    edges = [(0, 1), (1, 2)]
    res = LabelNetwork(3, edges, 3).infer(u)
    marg, log_z = brute_force(u, edges)
    assert np.isfinite(log_z)
    np.testing.assert_allclose(res.log_partition, log_z, rtol=1e-14)
    np.testing.assert_allclose(res.marginals, marg, rtol=1e-10, atol=1e-300)
    assert 1e-310 < res.marginals[1, 0] < 1e-300  # e^-700: point 1 gives way to both neighbours


def test_lse_excluding_matches_direct_sums():
    rng = np.random.default_rng(0)
    b = rng.normal(scale=50, size=(200, 5))
    b[rng.random(b.shape) < 0.2] = -np.inf
    b[:5] = 3.0  # ties
    out = lse_excluding(b.T).T  # labels along axis 0
    for y in range(5):
        rest = np.delete(b, y, axis=1)
        mx = rest.max(axis=1)
        safe = np.where(np.isfinite(mx), mx, 0.0)
        with np.errstate(divide="ignore"):
            expect = np.log(np.exp(rest - safe[:, None]).sum(axis=1)) + safe
        np.testing.assert_allclose(out[:, y], expect, rtol=1e-13)


def test_invalid_input_is_reported():
    with pytest.raises(InvalidInputError, match="self-loops"):
        LabelNetwork(3, [(1, 1)], 2)
    with pytest.raises(InvalidInputError, match="must lie in"):
        LabelNetwork(3, [(0, 3)], 2)
    with pytest.raises(InvalidInputError, match="merge must-linked"):
        LabelNetwork(3, [(0, 1)], 2, np.inf)
    net = LabelNetwork(3, [(0, 1)], 2)
    with pytest.raises(InvalidInputError, match="shape"):
        net.infer(np.zeros((3, 3)))
    with pytest.raises(InvalidInputError, match="NaN"):
        net.infer(np.full((3, 2), np.nan))


def test_repeated_edges_merge_their_weights():
    u = np.random.default_rng(1).normal(size=(2, 3))
    twice = LabelNetwork(2, [(0, 1), (1, 0)], 3, [0.5, 0.7]).infer(u)
    once = LabelNetwork(2, [(0, 1)], 3, 1.2).infer(u)
    np.testing.assert_allclose(twice.marginals, once.marginals)
    np.testing.assert_allclose(twice.log_partition, once.log_partition)


def test_docstring_example():
    assert doctest.testmod(markov).failed == 0


def test_compress_keeps_one_component_per_isomorphism_class():
    """For unaries shared by node label, inference on representatives gives the same totals."""
    rng = np.random.default_rng(9)
    n, M = 600, 3
    edges = rng.integers(0, n, size=(260, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    extra = np.array([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 6), (6, 3), (3, 5)]) + n
    edges = np.vstack([edges, extra])  # two loopy components on new nodes
    n += 7
    labels = rng.integers(1, 3, size=n).astype(float)
    for work in (200_000, 8):  # exact, and with the square-with-diagonal approximated
        net = LabelNetwork(n, edges, M, max_exact_work=work)
        small, mult, nodes = net.compress(labels)
        assert small.n_nodes < net.n_nodes / 2 and mult.sum() == net.n_components
        assert small.exact  # approximated components keep their tree
        for _ in range(3):
            log_alpha = np.log(rng.dirichlet(np.ones(M)))
            full = net.infer(labels[:, None] * log_alpha)
            rep = small.infer(labels[nodes][:, None] * log_alpha)
            np.testing.assert_allclose(mult @ rep.component_log_partition, full.log_partition,
                                       rtol=1e-12)
            weight = mult[small.component_index] * labels[nodes]
            np.testing.assert_allclose(weight @ rep.marginals, labels @ full.marginals,
                                       rtol=1e-11)


def test_compress_distinguishes_labels_and_shapes():
    # two paths 0-1-2 and 3-4-5 (same shape), a star 6-(7, 8, 9) and a path 10-11-12-13
    edges = [(0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (6, 8), (6, 9), (10, 11), (11, 12), (12, 13)]
    net = LabelNetwork(14, edges, 3)
    same = np.ones(14)
    small, mult, _ = net.compress(same)
    assert small.n_nodes == 3 + 4 + 4
    assert sorted(mult.tolist()) == [1, 1, 2]
    relabel = same.copy()
    relabel[1] = 2.0  # the first path's middle node differs now
    assert sorted(net.compress(relabel)[1].tolist()) == [1, 1, 1, 1]
    flipped = same.copy()
    flipped[0], flipped[5] = 2.0, 2.0  # ends of both paths: still isomorphic
    assert sorted(net.compress(flipped)[1].tolist()) == [1, 1, 2]
