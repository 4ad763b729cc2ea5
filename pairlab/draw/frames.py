"""Frames: what a canvas draws for one state, as plain arrays in display coordinates.

:func:`build_frame` turns a :class:`~pairlab.State` into a :class:`Frame` that a canvas draws
without further computation (decision regions come from :mod:`pairlab.draw.regions`). No Qt here:
the app, the headless renderer and the tests share these functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..constraints import Constraints
from ..dataset import Dataset
from ..metrics import unique_codes
from ..state import State
from .classes import point_classes, slot_mapper
from .geometry import ViewMap, ellipse_curves, link_segments
from .palette import N_LEVELS, saturation_levels
from .regions import RegionImage

__all__ = ["Frame", "build_frame"]


@dataclass
class Frame:
    """Everything the canvas draws for one state, in display coordinates.

    ``colour`` is each point's class slot (-1: no label yet, drawn grey), ``level`` its
    saturation level (0 .. N_LEVELS-1); slots index :data:`~pairlab.draw.palette.OKABE_ITO` modulo
    its length and :data:`~pairlab.draw.palette.SYMBOLS` modulo theirs.
    """

    xy: np.ndarray
    colour: np.ndarray
    level: np.ndarray
    must_link: np.ndarray = field(default_factory=lambda: np.empty((0, 2, 2)))
    cannot_link: np.ndarray = field(default_factory=lambda: np.empty((0, 2, 2)))
    must_ok: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    cannot_ok: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    #: Links the algorithm does not use (``Algorithm.ignored_links``): drawn faded, never violated.
    must_ignored: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    cannot_ignored: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    means: np.ndarray | None = None
    mean_colour: np.ndarray | None = None
    ellipses: np.ndarray | None = None  # (k, n_sigma, m, 2)
    ellipse_colour: np.ndarray | None = None
    centers: np.ndarray | None = None
    center_colour: np.ndarray | None = None
    exemplar_segments: np.ndarray | None = None
    exemplar_points: np.ndarray | None = None
    exemplar_colour: np.ndarray | None = None
    init_means: np.ndarray | None = None
    regions: RegionImage | None = None
    changed: np.ndarray | None = None  # bool per point: label differs from the previous state
    wrong: np.ndarray | None = None  # bool per point: drawn class differs from the true class
    n_true_classes: int = 0  # colours follow the true classes 0 .. n-1 (for a class legend)
    title: str = ""
    info: str = ""
    message: str | None = None
    #: label value -> class slot under this state (what the points' colours were drawn by); the
    #: decision regions colour their classes by it too
    slot_of: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False,
                                                                compare=False)

    @property
    def n_points(self) -> int:
        return len(self.xy)


def build_frame(dataset: Dataset, constraints: Constraints | None, state: State | None, *,
                view_map: ViewMap | None = None, init_means: np.ndarray | None = None,
                regions: RegionImage | None = None, title: str = "", info: str | None = None,
                message: str | None = None, match_truth: bool = False,
                previous: State | None = None,
                ignored: tuple[np.ndarray, np.ndarray] | None = None) -> Frame:
    """Everything the canvas needs to draw ``state`` (None: the bare data) on ``dataset``.

    ``init_means`` are data-space points (placed initial means); ``regions`` comes from
    :func:`decision_regions`. ``match_truth`` colours clusters by their matched true class and
    marks the points drawn in another class than their own (``wrong``); ``previous`` (the state
    before, e.g. the last half-step) marks the points whose label changed since (``changed``).
    ``ignored`` masks the must-links and cannot-links the algorithm does not use.
    """
    vm = view_map or ViewMap.of(dataset)
    xy = dataset.view
    n = dataset.n_samples
    constraints = constraints if constraints is not None else Constraints.empty(n)
    frame = Frame(xy=xy, colour=np.full(n, -1, dtype=np.intp),
                  level=np.full(n, N_LEVELS - 1, dtype=np.intp),
                  must_link=link_segments(xy, constraints.must_link),
                  cannot_link=link_segments(xy, constraints.cannot_link),
                  must_ok=np.ones(constraints.n_must_link, dtype=bool),
                  cannot_ok=np.ones(constraints.n_cannot_link, dtype=bool),
                  regions=regions, title=title, message=message)
    if ignored is not None:
        frame.must_ignored = np.asarray(ignored[0], dtype=bool)
        frame.cannot_ignored = np.asarray(ignored[1], dtype=bool)
    if init_means is not None and len(init_means):
        frame.init_means = vm.to_view(init_means)
    if state is None:
        frame.info = info or ""
        return frame
    classes, prob, n_cls = point_classes(state)
    truth = dataset.y if match_truth else None
    slot = slot_mapper(classes, truth, n_cls)
    frame.slot_of = slot
    frame.colour = slot(classes)
    frame.level = saturation_levels(prob, n_cls)
    if truth is not None:
        true_class = unique_codes(truth)[1]
        frame.wrong = frame.colour != true_class
        frame.n_true_classes = int(true_class.max()) + 1 if n else 0
    if previous is not None and np.shape(previous.labels) == np.shape(state.labels):
        frame.changed = np.asarray(previous.labels) != np.asarray(state.labels)
    frame.must_ok, frame.cannot_ok = constraints.satisfied(state.labels)
    if len(frame.must_ignored) == len(frame.must_ok):  # an unused link is never "violated"
        frame.must_ok = frame.must_ok | frame.must_ignored
    if len(frame.cannot_ignored) == len(frame.cannot_ok):
        frame.cannot_ok = frame.cannot_ok | frame.cannot_ignored
    model = state.model
    coc = model.get("class_of_component")

    def component_slots(k: int) -> np.ndarray:
        if coc is not None and len(coc) == k:
            return slot(np.asarray(coc))
        return slot(np.arange(k))

    means = model.get("means")
    if vm.exact and means is not None and np.ndim(means) == 2 and means.shape[1] == dataset.n_features:
        k = means.shape[0]
        frame.means = vm.to_view(means)
        frame.mean_colour = component_slots(k)
        covs = model.get("covariances")
        d = dataset.n_features
        if covs is not None and np.shape(covs) == (k, d, d):
            frame.ellipses = ellipse_curves(frame.means, vm.cov_to_view(covs))
            frame.ellipse_colour = frame.mean_colour
    centers = model.get("centers")
    if (vm.exact and centers is not None and np.ndim(centers) == 2
            and centers.shape[1] == dataset.n_features
            and not (means is not None and np.array_equal(np.asarray(means), centers))):
        frame.centers = vm.to_view(centers)
        frame.center_colour = slot(np.arange(len(centers)))
    ex = model.get("exemplars")
    if ex is not None and np.shape(ex) == (n,):
        ex = np.asarray(ex, dtype=np.intp)
        moved = np.flatnonzero(ex != np.arange(n))
        frame.exemplar_segments = np.stack([xy[moved], xy[ex[moved]]], axis=1)
        exemplars = np.unique(ex)
        frame.exemplar_points = xy[exemplars]
        frame.exemplar_colour = frame.colour[exemplars]
    if info is None:
        info = f"iteration {state.iteration}"
        if state.phase:
            info += f" · {state.phase} done"
        if state.objective is not None and math.isfinite(state.objective):
            info += f"   {state.objective_name} {state.objective:.6g}"
    frame.info = info
    return frame
