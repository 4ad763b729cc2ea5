"""SSKK (Kulis et al. 2009): the kernel reduction by brute force, its limits, its initialisation."""

import itertools
import warnings

import numpy as np
import pytest
from pairlab_builtins.algorithms.sskk import SSKK, kernel_kmeans_objective

from pairlab import Constraints, Dataset, Run
from pairlab.errors import InvalidInputError


def blobs(seed=0, n_per=25):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [5.0, 1.0], [1.0, 6.0]])
    return np.vstack([c + rng.normal(size=(n_per, 2)) for c in centres])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_kernel_without_links_is_kmeans(seed):
    """Every iteration equals the kmeans plugin's and the end equals scikit-learn's Lloyd."""
    from sklearn.cluster import KMeans

    X = blobs(seed)
    M = X[np.random.default_rng(seed).choice(len(X), 3, replace=False)]
    ours = Run(SSKK, Dataset(X), None, {"n_clusters": 3, "kernel": "linear", "sigma": 0.0,
                                        "means_init": M})
    ours.run()
    km = Run("kmeans", Dataset(X), None, {"n_clusters": 3, "means_init": M})
    km.run()
    assert ours.n_iter == km.n_iter
    for a, b in zip(ours.history, km.history, strict=True):
        np.testing.assert_array_equal(a.labels, b.labels)
    sk = KMeans(3, init=M, n_init=1, algorithm="lloyd").fit(X)
    np.testing.assert_array_equal(ours.state.labels, sk.labels_)
    np.testing.assert_allclose(ours.state.objective, sk.inertia_, rtol=1e-10)


def naive_kernel_kmeans(K, labels, k):
    """One reassignment of kernel k-means, point by point (an independent oracle)."""
    out = labels.copy()
    for i in range(len(K)):
        best, arg = np.inf, -1
        for c in range(k):
            m = np.flatnonzero(labels == c)
            if m.size == 0:
                continue
            d = K[i, i] - 2 * K[i, m].sum() / m.size + K[np.ix_(m, m)].sum() / m.size**2
            if d < best:
                best, arg = d, c
        out[i] = arg
    return out


@pytest.mark.parametrize("with_links", [False, True])
def test_every_step_is_kernel_kmeans_on_k_plus_w(with_links):
    X = blobs(3, n_per=12)
    c = Constraints([[0, 13], [1, 2]], [[0, 1], [20, 30]], n_samples=len(X)) if with_links else None
    run = Run(SSKK, Dataset(X), c, {"n_clusters": 3, "init": "k-means++"}, seed=4)
    run.run()
    alg = run.algorithm
    if not with_links:
        assert not alg.W.any()
    else:
        assert alg.W[0, 13] == alg.W[13, 0] == alg.weight == 1.0 and alg.W[0, 1] == -1.0
    for prev, cur in itertools.pairwise(run.history):
        np.testing.assert_array_equal(cur.labels, naive_kernel_kmeans(alg.K_tilde, prev.labels, 3))


def test_kernel_objective_is_the_penalised_objective_for_every_partition():
    """The paper's reduction, by brute force over all partitions of 7 points into 2 or 3 groups:
    kernel k-means on sigma I + K + W equals sum |x - m_c|^2 - sum_ML_same 2w/|c| +
    sum_CL_same 2w/|c|, up to sigma (n - number of clusters)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(7, 2))
    ml, cl = [[0, 1], [2, 3]], [[0, 4], [1, 5], [3, 6]]
    c = Constraints(ml, cl, n_samples=7)
    alg = SSKK(Dataset(X), c, {"n_clusters": 3, "kernel": "linear", "weight": 0.7})
    for labels in itertools.product(range(3), repeat=7):
        labels = np.array(labels)
        sizes = np.bincount(labels, minlength=3)
        j = sum(((X[labels == g] - X[labels == g].mean(axis=0)) ** 2).sum()
                for g in range(3) if sizes[g])
        j -= sum(2 * 0.7 / sizes[labels[a]] for a, b in ml if labels[a] == labels[b])
        j += sum(2 * 0.7 / sizes[labels[a]] for a, b in cl if labels[a] == labels[b])
        got = kernel_kmeans_objective(alg.K_tilde, labels) - alg.sigma * (7 - np.count_nonzero(sizes))
        assert got == pytest.approx(j, abs=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_objective_never_increases(seed):
    from pairlab.links import random_pairs

    X = blobs(seed)
    y = np.repeat(np.arange(3), 25)
    c = random_pairs(y, 15, 15, np.random.default_rng(seed))
    for init in ("farthest-first", "k-means++"):
        for weight in (None, 5.0):
            run = Run(SSKK, Dataset(X), c, {"n_clusters": 3, "init": init, "weight": weight},
                      seed=seed)
            run.run()
            assert np.all(np.diff(run.objectives) <= 1e-9 * np.abs(run.objectives[:-1]).max())
            assert run.converged


def test_farthest_first_starts_neighbourhoods_together():
    X = blobs(1)
    c = Constraints([[0, 1], [1, 2], [30, 31], [60, 61]], None, n_samples=len(X))
    s0 = Run(SSKK, Dataset(X), c, {"n_clusters": 3}).state
    assert len({s0.labels[0], s0.labels[30], s0.labels[60]}) == 3
    assert s0.labels[0] == s0.labels[1] == s0.labels[2] and s0.labels[30] == s0.labels[31]


def test_precomputed_and_bad_input():
    X = blobs(0, n_per=5)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4.0)
    a = Run(SSKK, Dataset(K), None, {"n_clusters": 3, "kernel": "precomputed"}, seed=1)
    b = Run(SSKK, Dataset(X), None, {"n_clusters": 3, "bandwidth": 4.0}, seed=1)
    np.testing.assert_array_equal(a.run().labels, b.run().labels)
    with pytest.raises(InvalidInputError, match="n, n"):
        SSKK(Dataset(X), None, {"kernel": "precomputed"})
    K2 = K.copy()
    K2[0, 1] += 1.0
    with pytest.raises(InvalidInputError, match="symmetric"):
        SSKK(Dataset(K2), None, {"kernel": "precomputed"})
    with pytest.raises(InvalidInputError, match="means_init must have shape"):
        Run(SSKK, Dataset(X), None, {"n_clusters": 3, "means_init": np.zeros((2, 2))})
    with pytest.raises(InvalidInputError, match="precomputed"):
        SSKK(Dataset(K), None, {"kernel": "precomputed", "n_clusters": 1,
                                "means_init": np.zeros((1, 15))})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match="exceeds"):
            SSKK(Dataset(X[:2]), None, {"n_clusters": 3})
