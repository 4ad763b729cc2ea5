"""`pairlab sweep` figure options: matplotlib draws without loading the Qt renderer, and a bad
--formats (or --figures) is refused before any trial runs."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.slow  # starts a process and runs sweeps

SWEEP = ["sweep", "--name", "s", "--algorithm", "gmm", "--set", "n_components=2", "--dataset",
         "two-moons", "--data", "n_samples=30", "--generator", "random", "--budget", "0,3",
         "--trials", "1", "--jobs", "1"]

# Importing Qt or the Qt renderer (pairlab.render, pairlab.gui.figure) fails, as on an install
# without the gui extra, even when Qt is installed here.
NO_RENDERER = """
import sys
BLOCKED = ("PySide6", "pyqtgraph", "shiboken6", "pairlab.render", "pairlab.gui.figure")
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name in BLOCKED or name.split(".")[0] in BLOCKED[:3]:
            raise ModuleNotFoundError(f"blocked by the test: {name}")
sys.meta_path.insert(0, Blocked())
from pairlab.cli import main
rc = main(sys.argv[2:] + ["--out", sys.argv[1], "--figures", "matplotlib"])
assert rc == 0, rc
loaded = [m for m in sys.modules if m in BLOCKED or m.split(".")[0] in BLOCKED[:3]]
assert not loaded, loaded
"""


@pytest.mark.ci  # starts Python processes
def test_a_matplotlib_sweep_never_imports_the_qt_renderer(tmp_path):
    out = subprocess.run([sys.executable, "-c", NO_RENDERER, str(tmp_path), *SWEEP],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "s-purity.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "s-purity.svg").read_bytes().lstrip().startswith(b"<?xml")


@pytest.mark.parametrize("options, says", [
    (["--formats", "png,eps"], "'eps'"),
    (["--figures", "qt", "--formats", "pdf"], "PDF figures are drawn by matplotlib"),
])
def test_bad_figure_options_fail_before_any_trial_runs(tmp_path, capsys, options, says):
    from pairlab.cli import main

    out = tmp_path / "o"
    assert main([*SWEEP, "--out", str(out), *options]) != 0
    err = capsys.readouterr().err
    assert says in err and "--formats" in err and "nothing was run" in err, err
    assert not out.exists() or not any(out.rglob("*")), sorted(out.rglob("*"))


def test_no_render_ignores_the_formats(tmp_path):
    from pairlab.cli import main

    assert main([*SWEEP, "--out", str(tmp_path), "--no-render", "--formats", "eps"]) == 0
    assert (tmp_path / "s.csv").exists() and not list(tmp_path.glob("*.png"))
