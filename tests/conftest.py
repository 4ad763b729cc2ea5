"""Test configuration: Qt offscreen, no third-party plugins, a fresh registry per test."""

import os

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


@pytest.fixture(autouse=True)
def _autosave_dir(tmp_path, monkeypatch):
    """The GUI's autosaves go to the test's own folder, never to the user's data directory."""
    monkeypatch.setenv("PAIRLAB_AUTOSAVE_DIR", str(tmp_path / "autosave"))


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


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


#: Test modules that start processes, kernels, the app, or run whole recipes and the estimator
#: check suites: marked ``slow`` so ``python -m pytest -m "not slow"`` is the inner loop (CI and the
#: README's command run everything).
SLOW_MODULES = frozenset({
    "test_architecture", "test_bad_input", "test_bench", "test_cli", "test_cop_kmeans_package",
    "test_display", "test_hostile_inputs", "test_likelihood", "test_mpl", "test_no_tracebacks",
    "test_notebook_widget", "test_packaging", "test_plugin_isolation", "test_qt_versions",
    "test_registry", "test_render", "test_reproduce_framework", "test_reproductions", "test_scaffold",
    "test_sklearn_compat", "test_sweep", "test_sweep_figures", "test_testing", "test_tutorials",
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = item.path
        if path.parent.name == "gui" or path.stem in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
