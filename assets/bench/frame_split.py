"""CPU time of the bench's gui-frame-3x5000 frame split into the refresh (frames, regions,
metrics, sending data to pyqtgraph) and the painting (Qt's event processing), medians, one BLAS
thread as in ``pairlab bench``.

Run: ``python assets/bench/frame_split.py [panes (1 or 3)] [points] [frames]``; to compare with
another checkout, run it with ``PYTHONPATH=<that checkout>`` in turn with this one.
"""

import itertools
import statistics
import sys
import time

from threadpoolctl import threadpool_limits


def frame_timer(window, app):
    """A callable showing the next iteration in ``window`` as the bench does; it returns the
    refresh's and the painting's CPU seconds and the frame's wall seconds."""
    iterations = itertools.cycle(range(1, window.lab.max_index + 1))

    def one() -> tuple[float, float, float]:
        t = next(iterations)
        for pane in window.lab.panes:
            pane.cache.clear()  # as the bench: an iteration never shown before
        c0, w0 = time.process_time(), time.perf_counter()
        window.seek(t)
        c1 = time.process_time()
        app.processEvents()
        return c1 - c0, time.process_time() - c1, time.perf_counter() - w0

    return one


def main(panes: int, n: int, frames: int) -> None:
    from PySide6 import QtWidgets

    from pairlab.benchcases import gui

    gui._frame(n, max(n // 100, 2), gui.THREE_PANES if panes == 3 else ("gmm",))
    one = frame_timer(gui._KEEP[-1], QtWidgets.QApplication.instance())
    for _ in range(4):
        one()
    runs = [one() for _ in range(frames)]

    def med(values) -> float:
        return 1000 * statistics.median(values)

    print(f"{panes}x{n}: refresh {med(r[0] for r in runs):.1f} ms CPU, paint "
          f"{med(r[1] for r in runs):.1f} ms CPU, frame {med(r[0] + r[1] for r in runs):.1f} ms "
          f"CPU, {med(r[2] for r in runs):.1f} ms wall (medians of {frames})")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    with threadpool_limits(1):
        main(*(args + [3, 5000, 30][len(args):]))
