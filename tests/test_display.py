"""Rich notebook display: Run, estimator, Constraints, reproduction and sweep results."""

import base64
import re
import sys

import numpy as np
import pytest

from pairlab import Run
from pairlab.constraints import Constraints
from pairlab.display import ReproductionDocument, html_table, reproduction_html
from pairlab.estimator import make_estimator
from pairlab.links import random_pairs
from pairlab.registry import get_registry
from pairlab.reproduce import reproduce
from pairlab.sweep.runner import run_sweep
from pairlab.sweep.spec import parse_spec
from tests.test_reproduce_framework import MeanOfGMMs

PNG = b"\x89PNG"


@pytest.fixture(scope="module")
def data():
    return get_registry().dataset("two-moons").make(seed=0, n_samples=80)


@pytest.fixture(scope="module")
def links(data):
    return random_pairs(data.y, 4, 4, np.random.default_rng(0))


def _inline_png(html):
    """The picture shown: the first, or the one frame of a scrubber without ``hidden``."""
    frame = r'<div data-frame="[^"]*">' if "data-frame" in html else ""
    shown = re.findall(frame + r'<img src="data:image/png;base64,([^"]+)"', html)[:1 if not frame else None]
    assert len(shown) == 1
    return base64.b64decode(shown[0])


def test_a_run_shows_its_state_as_a_picture_and_a_summary(data, links):
    run = Run("gmpr", data, links, {"n_components": 2}, seed=0)
    run.run(max_iter=3)
    bundle = run._repr_mimebundle_()
    assert bundle["image/png"].startswith(PNG)
    assert _inline_png(bundle["text/html"]) == bundle["image/png"]
    assert f"{run.state.iteration} of {len(run.history) - 1} computed" in bundle["text/html"]
    assert "4 must, 4 cannot" in bundle["text/html"]
    assert bundle["text/plain"] == repr(run) == "Run('gmpr', 'two-moons', 8 links, iteration 3)"
    run.back()
    assert run._repr_mimebundle_()["image/png"] != bundle["image/png"]  # the cursor's state


def test_without_matplotlib_a_run_shows_text_only(monkeypatch, data, links):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    bundle = Run("kmeans", data, links, {"n_clusters": 2}, seed=0)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"} and "<img" not in bundle["text/html"]


def test_an_estimator_shows_its_parameters_then_its_fit(data, links):
    est = make_estimator("gmpr", n_components=2, random_state=0)
    before = est._repr_mimebundle_()
    assert "not fitted" in before["text/html"] and "n_components" in before["text/html"]
    est.fit(data.X, must_link=links.must_link, cannot_link=links.cannot_link)
    after = est._repr_mimebundle_()
    assert after["image/png"].startswith(PNG) and "n_components" in after["text/html"]
    assert after["text/plain"] == repr(est)


def test_constraints_list_their_pairs_escaped_and_cut_short():
    c = Constraints(np.c_[np.arange(30), np.arange(30) + 30], [[1, 2]], n_samples=60)
    html = c._repr_html_()
    assert "30 must-link, 1 cannot-link" in html
    assert "<td style" in html and "... 20 more rows" in html
    assert "&lt;b&gt;" in html_table([{"a": "<b>"}])


def test_a_reproduction_shows_claims_and_its_figure(tmp_path):
    doc = reproduce(MeanOfGMMs(), tmp_path, trials=2, jobs=1, render=False, progress=None)
    assert isinstance(doc, ReproductionDocument) and doc.folder == tmp_path
    html = doc._repr_html_()
    assert "GMM purity on random blobs" in html and "claims: NOT all held" in html
    assert html.count("<tr>") == 3  # header + two claims
    (tmp_path / "fig.png").write_bytes(PNG + b"data")
    shown = reproduction_html({**doc, "files": ["fig.png", "missing.png"]}, tmp_path)
    assert _inline_png(shown) == PNG + b"data" and shown.count("<img") == 1


def test_a_sweep_result_shows_its_summary(tmp_path):
    spec = {"name": "tiny", "trials": 1, "metrics": ["purity"],
            "algorithms": [{"name": "kmeans", "params": {"n_clusters": 2}}],
            "datasets": [{"name": "two-moons", "params": {"n_samples": 30}}],
            "links": {"generator": "random", "budget": [0, 2]}}
    result = run_sweep(parse_spec(spec), tmp_path, progress=None)
    html = result._repr_html_()
    assert "2 trials in 2 cells" in html and "purity" in html
    assert html.count("<tr>") == 1 + len(result.summary)
