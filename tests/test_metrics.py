import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from pairlab.metrics import (
    accuracy,
    adjusted_rand,
    modified_rand,
    nmi,
    pairwise_f_measure,
    purity,
    rand,
)

labelings = st.integers(2, 40).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, 4), min_size=n, max_size=n),
                        st.lists(st.integers(0, 5), min_size=n, max_size=n)))


def brute_pairs(y, c):
    y, c = np.asarray(y), np.asarray(c)
    iu = np.triu_indices(len(y), 1)
    same_y = (y[:, None] == y[None, :])[iu]
    same_c = (c[:, None] == c[None, :])[iu]
    return same_y, same_c


@settings(max_examples=200, deadline=None)
@given(labelings)
@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_against_sklearn_and_brute_force(data):
    y, c = map(np.asarray, data)
    assert adjusted_rand(y, c) == pytest.approx(skm.adjusted_rand_score(y, c), abs=1e-12)
    assert rand(y, c) == pytest.approx(skm.rand_score(y, c), abs=1e-12)
    assert nmi(y, c) == pytest.approx(skm.normalized_mutual_info_score(y, c), abs=1e-10)
    sy, sc = brute_pairs(y, c)
    # eq. 27 by brute force
    first = (sy & sc).sum() / (2 * sc.sum()) if sc.sum() else 0.0
    second = (~sy & ~sc).sum() / (2 * (~sc).sum()) if (~sc).sum() else 0.0
    assert modified_rand(y, c) == pytest.approx(first + second, abs=1e-12)
    tp = (sy & sc).sum()
    f = 0.0 if tp == 0 else 2 * tp / (sy.sum() + sc.sum())
    assert pairwise_f_measure(y, c) == pytest.approx(f, abs=1e-12)
    cm = skm.cluster.contingency_matrix(y, c)
    assert purity(y, c) == pytest.approx(cm.max(axis=0).sum() / len(y))


def test_accuracy_hungarian():
    y = np.array([0, 0, 1, 1, 2, 2])
    assert accuracy(y, np.array([2, 2, 0, 0, 1, 1])) == 1.0
    assert accuracy(y, np.array([0, 0, 0, 0, 0, 0])) == pytest.approx(1 / 3)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-3, 6), min_size=n, max_size=n),
    st.lists(st.integers(-1, 10**6), min_size=n, max_size=n))), st.booleans())
def test_contingency_equals_scikit_learn(data, as_float):
    """The counting fast path (small integer ranges) and the sorting path (wide ranges, floats)."""
    from pairlab.metrics import contingency

    y, c = map(np.asarray, data)
    if as_float:
        y = y + 0.5
    assert np.array_equal(contingency(y, c), skm.cluster.contingency_matrix(y, c))
