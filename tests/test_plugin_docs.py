"""docs/plugins.md documents every hook with a complete example that works, and the contracts."""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
from pathlib import Path

import numpy as np
import pytest

from pairlab import PLUGIN_API_VERSION, Algorithm, Param, Registry, State, hookspecs
from pairlab.testing import check_algorithm, check_dataset

DOCS = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
TEXT = DOCS.read_text(encoding="utf-8")

HOOKS = sorted(name for name, obj in vars(hookspecs).items()
               if callable(obj) and hasattr(obj, "pairlab_spec"))


def section(hook: str) -> str:
    """The text under the heading ``### `hook``` up to the next heading of that level or above."""
    match = re.search(rf"^### `{hook}`\n(.*?)(?=^##+ |\Z)", TEXT, flags=re.M | re.S)
    assert match, f"docs/plugins.md has no section '### `{hook}`'; document the hook there"
    return match.group(1)


def example(hook: str) -> types.ModuleType:
    """Execute the section's first python block as a module, as an entry point would import it."""
    blocks = re.findall(r"```python\n(.*?)```", section(hook), flags=re.S)
    assert blocks, f"the section on {hook} in docs/plugins.md has no ```python example"
    code = blocks[0]
    assert re.search(rf"^def {hook}\(", code, flags=re.M), (
        f"the example for {hook} must be a complete plugin module implementing `def {hook}()`")
    module = types.ModuleType(f"docs_example_{hook}")
    exec(compile(code, f"docs/plugins.md[{hook}]", "exec"), module.__dict__)
    return module


def register(module: types.ModuleType, kind: str) -> tuple[Registry, list[str]]:
    reg = Registry(external=False)
    info = reg.register(module, name=module.__name__)
    assert info.ok, info.error
    assert module.PAIRLAB_API_VERSION == PLUGIN_API_VERSION
    provided = info.provides.get(kind, [])
    assert provided, f"the {kind} example provides nothing"
    return reg, provided


def test_there_are_hooks():
    assert {"pairlab_algorithms", "pairlab_datasets", "pairlab_reproductions",
            "pairlab_metrics"} <= set(HOOKS)


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hookspec_is_documented(hook):
    doc = inspect.getdoc(getattr(hookspecs, hook))
    assert doc, f"hookspec {hook} in pairlab/hookspecs.py has no docstring"
    assert "Example" in doc, f"the docstring of hookspec {hook} has no Example"
    assert f"### `{hook}`" in TEXT, f"hookspec {hook} is missing from docs/plugins.md"
    example(hook)  # and its section holds a complete, runnable example


def test_algorithms_example_passes_the_conformance_check():
    reg, names = register(example("pairlab_algorithms"), "algorithms")
    for name in names:
        check_algorithm(reg.algorithm(name))


def test_datasets_example_passes_the_conformance_check():
    reg, names = register(example("pairlab_datasets"), "datasets")
    for name in names:
        check_dataset(reg.dataset(name), {"n_samples": 40})


def test_reproductions_example_runs(tmp_path):
    from pairlab.reproduce import reproduce

    reg, names = register(example("pairlab_reproductions"), "reproductions")
    for name in names:
        doc = reproduce(reg.reproduction(name), tmp_path, trials=2, jobs=1, render=False,
                        progress=None)
        assert doc["trials"] == 2 and doc["claims"] and doc["all_claims_held"]


def test_metrics_example_computes():
    from pairlab.scoring import evaluate

    reg, names = register(example("pairlab_metrics"), "metrics")
    metrics = [reg.metric(n) for n in names]
    values = evaluate(np.array([0, 0, 0, 1]), None, metrics=metrics)
    assert set(values) == set(names)
    assert all(np.isfinite(v) for v in values.values())


def _class_vars(cls: type) -> list[str]:
    return [name for name, hint in cls.__annotations__.items() if "ClassVar" in str(hint)]


def test_the_contracts_are_documented():
    missing = [f"Algorithm.{n}" for n in _class_vars(Algorithm) if f"`{n}`" not in TEXT]
    missing += [f"Algorithm.{m}()" for m in ("initialize", "step", "converged", "predict_proba",
                                             "describe") if f"`{m}(" not in TEXT]
    missing += [f"State.{f.name}" for f in dataclasses.fields(State) if f"`{f.name}`" not in TEXT]
    missing += [f"Param.{f.name}" for f in dataclasses.fields(Param) if f.name not in TEXT]
    from pairlab import pytest_plugin

    missing += [f"fixture {n}" for n in vars(pytest_plugin)
                if n.startswith("pairlab_") and f"`{n}`" not in TEXT]
    assert not missing, f"docs/plugins.md does not mention: {missing}"
    assert f"PAIRLAB_API_VERSION = {PLUGIN_API_VERSION}" in TEXT
    assert "[project.entry-points.pairlab]" in TEXT
