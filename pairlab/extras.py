"""Optional parts of pairlab and what to install for them (``pip install "pairlab[gui]"``).

Qt (PySide6 and pyqtgraph) and Pillow draw: the teaching app and the figures of ``pairlab
reproduce``. A headless install runs algorithms, sweeps and reproductions (results and tables)
without them. This module only looks for the packages; it never imports them.
"""

from __future__ import annotations

import importlib.util
import sys

from .errors import PairlabError

__all__ = ["GUI_INSTALL", "GUI_MODULES", "missing_gui", "require_gui"]

GUI_MODULES = ("PySide6", "pyqtgraph", "PIL")
GUI_INSTALL = 'pip install "pairlab[gui]"'


def _absent(name: str) -> bool:
    if name in sys.modules:
        return sys.modules[name] is None  # None marks a module that failed (or is blocked)
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):
        return True


def missing_gui() -> list[str]:
    """The packages of the ``gui`` extra that are not installed (empty when all are)."""
    return [name for name in GUI_MODULES if _absent(name)]


def require_gui(purpose: str) -> None:
    """Raise a PairlabError saying what to install when the ``gui`` extra is missing."""
    missing = missing_gui()
    if missing:
        raise PairlabError(
            f"{purpose} needs Qt, which is not installed (missing: {', '.join(missing)}). "
            f'Install the app and figure renderer with: {GUI_INSTALL}'
        )
