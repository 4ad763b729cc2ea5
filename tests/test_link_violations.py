"""Certain links are never broken silently: counted, warned about, printed; impossible graphs refused."""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pytest

from pairlab import Constraints, InconsistentConstraintsError, make_estimator
from pairlab.cli import main
from pairlab.errors import ConvergenceWarning, LinkViolationWarning

CERTAIN = [("gmpr", {}), ("gmpr-mixture", {"n_components_per_class": 1}), ("constrained-em", {}),
           ("ppc", {"weighting": "hard"})]


@pytest.mark.parametrize("name, params", CERTAIN)
def test_identical_points_cannot_link_is_reported(name, params):
    """fit(np.ones((20, 2)), cannot_link=[[0, 19]]) used to join both points silently."""
    with pytest.warns(LinkViolationWarning, match=r"labels break 1 cannot-link \(\(0, 19\)\)"):
        est = make_estimator(name, n_components=2, random_state=0, **params).fit(
            np.ones((20, 2)), cannot_link=[[0, 19]])
    assert est.labels_[0] == est.labels_[19]
    assert est.n_violated_links_ == 1
    np.testing.assert_array_equal(est.violated_links_["cannot_link"], [[0, 19]])


def test_scssap_with_infinite_penalties_counts_as_certain():
    from pairlab import Dataset, Run

    X = np.random.default_rng(0).normal(size=(12, 2))
    c = Constraints([[0, 1]], [[2, 3]], n_samples=12)
    hard = Run("scssap", Dataset(X), c, {}).algorithm.certain_links()
    soft = Run("scssap", Dataset(X), c, {"q_ml": 2.0, "q_cl": np.inf}).algorithm.certain_links()
    assert [m.tolist() for m in hard] == [[True], [True]]
    assert [m.tolist() for m in soft] == [[False], [True]]
    ppc = Run("ppc", Dataset(X), c, {"must_link_weight": np.inf}).algorithm.certain_links()
    assert [m.tolist() for m in ppc] == [[True], [False]]


def test_soft_links_broken_are_counted_without_a_warning():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(10, 2)), rng.normal(size=(10, 2)) + 8])
    with warnings.catch_warnings():
        warnings.simplefilter("error", LinkViolationWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = make_estimator("ppc", n_components=2, random_state=0, must_link_weight=0.1).fit(
            X, must_link=[[0, 15]])
    assert est.n_violated_links_ == 1 and est.violated_links_["must_link"].tolist() == [[0, 15]]


@pytest.mark.parametrize("name", ["gmpr", "constrained-em", "gmpr-mixture"])
def test_impossible_cannot_link_graph_is_an_error(name):
    """19 mutually cannot-linked points and 2 classes: 171 links, no labelling satisfies them.
    The network is too loopy for exact inference, which used to leave only a UserWarning."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    clique = list(itertools.combinations(range(19), 2))
    extra = {"n_components_per_class": 1} if name == "gmpr-mixture" else {}
    for k, match in ((2, "points 0, 1, 2 cannot all hold with 2 classes"),
                     (3, "points 0, 1, 2, 3 cannot all hold with 3 classes")):
        with pytest.raises(InconsistentConstraintsError, match=match):
            make_estimator(name, n_components=k, random_state=0, **extra).fit(X, cannot_link=clique)


def test_uncolourable_witness():
    odd = Constraints(None, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 0], [5, 6]], n_samples=8)
    assert odd.uncolourable_witness(2).tolist() == [0, 1, 2, 3, 4]
    assert odd.uncolourable_witness(3) is None  # a 5-cycle is 3-colourable
    even = Constraints(None, [[0, 1], [1, 2], [2, 3], [3, 0]], n_samples=4)
    assert even.uncolourable_witness(2) is None
    # must-links merge points into chunklets first: {0, 1} against 2 and 3, and 2 - 3
    merged = Constraints([[0, 1]], [[0, 2], [1, 3], [2, 3]], n_samples=4)
    assert merged.uncolourable_witness(2).tolist() == [0, 1, 2, 3]
    k4 = Constraints(None, list(itertools.combinations(range(4), 2)), n_samples=6)
    assert k4.uncolourable_witness(3).tolist() == [0, 1, 2, 3]
    assert k4.uncolourable_witness(4) is None
    assert Constraints(None, [[0, 1]], n_samples=2).uncolourable_witness(1).tolist() == [0, 1]


def test_pairlab_run_prints_violated_links(tmp_path, capsys):
    X = np.ones((20, 2))
    np.savetxt(tmp_path / "same.csv", np.column_stack([X, np.repeat([0, 1], 10)]), delimiter=",")
    (tmp_path / "cl.json").write_text(json.dumps({"cannot_link": [[0, 19]]}))
    argv = ["run", "gmpr", "--dataset", "csv", "--data", f"path={tmp_path / 'same.csv'}",
            "--data", "label=-1", "--constraints", str(tmp_path / "cl.json")]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert "violated links: 1 (0 must-link, 1 cannot-link)" in out.out
    assert "gmpr treats these links as certain, yet its labels break 1 cannot-link ((0, 19))" in out.err
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["violated_links"] == {"must_link": 0, "cannot_link": 1}
    assert result["violated_certain_links"]["cannot_link"] == [[0, 19]]


def test_ssap_g_broken_cannot_links_are_reported():
    """Issue 33.1: ssap-g called its links hard yet broke 3 cannot-links without a warning."""
    from sklearn.datasets import make_moons

    X = make_moons(40, random_state=0)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(LinkViolationWarning, match="ssap-g .* 3 cannot-links"):
            est = make_estimator("ssap-g", random_state=0).fit(
                X, cannot_link=[[0, 1], [1, 2], [0, 2]])
    assert est.n_violated_links_ == 3


def test_ssap_g_cannot_links_inside_a_group_are_not_certain():
    from pairlab import Dataset, Run

    X = np.random.default_rng(0).normal(size=(12, 2))
    c = Constraints([[0, 1], [1, 2]], [[0, 2], [2, 3]], n_samples=12)
    ml, cl = Run("ssap-g", Dataset(X), c, {}).algorithm.certain_links()
    assert ml.tolist() == [True, True] and cl.tolist() == [False, True]
