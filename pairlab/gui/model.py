"""The teaching app's model and controller, free of Qt.

:class:`Lab` holds what a session is made of (a data set from a registered plugin, the links, the
initial means, the seed and one :class:`Pane` per algorithm being compared) and drives the panes'
:class:`~pairlab.Run` objects together: one global iteration cursor, replayed from the stored
history when it exists (``Run.seek``), computed otherwise. Frames for the canvas come from
:mod:`pairlab.gui.frames`. Nothing here knows about widgets, so the controller is testable
headless.

Threading: :meth:`Lab.build_run` and :meth:`Lab.compute_to` may run on a worker thread; everything
else is called from the GUI thread, which never touches a pane's run while a worker owns it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..algorithm import Algorithm
from ..constraints import Constraints
from ..dataset import Dataset
from ..errors import InvalidInputError, PairlabError
from ..run import Run
from ..state import State
from .frames import (
    Frame,
    RegionImage,
    ViewMap,
    build_frame,
    decision_regions,
    link_segments,
    nearest_point,
    nearest_segment,
    region_bounds,
)

__all__ = ["CLASS_COUNT_PARAMS", "DEFAULT_LIMIT", "SHOWN_METRICS", "Lab", "Pane", "class_count_params",
           "default_lab", "describe_error", "flip_noise"]

#: Iteration limit of algorithms without a ``max_iter`` parameter (the same as ``Run.run``).
DEFAULT_LIMIT = 100
#: Parameters that name the number of clusters; they follow the data set's number of classes.
CLASS_COUNT_PARAMS = ("n_components", "n_clusters", "k")
#: Metrics shown in each pane, in this order, when the registry provides them.
SHOWN_METRICS = ("purity", "ari", "nmi", "constraints-satisfied")


def class_count_params(cls: type[Algorithm]) -> list[str]:
    """The algorithm's integer parameters that give its number of clusters."""
    return [p.name for p in cls.params if p.name in CLASS_COUNT_PARAMS and p.type is int]


# -- panes and the lab ------------------------------------------------------------------------
class Pane:
    """One algorithm with its parameters, and the run that animates it."""

    def __init__(self, algorithm: type[Algorithm], params: Mapping[str, Any] | None = None) -> None:
        self.algorithm = algorithm
        self.params: dict[str, Any] = dict(params or {})
        self.run: Run | None = None
        self.error: str | None = None
        self.generation = 0
        self._cache: dict[Any, Any] = {}

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
        self._cache.clear()

    def status(self) -> str:
        if self.error is not None:
            return "stopped: error"
        if self.run is None:
            return "starting"
        if self.run.converged:
            return f"converged at iteration {self.last_index}"
        if self.last_index >= self.limit:
            return f"stopped at max_iter ({self.limit})"
        return "running"


def flip_noise(constraints: Constraints, fraction: float, rng: np.random.Generator) -> Constraints:
    """Flip a ``fraction`` of the links to the other kind (:func:`pairlab.links.add_noise`)."""
    from ..links import add_noise

    return add_noise(constraints, "flip-fraction", fraction, rng)


class Lab:
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
        self.seed = 0
        self.panes: list[Pane] = []
        self.iteration = 0
        #: The cursor is on the half-step before ``iteration`` (its first phase done).
        self.on_half = False
        self._undo: list[dict[str, Any]] = []
        #: Links the last :meth:`set_dataset` dropped (0 when they were kept).
        self.dropped_links = 0
        self._draws = 0
        self.constraints_version = 0
        #: Draw each cluster in the colour of its matched true class (when there is a truth).
        self.match_colours = True
        #: Incremented whenever runs are rebuilt; results of older background work are ignored.
        self.epoch = 0

    # -- choices ------------------------------------------------------------------------------
    def algorithm_names(self) -> list[str]:
        return self.registry.names("algorithms")

    def dataset_names(self) -> list[str]:
        return self.registry.names("datasets")

    def default_algorithm(self) -> str:
        names = self.algorithm_names()
        if not names:
            raise PairlabError("no algorithm plugin is registered; see `pairlab plugins`.")
        return "gmpr" if "gmpr" in names else names[0]

    def default_dataset(self) -> str:
        names = self.dataset_names()
        if not names:
            raise PairlabError("no data set plugin is registered; see `pairlab plugins`.")
        return "two-moons" if "two-moons" in names else names[0]

    # -- data ---------------------------------------------------------------------------------
    def set_dataset(self, name: str, params: Mapping[str, Any] | None = None,
                    seed: int | None = None, *, keep_links: bool = False,
                    undoable: bool = False) -> Dataset:
        """Load a data set.

        Links and initial means stay when ``keep_links`` and the number of points is unchanged
        (the indices still name points); otherwise they are cleared and :attr:`dropped_links`
        says how many links went. ``undoable`` puts the change on the undo stack (data set,
        links, means and the panes' class counts come back together); else the stack is
        cleared when links go. Panes' class-count parameters follow the data set's number of
        classes (:data:`CLASS_COUNT_PARAMS`).
        """
        old = self._snapshot() if self.dataset is not None else None
        old_classes = self.n_classes
        data = self._load_dataset(name, params, seed)
        keep = keep_links and old is not None and old["n_samples"] == data.n_samples
        self.dropped_links = 0 if keep else len(self.base)
        if undoable and old is not None:
            self._undo.append(old)
            del self._undo[:-100]
        if not keep:
            if not undoable:
                self._undo.clear()
            self.base = Constraints.empty(data.n_samples)
            self.init_means = None
        if self.n_classes is not None and self.n_classes != old_classes:
            for pane in self.panes:
                pane.params.update({k: self.n_classes for k in class_count_params(pane.algorithm)})
        self._constraints_changed()
        return data

    def _load_dataset(self, name: str, params: Mapping[str, Any] | None, seed: int | None
                      ) -> Dataset:
        spec = self.registry.dataset(name)
        seed = self.dataset_seed if seed is None else int(seed)
        data = spec.make(seed=seed, **dict(params or {}))
        self.dataset_name, self.dataset_seed = name, seed
        self.dataset_params = dict(data.source.get("params", {}))
        self.dataset = data
        self.view_map = ViewMap.of(data)
        self.bounds = region_bounds(data.view)
        return data

    @property
    def n_classes(self) -> int | None:
        """Number of true classes of the data set (None without ground truth)."""
        return None if self.dataset is None else self.dataset.n_classes

    @property
    def has_truth(self) -> bool:
        return self.dataset is not None and self.dataset.y is not None

    # -- panes --------------------------------------------------------------------------------
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
            for name in class_count_params(cls):
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

    def invalidate(self) -> None:
        """Rebuild every pane's run (the data, links, means or seed changed)."""
        for pane in self.panes:
            pane.invalidate()
        self._restart()

    def _restart(self) -> None:
        """Back to iteration 0 in every pane; background results from before are stale."""
        self.epoch += 1
        self.seek(0)

    def set_seed(self, seed: int) -> None:
        self.seed = int(seed)
        self.invalidate()

    def pending(self) -> list[Pane]:
        """Panes whose run must be built."""
        return [p for p in self.panes if p.run is None and p.error is None]

    def build_run(self, pane: Pane) -> Run:
        """Construct the pane's run (initialisation included); safe on a worker thread."""
        if self.dataset is None:
            raise InvalidInputError("no data set is loaded")
        return Run(pane.algorithm, self.dataset, self.constraints, self.run_params(pane),
                   seed=self.seed)

    def attach(self, pane: Pane, run: Run | None, error: BaseException | None = None) -> None:
        """Install a built run (or the error that prevented it) on the GUI thread."""
        pane.run = run
        pane.error = None if error is None else describe_error(pane, error, 0)
        pane._cache.clear()
        if run is not None:
            run.seek(min(self.iteration, len(run.history) - 1))

    # -- links --------------------------------------------------------------------------------
    def _snapshot(self) -> dict[str, Any]:
        """What an undo restores: links, means, the data set and the panes' parameters."""
        return {"base": self.base, "init_means": self.init_means,
                "dataset": (self.dataset_name, dict(self.dataset_params), self.dataset_seed),
                "n_samples": self.dataset.n_samples if self.dataset is not None else 0,
                "pane_params": [dict(p.params) for p in self.panes]}

    def _push_undo(self) -> None:
        self._undo.append(self._snapshot())
        del self._undo[:-100]

    @property
    def undo_kind(self) -> str:
        """What :meth:`undo` would undo: "setup", "history" or "" (nothing)."""
        return "" if not self._undo else self._undo[-1].get("kind", "setup")

    def undo(self) -> str:
        """Undo the last edit: "setup" (links, means, data set: the runs restart), "history" (a
        moved mean: the dropped history is back), "" when there is nothing to undo."""
        if not self._undo:
            return ""
        entry = self._undo.pop()
        if entry.get("kind") == "history":
            pane, run = entry["pane"], entry["run"]
            if pane.run is not run:  # the run was rebuilt since: nothing to restore it into
                return self.undo()
            run.history[:] = entry["history"]
            run.halves = entry["halves"]
            run.converged = entry["converged"]
            pane._cache.clear()
            if entry["on_half"]:
                self.seek_half(entry["iteration"])
            else:
                self.seek(entry["iteration"])
            return "history"
        name, params, seed = entry["dataset"]
        if (name, params, seed) != (self.dataset_name, self.dataset_params, self.dataset_seed):
            self._load_dataset(name, params, seed)
        if len(entry["pane_params"]) == len(self.panes):
            for pane, params in zip(self.panes, entry["pane_params"], strict=True):
                pane.params = params
        self.base, self.init_means = entry["base"], entry["init_means"]
        self._constraints_changed()
        return "setup"

    def _constraints_changed(self) -> None:
        if self.dataset is None:
            return
        self.constraints = flip_noise(self.base, self.noise,
                                      np.random.default_rng([self.dataset_seed, 7919]))
        self.constraints_version += 1
        self.invalidate()

    def set_constraints(self, constraints: Constraints, *, undoable: bool = True) -> None:
        if self.dataset is None or constraints.n_samples != self.dataset.n_samples:
            raise InvalidInputError("these links were made for a data set of another size")
        if undoable:
            self._push_undo()
        self.base = constraints
        self._constraints_changed()

    def add_link(self, kind: str, i: int, j: int) -> bool:
        """Add a must-link (``kind="must"``) or cannot-link; a link of the other kind between the
        same points is replaced. Returns False when nothing changed."""
        if kind not in ("must", "cannot"):
            raise InvalidInputError(f"kind must be 'must' or 'cannot', got {kind!r}")
        i, j = int(i), int(j)
        if i == j:
            return False
        a, b = min(i, j), max(i, j)
        ml, cl = self._pair_lists()
        same, other = (ml, cl) if kind == "must" else (cl, ml)
        if (a, b) in same:
            return False
        if (a, b) in other:
            other.remove((a, b))
        same.append((a, b))
        self.set_constraints(self._from_lists(ml, cl))
        return True

    def remove_link(self, i: int, j: int) -> bool:
        a, b = min(int(i), int(j)), max(int(i), int(j))
        ml, cl = self._pair_lists()
        if (a, b) in ml:
            ml.remove((a, b))
        elif (a, b) in cl:
            cl.remove((a, b))
        else:
            return False
        self.set_constraints(self._from_lists(ml, cl))
        return True

    def add_random_links(self, n_must: int, n_cannot: int) -> tuple[int, int]:
        """Draw links from the ground truth (the papers' protocol), skipping pairs already linked.
        Returns how many of each were added."""
        from ..links import random_pairs

        if not self.has_truth:
            raise InvalidInputError(
                f"data set {self.dataset_name!r} has no ground-truth labels to draw links from; "
                "draw links by hand instead.")
        assert self.dataset is not None
        self._draws += 1
        rng = np.random.default_rng([self.dataset_seed, 104729, self._draws])
        ml, cl = self._pair_lists()
        have = set(ml) | set(cl)
        added = [0, 0]
        for attempt in range(4):
            need_m, need_c = n_must - added[0], n_cannot - added[1]
            if need_m <= 0 and need_c <= 0:
                break
            extra = attempt * 2
            new = random_pairs(self.dataset.y, max(need_m, 0) + extra * (need_m > 0),
                               max(need_c, 0) + extra * (need_c > 0), rng)
            for pairs, target, slot in ((new.must_link, ml, 0), (new.cannot_link, cl, 1)):
                for a, b in pairs.tolist():
                    if added[slot] >= (n_must, n_cannot)[slot] or (a, b) in have:
                        continue
                    have.add((a, b))
                    target.append((a, b))
                    added[slot] += 1
        if added != [0, 0]:
            self.set_constraints(self._from_lists(ml, cl))
        return added[0], added[1]

    def clear_links(self) -> None:
        assert self.dataset is not None
        self.set_constraints(Constraints.empty(self.dataset.n_samples))

    def set_noise(self, fraction: float) -> None:
        if not 0.0 <= fraction <= 1.0:
            raise InvalidInputError(f"noise must lie in [0, 1], got {fraction}")
        self.noise = float(fraction)
        self._constraints_changed()

    def _pair_lists(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        return ([tuple(p) for p in self.base.must_link.tolist()],  # type: ignore[misc]
                [tuple(p) for p in self.base.cannot_link.tolist()])  # type: ignore[misc]

    def _from_lists(self, ml: list, cl: list) -> Constraints:
        return Constraints(ml or None, cl or None, n_samples=self.base.n_samples)

    def link_at(self, x: float, y: float, px: float, py: float, radius: float
                ) -> tuple[int, int] | None:
        """The pair (i, j) of the link drawn nearest to view point (x, y), within ``radius`` px."""
        assert self.dataset is not None
        pairs = np.vstack([self.constraints.must_link, self.constraints.cannot_link])
        k = nearest_segment(link_segments(self.dataset.view, pairs), x, y, px, py, radius)
        return None if k is None else (int(pairs[k, 0]), int(pairs[k, 1]))

    def point_at(self, x: float, y: float, px: float, py: float, radius: float) -> int | None:
        assert self.dataset is not None
        return nearest_point(self.dataset.view, x, y, px, py, radius)

    # -- initial means ------------------------------------------------------------------------
    @property
    def accepts_means(self) -> bool:
        return any(p.algorithm.accepts_means_init and "means_init" in {q.name for q in
                   p.algorithm.params} for p in self.panes)

    def add_init_mean(self, x: float, y: float) -> None:
        """Place one more initial mean at view point (x, y)."""
        assert self.view_map is not None
        point = self.view_map.lift(np.array([[x, y]]))
        self._push_undo()
        self.init_means = point if self.init_means is None else np.vstack([self.init_means, point])
        self._constraints_changed()

    def clear_init_means(self) -> None:
        if self.init_means is None:
            return
        self._push_undo()
        self.init_means = None
        self._constraints_changed()

    # -- the iteration cursor -----------------------------------------------------------------
    @property
    def max_index(self) -> int:
        """Last iteration stored by any pane."""
        return max((p.last_index for p in self.panes), default=0) if self.panes else 0

    def seek(self, t: int) -> None:
        """Show iteration ``t`` in every pane (a finished pane shows its last state)."""
        t = max(0, int(t))
        self.iteration = t
        self.on_half = False
        for pane in self.panes:
            run = pane.run
            if run is not None and (run.index != min(t, pane.last_index) or run.on_half):
                run.seek(min(t, pane.last_index))

    # -- half-steps (algorithms with two phases per iteration) --------------------------------
    @property
    def has_phases(self) -> bool:
        """Some pane's algorithm steps by halves (E-step / M-step, assign / update, ...)."""
        return any(len(p.algorithm.phases) == 2 for p in self.panes)

    def seek_half(self, t: int) -> None:
        """Show the half-step before iteration ``t`` (first phase done) in panes that stored one;
        the other panes show iteration ``t - 1`` (or their last state)."""
        t = max(1, int(t))
        self.iteration, self.on_half = t, True
        for pane in self.panes:
            run = pane.run
            if run is None:
                continue
            if t - 1 <= pane.last_index and (t - 1) in run.halves:
                run.seek(t - 1)
                run.half_step()  # replays the stored half-state
            elif run.index != min(t - 1, pane.last_index) or run.on_half:
                run.seek(min(t - 1, pane.last_index))

    def has_half(self, t: int) -> bool:
        """Some pane holds (or can compute) the half-step before iteration ``t``."""
        return any(p.run is not None and ((t - 1) in p.run.halves or p in self.needs_half(t))
                   for p in self.panes)

    def needs_half(self, t: int) -> list[Pane]:
        """Panes that must compute the half-step before iteration ``t`` (they are at ``t - 1``)."""
        return [p for p in self.panes if p.run is not None and not p.finished
                and len(p.algorithm.phases) == 2 and p.last_index == t - 1
                and (t - 1) not in p.run.halves]

    def compute_half(self, t: int, panes: Sequence[Pane] | None = None) -> None:
        """Compute the half-step before iteration ``t`` (worker thread; errors stay per pane)."""
        for pane in panes if panes is not None else self.needs_half(t):
            run = pane.run
            if run is None or pane.last_index != t - 1:
                continue
            try:
                run.seek(t - 1)
                run.half_step()
            except Exception as exc:  # a plugin's bug must not take the app down
                if pane.run is run:
                    pane.error = describe_error(pane, exc, t)

    def move_mean(self, pane: Pane, k: int, x: float, y: float) -> None:
        """Move mean ``k`` of the pane's state on screen to view point (x, y) and continue from
        there: the iteration on screen is made again from its first phase with the moved mean
        (its second phase, the E-step or the assignment, runs under it) and the history after it
        is dropped; :meth:`undo` brings the dropped history back.

        Needs an algorithm that steps by halves and reads the means of the half-state
        (``finish_step``); at iteration 0, place initial means instead.
        """
        run = pane.run
        if run is None or pane.error is not None:
            raise InvalidInputError("this pane has no run to edit")
        t = run.index + 1 if run.on_half else run.index
        if len(pane.algorithm.phases) != 2:
            raise InvalidInputError(f"{pane.title} steps whole iterations only; moving a mean "
                                    "needs an algorithm that steps by halves")
        if t == 0:
            raise InvalidInputError("at iteration 0 place initial means instead (tool I)")
        if (t - 1) not in run.halves or "means" not in run.halves[t - 1].model:
            raise InvalidInputError(f"{pane.title} has no means to move at iteration {t}")
        assert self.view_map is not None
        half = run.halves[t - 1]
        means = np.array(half.model["means"], dtype=float)
        means[k] = self.view_map.lift(np.array([[x, y]]))[0]
        model = dict(half.model, means=means)
        if "centers" in model and np.array_equal(half.model["centers"], half.model["means"]):
            model["centers"] = means  # k-means keeps its centres and means as one array
        self._undo.append({"kind": "history", "pane": pane, "run": run,
                           "history": list(run.history), "halves": dict(run.halves),
                           "converged": run.converged, "iteration": self.iteration,
                           "on_half": self.on_half})
        del self._undo[:-100]
        run.drop_after(t - 1)
        run.halves[t - 1] = dataclasses.replace(half, model=model)
        run.step()  # the second phase under the moved mean (cheap: one E-step or assignment)
        pane._cache.clear()
        self.seek(t)

    def phase_shown(self) -> str:
        """Name of the phase on screen ("" on whole iterations)."""
        for pane in self.panes:
            if pane.run is not None and pane.run.on_half:
                return pane.run.state.phase
        return ""

    def explain(self, pane: Pane, index: int) -> Any:
        """The pane's :class:`~pairlab.Explanation` of point ``index`` at the state on screen."""
        if pane.run is None or pane.error is not None:
            return None
        return pane.run.explain(index)

    def needs_compute(self, t: int) -> list[Pane]:
        """Panes that must compute new states to reach iteration ``t``."""
        return [p for p in self.panes if p.run is not None and not p.finished and p.last_index < t]

    def can_advance(self) -> bool:
        return self.iteration < self.max_index or bool(self.needs_compute(self.iteration + 1))

    def at_end(self) -> bool:
        return not self.can_advance()

    def compute_to(self, t: int | None, panes: Sequence[Pane] | None = None, *,
                   cancelled: Callable[[], bool] = lambda: False,
                   progress: Callable[[int, int], None] | None = None) -> None:
        """Step the panes until they hold iteration ``t`` (None: until each finishes).

        Safe on a worker thread as long as the GUI leaves these runs alone. An error stops that
        pane only and is recorded in ``pane.error``.
        """
        panes = list(panes if panes is not None else self.panes)
        targets = {id(p): (p.limit if t is None else min(t, p.limit)) for p in panes}
        total = sum(max(targets[id(p)] - p.last_index, 0) for p in panes if p.run is not None)
        done = 0
        while True:
            active = [p for p in panes if p.run is not None and not p.finished
                      and p.last_index < targets[id(p)]]
            if not active or cancelled():
                return
            for pane in active:
                self.step_pane(pane)
                done += 1
                if progress is not None:
                    progress(done, max(total, done))

    def step_pane(self, pane: Pane) -> None:
        """Compute one new state of ``pane`` (recording an error instead of raising)."""
        run = pane.run
        assert run is not None
        if run.index != len(run.history) - 1:
            run.seek(len(run.history) - 1)
        try:
            run.step()
        except Exception as exc:  # a plugin's bug must not take the app down
            if pane.run is run:  # not a run the GUI has replaced meanwhile
                pane.error = describe_error(pane, exc, len(run.history))

    # -- what the panes show ------------------------------------------------------------------
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
        cached = pane._cache.get(key)
        if cached is not None:
            return cached
        region = None
        message = pane.error
        if regions and state is not None and pane.algorithm.can_predict():
            try:
                region = self.regions(pane, state, (index, half), regions_resolution)
            except Exception as exc:  # predict_proba is plugin code too
                message = f"decision regions unavailable: {type(exc).__name__}: {exc}"
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
                            init_means=self.init_means, regions=region, title=pane.title,
                            info=info, message=message, match_truth=match,
                            previous=previous_state)
        if state is None and pane.error is None:
            frame.info = "initialising..."
            if previous is not None and previous.n_points == frame.n_points:
                frame.colour, frame.level = previous.colour, previous.level
                frame.regions = previous.regions if regions else None
                return frame
        pane._cache[key] = frame
        return frame

    def set_region_bounds(self, rect: tuple[float, float, float, float]) -> None:
        """The area (x0, y0, width, height) decision regions cover; cached images are dropped."""
        self.bounds = tuple(float(v) for v in rect)  # type: ignore[assignment]
        for pane in self.panes:
            for key in [k for k in pane._cache if k[0] in ("regions", "frame")]:
                del pane._cache[key]

    def regions(self, pane: Pane, state: State, index: Any, resolution: int) -> RegionImage | None:
        match = self.match_colours and self.has_truth
        key = ("regions", pane.generation, index, resolution, self.bounds, match)
        if key not in pane._cache:
            assert pane.run is not None and self.dataset is not None
            pane._cache[key] = decision_regions(pane.run.algorithm, state, self.dataset,
                                                view_map=self.view_map, bounds=self.bounds,
                                                resolution=resolution, match_truth=match)
        return pane._cache[key]

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
        if key not in pane._cache:
            metrics = [e.obj for e in self.registry.entries("metrics")
                       if chosen is None or e.name in chosen]
            pane._cache[key] = evaluate(state.labels, self.dataset.y, self.constraints, metrics)
        return pane._cache[key]

    def metric_titles(self) -> dict[str, str]:
        return {e.name: e.obj.title for e in self.registry.entries("metrics")}


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
    lab._undo.clear()
    return lab


def describe_error(pane: Pane, exc: BaseException, iteration: int) -> str:
    """A readable one-paragraph message for an algorithm that failed."""
    where = "while starting" if iteration == 0 else f"at iteration {iteration}"
    if isinstance(exc, PairlabError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc} (a bug in the plugin; report it to its authors)"
    return f"{pane.title} stopped {where}: {text}"
