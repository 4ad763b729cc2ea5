"""The metric-against-iteration curve of the app's objective plot (pairlab.gui.lab_objective,
no Qt): equal to the metric of each stored state, computed once per state."""

import numpy as np
from sklearn.metrics import adjusted_rand_score

from pairlab.gui.lab_objective import MetricCurves
from pairlab.gui.model import Lab


def _lab():
    lab = Lab()
    lab.set_dataset("two-moons", {"n_samples": 60}, seed=0)
    pane = lab.add_pane("kmeans")
    lab.add_random_links(3, 3)
    lab.attach(pane, lab.build_run(pane))
    return lab, pane


def test_metric_curve_matches_each_state_and_is_incremental():
    lab, pane = _lab()
    calls = []
    metrics = lab.metrics
    lab.metrics = lambda p, t=None, **kw: calls.append(t) or metrics(p, t, **kw)
    curves = MetricCurves()
    for _ in range(3):
        pane.run.step()
    xs, ys = curves.curve(lab, pane, "ari")
    truth = [adjusted_rand_score(lab.dataset.y, s.labels) for s in pane.run.history]
    np.testing.assert_array_equal(xs, np.arange(4))
    np.testing.assert_allclose(ys, truth, atol=1e-12)
    assert calls == [0, 1, 2, 3]
    pane.run.step()
    curves.curve(lab, pane, "ari")
    assert calls[4:] == [4]  # only the new iteration
    curves.curve(lab, pane, "nmi")
    assert calls[5:] == [0, 1, 2, 3, 4]  # another metric: every iteration again


def test_metric_curve_is_empty_when_the_metric_does_not_apply():
    lab, pane = _lab()
    lab.clear_links()
    lab.attach(pane, lab.build_run(pane))
    xs, ys = MetricCurves().curve(lab, pane, "constraints-satisfied")
    assert xs.size == ys.size == 0
