"""scikit-learn style estimators for any registered algorithm."""

from __future__ import annotations

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

    Parameters
    ----------
    algorithm : str
        Registered algorithm name (``pairlab list``).
    random_state : int, numpy Generator or None
        Seed of the ``numpy.random.Generator`` behind every random choice.
    **params
        The algorithm's parameters (its ``Param`` specs); unspecified ones take their defaults.

    Attributes after ``fit``: ``labels_``, ``n_iter_``, ``converged_``, ``history_`` (the states),
    ``objective_history_``, ``state_`` (the last state), ``run_`` (the :class:`~pairlab.Run`),
    ``n_features_in_`` (and ``feature_names_in_`` when ``X`` was a data frame with string column
    names; both are checked by ``predict``), ``violated_links_`` (the given links the labels break,
    as ``{"must_link": [[i, j], ...], "cannot_link": [...]}``) and ``n_violated_links_``, and each
    array of the final model under scikit-learn's name with a trailing underscore (``means_``,
    ``covariances_``, ``weights_``, ``exemplars_``, ``centers_`` ...).

    ``predict`` and ``predict_proba`` exist only for algorithms that classify unseen points
    (``hasattr(est, "predict")`` says which), so pipelines and grid searches use them correctly.
    """

    _estimator_type = "clusterer"

    def __init__(self, algorithm: str, random_state: Any = None, **params: Any) -> None:
        self.algorithm = algorithm
        self.random_state = random_state
        specs = self._algorithm_class().params
        if set(params) - {p.name for p in specs}:
            from .params import resolve_params

            resolve_params(specs, params, owner=f"algorithm {algorithm!r}")
        for p in specs:
            setattr(self, p.name, params.get(p.name, p.default))

    def _algorithm_class(self):
        from .registry import get_registry

        return get_registry().algorithm(self.algorithm)

    @property
    def _param_names(self) -> list[str]:
        return [p.name for p in self._algorithm_class().params]

    # -- scikit-learn protocol ----------------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        out = {"algorithm": self.algorithm, "random_state": self.random_state}
        out.update({name: getattr(self, name) for name in self._param_names})
        return out

    def set_params(self, **params: Any) -> PairwiseClustering:
        if "algorithm" in params:  # first, so the other names are checked against its parameters
            self.algorithm = params["algorithm"]
            for p in self._algorithm_class().params:
                if not hasattr(self, p.name):
                    setattr(self, p.name, p.default)
        valid = {"algorithm", "random_state", *self._param_names}
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
                    input_tags=InputTags(sparse=True), non_deterministic=False)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "state_")

    def __repr__(self) -> str:
        cls = self._algorithm_class()
        changed = {p.name: getattr(self, p.name) for p in cls.params
                   if not _same(getattr(self, p.name), p.default)}
        if self.random_state is not None:
            changed["random_state"] = self.random_state
        args = ", ".join([repr(self.algorithm)] + [f"{k}={v!r}" for k, v in changed.items()])
        return f"PairwiseClustering({args})"

    def fit(self, X: Any, y: Any = None, *, must_link: Any = None, cannot_link: Any = None,
            constraints: Constraints | None = None) -> PairwiseClustering:
        """Fit on ``X`` with constraints given as pairs or as a :class:`~pairlab.Constraints`.

        ``y`` is ignored (present for scikit-learn pipelines); constraints carry the supervision.
        """
        names = _feature_names(X)
        X = as_data_matrix(X)
        if constraints is not None and (must_link is not None or cannot_link is not None):
            raise InvalidInputError("give either constraints= or must_link=/cannot_link=, not both")
        if constraints is None:
            constraints = Constraints(must_link, cannot_link, n_samples=X.shape[0])
        elif constraints.n_samples != X.shape[0]:
            raise InvalidInputError(
                f"constraints refer to {constraints.n_samples} points but X has {X.shape[0]} rows."
            )
        seed = _seed(self.random_state)
        params = {name: getattr(self, name) for name in self._param_names}
        run = Run(self._algorithm_class(), Dataset(X, name="X"), constraints, params, seed=seed)
        run.run()
        if not run.converged and run.max_iter is not None:
            warnings.warn(
                f"{self.algorithm} did not converge within max_iter={run.max_iter} iterations; "
                "increase max_iter or tol.", ConvergenceWarning, stacklevel=2,
            )
        for key in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
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
        self.violated_links_ = run.violated_links()
        self.n_violated_links_ = sum(len(v) for v in self.violated_links_.values())
        warn_violated_links(run, stacklevel=2)
        for key, value in run.state.model.items():
            setattr(self, f"{key}_", value)
        return self

    def fit_predict(self, X: Any, y: Any = None, **kwargs: Any) -> np.ndarray:
        return self.fit(X, y, **kwargs).labels_

    def _check_fitted(self, X: Any) -> np.ndarray:
        if not hasattr(self, "state_"):
            raise NotFittedError(
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


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is b or (a is not None and b is not None and np.array_equal(a, b))
    return a == b


def make_estimator(name: str, **params: Any) -> PairwiseClustering:
    """A scikit-learn style estimator for the registered algorithm ``name``.

    >>> est = make_estimator("gmm", n_components=2, random_state=0)  # doctest: +SKIP
    >>> est.fit(X, must_link=[[0, 1]]).labels_                          # doctest: +SKIP
    """
    return PairwiseClustering(name, **params)
