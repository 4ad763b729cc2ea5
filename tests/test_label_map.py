"""Label maps (pairlab.draw.label_map): a segmentation drawn as an image, by both back-ends."""

import numpy as np
import pytest

from pairlab.draw.label_map import BLOCK_PIXELS, LabelMapPanel, label_map_image
from pairlab.draw.palette import OKABE_ITO
from pairlab.errors import InvalidInputError

LABELS = np.array([[0, 0, 1], [2, 3, -1]])  # row 0 is the picture's top row


def test_image_has_a_block_of_pixels_per_cell_top_row_last():
    img = label_map_image(LABELS)
    assert img.rgba.shape == (2 * BLOCK_PIXELS, 3 * BLOCK_PIXELS, 4) and img.rgba.dtype == np.uint8
    assert img.rect == (0.0, 0.0, 3.0, 2.0)
    top, bottom = img.rgba[-1], img.rgba[0]  # RegionImage rows run bottom-up
    assert tuple(top[0, :3]) == OKABE_ITO[0] and tuple(top[-1, :3]) == OKABE_ITO[1]
    assert tuple(bottom[0, :3]) == OKABE_ITO[2] and tuple(bottom[-1, :3]) == (150, 150, 150)
    assert (img.rgba[..., 3] == 255).all()


@pytest.mark.parametrize("bad", [np.zeros(4, dtype=int), np.zeros((0, 3), dtype=int),
                                 np.zeros((2, 2))])
def test_bad_label_maps_are_refused(bad):
    with pytest.raises(InvalidInputError, match="label map"):
        label_map_image(bad)


def test_panel_frame_is_an_image_without_points():
    panel = LabelMapPanel(LABELS, "seg", "accuracy 1")
    frame = panel.frame()
    assert frame.n_points == 0 and frame.title == "seg" and frame.info == "accuracy 1"
    assert frame.regions.rect == (0.0, 0.0, 3.0, 2.0)
    assert panel.dataset.view.min(axis=0).tolist() == [0, 0]
    assert panel.dataset.view.max(axis=0).tolist() == [3, 2]


def test_matplotlib_draws_one_image_per_panel():
    pytest.importorskip("matplotlib")
    from matplotlib.image import AxesImage

    from pairlab.mpl_curves import draw_panels

    fig = draw_panels([LabelMapPanel(LABELS, "a"), LabelMapPanel(LABELS[::-1], "b")])
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 2
    for ax in axes:
        (image,) = [a for a in ax.get_children() if isinstance(a, AxesImage)]
        assert image.get_array().shape == (2 * BLOCK_PIXELS, 3 * BLOCK_PIXELS, 4)


def test_qt_canvas_draws_the_cells_in_their_colours(tmp_path):
    pytest.importorskip("PySide6")
    from PIL import Image

    from pairlab.render import render_panels

    big = np.kron(np.array([[0, 1], [2, 3]]), np.ones((4, 4), dtype=int))
    render_panels([LabelMapPanel(big, "quadrants")], tmp_path / "m.png", panel_size=(300, 300))
    px = np.asarray(Image.open(tmp_path / "m.png").convert("RGB")).reshape(-1, 3)
    for rgb in OKABE_ITO[:4]:  # every class colour fills a good part of the picture
        assert (np.abs(px.astype(int) - rgb).sum(axis=1) < 12).mean() > 0.05, rgb
