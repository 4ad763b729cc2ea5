"""Points drawn on the app's canvas (pairlab.gui.lab_points and Lab.add_point; no Qt)."""

import numpy as np
import pytest

from pairlab import Dataset
from pairlab.errors import InvalidInputError
from pairlab.gui.lab_points import check_drawn, with_points
from pairlab.gui.model import Lab


def test_drawn_points_come_after_the_data_with_their_class():
    data = Dataset(np.arange(8.0).reshape(4, 2), np.array([0, 0, 1, 1]))
    out = with_points(data, check_drawn([[9.0, 9.5, 1], [-1.0, 0.0, 2]]))
    np.testing.assert_array_equal(out.X[:4], data.X)
    np.testing.assert_array_equal(out.X[4:], [[9.0, 9.5], [-1.0, 0.0]])
    np.testing.assert_array_equal(out.y, [0, 0, 1, 1, 1, 2])
    np.testing.assert_array_equal(out.view, out.X)
    assert with_points(data, check_drawn(None)) is data


@pytest.mark.parametrize("rows, message", [
    ([[1.0, 2.0]], "finite [x, y, class] rows"),
    ([[1.0, np.nan, 0]], "finite [x, y, class] rows"),
    ([[1.0, 2.0, -1]], "whole number >= 0"),
    ([[1.0, 2.0, 0.5]], "whole number >= 0"),
])
def test_bad_drawn_rows_are_refused(rows, message):
    with pytest.raises(InvalidInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        check_drawn(rows)


def test_lab_draws_points_on_2d_data_only_and_undoes_them():
    lab = Lab()
    lab.set_dataset("two-moons", {"n_samples": 40}, seed=0)
    lab.add_pane("kmeans")
    lab.add_link("must", 0, 1)
    assert lab.add_point(0.1, 0.2, 1) == 40 and lab.dataset.n_samples == 41
    assert lab.base.n_samples == 41 and lab.base.must_link.tolist() == [[0, 1]]
    with pytest.raises(InvalidInputError, match="class must be 0..2"):
        lab.add_point(0.0, 0.0, 3)
    assert lab.dataset.n_samples == 41 and len(lab.drawn) == 1  # the refused edit left no trace
    assert lab.undo() == "setup" and lab.dataset.n_samples == 40 and len(lab.drawn) == 0
    assert lab.base.must_link.tolist() == [[0, 1]]
    lab.set_dataset("iris", seed=0)
    with pytest.raises(InvalidInputError, match="2-D data only"):
        lab.add_point(0.0, 0.0, 0)
