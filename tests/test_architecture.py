"""Keep Qt out of the core: only pairlab.gui (and the headless renderer) may import it."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "pyqtgraph", "PyQt5", "PyQt6", "shiboken6")
ALLOWED = ("pairlab/gui/", "pairlab/render")


def _imports(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_core_and_algorithms_do_not_import_qt():
    offenders = []
    for path in [*ROOT.glob("pairlab/**/*.py"), *ROOT.glob("plugins/pairlab_builtins/**/*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(ALLOWED):
            continue
        offenders += [f"{rel}: {m}" for m in _imports(path) if m.split(".")[0] in QT]
    assert not offenders, offenders


def test_running_an_algorithm_loads_no_qt():
    code = (
        "import sys, pairlab\n"
        "from pairlab.cli import main\n"
        "main(['run', 'gmm', '--dataset', 'two-moons'])\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT!r}]\n"
        "assert not bad, bad\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
