"""Figure keys beside the panels, never over the data, and nothing cut at the figure's edge
(issue 30: legends covered curves in scssap-fig3..5 and points in ppc-fig12(d) and fig3(e); the quick
rdp-fig3 ran past its canvas). Both back-ends: matplotlib and the app's Qt canvas."""

import numpy as np
import pytest

from pairlab import Run, get_registry
from pairlab.draw.frames import build_frame
from pairlab.links import random_pairs

matplotlib = pytest.importorskip("matplotlib")
from PIL import Image  # noqa: E402

from pairlab.mpl import draw_frames, save_figure  # noqa: E402
from pairlab.mpl_curves import draw_curves  # noqa: E402

LONG_TITLE = "RDP-means Fig. 3: F-measure with a wrong number of clusters, a title wider than one panel"


def _curve_panels(n_panels=2, n_series=8):
    from pairlab.render import CurvePanel, CurveSeries  # dataclasses; Qt is imported on first use only

    x = np.array([25.0, 50, 75, 100])
    return [CurvePanel(f"set {k}", [CurveSeries(f"SCSSAP exp(-q)={j / 10:g}", x,
                                                0.8 + 0.02 * j + 0.01 * x / 25, colour=j)
                                    for j in range(n_series)],
                       "number of constraints", "modified Rand index", legend=k == 0)
            for k in range(n_panels)]


@pytest.fixture(scope="module")
def frames():
    data = get_registry().dataset("two-moons").make(seed=0, n_samples=160)
    run = Run("gmpr", data, random_pairs(data.y, 4, 4, np.random.default_rng(0)), {"n_components": 2},
              seed=0)
    run.run(max_iter=5)
    return [build_frame(data, run.constraints, s, title=f"({c}) it {i}")
            for i, (c, s) in enumerate(zip("abc", run.history[:3], strict=True))]


def _overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_matplotlib_curve_key_is_beside_every_panel_not_over_its_curves():
    fig = draw_curves(_curve_panels(), title="SCSSAP Fig. 3")
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    (key,) = fig.legends
    box = key.get_window_extent(renderer)
    assert len(key.get_texts()) == 8  # each series once, though two panels draw it
    for ax in fig.axes:
        assert ax.get_legend() is None
        assert not _overlap(box, ax.get_window_extent(renderer))
        for line in ax.lines:  # and so over none of the curves' points
            assert not _overlap(box, line.get_window_extent(renderer))


def test_matplotlib_frame_key_is_beside_the_last_panel(frames):
    fig = draw_frames(frames, legend=True, title="GM-PR")
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    (key,) = fig.legends
    box = key.get_window_extent(renderer)
    assert [t.get_text() for t in key.get_texts()][-4:] == ["must-link", "cannot-link", "violated", "mean"]
    assert all(not _overlap(box, ax.get_window_extent(renderer)) for ax in fig.axes if ax.get_visible())


def _border_is_blank(path, width=2):
    """No ink in the outermost ``width`` pixels: a figure cut at its edge has some there."""
    px = np.asarray(Image.open(path).convert("L"), dtype=int)
    edges = [px[:width], px[-width:], px[:, :width], px[:, -width:]]
    return all(e.min() > 235 for e in edges)


def test_matplotlib_figure_grows_to_its_content(tmp_path):
    fig = draw_curves(_curve_panels(1, 3), title=LONG_TITLE, panel_size=(300, 380),
                      notes="a notes line that is also longer than the single narrow panel is wide, "
                            "on purpose")
    path = save_figure(fig, tmp_path / "f.png")
    tight = fig.get_tightbbox(fig.canvas.get_renderer())
    w, h = fig.get_size_inches()
    assert tight.x0 >= 0 and tight.y0 >= 0 and tight.x1 <= w and tight.y1 <= h
    assert Image.open(path).size == (round(w * 100), round(h * 100))
    assert _border_is_blank(path)


qt = pytest.mark.gui


@qt
def test_qt_curve_key_beside_the_panels_and_nothing_cut(tmp_path):
    pytest.importorskip("PySide6")
    from pairlab.render import render_curves

    wide = tmp_path / "wide.png"
    render_curves(_curve_panels(1, 3), wide, title=LONG_TITLE, panel_size=(300, 380))
    assert _border_is_blank(wide)
    image = np.asarray(Image.open(wide).convert("L"))
    assert image.shape[1] > 300  # grew past the one panel's width to hold the title and the key


@qt
def test_qt_frame_key_is_beside_the_panels(frames, tmp_path):
    pytest.importorskip("PySide6")
    from pairlab.render import FigureRenderer

    with FigureRenderer(len(frames), panel_size=(260, 240), legend=True, title="GM-PR") as fig:
        fig.render(frames, tmp_path / "f.png")
        key = fig.key.sceneBoundingRect()
        assert key.width() > 0 and key.height() > 0
        assert [item[1].text for item in fig.key.items][-4:] == ["must-link", "cannot-link", "violated",
                                                                  "mean"]
        for canvas in fig.layers:
            assert canvas.legend is None
            assert not key.intersects(canvas.vb.sceneBoundingRect())
        assert fig.widget.sceneRect().contains(key)
    assert _border_is_blank(tmp_path / "f.png")


@pytest.mark.ci
def test_ppc_fig12_draws_label_maps_without_a_key(tmp_path):
    """The recipe whose key covered points in panel (d), drawn by matplotlib: its panels are now
    the segmentations as images (one image each, a block of 8x8 pixels per block of the 12x12
    quick grid), with no points and no key left to cover anything."""
    from matplotlib.collections import PathCollection
    from matplotlib.image import AxesImage

    from pairlab.registry import get_registry
    from pairlab.reproduce import reproduce

    recipe = get_registry().reproduction("ppc-fig12")
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options=recipe.options({"quick": True}),
                    progress=None, backend="matplotlib", formats=["png"])
    (fig,) = doc.figures
    assert not fig.legends
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 4
    for ax in panels:
        (image,) = [a for a in ax.get_children() if isinstance(a, AxesImage)]
        assert image.get_array().shape == (12 * 8, 12 * 8, 4)
        assert not any(len(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection))
    assert _border_is_blank(tmp_path / "ppc-fig12.png")
