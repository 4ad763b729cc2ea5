"""Test configuration: Qt offscreen, no third-party plugins, a fresh registry per test."""

import itertools
import os
import sys

# Set before anything imports Qt; the project's tests never depend on installed third-party plugins.
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["PAIRLAB_DISABLE_PLUGINS"] = "1"
# Tests use small matrices, where threaded BLAS only adds overhead (milliseconds per tiny LAPACK
# call on a busy 2-core machine); subprocesses inherit the variable.
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from pairlab import registry as _registry

threadpool_limits(1)  # numpy may already be loaded by a pytest plugin before this file


#: Packages pytest marks for assertion rewriting only because their distribution declares a
#: ``pytest11`` plugin (pytest marks every module of such a distribution). Their asserts are not
#: the tests', and rewriting them cost 3.3 s of CPU in every process (hypothesis 1.8 s, pairlab
#: 1.5 s; PYTHONDONTWRITEBYTECODE or a fresh clone leaves no cache), so they import unrewritten.
#: pairlab's fixtures for plugin authors (``pairlab.pytest_plugin``, ``pairlab.testing``) keep it.
_LIBRARIES_NOT_REWRITTEN = ("hypothesis", "pairlab")
_REWRITTEN_PAIRLAB = ("pairlab.pytest_plugin", "pairlab.testing")


def _rewrite_only_tests(config) -> None:
    """Drop the libraries above from pytest's rewrite marks (a private set: if a pytest version
    lacks it, nothing changes but the cost)."""
    hook = getattr(config.pluginmanager, "rewrite_hook", None)
    marked = getattr(hook, "_must_rewrite", None)
    if not isinstance(marked, set) or not marked.issuperset(_LIBRARIES_NOT_REWRITTEN):
        return
    marked.difference_update(_LIBRARIES_NOT_REWRITTEN)
    marked.update(_REWRITTEN_PAIRLAB)
    getattr(hook, "_marked_for_rewrite_cache", {}).clear()


def pytest_configure(config):
    """Refuse to run against an interpreter where this checkout is not installed: without
    ``pip install -e ".[test]"`` the core imports from the working folder but the built-in
    plugins (``plugins/``) do not, and hundreds of tests failed with ModuleNotFoundError."""
    from pathlib import Path

    _rewrite_only_tests(config)

    here = Path(str(config.rootpath)).resolve()
    try:
        import pairlab_builtins
    except ModuleNotFoundError:
        raise pytest.UsageError(
            f"pairlab is not installed in this Python ({sys.executable}): run "
            f'`pip install -e ".[test]"` in {here} first (README, Install)') from None
    where = Path(pairlab_builtins.__file__).resolve().parents[1]
    if where != here / "plugins":
        raise pytest.UsageError(
            f"this Python's pairlab plugins come from {where}, not from this checkout ({here}): "
            f'run `pip install -e ".[test]"` here first')


_AUTOSAVE_DIRS = itertools.count()


@pytest.fixture(autouse=True)
def _autosave_dir(request, tmp_path_factory, monkeypatch):
    """The GUI's autosaves go to the test's own folder, never to the user's data directory: the
    test's ``tmp_path`` if it asks for one, else a fresh name under the session's temporary folder
    (created only if something is saved there). Making a ``tmp_path`` for each of the ~2,300
    tests cost about 1 ms each, growing with the number of folders already made."""
    if "tmp_path" in request.fixturenames:
        folder = request.getfixturevalue("tmp_path")
    else:
        folder = tmp_path_factory.getbasetemp() / "autosaves" / str(next(_AUTOSAVE_DIRS))
    monkeypatch.setenv("PAIRLAB_AUTOSAVE_DIR", str(folder / "autosave"))


def _reset_if_edited() -> None:
    """Forget the process's registry if a test changed it: a plugin registered by hand, or loaded
    with third-party plugins. An unchanged one is kept: loading costs ~30 ms and most tests use
    it, so reloading it for every test cost minutes of the suite."""
    reg = _registry._REGISTRY
    if reg is not None and (reg.edited or reg.external):
        _registry.reset_registry()


@pytest.fixture(autouse=True)
def _fresh_registry():
    """Every test sees the installed built-in plugins and nothing a previous test registered."""
    _reset_if_edited()
    yield
    _reset_if_edited()


@pytest.fixture(autouse=True)
def _delete_closed_windows(request):
    """Delete the windows a Qt test closed while no worker thread runs.

    pytest-qt closes a test's widgets and calls ``deleteLater``, but plain event processing leaves
    deferred deletions pending, so the C++ windows were destroyed whenever Python collected them
    later, possibly while the next test's worker thread was running. A window's destructor then
    waited for a Qt lock the worker held while the worker waited for the GIL: the suite hung
    (seen once, 2026-11-27). This runs after pytest-qt's close."""
    yield
    core = sys.modules.get("PySide6.QtCore")
    if core is None or "qtbot" not in request.fixturenames:
        return
    if core.QCoreApplication.instance() is not None:
        core.QCoreApplication.sendPostedEvents(None, core.QEvent.Type.DeferredDelete)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


#: Test modules that start processes, kernels, the app, or run whole recipes and the estimator
#: check suites: marked ``slow``, so ``python -m pytest -m "not slow"`` is the inner loop.
SLOW_MODULES = frozenset({
    "test_architecture", "test_bad_input", "test_bench", "test_cli", "test_cop_kmeans_package",
    "test_display", "test_hostile_inputs", "test_likelihood", "test_mpl", "test_no_tracebacks",
    "test_notebook_widget", "test_packaging", "test_plugin_isolation", "test_qt_versions",
    "test_registry", "test_render", "test_reproduce_framework", "test_reproductions", "test_scaffold",
    "test_sklearn_compat", "test_sweep", "test_sweep_figures", "test_testing", "test_tutorials",
})

#: The CI tier: whole paper recipes, scikit-learn's check suite over every estimator, package
#: builds and installs, Jupyter kernels, the browser and Dask clusters, the notebook scrubber's frame
#: rendering, the sparse eigensolver paths and the compiled SSAP updates' bit-for-bit checks
#: (added 2026-11-27, when the README run on a clean clone took 196 s): these modules, and single
#: tests elsewhere marked ``@pytest.mark.ci``. They are marked ``ci`` (and ``slow``) and
#: left out of the README's ``python -m pytest`` (which must finish within 3 minutes on 2 cores);
#: ``python -m pytest --all`` and CI (``.ci/run``) run them, and naming a file or ``-m`` runs them too.
CI_MODULES = frozenset({
    "test_reproductions", "test_sklearn_compat", "test_reproduce_framework", "test_tutorials",
    "test_scaffold", "test_reproduce_cluster", "test_index_browser", "test_mpckmeans_peer",
    "test_packaging", "test_cop_kmeans_package", "test_tutorial_notebooks", "test_notebook_browser",
    "test_active_peer", "test_display_scrub", "test_sskk_sparse", "test_ssap_kernels",
})


def pytest_addoption(parser):
    parser.addoption("--all", action="store_true", dest="pairlab_all",
                     help="also run the CI tier (tests marked ci), as CI does")


def _runs_ci_tier(config) -> bool:
    """The CI tier runs with --all, with a -m expression, or when files or tests are named."""
    return (config.getoption("pairlab_all") or bool(config.option.markexpr)
            or config.args_source != pytest.Config.ArgsSource.TESTPATHS)


def _module_marks(path) -> set[str]:
    """The marks every test of a test module gets here (tests may add ``ci`` or ``gui``)."""
    marks = set()
    if path.stem in CI_MODULES:
        marks |= {"ci", "slow"}
    if path.parent.name == "gui" or path.stem in SLOW_MODULES:
        marks.add("slow")
    return marks


def _selects(expression: str, marks: set[str]) -> bool:
    """Whether ``-m expression`` selects a test with these marks. pytest's own evaluator is private,
    so the expression is read as a Python boolean expression of names (the grammar ``-m`` shares with
    Python for plain marker names); anything else counts as selecting, and the deselection in
    ``pytest_collection_modifyitems`` decides as usual."""
    import ast

    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return True

    def value(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in marks
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.BoolOp):
            parts = [value(v) for v in node.values]
            return all(parts) if isinstance(node.op, ast.And) else any(parts)
        raise ValueError(node)

    try:
        return value(tree)
    except ValueError:
        return True


def pytest_ignore_collect(collection_path, config):
    """Do not even import a test module none of whose tests would run: a CI-tier module in the
    README's run, a slow one under ``-m "not slow"`` (collecting the inner loop took about 16 s of
    CPU per process with them, 11.6 s without). The tests are left out exactly as the deselection
    below would leave them out."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    marks = _module_marks(collection_path)
    if "ci" in marks and not _runs_ci_tier(config):
        return True
    expression = config.option.markexpr
    if expression and not (_selects(expression, marks) or _selects(expression, marks | {"ci", "gui"})):
        return True
    return None


def pytest_collection_finish(session):
    """Move everything imported so far (numpy, scipy, scikit-learn, Qt, the test modules) out of
    the cyclic collector's reach: it scanned them again at every full collection. Objects the
    tests make are collected as before. Measured over tests/gui/test_app.py and
    tests/test_rdpmeans.py in one process (~37 s of CPU): 1.6-2.6 s in the collector, 1.1 s frozen."""
    import gc

    gc.freeze()


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = item.path
        if path.stem in CI_MODULES:
            item.add_marker(pytest.mark.ci)
        if path.parent.name == "gui" or path.stem in SLOW_MODULES or item.get_closest_marker("ci"):
            item.add_marker(pytest.mark.slow)
    if _runs_ci_tier(config):
        return
    kept = [item for item in items if item.get_closest_marker("ci") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i.get_closest_marker("ci")])
        items[:] = kept


def pytest_report_header(config):
    if not _runs_ci_tier(config):
        return [f"the CI tier ({len(CI_MODULES)} modules and the tests marked ci: whole recipes, "
                "check suites, builds, kernels, other processes) is left out; `python -m pytest "
                "--all` runs everything"]
    return None
