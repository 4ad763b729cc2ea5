"""Packaging: Qt is an extra (pairlab[gui]), the README's set-up still installs everything, the
LICENSE the metadata promises exists, and a headless install says what to install."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from pairlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _names(requirements: list[str]) -> set[str]:
    return {r.split(";")[0].split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
            for r in requirements}


def test_qt_is_an_extra_and_the_test_extra_includes_it():
    core = _names(PYPROJECT["dependencies"])
    assert not core & {"pyside6-essentials", "pyside6", "pyqtgraph", "pillow"}, core
    gui = PYPROJECT["optional-dependencies"]["gui"]
    assert {"pyside6-essentials", "pyqtgraph", "pillow"} <= _names(gui)
    # the 6.12 upper bound stays (tests/test_qt_versions.py shows why)
    assert any(r.replace(" ", "").startswith("PySide6-Essentials") and "<6.12" in r for r in gui)
    # README: `pip install -e ".[test]"` must still give the app, the figures and the GUI tests
    assert "pairlab[gui]" in PYPROJECT["optional-dependencies"]["test"]
    assert 'pip install -e ".[test]"' in (ROOT / "README.md").read_text()


def test_license_file_matches_the_metadata():
    assert PYPROJECT["license"] == "BSD-3-Clause" and PYPROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License") and "Neither the name of the copyright holder" in text


def test_gui_without_qt_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "PySide6", None)  # what an absent package looks like
    assert main(["gui", "--screenshot", "x.png"]) == 1
    err = capsys.readouterr().err
    assert "needs Qt" in err and 'pip install "pairlab[gui]"' in err and "Traceback" not in err
    from pairlab.render import ensure_app

    with pytest.raises(Exception, match=r'Drawing figures needs Qt.*pairlab\[gui\]'):
        ensure_app()


HEADLESS = textwrap.dedent("""
    import json, sys

    class NoQt:  # a headless install: the gui extra's packages cannot be imported
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "pyqtgraph", "PIL", "shiboken6"):
                raise ModuleNotFoundError(f"No module named {name!r}")
            return None

    sys.meta_path.insert(0, NoQt())
    from pairlab.cli import main
    out = sys.argv[1]
    assert main(["run", "gmpr", "--dataset", "two-moons", "--must-link", "5", "--json"]) == 0
    assert main(["reproduce", "fig3", "--trials", "1", "--jobs", "1", "--out", out]) == 0
    assert main(["sweep", "--algorithm", "gmm", "--dataset", "two-moons", "--generator", "random",
                 "--budget", "5",
                 "--jobs", "1", "--out", out + "/sweep"]) == 0
    code = main(["gui"])
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "PIL"))
    print(json.dumps({"gui_exit": code, "loaded": loaded}))
""")


def test_headless_install_runs_and_reproduces_without_figures(tmp_path):
    out = subprocess.run([sys.executable, "-c", HEADLESS, str(tmp_path)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    last = json.loads(out.stdout.strip().splitlines()[-1])
    assert last == {"gui_exit": 1, "loaded": []}
    assert 'pairlab gui needs Qt' in out.stderr and "Traceback" not in out.stderr
    assert "figures not drawn: Qt is not installed" in out.stdout
    assert "figures not drawn: Qt is not installed" in out.stderr  # the sweep's note
    assert (tmp_path / "sweep" / "sweep.csv").exists()
    assert not list((tmp_path / "sweep").glob("*.png"))
    doc = json.loads((tmp_path / "fig3.json").read_text())
    assert doc["trials"] == 1 and not any(f.endswith((".png", ".svg")) for f in doc["files"])
