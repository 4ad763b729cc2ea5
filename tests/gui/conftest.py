"""Fixtures of the GUI tests (Qt runs offscreen, see tests/conftest.py)."""

import pytest


@pytest.fixture
def registry():
    """A registry with the GUI tests' own algorithms (tests/gui/support.py) beside the built-ins."""
    from .support import gui_registry  # imports Qt: only once a GUI test asks for it

    return gui_registry()
