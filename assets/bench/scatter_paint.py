"""Thread-CPU medians of one ``LeanScatter`` paint (5,000 points into a 400x300 image): with its
styles rewritten before each paint (a frame that restyles points) and unchanged, then the same
with Qt's ``drawPixmapFragments`` replaced by a no-op (the Python part alone).

Run: ``python assets/bench/scatter_paint.py``; to compare with another checkout, run it with
``PYTHONPATH=<that checkout>`` in turn with this one.
"""

import statistics
import time

import numpy as np


def main() -> None:
    import pyqtgraph as pg
    from PySide6 import QtGui

    from pairlab.gui.lean_items import LeanScatter
    from pairlab.render import ensure_app

    app = ensure_app()
    view = pg.PlotWidget()
    view.resize(400, 300)
    view.show()
    item = LeanScatter(pxMode=True)
    item.setData(pos=np.random.default_rng(0).normal(size=(5000, 2)), size=7,
                 brush=pg.mkBrush(200, 0, 0))
    view.addItem(item)
    app.processEvents()
    image = QtGui.QImage(400, 300, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    styles = [item.data["sourceRect"].copy()]
    item.setBrush(pg.mkBrush(0, 0, 200))  # a second style in the atlas
    app.processEvents()
    styles.append(item.data["sourceRect"].copy())

    def paint(restyle: bool, n: int = 300) -> float:
        times = []
        for k in range(n):
            if restyle:  # every point's atlas rectangle changes, as after new labels
                item.data["sourceRect"] = styles[k % 2]
            p = QtGui.QPainter(image)
            p.setTransform(item.deviceTransform(view.viewportTransform()))
            t = time.thread_time()
            item.paint(p, None, view.viewport())
            times.append(time.thread_time() - t)
            p.end()
        return 1000 * statistics.median(times)

    print(f"paint: restyled {paint(True):.3f} ms, unchanged {paint(False):.3f} ms")
    QtGui.QPainter.drawPixmapFragments = lambda *args: None
    print(f"Python part: restyled {paint(True):.3f} ms, unchanged {paint(False):.3f} ms")


if __name__ == "__main__":
    main()
