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


@pytest.fixture(autouse=True)
def _fresh_registry():
    _registry.reset_registry()
    yield
    _registry.reset_registry()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
