"""The timeline of the teaching app's :class:`~pairlab.gui.model.Lab`: one iteration cursor over
every pane's run, half-steps, edits of a run's history (a moved mean) and the background
computation that extends the runs (Qt-free).

Threading: :meth:`Timeline.build_run`, :meth:`Timeline.compute_to` and
:meth:`Timeline.compute_half` may run on a worker thread; everything else is called from the GUI
thread, which never touches a pane's run while a worker owns it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..constraints import Constraints
from ..dataset import Dataset
from ..draw.geometry import ViewMap
from ..errors import InvalidInputError
from ..run import Run
from .pane import Pane, describe_error

__all__ = ["Timeline"]


class Timeline:
    """The cursor (``iteration``, ``on_half``) and the runs' computation of a Lab."""

    registry: Any
    dataset: Dataset | None
    view_map: ViewMap | None
    constraints: Constraints
    panes: list[Pane]
    iteration: int
    on_half: bool
    init_means: np.ndarray | None
    seed: int
    epoch: int
    _undo: list[dict[str, Any]]

    def invalidate(self) -> None:
        """Rebuild every pane's run (the data, links, means or seed changed)."""
        for pane in self.panes:
            pane.invalidate()
        self._restart()

    def _restart(self) -> None:
        """Back to iteration 0 in every pane; background results from before are stale."""
        self.epoch += 1
        self.seek(0)

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
        pane.cache.clear()
        if run is not None:
            run.seek(min(self.iteration, len(run.history) - 1))

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
        self._undo.append({"kind": "history", "pane": pane, "run": run, "snapshot": run.snapshot(),
                           "iteration": self.iteration, "on_half": self.on_half})
        del self._undo[:-100]
        run.replace_half(t - 1, run.algorithm.with_means(half, means))
        run.step()  # the second phase under the moved mean (cheap: one E-step or assignment)
        pane.cache.clear()
        self.seek(t)

    def _undo_history(self, entry: dict[str, Any]) -> str:
        """Undo a moved mean: the pane's run gets its snapshot back (see :meth:`move_mean`)."""
        pane, run = entry["pane"], entry["run"]
        if pane.run is not run:  # the run was rebuilt since: nothing to restore it into
            return self.undo()  # type: ignore[attr-defined]
        run.restore(entry["snapshot"])
        pane.cache.clear()
        if entry["on_half"]:
            self.seek_half(entry["iteration"])
        else:
            self.seek(entry["iteration"])
        return "history"

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
