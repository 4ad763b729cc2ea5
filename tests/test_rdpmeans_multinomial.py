"""Multinomial (KL) RDP-means, Bregman K-means and the rdp-table4 recipe (Khashabi et al. Table 4)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pairlab_builtins.algorithms.bregman_kmeans import bregman_kmeans
from pairlab_builtins.reproductions.rdpmeans_table4 import PAPER_TABLE4, RDPTable4, topic_counts

from pairlab import Dataset, InvalidInputError, Run
from pairlab.links import random_pairs
from pairlab.reproduction import ReproductionResult


def _docs(seed: int, n: int = 40, k: int = 3, words: int = 6, length: int = 30):
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(words, 0.4), size=k)
    y = np.arange(n) % k
    X = np.array([rng.multinomial(int(rng.integers(5, length)), topics[c]) for c in y], float)
    return X, y, rng


def _kl_rows(X, smoothing=0.3):
    P = X + smoothing
    return P / P.sum(axis=1, keepdims=True)


def _kl(p, c):
    return float(np.sum(p * np.log(p / c)))


@pytest.mark.parametrize("seed", range(6))
def test_bregman_kmeans_objective_never_increases_and_centres_are_means(seed):
    X, _y, rng = _docs(seed)
    res = bregman_kmeans(X, 3, rng, divergence="kl")
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(res.objectives))
    Y = _kl_rows(X)
    for k in np.unique(res.labels):
        np.testing.assert_allclose(res.centers[k], Y[res.labels == k].mean(axis=0), rtol=1e-12)
    # the final assignment is each point's least KL centre
    best = [min(range(3), key=lambda k, p=p: _kl(p, res.centers[k])) for p in Y]
    np.testing.assert_array_equal(res.labels, best)


def test_bregman_kmeans_with_squared_euclidean_is_lloyd():
    X, _y, rng = _docs(1, n=60)
    init = X[rng.choice(60, 3, replace=False)]
    ours = bregman_kmeans(X, 3, rng, divergence="sqeuclidean", init=init)
    lloyd = Run("kmeans", Dataset(X), None, {"n_clusters": 3, "means_init": init}, seed=0)
    lloyd.run()
    np.testing.assert_array_equal(ours.labels, lloyd.state.labels)


def test_bregman_kmeans_refuses_bad_input():
    X, _y, rng = _docs(0, n=5)
    with pytest.raises(InvalidInputError, match="k=6"):
        bregman_kmeans(X, 6, rng)
    with pytest.raises(InvalidInputError, match="init must have shape"):
        bregman_kmeans(X, 2, rng, init=np.ones((3, X.shape[1])))
    with pytest.raises(InvalidInputError, match="non-negative counts"):
        bregman_kmeans(-X, 2, rng)


@pytest.mark.parametrize("seed", range(4))
def test_kl_rdpmeans_without_links_is_multinomial_dpmeans(seed):
    X, y, rng = _docs(seed)
    params = {"lambda_": 0.3, "divergence": "kl"}
    dp = Run("dpmeans", Dataset(X), None, params, seed=seed)
    rdp = Run("rdpmeans", Dataset(X), None, params, seed=seed)
    # links whose weight stays 0 (xi0 = 0) change nothing either
    zero = Run("rdpmeans", Dataset(X), random_pairs(y, 10, 10, rng), {**params, "xi0": 0.0},
               seed=seed)
    for _ in range(8):
        a, b, c = dp.step(), rdp.step(), zero.step()
        np.testing.assert_array_equal(a.labels, b.labels)
        np.testing.assert_array_equal(a.labels, c.labels)
        np.testing.assert_array_equal(a.model["centers"], b.model["centers"])
        assert a.objective == b.objective


def _energy(Y, z, centres, lam, xi, ml, cl):
    """Eq. 20 with every link counted once and lambda times the number of centres held."""
    div = sum(_kl(Y[j], centres[z[j]]) for j in range(len(Y)))
    together = lambda pairs: sum(z[a] == z[b] for a, b in pairs)  # noqa: E731
    return div + lam * len(centres) - xi * together(ml) + xi * together(cl)


@pytest.mark.parametrize("seed", range(5))
def test_kl_assignment_step_is_the_brute_force_best_move(seed):
    """Each visit of the first pass puts the point where the objective (eq. 20), every other
    label and the centres held fixed, is least: enumerated over every cluster and a new one."""
    X, y, rng = _docs(seed, n=9, k=2)
    cons = random_pairs(y, 4, 4, rng)
    lam, xi = 0.25, 0.3
    run = Run("rdpmeans", Dataset(X), cons,
              {"lambda_": lam, "xi0": xi, "divergence": "kl", "trace_every": 1}, seed=seed)
    Y = _kl_rows(X)
    order = np.random.default_rng(seed).permutation(len(X))  # the run's visiting order
    state = run.state
    centres = [np.asarray(c) for c in state.model["centers"]]
    z = list(state.labels)
    checked = 0
    for i in order[:-1]:  # the last visit ends the pass (centres move, labels renumbered)
        state = run.step()
        options = []
        for c in range(len(centres) + 1):
            trial_centres = centres if c < len(centres) else [*centres, Y[i]]
            trial = z.copy()
            trial[i] = c
            options.append(_energy(Y, trial, trial_centres, lam, xi, cons.must_link,
                                   cons.cannot_link))
        best = int(np.argmin(options))
        gap = np.partition(options, 1)[1] - options[best]
        assert state.labels[i] == best or gap < 1e-9
        if best == len(centres):
            centres.append(Y[i])
        z[i] = int(state.labels[i])
        np.testing.assert_array_equal(state.labels, z)
        checked += 1
    assert checked == len(X) - 1


def test_topic_counts_is_a_fixed_count_data_set():
    a, b = topic_counts(), topic_counts()
    np.testing.assert_array_equal(a.X, b.X)
    assert a.X.shape == (100, 1000) and a.n_classes == 10
    assert np.all(a.X >= 0) and np.all(a.X == np.round(a.X))
    assert not np.array_equal(topic_counts(1).X, a.X)


def _result(f_runs):
    table = {"imagenet": {m: {mod: {"F_runs": f_runs[m][j], "F": float(np.mean(f_runs[m][j]))}
                              for j, mod in enumerate(("gaussian", "multinomial"))}
                          for m in PAPER_TABLE4}}
    return ReproductionResult({"datasets": ["imagenet"], "table": table}, {}, [])


def test_table4_claims_compare_every_printed_cell():
    rng = np.random.default_rng(0)
    at_paper = {m: [list(v + rng.normal(0, 0.01, 10)) for v in PAPER_TABLE4[m]]
                for m in PAPER_TABLE4}
    claims = {c.name: c for c in RDPTable4().claims(_result(at_paper))}
    printed = [c for c in claims.values() if c.printed]
    assert len(printed) == 6 and all(c.held and not c.extension for c in printed)
    assert claims["imagenet_multinomial_better"].held
    far = {m: [list(np.asarray(v) + 0.2) for v in at_paper[m]] for m in at_paper}
    claims = RDPTable4().claims(_result(far))
    assert not any(c.held for c in claims if c.printed)


@pytest.mark.ci
def test_table4_quick_run_without_imagenet_skips_the_printed_cells(tmp_path):
    recipe = RDPTable4()
    options = recipe.options({"quick": True})
    trials = [recipe.trial(i, 10 + i, options) for i in range(2)]
    result = recipe.summarize(trials, options)
    assert result.data["datasets"] == ["topics-100"]
    assert any("imagenet: skipped" in s for s in result.data["skipped"])
    claims = recipe.claims(result)
    assert claims and all(c.extension and not c.printed for c in claims)
    again = recipe.trial(0, 10, options)
    assert again == trials[0]  # same seed, same numbers
    paths = recipe.render(result, tmp_path)
    assert {p.suffix for p in paths} >= {".png", ".svg"} and all(p.stat().st_size > 1000 for p in paths)
