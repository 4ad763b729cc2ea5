"""What the panes of the teaching app's :class:`~pairlab.gui.model.Lab` show: frames, decision
regions and metrics, cached per pane (Qt-free; the frames come from :mod:`pairlab.draw`)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..constraints import Constraints
from ..dataset import Dataset
from ..draw.frames import Frame, build_frame
from ..draw.geometry import ViewMap
from ..draw.regions import GridCells, RegionImage, colour_regions, grid_cells, grid_probabilities
from ..state import State
from .pane import Pane

__all__ = ["SHOWN_METRICS", "LabViews", "model_digest"]

#: Models larger than this (bytes of their arrays) are not hashed: their regions are cached per
#: state only (a kernel matrix would be hashed for every state shown; not measured against).
DIGEST_MAX_BYTES = 1 << 20
#: Probability grids kept per pane (the region images made from them are kept for every state).
GRIDS_KEPT = 4

#: Metrics shown in each pane, in this order, when the registry provides them.
SHOWN_METRICS = ("purity", "ari", "nmi", "constraints-satisfied")
#: Short names of parameters in a pane's title (others: the name with spaces).
_SHORT = {"lambda_": "λ", "beta": "β", "sigma": "σ", "bandwidth": "b"}


def model_digest(state: State) -> bytes | None:
    """A digest of ``state.model`` (the parameters ``predict_proba`` reads): equal for two states
    whose models are equal; None for a model of more than :data:`DIGEST_MAX_BYTES` or one that
    holds something other than numbers, strings and arrays."""
    h = hashlib.blake2b(digest_size=16)
    size = 0
    for name in sorted(state.model):
        value = state.model[name]
        h.update(name.encode())
        if isinstance(value, np.ndarray):
            if value.dtype == object:
                return None
            size += value.nbytes
            if size > DIGEST_MAX_BYTES:
                return None
            h.update(f"{value.dtype.str}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        elif value is None or isinstance(value, (bool, int, float, str, np.generic)):
            h.update(repr(value).encode())
        else:
            return None
    return h.digest()


class LabViews:
    """Frames, region images and metrics of a Lab's panes, cached until the pane's run, the links
    or the region bounds change."""

    registry: Any
    dataset: Dataset | None
    view_map: ViewMap | None
    constraints: Constraints
    panes: list[Pane]
    iteration: int
    on_half: bool
    init_means: np.ndarray | None
    bounds: tuple[float, float, float, float]
    match_colours: bool
    constraints_version: int
    has_truth: bool

    def state(self, pane: Pane, t: int | None = None) -> State | None:
        if pane.run is None:
            return None
        if t is None:
            return pane.run.state
        return pane.run.history[min(max(t, 0), pane.last_index)]

    def frame(self, pane: Pane, t: int | None = None, *, regions: bool = True,
              regions_resolution: int = 140, previous: Frame | None = None,
              half: bool = False) -> Frame:
        """The frame of ``pane`` at iteration ``t`` (default: its cursor; with ``half``, the
        half-step before iteration ``t``, or iteration ``t - 1`` for a pane without it); cached.

        While the pane's run is being rebuilt, the colours of ``previous`` (the frame on screen)
        are kept, so that adding a link does not flash the points grey.
        """
        assert self.dataset is not None
        run = pane.run
        if run is None:
            index, half = -1, False
        elif t is None:
            index, half = run.index, run.on_half
        elif half:
            index = min(max(int(t) - 1, 0), pane.last_index)
            half = index == int(t) - 1 and index in run.halves
        else:
            index = min(max(int(t), 0), pane.last_index)
        state = None if index < 0 or run is None else (run.halves[index] if half
                                                        else run.history[index])
        match = self.match_colours and self.has_truth
        key = ("frame", pane.generation, self.constraints_version, index, half, regions,
               regions_resolution, pane.error, match)
        cached = pane.cache.get(key)
        if cached is not None:
            return cached
        info = None
        shown = self.iteration if t is None else t
        if state is not None and pane.finished and index == pane.last_index and shown > index:
            info = f"iteration {state.iteration} (final)"
            if state.objective is not None and math.isfinite(state.objective):
                info += f"   {state.objective_name} {state.objective:.6g}"
        previous_state = None  # the state one half-step (or step) before
        if state is not None and run is not None:
            if half:
                previous_state = run.history[index]
            elif index > 0:
                previous_state = run.halves.get(index - 1, run.history[index - 1])
        frame = build_frame(self.dataset, self.constraints, state, view_map=self.view_map,
                            init_means=self.init_means, title=pane.title,
                            info=info, message=pane.error, match_truth=match,
                            previous=previous_state,
                            ignored=None if run is None else run.algorithm.ignored_links())
        # beyond two features the view plane through the mean cuts the model where few points
        # lie (one flat colour under points of every class): regions only for 2-D data
        flat = self.dataset.n_features > 2
        if regions and state is not None and pane.algorithm.can_predict() and not flat:
            try:  # coloured by the slots the frame's points were drawn in
                frame.regions = self.regions(pane, state, (index, half), regions_resolution,
                                             frame.slot_of)
            except Exception as exc:  # predict_proba is plugin code too
                frame.message = f"decision regions unavailable: {type(exc).__name__}: {exc}"
        if regions and flat and state is not None and pane.algorithm.can_predict():
            frame.info += (f"   (decision regions: 2-D data only; this data has "
                           f"{self.dataset.n_features} features)")
        if state is None and pane.error is None:
            frame.info = "initialising..."
            if previous is not None and previous.n_points == frame.n_points:
                frame.colour, frame.level = previous.colour, previous.level
                frame.regions = previous.regions if regions else None
                return frame
        pane.cache[key] = frame
        return frame

    def set_region_bounds(self, rect: tuple[float, float, float, float]) -> None:
        """The area (x0, y0, width, height) decision regions cover; cached images are dropped."""
        self.bounds = tuple(float(v) for v in rect)  # type: ignore[assignment]
        for pane in self.panes:
            for key in [k for k in pane.cache if k[0] in ("regions", "grid", "frame")]:
                del pane.cache[key]

    def regions(self, pane: Pane, state: State, index: Any, resolution: int,
                slot_of: Any = None) -> RegionImage | None:
        """The decision regions of ``state`` (cached per state shown; the grid of probabilities
        behind them is computed once per distinct model: a half-step that left the model as it
        was, or a converged run, reuses it)."""
        match = self.match_colours and self.has_truth
        key = ("regions", pane.generation, index, resolution, self.bounds, match)
        if key not in pane.cache:
            assert pane.run is not None and self.dataset is not None
            digest = model_digest(state)
            grid_key = ("grid", pane.generation, digest if digest is not None else index,
                        resolution, self.bounds)
            grid = pane.cache.get(grid_key)
            if grid is None:
                grid = grid_probabilities(pane.run.algorithm, state, self.dataset,
                                          view_map=self.view_map, bounds=self.bounds,
                                          resolution=resolution, cells=self._cells(resolution))
                # float grids are large (0.6 MB at 140 cells and 4 classes): keep the newest few
                # (the model of the state shown and its neighbours); the images stay cached
                grids = [k for k in pane.cache if k[0] == "grid"]
                for old in grids[:max(len(grids) + 1 - GRIDS_KEPT, 0)]:
                    del pane.cache[old]
                pane.cache[grid_key] = grid
            pane.cache[key] = (None if grid is None else
                               colour_regions(grid, state, self.dataset, match_truth=match,
                                              slot_of=slot_of))
        return pane.cache[key]

    def _cells(self, resolution: int) -> GridCells | None:
        """The region grid's cells in data space, shared by every pane and state (they depend
        on the view only); None when the view is not linear (no regions)."""
        vm = self.view_map
        if vm is None or not vm.exact:
            return None
        key = (id(vm), self.bounds, int(resolution))
        cached = getattr(self, "_cells_cache", None)  # (key, the view map kept alive, cells)
        if cached is None or cached[0] != key:
            cached = self._cells_cache = (key, vm, grid_cells(vm, self.bounds, resolution))
        return cached[2]

    def metrics(self, pane: Pane, t: int | None = None, names: Sequence[str] | None = SHOWN_METRICS
                ) -> dict[str, float]:
        """Registered metrics of the pane's state at ``t`` (cached): those in ``names`` (default:
        the ones the panes show), or every registered one with ``names=None``."""
        from ..scoring import evaluate

        state = self.state(pane, t)
        if state is None or self.dataset is None:
            return {}
        chosen = tuple(names) if names is not None else None
        key = ("metrics", pane.generation, self.constraints_version, state.iteration, state.phase,
               chosen)
        if key not in pane.cache:
            metrics = [e.obj for e in self.registry.entries("metrics")
                       if chosen is None or e.name in chosen]
            pane.cache[key] = evaluate(state.labels, self.dataset.y, self.constraints, metrics)
        return pane.cache[key]

    def distinct_params(self, pane: Pane) -> str:
        """The parameters that tell ``pane`` apart from the other panes of its algorithm, as
        "name value, ..." (e.g. "must link weight 1.3"); "" when no other pane runs it."""
        others = [p for p in self.panes if p is not pane and p.algorithm is pane.algorithm]
        if not others:
            return ""
        defaults = {p.name: p.default for p in pane.algorithm.params}

        def value(p: Pane, name: str) -> Any:
            return p.params.get(name, defaults.get(name))

        parts = []
        for name in defaults:
            mine = value(pane, name)
            if isinstance(mine, np.ndarray) or name == "means_init":
                continue
            if any(value(o, name) != mine for o in others):
                shown = f"{mine:g}" if isinstance(mine, float) else str(mine)
                parts.append(f"{name.replace('_', ' ')} {shown}")
        return ", ".join(parts)

    def chosen_params(self, pane: Pane) -> str:
        """The parameters a pane's title shows, short: its number of clusters ("k=3"), then every
        parameter set away from its default or that differs from another pane of the same
        algorithm ("λ=2.5, must link weight=1.3"); arrays (initial means) are left out."""
        from .pane import class_count_params

        others = [p for p in self.panes if p is not pane and p.algorithm is pane.algorithm]
        defaults = {p.name: p.default for p in pane.algorithm.params}
        counts = class_count_params(pane.algorithm, pane.params)
        parts = [f"k={pane.params[n]}" for n in counts[:1] if pane.params.get(n) is not None]
        for name, default in defaults.items():
            mine = pane.params.get(name, default)
            if name in counts or name == "means_init" or isinstance(mine, np.ndarray):
                continue
            differs = any(o.params.get(name, default) != mine for o in others)
            if mine != default or differs:
                shown = f"{mine:g}" if isinstance(mine, float) else str(mine)
                parts.append(f"{_SHORT.get(name, name.replace('_', ' '))}={shown}")
        return ", ".join(parts)

    def metric_titles(self) -> dict[str, str]:
        return {e.name: e.obj.title for e in self.registry.entries("metrics")}
