"""An independent check that GM-PR (Yu et al.) and constrained EM / GMM-EC (Shental et al.) compute
the same E-step posterior: brute-force enumeration of all K^n labelings of a small problem.

The oracle shares no code with ``pairlab.markov``, ``pairlab.mixture`` or either algorithm: the
Gaussian densities come from scipy, the chunklets from a union-find written here, and the
posterior is the normalised sum over every labeling y of

    prod_chunklets alpha_{y_c} * prod_i N(x_i | mu_{y_i}, Sigma_{y_i})
    * prod_{must-links} [y_i = y_j] * prod_{cannot-links} [y_i != y_j]

(one prior factor per chunklet: GM-PR eq. 5-9, Shental et al.'s sampling assumption 1). Both
implementations' iteration-0 responsibilities (their E-step under the given start) are compared
with it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pairlab import Constraints, Dataset, Run


def _chunklet_sizes(n: int, must: list[tuple[int, int]]) -> np.ndarray:
    """Size of each point's must-link chunklet (a union-find of the must-links)."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in must:
        parent[root(i)] = root(j)
    roots = [root(i) for i in range(n)]
    return np.array([roots.count(r) for r in roots], dtype=float)


def oracle_posterior(X, weights, means, covs, must, cannot) -> np.ndarray:
    """p(y_i = m | X, links) by enumerating all K^n labelings."""
    n, k = X.shape[0], means.shape[0]
    dens = np.column_stack([multivariate_normal(means[m], covs[m]).pdf(X) for m in range(k)])
    share = 1.0 / _chunklet_sizes(n, must)  # alpha^(1/|c|) per point = alpha once per chunklet
    post = np.zeros((n, k))
    for y in itertools.product(range(k), repeat=n):
        if any(y[i] != y[j] for i, j in must) or any(y[i] == y[j] for i, j in cannot):
            continue
        w = 1.0
        for i, m in enumerate(y):
            w *= dens[i, m] * weights[m] ** share[i]
        for i, m in enumerate(y):
            post[i, m] += w
    return post / post.sum(axis=1, keepdims=True)


#: (n, k, must-links, cannot-links): disjoint pairs, chains, a triangle of cannot-links (a cycle),
#: cannot-links between chunklets, a star and a must-link cycle
CASES = [
    (5, 2, [(0, 1)], [(2, 3)]),
    (6, 3, [(0, 1), (1, 2)], [(2, 3), (3, 4)]),
    (6, 3, [], [(0, 1), (1, 2), (0, 2)]),
    (7, 3, [(0, 1), (2, 3)], [(1, 2), (3, 4), (4, 5), (5, 6), (6, 4)]),
    (7, 4, [(4, 5)], [(0, 1), (0, 2), (0, 3), (0, 4)]),
    (6, 2, [(0, 1), (1, 2), (2, 0)], [(3, 4), (4, 5)]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("seed", [0, 1])
def test_gmpr_and_gmm_ec_posteriors_equal_brute_force(case, seed):
    n, k, must, cannot = CASES[case]
    rng = np.random.default_rng(100 * case + seed)
    d = 2
    X = rng.normal(scale=2.0, size=(n, d))
    means = rng.normal(scale=2.0, size=(k, d))
    a = rng.normal(size=(k, d, d))
    covs = a @ a.transpose(0, 2, 1) + 0.5 * np.eye(d)
    weights = rng.dirichlet(np.ones(k))
    expected = oracle_posterior(X, weights, means, covs, must, cannot)
    cons = Constraints(must or None, cannot or None, n_samples=n)
    start = {"n_components": k, "means_init": means, "weights_init": weights,
             "covariances_init": covs}
    for algorithm in ("gmpr", "constrained-em"):
        got = Run(algorithm, Dataset(X), cons, params=start).state.responsibilities
        np.testing.assert_allclose(got, expected, atol=1e-10, rtol=1e-8, err_msg=algorithm)


def test_the_oracle_notices_a_wrong_prior():
    """The check can fail: one prior factor per point (not per chunklet) gives other posteriors."""
    n, k, must, cannot = CASES[1]
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 2))
    means = rng.normal(size=(k, 2))
    covs = np.array([np.eye(2)] * k)
    weights = np.array([0.7, 0.2, 0.1])
    per_chunklet = oracle_posterior(X, weights, means, covs, must, cannot)
    per_point = oracle_posterior(X, weights, means, covs, [], cannot)
    assert not np.allclose(per_chunklet, per_point, atol=1e-3)
