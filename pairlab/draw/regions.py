"""Decision regions: pale class colours over a grid of the view, mixed by an algorithm's
``predict_proba`` (an RGBA image any canvas can show)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..algorithm import Algorithm
from ..dataset import Dataset
from ..errors import InvalidInputError
from ..state import State
from .classes import point_classes, slot_mapper
from .geometry import ViewMap, region_bounds
from .palette import OKABE_ITO

__all__ = ["RegionImage", "decision_regions"]


@dataclass(frozen=True)
class RegionImage:
    """An RGBA image (rows = y from bottom to top) covering ``rect`` = (x0, y0, width, height)."""

    rgba: np.ndarray
    rect: tuple[float, float, float, float]


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
    slot = slot_mapper(classes, dataset.y if match_truth else None, n_cls)
    slots = slot(np.arange(proba.shape[1]))
    colours = np.array(OKABE_ITO, dtype=float)[slots % len(OKABE_ITO)]
    rgb = proba @ colours
    rgb = 255.0 - (255.0 - rgb) * strength
    rgba = np.empty((ny, nx, 4), dtype=np.uint8)
    rgba[..., :3] = np.clip(np.round(rgb), 0, 255).reshape(ny, nx, 3)
    rgba[..., 3] = 255
    return RegionImage(rgba, (x0, y0, w, h))
