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
from pairlab.gui.lean_items import EllipseSet, LeanLine, LeanScatter, _closed_paths

from .support import make_window

pytestmark = pytest.mark.gui


def _grab(canvas):
    for _ in range(2):  # the axes settle their width in a second pass
        QtCore.QCoreApplication.processEvents()
    return qimage_to_array(QtWidgets.QWidget.grab(canvas).toImage())


def _settled(canvas):
    """The canvas once pending work (a region refresh after a resize) has drawn: two grabs in a
    row that agree."""
    last = _grab(canvas)
    for _ in range(20):
        QtCore.QThread.msleep(30)
        now = _grab(canvas)
        if np.array_equal(now, last):
            return now
        last = now
    raise AssertionError("the canvas kept changing")


def _timers_done(window) -> None:
    """Wait for the window's pending region and layout refits (timers of 150 and 80 ms, longer
    than :func:`_settled`'s wait: under load a refit after the check changed the regions)."""
    p = window.presentation
    for _ in range(200):
        QtCore.QCoreApplication.processEvents()
        if not (p._region_timer.isActive() or p._layout_timer.isActive()):
            return
        QtCore.QThread.msleep(20)
    raise AssertionError("the window kept refitting")


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
            _timers_done(window)
            lean = _settled(view.canvas)
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


def test_ellipse_paths_are_pyqtgraphs(qtbot):
    """The curves' paths, built in one reused polygon, are the paths ``arrayToQPath`` builds
    (element for element), for curves of other lengths in turn, a NaN and a single point."""
    from pyqtgraph import functions as fn

    t = np.linspace(0, 2 * np.pi, 72)
    curves = [(np.cos(t), 0.5 * np.sin(t)), (np.cos(t[:50]) + 1e-9, np.sin(t[:50]) * 3),
              (np.cos(t) * 1e5, np.sin(t) - 7.0), (np.array([1.0, np.nan, 2.0, 0.5]),
                                                   np.array([0.0, 1.0, np.nan, 2.0])),
              (np.array([1.0]), np.array([2.0])), (np.arange(3.0), np.arange(3.0) ** 2),
              (np.arange(3.0), np.array([0.0, np.inf, 1.0])), (t[:50], t[:50] * 2.0)]
    paths = _closed_paths(curves)  # all built before comparing
    def elements(path) -> list:  # exact (QPainterPath's == is fuzzy)
        return [(e.type, e.x, e.y) for e in map(path.elementAt, range(path.elementCount()))]

    for (x, y), path in zip(curves, paths, strict=True):
        np.testing.assert_array_equal(elements(path),
                                      elements(fn.arrayToQPath(x, y, connect="all")))
    assert paths[0].elementCount() == 72 and paths[4].isEmpty()


def test_lean_line_keeps_pyqtgraphs_rectangle_and_pixels(qtbot):
    """A cursor line moved across itself keeps the rectangle and end points pyqtgraph computes
    again, and draws its pixels, after moves, a new range, a resize and a horizontal line."""
    widgets = [pg.PlotWidget(background="w") for _ in range(2)]
    lines = []
    for widget, kind in zip(widgets, (LeanLine, pg.InfiniteLine), strict=True):
        qtbot.addWidget(widget)
        widget.resize(300, 150)
        widget.show()
        widget.getPlotItem().setRange(xRange=(0, 12), yRange=(-5, 5), padding=0.03)
        line = kind(angle=90, pen=pg.mkPen((90, 90, 90), width=1))
        widget.addItem(line, ignoreBounds=True)
        lines.append(line)
    lean, plain = lines

    def check(value: float) -> None:
        for line in lines:
            line.setValue(value)
        images = [_grab(w) for w in widgets]
        np.testing.assert_array_equal(images[0], images[1])
        kept = lean.boundingRect()
        for rect in (pg.InfiniteLine._computeBoundingRect(lean), plain.boundingRect()):
            np.testing.assert_array_equal(kept.getRect(), rect.getRect())  # NaN equal NaN
        np.testing.assert_array_equal(lean._endPoints, plain._endPoints)

    for value in (2, 7.5, 9.5, 0, 11.96):
        check(value)
    kept = lean.boundingRect()
    lean.setValue(4)
    assert lean._boundingRect is kept  # moved across itself: not computed again
    for widget in widgets:
        widget.getPlotItem().setRange(xRange=(0, 30), yRange=(-50, 2), padding=0.03)
    check(17.25)
    for widget in widgets:
        widget.resize(420, 200)
    check(3.5)
    check(np.nan)
    check(5)
    for line in lines:
        line.setAngle(0)
    for value in (-3.0, 1.5, -20):
        check(value)


def test_a_moved_marker_draws_what_a_new_one_draws(qtbot):
    from pairlab.gui.objective_plot import TeachingObjectivePlot

    values = -50.0 + 40.0 * (1.0 - np.exp(-np.arange(12) / 3.0))
    metric = np.linspace(0.2, 0.9, 12)
    plots = [TeachingObjectivePlot() for _ in range(2)]
    for plot in plots:
        qtbot.addWidget(plot)
        plot.resize(360, 150)
        plot.show()
    for index in (2, 7, 9.5):  # the first plot's markers move, the second's are made anew
        plots[0].show_values(values, index, "log-likelihood")
        plots[0].show_metric(np.arange(12.0), metric, "ARI", index)
        fresh = TeachingObjectivePlot()
        qtbot.addWidget(fresh)
        fresh.resize(360, 150)
        fresh.show()
        fresh.show_values(values, index, "log-likelihood")
        fresh.show_metric(np.arange(12.0), metric, "ARI", index)
        assert plots[0].metric_at_cursor() == fresh.metric_at_cursor()
        np.testing.assert_array_equal(plots[0].marker.getData(), fresh.marker.getData())
        np.testing.assert_array_equal(_grab(plots[0]), _grab(fresh))
    plots[0].show_values(np.full(12, np.nan), 3, "")  # no objective: no marker
    assert len(plots[0].marker.data) == 0


def test_cached_links_differ_from_direct_ones_by_pixel_noise_only(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",), n=300, links=(12, 12))
    window.step_forward()
    assert window.wait_idle(20)
    canvas = window.presentation.pane_views[0].canvas
    links = list(canvas.layers.links.values())
    assert all(item.cacheMode() == QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache
               for item in links)
    cached = _grab(canvas)
    for item in links:
        item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.NoCache)
    direct = _grab(canvas)
    diff = np.abs(cached.astype(int) - direct.astype(int))
    assert 0 < (diff > 0).any(axis=-1).sum() < 0.05 * diff[..., 0].size  # links' edges only
    assert diff.max() <= 2


def test_restyled_and_moved_points_draw_what_pyqtgraph_draws(qtbot):
    """The lean scatter keeps its fragments and bounding rectangle between paints: new styles,
    moved points and new sizes must still reach the screen and the rectangle."""
    rng = np.random.default_rng(3)
    pos = rng.normal(size=(80, 2))
    brushes = [pg.mkBrush(c) for c in ((230, 159, 0), (0, 114, 178), (0, 158, 115))]
    views = []
    for lean in (True, False):
        view = pg.PlotWidget(background="w")
        qtbot.addWidget(view)
        view.resize(300, 240)
        view.show()
        item = LeanScatter(pxMode=True, size=8)
        item.lean = lean
        item.setData(pos=pos, brush=brushes[0])
        view.addItem(item)
        view.getPlotItem().setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
        views.append((view, item))

    def same() -> None:
        grabs = [_grab(view) for view, _ in views]
        assert grabs[0].std() > 5
        np.testing.assert_array_equal(grabs[0], grabs[1])
        for _, item in views:  # the kept rectangle is the one pyqtgraph computes now
            assert item.boundingRect() == pg.ScatterPlotItem.boundingRect(item)

    same()
    for k, (_, item) in enumerate(views):  # restyle some points, keep the positions
        item.setBrush([brushes[(i % 3) if i < 30 else 0] for i in range(len(pos))])
        assert k == 0 or item.data["x"].tobytes() == views[0][1].data["x"].tobytes()
    same()
    for _, item in views:
        item.move_points(pos[:, 0] * 0.8, pos[:, 1] + 0.3)
    same()
    for _, item in views:
        item.setSize(12)
    same()


def test_few_points_bounding_rect_is_pyqtgraphs(qtbot):
    """A few points' bounding rectangle (a marker, the means: taken in Python, the pixel
    padding kept per view transform) and pixels equal pyqtgraph's after moves, new sizes, NaN and
    a zoom that leaves some points outside the view."""
    view = pg.PlotWidget(background="w")
    qtbot.addWidget(view)
    view.resize(300, 240)
    view.show()
    item = LeanScatter(pxMode=True, size=9)
    item.setData(pos=[(0.5, -1.0), (2.0, 0.25), (-1.5, 3.0), (0.0, 0.0)])
    view.addItem(item)
    view.getPlotItem().setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    _grab(view)

    def check() -> None:
        rect = item.boundingRect()
        bounds, item.bounds = item.bounds, [None, None]
        try:
            expected = pg.ScatterPlotItem.boundingRect(item)
        finally:
            item.bounds = bounds
        assert rect == expected
        assert rect.width() > 0 and rect.height() > 0
        assert item.boundingRect() == expected  # kept
        lean = _grab(view)  # the few points' device positions, in Python: pyqtgraph's pixels
        item.lean = False
        item.update()
        np.testing.assert_array_equal(lean, _grab(view))
        item.lean = True
        item.update()

    check()
    item.move_points([1.0, -2.0, 3.5, 0.25], [0.5, 0.5, -3.0, 2.0])
    check()
    item.move_points([1.0, np.nan, 3.5, 0.25], [0.5, 0.5, np.nan, 2.0])
    check()
    item.setSize(15)  # a new pixel padding
    check()
    view.getPlotItem().setRange(xRange=(-1, 1), yRange=(-1, 1), padding=0)  # a zoom
    _grab(view)
    check()
    item.setData(x=[np.nan], y=[np.nan])  # no finite point: pyqtgraph's answer
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        item.boundingRect()


def test_marks_set_again_draw_what_setdata_draws(qtbot):
    """``set_points`` (records copied from a drawn mark) draws and bounds what ``setData`` with
    the same style does, for more, fewer and the same number of marks, and after a restyle."""
    rng = np.random.default_rng(5)
    ring = pg.mkPen(20, 20, 20, width=1.5)
    clear = pg.mkBrush(0, 0, 0, 0)
    views = []
    for _ in range(2):
        view = pg.PlotWidget(background="w")
        qtbot.addWidget(view)
        view.resize(300, 240)
        view.show()
        item = LeanScatter(pxMode=True)
        view.addItem(item)
        view.getPlotItem().setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
        views.append((view, item))
    for n, size in ((12, 9.5), (40, 9.5), (3, 9.5), (3, 9.5), (25, 13.0), (7, 13.0)):
        pos = rng.normal(size=(n, 2))
        views[0][1].set_points(pos, symbol="o", size=size, brush=clear, pen=ring)
        views[1][1].setData(pos=pos, symbol="o", size=size, brush=clear, pen=ring)
        grabs = [_grab(view) for view, _ in views]
        assert grabs[0].std() > 1
        np.testing.assert_array_equal(grabs[0], grabs[1])
        assert views[0][1].boundingRect() == views[1][1].boundingRect()
        np.testing.assert_array_equal(views[0][1].getData(), views[1][1].getData())
    views[0][1].setPen(pg.mkPen(200, 0, 0, width=2))  # restyled: set_points must not copy
    views[1][1].setPen(pg.mkPen(200, 0, 0, width=2))
    pos = rng.normal(size=(9, 2))
    views[0][1].set_points(pos, symbol="o", size=13.0, brush=clear, pen=ring)
    views[1][1].setData(pos=pos, symbol="o", size=13.0, brush=clear, pen=ring)
    np.testing.assert_array_equal(_grab(views[0][0]), _grab(views[1][0]))
