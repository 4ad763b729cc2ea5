"""A Run's rich display with a scrubber: one picture per stored state (iterations and half-steps),
capped, with a slider that works without a kernel."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest

from pairlab import Run
from pairlab.display_scrub import (
    png_size,
    position_label,
    run_positions,
    scrubber,
    scrubber_html,
    shown_positions,
)
from pairlab.errors import InvalidInputError
from pairlab.links import random_pairs
from pairlab.registry import get_registry

pytest.importorskip("matplotlib")
PIL = pytest.importorskip("PIL.Image")

FRAME = re.compile(r'<div data-frame="([^"]*)"( hidden="hidden")?><img src="data:image/png;base64,([^"]+)"')


@pytest.fixture(scope="module")
def data():
    return get_registry().dataset("two-moons").make(seed=0, n_samples=60)


@pytest.fixture(scope="module")
def links(data):
    return random_pairs(data.y, 3, 3, np.random.default_rng(0))


def _frames(html):
    """(label, hidden, png bytes) of every frame in the HTML."""
    return [(lab, bool(hid), base64.b64decode(b64)) for lab, hid, b64 in FRAME.findall(html)]


def _slider(html):
    return re.search(r'<input type="range" min="0" max="(\d+)" value="(\d+)"', html)


def test_one_valid_picture_per_iteration_and_half_step_the_cursors_shown(data, links):
    run = Run("kmeans", data, links, {"n_clusters": 2}, seed=0)
    for _ in range(3):
        run.half_step()
        run.step()  # kmeans has two phases: 4 whole states and 3 halves
    run.half_back()  # the cursor on the half-step before iteration 3
    assert run_positions(run) == [(0, False), (0, True), (1, False), (1, True), (2, False), (2, True),
                                  (3, False)]
    html, png = scrubber(run)
    frames = _frames(html)
    assert [f[0] for f in frames] == [position_label(run, p) for p in run_positions(run)]
    assert frames[1][0] == "½ before iteration 1 (after update centres)"
    assert [f[1] for f in frames] == [True] * 5 + [False, True]  # only the cursor's is visible
    for _, _, data_png in frames:
        image = PIL.open(io.BytesIO(data_png))
        image.load()  # a truncated or corrupt PNG raises here
        assert image.size == png_size(data_png) and image.size[0] == 400
    assert png == frames[5][2]
    assert len({f[2] for f in frames}) == len(frames)  # each state drawn, none repeated
    slider = _slider(html)
    assert slider and slider.groups() == ("6", "5") and "<script>" in html
    assert "all 7 states" in html


def test_frames_are_capped_spread_evenly_and_keep_the_cursor(data, links):
    run = Run("gmm", data, links, {"n_components": 2, "tol": 0}, seed=0)
    run.run(max_iter=12)
    run.seek(5)
    n = len(run_positions(run))
    html = scrubber_html(run, max_frames=4, size=(240, 200))
    frames = _frames(html)
    assert len(frames) == 4 and n > 4
    labels = [f[0] for f in frames]
    assert labels[0] == "iteration 0" and labels[-1] == f"iteration {run.history[-1].iteration}"
    assert "iteration 5" in labels and [f[1] for f in frames].count(False) == 1
    assert dict((f[0], f[1]) for f in frames)["iteration 5"] is False
    assert f"4 of {n} states shown, spread evenly (at most 4)" in html
    assert _slider(html).group(1) == "3"


@pytest.mark.parametrize("n, cap", [(1, 1), (5, 10), (10, 3), (100, 30), (31, 30), (7, 1), (40, 2)])
def test_shown_positions_hold_first_last_and_cursor_within_the_cap(n, cap):
    for cursor in range(n):
        keep = shown_positions(n, cursor, cap)
        assert keep == sorted(set(keep)) and len(keep) <= cap and cursor in keep
        assert all(0 <= k < n for k in keep)
        if n <= cap:
            assert keep == list(range(n))
        elif cap >= 3:
            assert keep[0] == 0 and keep[-1] == n - 1 and len(keep) == cap


def test_bad_cap_is_refused_clearly(data):
    with pytest.raises(InvalidInputError, match="max_frames must be at least 1"):
        shown_positions(5, 0, 0)
    with pytest.raises(InvalidInputError, match="not a PNG"):
        png_size(b"GIF89a" + bytes(30))


def test_a_single_state_shows_its_picture_without_a_slider(data):
    run = Run("kmeans", data, None, {"n_clusters": 2}, seed=0)
    html, png = scrubber(run)
    assert len(_frames(html)) == 1 and _slider(html) is None and "<script>" not in html
    assert png.startswith(b"\x89PNG")


def test_same_seed_same_pictures_and_the_run_bundle_uses_them(data, links):
    def make():
        run = Run("gmpr", data, links, {"n_components": 2}, seed=3)
        run.run(max_iter=3)
        return run

    a, b = make()._repr_mimebundle_(), make()._repr_mimebundle_()
    assert [f[2] for f in _frames(a["text/html"])] == [f[2] for f in _frames(b["text/html"])]
    visible = [f for f in _frames(a["text/html"]) if not f[1]]
    assert len(visible) == 1 and visible[0][2] == a["image/png"]


@pytest.mark.ci
def test_the_slider_works_in_a_browser_without_a_kernel(data, links, tmp_path):
    """The HTML as a static page in headless chromium: moving the slider shows another frame."""
    from pathlib import Path

    from tests import browser_cdp

    if not Path(browser_cdp.CHROMIUM).exists():
        pytest.skip(f"needs {browser_cdp.CHROMIUM} (Debian's chromium package)")
    run = Run("kmeans", data, links, {"n_clusters": 2}, seed=0)
    run.run(max_iter=3)
    page_file = tmp_path / "run.html"
    page_file.write_text(f"<!doctype html><html><body>{scrubber_html(run)}</body></html>",
                         encoding="utf-8")
    proc, ws = browser_cdp.start_chromium(tmp_path / "profile", page_file.as_uri())
    page = browser_cdp.Page(ws)
    try:
        visible = ("Array.from(document.querySelectorAll('[data-frame]'))"
                   ".filter(f => !f.hidden && f.querySelector('img').naturalWidth > 0)"
                   ".map(f => f.dataset.frame)")
        last = position_label(run, run_positions(run)[-1])
        browser_cdp.wait_for(lambda: page.eval(visible) == [last], 60, "the cursor's frame alone")
        assert page.eval("document.querySelector('input[type=range]').disabled") is False
        page.eval("(() => { const s = document.querySelector('input[type=range]'); s.value = 0;"
                  " s.dispatchEvent(new Event('input')); })()")
        browser_cdp.wait_for(lambda: page.eval(visible) == ["iteration 0"], 30, "frame 0 alone")
        assert page.eval("document.querySelector('[data-label]').textContent") == "iteration 0"
    finally:
        page.close()
        proc.terminate()
        proc.wait(timeout=30)
