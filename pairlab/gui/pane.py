"""One pane of the teaching app: an algorithm, its parameters and the run that animates it
(Qt-free)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..algorithm import Algorithm
from ..errors import PairlabError
from ..run import Run

__all__ = ["CLASS_COUNT_PARAMS", "DEFAULT_LIMIT", "Pane", "class_count_params", "describe_error"]

#: Iteration limit of algorithms without a ``max_iter`` parameter (the same as ``Run.run``).
DEFAULT_LIMIT = 100
#: Parameters that name the number of clusters; they follow the data set's number of classes.
CLASS_COUNT_PARAMS = ("n_components", "n_clusters", "k")
#: A class-count parameter that is unused once another parameter is given (DP-means' k only
#: derives lambda): it does not follow the data then, so a session does not store it.
UNUSED_WHEN_GIVEN = {"k": "lambda_"}


def class_count_params(cls: type[Algorithm], params: Mapping[str, Any] | None = None) -> list[str]:
    """The algorithm's integer parameters that give its number of clusters (with ``params``:
    those that are not unused by another given parameter, :data:`UNUSED_WHEN_GIVEN`)."""
    names = [p.name for p in cls.params if p.name in CLASS_COUNT_PARAMS and p.type is int]
    if params is not None:
        names = [n for n in names if n not in UNUSED_WHEN_GIVEN
                 or params.get(UNUSED_WHEN_GIVEN[n]) is None]
    return names


class Pane:
    """One algorithm with its parameters, and the run that animates it."""

    def __init__(self, algorithm: type[Algorithm], params: Mapping[str, Any] | None = None) -> None:
        self.algorithm = algorithm
        self.params: dict[str, Any] = dict(params or {})
        self.run: Run | None = None
        self.error: str | None = None
        self.generation = 0
        #: What the panes show (frames, region images, metrics), keyed by what it depends on.
        self.cache: dict[Any, Any] = {}

    @property
    def name(self) -> str:
        return self.algorithm.name

    @property
    def title(self) -> str:
        return self.algorithm.title or self.algorithm.name

    @property
    def limit(self) -> int:
        if self.run is not None and self.run.max_iter is not None:
            return int(self.run.max_iter)
        return DEFAULT_LIMIT

    @property
    def last_index(self) -> int:
        return -1 if self.run is None else len(self.run.history) - 1

    @property
    def finished(self) -> bool:
        """No further state can be computed (converged, at the limit, failed or not built)."""
        return (self.run is None or self.error is not None or self.run.converged
                or self.last_index >= self.limit)

    def invalidate(self) -> None:
        """Forget the run (parameters, data or links changed); it is built again."""
        self.run = None
        self.error = None
        self.generation += 1
        self.cache.clear()

    def ignored_note(self) -> str:
        """Which links the algorithm does not use ("" when it uses every link it is given)."""
        if self.run is None:
            return ""
        ml, cl = self.run.algorithm.ignored_links()
        parts = [f"{int(m.sum())} {kind}-link(s)" for m, kind in ((ml, "must"), (cl, "cannot"))
                 if m.any()]
        return f"ignores {' and '.join(parts)} (drawn faded)" if parts else ""

    def status(self) -> str:
        if self.error is not None:
            return "stopped: error"
        if self.run is None:
            return "starting"
        if self.run.converged and self.algorithm.fixed_steps:  # no test: it just stopped
            return f"finished {self.last_index} {self.algorithm.fixed_steps}"
        if self.run.converged:
            return f"converged at iteration {self.last_index}"
        if self.last_index >= self.limit:
            return f"stopped at max_iter ({self.limit})"
        return "running"


def describe_error(pane: Pane, exc: BaseException, iteration: int) -> str:
    """A readable one-paragraph message for an algorithm that failed."""
    where = "while starting" if iteration == 0 else f"at iteration {iteration}"
    if isinstance(exc, PairlabError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc} (a bug in the plugin; report it to its authors)"
    return f"{pane.title} stopped {where}: {text}"
