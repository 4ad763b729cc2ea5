"""Test configuration: Qt offscreen, no third-party plugins, a fresh registry per test."""

import os

# Set before anything imports Qt; the project's tests never depend on installed third-party plugins.
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["PAIRLAB_DISABLE_PLUGINS"] = "1"

import numpy as np
import pytest

from pairlab import registry as _registry


@pytest.fixture(autouse=True)
def _fresh_registry():
    _registry.reset_registry()
    yield
    _registry.reset_registry()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
