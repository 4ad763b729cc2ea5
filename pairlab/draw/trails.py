"""Trails: how each cluster's mean (or centre) moved over the iterations so far (Qt-free).

A trail joins component ``c``'s mean at consecutive states; each segment carries its age, so a
canvas fades the older ones. Components are followed by index (a component that exists in only
one of two consecutive states has no segment there, e.g. a DP-means cluster being opened).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..state import State
from .geometry import ViewMap

__all__ = ["Trails", "mean_trails", "model_points"]


@dataclass
class Trails:
    """Segments of every trail, in display coordinates.

    ``segments`` (m, 2, 2) from the earlier to the later position, ``component`` (m,) the
    component index, ``age`` (m,) in (0, 1]: 1 for the newest step, 1/T for the oldest of T.
    """

    segments: np.ndarray = field(default_factory=lambda: np.empty((0, 2, 2)))
    component: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.intp))
    age: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __len__(self) -> int:
        return len(self.segments)


def model_points(state: State, n_features: int) -> np.ndarray | None:
    """The state's means (else its centres) as an (k, n_features) array, or None."""
    for key in ("means", "centers"):
        pts = state.model.get(key)
        if pts is not None and np.ndim(pts) == 2 and np.shape(pts)[1] == n_features:
            return np.asarray(pts, dtype=float)
    return None


def mean_trails(states: Sequence[State], view_map: ViewMap, n_features: int) -> Trails:
    """The trails of the means through ``states`` (in order), mapped by ``view_map``.

    Empty when the view is not a linear map of the data (``view_map.exact`` False: a plugin's
    own view) or the states carry no means. Zero-length steps are left out.
    """
    if not view_map.exact or len(states) < 2:
        return Trails()
    points = []
    for s in states:
        pts = model_points(s, n_features)
        points.append(None if pts is None else view_map.to_view(pts))
    steps = len(states) - 1
    if all(pts is not None for pts in points) and len({len(pts) for pts in points}) == 1:
        P = np.stack(points)  # (T + 1, k, 2): one array op for the usual fixed-k run
        ok = np.all(np.isfinite(P), axis=2)
        moved = np.any(P[1:] != P[:-1], axis=2) & ok[1:] & ok[:-1]
        t, c = np.nonzero(moved)
        return Trails(np.stack([P[t, c], P[t + 1, c]], axis=1), c.astype(np.intp),
                      (t + 1) / steps)
    segs, comps, ages = [], [], []
    for t in range(steps):
        pa, pb = points[t], points[t + 1]
        if pa is None or pb is None:
            continue
        k = min(len(pa), len(pb))
        pa, pb = pa[:k], pb[:k]
        moved = np.flatnonzero(np.any(pa != pb, axis=1) & np.all(np.isfinite(pa), axis=1)
                               & np.all(np.isfinite(pb), axis=1))
        if not moved.size:
            continue
        segs.append(np.stack([pa[moved], pb[moved]], axis=1))
        comps.append(moved)
        ages.append(np.full(moved.size, (t + 1) / steps))
    if not segs:
        return Trails()
    return Trails(np.concatenate(segs), np.concatenate(comps).astype(np.intp),
                  np.concatenate(ages))
