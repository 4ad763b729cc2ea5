"""Partial labels as a budget: the ``labels`` link generator (``reveal_labels``), its seeds for
Seeded-/Constrained-KMeans in a sweep, and budgets given as a share of the points."""

import csv
import io
import itertools

import numpy as np
import pytest

from pairlab import PairwiseClustering, get_registry
from pairlab.errors import InvalidInputError
from pairlab.links import draw_links, draw_seed_labels, links_from_labels, reveal_labels
from pairlab.sweep import parse_spec, run_sweep
from pairlab.sweep.spec import SpecError

Y = np.repeat([3, 7, 9], [50, 30, 5])      # unequal classes, labels not 0..C-1


def test_reveal_labels_draws_distinct_points_and_codes():
    out = reveal_labels(Y, 20, np.random.default_rng(0))
    known = out >= 0
    assert known.sum() == 20 and (out[~known] == -1).all()
    codes = np.unique(Y, return_inverse=True)[1]
    assert (out[known] == codes[known]).all()
    assert (reveal_labels(Y, 20, np.random.default_rng(0)) == out).all()
    assert (reveal_labels(Y, 0, np.random.default_rng(0)) == -1).all()
    assert (reveal_labels(Y, Y.size, np.random.default_rng(0)) == codes).all()


def test_uniform_reveal_visits_every_point_equally_often():
    hits = np.zeros(Y.size)
    rng = np.random.default_rng(1)
    for _ in range(2000):
        hits += reveal_labels(Y, 17, rng) >= 0
    # each point is labelled with probability 17/85 = 0.2: 400 of 2000, sd ~ 18
    assert np.abs(hits - 400).max() < 90


@pytest.mark.parametrize("n_labeled", [3, 4, 10, 14, 40, 85])
def test_stratified_reveal_spreads_over_classes_round_robin(n_labeled):
    sizes = np.bincount(np.unique(Y, return_inverse=True)[1])
    for seed in range(20):
        out = reveal_labels(Y, n_labeled, np.random.default_rng(seed), stratified=True)
        per_class = np.bincount(out[out >= 0], minlength=3)
        assert per_class.sum() == n_labeled and (per_class <= sizes).all()
        # water filling: the counts are as even as the class sizes allow
        level = per_class[per_class < sizes]
        assert level.size == 0 or level.max() - level.min() <= 1
        assert (per_class[per_class == sizes] <= (level.max() if level.size else np.inf)).all()
        if n_labeled >= 3:
            assert (per_class >= 1).all()


def test_stratified_remainder_goes_to_random_classes():
    firsts = {int(np.flatnonzero(np.bincount(reveal_labels(Y, 1, np.random.default_rng(s),
                                                           stratified=True) + 1, minlength=4)[1:])[0])
              for s in range(30)}
    assert firsts == {0, 1, 2}


def test_reveal_refuses_bad_counts():
    for bad in (-1, 86, 2.5, True):
        with pytest.raises(InvalidInputError, match="n_labeled"):
            reveal_labels(Y, bad, np.random.default_rng(0))


def _dataset(n=90, seed=0):
    return get_registry().dataset("gaussian-blobs").make(seed=seed, n_samples=n, cluster_std=0.7)


def test_labels_generator_links_every_pair_of_the_revealed_points():
    ds = _dataset()
    params = {"n_labeled": 12, "stratified": True}
    links = draw_links(ds, "labels", params, np.random.default_rng(5))
    seeds = draw_seed_labels(ds, params, np.random.default_rng(5))
    assert links.n_must_link + links.n_cannot_link == 12 * 11 // 2
    expected = links_from_labels(seeds)
    assert np.array_equal(links.must_link, expected.must_link)
    assert np.array_equal(links.cannot_link, expected.cannot_link)
    for i, j in itertools.chain(links.must_link, links.cannot_link):
        assert seeds[i] >= 0 and seeds[j] >= 0
    # with label noise the seeds carry the same relabelled classes as the links
    noisy = draw_links(ds, "labels", params, np.random.default_rng(5), label_noise=0.3,
                       label_rng=np.random.default_rng(6))
    nseeds = draw_seed_labels(ds, params, np.random.default_rng(5), label_noise=0.3,
                              label_rng=np.random.default_rng(6))
    assert np.array_equal(noisy.must_link, links_from_labels(nseeds).must_link)
    # one labelled point makes no pair
    assert draw_links(ds, "labels", {"n_labeled": 1}, np.random.default_rng(0)).n_must_link == 0


def _rows(result):
    return list(csv.DictReader(io.StringIO(result.table.read_text())))


def test_sweep_budgets_partial_labels_seeds_and_links(tmp_path):
    spec = parse_spec({
        "name": "seeds", "trials": 2, "metrics": ["ari"],
        "algorithms": [{"name": "seeded-kmeans", "params": {"n_clusters": 3}},
                       {"name": "constrained-kmeans", "params": {"n_clusters": 3}},
                       {"name": "pck-means", "params": {"n_clusters": 3}}],
        "datasets": [{"name": "gaussian-blobs", "params": {"n_samples": 90}}],
        "links": {"generator": "labels", "budget": [0, 9, 0.2], "params": {"stratified": True}},
    })
    rows = _rows(run_sweep(spec, tmp_path, progress=None))
    assert len(rows) == 3 * 3 * 2 and all(r["error"] == "" for r in rows)
    by = {(r["method"], r["budget"], r["trial"]): r for r in rows}
    for method in ("seeded-kmeans", "constrained-kmeans"):
        assert by[(method, "0", "0")]["n_seeds"] == ""
        assert by[(method, "9", "0")]["n_seeds"] == "9"
        assert by[(method, "0.2", "1")]["n_seeds"] == "18"        # a share of the 90 points
    for b, m in (("0", 0), ("9", 9), ("0.2", 18)):
        r = by[("pck-means", b, "0")]
        assert r["n_seeds"] == "" and int(r["n_must_link"]) + int(r["n_cannot_link"]) == m * (m - 1) // 2

    # the sweep's seeded run is the estimator's fit with the same partial labels, bit for bit
    r = by[("constrained-kmeans", "9", "1")]
    ds = get_registry().dataset("gaussian-blobs").make(seed=int(r["data_seed"]), n_samples=90)
    seeds = draw_seed_labels(ds, {"n_labeled": 9, "stratified": True},
                             np.random.default_rng([int(r["link_seed"]), 0]),
                             label_rng=np.random.default_rng([int(r["link_seed"]), 1]))
    links = draw_links(ds, "labels", {"n_labeled": 9, "stratified": True},
                       np.random.default_rng([int(r["link_seed"]), 0]))
    est = PairwiseClustering("constrained-kmeans", n_clusters=3, random_state=int(r["fit_seed"]))
    est.fit(ds.X, constraints=links, labels=seeds)
    from sklearn.metrics import adjusted_rand_score
    assert float(r["ari"]) == pytest.approx(adjusted_rand_score(ds.y, est.labels_), abs=0, rel=1e-12)


def test_sweep_share_of_points_must_be_below_one_or_whole(tmp_path):
    with pytest.raises(SpecError, match="fraction of all points"):
        parse_spec({"name": "x", "trials": 1, "metrics": ["ari"],
                    "algorithms": [{"name": "kmeans"}],
                    "datasets": [{"name": "gaussian-blobs"}],
                    "links": {"generator": "labels", "budget": [2.5]}})


def test_pairlab_run_gives_the_labels_generator_seeds_to_seed_taking_algorithms(capsys):
    import json

    from pairlab import cli

    argv = ["run", "constrained-kmeans", "--dataset", "iris", "--generator", "labels",
            "--gen", "n_labeled=12", "--gen", "stratified=true", "--set", "n_clusters=3", "--json"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    seeds = np.array(out["params"]["seed_labels"])
    assert (seeds >= 0).sum() == 12 and out["n_must_link"] + out["n_cannot_link"] == 66
    assert np.bincount(seeds[seeds >= 0].astype(int)).tolist() == [4, 4, 4]
    # too few clusters for the labelled classes: a message that says what to change
    assert cli.main([*argv[:-3], "--json"]) != 0
    assert "set n_clusters to at least 3" in capsys.readouterr().err
