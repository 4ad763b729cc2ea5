"""The state an algorithm reports after each iteration."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = ["State"]


def _frozen(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    return value


def _plain(value: Any) -> Any:
    """``value`` with every read-only mapping (another state's ``extras``) as a dict, for pickle."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    return value


@dataclass(frozen=True, eq=False)
class State:
    """One iteration of an algorithm.

    Attributes
    ----------
    iteration : int
        0 for the state ``initialize`` returns, then 1, 2, ...
    labels : ndarray of shape (n_samples,)
        Hard labels (integers >= 0).
    responsibilities : ndarray of shape (n_samples, n_labels), optional
        Soft labels; rows sum to one. The canvas draws saturation from them.
    objective : float, optional
        The quantity the algorithm improves, named by ``objective_name`` (e.g. "log-likelihood").
    model : mapping of str to ndarray
        What the canvas knows how to draw: ``means`` (k, d), ``covariances`` (k, d, d),
        ``weights`` (k,), ``class_of_component`` (k,), ``exemplars`` (n,) index of each point's
        exemplar, ``centers`` (k, d).
    extras : mapping
        Anything else an algorithm wants to keep (not validated, not drawn).
    phase : str
        "" for the state at the end of an iteration; for a half-step state (see
        :meth:`pairlab.Algorithm.half_step`) the name of the phase just applied, e.g. "M-step".

    Arrays are made read-only on construction: a state is a record, never a work buffer.
    """

    iteration: int
    labels: np.ndarray
    responsibilities: np.ndarray | None = None
    objective: float | None = None
    objective_name: str = "objective"
    model: Mapping[str, np.ndarray] = field(default_factory=dict)
    extras: Mapping[str, Any] = field(default_factory=dict)
    phase: str = ""

    def __post_init__(self) -> None:
        _frozen(self.labels)
        _frozen(self.responsibilities)
        for v in self.model.values():
            _frozen(v)
        object.__setattr__(self, "model", MappingProxyType(dict(self.model)))
        object.__setattr__(self, "extras", MappingProxyType(dict(self.extras)))
        if self.objective is not None:
            object.__setattr__(self, "objective", float(self.objective))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # pickle, joblib and deepcopy rebuild the record (a MappingProxyType cannot be pickled)
        return (State, (self.iteration, self.labels, self.responsibilities, self.objective,
                        self.objective_name, dict(self.model), _plain(self.extras), self.phase))

    @property
    def n_clusters(self) -> int:
        """Number of distinct labels in use."""
        return int(np.unique(self.labels).size)

    def equals(self, other: State) -> bool:
        """Bit-for-bit equality of everything but ``extras``."""
        if not isinstance(other, State):
            return False
        same = (
            self.iteration == other.iteration
            and self.phase == other.phase
            and np.array_equal(self.labels, other.labels)
            and (self.objective == other.objective or
                 (self.objective is not None and other.objective is not None
                  and np.isnan(self.objective) and np.isnan(other.objective)))
            and set(self.model) == set(other.model)
        )
        if not same:
            return False
        if (self.responsibilities is None) != (other.responsibilities is None):
            return False
        if self.responsibilities is not None and not np.array_equal(
            self.responsibilities, other.responsibilities
        ):
            return False
        return all(np.array_equal(self.model[k], other.model[k]) for k in self.model)
