
"""Constraint generators: counts, no self-pairs, agreement with labels, exact noise levels."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairlab import Constraints
from pairlab import links as g
from pairlab.errors import InvalidInputError

labels = st.lists(st.integers(0, 3), min_size=4, max_size=40).map(np.array)
seeds = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=40, deadline=None)


def _agree(c: Constraints, y) -> bool:
    y = np.asarray(y)
    return bool(np.all(y[c.must_link[:, 0]] == y[c.must_link[:, 1]])
                and np.all(y[c.cannot_link[:, 0]] != y[c.cannot_link[:, 1]]))


def _keys(c: Constraints):
    return set(map(tuple, c.must_link.tolist())), set(map(tuple, c.cannot_link.tolist()))


@FAST
@given(labels, st.floats(0, 1), seeds)
def test_fraction_count_and_agreement(y, r, seed):
    n = y.size
    c = g.random_pairs_fraction(y, r, np.random.default_rng(seed))
    assert len(c) == round(Fraction(repr(r)) * (n * (n - 1) // 2))  # exact, half to even
    assert _agree(c, y)  # Constraints itself rejects self-pairs and duplicates
    again = g.random_pairs_fraction(y, r, np.random.default_rng(seed))
    assert again == c


@FAST
@given(labels, st.data(), seeds)
def test_count_and_nonoverlapping(y, data, seed):
    n = y.size
    m = data.draw(st.integers(0, n * (n - 1) // 2))
    c = g.random_pairs_count(y, m, np.random.default_rng(seed))
    assert len(c) == m and _agree(c, y)
    k = data.draw(st.integers(0, n // 2))
    c = g.nonoverlapping_pairs(y, k, np.random.default_rng(seed))
    assert len(c) == k and _agree(c, y)
    used = np.r_[c.must_link.ravel(), c.cannot_link.ravel()]
    assert np.unique(used).size == used.size == 2 * k  # no point in two pairs


def test_all_pairs_reached_and_uniformish():
    y = np.array([0, 0, 1, 1, 2])
    c = g.random_pairs_fraction(y, 1.0, np.random.default_rng(0))
    assert len(c) == 10 and c.n_must_link == 2
    counts = np.zeros((5, 5))
    rng = np.random.default_rng(1)
    for _ in range(2000):
        for i, j in np.vstack([*_pairs(g.random_pairs_count(y, 1, rng))]):
            counts[i, j] += 1
    share = counts[np.triu_indices(5, 1)] / 2000
    assert np.all(np.abs(share - 0.1) < 0.03)


def _pairs(c):
    return [p for p in (c.must_link, c.cannot_link) if len(p)]


@FAST
@given(labels, st.integers(0, 6), st.integers(0, 8), st.booleans(), seeds)
def test_teachers_partition_their_points(y, n_teachers, k, complete, seed):
    k = min(k, y.size)
    c = g.teachers(y, n_teachers, k, np.random.default_rng(seed), complete=complete)
    assert _agree(c, y)
    # the same teachers (same rng stream) give the same chunklets either way
    other = g.teachers(y, n_teachers, k, np.random.default_rng(seed), complete=not complete)
    assert np.array_equal(c.chunklet_index, other.chunklet_index)
    assert np.array_equal(c.chunklet_cannot_link, other.chunklet_cannot_link)


def test_teachers_chunklets_match_one_teacher_partition():
    y = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    c = g.teachers(y, 1, 8, np.random.default_rng(3))
    assert c.n_must_link == 2 + 1 + 2 and c.n_cannot_link == 3
    assert len(c.chunklets) == 3 and c.n_chunklets == 3
    full = g.teachers(y, 1, 8, np.random.default_rng(3), complete=True)
    assert full.n_must_link == 3 + 1 + 3 and full.n_cannot_link == 3 * 2 + 3 * 3 + 2 * 3


@FAST
@given(labels, st.floats(0, 1), st.floats(0, 1), seeds)
def test_flip_fraction_is_exact(y, r, f, seed):
    rng = np.random.default_rng(seed)
    c = g.random_pairs_fraction(y, r, rng)
    out = g.flip_fraction(c, f, rng)
    ml, cl = _keys(c)
    ml2, cl2 = _keys(out)
    assert ml | cl == ml2 | cl2 and len(out) == len(c)
    assert len(ml & cl2) + len(cl & ml2) == round(f * len(c))


def test_flip_fraction_keeps_confidence_with_its_pair():
    c = Constraints([[0, 1], [2, 3]], [[4, 5]], n_samples=6, confidence=[0.9, 0.8, 0.7])
    out = g.flip_fraction(c, 1.0, np.random.default_rng(0))
    assert out.must_link.tolist() == [[4, 5]] and out.ml_confidence.tolist() == [0.7]
    assert out.cl_confidence.tolist() == [0.9, 0.8]


@FAST
@given(labels, st.floats(0, 1), seeds)
def test_relabel_changes_exactly_the_fraction(y, f, seed):
    out = g.relabel_points(y, f, np.random.default_rng(seed)) if np.unique(y).size > 1 else None
    if out is None:
        return
    codes = np.unique(y, return_inverse=True)[1]
    assert np.count_nonzero(out != codes) == round(f * y.size)
    assert out.min() >= 0 and out.max() < np.unique(y).size


def test_flip_probability_rate_and_eq_5_1_weight():
    y = np.arange(2000) % 3
    rng = np.random.default_rng(5)
    c = g.nonoverlapping_pairs(y, 1000, rng)
    out = g.flip_probability(c, 0.3, rng)
    ml, cl = _keys(c)
    ml2, cl2 = _keys(out)
    flipped = len(ml & cl2) + len(cl & ml2)
    assert abs(flipped / 1000 - 0.3) < 0.05  # binomial sd 0.0145
    assert np.allclose(out.ml_confidence, 0.7) and np.allclose(out.cl_confidence, 0.7)
    gamma = 0.7  # eq. 2.15 with gamma = 1 - q equals eq. 5.1
    assert g.ppc_weight(0.3) == pytest.approx(0.5 * np.log(gamma / (1 - gamma)))
    assert g.ppc_weight(0.0) == np.inf and g.ppc_weight(0.5) == 0.0
    assert g.flip_probability(c, 0.0, rng) == c  # q = 0: nothing flips, confidence 1
    with pytest.raises(InvalidInputError, match="q"):
        g.flip_probability(c, 0.6, rng)


def test_e_matrix_noise_drops_links_and_adds_false_ones():
    y = np.arange(3000) % 2
    rng = np.random.default_rng(2)
    c = g.random_pairs_count(y, 4000, rng)
    out = g.e_matrix_noise(c, 0.8, 0.95, rng)
    ml, cl = _keys(c)
    ml2, cl2 = _keys(out)
    assert abs(len(ml & cl2) / len(ml) - 0.2) < 0.04  # true links dropped with 1 - p
    assert abs(len(cl & ml2) / len(cl) - 0.05) < 0.02  # false links added with 1 - q
    assert g.e_matrix_noise(c, 1.0, 1.0, rng) == c


@FAST
@given(st.integers(1, 7), st.integers(1, 7), seeds)
def test_grid_links(rows, cols, seed):
    if rows * cols < 2:
        with pytest.raises(InvalidInputError):
            g.grid_links(rows, cols)
        return
    c = g.grid_links(rows, cols)
    assert c.n_must_link == rows * (cols - 1) + cols * (rows - 1) and c.n_cannot_link == 0
    d = np.abs(c.must_link[:, 1] - c.must_link[:, 0])
    assert np.all((d == 1) | (d == cols))
    same_row = c.must_link[:, 0] // cols == c.must_link[:, 1] // cols
    assert np.all(same_row | (d == cols))
    y = np.random.default_rng(seed).integers(0, 3, rows * cols)
    lab = g.grid_links(rows, cols, y, mode="labels")
    assert len(lab) == len(c) and _agree(lab, y)
    soft = g.grid_links(rows, cols, y.reshape(rows, cols))
    q = lab.n_cannot_link / len(lab)
    assert np.allclose(soft.ml_confidence, 1 - min(q, 0.5))


def test_errors_are_clear():
    y = np.array([0, 1, 0, 1])
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidInputError, match="non-overlapping"):
        g.nonoverlapping_pairs(y, 3, rng)
    with pytest.raises(InvalidInputError, match="fraction"):
        g.random_pairs_fraction(y, 1.5, rng)
    with pytest.raises(InvalidInputError, match="pairs"):
        g.random_pairs_count(y, 7, rng)
    with pytest.raises(InvalidInputError, match="labels"):
        g.grid_links(2, 2, mode="labels")
    with pytest.raises(InvalidInputError, match="n_points"):
        g.teachers(y, 1, 5, rng)


def test_gui_noise_slider_uses_flip_fraction():
    from pairlab.gui.model import flip_noise

    c = Constraints([[0, 1], [2, 3]], [[0, 2], [1, 3]], n_samples=4)
    a = flip_noise(c, 0.5, np.random.default_rng(7))
    b = g.flip_fraction(c, 0.5, np.random.default_rng(7))
    assert a == b


def test_cli_link_fraction_and_noise(capsys):
    import json

    from pairlab import cli

    argv = ["run", "kmeans", "--dataset", "two-moons", "--data", "n_samples=60", "--json",
            "--link-fraction", "0.02", "--seed", "3"]
    assert cli.main(argv) == 0
    clean = json.loads(capsys.readouterr().out)
    assert clean["n_must_link"] + clean["n_cannot_link"] == round(0.02 * 60 * 59 / 2)
    assert cli.main([*argv, "--link-noise", "0.5"]) == 0
    noisy = json.loads(capsys.readouterr().out)
    assert noisy["n_must_link"] + noisy["n_cannot_link"] == 35
    assert noisy["n_must_link"] != clean["n_must_link"]
    assert cli.main([*argv, "--must-link", "2"]) == 1
    assert "either --link-fraction" in capsys.readouterr().err


def test_fraction_code_reading_draws_about_twice_the_text_reading():
    """RDP-means' r: the text's round(r n(n-1)/2) distinct pairs against the authors' code's
    round(r n^2) ordered draws (self-pairs dropped, repeats counted once)."""
    y = np.repeat(np.arange(4), 50)  # n = 200
    text = g.random_pairs_fraction(y, 0.05, np.random.default_rng(1), reading="text")
    code = g.random_pairs_fraction(y, 0.05, np.random.default_rng(1), reading="code")
    n_text = text.n_must_link + text.n_cannot_link
    n_code = code.n_must_link + code.n_cannot_link
    assert n_text == round(0.05 * 200 * 199 / 2)
    draws = round(0.05 * 200 * 200)
    assert 0.9 * draws < n_code <= draws and 1.8 < n_code / n_text < 2.05
    pairs = np.vstack([p for p in (code.must_link, code.cannot_link) if len(p)])
    assert (pairs[:, 0] < pairs[:, 1]).all()
    assert len({tuple(p) for p in pairs.tolist()}) == len(pairs)  # each unordered pair once
    assert (y[code.must_link[:, 0]] == y[code.must_link[:, 1]]).all()
    with pytest.raises(InvalidInputError, match="reading"):
        g.random_pairs_fraction(y, 0.05, np.random.default_rng(1), reading="both")
