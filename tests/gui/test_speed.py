"""Issue 32's speed work: cached frames and regions draw what an uncached draw does, Play skips
late frames but never computation and keeps the event loop turning, and exports carry the
trails and the metric curve the window shows. Timings are in ``pairlab bench --only gui``."""

import numpy as np
import pytest

pytest.importorskip("pytestqt")
from PySide6 import QtCore, QtWidgets

from pairlab.draw.regions import decision_regions
from pairlab.gui.figure import FigureRenderer, qimage_to_array
from pairlab.gui.figure_extras import CURVE_HEIGHT
from pairlab.gui.lab_views import DIGEST_MAX_BYTES, GRIDS_KEPT, model_digest
from pairlab.gui.presentation import REGION_CELLS, region_resolution
from pairlab.state import State

from .support import make_window

pytestmark = pytest.mark.gui


def _canvas_pixels(window, pane=0):
    QtCore.QCoreApplication.processEvents()
    canvas = window.presentation.pane_views[pane].canvas
    return qimage_to_array(QtWidgets.QWidget.grab(canvas).toImage())  # .grab: the drag hook


def _forget_caches(window):
    """Drop every cache a frame may be drawn from: the lab's frames, grids and region images,
    and what each canvas item was last given."""
    for pane in window.lab.panes:
        pane.cache.clear()
    for view in window.presentation.pane_views:
        layers = view.canvas.layers
        layers._drawn, layers._shown_regions, layers._shown_links = {}, None, {}
        view.frame = None


def test_cached_path_draws_the_same_pixels_as_an_uncached_draw(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm", "kmeans"), n=120, links=(3, 3))
    for _ in range(3):
        window.step_forward()
        assert window.wait_idle(20)
    window.seek(2)
    first = [_canvas_pixels(window, k) for k in range(2)]
    window.seek(3)
    window.seek(2)  # from the caches: frames, regions, and setData skipped for unchanged items
    cached = [_canvas_pixels(window, k) for k in range(2)]
    _forget_caches(window)
    window.refresh()  # everything computed and sent to pyqtgraph again
    fresh = [_canvas_pixels(window, k) for k in range(2)]
    for a, b, c in zip(first, cached, fresh, strict=True):
        assert a.std() > 5  # a drawing, not a blank canvas
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_regions_from_a_shared_grid_equal_regions_computed_alone(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm",), n=120, links=(2, 2))
    window.transport.half_step()  # GMM's M-step half: the model iteration 1 keeps (its E-step)
    assert window.wait_idle(20)
    window.transport.half_step()
    assert window.wait_idle(20)
    lab, pane = window.lab, window.lab.panes[0]
    half = pane.run.halves[0]
    assert model_digest(half) == model_digest(pane.run.history[1])
    assert model_digest(half) != model_digest(pane.run.history[0])
    for t, use_half in ((1, True), (0, False), (1, False)):
        frame = lab.frame(pane, t, half=use_half, regions_resolution=48)
        state = half if use_half else pane.run.history[t]
        alone = decision_regions(pane.run.algorithm, state, lab.dataset, view_map=lab.view_map,
                                 bounds=lab.bounds, resolution=48,
                                 match_truth=lab.match_colours and lab.has_truth)
        np.testing.assert_array_equal(frame.regions.rgba, alone.rgba)
        assert frame.regions.rect == alone.rect
    grids = [k for k in pane.cache if k[0] == "grid" and k[3] == 48]
    assert len(grids) == 2  # iteration 1 and the half-step before it share one grid
    for t in range(2):  # other grids: no more than GRIDS_KEPT stay (0.6 MB each at 140 cells)
        for res in (40, 56, 64):
            lab.frame(pane, t, regions_resolution=res)
    assert len([k for k in pane.cache if k[0] == "grid"]) == GRIDS_KEPT
    assert len([k for k in pane.cache if k[0] == "regions"]) >= 6  # the images all stay


def test_model_digest_tells_models_apart_and_skips_big_ones():
    labels = np.zeros(4, dtype=int)
    a = State(0, labels, model={"means": np.eye(2), "k": 2})
    b = State(1, labels + 1, model={"means": np.eye(2), "k": 2})  # other labels, same model
    c = State(1, labels, model={"means": 2 * np.eye(2), "k": 2})
    d = State(1, labels, model={"means": np.eye(2).astype(np.float32), "k": 2})
    assert model_digest(a) == model_digest(b)
    assert model_digest(a) != model_digest(c) and model_digest(a) != model_digest(d)
    big = State(0, labels, model={"kernel": np.zeros(DIGEST_MAX_BYTES // 8 + 1)})
    assert model_digest(big) is None
    assert model_digest(State(0, labels, model={"f": [1, 2]})) is None


def test_region_resolution_follows_the_canvas_width():
    lo, hi = REGION_CELLS
    assert region_resolution(0) == hi  # not laid out yet: the most cells
    assert region_resolution(300) == 72 and region_resolution(302) == 72  # a few px: same grid
    assert region_resolution(60) == lo and region_resolution(5000) == hi
    assert region_resolution(300) % 8 == 0


def test_play_advances_and_the_event_loop_keeps_turning(qtbot, registry):
    window = make_window(qtbot, registry, ("gmm", "gmm", "kmeans"), n=300, links=(3, 3),
                         params={0: {"tol": 0.0, "max_iter": 12}, 1: {"tol": 0.0, "max_iter": 12}})
    window.run_to_end()
    assert window.wait_idle(60)
    lab, transport = window.lab, window.transport
    window.reset()
    transport.speed.setValue(30)
    turns = []
    beat = QtCore.QTimer()
    beat.timeout.connect(lambda: turns.append(lab.iteration))
    beat.start(5)
    window.play()
    qtbot.waitUntil(lambda: not transport.playing, timeout=30000)
    beat.stop()
    assert lab.iteration == lab.max_index == 12
    assert transport.play_stats["iterations"] == 12
    assert 1 <= transport.play_stats["frames"] <= 12
    assert len(set(turns)) > 1  # other events ran while Play was on, at several iterations
    assert "Finished" in window.status.currentMessage()


def test_a_late_tick_skips_stored_frames_but_never_computation(qtbot, registry):
    window = make_window(qtbot, registry, ("test-shrink",), params={0: {"stop": 8}})
    lab, transport = window.lab, window.transport
    for _ in range(4):
        window.step_forward()
        assert window.wait_idle(20)
    window.reset()
    transport.speed.setValue(10)  # 100 ms a tick
    window.play()
    transport.timer.stop()  # ticks by hand from here
    interval = transport.timer.interval()
    transport._due = transport._clock.elapsed() - 2.5 * interval  # three ticks owed
    transport._tick()
    assert lab.iteration == 3 and not window.executor.busy  # replayed, 1 and 2 skipped
    transport._due = transport._clock.elapsed() - 5 * interval  # owed more than is stored
    transport._tick()
    assert window.wait_idle(20)
    assert lab.iteration == 4  # stored: one step, drawn
    transport._due = transport._clock.elapsed() - 5 * interval
    transport._tick()
    assert window.wait_idle(20)
    assert lab.iteration == 5  # not stored: computed, one iteration only
    window.pause()


class _Clock:
    """A stand-in for the transport's QElapsedTimer: milliseconds set by the test."""

    now = 0.0

    def start(self) -> None:
        self.now = 0.0

    def elapsed(self) -> int:
        return int(self.now)


def test_play_ticks_on_the_exact_schedule_of_its_speed(qtbot, registry, monkeypatch):
    window = make_window(qtbot, registry, ("gmm",), params={0: {"n_components": 2}})
    transport = window.transport
    clock = _Clock()
    monkeypatch.setattr(transport, "_clock", clock)
    transport.speed.setValue(30)
    window.play()
    transport.timer.stop()  # ticks by hand from here
    waits = [transport._next_interval()]
    for _ in range(29):  # each tick on time: the timer set for the next iteration due
        clock.now += waits[-1]
        assert transport._steps_due() == 1
        waits.append(transport._next_interval())
    # 30 iterations in one second: 33 or 34 ms apart (a fixed 33 ms played 30.3 a second)
    assert set(waits) <= {33, 34} and abs(sum(waits) - 1000) <= 1
    assert transport._due == pytest.approx(30 * 1000 / 30)
    window.pause()


def test_export_carries_the_trails_and_the_metric_curve_when_shown(qtbot, registry, tmp_path):
    window = make_window(qtbot, registry, ("gmm",), n=120, links=(2, 2))
    for _ in range(3):
        window.step_forward()
        assert window.wait_idle(20)
    pres = window.presentation
    pres.act_trails.setChecked(True)
    pres.toggle_view()
    extras = pres.pane_extras(window.lab.panes[0])
    view = pres.pane_views[0]
    np.testing.assert_allclose(extras.trails.segments, view.trails.segments)
    np.testing.assert_allclose(extras.metric_y, view.objective.metric_curve.getData()[1])
    with FigureRenderer(1, panel_size=(400, 360), curves=True) as fig:
        image = fig.render([window.lab.frame(window.lab.panes[0])], extras=[extras])
        assert fig.trails[0].shown == len(extras.trails) > 0
        np.testing.assert_allclose(fig.curve_panels[0].metric_curve.getData()[1], extras.metric_y)
        np.testing.assert_allclose(fig.curve_panels[0].curve.getData()[1], extras.objective_y)
        assert image.height() >= 360 + CURVE_HEIGHT
    with_all = qimage_to_array(window.export_view(tmp_path / "all.png"))
    assert (tmp_path / "all.png").exists()
    pres.act_trails.setChecked(False)
    pres.toggle_view()
    pres.set_curve_metric("")
    assert pres.pane_extras(window.lab.panes[0]).trails is None
    without = qimage_to_array(window.export_view(tmp_path / "bare.png"))
    assert with_all.shape == without.shape  # the objective plot is there either way
    assert not np.array_equal(with_all, without)  # the trails and the ARI curve are not
    svg = tmp_path / "all.svg"
    pres.act_trails.setChecked(True)
    pres.toggle_view()
    pres.set_curve_metric("ari")
    window.export_view(svg)
    assert "iteration" in svg.read_text()
