"""What a pane's two text lines cost when their text changes: the metrics line (a word-wrapped
rich-text ``QLabel``: ``setText``, the first and a second ``heightForWidth``, a repaint) and the
info line (pyqtgraph's ``TextItem.setText``, against ``setPlainText`` of its text item or of its
document), medians of 280 new texts.

Run: ``python assets/bench/label_text.py``.
"""

import random
import statistics
import time


def main() -> None:
    import pyqtgraph as pg
    from PySide6 import QtCore, QtWidgets

    app = pg.mkQApp()
    box = QtWidgets.QWidget()
    box.resize(480, 100)
    label = QtWidgets.QLabel(box)
    label.setTextFormat(QtCore.Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setGeometry(0, 0, 470, 40)
    box.show()
    plot = pg.PlotWidget()
    plot.resize(480, 400)
    plot.show()
    items = []
    for _ in range(3):
        item = pg.TextItem(anchor=(0, 0), color=(0, 0, 0))
        item.setParentItem(plot.getPlotItem().vb)
        item.setPos(6, 2)
        items.append(item)
    app.processEvents()
    rng = random.Random(0)
    times: dict[str, list[float]] = {}

    def timed(name: str, f, *args: object) -> None:
        c = time.perf_counter()
        f(*args)
        times.setdefault(name, []).append(time.perf_counter() - c)

    def by_item(item: pg.TextItem, text: str) -> None:
        item.textItem.setPlainText(text)
        item.updateTextPos()

    def by_document(item: pg.TextItem, text: str) -> None:
        item.textItem.document().setPlainText(text)
        item.updateTextPos()

    for _ in range(300):
        a, b, c, d = (rng.random() for _ in range(4))
        text = (f"<span style='font-size:9pt'>purity <b>{a:.3f}</b> &nbsp;·&nbsp; ARI "
                f"<b>{b:.3f}</b> &nbsp;·&nbsp; NMI <b>{c:.3f}</b> &nbsp;·&nbsp; links satisfied "
                f"<b>{100 * d:.0f} %</b></span>")
        timed("metrics setText", label.setText, text)
        timed("metrics heightForWidth, first", label.heightForWidth, 470)
        timed("metrics heightForWidth, second", label.heightForWidth, 470)
        timed("metrics repaint", label.repaint)
        info = [f"iteration {rng.randrange(40)}" for _ in range(3)]
        timed("info TextItem.setText", items[0].setText, info[0])
        timed("info textItem.setPlainText", by_item, items[1], info[1])
        timed("info document().setPlainText", by_document, items[2], info[2])
        app.processEvents()
    for name, runs in times.items():
        print(f"{name}: {1000 * statistics.median(runs[20:]):.3f} ms")


if __name__ == "__main__":
    main()
