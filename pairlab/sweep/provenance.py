"""What produced a result: versions of pairlab, its plugins and libraries, platform, command."""

from __future__ import annotations

import platform
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["provenance"]


def provenance(argv: Sequence[str] | None, wall: float) -> dict[str, Any]:
    """Versions, platform and command line behind a result."""
    import scipy

    from .. import __version__
    from ..registry import get_registry

    qt = None
    try:
        from importlib.metadata import version

        qt = {"PySide6": version("PySide6-Essentials"), "pyqtgraph": version("pyqtgraph")}
    except Exception:  # Qt is optional for the computation
        pass
    plugins = {p.name: f"{p.distribution} {p.version}" for p in get_registry().plugins if p.ok}
    dask = sys.modules.get("distributed")  # only when a run used Dask
    return {
        "pairlab": __version__, "plugins": plugins, "numpy": np.__version__,
        "scipy": scipy.__version__, "distributed": getattr(dask, "__version__", None), "qt": qt,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "command": " ".join(["pairlab", *(argv if argv is not None else sys.argv[1:])]),
        "wall_seconds": wall,
    }
