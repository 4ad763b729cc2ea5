"""Drive one algorithm on one data set: initialise, step, step back, run to convergence."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .algorithm import Algorithm
from .constraints import Constraints
from .dataset import Dataset
from .errors import InvalidInputError, LinkViolationWarning, PairlabError, PluginError
from .explanation import Explanation, why_moved
from .state import State

__all__ = ["Run", "RunSnapshot", "validate_state", "warn_violated_links"]

Listener = Callable[[str, "Run"], None]


@dataclass(frozen=True)
class RunSnapshot:
    """What :meth:`Run.restore` puts back: the stored states, the half-states, the cursor and
    the convergence flag (states are read-only, so they are shared, not copied)."""

    history: tuple[State, ...]
    halves: Mapping[int, State] = field(default_factory=dict)
    index: int = 0
    on_half: bool = False
    converged: bool = False


def validate_state(state: Any, n_samples: int, plugin: str) -> State:
    """Check what a plugin returned; raise PluginError naming the plugin if it is malformed."""

    def fail(msg: str) -> None:
        raise PluginError(f"algorithm {plugin!r} returned an invalid state: {msg}")

    if not isinstance(state, State):
        fail(f"expected pairlab.State, got {type(state).__name__}")
    labels = state.labels
    if not isinstance(labels, np.ndarray) or labels.shape != (n_samples,):
        fail(f"labels must be an array of shape ({n_samples},), got "
             f"{getattr(labels, 'shape', type(labels).__name__)}")
    if labels.dtype.kind not in "iu":
        fail(f"labels must be integers, got dtype {labels.dtype}")
    if n_samples and labels.min() < 0:
        fail("labels must be >= 0")
    r = state.responsibilities
    if r is not None:
        if not isinstance(r, np.ndarray) or r.ndim != 2 or r.shape[0] != n_samples:
            fail(f"responsibilities must have shape ({n_samples}, k), got {getattr(r, 'shape', r)}")
        if not np.all(np.isfinite(r)):
            fail("responsibilities contain NaN or infinite values")
        if np.abs(r.sum(axis=1) - 1.0).max(initial=0.0) > 1e-6:
            fail("responsibilities rows must sum to 1")
    if state.objective is not None and np.isnan(state.objective):
        fail(f"objective ({state.objective_name}) is NaN")
    for key, value in state.model.items():
        arr = np.asarray(value)
        if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
            fail(f"model[{key!r}] contains NaN or infinite values")
    return state


class Run:
    """One algorithm on one data set with fixed constraints, parameters and seed.

    ``history`` keeps every state; :meth:`back` and :meth:`seek` move a cursor over it and
    never recompute, and :meth:`step` past the end computes the next state. The same inputs and
    seed give the same states, bit for bit.

    For an algorithm with two ``phases`` per iteration, :meth:`half_step` and :meth:`half_back`
    move by halves: ``halves[i]`` is the state after the first phase of the iteration that
    follows ``history[i]`` (kept for every iteration computed, so stepping by halves or whole
    iterations gives the same states); :attr:`on_half` says the cursor is on it.

    Listeners registered with :meth:`subscribe` are called as ``listener(event, run)`` with
    ``event`` one of ``"state"`` (the cursor moved), ``"converged"`` and ``"reset"``.
    ``algorithm`` and ``dataset`` may be registered names (the data set with its defaults, drawn
    with ``seed``).
    """

    def __init__(
        self,
        algorithm: str | type[Algorithm],
        dataset: Dataset | str,
        constraints: Constraints | None = None,
        params: Mapping[str, Any] | None = None,
        seed: int | None = 0,
        *,
        registry: Any = None,
    ) -> None:
        if isinstance(algorithm, str) or isinstance(dataset, str):
            from .registry import get_registry

            registry = registry or get_registry()
        if isinstance(algorithm, str):
            algorithm = registry.algorithm(algorithm)
        if isinstance(dataset, str):  # a registered data set's name: its defaults, drawn with seed
            dataset = registry.dataset(dataset).make(seed)
        if not hasattr(dataset, "n_samples"):
            raise InvalidInputError(
                f"Run's dataset must be a pairlab.Dataset or a registered data set's name, got "
                f"{type(dataset).__name__}; wrap an array with pairlab.Dataset(X).")
        self.algorithm_class = algorithm
        self.dataset = dataset
        self.constraints = constraints if constraints is not None else Constraints.empty(
            dataset.n_samples
        )
        self.seed = seed
        self._listeners: list[Listener] = []
        with np.errstate(under="ignore"):
            self.algorithm = algorithm(dataset, self.constraints, params, np.random.default_rng(seed))
        self.params = dict(self.algorithm.params)
        self.converged = False
        self.history: list[State] = []
        self.halves: dict[int, State] = {}
        self.on_half = False
        self.index = -1
        self._push(self._call(self.algorithm.initialize))

    def __repr__(self) -> str:
        return (f"Run({self.algorithm_class.name!r}, {self.dataset.name!r}, {len(self.constraints)} links, "
                f"iteration {self.state.iteration}{', converged' if self.converged else ''})")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Notebook display: a summary table and the current state as a picture (matplotlib)."""
        from .display_run import run_bundle

        return run_bundle(self)

    # -- internals ----------------------------------------------------------------------------
    def _call(self, fn: Callable[..., Any], *args: Any) -> State:
        name = self.algorithm_class.name
        try:
            # EM and message passing underflow by design (exp of very negative log-densities):
            # local errstate, so a library that set np.seterr(all="raise") globally breaks nothing
            with np.errstate(under="ignore"):
                state = fn(*args)
        except PairlabError:
            raise
        except (FloatingPointError, np.linalg.LinAlgError, ZeroDivisionError) as exc:
            raise PluginError(f"algorithm {name!r} failed numerically: {exc}") from exc
        return validate_state(state, self.dataset.n_samples, name)

    def _push(self, state: State) -> None:
        self.history.append(state)
        self.index = len(self.history) - 1
        self.on_half = False
        self._emit("state")

    @property
    def has_phases(self) -> bool:
        return len(self.algorithm_class.phases) == 2

    def _half_of_last(self) -> State:
        """The half-state after the last whole state, computed once."""
        last = len(self.history) - 1
        if last not in self.halves:
            half = self._call(self.algorithm.half_step, self.history[last])
            if half.phase != self.algorithm_class.phases[0]:
                raise PluginError(f"algorithm {self.algorithm_class.name!r} returned a half-step "
                                  f"state with phase {half.phase!r}, expected "
                                  f"{self.algorithm_class.phases[0]!r}")
            self.halves[last] = half
        return self.halves[last]

    def _compute_next(self) -> State:
        prev = self.history[-1]
        if self.has_phases:
            new = self._call(self.algorithm.finish_step, self._half_of_last())
        else:
            new = self._call(self.algorithm.step, prev)
        self._push(new)
        if not self.converged and self.algorithm.converged(prev, new):
            self.mark_converged()
        return new

    def _emit(self, event: str) -> None:
        for listener in list(self._listeners):
            listener(event, self)

    # -- public API ---------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    @property
    def state(self) -> State:
        """The state under the cursor (a half-step state when :attr:`on_half`)."""
        if self.on_half:
            return self.halves[self.index]
        return self.history[self.index]

    @property
    def max_iter(self) -> int | None:
        return self.params.get("max_iter")

    @property
    def at_end(self) -> bool:
        return self.index == len(self.history) - 1

    def step(self) -> State:
        """Move one iteration forward: replay history, or compute a new state at the end.

        From a half-step state, finish that iteration."""
        self.on_half = False
        if not self.at_end:
            self.index += 1
            self._emit("state")
            return self.state
        return self._compute_next()

    def back(self) -> State:
        """Move one iteration back (a no-op at iteration 0); from a half-step state, to the
        whole state it started from."""
        if self.on_half:
            self.on_half = False
            self._emit("state")
        elif self.index > 0:
            self.index -= 1
            self._emit("state")
        return self.state

    def half_step(self) -> State:
        """Move forward by one phase (by one iteration when the algorithm has no phases)."""
        if not self.has_phases:
            return self.step()
        if self.on_half:
            return self.step()
        if self.index not in self.halves:
            if not self.at_end:  # history computed without halves (e.g. restored): whole steps
                return self.step()
            self._half_of_last()
        self.on_half = True
        self._emit("state")
        return self.state

    def half_back(self) -> State:
        """Move back by one phase; never recomputes."""
        if self.on_half:
            self.on_half = False
            self._emit("state")
        elif self.index > 0:
            self.index -= 1
            self.on_half = (self.index in self.halves)
            self._emit("state")
        return self.state

    def seek(self, index: int) -> State:
        """Move the cursor to ``index`` in the stored history."""
        if not 0 <= index < len(self.history):
            raise IndexError(f"iteration {index} is not in the history (0..{len(self.history) - 1})")
        self.index = index
        self.on_half = False
        self._emit("state")
        return self.state

    def drop_after(self, index: int) -> None:
        """Forget every state after ``history[index]`` (and its half-step), e.g. before editing."""
        if not 0 <= index < len(self.history):
            raise IndexError(f"iteration {index} is not in the history (0..{len(self.history) - 1})")
        del self.history[index + 1:]
        self.halves = {i: h for i, h in self.halves.items() if i < index}
        self.index = min(self.index, index)
        self.on_half = False
        self.converged = False
        self._emit("state")

    def replace_half(self, index: int, half: State) -> State:
        """Make ``half`` the half-state after ``history[index]`` and put the cursor on it.

        Every state after ``history[index]`` is forgotten first (they followed the old half),
        so :meth:`step` finishes the iteration from ``half``. ``half`` is checked like a
        plugin's state and must carry the first phase and the iteration ``index + 1``.
        """
        if not self.has_phases:
            raise InvalidInputError(f"algorithm {self.algorithm_class.name!r} steps whole iterations only")
        self.drop_after(index)
        half = validate_state(half, self.dataset.n_samples, self.algorithm_class.name)
        if half.phase != self.algorithm_class.phases[0] or half.iteration != index + 1:
            raise InvalidInputError(f"a half-state after iteration {index} needs phase "
                               f"{self.algorithm_class.phases[0]!r} and iteration {index + 1}, got "
                               f"{half.phase!r} and {half.iteration}")
        self.halves[index] = half
        self.on_half = True
        self._emit("state")
        return half

    def snapshot(self) -> RunSnapshot:
        """The stored states, half-states, cursor and convergence flag, for :meth:`restore`."""
        return RunSnapshot(tuple(self.history), dict(self.halves), self.index, self.on_half,
                           self.converged)

    def restore(self, snapshot: RunSnapshot) -> None:
        """Put back what :meth:`snapshot` took (e.g. to undo an edit of the history)."""
        if not snapshot.history or not 0 <= snapshot.index < len(snapshot.history):
            raise IndexError(f"snapshot cursor {snapshot.index} is outside its "
                             f"{len(snapshot.history)} states")
        if snapshot.on_half and snapshot.index not in snapshot.halves:
            raise IndexError(f"snapshot is on a half-state after iteration {snapshot.index} "
                             "that it does not hold")
        self.history[:] = snapshot.history
        self.halves = dict(snapshot.halves)
        self.index, self.on_half = snapshot.index, snapshot.on_half
        self.converged = snapshot.converged
        self._emit("state")

    def mark_converged(self) -> None:
        """Declare the run converged (no further state is computed by :meth:`run`); emits
        ``"converged"`` once."""
        if not self.converged:
            self.converged = True
            self._emit("converged")

    def explain(self, index: int) -> Explanation | None:
        """The numbers behind point ``index``'s label in the state under the cursor, or None
        when the algorithm cannot say (a plugin that fails here is reported, never fatal)."""
        if not 0 <= index < self.dataset.n_samples:
            raise IndexError(f"point {index} is not in the data set (0..{self.dataset.n_samples - 1})")
        try:
            now = self.algorithm.explain(self.state, index)
            if now is None:
                return None
            previous, earlier = self._before_half_step()
            if previous is None or previous.labels[index] == self.state.labels[index]:
                return now
            before = self.algorithm.explain(earlier, index) if earlier is not None else None
            if before is None or before.bars == () or now.bars == ():
                return now
            old, new = before.choice, now.choice
            if old is not None and old == new:  # renumbered labels, same choice (an exemplar)
                return now
            if old is None or new is None:
                return replace(now, before=before,
                               moved="the label changed (values before and after side by side)")
            return why_moved(before, now, old, new)
        except PairlabError:
            raise
        except Exception as exc:  # the plugin's failure, not the caller's
            warnings.warn(f"algorithm {self.algorithm_class.name!r} could not explain point "
                          f"{index}: {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=2)
            return None

    def _before_half_step(self) -> tuple[State | None, State | None]:
        """The state one half-step before the cursor, and the state one iteration before it
        (the same phase: the one whose explanation gave the previous label)."""
        i = self.index
        if self.on_half:
            return self.history[i], self.halves.get(i - 1)
        if i == 0:
            return None, None
        return self.halves.get(i - 1, self.history[i - 1]), self.history[i - 1]

    def run(self, max_iter: int | None = None) -> State:
        """Step until converged or ``max_iter`` total iterations (default: the algorithm's)."""
        limit = max_iter if max_iter is not None else self.max_iter
        if limit is None:
            limit = 100
        self.index = len(self.history) - 1
        self.on_half = False
        while not self.converged and len(self.history) - 1 < limit:
            self.step()
        return self.state

    def violated_links(self, certain_only: bool = False) -> dict[str, np.ndarray]:
        """The links the current labels break, ``{"must_link": (k, 2), "cannot_link": (m, 2)}``.

        ``certain_only`` keeps those the algorithm treats as certain (``Algorithm.certain_links``).
        """
        ml_ok, cl_ok = self.constraints.satisfied(self.state.labels)
        ml_bad, cl_bad = ~ml_ok, ~cl_ok
        if certain_only:
            ml_sure, cl_sure = self.algorithm.certain_links()
            ml_bad, cl_bad = ml_bad & ml_sure, cl_bad & cl_sure
        return {"must_link": self.constraints.must_link[ml_bad],
                "cannot_link": self.constraints.cannot_link[cl_bad]}

    @property
    def objectives(self) -> np.ndarray:
        """Objective of every stored state (NaN where an algorithm reports none)."""
        return np.array([np.nan if s.objective is None else s.objective for s in self.history])

    @property
    def n_iter(self) -> int:
        return len(self.history) - 1


def describe_violations(violated: Mapping[str, np.ndarray], limit: int = 5) -> str:
    """``"2 must-links ((0, 1), (4, 7)) and 1 cannot-link ((0, 19))"``, at most ``limit`` pairs each."""
    parts = []
    for kind, word in (("must_link", "must-link"), ("cannot_link", "cannot-link")):
        pairs = np.asarray(violated[kind]).reshape(-1, 2)
        if len(pairs):
            shown = ", ".join(f"({i}, {j})" for i, j in pairs[:limit].tolist())
            more = f", ... {len(pairs) - limit} more" if len(pairs) > limit else ""
            parts.append(f"{len(pairs)} {word}{'s' if len(pairs) > 1 else ''} ({shown}{more})")
    return " and ".join(parts)


def warn_violated_links(run: Run, stacklevel: int = 2) -> dict[str, np.ndarray]:
    """Warn (LinkViolationWarning) when the run's labels break links it treats as certain."""
    broken = run.violated_links(certain_only=True)
    if any(len(v) for v in broken.values()):
        warnings.warn(
            f"{run.algorithm_class.name} treats its links as certain, yet its labels break "
            f"{describe_violations(broken)}: the model could not separate or join those points "
            "(identical points, too few components, or an approximation of the link network). "
            "Check the data and n_components before relying on these labels.",
            LinkViolationWarning, stacklevel=stacklevel + 1)
    return broken
