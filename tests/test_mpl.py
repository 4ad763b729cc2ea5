"""matplotlib figures (pairlab.mpl): the app's conventions, the file formats, bad input, no Qt."""

import sys

import numpy as np
import pytest

from pairlab import Run
from pairlab.constraints import Constraints
from pairlab.draw.frames import build_frame
from pairlab.draw.palette import GREY, OKABE_ITO, level_colours
from pairlab.errors import InvalidInputError, PairlabError
from pairlab.links import random_pairs
from pairlab.mpl import VIOLATION, draw_frame, draw_frames, draw_run, draw_state, save_figure
from pairlab.registry import get_registry

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.collections import LineCollection, PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return get_registry().dataset("two-moons").make(seed=0)


@pytest.fixture(scope="module")
def run(data):
    run = Run("gmpr", data, random_pairs(data.y, 6, 6, np.random.default_rng(0)),
              {"n_components": 2}, seed=0)
    run.run(max_iter=5)
    return run


def _rgba(rgb):
    return np.array([*(c / 255 for c in rgb), 1.0])


def test_draw_run_draws_regions_ellipses_means_and_links(run):
    fig = draw_run(run)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert any(isinstance(im, AxesImage) for im in ax.images)  # decision regions
    k = run.state.model["means"].shape[0]
    assert len(ax.lines) == 2 * k  # 1 and 2 sigma ellipse of every component
    links = [c for c in ax.collections if isinstance(c, LineCollection)]
    styles = sorted(c.get_linestyle()[0][1] is not None for c in links)
    assert styles == [False, True]  # one solid (must-link), one dashed (cannot-link)
    by_len = {len(c.get_segments()) for c in links}
    assert by_len == {run.constraints.n_must_link, run.constraints.n_cannot_link}


def test_violated_links_are_crossed_at_their_midpoints(data):
    state = Run("kmeans", data, None, {"n_clusters": 2}, seed=0).state
    labels = np.asarray(state.labels)
    a, b, d = np.flatnonzero(labels == 0)[:3]
    c = np.flatnonzero(labels == 1)[0]
    # must-link a-c and cannot-link b-d are violated, must-link a-b is not
    links = Constraints([[a, c], [a, b]], [[b, d]], n_samples=data.n_samples)
    ax = Figure().add_subplot()
    draw_frame(build_frame(data, links, state), ax)
    crosses = [k for k in ax.collections if isinstance(k, PathCollection)
               and np.allclose(k.get_facecolor()[0], _rgba(VIOLATION))]
    assert len(crosses) == 1
    v = data.view
    np.testing.assert_allclose(crosses[0].get_offsets(), [(v[a] + v[c]) / 2, (v[b] + v[d]) / 2])


def test_points_take_the_canvas_colours(data, run):
    frame = build_frame(data, run.constraints, run.state)
    ax = Figure().add_subplot()
    draw_frame(frame, ax)
    shown = {tuple(np.round(c, 6)) for coll in ax.collections[: len(np.unique(frame.colour))]
             for c in coll.get_facecolor()}
    expected = {tuple(np.round(_rgba(level_colours(OKABE_ITO[c % len(OKABE_ITO)])[lv]), 6))
                for c, lv in zip(frame.colour, frame.level, strict=True)}
    assert shown == expected
    bare = Figure().add_subplot()
    draw_frame(build_frame(data, None, None), bare)
    assert np.allclose(bare.collections[0].get_facecolor(), _rgba(GREY))


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_each_format_is_written_the_same_twice(tmp_path, run, suffix, magic):
    a, b = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    draw_run(run, a)
    save_figure(draw_run(run), b)
    assert a.read_bytes()[: len(magic)] == magic
    assert a.read_bytes() == b.read_bytes()


def test_panels_side_by_side_share_the_view(data, run):
    frames = [build_frame(data, run.constraints, s, title=f"it {i}") for i, s in enumerate(run.history[:3])]
    fig = draw_frames(frames, ncols=2, title="GM-PR", legend=True, notes="two moons")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 3 and len(fig.axes) == 4
    assert len({ax.get_xlim() for ax in visible}) == 1
    assert len(fig.legends) == 1  # the key is the figure's, right of the panels (test_figure_keys.py)


def test_a_returned_figure_shows_itself_in_a_notebook(run):
    # without pyplot's inline backend a bare Figure has no PNG display; ours does
    assert draw_run(run)._repr_png_().startswith(b"\x89PNG")


def test_draw_on_a_given_axes(data, run):
    fig = Figure()
    ax = fig.add_subplot()
    assert draw_state(data, run.constraints, None, ax=ax, title="data") is fig
    assert ax.get_title() == "data"


def test_bad_input_gets_a_clear_error(tmp_path, run):
    with pytest.raises(InvalidInputError, match="format"):
        draw_run(run, tmp_path / "f.gif")
    with pytest.raises(InvalidInputError, match="folder"):
        draw_run(run, tmp_path / "missing" / "f.png")
    with pytest.raises(InvalidInputError, match="history"):
        draw_run(run, index=len(run.history))
    with pytest.raises(InvalidInputError, match="at least one"):
        draw_frames([])


def test_without_matplotlib_says_what_to_install(monkeypatch, run):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(PairlabError, match=r"pairlab\[figures\]"):
        draw_run(run)


def test_reproduction_figures_draw_without_qt(tmp_path, data, run):
    from pairlab.mpl_curves import draw_curves, draw_panels
    from pairlab.render import CurvePanel, CurveSeries, Panel

    x = np.arange(4.0)
    lines = CurvePanel("purity", [CurveSeries("GM-PR", x, x / 4, x / 5, x / 3, colour=1, dashed=True),
                                  CurveSeries("GMM", x, x / 8, hollow=True)], "links", "purity")
    bars = CurvePanel("bars", [CurveSeries("a", x[:2], np.array([1.0, 2.0]), np.array([0.5, 1.5]),
                                           np.array([1.5, 2.5]))], categories=["p", "q"])
    fig = draw_curves([lines, bars, CurvePanel("empty", message="no trials")], tmp_path / "c.pdf",
                      title="T", notes="n")
    ax0, ax1, ax2 = fig.axes[:3]
    assert [ln.get_linestyle() for ln in ax0.lines] == ["--", "-"]
    assert len(ax0.collections) == 1  # the band of the first series
    assert [t.get_text() for t in ax1.get_xticklabels()] == ["p", "q"] and len(ax1.patches) == 2
    assert ax2.texts[0].get_text() == "no trials"
    assert (tmp_path / "c.pdf").read_bytes().startswith(b"%PDF")
    panels = [Panel(data, run.constraints, None, "data"),
              Panel(data, run.constraints, run.state, "GM-PR", decision_regions=run.algorithm)]
    fig = draw_panels(panels, tmp_path / "p.svg", ncols=2, legend=True, scale=1.5)
    assert len(fig.axes[1].images) == 1 and not fig.axes[0].images


NO_QT_SWEEP = """
import sys
class NoQt:  # an install with matplotlib but without the gui extra
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6"):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, NoQt())
from pairlab.cli import main
assert main(["sweep", "--algorithm", "gmm", "--dataset", "two-moons", "--generator", "random",
             "--budget", "3", "--trials", "1",
             "--jobs", "1", "--out", sys.argv[1]]) == 0
assert not [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph")]
"""


@pytest.mark.ci  # starts Python processes
def test_a_sweep_draws_its_figures_with_matplotlib_without_qt(tmp_path):
    import subprocess

    out = subprocess.run([sys.executable, "-c", NO_QT_SWEEP, str(tmp_path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "sweep-purity.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "sweep-purity.svg").exists() and "not drawn" not in out.stderr
