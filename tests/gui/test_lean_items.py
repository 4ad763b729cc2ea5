"""The canvas's lean items (issue 32: three panes at 30 frames a second) paint the pixels
pyqtgraph's own items paint: the scatter of points and marks through pyqtgraph's paint, the
covariance ellipses as one ``PlotCurveItem`` per ellipse, after new data, a new view and a
resize."""

import numpy as np
import pyqtgraph as pg
import pytest

pytest.importorskip("pytestqt")
from PySide6 import QtCore, QtWidgets

from pairlab.gui.figure import qimage_to_array
from pairlab.gui.lean_items import EllipseSet, LeanScatter

from .support import make_window

pytestmark = pytest.mark.gui


def _grab(canvas):
    for _ in range(2):  # the axes settle their width in a second pass
        QtCore.QCoreApplication.processEvents()
    return qimage_to_array(QtWidgets.QWidget.grab(canvas).toImage())


def _plain(layers, on: bool) -> list:
    """Draw ``layers`` with pyqtgraph's items (``on``) or the lean ones again."""
    scatters = [v for v in vars(layers).values() if isinstance(v, LeanScatter)]
    for item in scatters:
        item.lean = not on
        item.update()
    curves = []
    layers.ellipses.setVisible(not on)
    if on:
        for path, pen in layers.ellipses._curves:
            poly = path.toSubpathPolygons()[0]
            curve = pg.PlotCurveItem(antialias=True)
            curve.setPen(pen)
            curve.setData(np.array([p.x() for p in poly]), np.array([p.y() for p in poly]))
            curve.setZValue(8)
            layers.vb.addItem(curve, ignoreBounds=True)
            curves.append(curve)
    return curves


def test_lean_items_paint_what_pyqtgraph_paints(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm", "kmeans"), n=400, links=(5, 5))
    for _ in range(3):
        window.step_forward()
        assert window.wait_idle(20)
    window.editing.selected_point = 7  # a selection ring too
    views = window.presentation.pane_views
    for t, zoom, size in ((2, None, None), (3, (-0.5, -0.6, 1.6, 1.1), None),
                          (1, None, (360, 330))):
        for view in views:
            if zoom is not None:
                view.canvas.layers.set_range(zoom)
            if size is not None:
                view.canvas.setFixedSize(*size)
        _grab(window)
        window.seek(t)
        window.refresh()  # regions at the new size
        for k, view in enumerate(views):
            layers = view.canvas.layers
            lean = _grab(view.canvas)
            assert lean.std() > 5 and len(layers.scatter.data) == 400
            assert layers.ellipses.isVisible() == (k == 0)  # GMM draws ellipses, k-means none
            if k == 0:
                assert len(layers.ellipses._curves) >= 4
            added = _plain(layers, True)
            plain = _grab(view.canvas)
            for curve in added:
                layers.vb.removeItem(curve)
            _plain(layers, False)
            np.testing.assert_array_equal(lean, plain)
            np.testing.assert_array_equal(_grab(view.canvas), lean)  # the lean caches again


def test_ellipse_set_matches_plot_curves_and_empties(qtbot):
    widgets = [pg.PlotWidget(background="w") for _ in range(2)]
    t = np.linspace(0, 2 * np.pi, 50)
    curves = [(k * np.cos(t), 0.5 * k * np.sin(t) + 0.1 * k,
               pg.mkPen((0, 114, 178, 150 + 30 * k), width=1 + 0.4 * k, cosmetic=True))
              for k in range(1, 4)]
    one = EllipseSet()
    one.set_curves(curves)
    widgets[0].getPlotItem().getViewBox().addItem(one)
    for x, y, pen in curves:
        widgets[1].addItem(pg.PlotCurveItem(x, y, pen=pen, antialias=True))
    images = []
    for w in widgets:
        qtbot.addWidget(w)
        w.resize(300, 240)
        w.show()
        w.setRange(xRange=(-4, 4), yRange=(-3, 3), padding=0)
        images.append(_grab(w))
    np.testing.assert_array_equal(images[0], images[1])
    assert one.dataBounds(0) == pytest.approx((-3.0, 3.0), abs=0.01)
    one.set_curves([])
    assert one.dataBounds(0) == (None, None) and one.boundingRect().isEmpty()
