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


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-3, 10**6), min_size=1, max_size=40), st.booleans())
def test_unique_codes_equals_numpy_unique(values, narrow):
    from pairlab.metrics import unique_codes

    v = np.asarray(values) % 7 - 2 if narrow else np.asarray(values)  # counting / sorting path
    distinct, inverse = unique_codes(v)
    want, want_inverse = np.unique(v, return_inverse=True)
    assert distinct.dtype == want.dtype and np.array_equal(distinct, want)
    assert np.array_equal(inverse, want_inverse)


def test_evaluate_counts_one_table_for_all_metrics(monkeypatch):
    """purity, ARI and NMI of one evaluate() share a contingency table (each computing its own
    took a third of a pane's metrics time); the values are those of each metric alone, and a
    metric that changes its table changes no other metric's."""
    import pairlab.metrics as pm
    from pairlab.metrics import Metric
    from pairlab.scoring import evaluate

    rng = np.random.default_rng(3)
    y, c = rng.integers(0, 4, 500), rng.integers(0, 5, 500)

    def spoil(y_true, labels):
        t = pm.contingency(y_true, labels)
        t[:] = 0  # must not reach the metrics after it
        return 0.0

    metrics = [Metric("purity", "", purity), Metric("spoil", "", spoil),
               Metric("ari", "", adjusted_rand), Metric("nmi", "", nmi)]
    counted = []
    codes = pm._codes
    monkeypatch.setattr(pm, "_codes", lambda v: counted.append(1) or codes(v))
    got = evaluate(c, y, None, metrics)
    assert len(counted) == 2  # the truth and the labels, once
    assert got == {"purity": purity(y, c), "spoil": 0.0, "ari": adjusted_rand(y, c),
                   "nmi": nmi(y, c)}
    counted.clear()
    evaluate(c, y, None, metrics)  # a new call counts again (nothing kept between calls)
    assert len(counted) == 2 and pm._TABLES.get() is None
