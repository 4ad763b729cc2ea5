"""scikit-learn style estimators for any registered algorithm."""

from __future__ import annotations

import inspect
import sys
import warnings
from typing import Any

import numpy as np

from .constraints import Constraints
from .dataset import Dataset, as_data_matrix
from .errors import ConvergenceWarning, InvalidInputError, NotFittedError, PluginError
from .run import Run, warn_violated_links

__all__ = ["PairwiseClustering", "make_estimator"]


class _NoPrediction(InvalidInputError, AttributeError):
    """``predict`` asked of an algorithm that cannot classify unseen points.

    Being an AttributeError, ``hasattr(est, "predict")`` is False for such estimators, which is
    how scikit-learn (pipelines, grid searches, ``check_estimator``) decides what to call.
    """


class _IfCanPredict:
    """Expose a prediction method only when the chosen algorithm can classify unseen points."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        if not obj._algorithm_class().can_predict():
            raise _NoPrediction(
                f"{obj.algorithm} cannot classify unseen points; use fit_predict on all the data."
            )
        return self.fn.__get__(obj, owner)


class _NoLikelihood(InvalidInputError, AttributeError):
    """``score``/``bic``/... asked of an algorithm whose model is not a Gaussian mixture."""


class _IfGaussian(_IfCanPredict):
    """Expose a likelihood method only for Gaussian-family algorithms (pairlab.likelihood)."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        from .likelihood import is_gaussian_family

        if not is_gaussian_family(obj._algorithm_class()):
            raise _NoLikelihood(f"{obj.algorithm} is not a Gaussian mixture; score, score_samples, "
                                "bic, aic and sample belong to the Gaussian-family algorithms.")
        return self.fn.__get__(obj, owner)


def _not_fitted_error() -> type[NotFittedError]:
    """pairlab's NotFittedError, which is also scikit-learn's when scikit-learn is in use."""
    sk = sys.modules.get("sklearn.exceptions")
    if sk is None:
        return NotFittedError
    global _SK_NOT_FITTED
    if _SK_NOT_FITTED is None:
        _SK_NOT_FITTED = type("NotFittedError", (NotFittedError, sk.NotFittedError),
                              {"__module__": NotFittedError.__module__})
    return _SK_NOT_FITTED


_SK_NOT_FITTED: type[NotFittedError] | None = None


_SPLITTERS = ("sklearn.model_selection._validation", "sklearn.model_selection._search")


def _refuse_links_in_cv_folds() -> None:
    """Refuse links inside scikit-learn's cross-validation, whose folds slice X but not the links."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__") in _SPLITTERS and frame.f_code.co_name == "_fit_and_score":
            raise InvalidInputError(
                "must_link/cannot_link cannot go through scikit-learn's cross-validation "
                "(GridSearchCV, cross_val_score, ...): each fold fits on a subset of X's rows while "
                "the links index the full data, so they would join the wrong points. Give the links as "
                "pairlab.model_selection.link_rows(n, must_link, cannot_link) instead (they are cut "
                "with each fold), or use `pairlab sweep`.")
        frame = frame.f_back


def _any_pairs(pairs: Any) -> bool:
    try:
        return pairs is not None and np.size(pairs) > 0
    except ValueError:                                   # ragged: Constraints says what is wrong
        return True


def _seed(random_state: Any) -> int | None:
    """The integer seed behind ``random_state`` (None, a non-negative int or a numpy generator)."""
    if random_state is None:
        return None
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state >= 0:
            return int(random_state)
    raise InvalidInputError(
        f"random_state must be None, a non-negative integer or a numpy Generator, got "
        f"{random_state!r}."
    )


def _feature_names(X: Any) -> np.ndarray | None:
    """Column names of a data frame whose columns are all strings (scikit-learn's rule)."""
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray):
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.size and all(isinstance(c, str) for c in names):
        return names
    return None


class PairwiseClustering:
    """Fit any registered algorithm with ``fit(X, must_link=..., cannot_link=...)``.

    ``PairwiseClustering(algorithm, random_state=None, **params)`` (or :func:`make_estimator`)
    returns an instance of the algorithm's own estimator class, whose ``__init__`` signature
    lists ``random_state`` and the algorithm's parameters (its ``Param`` specs, with their
    defaults), as scikit-learn's ``clone``, ``get_params`` and ``check_estimator`` expect. The
    algorithm is fixed by the class (``est.algorithm``); it is not a parameter.

    Parameters
    ----------
    algorithm : str
        Registered algorithm name (``pairlab list``).
    random_state : int, numpy Generator or None
        Seed of the ``numpy.random.Generator`` behind every random choice.
    **params
        The algorithm's parameters; unspecified ones take their defaults. They are validated
        by ``fit``, as in scikit-learn.

    Attributes after ``fit``: ``labels_``, ``n_iter_``, ``converged_``, ``history_`` (the states),
    ``objective_history_``, ``state_`` (the last state), ``run_`` (the :class:`~pairlab.Run`),
    ``n_features_in_`` (and ``feature_names_in_`` when ``X`` was a data frame with string column
    names; both are checked by ``predict``), ``violated_links_`` (the given links the labels break,
    ``{"must_link": (k, 2) array, "cannot_link": (m, 2) array}``) and ``n_violated_links_``, and
    each array of the final model under scikit-learn's name with a trailing underscore
    (``means_``, ``covariances_``, ``weights_``, ``exemplars_``, ``centers_`` ...). Links the
    algorithm treats as certain and the labels break also raise a
    :class:`~pairlab.errors.LinkViolationWarning`.

    ``predict`` and ``predict_proba`` exist only for algorithms that classify unseen points
    (``hasattr(est, "predict")`` says which), so pipelines and grid searches use them correctly.
    """

    algorithm: str = ""
    _estimator_type = "clusterer"

    def __new__(cls, *args: Any, **kwargs: Any) -> PairwiseClustering:
        if cls is PairwiseClustering:
            name = args[0] if args else kwargs.get("algorithm")
            if not isinstance(name, str):
                raise InvalidInputError(
                    f"algorithm must be a registered algorithm name (pairlab list), got {name!r}."
                )
            cls = _estimator_class(name)
        return object.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # the algorithm's class replaces this with one that has the algorithm's signature
        self._set_up(*args, **kwargs)

    def _set_up(self, *args: Any, **params: Any) -> None:
        """Store random_state and the parameters; ``algorithm`` may be repeated (the old API)."""
        if args and isinstance(args[0], str):
            params.setdefault("algorithm", args[0])
            args = args[1:]
        if params.get("algorithm", self.algorithm) != self.algorithm:
            raise InvalidInputError(
                f"this estimator runs {self.algorithm!r}; use make_estimator({params['algorithm']!r})."
            )
        params.pop("algorithm", None)
        if len(args) > 1:
            raise TypeError("give the algorithm's parameters by name (random_state=..., ...)")
        self.random_state = args[0] if args else params.pop("random_state", None)
        specs = self._algorithm_class().params
        if set(params) - {p.name for p in specs}:
            from .params import resolve_params

            resolve_params(specs, params, owner=f"algorithm {self.algorithm!r}")
        for p in specs:
            setattr(self, p.name, params.get(p.name, _default(p)))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # the class is made per algorithm at run time: rebuild it by name (pickle, joblib, copy)
        return (_rebuild, (self.algorithm, dict(self.__dict__)))

    def _algorithm_class(self):
        from .registry import get_registry

        return get_registry().algorithm(self.algorithm)

    @property
    def _param_names(self) -> list[str]:
        return [p.name for p in self._algorithm_class().params]

    # -- scikit-learn protocol ----------------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        out = {"random_state": self.random_state}
        out.update({name: getattr(self, name) for name in self._param_names})
        return out

    def set_params(self, **params: Any) -> PairwiseClustering:
        if params.get("algorithm", self.algorithm) != self.algorithm:
            raise InvalidInputError(
                f"this estimator runs {self.algorithm!r}; the algorithm is fixed by the class, so "
                f"use make_estimator({params['algorithm']!r}, ...) for another one."
            )
        params.pop("algorithm", None)
        valid = {"random_state", *self._param_names}
        for key, value in params.items():
            if key not in valid:
                raise InvalidInputError(
                    f"Invalid parameter {key!r} for {self.algorithm}; valid: {sorted(valid)}."
                )
            setattr(self, key, value)
        return self

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type="clusterer", target_tags=TargetTags(required=False),
                    input_tags=InputTags(sparse=True), non_deterministic=False,
                    requires_fit=True)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "state_")

    def __repr__(self) -> str:
        cls = self._algorithm_class()
        changed = {p.name: getattr(self, p.name) for p in cls.params
                   if not _same(getattr(self, p.name), _default(p))}
        if self.random_state is not None:
            changed["random_state"] = self.random_state
        args = ", ".join([repr(self.algorithm)] + [f"{k}={v!r}" for k, v in changed.items()])
        return f"PairwiseClustering({args})"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Notebook display: parameters and, once fitted, the run's summary and picture."""
        from .display_run import estimator_bundle

        return estimator_bundle(self)

    def fit(self, X: Any, y: Any = None, *, must_link: Any = None, cannot_link: Any = None,
            constraints: Constraints | None = None, labels: Any = None,
            confidence: Any = None) -> PairwiseClustering:
        """Fit on ``X`` with constraints given as pairs or as a :class:`~pairlab.Constraints`.

        ``y`` is ignored (present for scikit-learn pipelines); constraints carry the supervision.
        Links may also come as :func:`pairlab.model_selection.link_rows` (cut with the rows of a
        fold by scikit-learn's searches), as ``must_link=``/``cannot_link=`` or as ``y``: the links
        with both ends among the rows are used, re-indexed, and ``sample_index_`` keeps the rows'
        indices in the full data (for the held-out link scorer). ``labels``: partial labels
        (-1 for unlabelled points) for algorithms that start from seeds (``seeded-kmeans``,
        ``constrained-kmeans``); for the others turn them into links with
        :func:`pairlab.links_from_labels`. ``confidence``: the links' confidences in [0, 1], as
        :class:`~pairlab.Constraints` takes them (a scalar, a mapping by kind, or one value per
        pair); link rows made with ``link_rows(..., confidence=...)`` carry their own.
        """
        must_link, cannot_link, sample_index, row_conf = _from_link_rows(y, must_link, cannot_link)
        if row_conf is not None:
            if confidence is not None:
                raise InvalidInputError("the link rows carry confidences already; give them once "
                                        "(link_rows(..., confidence=...)) and drop confidence=.")
            confidence = row_conf
        if sample_index is None and (constraints is not None or _any_pairs(must_link)
                                     or _any_pairs(cannot_link)):
            _refuse_links_in_cv_folds()  # pairs indexed for the full data, not link rows
        names = _feature_names(X)
        X = as_data_matrix(X)
        if constraints is not None and (must_link is not None or cannot_link is not None):
            raise InvalidInputError("give either constraints= or must_link=/cannot_link=, not both")
        if constraints is not None and confidence is not None:
            raise InvalidInputError("constraints= carries its own confidences; give confidence= "
                                    "only with must_link=/cannot_link=")
        if constraints is None:
            constraints = Constraints(must_link, cannot_link, n_samples=X.shape[0],
                                      confidence=confidence)
        elif constraints.n_samples != X.shape[0]:
            raise InvalidInputError(
                f"constraints refer to {constraints.n_samples} points but X has {X.shape[0]} rows."
            )
        seed = _seed(self.random_state)
        params = {name: getattr(self, name) for name in self._param_names}
        if labels is not None:
            params["seed_labels"] = self._seed_labels(labels, X.shape[0])
        run = Run(self._algorithm_class(), Dataset(X, name="X"), constraints, params, seed=seed)
        run.run()
        if not run.converged and run.max_iter is not None:
            warnings.warn(
                f"{self.algorithm} did not converge within max_iter={run.max_iter} iterations; "
                "increase max_iter or tol.", ConvergenceWarning, stacklevel=2,
            )
        fitted = [k for k in vars(self) if k.endswith("_") and not k.startswith("_")
                  and k not in self._param_names]  # rdpmeans has a parameter lambda_
        for key in fitted:
            delattr(self, key)  # a refit leaves nothing of the previous model behind
        self.run_ = run
        self.state_ = run.state
        self.history_ = list(run.history)
        self.objective_history_ = run.objectives
        self.labels_ = np.array(run.state.labels)
        self.n_iter_ = run.n_iter
        self.converged_ = run.converged
        self.n_features_in_ = X.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        if sample_index is not None:
            self.sample_index_ = sample_index
        self.violated_links_ = run.violated_links()
        self.n_violated_links_ = sum(len(v) for v in self.violated_links_.values())
        warn_violated_links(run, stacklevel=2)
        for key, value in run.state.model.items():
            setattr(self, f"{key}_", value)
        return self

    def _seed_labels(self, labels: Any, n: int) -> np.ndarray:
        if not getattr(self._algorithm_class(), "takes_seed_labels", False):
            raise InvalidInputError(
                f"{self.algorithm} does not start from seeds, so it takes no labels=; make links "
                "of them with pairlab.links_from_labels(labels) and pass those, or use "
                "seeded-kmeans or constrained-kmeans.")
        arr = np.asarray(labels)
        if arr.shape != (n,):
            raise InvalidInputError(f"labels must have one entry per row of X ({n}), got shape "
                                    f"{arr.shape}.")
        return arr

    # -- metadata routing (scikit-learn >= 1.4 with enable_metadata_routing=True) -------------
    _fit_metadata: tuple[str, ...] = ("must_link", "cannot_link", "constraints", "labels",
                                      "confidence")

    def set_fit_request(self, **requests: Any) -> PairwiseClustering:
        """Request fit metadata (``must_link``, ``cannot_link``, ``constraints``, ``labels``,
        ``confidence``):
        True, False, None or an alias, as scikit-learn's ``set_fit_request``."""
        unknown = set(requests) - set(self._fit_metadata)
        if unknown:
            raise InvalidInputError(f"unknown fit metadata {sorted(unknown)}; {self.algorithm} "
                                    f"takes {list(self._fit_metadata)}.")
        self._metadata_request = _FitRequests({**getattr(self, "_metadata_request", {}),
                                               **requests})
        return self

    def get_metadata_routing(self) -> Any:
        """scikit-learn's MetadataRequest: the fit metadata requested by :meth:`set_fit_request`."""
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=type(self).__name__)
        asked = getattr(self, "_metadata_request", {})
        for name in self._fit_metadata:
            request.fit.add_request(param=name, alias=asked.get(name))
        return request

    def fit_predict(self, X: Any, y: Any = None, **kwargs: Any) -> np.ndarray:
        return self.fit(X, y, **kwargs).labels_

    def _check_fitted(self, X: Any) -> np.ndarray:
        if not hasattr(self, "state_"):
            raise _not_fitted_error()(
                f"This {self.algorithm} estimator is not fitted yet; call fit before using it."
            )
        self._check_feature_names(X)
        X = as_data_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise InvalidInputError(
                f"X has {X.shape[1]} features, but PairwiseClustering is expecting "
                f"{self.n_features_in_} features as input (the estimator was fitted with "
                f"{self.n_features_in_})."
            )
        return X

    def _check_feature_names(self, X: Any) -> None:
        """scikit-learn's rule: names seen in fit must come back in the same order."""
        fitted, names = getattr(self, "feature_names_in_", None), _feature_names(X)
        if fitted is None and names is None:
            return
        if fitted is None:
            warnings.warn("X has feature names, but PairwiseClustering was fitted without feature "
                          "names", UserWarning, stacklevel=3)
            return
        if names is None:
            warnings.warn("X does not have valid feature names, but PairwiseClustering was fitted "
                          "with feature names", UserWarning, stacklevel=3)
            return
        if len(names) != len(fitted) or np.any(names != fitted):
            missing = [str(c) for c in fitted if c not in set(names)]
            unseen = [str(c) for c in names if c not in set(fitted)]
            detail = ""
            if unseen:
                detail += f" Feature names unseen at fit time: {unseen}."
            if missing:
                detail += f" Feature names seen at fit time, yet now missing: {missing}."
            if not detail:
                detail = (f" The columns are in another order: fitted with {list(fitted)}, got "
                          f"{list(names)}; reorder them (X[est.feature_names_in_]).")
            raise InvalidInputError(
                "The feature names should match those that were passed during fit." + detail
            )

    @_IfCanPredict
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of unseen points (generative models only)."""
        X = self._check_fitted(X)
        with np.errstate(under="ignore"):  # as in Run: underflow is expected, never an error
            proba = self.run_.algorithm.predict_proba(self.state_, X)
        arr = np.asarray(proba, dtype=float)
        if arr.shape[0] != X.shape[0] or arr.ndim != 2 or not np.all(np.isfinite(arr)):
            raise PluginError(
                f"algorithm {self.algorithm!r} returned invalid probabilities from predict_proba "
                f"(shape {arr.shape}, {int(np.sum(~np.isfinite(arr)))} NaN or infinite values); "
                "this is a bug in that plugin."
            )
        return arr

    @_IfCanPredict
    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each unseen point."""
        return self.predict_proba(X).argmax(axis=1)

    # -- likelihood of the Gaussian family (pairlab.likelihood says what is reported) -----------
    def _require_fitted(self) -> None:
        if not hasattr(self, "state_"):
            raise _not_fitted_error()(
                f"This {self.algorithm} estimator is not fitted yet; call fit before using it.")

    def _mixture(self):
        from .likelihood import fitted_mixture

        return fitted_mixture(self.state_, self.run_.params)

    @_IfGaussian
    def score_samples(self, X: Any) -> np.ndarray:
        """log p(x_i | theta) of each row under the fitted mixture, as a point without links."""
        X = self._check_fitted(X)
        return self._mixture().score_samples(X)

    @_IfGaussian
    def score(self, X: Any, y: Any = None) -> float:
        """Mean of :meth:`score_samples` (scikit-learn's ``GaussianMixture.score``)."""
        return float(self.score_samples(X).mean())

    @_IfGaussian
    def n_parameters(self) -> int:
        """Free parameters of the fitted mixture (scikit-learn's ``_n_parameters``)."""
        self._require_fitted()
        return self._mixture().n_parameters()

    @_IfGaussian
    def bic(self, X: Any) -> float:
        """Bayesian information criterion -2 log L + p log n on ``X`` (lower is better)."""
        n = as_data_matrix(X).shape[0]
        return float(-2 * self.score(X) * n + self.n_parameters() * np.log(n))

    @_IfGaussian
    def aic(self, X: Any) -> float:
        """Akaike information criterion -2 log L + 2 p on ``X`` (lower is better)."""
        n = as_data_matrix(X).shape[0]
        return float(-2 * self.score(X) * n + 2 * self.n_parameters())

    @_IfGaussian
    def sample(self, n_samples: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)``: draws from the fitted mixture and their components, seeded by
        ``random_state`` (the same seed gives the same draws)."""
        self._require_fitted()
        seed = _seed(self.random_state)
        return self._mixture().sample(n_samples, np.random.default_rng(seed))


class _FitRequests(dict):
    """The requested fit metadata; scikit-learn's clone copies it to the clone."""

    def __sklearn_clone__(self) -> _FitRequests:
        return _FitRequests(self)


def _from_link_rows(y: Any, must_link: Any, cannot_link: Any) -> tuple[Any, Any, Any, Any]:
    """Pairs from link rows given as ``must_link``/``cannot_link`` or ``y`` (else unchanged), the
    rows' indices and the kept links' confidences (``None`` when the rows carry none)."""
    from .model_selection import cut_links_with_confidence, is_link_rows

    rows = [v for v in (must_link, cannot_link) if is_link_rows(v)]
    if not rows and must_link is None and cannot_link is None and is_link_rows(y):
        must_link = cannot_link = y
        rows = [y]
    if not rows:
        return must_link, cannot_link, None, None
    index = None
    conf: dict[str, Any] = {}
    if is_link_rows(must_link):
        must_link, index, conf["must_link"] = cut_links_with_confidence(must_link, "must")
    if is_link_rows(cannot_link):
        cannot_link, other, conf["cannot_link"] = cut_links_with_confidence(cannot_link, "cannot")
        if index is not None and not np.array_equal(index, other):
            raise InvalidInputError("must_link and cannot_link link rows are for different rows.")
        index = other
    conf = {k: v for k, v in conf.items() if v is not None}
    return must_link, cannot_link, index, conf or None


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is not None and b is not None and np.array_equal(a, b)
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # values set_params accepted without validating them
        return False


_CLASSES: dict[type, type[PairwiseClustering]] = {}


def _estimator_class(name: str) -> type[PairwiseClustering]:
    """The estimator class of algorithm ``name``: an ``__init__`` with its parameters' names."""
    from .registry import get_registry

    algo = get_registry().algorithm(name)
    cls = _CLASSES.get(algo)
    if cls is not None:
        return cls
    P = inspect.Parameter
    sig = inspect.Signature(
        [P("self", P.POSITIONAL_OR_KEYWORD), P("random_state", P.KEYWORD_ONLY, default=None)]
        + [P(p.name, P.KEYWORD_ONLY, default=_default(p)) for p in algo.params
           if p.name != "random_state"]
    )

    def __init__(self: PairwiseClustering, *args: Any, **params: Any) -> None:
        self._set_up(*args, **params)

    __init__.__signature__ = sig  # type: ignore[attr-defined]
    __init__.__doc__ = f"{algo.title or algo.name}: the parameters of ``pairlab list``."
    cls = type("PairwiseClustering", (PairwiseClustering,),
               {"__init__": __init__, "algorithm": algo.name, "__module__": __name__,
                "__doc__": PairwiseClustering.__doc__})
    _CLASSES[algo] = cls
    return cls


def _default(p: Any) -> Any:
    """A parameter's default as scikit-learn wants it in a signature (a 0-d array as a scalar)."""
    d = p.default
    return d.item() if isinstance(d, np.ndarray) and d.ndim == 0 else d


def _rebuild(name: str, state: dict[str, Any]) -> PairwiseClustering:
    est = object.__new__(_estimator_class(name))
    est.__dict__.update(state)
    return est


def make_estimator(name: str, **params: Any) -> PairwiseClustering:
    """A scikit-learn style estimator for the registered algorithm ``name``.

    >>> est = make_estimator("gmm", n_components=2, random_state=0)  # doctest: +SKIP
    >>> est.fit(X, must_link=[[0, 1]]).labels_                          # doctest: +SKIP
    """
    return PairwiseClustering(name, **params)
