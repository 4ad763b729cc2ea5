"""Bad input, for every registered algorithm: a clear pairlab error or a finite answer, never NaN.

Each case is driven through the scikit-learn style estimator (``make_estimator(...).fit``) and,
where the input reaches the core differently, through :class:`pairlab.Run`. A numpy RuntimeWarning
(divide by zero, invalid value) during any of these fits fails the test: it is how NaN starts.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pairlab import Registry, make_estimator
from pairlab.constraints import Constraints
from pairlab.dataset import Dataset
from pairlab.errors import ConvergenceWarning, InconsistentConstraintsError, InvalidInputError, PairlabError
from pairlab.run import Run

pytestmark = [
    pytest.mark.filterwarnings("error::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::pairlab.errors.ConvergenceWarning"),
]

_REGISTRY = Registry(external=False)
ALGORITHMS = _REGISTRY.names("algorithms")
SIZE_PARAMS = ("n_components", "n_clusters", "k")
# Caps that keep every fit on these tiny data sets fast; they change no defaults that matter here.
_FAST = {"max_iter": 30, "round_max_iter": 50, "max_rounds": 3, "gibbs_sweeps": 40, "gibbs_burn_in": 10}


def _cls(name):
    return _REGISTRY.algorithm(name)


def _param_names(name) -> set[str]:
    return {p.name for p in _cls(name).params}


def _size_param(name) -> str | None:
    names = _param_names(name)
    return next((s for s in SIZE_PARAMS if s in names), None)


def _fast(name, **params):
    names = _param_names(name)
    out = {k: v for k, v in _FAST.items() if k in names}
    out.update(params)
    return out


def _blobs(n_per=8, d=2, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0] * d, [6.0] * d, [0.0] * (d - 1) + [9.0]])
    return np.vstack([c + rng.normal(size=(n_per, d)) for c in centres])


X0 = _blobs()


def _estimator(name, **params):
    return make_estimator(name, random_state=0, **_fast(name, **params))


def _check_finite(est, n: int) -> None:
    labels = est.labels_
    assert labels.shape == (n,) and labels.dtype.kind in "iu"
    for state in est.history_:
        # -inf is a legitimate objective (a broken link with an infinite penalty); NaN never is.
        assert state.objective is None or state.objective < np.inf, state.objective
        if state.responsibilities is not None:
            assert np.all(np.isfinite(state.responsibilities))
        for key, value in state.model.items():
            arr = np.asarray(value)
            if arr.dtype.kind in "fc":
                assert np.all(np.isfinite(arr)), key


def _clear_error_or_finite(name, X, **kwargs):
    """Fit; a PairlabError with a real message is fine, and so is a finite answer."""
    est = _estimator(name, **kwargs.pop("params", {}))
    try:
        est.fit(X, **kwargs)
    except PairlabError as exc:
        msg = str(exc)
        assert len(msg) > 20 and "Traceback" not in msg, msg
        return None
    _check_finite(est, np.asarray(X).shape[0])
    return est


# -- the data matrix ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_rows_are_named(name, bad):
    X = X0.copy()
    X[5, 1] = bad
    X[11, 0] = bad
    with pytest.raises(InvalidInputError, match=r"NaN or infinite.*5, 11.*remove or impute"):
        _estimator(name).fit(X, must_link=[[0, 1]])
    with pytest.raises(InvalidInputError, match=r"NaN or infinite.*5, 11"):
        Run(name, Dataset(X), Constraints([[0, 1]], n_samples=len(X)), _fast(name))


@pytest.mark.parametrize("name", ALGORITHMS)
def test_one_dimensional_X(name):
    with pytest.raises(InvalidInputError, match=r"2-D.*reshape\(-1, 1\)"):
        _estimator(name).fit(X0[:, 0])


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("X", [np.empty((0, 2)), [], [[]], np.empty((5, 0))],
                         ids=["0x2", "list", "1x0", "5x0"])
def test_empty_X(name, X):
    with pytest.raises(InvalidInputError, match="X "):
        _estimator(name).fit(X)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_non_numeric_X(name):
    with pytest.raises(InvalidInputError, match="numeric"):
        _estimator(name).fit([["a", "b"], ["c", "d"]])


@pytest.mark.parametrize("name", [a for a in ALGORITHMS if _size_param(a)])
def test_fewer_points_than_clusters(name):
    size = _size_param(name)
    with pytest.raises(InvalidInputError, match=rf"(?=.*\b{size}\b).*number of points \(3\)"):
        _estimator(name, **{size: 5}).fit(X0[:3])


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_points(name, n):
    _clear_error_or_finite(name, X0[:n])


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("kind", ["identical", "two-values", "one-feature-constant"])
def test_duplicate_points(name, kind):
    if kind == "identical":
        X = np.ones((12, 2))
    elif kind == "two-values":
        X = np.repeat([[0.0, 0.0], [1.0, 2.0]], 6, axis=0)
    else:
        X = X0.copy()
        X[:, 1] = 3.0
    _clear_error_or_finite(name, X)
    _clear_error_or_finite(name, X, must_link=[[0, 1]], cannot_link=[[0, len(X) - 1]])


@pytest.mark.parametrize("name", ALGORITHMS)
def test_more_features_than_points(name):
    X = np.random.default_rng(1).normal(size=(6, 10))
    _clear_error_or_finite(name, X, must_link=[[0, 1]], cannot_link=[[0, 5]])


@pytest.mark.parametrize("name", ALGORITHMS)
def test_complex_X(name):
    with pytest.raises(InvalidInputError, match="complex values"):
        _estimator(name).fit(X0 + 1j)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_huge_and_tiny_scales(name):
    _clear_error_or_finite(name, X0 * 1e150)
    _clear_error_or_finite(name, X0 * 1e-150)
    with pytest.raises(InvalidInputError, match=r"as large as 1e\+200.*overflow.*Rescale X"):
        _estimator(name).fit(np.vstack([X0, [[1e200, 0.0]]]))


@pytest.mark.parametrize("name", ALGORITHMS)
def test_far_from_the_origin(name):
    """A common offset of 1e10 changes no label (no |x|^2 - 2 x.c + |c|^2 cancellation)."""
    kw = {"must_link": [[0, 1]], "cannot_link": [[0, 9]]}
    near = _estimator(name).fit(X0, **kw)
    far = _estimator(name).fit(X0 + 1e10, **kw)
    np.testing.assert_array_equal(near.labels_, far.labels_)


def test_constrained_em_pseudo_normalizer_more_features_than_points():
    """The pseudo-likelihood Z of a class with weight near 0 stays finite (no log(0) warnings)."""
    X = np.random.default_rng(1).normal(size=(6, 10))
    est = _clear_error_or_finite("constrained-em", X, must_link=[[0, 1]], cannot_link=[[0, 5]],
                                 params={"sampling_assumption": 2, "normalizer": "pseudo"})
    assert est is not None and np.isclose(est.weights_.sum(), 1.0)


# -- constraints ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize(
    ("ml", "cl", "pattern"),
    [
        ([[0, 24]], None, r"must_link pair 0 is \(0, 24\).*\[0, 23\]"),
        (None, [[3, 4], [-1, 2]], r"cannot_link pair 1 is \(-1, 2\).*\[0, 23\]"),
        ([[2, 2]], None, r"must_link pair 0 links point 2 to itself"),
        (None, [[1, 2], [7, 7]], r"cannot_link pair 1 links point 7 to itself"),
        ([[0, 1], [2, 3]], [[3, 2]], r"pair \(2, 3\) is both a must-link and a cannot-link"),
        ([[0.5, 1]], None, r"non-integer"),
        ([[0, 1, 2]], None, r"shape \(n_pairs, 2\)"),
        ([[0, 1], [1, 0]], None, r"more than once"),
    ],
    ids=["ml-out-of-range", "cl-negative", "ml-self", "cl-self", "ml-and-cl", "float", "shape", "dup"],
)
def test_bad_link_lists(name, ml, cl, pattern):
    with pytest.raises(InvalidInputError, match=pattern):
        _estimator(name).fit(X0, must_link=ml, cannot_link=cl)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_contradictory_hard_constraints(name):
    ml, cl = [[0, 1], [1, 2], [2, 9]], [[0, 9]]
    cls = _cls(name)
    if cls.hard_constraints and cls.uses_constraints:
        with pytest.raises(InconsistentConstraintsError, match=r"0 - 1 - 2 - 9.*remove one"):
            _estimator(name).fit(X0, must_link=ml, cannot_link=cl)
        with pytest.raises(InconsistentConstraintsError):
            Run(name, Dataset(X0), Constraints(ml, cl, n_samples=len(X0)), _fast(name))
    else:
        est = _clear_error_or_finite(name, X0, must_link=ml, cannot_link=cl)
        assert est is not None, f"{name} has soft (or no) constraints and must fit contradictory links"


@pytest.mark.parametrize("name", ALGORITHMS)
def test_unsatisfiable_cannot_links(name):
    """A cannot-link triangle (and a 4-clique) with 2 components: an error saying so, or an answer."""
    size = _size_param(name)
    params = {size: 2} if size == "n_components" or size == "n_clusters" else {}
    _clear_error_or_finite(name, X0, cannot_link=[[0, 8], [8, 16], [0, 16]], params=params)
    clique = [[i, j] for i in (0, 8, 16, 1) for j in (0, 8, 16, 1) if i < j]
    _clear_error_or_finite(name, X0, must_link=[[1, 2]], cannot_link=clique, params=params)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_constraints_for_another_n(name):
    other = Constraints([[0, 1]], [[2, 3]], n_samples=10)
    with pytest.raises(InvalidInputError, match=r"10 points.*24"):
        _estimator(name).fit(X0, constraints=other)
    with pytest.raises(InvalidInputError, match=r"10 points.*24"):
        Run(name, Dataset(X0), other, _fast(name))
    with pytest.raises(InvalidInputError, match="either constraints= or must_link="):
        _estimator(name).fit(X0, must_link=[[0, 1]], constraints=Constraints.empty(len(X0)))


# -- parameters ----------------------------------------------------------------------------------
def _below_low(p):
    if p.type is int:
        return int(p.low) - 1 if not p.low_open else int(p.low)
    return p.low - 1.0 if not p.low_open else p.low


def _range_cases():
    for name in ALGORITHMS:
        for p in _cls(name).params:
            if p.type in (int, float) and p.low is not None:
                yield pytest.param(name, p.name, _below_low(p), id=f"{name}-{p.name}-low")
            if p.type in (int, float) and p.high is not None:
                yield pytest.param(name, p.name, p.high + 1, id=f"{name}-{p.name}-high")
            if p.choices is not None and p.type is str:
                yield pytest.param(name, p.name, "no-such-choice", id=f"{name}-{p.name}-choice")


@pytest.mark.parametrize(("name", "param", "value"), list(_range_cases()))
def test_out_of_range_parameters_are_named(name, param, value):
    with pytest.raises(InvalidInputError, match=rf"Parameter '{param}' must"):
        _estimator(name, **{param: value}).fit(X0)
    with pytest.raises(InvalidInputError, match=rf"Parameter '{param}' must"):
        Run(name, Dataset(X0), None, {param: value})


@pytest.mark.parametrize("name", ALGORITHMS)
def test_invalid_parameter_values(name):
    names = _param_names(name)
    size = _size_param(name)
    if "tol" in names:
        with pytest.raises(InvalidInputError, match="'tol' must be >= 0"):
            _estimator(name, tol=-1e-3).fit(X0)
    if size is not None:
        with pytest.raises(InvalidInputError, match=rf"'{size}' must be >= 1, got 0"):
            _estimator(name, **{size: 0}).fit(X0)
        with pytest.raises(InvalidInputError, match=rf"'{size}' expects int"):
            _estimator(name, **{size: 2.5}).fit(X0)
    with pytest.raises(InvalidInputError, match="no_such_param"):
        make_estimator(name, no_such_param=1)
    with pytest.raises(InvalidInputError, match="no_such_param"):
        Run(name, Dataset(X0), None, {"no_such_param": 1})
    est = _estimator(name)
    with pytest.raises(InvalidInputError, match="no_such_param"):
        est.set_params(no_such_param=1)


@pytest.mark.parametrize("name", [a for a in ALGORITHMS if "means_init" in _param_names(a)])
@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (2,), (1, 2, 2)])
def test_wrong_shaped_means_init(name, shape):
    size = _size_param(name)
    params = {size: 2} if size else {}
    with pytest.raises(InvalidInputError, match=r"means_init must have shape \(\d+, 2\), got"):
        _estimator(name, means_init=np.zeros(shape), **params).fit(X0)


@pytest.mark.parametrize("name", [a for a in ALGORITHMS if "means_init" in _param_names(a)])
def test_non_finite_means_init(name):
    with pytest.raises(InvalidInputError, match="'means_init'.*NaN"):
        _estimator(name, means_init=[[0.0, np.nan], [1.0, 1.0]]).fit(X0)


@pytest.mark.parametrize("name", [a for a in ALGORITHMS if "covariances_init" in _param_names(a)])
def test_bad_covariances_and_weights_init(name):
    one = {"n_components_per_class": 1} if "n_components_per_class" in _param_names(name) else {}
    with pytest.raises(InvalidInputError, match=r"covariances_init must have shape \(\d+, 2, 2\), got"):
        _estimator(name, covariances_init=np.ones((2, 2)), **one).fit(X0)
    singular = np.array([np.eye(2), [[1.0, 1.0], [1.0, 1.0]]])
    with pytest.raises(InvalidInputError, match="singular.*reg_covar"):
        _estimator(name, covariances_init=singular, reg_covar=0.0, **one).fit(X0)
    with pytest.raises(InvalidInputError, match="weights_init"):
        _estimator(name, weights_init=[0.7, 0.7], **one).fit(X0)
    with pytest.raises(InvalidInputError, match="weights_init"):
        _estimator(name, weights_init=[0.5, 0.25, 0.25], **one).fit(X0)


# -- predicting ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALGORITHMS)
def test_predict_on_bad_X(name):
    est = _estimator(name).fit(X0, must_link=[[0, 1]], cannot_link=[[0, 9]])
    if not _cls(name).can_predict():
        assert not hasattr(est, "predict") and not hasattr(est, "predict_proba")
        with pytest.raises(InvalidInputError, match="cannot classify unseen points"):
            est.predict(X0)
        return
    for method in (est.predict, est.predict_proba):
        with pytest.raises(InvalidInputError, match="X has 3 features, but PairwiseClustering is expect"):
            method(np.zeros((4, 3)))
        with pytest.raises(InvalidInputError, match="NaN or infinite"):
            method(np.array([[0.0, np.nan]]))
        with pytest.raises(InvalidInputError, match="2-D"):
            method(np.zeros(2))
    far = np.array([[1e8, -1e8], [0.0, 1e12], [3.0, 3.0]])
    proba = est.predict_proba(far)
    assert proba.shape[0] == 3 and np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert est.predict(far).shape == (3,)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_predict_before_fit(name):
    match = "not fitted yet" if _cls(name).can_predict() else "cannot classify unseen points"
    with pytest.raises(InvalidInputError, match=match):
        _estimator(name).predict(X0)


# -- determinism ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALGORITHMS)
def test_same_seed_same_result(name):
    X = _blobs(n_per=6, seed=3)
    kw = {"must_link": [[0, 1], [6, 7]], "cannot_link": [[0, 6], [7, 12]]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = make_estimator(name, random_state=7, **_fast(name)).fit(X, **kw)
        b = make_estimator(name, random_state=7, **_fast(name)).fit(X, **kw)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.objective_history_, b.objective_history_)
    assert a.n_iter_ == b.n_iter_
    for sa, sb in zip(a.history_, b.history_, strict=True):
        for key in sa.model:
            np.testing.assert_array_equal(np.asarray(sa.model[key]), np.asarray(sb.model[key]), err_msg=key)
    run = Run(name, Dataset(X), Constraints(kw["must_link"], kw["cannot_link"], n_samples=len(X)),
              _fast(name), seed=7)
    run.run()
    np.testing.assert_array_equal(run.state.labels, a.labels_)
    np.testing.assert_array_equal(run.objectives, a.objective_history_)
