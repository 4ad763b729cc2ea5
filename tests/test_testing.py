"""pairlab.testing: each conformance check catches the contract violation it is about."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pairlab import Algorithm, Dataset, DatasetSpec, InvalidInputError, Param, State
from pairlab.testing import (
    CheckReport,
    ConformanceError,
    check_algorithm,
    check_dataset,
    make_check_constraints,
    make_check_dataset,
)


class Nearest(Algorithm):
    """A correct little algorithm: k random points as centres, then Lloyd steps."""

    name = "nearest-test"
    title = "Nearest centre (test)"
    uses_constraints = False
    params = (
        Param("n_clusters", int, 2, "number of clusters", low=1),
        Param("max_iter", int, 10, "maximum number of iterations", low=1),
        Param("shrink", float, 1.0, "step size of the centre update", low=0.0, high=1.0,
              low_open=True),
        Param("metric", str, "euclidean", "distance", choices=("euclidean", "manhattan")),
    )

    def _state(self, it, centers, extras=None):
        diff = self.X[:, None, :] - centers[None]
        d = (diff**2).sum(-1) if self.params["metric"] == "euclidean" else np.abs(diff).sum(-1)
        labels = d.argmin(axis=1)
        return State(it, labels, objective=float(d[np.arange(len(labels)), labels].sum()),
                     model={"centers": centers}, extras=extras or {})

    def initialize(self):
        k = self.params["n_clusters"]
        if k > self.dataset.n_samples:
            raise InvalidInputError(f"n_clusters={k} exceeds the number of points")
        return self._state(0, self.X[self.rng.choice(self.dataset.n_samples, k, replace=False)])

    def step(self, state):
        old = state.model["centers"]
        k = old.shape[0]
        counts = np.bincount(state.labels, minlength=k)
        sums = np.zeros_like(old)
        np.add.at(sums, state.labels, self.X)
        means = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], old)
        return self._state(state.iteration + 1, old + self.params["shrink"] * (means - old))

    def predict_proba(self, state, X):
        d = ((X[:, None, :] - state.model["centers"][None]) ** 2).sum(-1)
        out = np.zeros_like(d)
        out[np.arange(len(X)), d.argmin(axis=1)] = 1.0
        return out


def failures_of(cls, **kw) -> dict[str, str]:
    report = check_algorithm(cls, raise_on_failure=False, **kw)
    return dict(report.failures)


def test_a_correct_algorithm_passes_every_check():
    report = check_algorithm(Nearest)
    assert isinstance(report, CheckReport) and report.ok
    assert {"class-attributes", "describe", "param-defaults", "param-round-trip", "bad-params",
            "states-valid", "deterministic", "edge-params", "no-constraints", "predict-proba",
            "inputs-untouched"} == set(report.passed)


def test_failure_message_names_the_plugin_and_every_broken_check():
    class Broken(Nearest):
        name = "Broken Name"

        def step(self, state):
            new = super().step(state)
            return State(state.iteration, new.labels.astype(float))

    with pytest.raises(ConformanceError) as info:
        check_algorithm(Broken)
    msg = str(info.value)
    assert "algorithm 'Broken Name'" in msg and "test_testing" in msg and "Broken" in msg
    assert "class-attributes: name 'Broken Name' must be lower-case" in msg
    assert "states-valid" in msg and "labels must be integers" in msg
    assert "(not run because of these: deterministic, predict-proba)" in msg
    assert info.value.skipped == ["deterministic", "predict-proba"]
    assert isinstance(info.value, AssertionError)


def test_mutating_the_input_state_is_caught():
    class Mutates(Nearest):
        name = "mutates"

        def initialize(self):
            s = super().initialize()
            return State(0, s.labels, objective=s.objective, model=s.model, extras={"log": []})

        def step(self, state):
            state.extras["log"].append(state.iteration)
            new = super().step(state)
            return State(new.iteration, new.labels, model=new.model, extras={"log": []})

    assert "step() modified extras" in failures_of(Mutates)["states-valid"]


def test_mutating_the_dataset_is_caught():
    class Scribbles(Nearest):
        name = "scribbles"

        def step(self, state):
            self.X.setflags(write=True)
            self.X[0, 0] += 1.0
            return super().step(state)

    data = make_check_dataset(30)
    assert "modified dataset.X" in failures_of(Scribbles, dataset=data)["inputs-untouched"]


def test_global_random_state_is_caught():
    class GlobalRandom(Nearest):
        name = "global-random"

        def initialize(self):
            k = self.params["n_clusters"]
            return self._state(0, self.X[np.random.choice(self.dataset.n_samples, k, replace=False)])  # noqa: NPY002

    assert "draw every random number from self.rng" in failures_of(GlobalRandom)["deterministic"]


def test_wrong_iteration_numbers_are_caught():
    class Stuck(Nearest):
        name = "stuck"

        def step(self, state):
            new = super().step(state)
            return State(state.iteration, new.labels, model=new.model)

    assert "has iteration=0" in failures_of(Stuck)["states-valid"]


def test_numpy_error_for_a_boundary_value_is_caught():
    class NoCheck(Nearest):
        name = "no-check"

        def initialize(self):  # forgets to check n_clusters <= n_samples
            idx = self.rng.permutation(self.dataset.n_samples)[: self.params["n_clusters"]]
            centers = self.X[idx]
            _ = centers[self.params["n_clusters"] - 1]  # IndexError when k > n
            return self._state(0, centers)

    msg = failures_of(NoCheck)["edge-params"]
    assert "n_clusters=41" in msg and "IndexError" in msg and "PairlabError" in msg


def test_unvalidated_params_are_caught():
    class SkipsValidation(Nearest):
        name = "skips-validation"

        def __init__(self, dataset, constraints=None, params=None, rng=None):
            super().__init__(dataset, constraints, None, rng)
            self.params = {**self.params, **dict(params or {})}

    msg = failures_of(SkipsValidation)["bad-params"]
    assert "was accepted" in msg or "raised" in msg


def test_describe_must_be_json():
    class Opaque(Nearest):
        name = "opaque"

        @classmethod
        def describe(cls):
            return {**super().describe(), "extra": np.float32(1.0)}

    assert "not JSON-serialisable" in failures_of(Opaque)["describe"]


def test_bad_probabilities_are_caught():
    class Unnormalised(Nearest):
        name = "unnormalised"

        def predict_proba(self, state, X):
            return np.exp(-((X[:, None, :] - state.model["centers"][None]) ** 2).sum(-1))

    assert "rows must sum to 1" in failures_of(Unnormalised)["predict-proba"]


def test_round_trip_and_defaults_are_checked():
    class Lossy(Param):
        def to_json(self, value):
            return round(value, 1)

    class Rounds(Nearest):
        name = "rounds"
        params = (*Nearest.params, Lossy("alpha", float, 0.25, "a weight", low=0.0))

    assert "alpha=0.25 round-trips" in failures_of(Rounds)["param-round-trip"]

    bad_default = Param("beta", int, 1, "an integer", low=1)
    object.__setattr__(bad_default, "default", 0)  # bypass Param's own validation

    class BadDefault(Nearest):
        name = "bad-default"
        params = (*Nearest.params, bad_default)

    assert "default of 'beta'" in failures_of(BadDefault)["param-defaults"]


def test_not_an_algorithm():
    with pytest.raises(ConformanceError, match="not a subclass of pairlab.Algorithm"):
        check_algorithm(object)


def test_user_dataset_constraints_and_params_are_used():
    data = make_check_dataset(24, seed=3)
    links = make_check_constraints(data, 2, 2)
    report = check_algorithm(Nearest, data, links, params={"n_clusters": 3}, n_steps=2)
    assert report.ok
    with pytest.raises(ConformanceError, match="initialize.. with the default parameters"):
        check_algorithm(Nearest, data, links, params={"n_clusters": 30})


# -- data sets ----------------------------------------------------------------------------------
def _blobs(params, rng):
    n = params["n_samples"]
    X = rng.normal(size=(n, 2)) + 3 * (np.arange(n) % 2)[:, None]
    return Dataset(X, np.arange(n) % 2, name="test-blobs")


GOOD_SPEC = DatasetSpec("test-blobs", "Two blobs", _blobs,
                        (Param("n_samples", int, 50, "number of points", low=1),))


def test_a_correct_dataset_passes():
    report = check_dataset(GOOD_SPEC, {"n_samples": 30})
    assert report.ok and "deterministic" in report.passed and "edge-params" in report.passed


def test_dataset_failures_are_named():
    def global_random(params, rng):
        return Dataset(np.random.normal(size=(params["n_samples"], 2)), name="noisy")  # noqa: NPY002

    spec = DatasetSpec("noisy", "Noisy", global_random,
                       (Param("n_samples", int, 20, "number of points", low=1),))
    with pytest.raises(ConformanceError, match=r"dataset 'noisy' \(.*global_random\)") as info:
        check_dataset(spec)
    assert "deterministic: two loads with seed 0 give different X" in str(info.value)

    def crashes_when_small(params, rng):
        n = params["n_samples"]
        X = rng.normal(size=(n, 2))
        X[np.arange(2)] += 1  # IndexError for n < 2
        return Dataset(X, name="fragile")

    spec = DatasetSpec("fragile", "Fragile", crashes_when_small,
                       (Param("n_samples", int, 20, "number of points", low=1),))
    failures = dict(check_dataset(spec, raise_on_failure=False).failures)
    assert "n_samples=1" in failures["edge-params"] and "IndexError" in failures["edge-params"]

    def not_a_dataset(params, rng):
        return np.zeros((3, 2))

    spec = DatasetSpec("raw", "Raw", not_a_dataset)
    failures = dict(check_dataset(spec, raise_on_failure=False).failures)
    assert "did not return a Dataset" in failures["valid-dataset"]


def test_dataset_by_registered_name():
    assert check_dataset("two-moons", {"n_samples": 30}).ok


# -- pytest fixtures through the pytest11 entry point ---------------------------------------------
@pytest.mark.ci  # starts Python processes
def test_pytest_fixtures_are_available_to_any_test_suite(tmp_path):
    (tmp_path / "test_plugin_author.py").write_text(textwrap.dedent("""
        import numpy as np
        from pairlab import Algorithm, Param, State

        class Fine(Algorithm):
            name = "fine"
            title = "Everything in cluster 0"
            params = (Param("max_iter", int, 2, "steps", low=1),)

            def initialize(self):
                return State(0, np.zeros(self.dataset.n_samples, dtype=int))

            def step(self, state):
                return State(state.iteration + 1, state.labels)

        class Broken(Fine):
            name = "broken"

            def step(self, state):
                return State(state.iteration + 1, state.labels[:-1])

        def test_fine(pairlab_check_algorithm, pairlab_check_dataset, pairlab_small_dataset,
                      pairlab_small_constraints):
            assert pairlab_small_dataset.n_samples == pairlab_small_constraints.n_samples == 40
            pairlab_check_algorithm(Fine, pairlab_small_dataset, pairlab_small_constraints)
            pairlab_check_dataset("two-moons", {"n_samples": 20})

        def test_broken(pairlab_check_algorithm):
            pairlab_check_algorithm(Broken)
    """))
    env = {**os.environ, "PAIRLAB_DISABLE_PLUGINS": "1"}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path)], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=120)
    assert "1 failed, 1 passed" in out.stdout, out.stdout + out.stderr
    assert "ConformanceError: pairlab conformance: algorithm 'broken'" in out.stdout
    assert "labels must be an array of shape (40,)" in out.stdout
