"""CPU time of each part of the bench's three-pane refresh (``MainWindow.refresh`` after a
seek to an iteration never shown before), from timers put around the functions named below
(their own overhead included, a few microseconds a call). Parts nest: indented names are inside
the one above them.

Run: ``python assets/bench/refresh_parts.py [frames]`` (with ``PYTHONPATH`` set to another
checkout to time that one).
"""

import collections
import itertools
import statistics
import sys
import time

from threadpoolctl import threadpool_limits

ACC: dict[str, float] = collections.defaultdict(float)


def wrap(owner: object, name: str, label: str) -> None:
    f = getattr(owner, name)

    def timed(*args, **kwargs):
        c = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            ACC[label] += time.process_time() - c

    setattr(owner, name, timed)


def main(frames: int) -> None:
    from PySide6 import QtWidgets

    from pairlab.benchcases import gui
    from pairlab.gui import canvas, lab_views, presentation, widgets
    from pairlab.gui.app import MainWindow

    for owner, name, label in (
            (MainWindow, "refresh", "refresh"),
            (presentation.Presentation, "draw", " draw the panes"),
            (lab_views.LabViews, "frame", "  Lab.frame"),
            (lab_views, "build_frame", "   build_frame"),
            (lab_views.LabViews, "regions", "   regions"),
            (lab_views, "grid_probabilities", "    grid_probabilities (predict_proba)"),
            (lab_views, "colour_regions", "    colour_regions"),
            (lab_views.LabViews, "metrics", "  Lab.metrics"),
            (canvas.CanvasLayers, "show", "  CanvasLayers.show"),
            (canvas.ObjectivePlot, "show_values", "  ObjectivePlot.show_values"),
            (widgets.QuietLine, "set_text", "  metrics line set_text"),
            (MainWindow, "update_controls", " update_controls")):
        wrap(owner, name, label)
    gui._frame(5000, 50, gui.THREE_PANES)
    window = gui._KEEP[-1]
    lab = window.lab
    app = QtWidgets.QApplication.instance()
    iterations = itertools.cycle(range(1, lab.max_index + 1))

    def one() -> float:
        for pane in lab.panes:
            pane.cache.clear()  # as the bench: an iteration never shown before
        c = time.process_time()
        window.seek(next(iterations))
        took = time.process_time() - c
        app.processEvents()
        return took

    for _ in range(4):
        one()
    ACC.clear()
    runs = [one() for _ in range(frames)]
    print(f"refresh of 3 panes: median {1000 * statistics.median(runs):.1f} ms CPU "
          f"({frames} frames); mean per frame of each part:")
    for label, total in ACC.items():
        print(f"{label:40s} {1000 * total / frames:6.2f} ms")


if __name__ == "__main__":
    with threadpool_limits(1):
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
