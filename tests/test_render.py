"""Headless rendering (pairlab.render): the app's canvas written to PNG, SVG and GIF."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("PySide6")
from PIL import Image

from pairlab import Run, get_registry
from pairlab.draw.palette import OKABE_ITO, Style
from pairlab.errors import InvalidInputError
from pairlab.links import random_pairs
from pairlab.render import (
    FigureRenderer,
    Panel,
    qimage_to_array,
    render_frames,
    render_panels,
    render_run,
    render_state,
    save_gif,
)

pytestmark = pytest.mark.gui


@pytest.fixture
def setup():
    data = get_registry().dataset("two-moons").make(seed=0, n_samples=120)
    links = random_pairs(data.y, 3, 3, np.random.default_rng(0))
    run = Run("gmm", data, links, {"n_components": 2}, seed=0)
    run.run()
    return data, links, run


def _pixels(path):
    return np.asarray(Image.open(path).convert("RGB"), dtype=float)


def _near(pixels, rgb, tol=40):
    return (np.abs(pixels - np.array(rgb, float)).sum(axis=2) < tol).mean()


def test_render_state_png_shows_class_colours(setup, tmp_path):
    data, links, run = setup
    path = tmp_path / "s.png"
    image = render_state(data, links, run.state, path, title="GMM", size=(500, 420))
    assert (image.width(), image.height()) == (500, 420)
    px = _pixels(path)
    assert px.std() > 10
    # both class colours appear at full strength (confident points)
    assert _near(px, OKABE_ITO[0]) > 0.001 and _near(px, OKABE_ITO[1]) > 0.001


def test_bare_data_is_grey_and_regions_tint_the_background(setup, tmp_path):
    data, _links, run = setup
    render_state(data, None, None, tmp_path / "b.png")
    bare = _pixels(tmp_path / "b.png")
    assert _near(bare, OKABE_ITO[0]) == 0 and _near(bare, (150, 150, 150)) > 0.001
    render_run(run, tmp_path / "r.png")
    with_regions = _pixels(tmp_path / "r.png")
    render_run(run, tmp_path / "n.png", decision_regions=False)
    without = _pixels(tmp_path / "n.png")
    white = (with_regions.min(axis=2) > 250).mean()
    assert white < (without.min(axis=2) > 250).mean() - 0.3


def test_svg_is_vector_and_parses(setup, tmp_path):
    _data, _links, run = setup
    path = tmp_path / "s.svg"
    render_run(run, path)
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    tags = {el.tag.rsplit("}", 1)[-1] for el in root.iter()}
    assert "path" in tags or "polyline" in tags
    assert len(list(root.iter())) > 100  # points are drawn as shapes, not one bitmap


def test_panels_side_by_side_and_high_resolution(setup, tmp_path):
    data, links, run = setup
    km = Run("kmeans", data, links, {"n_clusters": 2}, seed=0)
    km.run()
    panels = [Panel(data, links, run.state, "GMM", run.algorithm), Panel(data, links, km.state, "k-means")]
    image = render_panels(panels, tmp_path / "p.png", panel_size=(300, 260), title="Two moons",
                          legend=True, scale=2.0)
    assert 1200 < image.width() < 1600  # two panels of 300 px at scale 2, and the key right of them
    arr = qimage_to_array(image)
    left, right = arr[:, :600, :3].astype(float), arr[:, 600:, :3].astype(float)
    # only the GMM panel has decision regions
    assert (left.min(axis=2) > 250).mean() < (right.min(axis=2) > 250).mean() - 0.2


def test_many_dimensions_use_the_pca_view(tmp_path):
    data = get_registry().dataset("gaussian-blobs").make(seed=1, n_samples=90, n_features=4)
    run = Run("gmm", data, None, {"n_components": 3}, seed=0)
    run.run()
    image = render_run(run, tmp_path / "d4.png", style=Style.presentation())
    assert qimage_to_array(image)[..., :3].std() > 10


def test_figure_renderer_and_gif(setup, tmp_path):
    data, links, run = setup
    images = []
    with FigureRenderer(1, panel_size=(240, 200)) as fig:
        for state in run.history[:4]:
            frame = Panel(data, links, state).frame()
            images.append(fig.render([frame]))
        with pytest.raises(InvalidInputError, match="1 panels"):
            fig.render([frame, frame])
    first, last = qimage_to_array(images[0]), qimage_to_array(images[-1])
    assert not np.array_equal(first, last)  # the iterations differ on screen
    gif = tmp_path / "a.gif"
    save_gif(images, gif, fps=5)
    with Image.open(gif) as im:
        assert im.n_frames == 4 and im.info["loop"] == 0


def test_bad_requests_are_explained(setup, tmp_path):
    data, links, run = setup
    with pytest.raises(InvalidInputError, match=r"\.png or \.svg"):
        render_state(data, links, run.state, tmp_path / "x.docx")
    with pytest.raises(InvalidInputError, match="at least one panel"):
        render_panels([])
    with pytest.raises(InvalidInputError, match="at least one panel"):
        render_frames([])


def test_fast_point_styles_draw_what_the_public_api_draws():
    import pyqtgraph as pg

    from pairlab import State
    from pairlab.draw.frames import build_frame
    from pairlab.gui.canvas import CanvasLayers
    from pairlab.render import ensure_app

    app = ensure_app()
    data = get_registry().dataset("gaussian-blobs").make(seed=0, n_samples=600, n_centers=5)
    images = []
    for fast in (True, False):
        widget = pg.PlotWidget(background="w")
        widget.resize(360, 300)
        layers = CanvasLayers(widget.getPlotItem())
        layers.fast_styles = fast
        widget.show()
        for seed in range(3):  # styles change between frames
            r = np.random.default_rng(seed).dirichlet(np.ones(5), size=600)
            layers.show(build_frame(data, None, State(0, r.argmax(axis=1), r)))
            app.processEvents()
        assert layers.fast_styles is fast  # the fast path did not fall back
        images.append(qimage_to_array(widget.grab().toImage()))
        widget.close()
    np.testing.assert_array_equal(images[0], images[1])


def test_figures_are_freed(setup):
    from PySide6 import QtWidgets

    data, links, run = setup
    render_state(data, links, run.state, size=(200, 160))
    before = len(QtWidgets.QApplication.allWidgets())
    for _ in range(5):
        render_state(data, links, run.state, size=(200, 160))
    assert len(QtWidgets.QApplication.allWidgets()) == before


def test_curve_panel_with_categories_draws_grouped_bars(tmp_path):
    from pairlab.draw.palette import OKABE_ITO
    from pairlab.render import CurvePanel, CurveSeries, qimage_to_array, render_curves

    x = np.arange(3.0)
    panel = CurvePanel("bars", [CurveSeries("a", x, np.array([0.5, np.nan, 0.9]), colour=0),
                                CurveSeries("b", x, np.array([0.4, 0.6, 0.8]), x - 0.1, x + 0.1, colour=1)],
                       categories=["(a)", "(b)", "(c)"])
    image = qimage_to_array(render_curves([panel], tmp_path / "bars.png"))
    assert (tmp_path / "bars.png").is_file()
    rgb = image[..., :3].astype(int)
    for colour in OKABE_ITO[:2]:
        share = (np.abs(rgb - np.array(colour)).sum(axis=2) < 30).mean()
        assert share > 0.01  # solid bars in both colours
