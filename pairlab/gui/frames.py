"""Frames: what the canvas draws for one state, as plain arrays in display coordinates.

:func:`build_frame` turns a :class:`~pairlab.State` into a :class:`Frame` that the canvas draws
without further computation; :func:`decision_regions` asks an algorithm's ``predict_proba`` for a
grid of points. No Qt here: the app, the headless renderer and the tests share these functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..algorithm import Algorithm
from ..constraints import Constraints
from ..dataset import Dataset
from ..errors import InvalidInputError
from ..state import State
from .palette import N_LEVELS, OKABE_ITO, saturation_levels

__all__ = [
    "Frame",
    "RegionImage",
    "ViewMap",
    "build_frame",
    "data_bounds",
    "decision_regions",
    "ellipse_curves",
    "link_segments",
    "nearest_point",
    "nearest_segment",
    "point_classes",
    "region_bounds",
]

_IDENTITY_LABELS = 64


# -- geometry ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ViewMap:
    """The affine map from data space to the 2-D display: ``view = (x - center) @ matrix + offset``.

    Found by least squares from ``dataset.X`` to ``dataset.view``, so it is exact for the identity
    (2-D data) and the PCA projection :func:`pairlab.dataset.pca_view` makes. ``exact`` is False
    when a plugin's view is not linear in X; then model arrays (means, covariances) cannot be
    shown in the view and are left out.
    """

    center: np.ndarray
    matrix: np.ndarray
    offset: np.ndarray
    exact: bool

    @classmethod
    def of(cls, dataset: Dataset) -> ViewMap:
        X, V = dataset.X, dataset.view
        d = X.shape[1]
        if d == 2 and np.array_equal(X, V):
            return cls(np.zeros(2), np.eye(2), np.zeros(2), True)
        center, offset = X.mean(axis=0), V.mean(axis=0)
        matrix, *_ = np.linalg.lstsq(X - center, V - offset, rcond=None)
        resid = np.abs((X - center) @ matrix + offset - V).max(initial=0.0)
        scale = max(np.abs(V - offset).max(initial=0.0), 1e-300)
        return cls(center, matrix, offset, bool(resid <= 1e-6 * scale))

    def to_view(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, dtype=float) - self.center) @ self.matrix + self.offset

    def cov_to_view(self, covariances: np.ndarray) -> np.ndarray:
        """Covariances (k, d, d) of the data mapped to (k, 2, 2) in the view."""
        return np.einsum("ia,kij,jb->kab", self.matrix, np.asarray(covariances, dtype=float),
                         self.matrix)

    def lift(self, view_points: np.ndarray) -> np.ndarray:
        """Points of the view back in data space: the least-norm preimage (the PCA plane)."""
        return self.center + (np.asarray(view_points, dtype=float) - self.offset) @ np.linalg.pinv(
            self.matrix)


def data_bounds(xy: np.ndarray, margin: float = 0.08) -> tuple[float, float, float, float]:
    """(x0, y0, width, height) of the points plus a margin on every side."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    lo, span = lo - margin * span, span * (1 + 2 * margin)
    return float(lo[0]), float(lo[1]), float(span[0]), float(span[1])


def region_bounds(xy: np.ndarray, margin: float = 0.35) -> tuple[float, float, float, float]:
    """A square around the points, ``margin`` of their larger span beyond them on every side, so
    that a background image still fills an aspect-locked view that was zoomed out a little."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    side = max(float((hi - lo).max()), 1e-9) * (1 + 2 * margin)
    cx, cy = (lo + hi) / 2
    return float(cx - side / 2), float(cy - side / 2), side, side


def ellipse_curves(means: np.ndarray, covs: np.ndarray, sigmas: Sequence[float] = (1.0, 2.0),
                   n_points: int = 72) -> np.ndarray:
    """Closed curves of the ``sigma`` contours of 2-D Gaussians, shape (k, len(sigmas), m, 2)."""
    t = np.linspace(0, 2 * np.pi, n_points)
    circle = np.stack([np.cos(t), np.sin(t)])  # (2, m)
    vals, vecs = np.linalg.eigh(covs)  # (k, 2), (k, 2, 2)
    axes = vecs * np.sqrt(np.maximum(vals, 0.0))[:, None, :]  # columns scaled
    unit = np.einsum("kab,bm->kma", axes, circle)  # (k, m, 2)
    s = np.asarray(sigmas, dtype=float)
    return means[:, None, None, :] + s[None, :, None, None] * unit[:, None, :, :]


def nearest_point(xy: np.ndarray, x: float, y: float, px: float, py: float,
                  radius: float) -> int | None:
    """Index of the point nearest to (x, y) within ``radius`` pixels (``px``, ``py``: data units
    per pixel), or None."""
    if len(xy) == 0:
        return None
    d2 = ((xy[:, 0] - x) / px) ** 2 + ((xy[:, 1] - y) / py) ** 2
    i = int(np.argmin(d2))
    return i if d2[i] <= radius**2 else None


def nearest_segment(segments: np.ndarray, x: float, y: float, px: float, py: float,
                    radius: float) -> int | None:
    """Index of the segment (m, 2, 2) nearest to (x, y) within ``radius`` pixels, or None."""
    if len(segments) == 0:
        return None
    scale = np.array([px, py])
    a, b = segments[:, 0] / scale, segments[:, 1] / scale
    p = np.array([x, y]) / scale
    ab = b - a
    t = np.clip(((p - a) * ab).sum(axis=1) / np.maximum((ab * ab).sum(axis=1), 1e-300), 0, 1)
    d2 = ((a + t[:, None] * ab - p) ** 2).sum(axis=1)
    i = int(np.argmin(d2))
    return i if d2[i] <= radius**2 else None


# -- frames -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RegionImage:
    """An RGBA image (rows = y from bottom to top) covering ``rect`` = (x0, y0, width, height)."""

    rgba: np.ndarray
    rect: tuple[float, float, float, float]


@dataclass
class Frame:
    """Everything the canvas draws for one state, in display coordinates.

    ``colour`` is each point's class slot (-1: no label yet, drawn grey), ``level`` its
    saturation level (0 .. N_LEVELS-1); slots index :data:`~pairlab.gui.palette.OKABE_ITO` modulo
    its length and :data:`~pairlab.gui.palette.SYMBOLS` modulo theirs.
    """

    xy: np.ndarray
    colour: np.ndarray
    level: np.ndarray
    must_link: np.ndarray = field(default_factory=lambda: np.empty((0, 2, 2)))
    cannot_link: np.ndarray = field(default_factory=lambda: np.empty((0, 2, 2)))
    must_ok: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    cannot_ok: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
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

    @property
    def n_points(self) -> int:
        return len(self.xy)


def _slot_mapper(labels: np.ndarray, truth: np.ndarray | None = None,
                 n_labels: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """Class slot (colour and symbol) of label values.

    Without ``truth``: the value itself for small labels, else its rank among the state's labels
    (affinity propagation labels points by their exemplar's index). With ``truth``: the true
    class each label is matched to (:func:`pairlab.metrics.class_matching`), so every pane draws
    a class in the same colour; labels left over (and values ``>= n_labels``) get the slots after
    the classes.
    """
    uniq = np.unique(labels)
    small = uniq.size == 0 or uniq.max() < _IDENTITY_LABELS
    if small:
        def index(v: np.ndarray) -> np.ndarray:
            return np.asarray(v, dtype=np.intp)
    else:
        def index(v: np.ndarray) -> np.ndarray:
            return np.searchsorted(uniq, np.asarray(v)).astype(np.intp)
    if truth is None or uniq.size == 0:
        return index
    from ..metrics import class_matching

    size = max(n_labels, int(index(uniq).max()) + 1)
    perm = class_matching(truth, index(labels), size)
    spare = int(perm.max()) + 1

    def matched(v: np.ndarray) -> np.ndarray:
        i = index(v)
        return np.where(i < size, perm[np.minimum(i, size - 1)], spare + i - size).astype(np.intp)

    return matched


def point_classes(state: State) -> tuple[np.ndarray, np.ndarray, int]:
    """(class of every point, posterior of that class, number of classes) of a state.

    With ``class_of_component`` and per-component responsibilities, posteriors are summed per
    class, and labels that name components are mapped to their class, so every component of a
    class shows in the class colour.
    """
    labels = np.asarray(state.labels)
    r = state.responsibilities
    coc = state.model.get("class_of_component")
    n = labels.size
    if r is None:
        k = int(labels.max()) + 1 if n else 1
        return labels, np.ones(n), k
    if coc is not None and len(coc) == r.shape[1]:
        coc = np.asarray(coc, dtype=np.intp)
        n_cls = int(coc.max()) + 1
        onehot = np.zeros((len(coc), n_cls))
        onehot[np.arange(len(coc)), coc] = 1.0
        class_prob = r @ onehot
        are_components = labels.max(initial=0) >= n_cls or (
            np.array_equal(labels, r.argmax(axis=1))
            and not np.array_equal(labels, class_prob.argmax(axis=1)))
        classes = coc[labels] if are_components else labels
        classes = np.minimum(classes, n_cls - 1)
        return classes, class_prob[np.arange(n), classes], n_cls
    if labels.max(initial=0) < r.shape[1]:
        return labels, r[np.arange(n), labels], r.shape[1]
    return labels, r.max(axis=1), r.shape[1]


def link_segments(xy: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    if len(pairs) == 0:
        return np.empty((0, 2, 2))
    return np.stack([xy[pairs[:, 0]], xy[pairs[:, 1]]], axis=1)


def build_frame(dataset: Dataset, constraints: Constraints | None, state: State | None, *,
                view_map: ViewMap | None = None, init_means: np.ndarray | None = None,
                regions: RegionImage | None = None, title: str = "", info: str | None = None,
                message: str | None = None, match_truth: bool = False,
                previous: State | None = None) -> Frame:
    """Everything the canvas needs to draw ``state`` (None: the bare data) on ``dataset``.

    ``init_means`` are data-space points (placed initial means); ``regions`` comes from
    :func:`decision_regions`. ``match_truth`` colours clusters by their matched true class and
    marks the points drawn in another class than their own (``wrong``); ``previous`` (the state
    before, e.g. the last half-step) marks the points whose label changed since (``changed``).
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
    if init_means is not None and len(init_means):
        frame.init_means = vm.to_view(init_means)
    if state is None:
        frame.info = info or ""
        return frame
    classes, prob, n_cls = point_classes(state)
    truth = dataset.y if match_truth else None
    slot = _slot_mapper(classes, truth, n_cls)
    frame.colour = slot(classes)
    frame.level = saturation_levels(prob, n_cls)
    if truth is not None:
        _, true_class = np.unique(truth, return_inverse=True)
        frame.wrong = frame.colour != true_class
        frame.n_true_classes = int(true_class.max()) + 1 if n else 0
    if previous is not None and np.shape(previous.labels) == np.shape(state.labels):
        frame.changed = np.asarray(previous.labels) != np.asarray(state.labels)
    frame.must_ok, frame.cannot_ok = constraints.satisfied(state.labels)
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


def decision_regions(algorithm: Any, state: State, dataset: Dataset, *,
                     view_map: ViewMap | None = None,
                     bounds: tuple[float, float, float, float] | None = None,
                     resolution: int = 140, strength: float = 0.22,
                     match_truth: bool = False) -> RegionImage | None:
    """Pale class colours over a grid of the view, mixed by ``algorithm.predict_proba``.

    ``algorithm`` is anything with ``predict_proba(state, X)`` (an :class:`~pairlab.Algorithm`
    instance, e.g. ``run.algorithm``). Grid points are lifted to data space with
    :meth:`ViewMap.lift` (for data of more than two dimensions: the plane of the view through the
    mean). Returns None when the algorithm cannot classify unseen points or the view is not linear.
    """
    if algorithm is None or (isinstance(algorithm, Algorithm) and not type(algorithm).can_predict()):
        return None
    vm = view_map or ViewMap.of(dataset)
    if not vm.exact:
        return None
    x0, y0, w, h = bounds or region_bounds(dataset.view)
    nx = resolution
    ny = max(2, round(resolution * h / w)) if w > 0 else resolution
    ny = min(ny, 4 * resolution)
    gx = x0 + (np.arange(nx) + 0.5) * w / nx
    gy = y0 + (np.arange(ny) + 0.5) * h / ny
    grid = np.column_stack([np.tile(gx, ny), np.repeat(gy, nx)])
    proba = np.asarray(algorithm.predict_proba(state, vm.lift(grid)), dtype=float)
    if proba.ndim != 2 or proba.shape[0] != len(grid) or not np.all(np.isfinite(proba)):
        raise InvalidInputError("predict_proba returned an array of the wrong shape or with NaN")
    coc = state.model.get("class_of_component")
    if coc is not None and len(coc) == proba.shape[1]:
        coc = np.asarray(coc, dtype=np.intp)
        onehot = np.zeros((len(coc), int(coc.max()) + 1))
        onehot[np.arange(len(coc)), coc] = 1.0
        proba = proba @ onehot
    classes, _, n_cls = point_classes(state)
    slot = _slot_mapper(classes, dataset.y if match_truth else None, n_cls)
    slots = slot(np.arange(proba.shape[1]))
    colours = np.array(OKABE_ITO, dtype=float)[slots % len(OKABE_ITO)]
    rgb = proba @ colours
    rgb = 255.0 - (255.0 - rgb) * strength
    rgba = np.empty((ny, nx, 4), dtype=np.uint8)
    rgba[..., :3] = np.clip(np.round(rgb), 0, 255).reshape(ny, nx, 3)
    rgba[..., 3] = 255
    return RegionImage(rgba, (x0, y0, w, h))
