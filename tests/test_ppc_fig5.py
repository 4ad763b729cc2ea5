"""ppc-fig5 (Lu & Leen Fig. 5, the artificial sets): its normality test, Gaussian-per-class
accuracy and claims."""

from __future__ import annotations

import numpy as np
import pytest
from pairlab_builtins.reproductions.ppc_artificial import (
    PPCArtificial,
    gaussian_per_class_accuracy,
    mardia,
)


def test_mardia_accepts_gaussian_and_rejects_uniform_and_ring():
    rng = np.random.default_rng(0)
    gauss = rng.multivariate_normal([1, -2], [[2.0, 0.8], [0.8, 1.0]], size=400)
    m = mardia(gauss)
    assert min(m["p_skewness"], m["p_kurtosis"]) > 0.001
    assert m["kurtosis"] == pytest.approx(8.0, abs=0.6)  # d(d+2) for d = 2
    square = rng.uniform(-1, 1, size=(400, 2))
    assert mardia(square)["p_kurtosis"] < 1e-6  # flat: kurtosis below 8
    t = rng.uniform(0, 2 * np.pi, 400)
    ring = np.column_stack([np.cos(t), np.sin(t)]) * (5 + rng.normal(0, 0.3, 400))[:, None]
    assert mardia(ring)["p_kurtosis"] < 1e-6
    # invariant to an affine map of the data
    A = np.array([[3.0, 1.0], [0.0, 0.5]])
    assert mardia(square @ A.T + 7)["kurtosis"] == pytest.approx(mardia(square)["kurtosis"])
    with pytest.raises(ValueError, match="more than 3 points"):
        mardia(gauss[:3])


def test_gaussian_per_class_accuracy():
    rng = np.random.default_rng(1)
    far = np.vstack([rng.normal(0, 1, (100, 2)), rng.normal(20, 1, (100, 2))])
    y = np.repeat([0, 1], 100)
    assert gaussian_per_class_accuracy(far, y) == 1.0
    # a narrow class inside a wide one: a quadratic boundary, better than any line (~50%)
    nested = np.vstack([rng.normal(0, 0.3, (200, 2)), rng.normal(0, 3.0, (200, 2))])
    y = np.repeat([0, 1], 200)
    assert gaussian_per_class_accuracy(nested, y) > 0.85
    same = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal(0, 1, (200, 2))])
    assert gaussian_per_class_accuracy(same, y) < 0.65


@pytest.mark.ci
def test_quick_run_and_claims():
    recipe = PPCArtificial()
    options = recipe.options({"quick": True})
    trials = [recipe.trial(i, 7 + i, options) for i in range(3)]
    assert recipe.trial(0, 7, options) == trials[0]  # same seed, same numbers
    result = recipe.summarize(trials, options)
    sets = result.data["sets"]
    assert list(sets) == ["set1", "set2", "set3"]
    claims = {c.name: c for c in recipe.claims(result)}
    assert set(claims) == {"shape", "nongaussian", "kmeans_gmm_unsatisfactory",
                           "set1_gaussian_easy_kmeans_hard", "set2_overlap"}
    assert claims["shape"].held and claims["shape"].paper == 200
    assert len(result.panels) == 9  # classes, K-means, GMM for each set
    for s in sets.values():
        assert len(s["kmeans"]["accuracy_runs"]) == 3 and 0.5 <= s["gmm"]["mean"] <= 1.0
    # the claims follow the numbers: a set on which K-means is satisfactory breaks the claim
    sets["set1"]["kmeans"].update(mean=0.99, se=0.0)
    changed = {c.name: c for c in recipe.claims(result)}
    assert not changed["kmeans_gmm_unsatisfactory"].held
    assert not changed["set1_gaussian_easy_kmeans_hard"].held
