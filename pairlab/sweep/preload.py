"""Imported once by the fork server of ``--jobs N`` workers: every worker forks with the engine,
numpy's and scipy's linear algebra and the plugins already loaded, instead of loading them itself."""

from __future__ import annotations

import numpy.linalg  # noqa: F401
import scipy.linalg  # noqa: F401

from ..registry import get_registry
from . import trial  # noqa: F401

get_registry()
