"""Geometry of the view: the map from data space to the 2-D display, bounds, covariance-ellipse
curves, link segments and hit-testing, as plain arrays (no Qt)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..dataset import Dataset
from ..memo import FrozenMemo

__all__ = ["ViewMap", "data_bounds", "ellipse_curves", "link_segments", "nearest_point", "nearest_segment",
           "region_bounds"]


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
    circle = _unit_circle(n_points)  # (2, m)
    vals, vecs = np.linalg.eigh(covs)  # (k, 2), (k, 2, 2)
    axes = vecs * np.sqrt(np.maximum(vals, 0.0))[:, None, :]  # columns scaled
    unit = np.einsum("kab,bm->kma", axes, circle)  # (k, m, 2)
    s = np.asarray(sigmas, dtype=float)
    return means[:, None, None, :] + s[None, :, None, None] * unit[:, None, :, :]


@functools.lru_cache(maxsize=4)
def _unit_circle(n_points: int) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n_points)
    circle = np.stack([np.cos(t), np.sin(t)])
    circle.setflags(write=False)
    return circle


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


def link_segments(xy: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The segments (m, 2, 2) from ``xy[a]`` to ``xy[b]`` of the (m, 2) index ``pairs``; for
    read-only arrays (a data set's view and a Constraints' pairs) kept and returned read-only:
    every pane of every frame draws the same links."""
    if len(pairs) == 0:
        return np.empty((0, 2, 2))
    return _kept_segments(xy, pairs)


def _segments(xy: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    segments = np.stack([xy[pairs[:, 0]], xy[pairs[:, 1]]], axis=1)
    segments.setflags(write=False)
    return segments


_kept_segments = FrozenMemo(_segments)
