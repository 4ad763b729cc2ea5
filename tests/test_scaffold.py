"""`pairlab new-plugin NAME` writes a package that installs, registers, runs and passes its tests;
a plugin built for another plugin API version is reported, not loaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pairlab import PLUGIN_API_VERSION, InvalidInputError
from pairlab.cli import main
from pairlab.scaffold import plugin_names, write_plugin
from tests.helpers import run_cli
from tests.plugin_install import env_with, pip_install_target


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory):
    """Two generated packages, each pip-installed into its own throwaway folder (once per module).

    ``old-api`` is edited to declare the next plugin API version, as a plugin written for a
    future pairlab would.
    """
    root = tmp_path_factory.mktemp("scaffold")
    assert main(["new-plugin", "my-algo", "--dir", str(root)]) == 0
    good = root / "pairlab-my-algo"
    old = write_plugin("old-api", root)
    plugin_py = old / "src" / "pairlab_old_api" / "plugin.py"
    text = plugin_py.read_text()
    assert f"PAIRLAB_API_VERSION = {PLUGIN_API_VERSION}\n" in text
    plugin_py.write_text(text.replace(f"PAIRLAB_API_VERSION = {PLUGIN_API_VERSION}\n",
                                      f"PAIRLAB_API_VERSION = {PLUGIN_API_VERSION + 1}\n"))
    site_good, site_old = root / "site-good", root / "site-old"
    good_copy = pip_install_target(good, site_good)
    pip_install_target(old, site_old)
    return {"source": good, "copy": good_copy, "site": site_good, "old_site": site_old}


def test_names_are_derived_from_the_algorithm_name():
    n = plugin_names("My_Algo2")
    assert (n.algorithm, n.distribution, n.module, n.cls, n.entry_point) == (
        "my-algo2", "pairlab-my-algo2", "pairlab_my_algo2", "MyAlgo2", "my_algo2")
    assert plugin_names("pairlab-foo").algorithm == "foo"
    for bad in ("2fast", "a--b", "with space", "", "ünï"):
        with pytest.raises(InvalidInputError, match="lower-case letters and digits"):
            plugin_names(bad)


def test_writes_a_complete_package(scaffolded, capsys):
    src = scaffolded["source"]
    files = sorted(str(p.relative_to(src)) for p in src.rglob("*") if p.is_file())
    assert files == ["README.md", "pyproject.toml", "src/pairlab_my_algo/__init__.py",
                     "src/pairlab_my_algo/algorithm.py", "src/pairlab_my_algo/plugin.py",
                     "tests/test_pairlab_my_algo.py"]
    pyproject = (src / "pyproject.toml").read_text()
    assert '[project.entry-points.pairlab]\nmy_algo = "pairlab_my_algo.plugin"' in pyproject
    assert "pairlab_check_algorithm" in (src / "tests" / "test_pairlab_my_algo.py").read_text()
    # lint-clean as a stand-alone project
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--select",
                           "E,F,W,I,B,UP,NPY,RUF", "--line-length", "110", "."], cwd=src,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout


def test_refuses_to_overwrite_and_rejects_bad_names(scaffolded, capsys):
    parent = scaffolded["source"].parent
    assert main(["new-plugin", "my-algo", "--dir", str(parent)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["new-plugin", "9lives", "--dir", str(parent)]) == 1
    assert "must be lower-case letters" in capsys.readouterr().err


def test_refuses_a_name_that_is_taken(tmp_path, capsys):
    """Issue 33.10: `pairlab new-plugin gmpr` wrote a plugin that clashes with the built-in."""
    assert main(["new-plugin", "gmm", "--dir", str(tmp_path)]) == 1
    assert "already registered" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_generated_algorithm_passes_the_conformance_check(scaffolded):
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                         cwd=scaffolded["copy"], env=env_with(scaffolded["site"]),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "4 passed" in out.stdout


def test_installed_plugin_is_listed_and_runs(scaffolded):
    site = scaffolded["site"]
    listed = run_cli("list", "--json", extra_path=site, external=True)
    algos = {a["name"]: a for a in json.loads(listed.stdout)["algorithms"]}
    assert algos["my-algo"]["plugin"] == "my_algo" and algos["my-algo"]["version"] == "0.1.0"
    out = run_cli("run", "my-algo", "--dataset", "gaussian-blobs", "--data", "n_samples=90",
                  "--set", "n_clusters=3", "--must-link", "10", "--json", extra_path=site,
                  external=True)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["n_clusters"] == 3 and result["converged"]
    assert result["metrics"]["constraints-satisfied"] == 1.0  # only must-links: all kept


def test_plugin_for_another_api_version_is_reported_not_loaded(scaffolded):
    site = scaffolded["old_site"]
    out = run_cli("plugins", extra_path=site, external=True)
    assert out.returncode == 0, out.stderr
    line = next(s for s in out.stdout.splitlines() if s.startswith("old_api"))
    assert "pairlab-old-api 0.1.0 (external) FAILED" in line
    assert (f"error: built for pairlab plugin API {PLUGIN_API_VERSION + 1}, but this pairlab "
            f"provides {PLUGIN_API_VERSION}") in out.stdout
    listed = run_cli("list", extra_path=site, external=True)
    assert "old-api" not in listed.stdout and "1 plugin(s) failed to load" in listed.stdout
    used = run_cli("run", "old-api", "--dataset", "two-moons", extra_path=site, external=True)
    assert used.returncode == 1 and "plugin API" in used.stderr
