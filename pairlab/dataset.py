"""Data sets: validated once, immutable, with a 2-D view for display."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .errors import InvalidInputError
from .params import Param, resolve_params

__all__ = ["Dataset", "DatasetSpec", "as_data_matrix", "pca_project", "pca_view", "standardize"]


def as_data_matrix(X: Any, *, min_samples: int = 1, name: str = "X") -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 (n, d) array, or explain what is wrong with it."""
    if sp.issparse(X):
        X = _densify(X, name)
    try:
        raw = np.asarray(X)
        arr = None if raw.dtype.kind == "c" else np.array(raw, dtype=np.float64, order="C")
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{name} must be a numeric (n_samples, n_features) array: {exc}") from None
    if arr is None:
        raise InvalidInputError(
            f"{name} has complex values (Complex data not supported); give real numbers (for "
            "example np.abs(X), or the real and imaginary parts as separate features)."
        )
    if arr.ndim == 1:
        raise InvalidInputError(
            f"{name} must be 2-D (n_samples, n_features), got a 1-D array of shape {arr.shape}. "
            f"Reshape your data: {name}.reshape(-1, 1) for a single feature, {name}.reshape(1, -1) "
            "for a single sample."
        )
    if arr.ndim != 2:
        raise InvalidInputError(f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}.")
    if arr.shape[1] == 0:
        raise InvalidInputError(
            f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.shape[0] < min_samples:
        raise InvalidInputError(
            f"{name} has {arr.shape[0]} sample(s) (shape={arr.shape}) while a minimum of "
            f"{min_samples} is required."
        )
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        shown = ", ".join(map(str, rows[:10])) + (" ..." if rows.size > 10 else "")
        raise InvalidInputError(
            f"{name} contains NaN or infinite values in {rows.size} row(s) (0-based: {shown}); "
            "remove or impute those rows."
        )
    # Squared distances and covariances sum n * d squares of differences; beyond this bound they
    # overflow float64 and every algorithm would return inf or NaN.
    limit = 0.25 * np.sqrt(np.finfo(np.float64).max / max(arr.size, 1))
    largest = float(np.abs(arr).max(initial=0.0))
    if largest > limit:
        raise InvalidInputError(
            f"{name} has values as large as {largest:.3g} in absolute value; squared distances "
            f"overflow float64 beyond about {limit:.3g} for this shape. Rescale {name} (for "
            "example standardise each feature)."
        )
    return arr


def standardize(X: np.ndarray) -> np.ndarray:
    """Every feature shifted to mean 0 and scaled to variance 1 (constant features only shifted).

    The ``standardize`` option of the data sets from real measurements (docs/datasets.md).
    """
    X = np.asarray(X, dtype=float)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


#: sparse input up to this many entries (80 MB as float64) is densified with a warning
DENSIFY_LIMIT = 10_000_000


def _densify(X: Any, name: str) -> np.ndarray:
    n, d = X.shape
    if n * d > DENSIFY_LIMIT:
        raise InvalidInputError(
            f"{name} is a sparse matrix of shape {X.shape}; pairlab's algorithms need dense "
            f"data and {n * d:,} entries is too many to densify ({DENSIFY_LIMIT:,} at most). "
            "Reduce the dimension first (for example TruncatedSVD) and pass a dense array."
        )
    warnings.warn(
        f"{name} is a sparse matrix; pairlab's algorithms use dense data, so it was converted "
        f"to a dense ({n}, {d}) array. Pass {name}.toarray() to silence this warning.",
        UserWarning, stacklevel=3)
    return X.toarray()


def pca_view(X: np.ndarray) -> np.ndarray:
    """Project ``X`` onto its first two principal components (signs fixed for determinism)."""
    n, d = X.shape
    if d == 2:
        return X
    if d == 1:
        return np.column_stack([X[:, 0], np.zeros(n)])
    return pca_project(X, 2)


def pca_project(X: np.ndarray, n_components: int) -> np.ndarray:
    """The coordinates of ``X`` (n, d) on its first ``n_components`` principal components.

    Centred, by SVD; each component's sign makes its largest-magnitude loading positive (so the
    result is deterministic). Columns beyond the data's rank (``n_components > min(n, d)``) are
    zeros.
    """
    n = X.shape[0]
    centered = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centered, full_matrices=False)
    comps = vt[:n_components]
    # fewer components than asked when n or d is smaller: padded with zeros below
    signs = np.sign(comps[np.arange(len(comps)), np.abs(comps).argmax(axis=1)])
    comps = comps * np.where(signs == 0, 1.0, signs)[:, None]
    out = centered @ comps.T
    if out.shape[1] < n_components:
        out = np.column_stack([out, np.zeros((n, n_components - out.shape[1]))])
    return out


@dataclass(frozen=True, eq=False)
class Dataset:
    """Points ``X`` (n, d), optional ground-truth labels ``y`` and where they came from.

    ``view`` is what the canvas draws: ``X`` itself when d == 2, else a PCA projection.
    ``source`` records how to make the data again (plugin name, params, seed).
    """

    X: np.ndarray
    y: np.ndarray | None = None
    name: str = "data"
    feature_names: tuple[str, ...] | None = None
    source: Mapping[str, Any] = field(default_factory=dict)
    view: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        X = as_data_matrix(self.X)
        X.setflags(write=False)
        object.__setattr__(self, "X", X)
        if self.y is not None:
            y = np.asarray(self.y)
            if y.shape != (X.shape[0],):
                raise InvalidInputError(
                    f"y must have shape ({X.shape[0]},) to match X, got {y.shape}."
                )
            if y.dtype.kind not in "iub":
                _, y = np.unique(y, return_inverse=True)
            y = y.astype(np.int64, copy=True)
            y.setflags(write=False)
            object.__setattr__(self, "y", y)
        if self.feature_names is not None:
            names = tuple(str(s) for s in self.feature_names)
            if len(names) != X.shape[1]:
                raise InvalidInputError(
                    f"{len(names)} feature names given for {X.shape[1]} features."
                )
            object.__setattr__(self, "feature_names", names)
        view = pca_view(X) if self.view is None else as_data_matrix(self.view, name="view")
        if view.shape != (X.shape[0], 2):
            raise InvalidInputError(f"view must have shape ({X.shape[0]}, 2), got {view.shape}.")
        view = np.array(view, copy=True)
        view.setflags(write=False)
        object.__setattr__(self, "view", view)
        object.__setattr__(self, "source", dict(self.source))

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_classes(self) -> int | None:
        return None if self.y is None else int(np.unique(self.y).size)

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, n_samples={self.n_samples}, "
            f"n_features={self.n_features}, n_classes={self.n_classes})"
        )


@dataclass(frozen=True)
class DatasetSpec:
    """A data set a plugin offers: ``load(params, rng)`` returns a :class:`Dataset`.

    ``requires`` names optional distributions the loader imports (e.g. ``("scikit-learn",)``).
    """

    name: str
    title: str
    load: Callable[[dict[str, Any], np.random.Generator], Dataset]
    params: Sequence[Param] = ()
    description: str = ""
    requires: tuple[str, ...] = ()

    def make(self, seed: int | None = 0, **params: Any) -> Dataset:
        """Validate ``params``, load the data with ``numpy.random.default_rng(seed)``."""
        values = resolve_params(self.params, params, owner=f"dataset {self.name!r}")
        data = self.load(values, np.random.default_rng(seed))
        if not isinstance(data, Dataset):
            raise InvalidInputError(f"dataset {self.name!r} did not return a Dataset")
        source = {
            "dataset": self.name,
            "params": {p.name: p.to_json(values[p.name]) for p in self.params},
            "seed": seed,
        }
        return Dataset(
            data.X, data.y, name=data.name or self.name, feature_names=data.feature_names,
            source=source, view=data.view,
        )
