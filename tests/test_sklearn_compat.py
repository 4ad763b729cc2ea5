"""scikit-learn compatibility of every built-in estimator (check_estimator, pickling, pipelines)."""

from __future__ import annotations

import copy
import pickle
import warnings

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError as SkNotFittedError
from sklearn.metrics import adjusted_rand_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import pairlab
from pairlab import InvalidInputError, make_estimator
from pairlab.errors import ConvergenceWarning, LinkViolationWarning, NotFittedError
from pairlab.registry import get_registry

ALGORITHMS = [e.name for e in get_registry().entries("algorithms") if e.plugin.builtin]

# The one list of scikit-learn checks that do not apply to clustering with links: check name ->
# (reason, the algorithms it applies to).
_PREDICTS_PROBA = {n for n in ALGORITHMS if get_registry().algorithm(n).can_predict()}
SKIPPED_CHECKS = {
    "check_dtype_object": (
        "X with a dict in it raises pairlab's InvalidInputError (a ValueError quoting numpy's "
        "'float() argument must be a string or a real number'), not a TypeError: pairlab reports "
        "every unusable X with one error type", set(ALGORITHMS)),
    "check_estimator_sparse_array": (
        "the check reads predict_proba as a classifier's, one column per class of y (4); a "
        "clusterer's columns are its components (sparse X itself is densified with a warning, "
        "tested below)", _PREDICTS_PROBA),
    "check_estimator_sparse_matrix": ("as check_estimator_sparse_array", _PREDICTS_PROBA),
    "check_fit2d_1sample": (
        "one sample is refused with the plugin's own message ('exceed(s) the number of points "
        "(1)'), not one of scikit-learn's phrasings", {"gmpr-mixture", "rdpmeans", "dpmeans"}),
}


#: Fewer sweeps for TVClust's Gibbs sampler (200 by default): the checks test the estimator API,
#: which does not depend on the number of sweeps, and the defaults made TVClust 29 of the 44 s of
#: CPU that the checks of all 25 algorithms take.
_CHECK_PARAMS = {"tvclust": {"max_iter": 20, "burn_in": 5}}


def _estimator(name: str, random_state: int = 0):
    return make_estimator(name, random_state=random_state, **_CHECK_PARAMS.get(name, {}))


def _skipped(est) -> dict[str, str]:
    return {check: reason for check, (reason, names) in SKIPPED_CHECKS.items()
            if est.algorithm in names}


@parametrize_with_checks([_estimator(name) for name in ALGORITHMS],
                         expected_failed_checks=_skipped)
def test_check_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", LinkViolationWarning)
        check(estimator)


def _blobs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(12, 2)), rng.normal(size=(12, 2)) + 6.0])
    return X, np.repeat([0, 1], 12)


LINKS = {"must_link": [[0, 1], [12, 13]], "cannot_link": [[0, 12]]}


@pytest.mark.parametrize("name", ALGORITHMS)
def test_fitted_estimator_pickles_joblibs_and_deep_copies(name, tmp_path):
    X, _ = _blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = _estimator(name).fit(X, **LINKS)
    joblib.dump(est, tmp_path / "est.joblib")
    for other in (pickle.loads(pickle.dumps(est)), joblib.load(tmp_path / "est.joblib"),
                  copy.deepcopy(est)):
        assert type(other) is type(est) and other.get_params() == est.get_params()
        np.testing.assert_array_equal(other.labels_, est.labels_)
        assert not other.state_.labels.flags.writeable  # still a read-only record
        if hasattr(est, "predict"):
            np.testing.assert_array_equal(other.predict_proba(X + 0.5), est.predict_proba(X + 0.5))


@pytest.mark.parametrize("name", ALGORITHMS)
def test_set_params_round_trip_and_not_fitted(name):
    est = make_estimator(name, random_state=3)  # the defaults, compared with the class below
    params = est.get_params()
    assert est.set_params(**params) is est and est.get_params() == params
    assert clone(est).get_params() == params
    assert pairlab.PairwiseClustering(name, random_state=3).get_params() == params
    with pytest.raises(InvalidInputError, match="use make_estimator"):
        est.set_params(algorithm="no-such" if name != "no-such" else "gmm")
    if hasattr(est, "predict"):
        for method in (est.predict, est.predict_proba):
            with pytest.raises(NotFittedError, match="not fitted yet") as info:
                method(np.zeros((2, 2)))
            assert isinstance(info.value, SkNotFittedError)  # what scikit-learn code catches


def test_random_state_is_validated():
    X, _ = _blobs()
    for bad in ("abc", -1, 1.5, True):
        with pytest.raises(InvalidInputError, match="random_state must be None, a non-negative"):
            make_estimator("gmm", random_state=bad).fit(X)
    a = make_estimator("gmm", random_state=np.random.default_rng(5)).fit(X).labels_
    b = make_estimator("gmm", random_state=np.random.default_rng(5)).fit(X).labels_
    np.testing.assert_array_equal(a, b)
    make_estimator("gmm", random_state=np.random.RandomState(1)).fit(X)


class _Frame:
    """The part of a pandas DataFrame scikit-learn looks at: ``columns`` and ``__array__``."""

    def __init__(self, values: np.ndarray, columns: list[str]) -> None:
        self.values, self.columns = np.asarray(values), list(columns)

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)

    def __getitem__(self, cols):
        return _Frame(self.values[:, [self.columns.index(c) for c in cols]], list(cols))


def test_feature_names_are_checked_at_predict():
    X, _ = _blobs()
    X = np.column_stack([X, X[:, 0] * 0.1])
    est = make_estimator("gmm", n_components=2, random_state=0).fit(_Frame(X, ["a", "b", "c"]))
    np.testing.assert_array_equal(est.feature_names_in_, ["a", "b", "c"])
    shuffled = _Frame(X[:, [1, 0, 2]], ["b", "a", "c"])
    with pytest.raises(InvalidInputError, match="feature names should match.*another order"):
        est.predict(shuffled)
    np.testing.assert_array_equal(est.predict(shuffled[est.feature_names_in_]), est.labels_)
    with pytest.raises(InvalidInputError, match="unseen at fit time: \\['d'\\]"):
        est.predict(_Frame(X, ["a", "b", "d"]))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        est.predict(X)
    with pytest.raises(InvalidInputError, match="X has 2 features, but PairwiseClustering is expecting 3"):
        est.predict(X[:, :2])


def test_sparse_input_is_densified_with_a_warning_or_refused(monkeypatch):
    X, _ = _blobs()
    with pytest.warns(UserWarning, match="sparse matrix.*converted to a dense \\(24, 2\\)"):
        labels = make_estimator("gmm", random_state=0).fit(sp.csr_matrix(X)).labels_
    np.testing.assert_array_equal(labels, make_estimator("gmm", random_state=0).fit(X).labels_)
    monkeypatch.setattr("pairlab.dataset.DENSIFY_LIMIT", 40)
    with pytest.raises(InvalidInputError, match="too many to densify.*TruncatedSVD"):
        make_estimator("gmm").fit(sp.csr_matrix(X))


def test_grid_search_and_pipeline():
    X, y = _blobs()
    X = X * [1.0, 50.0]

    def ari(est, X, y):
        return adjusted_rand_score(y, est.predict(X))

    grid = GridSearchCV(make_estimator("gmm", random_state=0), {"n_components": [1, 2, 4]},
                        scoring=ari, cv=KFold(3, shuffle=True, random_state=0)).fit(X, y)
    assert grid.best_params_ == {"n_components": 2}
    pipe = Pipeline([("scale", StandardScaler()), ("cluster", make_estimator("gmpr", random_state=0))])
    pipe.fit(X, cluster__must_link=LINKS["must_link"], cluster__cannot_link=LINKS["cannot_link"])
    direct = make_estimator("gmpr", random_state=0).fit(StandardScaler().fit_transform(X), **LINKS)
    np.testing.assert_array_equal(pipe.predict(X), direct.predict(StandardScaler().fit_transform(X)))
    assert adjusted_rand_score(y, pipe.predict(X)) == 1.0
    ap = Pipeline([("scale", StandardScaler()), ("cluster", make_estimator("scssap"))])
    assert not hasattr(ap, "predict")  # SCSSAP cannot classify unseen points
    assert ap.fit_predict(X).shape == (24,)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_global_seterr_raise_breaks_nothing(name):
    """A library that calls np.seterr(all="raise") at import (one constrained-clustering package
    does) must not turn pairlab's expected underflows into errors."""
    X, _ = _blobs()
    old = np.seterr(all="raise")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = _estimator(name).fit(X, **LINKS)
            if hasattr(est, "predict"):
                assert np.isfinite(est.predict_proba(X * 1e3)).all()
    finally:
        np.seterr(**old)
    assert est.labels_.shape == (24,)


@pytest.mark.parametrize("search", ["grid", "cross_val_score"])
def test_links_through_cross_validation_are_refused(search):
    """Issue 33.2: each fold applied the full data's link indices to its own rows, silently."""
    from sklearn.model_selection import cross_val_score

    X, y = _blobs()
    est = make_estimator("gmpr", random_state=0)
    with pytest.raises(InvalidInputError, match="cross-validation.*pairlab .?sweep"):
        if search == "grid":
            GridSearchCV(est, {"n_components": [2, 3]}, scoring="adjusted_rand_score", cv=3,
                         error_score="raise").fit(X, y, **LINKS)
        else:
            cross_val_score(est, X, y, cv=3, scoring="adjusted_rand_score", error_score="raise",
                            params=dict(LINKS))
    GridSearchCV(est, {"n_components": [2, 3]}, scoring="adjusted_rand_score", cv=3,
                 error_score="raise").fit(X, y, must_link=[])       # no links: searches work
