import numpy as np

from pairlab.centroids import cluster_means


def test_means_of_each_cluster_and_empty_clusters_keep_their_centre():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]])
    previous = np.array([[1.0, 1.0], [5.0, 5.0], [-3.0, 7.0]])
    got = cluster_means(X, np.array([0, 0, 1]), previous)
    np.testing.assert_array_equal(got, [[1.0, 0.0], [10.0, 10.0], [-3.0, 7.0]])


def test_weighted_means_equal_means_of_repeated_points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    labels = rng.integers(4, size=30)
    labels[labels == 3] = 2  # cluster 3 is empty
    reps = rng.integers(1, 4, size=30)
    previous = rng.normal(size=(4, 3))
    weighted = cluster_means(X, labels, previous, weights=reps / 2.0)
    repeated = cluster_means(np.repeat(X, reps, axis=0), np.repeat(labels, reps), previous)
    np.testing.assert_allclose(weighted, repeated, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(weighted[3], previous[3])


def test_starting_centers_checks_and_seeds():
    import pytest

    from pairlab.centroids import starting_centers
    from pairlab.errors import InvalidInputError
    from pairlab.mixture import kmeans_plusplus

    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(InvalidInputError, match="n_clusters=11 exceeds the number of points"):
        starting_centers(X, 11, None, "k-means++", np.random.default_rng(0))
    with pytest.raises(InvalidInputError, match=r"means_init must have shape \(3, 2\)"):
        starting_centers(X, 3, np.zeros((2, 2)), "k-means++", np.random.default_rng(0))
    given = np.ones((3, 2))
    out = starting_centers(X, 3, given, "random", np.random.default_rng(0))
    assert np.array_equal(out, given) and out is not given
    assert np.array_equal(starting_centers(X, 3, None, "k-means++", np.random.default_rng(1)),
                          kmeans_plusplus(X, 3, np.random.default_rng(1)))
    rand = starting_centers(X, 4, None, "random", np.random.default_rng(2))
    assert len({tuple(r) for r in rand}) == 4 and all(any((r == X).all(1)) for r in rand)
    assert starting_centers(X, 3, None, "neighbourhoods", np.random.default_rng(0)) is None
