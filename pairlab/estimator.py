"""scikit-learn style estimators for any registered algorithm."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .constraints import Constraints
from .dataset import Dataset, as_data_matrix
from .errors import ConvergenceWarning, InvalidInputError
from .run import Run

__all__ = ["PairwiseClustering", "make_estimator"]


class PairwiseClustering:
    """Fit any registered algorithm with ``fit(X, must_link=..., cannot_link=...)``.

    Parameters
    ----------
    algorithm : str
        Registered algorithm name (``pairlab list``).
    random_state : int or None
        Seed of the ``numpy.random.Generator`` behind every random choice.
    **params
        The algorithm's parameters (its ``Param`` specs); unspecified ones take their defaults.

    Attributes after ``fit``: ``labels_``, ``n_iter_``, ``converged_``, ``history_`` (the states),
    ``objective_history_``, ``state_`` (the last state), ``run_`` (the :class:`~pairlab.Run`), and
    each array of the final model under scikit-learn's name with a trailing underscore
    (``means_``, ``covariances_``, ``weights_``, ``exemplars_``, ``centers_`` ...).
    """

    def __init__(self, algorithm: str, random_state: int | None = None, **params: Any) -> None:
        self.algorithm = algorithm
        self.random_state = random_state
        self._param_names = [p.name for p in self._algorithm_class().params]
        unknown = set(params) - set(self._param_names)
        if unknown:
            from .params import resolve_params

            resolve_params(self._algorithm_class().params, params, owner=f"algorithm {algorithm!r}")
        for p in self._algorithm_class().params:
            setattr(self, p.name, params.get(p.name, p.default))

    def _algorithm_class(self):
        from .registry import get_registry

        return get_registry().algorithm(self.algorithm)

    # -- scikit-learn protocol ----------------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        out = {"algorithm": self.algorithm, "random_state": self.random_state}
        out.update({name: getattr(self, name) for name in self._param_names})
        return out

    def set_params(self, **params: Any) -> PairwiseClustering:
        valid = {"random_state", *self._param_names}
        for key, value in params.items():
            if key not in valid:
                raise InvalidInputError(
                    f"Invalid parameter {key!r} for {self.algorithm}; valid: {sorted(valid)}."
                )
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        cls = self._algorithm_class()
        changed = {p.name: getattr(self, p.name) for p in cls.params
                   if not _same(getattr(self, p.name), p.default)}
        args = ", ".join([repr(self.algorithm)] + [f"{k}={v!r}" for k, v in changed.items()])
        return f"PairwiseClustering({args})"

    def fit(self, X: Any, y: Any = None, *, must_link: Any = None, cannot_link: Any = None,
            constraints: Constraints | None = None) -> PairwiseClustering:
        """Fit on ``X`` with constraints given as pairs or as a :class:`~pairlab.Constraints`.

        ``y`` is ignored (present for scikit-learn pipelines); constraints carry the supervision.
        """
        X = as_data_matrix(X)
        if constraints is not None and (must_link is not None or cannot_link is not None):
            raise InvalidInputError("give either constraints= or must_link=/cannot_link=, not both")
        if constraints is None:
            constraints = Constraints(must_link, cannot_link, n_samples=X.shape[0])
        elif constraints.n_samples != X.shape[0]:
            raise InvalidInputError(
                f"constraints refer to {constraints.n_samples} points but X has {X.shape[0]} rows."
            )
        if isinstance(self.random_state, np.random.Generator):
            seed = int(self.random_state.integers(2**63 - 1))
        else:
            seed = self.random_state
        params = {name: getattr(self, name) for name in self._param_names}
        run = Run(self._algorithm_class(), Dataset(X, name="X"), constraints, params, seed=seed)
        run.run()
        if not run.converged and run.max_iter is not None:
            warnings.warn(
                f"{self.algorithm} did not converge within max_iter={run.max_iter} iterations; "
                "increase max_iter or tol.", ConvergenceWarning, stacklevel=2,
            )
        self.run_ = run
        self.state_ = run.state
        self.history_ = list(run.history)
        self.objective_history_ = run.objectives
        self.labels_ = np.array(run.state.labels)
        self.n_iter_ = run.n_iter
        self.converged_ = run.converged
        self.n_features_in_ = X.shape[1]
        for key, value in run.state.model.items():
            setattr(self, f"{key}_", value)
        return self

    def fit_predict(self, X: Any, y: Any = None, **kwargs: Any) -> np.ndarray:
        return self.fit(X, y, **kwargs).labels_

    def _check_fitted(self, X: Any) -> np.ndarray:
        if not hasattr(self, "state_"):
            raise InvalidInputError(f"This {self.algorithm} estimator is not fitted yet; call fit.")
        X = as_data_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise InvalidInputError(
                f"X has {X.shape[1]} features, but the estimator was fitted with "
                f"{self.n_features_in_}."
            )
        return X

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of unseen points (generative models only)."""
        X = self._check_fitted(X)
        algo = self.run_.algorithm
        if not algo.can_predict():
            raise InvalidInputError(
                f"{self.algorithm} cannot classify unseen points; use fit_predict on all the data."
            )
        return algo.predict_proba(self.state_, X)

    def predict(self, X: Any) -> np.ndarray:
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
