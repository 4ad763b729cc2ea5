"""The contract every algorithm plugin implements.

An algorithm is a *stepper*: it is constructed for one data set, one set of constraints, one
validated parameter dict and one random generator; :meth:`Algorithm.initialize` returns the first
:class:`~pairlab.State` and :meth:`Algorithm.step` the next one. The GUI, the CLI, reproductions
and estimators are thin drivers around this (see :class:`pairlab.Run`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from .constraints import Constraints
from .dataset import Dataset
from .errors import InvalidInputError
from .explanation import Bars, Explanation, argmax_or_none, component_labels
from .params import Param, resolve_params
from .state import State

__all__ = ["Algorithm"]


class Algorithm:
    """Base class of algorithm plugins.

    Class attributes a plugin sets: ``name`` (lower-case, used on the command line), ``title``,
    ``citation``, ``params`` (a tuple of :class:`~pairlab.Param`), and optionally
    ``uses_constraints`` (False for unconstrained baselines), ``accepts_means_init`` (the GUI lets
    a teacher place starting means) and ``hard_constraints`` (the algorithm cannot honour
    contradictory links and rejects them).

    Optional half-steps: an algorithm whose iteration has two phases names them in ``phases`` (in
    the order :meth:`step` applies them, e.g. ``("M-step", "E-step")``) and implements
    :meth:`half_step` and :meth:`finish_step`; the inherited :meth:`step` is
    ``finish_step(half_step(s))`` (a plugin that overrides it for speed must keep the two equal
    bit for bit); :class:`~pairlab.Run` can then step by halves. :meth:`explain` gives
    the numbers behind one point's label.

    Parameters named ``max_iter`` and ``tol`` have a conventional meaning: :class:`~pairlab.Run`
    stops after ``max_iter`` steps, and the default :meth:`converged` compares objectives with
    ``tol``.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    citation: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    uses_constraints: ClassVar[bool] = True
    accepts_means_init: ClassVar[bool] = False
    #: The ``State.model`` entries that hold the cluster means, all replaced by :meth:`with_means`
    #: (centroid methods keep ``"centers"`` and ``"means"`` as one array).
    mean_keys: ClassVar[tuple[str, ...]] = ("means",)
    hard_constraints: ClassVar[bool] = False
    phases: ClassVar[tuple[str, ...]] = ()
    #: Non-empty (e.g. ``"sweeps"``) for algorithms without a convergence test that stop after
    #: ``max_iter`` of these (a sampler's sweeps): the app says "finished N sweeps", not
    #: "converged".
    fixed_steps: ClassVar[str] = ""

    def __init__(
        self,
        dataset: Dataset,
        constraints: Constraints | None = None,
        params: Mapping[str, Any] | None = None,
        rng: np.random.Generator | None = None,
    ) -> None:
        self.dataset = dataset
        self.X = dataset.X
        self.constraints = constraints if constraints is not None else Constraints.empty(
            dataset.n_samples
        )
        if self.constraints.n_samples != dataset.n_samples:
            from .errors import InvalidInputError

            raise InvalidInputError(
                f"constraints refer to {self.constraints.n_samples} points but the data set "
                f"{dataset.name!r} has {dataset.n_samples}."
            )
        self.params = resolve_params(self.params, params, owner=f"algorithm {self.name!r}")
        self.rng = rng if rng is not None else np.random.default_rng(0)
        if self.hard_constraints and self.uses_constraints:
            self.constraints.check_consistent()

    # -- the stepper protocol -----------------------------------------------------------------
    def initialize(self) -> State:
        """Return the state at iteration 0."""
        raise NotImplementedError

    def step(self, state: State) -> State:
        """Return the state one iteration after ``state`` (which must not be modified).

        Defined here once for phased algorithms: ``finish_step(half_step(state))``, so the two
        halves equal a whole step by construction. Others override it.
        """
        if not self.phases:
            raise NotImplementedError
        return self.finish_step(self.half_step(state))

    def half_step(self, state: State) -> State:
        """The state after the first phase (``phases[0]``) of the iteration that follows ``state``.

        Its ``phase`` is ``phases[0]`` and its ``iteration`` is ``state.iteration + 1``.
        """
        raise NotImplementedError(f"{self.name} steps whole iterations only")

    def finish_step(self, half: State) -> State:
        """Complete the iteration :meth:`half_step` started (the second phase)."""
        raise NotImplementedError(f"{self.name} steps whole iterations only")

    def with_means(self, state: State, means: np.ndarray) -> State:
        """``state`` with its cluster means replaced by ``means`` (every key in :attr:`mean_keys`
        that the model holds); the teaching app calls it on a half-state when a mean is moved."""
        if "means" not in state.model:
            raise InvalidInputError(f"{self.name}'s state has no means to replace")
        means = np.array(means, dtype=float)
        model = dict(state.model)
        model.update({key: means for key in self.mean_keys if key in model})
        return dataclasses.replace(state, model=model)

    def explain(self, state: State, index: int) -> Explanation | None:
        """The numbers behind point ``index``'s label at ``state`` (default: its soft labels)."""
        r = state.responsibilities
        if r is None:
            return None
        row = np.asarray(r[index])
        return Explanation(
            point=index, phase=state.phase or "step",
            equation=f"{self.title}: soft labels of the point",
            bars=(Bars("soft labels", component_labels(row.size), row, argmax_or_none(row)),))

    def converged(self, previous: State, current: State) -> bool:
        """Default test: the objective moved by less than ``tol`` (or labels stopped changing)."""
        tol = self.params.get("tol")
        if tol is not None and previous.objective is not None and current.objective is not None:
            return abs(current.objective - previous.objective) <= tol
        return bool(np.array_equal(previous.labels, current.labels))

    def certain_links(self) -> tuple[np.ndarray, np.ndarray]:
        """Boolean masks over the must-links and cannot-links this run treats as certain.

        A result that breaks a certain link is reported (``Run.violated_links``, a
        :class:`~pairlab.errors.LinkViolationWarning`). Default: every link when
        ``hard_constraints`` is set, none otherwise; algorithms whose parameters decide (infinite
        weights or penalties) override this.
        """
        hard = bool(self.hard_constraints and self.uses_constraints)
        c = self.constraints
        return np.full(c.n_must_link, hard), np.full(c.n_cannot_link, hard)

    def ignored_links(self) -> tuple[np.ndarray, np.ndarray]:
        """Boolean masks over the must-links and cannot-links this run does not use although it
        takes links (e.g. an algorithm of one kind of link only); the app draws them faded and
        says so. Default: none."""
        c = self.constraints
        return np.zeros(c.n_must_link, dtype=bool), np.zeros(c.n_cannot_link, dtype=bool)

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """Posterior class probabilities of unseen points ``X`` under ``state``'s model."""
        raise NotImplementedError(f"{self.name} cannot classify unseen points")

    @classmethod
    def can_predict(cls) -> bool:
        """True when the algorithm overrides :meth:`predict_proba`."""
        return cls.predict_proba is not Algorithm.predict_proba

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """A JSON-ready description (``pairlab list --json``)."""
        return {
            "name": cls.name,
            "title": cls.title,
            "citation": cls.citation,
            "params": [p.describe() for p in cls.params],
            "uses_constraints": cls.uses_constraints,
            "can_predict": cls.can_predict(),
        }
