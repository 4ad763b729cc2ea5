"""Decision-region cells of 3 against 4 screen pixels in the bench's three-pane window: the frame
time with ``presentation.REGION_CELL_PX`` switched in ONE process (blocks of frames, alternating),
and how the window's pixels differ at iteration 7 (fraction of pixels, largest difference).

Run: ``python assets/bench/region_cells.py [frames per block] [blocks per side]``.
"""

import statistics
import sys

import numpy as np
from threadpoolctl import threadpool_limits


def _pixels(window, app, t: int) -> np.ndarray:
    for pane in window.lab.panes:
        pane.cache.clear()
    window.seek(t - 1)
    app.processEvents()
    window.seek(t)
    app.processEvents()
    image = window.grab().toImage()
    image = image.convertToFormat(image.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4)[..., :3].astype(int)


def main(frames: int, blocks: int) -> None:
    from frame_split import frame_timer  # this folder: the script's own path
    from PySide6 import QtWidgets

    from pairlab.benchcases import gui
    from pairlab.gui import presentation

    gui._frame(5000, 50, gui.THREE_PANES)
    window, app = gui._KEEP[-1], QtWidgets.QApplication.instance()
    one = frame_timer(window, app)
    for _ in range(5):
        one()
    runs: dict[int, list] = {3: [], 4: []}
    for _ in range(blocks):
        for px in runs:
            presentation.REGION_CELL_PX = px
            one()  # the first frame after a switch computes its grid anew
            runs[px] += [one() for _ in range(frames)]
    width = window.presentation.pane_views[0].canvas.layers.vb.width()
    for px, got in runs.items():
        presentation.REGION_CELL_PX = px
        cells = presentation.region_resolution(width)
        cpu = 1000 * statistics.median(r[0] + r[1] for r in got)
        print(f"{px} px a cell ({cells} cells): frame {cpu:.2f} ms CPU, "
              f"{1000 * statistics.median(r[2] for r in got):.2f} ms wall (median of {len(got)})")
    shots = {}
    for px in runs:
        presentation.REGION_CELL_PX = px
        shots[px] = _pixels(window, app, 7)
    diff = np.abs(shots[3] - shots[4]).max(axis=2)
    print(f"canvas {width:.0f} px wide; window pixels differing {100 * (diff > 0).mean():.1f} %, "
          f"largest difference {diff.max()} of 255")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    with threadpool_limits(1):
        main(*(args + [15, 8][len(args):]))
