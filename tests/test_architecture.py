"""The layering, enforced on the source: what each part of pairlab may import.

Layers, from the bottom: the **core** (every ``pairlab`` module except the ones below) knows
nothing of Qt or the app; the **drawing layer** ``pairlab.draw`` (geometry, palettes, frames) is
core too and, on top of that, imports neither ``pairlab.gui``, ``pairlab.render`` nor the shell;
the **presentation** layer (``pairlab.gui``, ``pairlab.render`` and the GUI frame benchmark
``pairlab.benchcases.gui``) draws; ``pairlab.cli`` is the shell that may start the app, and no
core module imports a command-line module (``pairlab.cli*``: ``cli``, ``cli_links``). Built-in
plugins: algorithms, data sets and metrics import neither Qt nor the presentation layer;
reproductions may draw through ``pairlab.render`` but never import Qt themselves. Inside the GUI,
the model (``model``, ``lab_*``, ``pane``, ``session``, ``lessons``) stays Qt-free. The matplotlib
figures and notebook front-end (``pairlab.mpl``, ``pairlab.display*``, ``pairlab.notebook``) import
no Qt and, of the GUI, only that Qt-free model. No private name (``_x``) is imported from another
package, and nothing outside ``pairlab/run.py`` writes a ``Run``'s state (its history, half-states,
cursor or convergence flag; :func:`run_state_writes`).
No import cycles among pairlab's modules (function-level imports included; a submodule importing
its own parent package is not a cycle, nor is an import under ``if TYPE_CHECKING:``, which never
runs).
"""

import ast
import functools
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "pyqtgraph", "PyQt5", "PyQt6", "shiboken6")
PRESENTATION = ("pairlab.gui", "pairlab.render", "pairlab.benchcases.gui", "pairlab.sweep.figures")
SHELL = ("pairlab.__main__",)  # with every pairlab.cli* module (_is_cli): the command line
QT_FREE_GUI = ("pairlab.gui.model", "pairlab.gui.lab_data", "pairlab.gui.lab_timeline",
               "pairlab.gui.lab_views", "pairlab.gui.pane", "pairlab.gui.session", "pairlab.gui.lessons")
DRAWING = ("pairlab.draw",)
#: matplotlib figures and the notebook front-end: no Qt; of the GUI only its Qt-free model.
NOTEBOOK = ("pairlab.mpl", "pairlab.mpl_figure", "pairlab.display", "pairlab.display_run",
            "pairlab.display_scrub", "pairlab.notebook")
#: A Run's state, changed only through Run's own methods (replace_half, restore, mark_converged ...).
RUN_STATE = ("history", "halves", "converged", "on_half", "index")
#: Methods that change a list or dict in place.
MUTATORS = ("append", "extend", "insert", "pop", "clear", "update", "remove", "setdefault", "sort",
            "reverse", "popitem", "__setitem__", "__delitem__")

PLUGIN_KINDS_WITHOUT_DRAWING = ("pairlab_builtins.algorithms", "pairlab_builtins.datasets",
                                "pairlab_builtins.metrics")


def _is_cli(module: str) -> bool:
    """``pairlab.cli``, ``pairlab.cli_links`` and any other ``pairlab.cli*`` module or package."""
    return module.startswith("pairlab.cli")


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def module_files(root: Path) -> dict[str, Path]:
    """Module name -> file for pairlab and the built-in plugins under ``root``."""
    out = {}
    for path in [*root.glob("pairlab/**/*.py"), *root.glob("plugins/pairlab_builtins/**/*.py")]:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[0] == "plugins":
            parts = parts[1:]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


@functools.cache
def _parsed(path: Path, text: str) -> tuple[ast.AST, tuple[ast.AST, ...]]:
    """The syntax tree of a file and all its nodes (each file is read by four checks)."""
    tree = ast.parse(text, str(path))
    return tree, tuple(ast.walk(tree))


def _nodes(path: Path) -> tuple[ast.AST, ...]:
    return _parsed(path, path.read_text())[1]


def imported_names(module: str, path: Path) -> set[str]:
    """Every module name ``path`` imports (absolute, with relative imports resolved; the names of
    ``from X import a`` as ``X`` and ``X.a``), at any depth: lazy imports count."""
    return set(_imported_names(module, path, path.read_text()))


@functools.cache
def _imported_names(module: str, path: Path, text: str) -> frozenset[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    nodes = _parsed(path, text)[1]
    typing_only = {id(n) for block in nodes if isinstance(block, ast.If)
                   and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for stmt in block.body for n in ast.walk(stmt)}
    for node in nodes:
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{a.name}" for a in node.names)
    return frozenset(names)


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (names trimmed to the nearest module)."""
    graph = {}
    for module, path in files.items():
        deps = set()
        for name in imported_names(module, path):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                deps.add(name)
        graph[module] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = itertools.count()

    def visit(v: str) -> None:
        index[v] = low[v] = next(counter)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _package_of(module: str, files: dict[str, Path]) -> str:
    path = files.get(module)
    return module if path is not None and path.name == "__init__.py" else module.rpartition(".")[0]


def private_imports(module: str, path: Path, files: dict[str, Path]) -> list[str]:
    """``from X import _y`` where ``_y`` (a private name of X, or a private module X._y) lives in
    another package than ``module``."""
    package = _package_of(module, files)
    found = []
    for node in _nodes(path):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        parts = target.split(".")
        if parts[0] not in ("pairlab", "pairlab_builtins"):
            continue
        hidden = [p for p in parts[1:] if p.startswith("_") and not p.startswith("__")]
        names = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
        for name in names:
            owner = f"{target}.{name}" if f"{target}.{name}" in files else target
            if _package_of(owner, files) != package:
                found.append(f"{module}: {target}.{name} (a private name from another package)")
        if hidden and _package_of(target, files) != package:
            found.append(f"{module}: {target} (a private module from another package)")
    return found


def run_state_writes(module: str, path: Path) -> list[str]:
    """Assignments, augmented assignments, deletions and in-place mutations of a Run's state
    (``x.history[:] = ...``, ``x.halves = ...``, ``x.converged = ...``, ``x.halves[i] = ...``,
    ``x.history.append(...)``) where ``x`` is not ``self``: only :mod:`pairlab.run` may do that.
    The check is by attribute name (:data:`RUN_STATE`), so another class's ``self.index`` is fine
    but no object's ``.history`` or ``.halves`` is written from outside."""
    found = []

    def state_attr(node: ast.AST) -> ast.Attribute | None:
        while isinstance(node, ast.Subscript):
            node = node.value
        if (isinstance(node, ast.Attribute) and node.attr in RUN_STATE
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            return node
        return None

    def report(node: ast.AST, target: ast.AST) -> None:
        found.append(f"{module}:{node.lineno}: {ast.unparse(target)} (writes a Run's state)")

    for node in _nodes(path):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = (node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target])
            flat = []
            for t in targets:
                flat.extend(t.elts if isinstance(t, ast.Tuple | ast.List) else [t])
            for t in flat:
                if state_attr(t) is not None:
                    report(node, t)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in MUTATORS and state_attr(node.func.value) is not None
              and node.func.value.attr in ("history", "halves")):  # type: ignore[attr-defined]
            report(node, node.func)
    return found


def _outermost(names: set[str]) -> list[str]:
    """``from X import a`` yields X and X.a: report X once."""
    return sorted(n for n in names if not any(n.startswith(m + ".") for m in names))


def layering_violations(root: Path) -> list[str]:
    """Every import that breaks the rules in this module's docstring, as 'module: import'."""
    files = module_files(root)
    bad = []
    for module, path in sorted(files.items()):
        names = imported_names(module, path)
        qt = _outermost({n for n in names if n.split(".")[0] in QT})
        drawing = _outermost({n for n in names if _within(n, PRESENTATION)})
        bad += private_imports(module, path, files)
        if module != "pairlab.run":
            bad += run_state_writes(module, path)
        if _within(module, DRAWING):
            upward = _outermost({n for n in names if _within(n, PRESENTATION + SHELL) or _is_cli(n)})
            bad += [f"{module}: {n} (the drawing layer imports the app, the renderer or the shell)"
                    for n in upward]
        if _within(module, NOTEBOOK):
            upward = _outermost({n for n in names if (_within(n, PRESENTATION + SHELL) or _is_cli(n))
                                 and not _within(n, QT_FREE_GUI) and n != "pairlab.gui"})
            bad += [f"{module}: {n} (notebook front-end imports Qt)" for n in qt]
            bad += [f"{module}: {n} (notebook front-end imports the Qt app or renderer)" for n in upward]
            continue
        if _is_cli(module) or _within(module, SHELL) or _within(module, PRESENTATION):
            if _within(module, QT_FREE_GUI):
                bad += [f"{module}: {n} (Qt-free GUI module)" for n in qt]
            continue
        bad += [f"{module}: {n} (Qt outside the presentation layer)" for n in qt]
        if module.startswith("pairlab.") or module == "pairlab":
            bad += [f"{module}: {n} (the core imports the presentation layer)" for n in drawing]
            bad += [f"{module}: {n} (the core imports the command line)"
                    for n in _outermost({n for n in names if _is_cli(n)})]
        elif _within(module, PLUGIN_KINDS_WITHOUT_DRAWING):
            bad += [f"{module}: {n} (an algorithm, data set or metric plugin draws)" for n in drawing]
    bad += [f"import cycle: {' <-> '.join(c)}" for c in cycles(import_graph(files))]
    return bad


def test_the_layering_holds():
    assert layering_violations(ROOT) == []


def _fake_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def test_the_layering_check_catches_each_kind_of_violation(tmp_path):
    root = _fake_tree(tmp_path, {
        "pairlab/__init__.py": "",
        "pairlab/a.py": "from . import b\n",
        "pairlab/b.py": "def f():\n    from .a import x\n",
        "pairlab/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import D\n",
        "pairlab/d.py": "from .c import C\n",
        "pairlab/core.py": "from .gui import app\n",
        "pairlab/cli_links.py": "",
        "pairlab/links.py": "def draw():\n    from .cli_links import GENERATORS\n",
        "pairlab/gui/__init__.py": "",
        "pairlab/gui/app.py": "from PySide6 import QtCore\n",
        "pairlab/gui/model.py": "import pyqtgraph\n",
        "plugins/pairlab_builtins/__init__.py": "",
        "plugins/pairlab_builtins/algorithms/__init__.py": "",
        "plugins/pairlab_builtins/algorithms/algo.py": "import pairlab.gui\n",
        "plugins/pairlab_builtins/datasets/__init__.py": "",
        "plugins/pairlab_builtins/datasets/data.py": "from PySide6.QtGui import QColor\n",
        "plugins/pairlab_builtins/reproductions/__init__.py": "",
        "plugins/pairlab_builtins/reproductions/fig.py": "def draw():\n    from pairlab.render import x\n",
    })
    found = layering_violations(root)
    assert ("pairlab_builtins.algorithms.algo: pairlab.gui (an algorithm, data set or metric plugin draws)"
            in found)
    assert "pairlab_builtins.datasets.data: PySide6.QtGui (Qt outside the presentation layer)" in found
    assert "pairlab.core: pairlab.gui (the core imports the presentation layer)" in found
    assert "pairlab.gui.model: pyqtgraph (Qt-free GUI module)" in found
    assert "pairlab.links: pairlab.cli_links (the core imports the command line)" in found
    assert "import cycle: pairlab.a <-> pairlab.b" in found
    # allowed: the app imports Qt, a reproduction draws through pairlab.render
    assert not any(v.startswith(("pairlab.gui.app", "pairlab_builtins.reproductions")) for v in found)
    assert len(found) == 6


@pytest.mark.ci  # starts Python processes
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


def test_the_notebook_layer_rules_catch_qt_and_the_renderer(tmp_path):
    root = _fake_tree(tmp_path, {
        "pairlab/__init__.py": "",
        "pairlab/mpl.py": "def f():\n    import PySide6\n    from .render import render_run\n",
        "pairlab/notebook/__init__.py": "from ..gui.model import Lab\nfrom ..gui import canvas\n",
        "pairlab/gui/__init__.py": "",
        "pairlab/gui/model.py": "",
        "pairlab/gui/canvas.py": "",
        "pairlab/render.py": "",
    })
    assert sorted(layering_violations(root)) == [
        "pairlab.mpl: PySide6 (notebook front-end imports Qt)",
        "pairlab.mpl: pairlab.render (notebook front-end imports the Qt app or renderer)",
        "pairlab.notebook: pairlab.gui.canvas (notebook front-end imports the Qt app or renderer)",
    ]


@pytest.mark.ci  # starts Python processes
def test_drawing_with_matplotlib_loads_no_qt(tmp_path):
    code = (
        "import sys, numpy as np\n"
        "from pairlab import Run\n"
        "from pairlab.registry import get_registry\n"
        "from pairlab.links import random_pairs\n"
        "from pairlab.mpl import draw_run\n"
        "data = get_registry().dataset('two-moons').make(seed=0)\n"
        "run = Run('gmpr', data, random_pairs(data.y, 3, 3, np.random.default_rng(0)),\n"
        "          {'n_components': 2}, seed=0)\n"
        "run.step()\n"
        f"draw_run(run, {str(tmp_path / 'f.png')!r})\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT!r} or m.startswith('pairlab.gui.')]\n"
        "assert not bad, bad\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_the_new_rules_catch_a_planted_violation_each(tmp_path):
    root = _fake_tree(tmp_path, {
        "pairlab/__init__.py": "",
        "pairlab/run.py": "class Run:\n    def f(self, other):\n        other.history[:] = []\n",
        "pairlab/lab.py": ("def undo(run, entry):\n"
                           "    run.history[:] = entry\n"
                           "    run.halves = {}\n"
                           "    run.converged = False\n"
                           "    run.halves[0] = entry\n"
                           "    run.index += 1\n"
                           "    run.history.append(entry)\n"
                           "    self.index = 0\n"),
        "pairlab/draw/__init__.py": "",
        "pairlab/draw/frames.py": "from ..gui import canvas\nfrom pairlab.render import x\n",
        "pairlab/draw/qt.py": "import pyqtgraph\n",
        "pairlab/gui/__init__.py": "",
        "pairlab/gui/canvas.py": "from ..draw.frames import Frame\n",
        "pairlab/other.py": "from .gui.canvas import _pen\nfrom .draw import _frames\n",
        "pairlab/gui/app.py": "from .canvas import _pen\n",
    })
    found = layering_violations(root)
    writes = [v for v in found if "writes a Run's state" in v]
    assert [v.split(":")[1] for v in writes] == ["2", "3", "4", "5", "6", "7"]
    assert not any(v.startswith("pairlab.run") for v in found)
    assert "pairlab.draw.frames: pairlab.gui (the drawing layer imports the app, the renderer or the shell)" \
        in found
    assert ("pairlab.draw.frames: pairlab.render (the drawing layer imports the app, the renderer or the "
            "shell)") in found
    assert "pairlab.draw.qt: pyqtgraph (Qt outside the presentation layer)" in found
    assert "pairlab.other: pairlab.gui.canvas._pen (a private name from another package)" in found
    assert "pairlab.other: pairlab.draw._frames (a private name from another package)" in found
    # allowed: the canvas draws from the drawing layer; a private name inside its own package
    assert not any(v.startswith(("pairlab.gui.canvas", "pairlab.gui.app")) for v in found)
