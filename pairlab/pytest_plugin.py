"""pytest fixtures for plugin authors, loaded through pairlab's ``pytest11`` entry point.

Installing pairlab makes these fixtures available in any test suite::

    def test_my_algorithm_conforms(pairlab_check_algorithm):
        pairlab_check_algorithm(MyAlgorithm)

    def test_my_dataset_conforms(pairlab_check_dataset):
        pairlab_check_dataset(MY_SPEC, {"n_samples": 50})

    def test_plugin_is_discovered(pairlab_registry):
        assert "my-algorithm" in pairlab_registry.names("algorithms")
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def pairlab_check_algorithm() -> Any:
    """:func:`pairlab.testing.check_algorithm`: raises a ConformanceError naming every broken check."""
    from pairlab.testing import check_algorithm

    return check_algorithm


@pytest.fixture
def pairlab_check_dataset() -> Any:
    """:func:`pairlab.testing.check_dataset`."""
    from pairlab.testing import check_dataset

    return check_dataset


@pytest.fixture
def pairlab_small_dataset() -> Any:
    """The 40-point, two-blob :class:`pairlab.Dataset` the conformance checks use by default."""
    from pairlab.testing import make_check_dataset

    return make_check_dataset()


@pytest.fixture
def pairlab_small_constraints(pairlab_small_dataset: Any) -> Any:
    """4 must-links and 4 cannot-links drawn from ``pairlab_small_dataset``'s labels."""
    from pairlab.testing import make_check_constraints

    return make_check_constraints(pairlab_small_dataset)


@pytest.fixture
def pairlab_registry() -> Any:
    """A freshly loaded :class:`pairlab.Registry` including installed third-party plugins."""
    from pairlab.registry import Registry

    return Registry(external=True)
