"""Conformance checks for plugin authors: does an algorithm or data set honour pairlab's contract?

``check_algorithm(MyAlgorithm)`` runs the algorithm on a small data set with a few consistent
links and checks that

* the class attributes and ``describe()`` are well formed (JSON without NaN);
* every declared default is valid and every parameter value round-trips through
  ``Param.to_json`` -> text -> ``Param.parse`` (the command line and saved sessions);
* bad parameter values (wrong type, out of range, unknown name) raise :class:`~pairlab.PairlabError`;
* ``initialize`` and ``step`` return states that :func:`pairlab.run.validate_state` accepts, with
  iterations 0, 1, 2, ...;
* ``step`` does not modify the state it is given, and nothing modifies the data set, the
  constraints or the parameter dict;
* the same seed gives bit-identical states (whatever the global ``numpy.random``/``random``
  state), also when driven by :class:`pairlab.Run`;
* boundary parameter values (bounds, every choice, ``None`` where allowed, more clusters than
  points) either work or raise a PairlabError, never a bare ``IndexError`` from inside numpy;
* ``predict_proba`` (when the algorithm has one) returns probabilities: finite, in [0, 1], rows
  summing to one.

``check_dataset(spec)`` does the same for a :class:`~pairlab.DatasetSpec`. Both raise
:class:`ConformanceError` (an ``AssertionError``) listing every check that failed, naming the
plugin, or return a :class:`CheckReport` of the checks that passed. The same functions are pytest
fixtures (``pairlab_check_algorithm``, ``pairlab_check_dataset``) through pairlab's ``pytest11``
entry point (:mod:`pairlab.pytest_plugin`).
"""

from __future__ import annotations

import copy
import json
import math
import random
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .algorithm import Algorithm
from .constraints import Constraints
from .dataset import Dataset, DatasetSpec
from .errors import PairlabError
from .params import Param
from .run import Run, validate_state
from .state import State

__all__ = [
    "CheckReport",
    "ConformanceError",
    "check_algorithm",
    "check_dataset",
    "make_check_constraints",
    "make_check_dataset",
]


# -- small data the checks run on -------------------------------------------------------------
def make_check_dataset(n_samples: int = 40, seed: int = 0) -> Dataset:
    """Two well separated 2-D Gaussian blobs of unequal size (one elongated), with labels."""
    if n_samples < 4:
        raise ValueError("n_samples must be >= 4")
    rng = np.random.default_rng(seed)
    n0 = (n_samples * 11) // 20
    n1 = n_samples - n0
    a = rng.normal(size=(n0, 2)) @ np.array([[1.2, 0.0], [0.4, 0.5]]) + np.array([-3.0, 0.0])
    b = rng.normal(scale=0.7, size=(n1, 2)) + np.array([3.0, 1.0])
    y = np.r_[np.zeros(n0, dtype=int), np.ones(n1, dtype=int)]
    order = rng.permutation(n_samples)
    return Dataset(np.vstack([a, b])[order], y[order], name="pairlab-check-blobs",
                   feature_names=("x1", "x2"))


def make_check_constraints(dataset: Dataset, n_must_link: int = 4, n_cannot_link: int = 4,
                           seed: int = 0) -> Constraints:
    """Consistent random links drawn from ``dataset.y`` (no links when it has no labels)."""
    from .links import random_pairs

    if dataset.y is None:
        return Constraints.empty(dataset.n_samples)
    return random_pairs(dataset.y, n_must_link, n_cannot_link, np.random.default_rng([seed, 7]))


# -- reporting --------------------------------------------------------------------------------
class ConformanceError(AssertionError):
    """A plugin broke pairlab's contract; the message lists every failed check."""

    def __init__(self, subject: str, failures: list[tuple[str, str]],
                 skipped: list[str] | None = None) -> None:
        self.subject = subject
        self.failures = failures
        self.skipped = list(skipped or [])
        lines = [f"pairlab conformance: {subject} failed {len(failures)} check(s):"]
        lines += [f"  - {check}: {msg}" for check, msg in failures]
        if skipped:
            lines.append(f"  (not run because of these: {', '.join(skipped)})")
        super().__init__("\n".join(lines))


@dataclass
class CheckReport:
    """What :func:`check_algorithm` / :func:`check_dataset` looked at."""

    subject: str
    passed: list[str] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        status = "ok" if self.ok else f"{len(self.failures)} failure(s)"
        return f"{self.subject}: {status}; passed: {', '.join(self.passed)}"


class _Failed(Exception):
    pass


class _Skipped(Exception):
    pass


def _fail(msg: str) -> None:
    raise _Failed(msg)


def _exc_text(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


class _Checker:
    def __init__(self, subject: str) -> None:
        self.report = CheckReport(subject)

    def run(self, name: str, fn: Callable[[], None]) -> bool:
        try:
            fn()
        except _Skipped:
            self.report.skipped.append(name)
            return False
        except _Failed as exc:
            self.report.failures.append((name, str(exc)))
            return False
        except Exception as exc:
            self.report.failures.append((name, f"unexpected {_exc_text(exc)}"))
            return False
        self.report.passed.append(name)
        return True

    def finish(self, raise_on_failure: bool) -> CheckReport:
        if self.report.failures and raise_on_failure:
            raise ConformanceError(self.report.subject, self.report.failures, self.report.skipped)
        return self.report


@contextmanager
def _scrambled_global_rngs(seed: int) -> Iterator[None]:
    """Seed numpy's and Python's global generators differently, then restore them.

    A plugin that draws from them instead of ``self.rng`` gives different results per run.
    """
    np_state = np.random.get_state()  # noqa: NPY002 (the point is the legacy global)
    py_state = random.getstate()
    np.random.seed(seed)  # noqa: NPY002
    random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(np_state)  # noqa: NPY002
        random.setstate(py_state)


# -- deep comparison and snapshots ------------------------------------------------------------
def _same(a: Any, b: Any) -> bool:
    """Bit-for-bit equality of nested values (arrays, mappings, sequences, NaN == NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        try:
            return bool(np.array_equal(a, b))
        except Exception:
            return False
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _snapshot_state(state: State) -> dict[str, Any]:
    return {
        "iteration": state.iteration,
        "labels": np.array(state.labels, copy=True),
        "responsibilities": None if state.responsibilities is None
        else np.array(state.responsibilities, copy=True),
        "objective": state.objective,
        "objective_name": state.objective_name,
        "model": {k: np.array(v, copy=True) for k, v in state.model.items()},
        "extras": _deepcopy_or_none(dict(state.extras)),
    }


def _deepcopy_or_none(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:
        return None


def _state_diff(before: dict[str, Any], state: State) -> str | None:
    after = _snapshot_state(state)
    for key in ("iteration", "labels", "responsibilities", "objective", "objective_name"):
        if not _same(before[key], after[key]):
            return key
    if set(before["model"]) != set(after["model"]):
        return "model keys"
    for k in before["model"]:
        if not _same(before["model"][k], after["model"][k]):
            return f"model[{k!r}]"
    if before["extras"] is not None and not _same(before["extras"], after["extras"]):
        return "extras"
    return None


def _snapshot_inputs(dataset: Dataset, constraints: Constraints) -> dict[str, Any]:
    return {
        "X": np.array(dataset.X, copy=True),
        "y": None if dataset.y is None else np.array(dataset.y, copy=True),
        "view": np.array(dataset.view, copy=True),
        "must_link": np.array(constraints.must_link, copy=True),
        "cannot_link": np.array(constraints.cannot_link, copy=True),
        "ml_confidence": np.array(constraints.ml_confidence, copy=True),
        "cl_confidence": np.array(constraints.cl_confidence, copy=True),
    }


def _inputs_diff(before: dict[str, Any], dataset: Dataset, constraints: Constraints) -> str | None:
    now = _snapshot_inputs(dataset, constraints)
    for key, value in before.items():
        if not _same(value, now[key]):
            owner = "dataset" if key in ("X", "y", "view") else "constraints"
            return f"{owner}.{key}"
    for name, arr in (("dataset.X", dataset.X), ("dataset.view", dataset.view),
                      ("constraints.must_link", constraints.must_link),
                      ("constraints.cannot_link", constraints.cannot_link)):
        if arr.flags.writeable:
            return f"{name} (made writeable)"
    return None


def _states_differ(a: State, b: State) -> str | None:
    if a.equals(b):
        ea, eb = _deepcopy_or_none(dict(a.extras)), _deepcopy_or_none(dict(b.extras))
        if ea is not None and eb is not None and not _same(ea, eb):
            return "different extras"
        return None
    for key in ("iteration", "labels", "responsibilities", "objective"):
        if not _same(getattr(a, key), getattr(b, key)):
            return f"different {key}"
    return "different model"


# -- parameters -------------------------------------------------------------------------------
_SAMPLE_ARRAY = np.array([[0.0, 1.0], [2.5, -3.0]])


def _good_values(p: Param, n_samples: int | None = None) -> list[Any]:
    """The default plus boundary values a parameter declares valid."""
    out: list[Any] = []
    if p.default is not None:
        out.append(p.default)
    if p.nullable:
        out.append(None)
    if p.choices is not None:
        out += [c for c in p.choices if not _same(c, p.default)]
    elif p.type is bool:
        out.append(not p.default if p.default is not None else True)
    elif p.type in (int, float):
        if p.low is not None and not p.low_open and math.isfinite(p.low):
            out.append(p.type(p.low))
        if p.high is not None and not p.high_open and math.isfinite(p.high):
            if p.type is float or n_samples is None or p.high <= n_samples + 1:
                out.append(p.type(p.high))
        if p.type is int and n_samples is not None:
            big = n_samples + 1
            if (p.low is None or big > p.low) and (p.high is None or big < p.high):
                out.append(big)
    elif p.type is np.ndarray:
        out.append(_SAMPLE_ARRAY)
    unique: list[Any] = []
    for v in out:
        if not any(_same(v, u) and type(v) is type(u) for u in unique):
            unique.append(v)
    return unique


def _bad_values(p: Param) -> list[Any]:
    """Values the parameter's declaration forbids: each must raise a PairlabError."""
    out: list[Any] = []
    if not p.nullable:
        out.append(None)
    if p.type in (int, float):
        out.append("not-a-number")
        if p.type is int:
            out.append(1.5)
        else:
            out.append(float("nan"))
        if p.low is not None and math.isfinite(p.low):
            out.append(p.type(p.low) if p.low_open else p.low - 1)
        if p.high is not None and math.isfinite(p.high):
            out.append(p.type(p.high) if p.high_open else p.high + 1)
    elif p.type is bool:
        out.append("maybe")
    elif p.type is str:
        out.append(12345)
        if p.choices is not None:
            out.append("__not_one_of_the_choices__")
    elif p.type is np.ndarray:
        out += ["[[1, 2", [[float("nan")]]]
    if p.choices is not None and p.type is not str and p.type is not bool:
        candidates = [v for v in (-(10**6) + 1, 10**6 + 1) if v not in p.choices]
        if p.type is float:
            candidates = [float(v) for v in candidates]
        out += candidates[:1]
    return [v for v in out if not _valid(p, v)]


def _valid(p: Param, value: Any) -> bool:
    try:
        p.validate(value)
    except PairlabError:
        return False
    return True


def _as_text(p: Param, json_value: Any) -> str:
    """The string a user types on the command line (or a form) for a JSON-ready value."""
    if json_value is None:
        return "none"
    if isinstance(json_value, str):
        return json_value
    return json.dumps(json_value)


def _check_param_specs(params: Any) -> None:
    if not isinstance(params, tuple | list):
        _fail(f"params must be a tuple of pairlab.Param, got {type(params).__name__}")
    names = []
    for p in params:
        if not isinstance(p, Param):
            _fail(f"params holds {p!r}, which is not a pairlab.Param")
        if not p.name.isidentifier():
            _fail(f"parameter name {p.name!r} is not a valid identifier")
        if not p.help:
            _fail(f"parameter {p.name!r} has no help text")
        names.append(p.name)
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        _fail(f"parameters declared twice: {dup}")


def _check_defaults(params: tuple[Param, ...]) -> None:
    for p in params:
        if p.default is None:
            if not p.nullable:
                _fail(f"parameter {p.name!r} defaults to None but is not nullable")
            continue
        try:
            value = p.validate(p.default)
        except PairlabError as exc:
            _fail(f"default of {p.name!r} ({p.default!r}) is invalid: {exc}")
        if not _same(value, p.default):
            _fail(f"default of {p.name!r} ({p.default!r}) validates to a different value {value!r}")
        json.dumps(p.describe(), allow_nan=False)


def _check_round_trip(params: tuple[Param, ...], n_samples: int | None) -> None:
    for p in params:
        for value in _good_values(p, n_samples):
            encoded = p.to_json(value)
            try:
                text_json = json.dumps(encoded, allow_nan=False)
            except (TypeError, ValueError) as exc:
                _fail(f"{p.name}={value!r}: to_json gives {encoded!r}, not JSON-serialisable ({exc})")
            try:
                parsed = p.parse(_as_text(p, encoded))
                restored = p.validate(json.loads(text_json)) if encoded is not None else None
            except PairlabError as exc:
                _fail(f"{p.name}={value!r} does not round-trip through to_json/parse: {exc}")
            for how, got in (("parse(text)", parsed), ("validate(json)", restored)):
                if not _same(got, value):
                    _fail(f"{p.name}={value!r} round-trips through {how} to {got!r}")


# -- algorithms -------------------------------------------------------------------------------
def _algo_subject(cls: Any) -> str:
    name = getattr(cls, "name", "?")
    return f"algorithm {name!r} ({getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', cls)})"


def check_algorithm(
    algorithm: type[Algorithm],
    dataset: Dataset | None = None,
    constraints: Constraints | None = None,
    *,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    n_steps: int = 3,
    raise_on_failure: bool = True,
) -> CheckReport:
    """Check an algorithm class against pairlab's plugin contract.

    Parameters
    ----------
    algorithm : subclass of pairlab.Algorithm
        The class a plugin's ``pairlab_algorithms`` hook returns.
    dataset : Dataset, optional
        Data to run on (default: :func:`make_check_dataset`, 40 points in two blobs).
    constraints : Constraints, optional
        Links to run with (default: 4 must-links and 4 cannot-links drawn from the labels).
    params : mapping, optional
        Parameter values to use instead of the defaults (e.g. a smaller ``n_clusters``).
    seed : int
        Seed of the generator the algorithm receives.
    n_steps : int
        Number of ``step`` calls after ``initialize``.
    raise_on_failure : bool
        Raise :class:`ConformanceError` listing the failed checks (default), or return them in
        the report.
    """
    checker = _Checker(_algo_subject(algorithm))
    if not (isinstance(algorithm, type) and issubclass(algorithm, Algorithm)):
        checker.report.failures.append(
            ("class-attributes", f"{algorithm!r} is not a subclass of pairlab.Algorithm"))
        return checker.finish(raise_on_failure)
    data = dataset if dataset is not None else make_check_dataset()
    links = constraints if constraints is not None else make_check_constraints(data)
    given = dict(params or {})
    cls = algorithm
    name = cls.name
    n = data.n_samples
    runs: dict[str, list[State]] = {}

    def make(p: Mapping[str, Any] | None = None, c: Constraints | None = None,
             s: int = seed) -> Algorithm:
        return cls(data, links if c is None else c, dict(given if p is None else p),
                   np.random.default_rng(s))

    def class_attributes() -> None:
        if not isinstance(name, str) or not name:
            _fail("class attribute `name` must be a non-empty string")
        if name != name.lower() or any(ch.isspace() for ch in name):
            _fail(f"name {name!r} must be lower-case without spaces (it is typed on the command line)")
        if not isinstance(cls.title, str) or not cls.title:
            _fail("class attribute `title` must be a non-empty string")
        if not isinstance(cls.citation, str):
            _fail("class attribute `citation` must be a string")
        for flag in ("uses_constraints", "accepts_means_init", "hard_constraints"):
            if not isinstance(getattr(cls, flag), bool):
                _fail(f"class attribute `{flag}` must be a bool")
        _check_param_specs(cls.params)

    def describe() -> None:
        try:
            text = json.dumps(cls.describe(), allow_nan=False)
        except (TypeError, ValueError) as exc:
            _fail(f"describe() is not JSON-serialisable: {exc}")
        if json.loads(text).get("name") != name:
            _fail("describe()['name'] differs from the class attribute `name`")

    def bad_params() -> None:
        cases = [(p.name, v) for p in cls.params for v in _bad_values(p)]
        cases.append(("__no_such_parameter__", 1))
        for key, value in cases:
            try:
                algo = make({**given, key: value})
                algo.initialize()
            except PairlabError:
                continue
            except Exception as exc:
                _fail(f"{key}={value!r} raised {_exc_text(exc)}; raise a pairlab.PairlabError "
                      "subclass (e.g. InvalidInputError) that says what to change")
            _fail(f"{key}={value!r} was accepted; declare the parameter's range/choices or reject it")

    def states_valid() -> None:
        given_copy = copy.deepcopy(given)
        try:
            algo = make()
            states = [algo.initialize()]
        except PairlabError as exc:
            _fail(f"initialize() with the default parameters on {data!r} raised {exc}; pass a "
                  "dataset/params it accepts to check_algorithm")
        for i in range(n_steps + 1):
            state = states[-1]
            validate_state(state, n, name)
            if state.iteration != i:
                _fail(f"state {i} has iteration={state.iteration}; initialize() must return "
                      "iteration 0 and each step iteration + 1")
            r = state.responsibilities
            if r is not None and (r.min(initial=0.0) < -1e-12 or r.max(initial=0.0) > 1 + 1e-12):
                _fail(f"state {i}: responsibilities outside [0, 1]")
            if i == n_steps:
                break
            before = _snapshot_state(state)
            new = algo.step(state)
            changed = _state_diff(before, state)
            if changed:
                _fail(f"step() modified {changed} of the state it was given (iteration {i}); "
                      "build a new State instead")
            states.append(new)
            verdict = algo.converged(state, new)
            if not isinstance(verdict, bool | np.bool_):
                _fail(f"converged() returned {type(verdict).__name__}, not a bool")
        if not _same(given, given_copy):
            _fail("the algorithm modified the params mapping it was given")
        runs["direct"] = states

    def inputs_untouched() -> None:
        # Every run of every check happened between the snapshot (taken below) and now.
        changed = _inputs_diff(input_snapshot, data, links)
        if changed:
            _fail(f"the algorithm modified {changed}; data and constraints are shared, read-only inputs")

    def produce(scramble: int) -> list[State]:
        with _scrambled_global_rngs(scramble):
            algo = make()
            states = [algo.initialize()]
            for _ in range(n_steps):
                states.append(algo.step(states[-1]))
        return states

    def deterministic() -> None:
        try:
            first, second = produce(1), produce(2)
            run = Run(cls, data, links, dict(given), seed=seed)
            for _ in range(n_steps):
                run.step()
        except Exception:
            if "direct" not in runs:  # already reported by states-valid
                raise _Skipped from None
            raise
        for a, b in zip(first, second, strict=True):
            diff = _states_differ(a, b)
            if diff:
                _fail(f"two runs with seed {seed} differ at iteration {a.iteration} ({diff}); "
                      "draw every random number from self.rng, never from numpy.random or "
                      "random directly")
        for a, b in zip(first, run.history, strict=True):
            diff = _states_differ(a, b)
            if diff:
                _fail(f"pairlab.Run with seed {seed} differs from a direct run at iteration "
                      f"{a.iteration} ({diff})")

    def edge_params() -> None:
        for p in cls.params:
            for value in _good_values(p, n):
                if _same(value, given.get(p.name, p.default)):
                    continue
                _run_or_pairlab_error({**given, p.name: value}, f"{p.name}={value!r}")
        if cls.accepts_means_init and any(p.name == "means_init" for p in cls.params):
            _run_or_pairlab_error({**given, "means_init": np.zeros((1, 1))},
                                  "means_init of the wrong shape (1, 1)")

    def _run_or_pairlab_error(values: Mapping[str, Any], what: str,
                              c: Constraints | None = None) -> None:
        try:
            run = Run(cls, data, links if c is None else c, dict(values), seed=seed)
            run.step()
        except PairlabError:
            return
        except Exception as exc:
            _fail(f"with {what}: {_exc_text(exc)}; such input must either work or raise a "
                  "pairlab.PairlabError subclass that says what to change")

    def no_constraints() -> None:
        _run_or_pairlab_error(given, "no constraints", Constraints.empty(n))

    def predict_proba() -> None:
        if "direct" not in runs:
            raise _Skipped
        algo = make()
        state = runs["direct"][-1]
        X_new = np.vstack([data.X[:7] + 0.01, data.X.mean(axis=0, keepdims=True)])
        for X in (X_new, np.array(data.X)):
            X_copy = X.copy()
            proba = algo.predict_proba(state, X)
            if not np.array_equal(X, X_copy):
                _fail("predict_proba() modified the X it was given")
            proba = np.asarray(proba)
            if proba.ndim != 2 or proba.shape[0] != X.shape[0] or proba.shape[1] < 1:
                _fail(f"predict_proba() must return shape ({X.shape[0]}, n_classes), got {proba.shape}")
            if not np.all(np.isfinite(proba)):
                _fail("predict_proba() returned NaN or infinite values")
            if proba.min() < -1e-12 or proba.max() > 1 + 1e-12:
                _fail("predict_proba() returned values outside [0, 1]")
            worst = float(np.abs(proba.sum(axis=1) - 1).max())
            if worst > 1e-6:
                _fail(f"predict_proba() rows must sum to 1 (off by {worst:.3g})")

    checker.run("class-attributes", class_attributes)
    checker.run("describe", describe)
    checker.run("param-defaults", lambda: _check_defaults(tuple(cls.params)))
    checker.run("param-round-trip", lambda: _check_round_trip(tuple(cls.params), n))
    input_snapshot = _snapshot_inputs(data, links)
    checker.run("bad-params", bad_params)
    checker.run("states-valid", states_valid)
    checker.run("deterministic", deterministic)
    checker.run("edge-params", edge_params)
    checker.run("no-constraints", no_constraints)
    if cls.can_predict():
        checker.run("predict-proba", predict_proba)
    checker.run("inputs-untouched", inputs_untouched)
    return checker.finish(raise_on_failure)


# -- data sets --------------------------------------------------------------------------------
def check_dataset(
    spec: DatasetSpec | str,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    raise_on_failure: bool = True,
) -> CheckReport:
    """Check a :class:`~pairlab.DatasetSpec` against pairlab's plugin contract.

    ``spec`` is a DatasetSpec or the name of a registered one; ``params`` overrides defaults
    (e.g. ``{"n_samples": 40}`` to keep the check fast). Checks: well-formed spec and params,
    defaults valid, params round-trip, bad params raise PairlabError, ``make`` returns a valid
    :class:`~pairlab.Dataset` (finite float64 ``X``, integer ``y``, ``view`` (n, 2), a
    JSON-ready ``source``), the same seed gives the same data bit for bit, and boundary
    parameter values work or raise PairlabError.
    """
    if isinstance(spec, str):
        from .registry import get_registry

        spec = get_registry().dataset(spec)
    subject = f"dataset {getattr(spec, 'name', '?')!r}"
    load = getattr(spec, "load", None)
    if load is not None:
        subject += f" ({getattr(load, '__module__', '?')}.{getattr(load, '__qualname__', load)})"
    checker = _Checker(subject)
    if not isinstance(spec, DatasetSpec):
        checker.report.failures.append(("spec-attributes", f"{spec!r} is not a pairlab.DatasetSpec"))
        return checker.finish(raise_on_failure)
    given = dict(params or {})
    made: dict[str, Dataset] = {}

    def make(values: Mapping[str, Any], s: int = seed) -> Dataset:
        return spec.make(seed=s, **dict(values))

    def spec_attributes() -> None:
        if not isinstance(spec.name, str) or not spec.name:
            _fail("name must be a non-empty string")
        if spec.name != spec.name.lower() or any(ch.isspace() for ch in spec.name):
            _fail(f"name {spec.name!r} must be lower-case without spaces")
        if not isinstance(spec.title, str) or not spec.title:
            _fail("title must be a non-empty string")
        if not callable(spec.load):
            _fail("load must be callable as load(params, rng)")
        _check_param_specs(tuple(spec.params))
        json.dumps([p.describe() for p in spec.params], allow_nan=False)

    def valid_dataset() -> None:
        try:
            data = make(given)
        except PairlabError as exc:
            _fail(f"make(seed={seed}, **{given}) raised {exc}")
        _check_dataset_value(data)
        made["first"] = data

    def deterministic() -> None:
        if "first" not in made:
            raise _Skipped
        ref = made["first"]
        for scramble in (1, 2):
            with _scrambled_global_rngs(scramble):
                again = make(given)
            for key in ("X", "y", "view", "name", "feature_names", "source"):
                if not _same(getattr(ref, key), getattr(again, key)):
                    _fail(f"two loads with seed {seed} give different {key}; draw every random "
                          "number from the rng the loader receives")

    def bad_params() -> None:
        cases = [(p.name, v) for p in spec.params for v in _bad_values(p)]
        cases.append(("__no_such_parameter__", 1))
        for key, value in cases:
            try:
                make({**given, key: value})
            except PairlabError:
                continue
            except Exception as exc:
                _fail(f"{key}={value!r} raised {_exc_text(exc)}; raise a pairlab.PairlabError "
                      "subclass that says what to change")
            _fail(f"{key}={value!r} was accepted")

    def edge_params() -> None:
        for p in spec.params:
            for value in _good_values(p):
                if _same(value, given.get(p.name, p.default)):
                    continue
                if p.name == "n_samples" and isinstance(value, int) and value > 1000:
                    continue
                try:
                    data = make({**given, p.name: value})
                except PairlabError:
                    continue
                except Exception as exc:
                    _fail(f"with {p.name}={value!r}: {_exc_text(exc)}; such input must either "
                          "work or raise a pairlab.PairlabError subclass")
                try:
                    _check_dataset_value(data)
                except _Failed as exc:
                    raise _Failed(f"with {p.name}={value!r}: {exc}") from None

    checker.run("spec-attributes", spec_attributes)
    checker.run("param-defaults", lambda: _check_defaults(tuple(spec.params)))
    checker.run("param-round-trip", lambda: _check_round_trip(tuple(spec.params), None))
    checker.run("valid-dataset", valid_dataset)
    checker.run("deterministic", deterministic)
    checker.run("bad-params", bad_params)
    checker.run("edge-params", edge_params)
    return checker.finish(raise_on_failure)


def _check_dataset_value(data: Any) -> None:
    if not isinstance(data, Dataset):
        _fail(f"make() returned {type(data).__name__}, not a pairlab.Dataset")
    X = data.X
    if X.dtype != np.float64 or X.ndim != 2 or X.shape[0] < 1:
        _fail(f"X must be a float64 (n, d) array with n >= 1, got {X.dtype} {X.shape}")
    if not np.all(np.isfinite(X)):
        _fail("X contains NaN or infinite values")
    if data.view.shape != (X.shape[0], 2) or not np.all(np.isfinite(data.view)):
        _fail(f"view must be a finite ({X.shape[0]}, 2) array, got {data.view.shape}")
    if data.y is not None and (data.y.shape != (X.shape[0],) or data.y.dtype.kind not in "iu"):
        _fail(f"y must be an integer array of shape ({X.shape[0]},)")
    if data.y is not None and data.y.min() < 0:
        _fail("y must hold labels >= 0")
    try:
        json.dumps(dict(data.source), allow_nan=False)
    except (TypeError, ValueError) as exc:
        _fail(f"source {data.source!r} is not JSON-serialisable: {exc}")
    for name in ("X", "view"):
        if getattr(data, name).flags.writeable:
            _fail(f"{name} must be read-only")
