"""What pyqtgraph's Python ``boundingRect`` of the plot widgets costs a call (Qt asks for it
about 130 times a three-pane frame): an objective plot's axes (with a grid), a canvas's axis,
a view box and a plot item, each called 50 times in a row, medians of 200 rounds.

Run: ``python assets/bench/bounding_rects.py``.
"""

import statistics
import time

import numpy as np


def main() -> None:
    from pairlab.gui.canvas import CanvasWidget, ObjectivePlot
    from pairlab.render import ensure_app

    app = ensure_app()
    plot = ObjectivePlot()
    plot.resize(480, 150)
    plot.show()
    plot.show_values(-500.0 + 400.0 * (1.0 - np.exp(-np.arange(40) / 3.0)), 3, "log-likelihood")
    canvas = CanvasWidget()
    canvas.resize(480, 480)
    canvas.show()
    for _ in range(3):
        app.processEvents()
    pi, ci = plot.getPlotItem(), canvas.getPlotItem()
    for name, item in (("objective left axis", pi.getAxis("left")),
                       ("objective bottom axis", pi.getAxis("bottom")),
                       ("canvas left axis", ci.getAxis("left")), ("objective view box", pi.vb),
                       ("plot item", pi)):
        runs = []
        for _ in range(200):
            c = time.perf_counter()
            for _ in range(50):
                item.boundingRect()
            runs.append((time.perf_counter() - c) / 50)
        print(f"{name}: {1e6 * statistics.median(runs):.1f} us a call")


if __name__ == "__main__":
    main()
