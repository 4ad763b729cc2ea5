"""Every tutorial runs headless as a plain script, and every file in tutorials/ is such a tutorial."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pairlab import Registry

# Run the file as __main__ (as `python FILE` does), then check that it never imported Qt.
RUNNER = (
    "import runpy, sys\n"
    "path = sys.argv[1]\n"
    "sys.argv = [path]\n"
    "runpy.run_path(path, run_name='__main__')\n"
    "qt = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))\n"
    "assert not qt, f'tutorials must not need Qt, but {path} imported {qt[:3]}'\n"
)
TUTORIALS = Path(__file__).resolve().parents[1] / "tutorials"
FILES = sorted(p for p in TUTORIALS.iterdir() if p.is_file()) if TUTORIALS.is_dir() else []


def test_every_file_is_a_percent_format_tutorial():
    assert FILES, "tutorials/ is empty"
    for path in FILES:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+\.py", path.name), (
            f"{path.name}: tutorials/ holds only lessons named NN_topic.py (each one is run by "
            "test_tutorial_runs)")
        text = path.read_text(encoding="utf-8")
        assert text.count("# %%") >= 3 and "# %% [markdown]" in text, (
            f"{path.name} is not in percent-cell format (# %% code cells, # %% [markdown] text)")


def _requires(path: Path) -> list[str]:
    match = re.search(r"^# requires: (.+)$", path.read_text(encoding="utf-8"), flags=re.M)
    assert match, f"{path.name} must declare the algorithms it uses in a '# requires: a, b' line"
    return [name.strip() for name in match.group(1).split(",")]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_tutorial_runs(path, tmp_path):
    known = set(Registry(external=False).names("algorithms"))
    missing = [name for name in _requires(path) if name not in known]
    assert not missing, f"{path.name} teaches algorithms that are not registered: {missing}"
    env = {**os.environ, "MPLBACKEND": "Agg", "QT_QPA_PLATFORM": "offscreen",
           "PAIRLAB_DISABLE_PLUGINS": "1"}
    out = subprocess.run([sys.executable, "-c", RUNNER, str(path)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"{path.name} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    assert len(out.stdout.splitlines()) >= 5, f"{path.name} shows nothing: {out.stdout!r}"
    assert "Traceback" not in out.stderr and "Warning" not in out.stderr, out.stderr
