"""What an instructor asks of the app beyond the run itself: parameters in the titles, trails of
the means, the metric against iteration, drawing points, and the "predict the next label" game."""

import pytest

pytest.importorskip("pytestqt")

from .support import make_window

pytestmark = pytest.mark.gui


def test_pane_titles_show_the_chosen_parameters(qtbot, registry):
    window = make_window(qtbot, registry, ("kmeans", "dpmeans", "gmm"),
                         params={1: {"lambda_": 2.5}, 2: {"reg_covar": 0.01}})
    window.refresh()
    h0, h1, h2 = (v.header.text() for v in window.presentation.pane_views)
    assert "(k=2)" in h0                        # the class count, nothing at its default
    assert "λ=2.5" in h1 and "k=" not in h1     # k is unused once lambda is given
    assert "k=2, reg covar=0.01" in h2 and "max iter" not in h2
    window.lab.set_pane_params(0, {"n_clusters": 3, "max_iter": 7})
    window.setup_changed()
    assert window.wait_idle(20)
    window.refresh()
    assert "(k=3, max iter=7)" in window.presentation.pane_views[0].header.text()
