"""Can Qt open a window here? Asked before Qt starts, because Qt aborts the process (exit 134)
when its platform plugin cannot start, with no chance to print advice.

Checks, cheapest first: a display to talk to (``DISPLAY`` / ``WAYLAND_DISPLAY``), the system
libraries of Qt's xcb plugin, then a probe: a ``QGuiApplication`` started in a subprocess. No Qt
import here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping

__all__ = ["XCB_LIBRARIES", "display_problem", "missing_libraries"]

#: shared libraries Qt 6's xcb platform plugin loads, and the Debian/Ubuntu package of each
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
}

HEADLESS_HINT = ("To render without a display use `pairlab gui ... --screenshot shot.png`, or run "
                 "under a virtual display: `xvfb-run pairlab gui`.")

_PROBE = "from PySide6.QtGui import QGuiApplication; QGuiApplication([])"


def _loadable(soname: str) -> bool:
    import ctypes

    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_libraries(loadable: Callable[[str], bool] = _loadable) -> list[str]:
    """The xcb plugin's libraries that cannot be loaded (Linux only; elsewhere none)."""
    if not sys.platform.startswith("linux"):
        return []
    return [so for so in XCB_LIBRARIES if not loadable(so)]


def _platform(env: Mapping[str, str]) -> str:
    """The platform plugin Qt will choose: QT_QPA_PLATFORM, else wayland or xcb on Linux."""
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip()
    if chosen:
        return chosen
    if not sys.platform.startswith("linux"):
        return "native"
    return "wayland" if env.get("WAYLAND_DISPLAY") else "xcb"


def display_problem(env: Mapping[str, str] | None = None, probe: bool = True,
                    loadable: Callable[[str], bool] = _loadable) -> str | None:
    """Why Qt cannot open a window (a message saying what to do), or None when it can."""
    env = os.environ if env is None else env
    platform = _platform(env)
    if platform == "xcb":
        if not env.get("DISPLAY"):
            return ("pairlab gui needs a display, and DISPLAY is not set (no X server to open the "
                    f"window on). {HEADLESS_HINT}")
        missing = missing_libraries(loadable)
        if missing:
            packages = " ".join(XCB_LIBRARIES[so] for so in missing)
            return (f"Qt's xcb platform plugin needs system libraries that are missing: "
                    f"{', '.join(missing)}. Install them (Debian/Ubuntu: `sudo apt install "
                    f"{packages}`; other systems: docs/gui.md). {HEADLESS_HINT}")
    if not probe or platform in ("offscreen", "minimal", "native"):
        return None
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE], env=dict(env), capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return f"Qt's {platform} platform did not start within 60 s. {HEADLESS_HINT}"
    if done.returncode == 0:
        return None
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    said = lines[0] if lines else f"exit status {done.returncode}"
    return (f"Qt cannot open a window with its {platform} platform plugin: {said}. "
            f"{HEADLESS_HINT}")
