"""pairlab: clustering with pairwise relations (must-link / cannot-link)."""

from __future__ import annotations

__version__ = "0.1.0"

from .algorithm import Algorithm
from .constraints import Constraints
from .dataset import Dataset, DatasetSpec
from .errors import (
    ConvergenceWarning,
    InconsistentConstraintsError,
    InvalidInputError,
    PairlabError,
    PluginError,
)
from .estimator import PairwiseClustering, make_estimator
from .hookspecs import PLUGIN_API_VERSION, hookimpl, hookspec
from .links import links_from_labels
from .params import Param
from .registry import Registry, get_registry
from .run import Run
from .state import State

__all__ = [
    "PLUGIN_API_VERSION",
    "Algorithm",
    "Constraints",
    "ConvergenceWarning",
    "Dataset",
    "DatasetSpec",
    "InconsistentConstraintsError",
    "InvalidInputError",
    "PairlabError",
    "PairwiseClustering",
    "Param",
    "PluginError",
    "Registry",
    "Run",
    "State",
    "__version__",
    "get_registry",
    "hookimpl",
    "hookspec",
    "links_from_labels",
    "make_estimator",
]
