"""The example external plugin (plugins/pairlab-cop-kmeans) installs and works like a third party's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import run_cli
from tests.plugin_install import REPO, env_with, pip_install_target

PACKAGE = REPO / "plugins" / "pairlab-cop-kmeans"

# Opens the desktop app offscreen with the installed plugin, reads the pane's algorithm menu,
# picks COP-KMeans in it and runs it to convergence through the window's own worker.
GUI_SCRIPT = """
import json, sys
from PySide6 import QtWidgets
app = QtWidgets.QApplication([])
from pairlab.gui.app import MainWindow, default_lab
window = MainWindow(default_lab(), autosave=False)
window.wait_idle()
combo = window.findChild(QtWidgets.QComboBox, "algorithm")
items = {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}
combo.setCurrentIndex(combo.findData("cop-kmeans-example"))
window.wait_idle()
window.run_to_end()
window.wait_idle()
pane = window.lab.panes[0]
result = {"items": items, "pane": pane.name, "error": pane.error,
          "iterations": pane.last_index, "converged": bool(pane.run and pane.run.converged)}
window.close()  # stops the worker thread
app.processEvents()
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The package pip-installed into a throwaway folder (once per module); (target, source copy)."""
    root = tmp_path_factory.mktemp("cop")
    target = root / "site"
    source = pip_install_target(PACKAGE, target)
    return target, source


def test_installs_as_a_normal_distribution(installed):
    target, _ = installed
    assert (target / "pairlab_cop_kmeans" / "algorithm.py").is_file()
    (info,) = target.glob("pairlab_cop_kmeans-0.1.0.dist-info")
    entry_points = (info / "entry_points.txt").read_text()
    assert "[pairlab]\ncop_kmeans_example = pairlab_cop_kmeans.plugin" in entry_points


def test_appears_in_pairlab_list_and_plugins(installed):
    target, _ = installed
    out = run_cli("list", "--json", extra_path=target, external=True)
    assert out.returncode == 0, out.stderr
    algos = {a["name"]: a for a in json.loads(out.stdout)["algorithms"]}
    cop = algos["cop-kmeans-example"]
    assert cop["plugin"] == "cop_kmeans_example" and cop["version"] == "0.1.0"
    assert algos["cop-kmeans"]["plugin"] == "cop_kmeans"  # the built-in, a different plugin
    assert {p["name"] for p in cop["params"]} >= {"n_clusters", "max_iter", "closure", "order"}
    assert "gmm" in algos  # the built-ins are still there

    out = run_cli("plugins", extra_path=target, external=True)
    line = next(s for s in out.stdout.splitlines() if s.startswith("cop_kmeans_example"))
    assert "pairlab-cop-kmeans 0.1.0 (external) ok" in line and "cop-kmeans-example" in line
    assert "clash" not in out.stdout.lower() and "conflict" not in out.stdout.lower()

    hidden = run_cli("list", "--json", extra_path=target, external=False)
    assert "cop-kmeans-example" not in {a["name"] for a in json.loads(hidden.stdout)["algorithms"]}


def test_runs_from_pairlab_run(installed):
    target, _ = installed
    out = run_cli("run", "cop-kmeans-example", "--dataset", "two-moons", "--must-link", "5",
                  "--cannot-link", "5", "--json", "--labels", extra_path=target, external=True)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["algorithm"] == "cop-kmeans-example" and result["converged"]
    assert result["n_must_link"] == 5 and result["n_cannot_link"] == 5
    assert result["metrics"]["constraints-satisfied"] == 1.0  # hard constraints
    assert result["objective_name"] == "inertia" and len(set(result["labels"])) == 2


def test_infeasible_links_give_a_one_line_error(installed, tmp_path):
    target, _ = installed
    links = tmp_path / "links.json"
    links.write_text(json.dumps({"n_samples": 200, "must_link": [],
                                 "cannot_link": [[0, 1], [1, 2], [0, 2]]}))
    out = run_cli("run", "cop-kmeans-example", "--dataset", "two-moons", "--constraints", str(links),
                  extra_path=target, external=True)
    assert out.returncode == 1
    assert out.stderr.startswith("pairlab: error: COP-KMeans cannot assign point")
    assert "Traceback" not in out.stderr


def test_the_packages_own_tests_pass(installed):
    target, source = installed
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                         cwd=source, env=env_with(target), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


def test_shows_in_the_gui_algorithm_menu_and_runs_there(installed, tmp_path):
    target, _ = installed
    env = env_with(target)
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path),
               XDG_DATA_HOME=str(tmp_path), XDG_RUNTIME_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", GUI_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["items"]["cop-kmeans-example"] == \
        "COP-KMeans, example package (Table 1)  (cop-kmeans-example)"
    assert result["items"]["cop-kmeans"] == "COP-KMeans (constrained k-means)  (cop-kmeans)"
    assert "gmm" in result["items"]
    assert result["pane"] == "cop-kmeans-example" and result["error"] is None
    assert result["converged"] and result["iterations"] >= 1
