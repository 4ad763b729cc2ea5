"""Hostile inputs of issue 33, one regression test each: a clear one-line error, never a traceback,
a Qt abort, a silent wrong result or a file outside the output folder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pairlab.gui.display import XCB_LIBRARIES, display_problem


def _pairlab(*args: str, env: dict[str, str] | None = None, timeout: float = 120):
    return subprocess.run([sys.executable, "-m", "pairlab", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)


def _no_traceback(done):
    assert "Traceback" not in done.stderr and "Aborted" not in done.stderr, done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb platform")
def test_gui_without_a_display_says_what_to_do_instead_of_qt_abort():
    """Issue 33.9: `pairlab gui` with no display ended in Qt's abort (exit 134)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = _pairlab("gui", env=env)
    assert done.returncode == 1 and "--screenshot" in done.stderr and "DISPLAY" in done.stderr
    _no_traceback(done)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb platform")
def test_gui_names_the_missing_xcb_libraries_and_their_packages():
    env = {"DISPLAY": ":97"}
    problem = display_problem(env, loadable=lambda so: so != "libxcb-cursor.so.0")
    assert "libxcb-cursor.so.0" in problem and "apt install libxcb-cursor0" in problem
    assert "--screenshot" in problem
    docs = open(_docs("gui.md")).read()
    assert all(package in docs for package in XCB_LIBRARIES.values())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb platform")
def test_gui_probe_reports_a_display_qt_cannot_open():
    """Every library present but no X server on :97: the probe's subprocess aborts, not us."""
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["DISPLAY"] = ":97"
    problem = display_problem(env, loadable=lambda so: True)
    assert problem is not None and "xcb" in problem and "--screenshot" in problem


def test_gui_refuses_a_negative_number_of_links(tmp_path):
    """Issue 33.10: `pairlab gui --must-link -3 --screenshot x.png` exited 0."""
    for flag in ("--must-link", "--cannot-link"):
        done = _pairlab("gui", flag, "-3", "--screenshot", str(tmp_path / "x.png"))
        assert done.returncode == 1 and f"{flag} expects a number of links >= 0" in done.stderr
        _no_traceback(done)
        assert not (tmp_path / "x.png").exists()


def _docs(name: str) -> str:
    return os.path.join(os.path.dirname(__file__), os.pardir, "docs", name)
