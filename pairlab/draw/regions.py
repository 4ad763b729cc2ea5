"""Decision regions: pale class colours over a grid of the view, mixed by an algorithm's
``predict_proba`` (an RGBA image any canvas can show)."""

from __future__ import annotations

from collections.abc import Callable
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

__all__ = ["GridCells", "RegionGrid", "RegionImage", "colour_regions", "decision_regions", "grid_cells",
           "grid_probabilities"]


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
    The two halves, :func:`grid_probabilities` and :func:`colour_regions`, can be cached apart
    (the probabilities depend on the model only, the colours also on the labels).
    """
    grid = grid_probabilities(algorithm, state, dataset, view_map=view_map, bounds=bounds,
                              resolution=resolution)
    if grid is None:
        return None
    return colour_regions(grid, state, dataset, strength=strength, match_truth=match_truth)


@dataclass(frozen=True)
class RegionGrid:
    """Class probabilities (ny, nx, classes) at the cell centres of ``rect`` (rows bottom to top)."""

    proba: np.ndarray
    rect: tuple[float, float, float, float]


def grid_probabilities(algorithm: Any, state: State, dataset: Dataset, *,
                       view_map: ViewMap | None = None,
                       bounds: tuple[float, float, float, float] | None = None,
                       resolution: int = 140, cells: GridCells | None = None
                       ) -> RegionGrid | None:
    """``algorithm.predict_proba`` of ``state`` on a grid of ``resolution`` cells across the
    view's ``bounds``, components summed per class (``class_of_component``); None when the
    algorithm cannot classify unseen points or the view is not linear. ``cells``, when given,
    are those :func:`grid_cells` made for the same view, bounds and resolution."""
    if algorithm is None or (isinstance(algorithm, Algorithm) and not type(algorithm).can_predict()):
        return None
    if int(resolution) < 1:
        raise InvalidInputError(f"resolution must be at least 1 cell, got {resolution!r}")
    vm = view_map or ViewMap.of(dataset)
    if not vm.exact:
        return None
    if cells is None:
        cells = grid_cells(vm, bounds or region_bounds(dataset.view), resolution)
    proba = np.asarray(algorithm.predict_proba(state, cells.points), dtype=float)
    if proba.ndim != 2 or proba.shape[0] != len(cells.points) or not np.all(np.isfinite(proba)):
        raise InvalidInputError("predict_proba returned an array of the wrong shape or with NaN")
    coc = state.model.get("class_of_component")
    if coc is not None and len(coc) == proba.shape[1]:
        coc = np.asarray(coc, dtype=np.intp)
        onehot = np.zeros((len(coc), int(coc.max()) + 1))
        onehot[np.arange(len(coc)), coc] = 1.0
        proba = proba @ onehot
    return RegionGrid(proba.reshape(cells.ny, cells.nx, -1), cells.rect)


@dataclass(frozen=True)
class GridCells:
    """The cell centres of a region grid lifted to data space (``ny * nx`` rows, x fastest)."""

    points: np.ndarray
    nx: int
    ny: int
    rect: tuple[float, float, float, float]


def grid_cells(view_map: ViewMap, bounds: tuple[float, float, float, float],
               resolution: int) -> GridCells:
    """The cells :func:`grid_probabilities` evaluates: ``resolution`` across ``bounds`` (x0, y0,
    width, height), square in view units, lifted with :meth:`ViewMap.lift`. They depend on the
    view only, not on the model, so a caller may keep them across states (the teaching app
    does)."""
    if int(resolution) < 1:
        raise InvalidInputError(f"resolution must be at least 1 cell, got {resolution!r}")
    x0, y0, w, h = bounds
    nx = int(resolution)
    ny = max(2, round(nx * h / w)) if w > 0 else nx
    ny = min(ny, 4 * nx)
    gx = x0 + (np.arange(nx) + 0.5) * w / nx
    gy = y0 + (np.arange(ny) + 0.5) * h / ny
    grid = np.column_stack([np.tile(gx, ny), np.repeat(gy, nx)])
    return GridCells(view_map.lift(grid), nx, ny, (x0, y0, w, h))


def colour_regions(grid: RegionGrid, state: State, dataset: Dataset, *, strength: float = 0.22,
                   match_truth: bool = False,
                   slot_of: Callable[[np.ndarray], np.ndarray] | None = None) -> RegionImage:
    """The RGBA image of ``grid``: each cell's class colours mixed by its probabilities, faded
    towards white (``strength``), in the slots the points of ``state`` are drawn in (``slot_of``,
    when the caller has it: the frame's :attr:`~pairlab.draw.frames.Frame.slot_of`)."""
    ny, nx, k = grid.proba.shape
    if slot_of is None:
        classes, _, n_cls = point_classes(state)
        slot_of = slot_mapper(classes, dataset.y if match_truth else None, n_cls)
    slots = slot_of(np.arange(k))
    colours = np.array(OKABE_ITO, dtype=float)[slots % len(OKABE_ITO)]
    rgb = grid.proba.reshape(-1, k) @ colours
    np.subtract(255.0, rgb, out=rgb)  # 255 - (255 - rgb) * strength, in place
    rgb *= strength
    np.subtract(255.0, rgb, out=rgb)
    np.clip(np.round(rgb, out=rgb), 0, 255, out=rgb)
    rgba = np.empty((ny, nx, 4), dtype=np.uint8)
    rgba[..., :3] = rgb.reshape(ny, nx, 3)
    rgba[..., 3] = 255
    return RegionImage(rgba, grid.rect)
