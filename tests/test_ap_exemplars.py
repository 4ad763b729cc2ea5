"""The compiled exemplar rules (ap_exemplars) against straightforward numpy: ties, -inf, NaN."""

import numpy as np
import pytest
from pairlab_builtins.algorithms import ap_exemplars as kern
from pairlab_builtins.algorithms import ap_messages as mod

from .helpers import sklearn_refine


def similarities(rng, n, trial):
    """Integer similarities full of ties, or squared distances; some with -inf, a few with NaN."""
    if trial % 3 == 0:
        S = rng.integers(-3, 1, size=(n, n)).astype(float)
    elif trial % 3 == 1:                                       # duplicated points: exact ties
        X = np.repeat(rng.normal(size=(n // 3 + 1, 2)), 3, axis=0)[:n]
        S = -mod.squared_distances(X)
    else:
        S = -mod.squared_distances(rng.normal(size=(n, 2)))
    if trial % 4 == 3:
        S[rng.random((n, n)) < rng.choice([0.2, 0.7, 0.97])] = -np.inf
    if trial % 25 == 24:
        S[rng.random((n, n)) < 0.05] = np.nan
    return S


def random_mask(rng, n):
    mask = rng.random(n) < rng.choice([0.05, 0.2, 0.5, 1.0])
    mask[rng.integers(n)] = True
    return mask


def test_top_columns_are_each_rows_first_columns_by_decreasing_similarity():
    rng = np.random.default_rng(0)
    for trial in range(150):
        n = int(rng.integers(1, 30))
        S = similarities(rng, n, trial)
        m = int(rng.integers(0, n + 3))
        cols, vals = kern.top_columns(S, m)
        assert cols.shape == vals.shape == (n, min(m, n))
        for i in range(n):
            if np.isnan(S[i]).any():
                assert m == 0 or cols[i, 0] == -1
                continue
            want = np.lexsort((np.arange(n), -S[i]))[:m]     # decreasing S, then index
            np.testing.assert_array_equal(cols[i], want)
            np.testing.assert_array_equal(vals[i], S[i, want])


def test_refine_is_sklearns_loop_with_ties_and_infinities():
    """Bit for bit scikit-learn's loop, with and without each row's most similar columns (short
    lists, so lists that end inside a run of equal values are common), on similarities full of
    ties, with -inf entries and NaN."""
    rng = np.random.default_rng(1)
    for trial in range(300):
        n = int(rng.integers(1, 40))
        S = similarities(rng, n, trial)
        mask = random_mask(rng, n)
        with np.errstate(invalid="ignore"):
            want = sklearn_refine(S, mask)
        cols = np.flatnonzero(mask)
        for m in (0, 1, 3, 32):
            np.testing.assert_array_equal(
                kern.refined_exemplars(S, cols, *kern.top_columns(S, m)), want)


def test_paper_rule_is_the_first_arg_max_over_self_exemplars():
    rng = np.random.default_rng(2)
    for trial in range(300):
        n = int(rng.integers(1, 40))
        A = rng.integers(-2, 2, size=(n, n)).astype(float)
        R = similarities(rng, n, trial)
        mask = random_mask(rng, n)
        cols = np.flatnonzero(mask)
        with np.errstate(invalid="ignore"):
            want = cols[np.argmax((A + R)[:, cols], axis=1)]   # all -inf: the first self-exemplar
        want[cols] = cols
        np.testing.assert_array_equal(kern.paper_exemplars(A, R, cols), want)
        np.testing.assert_array_equal(mod.identify_exemplars(A, R, R, mask, "paper"), want)


@pytest.mark.parametrize("n", [999, 1000])
def test_engine_refine_with_and_without_kept_columns(n):
    """The dense engine keeps each row's most similar columns from n = 1000 on; the exemplars
    are the same either way."""
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 2))
    S = -mod.squared_distances(X)
    S.flat[:: n + 1] = np.median(S)
    empty = mod.LinkSet.build(np.empty((0, 2)), np.empty(0), 0.0, n)
    eng = mod.MessageEngine(S, empty, empty, 0.5, order="frey-dueck")
    for _ in range(8):
        eng.iterate()
    mask = eng.self_exemplars()
    assert mask.any()
    got = eng.clustering(mask, "refine").exemplars
    assert (eng._top is not None) == (n >= 1000)
    np.testing.assert_array_equal(got, sklearn_refine(S, mask))


def test_best_candidates_are_numpys_where_no_self_exemplar_emerged():
    """The fallback with no self-exemplar: numpy's ``where(diag >= top, i, argmax)`` over A + R,
    ties, -inf and NaN included, then every candidate its own exemplar."""
    rng = np.random.default_rng(5)
    for trial in range(300):
        n = int(rng.integers(1, 40))
        A = rng.integers(-2, 2, size=(n, n)).astype(float)
        R = similarities(rng, n, trial)
        with np.errstate(invalid="ignore"):
            belief = A + R
            best = np.argmax(belief, axis=1)
            want = np.where(np.diag(belief) >= belief[np.arange(n), best], np.arange(n), best)
        np.testing.assert_array_equal(kern.best_candidates(A, R), want)
        want[np.unique(want)] = np.unique(want)
        np.testing.assert_array_equal(mod.identify_exemplars(A, R, R, np.zeros(n, bool)), want)
