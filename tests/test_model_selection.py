"""Cross-validation, searches and metadata routing with links (pairlab.model_selection)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pairlab import make_estimator
from pairlab.errors import InvalidInputError
from pairlab.model_selection import (
    LabelScorer,
    LinkScorer,
    cut_links,
    link_f_measure,
    link_rows,
)

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.experimental import enable_halving_search_cv  # noqa: E402,F401
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV,
    HalvingGridSearchCV,
    KFold,
    ParameterGrid,
    RandomizedSearchCV,
    cross_validate,
)
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

GRID = {"n_components": [2, 3, 4], "must_link_weight": [0.5, 3.0]}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(c, 1.0, (15, 2)) for c in ([0, 0], [6, 0], [0, 6])])
    y = np.repeat(np.arange(3), 15)
    pairs = np.unique(np.sort(rng.choice(45, (30, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    return X, y, pairs[same], pairs[~same]


def test_link_rows_cut_with_a_fold_keep_the_links_inside_it():
    rows = link_rows(6, must_link=[[0, 1], [1, 4]], cannot_link=[[2, 5], [0, 3]])
    fold = rows[[1, 4, 5, 0]]
    ml, index = cut_links(fold, "must")
    cl, _ = cut_links(fold, "cannot")
    assert index.tolist() == [1, 4, 5, 0]
    assert sorted(map(tuple, ml.tolist())) == [(0, 1), (0, 3)]  # (1, 4) and (0, 1) re-indexed
    assert cl.shape == (0, 2)  # (2, 5) and (0, 3) cross the fold
    with pytest.raises(InvalidInputError, match="indices must lie"):
        link_rows(3, must_link=[[0, 3]])


def test_fit_on_link_rows_equals_fit_on_the_fold_links(data):
    X, _y, ml, cl = data
    rows = link_rows(45, ml, cl)
    train = np.arange(0, 45, 2)
    a = make_estimator("gmpr", n_components=3, random_state=0).fit(
        X[train], must_link=rows[train], cannot_link=rows[train])
    keep = np.isin(ml, train).all(axis=1)
    pos = {int(j): p for p, j in enumerate(train)}
    ml_fold = np.vectorize(pos.get)(ml[keep]).reshape(-1, 2)
    keep_c = np.isin(cl, train).all(axis=1)
    cl_fold = np.vectorize(pos.get)(cl[keep_c]).reshape(-1, 2)
    b = make_estimator("gmpr", n_components=3, random_state=0).fit(
        X[train], must_link=ml_fold, cannot_link=cl_fold)
    assert np.array_equal(a.means_, b.means_) and np.array_equal(a.labels_, b.labels_)
    assert a.sample_index_.tolist() == train.tolist()
    c = make_estimator("gmpr", n_components=3, random_state=0).fit(X[train], rows[train])
    assert np.array_equal(a.means_, c.means_)


def test_link_f_measure_follows_cvcp():
    # must-links: 2 kept, 1 split; cannot-links: 1 joined, 3 apart
    s = link_f_measure([True, True, False], [True, False, False, False])
    f_ml = 2 * 2 / (2 * 2 + 1 + 1)
    f_cl = 2 * 3 / (2 * 3 + 1 + 1)
    assert s == pytest.approx((f_ml + f_cl) / 2)
    assert link_f_measure([True], []) == 1.0
    with pytest.raises(InvalidInputError, match="no held-out links"):
        link_f_measure([], [])


def _hand_loop(X, rows, cv):
    """GridSearchCV's choice written out: same folds, same scorer, first best in grid order."""
    means = []
    for params in ParameterGrid(GRID):
        scores = []
        for train, test in cv.split(X):
            est = make_estimator("ppc", random_state=0, **params).fit(
                X[train], must_link=rows[train], cannot_link=rows[train])
            scores.append(LinkScorer()(est, X[test], rows[test]))
        means.append(np.mean(scores))
    return list(ParameterGrid(GRID))[int(np.argmax(means))], np.array(means)


@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_grid_search_with_links_equals_a_hand_written_loop(data):
    X, _y, ml, cl = data
    rows = link_rows(45, ml, cl)
    cv = KFold(3, shuffle=True, random_state=0)
    best, means = _hand_loop(X, rows, cv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # without routing, fit metadata never reaches a scorer: the rows go as y (fit takes
        # the links from y when must_link and cannot_link are not given)
        plain = GridSearchCV(make_estimator("ppc", random_state=0), GRID, cv=cv,
                             scoring=LinkScorer(), error_score="raise").fit(X, rows)
        with sklearn.config_context(enable_metadata_routing=True):
            est = make_estimator("ppc", random_state=0).set_fit_request(
                must_link=True, cannot_link=True)
            scorer = LinkScorer().set_score_request(must_link=True, cannot_link=True)
            routed = GridSearchCV(est, GRID, cv=cv, scoring=scorer, error_score="raise").fit(
                X, must_link=rows, cannot_link=rows)
    for search in (plain, routed):
        assert search.best_params_ == best
        np.testing.assert_array_equal(search.cv_results_["mean_test_score"], means)
    assert best["n_components"] == 3


def test_other_searches_and_cross_validate_take_link_rows(data):
    X, y, ml, cl = data
    rows = link_rows(45, ml, cl, labels=y)
    est = make_estimator("gmpr", random_state=0)
    cv = KFold(3, shuffle=True, random_state=0)
    grid = {"n_components": [2, 3, 4]}
    out = cross_validate(clone(est).set_params(n_components=3), X, rows, cv=cv,
                         scoring={"links": LinkScorer(), "ari": LabelScorer()})
    assert out["test_links"].shape == (3,) and np.all(out["test_ari"] > 0.9)
    rs = RandomizedSearchCV(est, grid, n_iter=3, cv=cv, scoring=LinkScorer(),
                            random_state=0).fit(X, rows)
    hs = HalvingGridSearchCV(est, grid, cv=cv, scoring=LinkScorer(), min_resources=30,
                             random_state=0).fit(X, rows)
    assert rs.best_params_["n_components"] == 3 and hs.best_params_["n_components"] == 3


def test_routing_in_pipelines_and_clone(data):
    X, _y, ml, cl = data
    est = make_estimator("gmm", n_components=3, random_state=0)
    plain = make_pipeline(StandardScaler(), clone(est)).fit(
        X, pairwiseclustering__must_link=ml, pairwiseclustering__cannot_link=cl)
    with sklearn.config_context(enable_metadata_routing=True):
        asked = clone(est).set_fit_request(must_link=True, cannot_link=True)
        assert clone(asked)._metadata_request == {"must_link": True, "cannot_link": True}
        routed = make_pipeline(StandardScaler(), asked).fit(X, must_link=ml, cannot_link=cl)
        assert np.array_equal(routed[-1].means_, plain[-1].means_)
        with pytest.raises(Exception, match="must_link"):  # passed but not requested
            make_pipeline(StandardScaler(), clone(est)).fit(X, must_link=ml)
    with pytest.raises(InvalidInputError, match="unknown fit metadata"):
        clone(est).set_fit_request(sample_weight=True)


def test_scorer_refuses_without_links(data):
    X, _y, ml, cl = data
    est = make_estimator("gmm", n_components=3, random_state=0).fit(X)
    with pytest.raises(InvalidInputError, match="needs the test fold's links"):
        LinkScorer()(est, X)
    with pytest.raises(InvalidInputError, match="fitted without link_rows"):
        LinkScorer()(est, X, link_rows(45, ml, cl))


def test_confidences_travel_with_the_links_into_each_fold(data):
    """PPC (weighting="confidence", eq. 2.15) weighs each link by its confidence: a fold's fit
    from link rows with confidences equals the fit from the fold's links and their confidences
    written out by hand."""
    from pairlab import Constraints

    X, _y, ml, cl = data
    conf_ml = np.linspace(0.55, 0.95, len(ml))
    conf_cl = np.linspace(0.6, 0.9, len(cl))
    rows = link_rows(45, ml, cl, confidence={"must_link": conf_ml, "cannot_link": conf_cl})
    train = np.arange(45)[np.arange(45) % 3 != 0]
    position = {int(j): p for p, j in enumerate(train)}

    def kept(pairs, conf):
        out = [((position[a], position[b]), c) for (a, b), c in zip(pairs, conf, strict=True)
               if a in position and b in position]
        out.sort(key=lambda t: (min(t[0]), max(t[0])))
        return (np.array([sorted(p) for p, _ in out]).reshape(-1, 2),
                np.array([c for _, c in out]))

    kml, kml_conf = kept(ml, conf_ml)
    kcl, kcl_conf = kept(cl, conf_cl)
    hand = Constraints(kml, kcl, n_samples=train.size,
                       confidence={"must_link": kml_conf, "cannot_link": kcl_conf})
    a = make_estimator("ppc", n_components=3, weighting="confidence", random_state=0).fit(
        X[train], must_link=rows[train], cannot_link=rows[train])
    b = make_estimator("ppc", n_components=3, weighting="confidence", random_state=0).fit(
        X[train], constraints=hand)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_allclose(a.means_, b.means_, rtol=0, atol=0)
    # and confidences change PPC's fit (the test could fail if they were dropped)
    c = make_estimator("ppc", n_components=3, weighting="confidence", random_state=0).fit(
        X[train], constraints=Constraints(kml, kcl, n_samples=train.size))
    assert not np.array_equal(b.means_, c.means_)
    # plain pairs take confidence= as fit metadata, routed through a Pipeline
    with warnings.catch_warnings(), sklearn.config_context(enable_metadata_routing=True):
        warnings.simplefilter("ignore")
        pipe = make_pipeline(StandardScaler().set_fit_request(), make_estimator(
            "ppc", n_components=3, weighting="confidence", random_state=0).set_fit_request(
                must_link=True, cannot_link=True, confidence=True))
        pipe.fit(X, must_link=ml, cannot_link=cl,
                 confidence={"must_link": conf_ml, "cannot_link": conf_cl})
    direct = make_estimator("ppc", n_components=3, weighting="confidence", random_state=0).fit(
        StandardScaler().fit_transform(X), must_link=ml, cannot_link=cl,
        confidence={"must_link": conf_ml, "cannot_link": conf_cl})
    np.testing.assert_array_equal(pipe[-1].labels_, direct.labels_)
    with pytest.raises(InvalidInputError, match="carry confidences already"):
        make_estimator("ppc").fit(X, must_link=rows, cannot_link=rows, confidence=0.9)
