"""Hostile plugins: each is isolated, named, and the rest of pairlab (and its JSON) keeps working."""

from __future__ import annotations

import json
import textwrap
import types
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

import pairlab.registry as registry_module
from pairlab import PluginError, Registry, make_estimator
from pairlab.cli import main
from pairlab.errors import PluginWarning

PLUGINS = {
    # prints at import and in its hook: must not reach stdout (it would corrupt --json)
    "hostile_prints": """
        import numpy as np
        from pairlab import hookimpl
        from pairlab.metrics import Metric
        print("hello from a chatty plugin")

        @hookimpl
        def pairlab_metrics():
            print("chatty hook")
            return [Metric("raises", "Raises", lambda y, l: 1 / 0),
                    Metric("nan", "NaN", lambda y, l: float("nan")),
                    Metric("inf", "Inf", lambda y, l: np.inf, needs_truth=False),
                    Metric("fine", "Fine", lambda y, l: 0.5)]
    """,
    "hostile_exits": "import sys\nsys.exit(3)\n",
    "hostile_base": "class Boom(BaseException):\n    pass\nraise Boom('not an Exception')\n",
    # a bad describe() and a bad param: `pairlab list` must isolate them
    "hostile_describe": """
        from pairlab import Algorithm, hookimpl
        from pairlab_builtins.algorithms.kmeans import KMeans

        class BadDescribe(KMeans):
            name = "bad-describe"
            @classmethod
            def describe(cls):
                raise RuntimeError("describe is broken")

        class BadParams(KMeans):
            name = "bad-params"
            params = (object(),)

        @hookimpl
        def pairlab_algorithms():
            return [BadDescribe, BadParams]
    """,
    # misspelt hook (decorated) and a correctly named one without the decorator
    "hostile_misspelt": """
        from pairlab import hookimpl

        @hookimpl
        def pairlab_algoritms():
            return []

        def pairlab_datasets():
            return []
    """,
}


@pytest.fixture
def hostile_registry(tmp_path, monkeypatch, capsys):
    for module, source in PLUGINS.items():
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [ep for ep in metadata.entry_points(group="pairlab")]
    eps += [metadata.EntryPoint(name=m, value=m, group="pairlab") for m in PLUGINS]
    reg = Registry(external=True, entry_points=eps)
    reg.loading_output = capsys.readouterr()  # what the plugins printed while loading
    monkeypatch.setattr(registry_module, "_REGISTRY", reg)
    return reg


def test_import_time_failures_are_isolated(hostile_registry):
    errors = {p.name: p.error for p in hostile_registry.failures}
    assert "SystemExit: 3" in errors["hostile_exits"]
    assert "Boom: not an Exception" in errors["hostile_base"]
    assert "pairlab_algoritms() is not a pairlab hook" in errors["hostile_misspelt"]
    assert "did you mean pairlab_algorithms?" in errors["hostile_misspelt"]
    assert "pairlab_datasets() is not marked with @pairlab.hookimpl" in errors["hostile_misspelt"]
    out = hostile_registry.loading_output
    assert "chatty" not in out.out and "hello from a chatty plugin" in out.err
    assert "gmm" in hostile_registry.names("algorithms")
    with pytest.raises(PluginError, match="hostile_exits.*SystemExit"):
        hostile_registry.algorithm("hostile_exits")


def test_list_json_stays_valid_and_isolates_bad_descriptions(hostile_registry, capsys):
    assert main(["list", "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)  # nothing printed by plugins, no NaN
    names = {a["name"] for a in data["algorithms"]}
    assert "gmm" in names and not names & {"bad-describe", "bad-params"}
    assert "'bad-describe' (plugin 'hostile_describe'): its description failed" in out.err
    assert "'bad-params'" in out.err
    assert main(["plugins", "--json"]) == 0
    plugins = {p["name"]: p for p in json.loads(capsys.readouterr().out)["plugins"]}
    assert plugins["hostile_base"]["error"] and plugins["hostile_prints"]["error"] is None


def test_list_json_reports_failed_plugins_and_clashes(hostile_registry, capsys):
    """Issue 33.10: `pairlab list --json` reported neither failed plugins nor name clashes."""
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    failed = {p["name"]: p["error"] for p in data["failed_plugins"]}
    assert "Boom: not an Exception" in failed["hostile_base"]
    assert data["clashes"] == hostile_registry.clashes


def test_failing_metrics_are_reported_and_the_run_goes_on(hostile_registry, capsys):
    assert main(["run", "gmm", "--dataset", "two-moons", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["metrics"]["fine"] == 0.5 and "purity" in result["metrics"]
    errors = result["metric_errors"]
    assert set(errors) == {"raises", "nan", "inf"}
    assert "ZeroDivisionError" in errors["raises"] and "nan" in errors["nan"]
    assert main(["run", "gmm", "--dataset", "two-moons"]) == 0
    assert "raises: failed (ZeroDivisionError" in capsys.readouterr().out


def test_evaluate_warns_about_failed_metrics(hostile_registry):
    from pairlab.scoring import evaluate

    errors: dict[str, str] = {}
    with pytest.warns(PluginWarning, match="metric 'nan' failed"):
        scores = evaluate(np.array([0, 0, 1]), np.array([0, 1, 1]), errors=errors)
    assert scores["fine"] == 0.5 and set(errors) == {"raises", "nan", "inf"}


def test_json_output_is_valid_whatever_a_plugin_returns():
    from pairlab.jsontext import dumps

    text = dumps({"a": float("nan"), "b": [np.inf, -np.inf, np.float32(1.5)], "c": np.arange(2),
                  "d": (1, None), 3: object})
    assert json.loads(text) == {"a": None, "b": [None, None, 1.5], "c": [0, 1], "d": [1, None],
                                "3": str(object)}


def test_reproduction_files_keep_infinite_penalties_as_text():
    from pairlab.reproduction import jsonable

    doc = jsonable({"q": [np.inf, -np.inf, np.float64(np.nan), 0.5], "path": Path("a/b")})
    assert json.loads(json.dumps(doc, allow_nan=False)) == {"q": ["inf", "-inf", "nan", 0.5],
                                                            "path": str(Path("a/b"))}


NAN_PROBA = """
import numpy as np
from pairlab import hookimpl
from pairlab_builtins.algorithms.gmm import GaussianMixtureEM

class NaNProba(GaussianMixtureEM):
    name = "nan-proba"

    def predict_proba(self, state, X):
        return np.full((len(X), 2), np.nan)

@hookimpl
def pairlab_algorithms():
    return [NaNProba]
"""


def test_nan_from_predict_proba_names_the_plugin(monkeypatch):
    reg = Registry(external=False)
    mod = types.ModuleType("nan_proba_plugin")
    exec(NAN_PROBA, mod.__dict__)
    reg.register(mod, name="nan_proba_plugin")
    monkeypatch.setattr(registry_module, "_REGISTRY", reg)
    X = np.random.default_rng(0).normal(size=(20, 2))
    est = make_estimator("nan-proba", random_state=0).fit(X)
    with pytest.raises(PluginError, match="algorithm 'nan-proba' returned invalid probabilities"):
        est.predict(X)
