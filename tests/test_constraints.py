import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairlab import Constraints, InconsistentConstraintsError, InvalidInputError

from .helpers import union_find_roots


@st.composite
def pair_sets(draw):
    n = draw(st.integers(2, 25))
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    pairs = draw(st.lists(pair, max_size=40, unique_by=lambda p: (min(p), max(p))))
    cut = draw(st.integers(0, len(pairs)))
    return n, pairs[:cut], pairs[cut:]


@settings(max_examples=150, deadline=None)
@given(pair_sets())
def test_chunklets_match_naive_union_find(data):
    n, ml, cl = data
    c = Constraints(ml, cl, n_samples=n)
    roots = union_find_roots(n, ml)
    idx = c.chunklet_index
    for a in range(n):
        for b in range(n):
            assert (roots[a] == roots[b]) == (idx[a] == idx[b])
    # ids are numbered by first point
    first_seen = []
    for v in idx:
        if v not in first_seen:
            first_seen.append(int(v))
    assert first_seen == list(range(c.n_chunklets))
    assert sum(len(ch) for ch in c.chunklets) == sum(s for s in c.chunklet_sizes if s > 1)
    # all-link components
    roots_all = union_find_roots(n, ml + cl)
    comp = c.component_index
    assert all((roots_all[a] == roots_all[b]) == (comp[a] == comp[b])
               for a in range(n) for b in range(n))
    # conflicts are exactly cannot-links inside a chunklet
    expected = {(min(i, j), max(i, j)) for i, j in cl if roots[i] == roots[j]}
    assert {tuple(p) for p in c.conflicts.tolist()} == expected
    assert c.is_consistent == (not expected)
    for i, j in c.chunklet_cannot_link:
        assert i < j


@settings(max_examples=100, deadline=None)
@given(pair_sets())
def test_round_trip_json_and_csv(tmp_path_factory, data):
    n, ml, cl = data
    rng = np.random.default_rng(len(ml))
    c = Constraints(ml, cl, n_samples=n,
                    confidence={"must_link": rng.random(len(ml)), "cannot_link": rng.random(len(cl))})
    d = tmp_path_factory.mktemp("c")
    c.save(d / "c.json")
    c.save(d / "c.csv")
    assert Constraints.load(d / "c.json") == c
    assert Constraints.load(d / "c.csv", n_samples=n) == c


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 30), st.data())
def test_out_of_range_is_rejected_with_index(n, data):
    bad = data.draw(st.one_of(st.integers(n, n + 100), st.integers(-100, -1)))
    with pytest.raises(InvalidInputError, match=r"indices must lie in \[0, "):
        Constraints([[0, bad]], n_samples=n)


def test_validation_messages():
    with pytest.raises(InvalidInputError, match="to itself"):
        Constraints([[1, 1]], n_samples=3)
    with pytest.raises(InvalidInputError, match="more than once"):
        Constraints([[0, 1], [1, 0]], n_samples=3)
    with pytest.raises(InvalidInputError, match="both a must-link and a cannot-link"):
        Constraints([[0, 1]], [[1, 0]], n_samples=3)
    with pytest.raises(InvalidInputError, match="shape"):
        Constraints([0, 1, 2], n_samples=3)
    with pytest.raises(InvalidInputError, match="non-integer"):
        Constraints([[0.5, 1]], n_samples=3)
    with pytest.raises(InvalidInputError, match=r"\[0, 1\]"):
        Constraints([[0, 1]], n_samples=3, confidence=1.5)
    with pytest.raises(InvalidInputError, match="one value per pair"):
        Constraints([[0, 1]], [[0, 2]], n_samples=3, confidence=[0.5])


def test_inconsistent_names_the_chain():
    c = Constraints([[0, 1], [1, 2], [2, 3]], [[3, 0]], n_samples=5)
    assert not c.is_consistent
    with pytest.raises(InconsistentConstraintsError, match="0 - 1 - 2 - 3"):
        c.check_consistent()


def test_chunklet_cannot_link_graph():
    c = Constraints([[0, 1], [2, 3]], [[1, 3], [0, 2], [4, 5]], n_samples=6)
    # chunklets: {0,1}=0, {2,3}=1, {4}=2, {5}=3
    assert c.chunklet_cannot_link.tolist() == [[0, 1], [2, 3]]
    assert [ch.tolist() for ch in c.chunklets] == [[0, 1], [2, 3]]


def test_satisfied_fraction():
    c = Constraints([[0, 1]], [[1, 2], [0, 3]], n_samples=4)
    assert c.satisfied_fraction(np.array([0, 0, 1, 0])) == pytest.approx(2 / 3)
    assert Constraints(n_samples=3).satisfied_fraction(np.zeros(3, int)) == 1.0


def test_json_mismatch_n(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"n_samples": 5, "must_link": [[0, 1]]}))
    with pytest.raises(InvalidInputError, match="made for 5 points"):
        Constraints.load(p, n_samples=6)


def test_csv_errors_name_the_line():
    with pytest.raises(InvalidInputError, match="line 3"):
        Constraints.from_csv_text("i,j,type\n0,1,must\n1,x,cannot\n", 4)
    with pytest.raises(InvalidInputError, match="line 2: type"):
        Constraints.from_csv_text("i,j,type\n0,1,maybe\n", 4)


def test_saved_files_are_readable_like_plain_files(tmp_path):
    import os
    import stat

    c = Constraints([[0, 1]], n_samples=3)
    c.save(tmp_path / "c.json")
    umask = os.umask(0)
    os.umask(umask)
    mode = stat.S_IMODE((tmp_path / "c.json").stat().st_mode)
    assert mode == 0o666 & ~umask
    os.chmod(tmp_path / "c.json", 0o640)
    c.save(tmp_path / "c.json")
    assert stat.S_IMODE((tmp_path / "c.json").stat().st_mode) == 0o640
