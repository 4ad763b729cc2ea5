"""Seeded-KMeans and Constrained-KMeans (Basu, Banerjee & Mooney 2002) and links_from_labels."""

from __future__ import annotations

import numpy as np
import pytest

from pairlab import links_from_labels, make_estimator
from pairlab.errors import InvalidInputError


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(c, 1.0, (30, 2)) for c in ([0, 0], [5, 0], [0, 5])])


def _seeds() -> np.ndarray:
    s = np.full(90, -1)
    s[[0, 1, 30, 31, 60]] = [0, 0, 1, 1, 2]
    s[2] = 1  # a seed that belongs, by the data, to cluster 0
    return s


@pytest.mark.parametrize("name", ["seeded-kmeans", "constrained-kmeans"])
@pytest.mark.parametrize("labels", [None, np.full(90, -1)])
def test_without_seeds_equals_kmeans(X, name, labels):
    a = make_estimator("kmeans", n_clusters=3, random_state=4).fit(X)
    b = make_estimator(name, n_clusters=3, random_state=4).fit(X, labels=labels)
    assert np.array_equal(a.labels_, b.labels_) and np.array_equal(a.centers_, b.centers_)
    assert a.n_iter_ == b.n_iter_


def test_seeded_kmeans_is_kmeans_from_the_seed_means(X):
    s = _seeds()
    means = np.array([X[s == h].mean(axis=0) for h in range(3)])
    a = make_estimator("seeded-kmeans", n_clusters=3, random_state=0).fit(X, labels=s)
    np.testing.assert_array_equal(a.history_[0].model["centers"], means)  # step 1
    b = make_estimator("kmeans", n_clusters=3, means_init=means, random_state=0).fit(X)
    assert np.array_equal(a.labels_, b.labels_) and np.array_equal(a.centers_, b.centers_)
    assert a.labels_[2] == 0  # seeds may change cluster


def test_constrained_kmeans_keeps_the_seeds_and_assigns_the_rest_to_the_nearest_mean(X):
    s = _seeds()
    est = make_estimator("constrained-kmeans", n_clusters=3, random_state=0).fit(X, labels=s)
    for state in est.history_:
        if state.phase:
            continue
        labels, centers = state.labels, np.asarray(state.model["centers"])
        assert np.array_equal(labels[s >= 0], s[s >= 0])
        d2 = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
        free = s < 0
        assert np.array_equal(labels[free], d2[free].argmin(axis=1))
    final = est.history_[-1]
    expect = np.array([X[final.labels == h].mean(axis=0) for h in range(3)])
    np.testing.assert_allclose(est.centers_, expect, atol=1e-12)  # converged: centres are means


def test_bad_seeds_and_labels_for_algorithms_without_seeds(X):
    s = np.full(90, -1)
    s[0] = 0
    with pytest.raises(InvalidInputError, match=r"clusters \[1, 2\] have no seed"):
        make_estimator("seeded-kmeans", n_clusters=3).fit(X, labels=s)
    with pytest.raises(InvalidInputError, match="cluster in"):
        make_estimator("seeded-kmeans", n_clusters=3).fit(X, labels=np.full(90, 7))
    with pytest.raises(InvalidInputError, match="links_from_labels"):
        make_estimator("gmm").fit(X, labels=s)


def test_links_from_labels_all_pairs_and_budget():
    y = np.array([0, 0, 1, -1, 1, 2])
    c = links_from_labels(y)
    assert sorted(map(tuple, c.must_link.tolist())) == [(0, 1), (2, 4)]
    assert len(c.cannot_link) == 10 - 2  # C(5, 2) pairs of labelled points, minus the must-links
    assert not np.isin(3, c.must_link) and not np.isin(3, c.cannot_link)
    d1 = links_from_labels(y, 4, np.random.default_rng(0))
    d2 = links_from_labels(y, 4, np.random.default_rng(0))
    assert np.array_equal(d1.must_link, d2.must_link) and np.array_equal(d1.cannot_link,
                                                                          d2.cannot_link)
    assert len(d1.must_link) + len(d1.cannot_link) == 4
    with pytest.raises(InvalidInputError, match="at least 2 labelled"):
        links_from_labels(np.array([-1, 0, -1]))
    with pytest.raises(InvalidInputError, match="rng"):
        links_from_labels(y, 3)
