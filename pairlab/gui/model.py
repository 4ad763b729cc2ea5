"""The teaching app's model and controller, free of Qt.

:class:`Lab` holds what a session is made of (a data set from a registered plugin, the links, the
initial means, the seed and one :class:`Pane` per algorithm being compared) and drives the panes'
:class:`~pairlab.Run` objects together. Its jobs live in three modules: the session data and
links with undo and noise (:mod:`~pairlab.gui.lab_data`), the timeline and background computation
(:mod:`~pairlab.gui.lab_timeline`, which says what may run on a worker thread) and the caches of
what the panes show (:mod:`~pairlab.gui.lab_views`); this module puts them together with the
panes' algorithms and parameters (:mod:`~pairlab.gui.pane`). Nothing here knows about widgets, so
the controller is testable headless.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..algorithm import Algorithm
from ..constraints import Constraints
from ..dataset import Dataset
from ..draw.geometry import ViewMap
from ..errors import InvalidInputError, PairlabError
from .lab_data import LabData
from .lab_timeline import Timeline
from .lab_views import SHOWN_METRICS, LabViews
from .pane import CLASS_COUNT_PARAMS, DEFAULT_LIMIT, Pane, class_count_params, describe_error

__all__ = ["CLASS_COUNT_PARAMS", "DEFAULT_LIMIT", "SHOWN_METRICS", "Lab", "Pane", "class_count_params",
           "default_lab", "describe_error", "flip_noise"]


def flip_noise(constraints: Constraints, fraction: float, rng: np.random.Generator) -> Constraints:
    """Flip a ``fraction`` of the links to the other kind (:func:`pairlab.links.add_noise`)."""
    from ..links import add_noise

    return add_noise(constraints, "flip-fraction", fraction, rng)


class Lab(LabData, Timeline, LabViews):
    """A session: data, links, initial means, seed and the panes that run on them.

    Parameters
    ----------
    registry : pairlab.Registry, optional
        Where algorithms and data sets come from (default: the process-wide registry).
    """

    def __init__(self, registry: Any = None) -> None:
        from ..registry import get_registry

        self.registry = registry or get_registry()
        self.dataset_name = ""
        self.dataset_params: dict[str, Any] = {}
        self.dataset_seed = 0
        self.dataset: Dataset | None = None
        self.view_map: ViewMap | None = None
        self.bounds: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
        self.base = Constraints.empty(1)
        self.noise = 0.0
        self.constraints = self.base
        self.init_means: np.ndarray | None = None
        #: Points drawn on the canvas, rows (x, y, class), after the generated data.
        self.drawn = np.empty((0, 3))
        self.seed = 0
        self.panes: list[Pane] = []
        self.iteration = 0
        #: The cursor is on the half-step before ``iteration`` (its first phase done).
        self.on_half = False
        self._undo: list[dict[str, Any]] = []
        #: Links the last :meth:`set_dataset` dropped (0 when they were kept).
        self.dropped_links = 0
        self.redrawn_links = 0
        self._draws = 0
        self.constraints_version = 0
        #: Draw each cluster in the colour of its matched true class (when there is a truth).
        self.match_colours = True
        #: Incremented whenever runs are rebuilt; results of older background work are ignored.
        self.epoch = 0

    def add_pane(self, algorithm: str, params: Mapping[str, Any] | None = None) -> Pane:
        """Add a pane; class-count parameters not given match the data (or the other panes)."""
        cls = self.registry.algorithm(algorithm)
        pane = Pane(cls, self._check_params(cls, self._with_class_count(cls, params)))
        self.panes.append(pane)
        self._restart()
        return pane

    def remove_pane(self, index: int) -> None:
        if len(self.panes) <= 1:
            raise InvalidInputError("the last pane cannot be removed")
        del self.panes[index]
        self._restart()

    def set_pane_algorithm(self, index: int, algorithm: str,
                           params: Mapping[str, Any] | None = None) -> Pane:
        cls = self.registry.algorithm(algorithm)
        pane = self.panes[index]
        pane.algorithm, pane.params = cls, self._check_params(cls, self._with_class_count(cls, params))
        pane.invalidate()
        self._restart()
        return pane

    def set_pane_params(self, index: int, params: Mapping[str, Any]) -> None:
        pane = self.panes[index]
        pane.params = self._check_params(pane.algorithm, params)
        pane.invalidate()
        self._restart()

    def _with_class_count(self, cls: type[Algorithm], params: Mapping[str, Any] | None
                          ) -> dict[str, Any]:
        params = dict(params or {})
        k = self.n_classes
        if k is None:  # no ground truth: what the other panes use
            counts = [p.params[n] for p in self.panes for n in class_count_params(p.algorithm)
                      if n in p.params]
            k = counts[0] if counts else None
        if k is not None:
            for name in class_count_params(cls, params):
                params.setdefault(name, k)
        return params

    @staticmethod
    def _check_params(cls: type[Algorithm], params: Mapping[str, Any] | None) -> dict[str, Any]:
        from ..params import resolve_params

        params = dict(params or {})
        resolved = resolve_params(cls.params, params, owner=f"algorithm {cls.name!r}")  # raises
        # the validated values: a session's JSON "inf" becomes the float the forms expect
        return {k: resolved[k] for k in params}

    def run_params(self, pane: Pane) -> dict[str, Any]:
        """The parameters a pane's run gets: its own plus the placed initial means."""
        params = dict(pane.params)
        names = {p.name for p in pane.algorithm.params}
        if self.init_means is not None and pane.algorithm.accepts_means_init and "means_init" in names:
            params["means_init"] = self.init_means
        return params

    def set_seed(self, seed: int) -> None:
        self.seed = int(seed)
        self.invalidate()

    def _constraints_changed(self) -> None:
        if self.dataset is None:
            return
        self.constraints = flip_noise(self.base, self.noise,
                                      np.random.default_rng([self.dataset_seed, 7919]))
        self.constraints_version += 1
        self.invalidate()


def default_lab(registry: Any = None) -> Lab:
    """Two moons (or the first data set), GM-PR (or the first algorithm), 3 + 3 random links."""
    lab = Lab(registry)
    lab.set_dataset(lab.default_dataset())
    lab.add_pane(lab.default_algorithm())
    if lab.has_truth:
        try:
            lab.add_random_links(3, 3)
        except PairlabError:
            pass
    lab.clear_undo()
    return lab
