import numpy as np

from pairlab.centroids import cluster_means


def test_means_of_each_cluster_and_empty_clusters_keep_their_centre():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]])
    previous = np.array([[1.0, 1.0], [5.0, 5.0], [-3.0, 7.0]])
    got = cluster_means(X, np.array([0, 0, 1]), previous)
    np.testing.assert_array_equal(got, [[1.0, 0.0], [10.0, 10.0], [-3.0, 7.0]])
