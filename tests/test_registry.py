import json

import pytest

from pairlab import PluginError, Registry
from tests.helpers import make_site_plugin, run_cli

GOOD = """
import numpy as np
from pairlab import Algorithm, Param, State, hookimpl

class Everything(Algorithm):
    name = "one-cluster"
    title = "Put every point in one cluster"
    params = (Param("max_iter", int, 3, "steps", low=1),)

    def initialize(self):
        return State(0, np.zeros(self.dataset.n_samples, dtype=int))

    def step(self, state):
        return State(state.iteration + 1, state.labels)

    def converged(self, previous, current):
        return False

@hookimpl
def pairlab_algorithms():
    return [Everything]
"""

BROKEN = """
raise RuntimeError("this plugin is broken on purpose")
"""

GARBAGE = """
from pairlab import hookimpl

@hookimpl
def pairlab_algorithms():
    return ["not a class"]
"""

OLD_API = """
PAIRLAB_API_VERSION = 0
"""

CLASH = """
from pairlab import hookimpl
from pairlab_builtins.algorithms.gmm import GaussianMixtureEM

class Other(GaussianMixtureEM):
    pass

@hookimpl
def pairlab_algorithms():
    return [Other]
"""


def test_builtins_are_registered_through_entry_points():
    reg = Registry(external=False)
    assert {"gmm", "kmeans"} <= set(reg.names("algorithms"))
    assert {"two-moons", "gaussian-blobs"} <= set(reg.names("datasets"))
    assert "purity" in reg.names("metrics")
    assert all(p.builtin and p.ok for p in reg.plugins), [p.error for p in reg.failures]


def test_unknown_name_lists_known_and_suggests():
    reg = Registry(external=False)
    with pytest.raises(PluginError, match="Did you mean 'gmm'.*Known: .*kmeans"):
        reg.algorithm("gmn")


@pytest.mark.ci  # starts Python processes
def test_external_plugin_installed_through_entry_points(tmp_path):
    site = make_site_plugin(tmp_path, "pairlab-one", "pairlab_one", GOOD)
    out = run_cli("list", "--json", extra_path=site, external=True)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"algorithms", "datasets", "reproductions", "metrics", "query_strategies",
                         "failed_plugins", "clashes"}
    assert data["failed_plugins"] == [] and data["clashes"] == []
    algos = {a["name"]: a for a in data["algorithms"]}
    assert algos["one-cluster"]["plugin"] == "pairlab_one"
    assert algos["one-cluster"]["version"] == "0.1"
    assert {"name", "title", "plugin", "version", "params"} <= set(algos["gmm"])
    run = run_cli("run", "one-cluster", "--dataset", "two-moons", "--json", extra_path=site,
                  external=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["iterations"] == 3


@pytest.mark.ci  # starts Python processes
def test_disable_switch_hides_external_plugins(tmp_path):
    site = make_site_plugin(tmp_path, "pairlab-one", "pairlab_one", GOOD)
    out = run_cli("list", "--json", extra_path=site, external=False)
    names = [a["name"] for a in json.loads(out.stdout)["algorithms"]]
    assert "one-cluster" not in names and "gmm" in names


@pytest.mark.ci  # starts Python processes
def test_broken_plugin_is_reported_and_the_rest_works(tmp_path):
    site = make_site_plugin(tmp_path / "a", "pairlab-broken", "pairlab_broken", BROKEN)
    out = run_cli("plugins", extra_path=site, external=True)
    assert out.returncode == 0, out.stderr
    assert "pairlab_broken" in out.stdout and "FAILED" in out.stdout
    assert "broken on purpose" in out.stdout
    assert "pairlab_broken.py:2" in out.stdout  # where it happened
    run = run_cli("run", "gmm", "--dataset", "two-moons", "--json", extra_path=site,
                  external=True)
    assert run.returncode == 0, run.stderr
    # the placeholder raises only when used
    used = run_cli("run", "pairlab_broken", "--dataset", "two-moons", extra_path=site,
                   external=True)
    assert used.returncode == 1 and "failed to load" in used.stderr


def test_malformed_hook_result_clash_and_api_version():
    import types

    reg = Registry(external=False)
    for name, src in [("garbage", GARBAGE), ("old", OLD_API), ("clash", CLASH)]:
        mod = types.ModuleType(name)
        exec(src, mod.__dict__)
        reg.register(mod, name=name)
    errors = {p.name: p.error for p in reg.plugins if not p.ok}
    assert "not a subclass of pairlab.Algorithm" in errors["garbage"]
    assert "plugin API 0" in errors["old"]
    assert any("'gmm'" in c and "clash" in c for c in reg.clashes)
    assert reg.algorithm("gmm").__module__ == "pairlab_builtins.algorithms.gmm"
