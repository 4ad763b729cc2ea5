"""The session data of the teaching app's :class:`~pairlab.gui.model.Lab`: the data set, the
links (with undo and noise), the initial means and hit-testing on the view (Qt-free)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..constraints import Constraints
from ..dataset import Dataset
from ..draw.geometry import ViewMap, link_segments, nearest_point, nearest_segment, region_bounds
from ..errors import InvalidInputError, PairlabError
from .lab_points import NO_POINTS, check_drawn, with_points
from .pane import Pane, class_count_params

__all__ = ["MAX_POINTS", "LabData"]

#: Most points the app loads: beyond, making the data, the runs and a frame freeze the window for
#: seconds (two moons at 2,000,000 points took 8.8 s to load in the classroom trial).
MAX_POINTS = 200_000


class LabData:
    """Data set, links, undo stack, noise and initial means of a :class:`~pairlab.gui.model.Lab`.

    A change calls ``_constraints_changed`` (the Lab redraws the noisy links and rebuilds the
    runs); undoing an edit of a run's history is the timeline's (``_undo_history``).
    """

    registry: Any
    dataset: Dataset | None
    view_map: ViewMap | None
    constraints: Constraints
    panes: list[Pane]
    iteration: int
    on_half: bool
    dataset_name: str
    dataset_params: dict[str, Any]
    dataset_seed: int
    bounds: tuple[float, float, float, float]
    base: Constraints
    noise: float
    init_means: np.ndarray | None
    drawn: np.ndarray
    dropped_links: int
    redrawn_links: int
    _undo: list[dict[str, Any]]
    _draws: int

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
        old_classes, previous = self.n_classes, self.dataset
        self.drawn = NO_POINTS  # drawn points belong to the data they were drawn on
        data = self._load_dataset(name, params, seed)
        keep = keep_links and old is not None and old["n_samples"] == data.n_samples
        self.redrawn_links = 0
        if keep and previous is not None and len(self.base) and not np.array_equal(previous.X,
                                                                                   data.X):
            # the same indices name other points now: links must not silently turn wrong
            keep = self._redraw_stale_links(previous, data)
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
                pane.params.update({k: self.n_classes
                                    for k in class_count_params(pane.algorithm, pane.params)})
        self._constraints_changed()
        return data

    def use_dataset(self, data: Dataset) -> Dataset:
        """Install a data set made elsewhere (the notebook widget's ``Dataset`` object) instead of
        loading one by name; links, initial means and the undo stack are cleared."""
        if not isinstance(data, Dataset):
            raise InvalidInputError(f"expected a pairlab Dataset, got {type(data).__name__}")
        if data.n_samples > MAX_POINTS:
            raise InvalidInputError(f"{data.name} has {data.n_samples:,} points, more than the app "
                                    f"draws ({MAX_POINTS:,} at most)")
        self.dataset_name = data.name or str(data.source.get("dataset", ""))
        self.dataset_params = dict(data.source.get("params", {}))
        self.dataset_seed = int(data.source.get("seed", 0) or 0)
        self.dataset = data
        self.view_map = ViewMap.of(data)
        self.bounds = region_bounds(data.view)
        self.dropped_links, self.redrawn_links = len(self.base), 0
        self.base = Constraints.empty(data.n_samples)
        self.init_means = None
        self._undo.clear()
        self._constraints_changed()
        return data

    def _redraw_stale_links(self, previous: Dataset, data: Dataset) -> bool:
        """After the points changed under the same indices, redraw from the same rule (random
        pairs of the true classes) every link whose agreement with the classes changed, and
        set :attr:`redrawn_links`; False (drop them all) when either data set has no classes."""
        if previous.y is None or data.y is None:
            return False
        ml, cl = self._pair_lists()
        old_y, new_y = np.asarray(previous.y), np.asarray(data.y)

        def stale(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
            return [(a, b) for a, b in pairs
                    if (old_y[a] == old_y[b]) != (new_y[a] == new_y[b])]

        gone_m, gone_c = stale(ml), stale(cl)
        if not gone_m and not gone_c:
            return True
        ml = [p for p in ml if p not in set(gone_m)]
        cl = [p for p in cl if p not in set(gone_c)]
        self._draw_pairs(ml, cl, len(gone_m), len(gone_c))
        self.base = self._from_lists(ml, cl)
        self.redrawn_links = len(gone_m) + len(gone_c)
        return True

    def _load_dataset(self, name: str, params: Mapping[str, Any] | None, seed: int | None
                      ) -> Dataset:
        spec = self.registry.dataset(name)
        seed = self.dataset_seed if seed is None else int(seed)
        asked = dict(params or {}).get("n_samples")
        if isinstance(asked, int | float) and asked > MAX_POINTS:
            raise InvalidInputError(
                f"n_samples = {int(asked):,} is more than the app draws ({MAX_POINTS:,} points at "
                "most: beyond, the window would freeze for seconds); use `pairlab run` for "
                "larger data")
        data = with_points(spec.make(seed=seed, **dict(params or {})), self.drawn)
        if data.n_samples > MAX_POINTS:
            raise InvalidInputError(
                f"{name} has {data.n_samples:,} points, more than the app draws ({MAX_POINTS:,} "
                "at most); use `pairlab run` for larger data")
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

    def _snapshot(self) -> dict[str, Any]:
        """What an undo restores: links, means, the data set and the panes' parameters."""
        return {"base": self.base, "init_means": self.init_means, "drawn": self.drawn,
                "dataset": (self.dataset_name, dict(self.dataset_params), self.dataset_seed),
                "n_samples": self.dataset.n_samples if self.dataset is not None else 0,
                "pane_params": [dict(p.params) for p in self.panes]}

    def _push_undo(self) -> None:
        self._undo.append(self._snapshot())
        del self._undo[:-100]

    def clear_undo(self) -> None:
        """Forget every edit (a fresh session has nothing to undo)."""
        self._undo.clear()

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
            return self._undo_history(entry)
        name, params, seed = entry["dataset"]
        drawn = entry.get("drawn", NO_POINTS)
        if ((name, params, seed) != (self.dataset_name, self.dataset_params, self.dataset_seed)
                or not np.array_equal(drawn, self.drawn)):
            self.drawn = drawn
            self._load_dataset(name, params, seed)
        if len(entry["pane_params"]) == len(self.panes):
            for pane, params in zip(self.panes, entry["pane_params"], strict=True):
                pane.params = params
        self.base, self.init_means = entry["base"], entry["init_means"]
        self._constraints_changed()
        return "setup"

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

        if not self.has_truth:
            raise InvalidInputError(
                f"data set {self.dataset_name!r} has no ground-truth labels to draw links from; "
                "draw links by hand instead.")
        ml, cl = self._pair_lists()
        added = self._draw_pairs(ml, cl, n_must, n_cannot)
        if added != (0, 0):
            self.set_constraints(self._from_lists(ml, cl))
        return added

    def _draw_pairs(self, ml: list[tuple[int, int]], cl: list[tuple[int, int]], n_must: int,
                    n_cannot: int) -> tuple[int, int]:
        """Append random pairs of the true classes to ``ml`` / ``cl``, skipping linked pairs."""
        from ..links import random_pairs

        assert self.dataset is not None and self.dataset.y is not None
        self._draws += 1
        rng = np.random.default_rng([self.dataset_seed, 104729, self._draws])
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

    def set_drawn(self, rows: Any, *, undoable: bool = True) -> None:
        """Replace the drawn points (rows x, y, class) after the generated data; links and
        initial means stay (the generated points keep their indices); the runs restart."""
        rows = check_drawn(rows)
        assert self.dataset is not None
        if undoable:
            self._push_undo()
        old_classes, old_rows, self.drawn = self.n_classes, self.drawn, rows
        try:
            self._load_dataset(self.dataset_name, self.dataset_params, self.dataset_seed)
        except PairlabError:
            self.drawn = old_rows
            if undoable:
                self._undo.pop()
            raise
        n = self.dataset.n_samples
        ml, cl = ([p for p in pairs if max(p) < n] for pairs in self._pair_lists())
        self.base = Constraints(ml or None, cl or None, n_samples=n)
        if self.n_classes is not None and self.n_classes != old_classes:
            for pane in self.panes:
                pane.params.update({k: self.n_classes
                                    for k in class_count_params(pane.algorithm, pane.params)})
        self._constraints_changed()

    def add_point(self, x: float, y: float, cls: int = 0) -> int:
        """Draw a point of class ``cls`` at view point (x, y) (2-D data only; a class beyond
        the data's is a new class); undoable. Returns its index."""
        assert self.dataset is not None
        if self.dataset.n_features != 2:
            raise InvalidInputError(
                f"points can be drawn on 2-D data only ({self.dataset_name} has "
                f"{self.dataset.n_features} features)")
        known = self.n_classes or 0
        if not 0 <= int(cls) <= known:
            raise InvalidInputError(f"class must be 0..{known} (an existing class or one new "
                                    f"class), got {cls}")
        self.set_drawn(np.vstack([self.drawn, [[float(x), float(y), int(cls)]]]))
        return self.dataset.n_samples - 1

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
