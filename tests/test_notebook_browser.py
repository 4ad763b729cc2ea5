"""The stepper widget in a real browser: JupyterLab headless on 127.0.0.1 (with a token), a notebook
opened in headless chromium, its cell run by a key press; then the widget's DOM is checked (buttons,
scrubber, the panes' PNG decoded by the browser, the two SVG charts, the status) and two clicks on
two points in the picture add a link (the front-end's hit test, the message, Python's edit and the
redraw). Skipped when jupyterlab (a test-time option: ``pip install jupyterlab``) or
/usr/bin/chromium is missing."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SOURCE = """from pairlab.registry import get_registry
from pairlab.links import random_pairs
from pairlab.notebook import Stepper
import numpy as np
data = get_registry().dataset("two-moons").make(seed=0, n_samples=60)
links = random_pairs(data.y, 2, 2, np.random.default_rng(0))
w = Stepper(data, links, ["gmm"], params={"gmm": {"n_components": 2}}, panel_size=(500, 440))
w"""

DOM = """(() => {
  const root = document.querySelector(".pairlab-stepper");
  if (!root) return null;
  const img = root.querySelector("img.pairlab-panes");
  const r = img.getBoundingClientRect();
  return {buttons: [...root.querySelectorAll("button")].map(b => b.textContent),
          slider: !!root.querySelector("input.pairlab-scrubber"),
          natural: [img.naturalWidth, img.naturalHeight], box: [r.left, r.top, r.width, r.height],
          charts: [...root.querySelectorAll("svg.pairlab-chart")]
            .map(s => s.querySelectorAll("polyline").length),
          chartTitles: [...root.querySelectorAll("svg.pairlab-chart text")].map(t => t.textContent),
          text: root.querySelector("pre").textContent};
})()"""


def _needs():
    pytest.importorskip("anywidget")
    pytest.importorskip("matplotlib")
    if shutil.which("jupyter-lab") is None and not _importable("jupyterlab"):
        pytest.skip("jupyterlab is not installed (a test-time option: pip install jupyterlab)")
    from tests.browser_cdp import CHROMIUM

    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is missing (Debian: apt-get install chromium)")


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None




@contextlib.contextmanager
def _lab_page(tmp_path: Path, notebook: str) -> Iterator[tuple[Any, str, str]]:
    """JupyterLab serving ``tmp_path`` and headless chromium showing ``notebook`` in it; yields the
    page, the server's URL and its token. On failure, a screenshot (``failure.png``) next to
    ``lab.log``; both processes are stopped in any case."""
    from tests.browser_cdp import Page, start_chromium, start_lab

    token = secrets.token_hex(16)
    lab = chromium = page = None
    try:
        lab, url = start_lab(tmp_path, token)
        chromium, ws = start_chromium(tmp_path / "profile", f"{url}/lab/tree/{notebook}?token={token}")
        page = Page(ws)
        page.call("Page.enable")
        yield page, url, token
    except BaseException:
        if page is not None:  # what the browser showed, for the failure report
            shot = page.call("Page.captureScreenshot", format="png")
            (tmp_path / "failure.png").write_bytes(base64.b64decode(shot["data"]))
        raise
    finally:
        if page is not None:
            page.close()
        for proc in (chromium, lab):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except Exception:
                    proc.kill()


#: The notebook on screen (JupyterLab keeps other open notebooks in the DOM, hidden).
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
IDLE = (f"!!document.querySelector('{PANEL} .jp-Notebook .jp-Cell') && "
        f"!!document.querySelector('{PANEL} .jp-Notebook-ExecutionIndicator[data-status=\"idle\"]')")


def _run_first_cell(page) -> None:
    """Select the first cell of the notebook on screen, then press Run; JupyterLab may ignore
    clicks for a while after it shows an idle kernel, so click again until the cell's prompt says
    it ran or runs."""
    from tests.browser_cdp import wait_for

    prompt = f"document.querySelector('{PANEL} .jp-Cell .jp-InputPrompt').textContent.trim()"

    def run_cell() -> bool:
        if page.eval(prompt) != "[ ]:":
            return True
        page.click(*page.centre(f"{PANEL} .jp-Cell .jp-InputPrompt"))
        page.click(*page.centre(f'{PANEL} .jp-NotebookPanel-toolbar '
                                '[data-command="notebook:run-cell-and-select-next"]'))
        return wait_for(lambda: page.eval(prompt) != "[ ]:", 5, "the cell to start", every=0.5) \
            if page.eval(prompt) == "[ ]:" else True

    def try_run() -> bool:
        try:
            return run_cell()
        except AssertionError:
            return False

    wait_for(try_run, 120, "the cell run by the Run button", every=0.1)


def test_jupyterlab_renders_the_widget_and_two_clicks_add_a_link(tmp_path):
    _needs()
    nbformat = pytest.importorskip("nbformat")
    from tests.browser_cdp import wait_for

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SOURCE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "widget.ipynb")
    with _lab_page(tmp_path, "widget.ipynb") as (page, _url, _token):
        wait_for(lambda: page.eval(IDLE), 120, "the notebook open with an idle kernel")
        _run_first_cell(page)
        dom = wait_for(lambda: (d := page.eval(DOM)) and d["natural"][0] > 0 and d["text"].strip() and d,
                       180, "the widget rendered (its picture decoded)")
        assert {"|<", "<", "½<", "½>", ">", "play", "undo"} <= set(dom["buttons"]), dom["buttons"]
        assert dom["slider"]
        assert dom["natural"] == [500, 440], dom["natural"]  # the PNG Python drew, decoded
        assert dom["charts"] == [1, 1] and {"log-likelihood", "ARI"} <= set(dom["chartTitles"])
        assert "links: 2 must, 2 cannot" in dom["text"], dom["text"]

        # The step button: Python steps and the front-end shows it
        page.click(*page.centre('.pairlab-stepper button[title="one iteration forward"]'))
        wait_for(lambda: "gmm: iteration 1" in page.eval(DOM)["text"], 60, "a step by the > button")

        # Two clicks on points 3 and 40 where Python drew them: a must-link between them
        from pairlab.links import random_pairs
        from pairlab.notebook import Stepper
        from pairlab.registry import get_registry

        data = get_registry().dataset("two-moons").make(seed=0, n_samples=60)
        links = random_pairs(data.y, 2, 2, np.random.default_rng(0))
        w = Stepper(data, links, ["gmm"], params={"gmm": {"n_components": 2}}, panel_size=(500, 440))
        _, _, _, _, ax, bx, ay, by = w.axes[0]
        left, top, width, height = dom["box"]
        for point in (3, 40):
            px, py = ax * data.view[point, 0] + bx, ay * data.view[point, 1] + by
            page.click(left + px * width / 500, top + py * height / 440)
        text = wait_for(lambda: (t := page.eval(DOM)["text"]) and "links: 3 must" in t and t, 60,
                        "the link added by two clicks")
        assert "gmm, point 3 (" in text  # the first click selected point 3: its explanation
    print(json.dumps(dom))


RUN_SOURCE = """from pairlab import Run
from pairlab.registry import get_registry
data = get_registry().dataset("two-moons").make(seed=0, n_samples=60)
run = Run("kmeans", data, None, {"n_clusters": 2}, seed=0)
run.run(max_iter=3)
run"""

SCRUB = """(() => {
  const root = document.querySelector(".jp-NotebookPanel:not(.lm-mod-hidden) .pairlab-scrubber");
  if (!root) return null;
  const frames = [...root.querySelectorAll("img")];
  const shown = frames.filter(i => !i.parentElement.hidden && i.getBoundingClientRect().height > 0);
  const slider = root.querySelector("input[type=range]");
  return {frames: frames.length, shown: shown.map(i => i.alt),
          decoded: shown.every(i => i.naturalWidth > 0),
          slider: slider ? {disabled: slider.disabled, max: slider.max} : null,
          scripts: root.querySelectorAll("script").length};
})()"""

MOVE_TO_0 = (f"(() => {{ const s = document.querySelector('{PANEL} .pairlab-scrubber "
             "input[type=range]'); s.value = 0; s.dispatchEvent(new Event('input')); })()")


def test_jupyterlab_runs_the_run_scrubber_when_trusted_and_shows_one_picture_when_not(tmp_path):
    """A Run's display in JupyterLab: run in the session (trusted), the slider works; the same
    output saved in a notebook nobody trusted, the sanitizer strips the script and disables the
    slider, and the cursor's picture alone shows (the other frames keep ``hidden``)."""
    _needs()
    nbformat = pytest.importorskip("nbformat")
    from tests.browser_cdp import wait_for

    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    fresh = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(RUN_SOURCE)])
    fresh.metadata["kernelspec"] = kernelspec
    nbformat.write(fresh, tmp_path / "run.ipynb")
    from pairlab import Run
    from pairlab.registry import get_registry

    run = Run("kmeans", get_registry().dataset("two-moons").make(seed=0, n_samples=60), None,
              {"n_clusters": 2}, seed=0)
    run.run(max_iter=3)
    bundle = run._repr_mimebundle_()
    bundle["image/png"] = base64.b64encode(bundle["image/png"]).decode("ascii")
    cell = nbformat.v4.new_code_cell(RUN_SOURCE, execution_count=1, outputs=[
        nbformat.v4.new_output("execute_result", data=bundle, execution_count=1)])
    saved = nbformat.v4.new_notebook(cells=[cell])
    saved.metadata["kernelspec"] = kernelspec
    nbformat.write(saved, tmp_path / "saved.ipynb")  # unsigned: JupyterLab does not trust it
    last = f"iteration {run.history[-1].iteration}"
    n_frames = len(run.history) + len(run.halves)
    with _lab_page(tmp_path, "saved.ipynb") as (page, url, token):
        untrusted = wait_for(lambda: (d := page.eval(SCRUB)) and d["shown"] and d["decoded"] and d, 120,
                             "the saved output rendered")
        assert untrusted == {"frames": n_frames, "shown": [last], "decoded": True,
                             "slider": {"disabled": True, "max": str(n_frames - 1)}, "scripts": 0}

        page.call("Page.navigate", url=f"{url}/lab/tree/run.ipynb?token={token}")
        wait_for(lambda: page.eval(IDLE) and page.eval("document.title").startswith("run.ipynb"), 120,
                 "run.ipynb open with an idle kernel")
        _run_first_cell(page)
        trusted = wait_for(lambda: (d := page.eval(SCRUB)) and d["shown"] and d["decoded"] and d, 180,
                           "the Run's display made in the session")
        assert trusted["frames"] == n_frames and trusted["shown"] == [last]
        assert trusted["slider"] == {"disabled": False, "max": str(n_frames - 1)}  # the script ran
        page.eval(MOVE_TO_0)
        wait_for(lambda: page.eval(SCRUB)["shown"] == ["iteration 0"], 30, "frame 0 after the slider")
