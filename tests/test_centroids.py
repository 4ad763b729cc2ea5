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
