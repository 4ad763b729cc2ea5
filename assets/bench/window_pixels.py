"""The bench's classroom window (three panes at 5,000 points, 1440 x 900) grabbed at a few
iterations, to check that a change to the drawing code leaves every pixel as it was: a full
render (``window.grab``) and what the partial repaints left on the screen (the offscreen
platform's backing store, ``QScreen.grabWindow``).

Run: ``python assets/bench/window_pixels.py save OUT.npz`` once with ``PYTHONPATH=<other
checkout>`` and once with this one, then ``python assets/bench/window_pixels.py compare A.npz
B.npz`` (prints the differing pixels per grab; 0 everywhere: the same window).
"""

import sys

import numpy as np
from threadpoolctl import threadpool_limits

ITERATIONS = (2, 5, 9, 3)  # out of order: cached and partial updates are drawn too


def save(path: str) -> None:
    from PySide6 import QtGui, QtWidgets

    from pairlab.benchcases import gui
    from pairlab.gui.figure import qimage_to_array

    gui._frame(5000, 50, gui.THREE_PANES)
    window = gui._KEEP[-1]
    app = QtWidgets.QApplication.instance()
    grabs = {}
    for t in ITERATIONS:
        window.seek(t)
        for _ in range(3):
            app.processEvents()
        grabs[f"iteration {t}"] = qimage_to_array(window.grab().toImage())
        screen = QtGui.QGuiApplication.primaryScreen().grabWindow(window.winId())
        grabs[f"iteration {t} on screen"] = qimage_to_array(screen.toImage())
    np.savez_compressed(path, **grabs)


def compare(a: str, b: str) -> None:
    first, second = np.load(a), np.load(b)
    for key in first.files:
        x, y = first[key], second[key]
        n = "shapes differ" if x.shape != y.shape else int((x != y).any(axis=-1).sum())
        print(f"{key}: {n} pixels differ")


if __name__ == "__main__":
    with threadpool_limits(1):
        {"save": save, "compare": compare}[sys.argv[1]](*sys.argv[2:])
