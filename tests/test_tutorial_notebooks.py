"""Every tutorial, converted to a notebook by jupytext, runs in a real Jupyter kernel and shows
its matplotlib figures as PNG outputs (the percent-format .py file is the one source; no .ipynb
is committed, so text and code cannot drift apart and no outputs live in the repository)."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")
pytest.importorskip("anywidget")

from tests.notebook_kernel import QT_CHECK, execute, outputs, text  # noqa: E402

TUTORIALS = Path(__file__).resolve().parents[1] / "tutorials"
FILES = sorted(TUTORIALS.glob("[0-9][0-9]_*.py"))


def _png_size(data: str) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(data))).size


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_tutorial_runs_as_a_notebook_with_figures(path, tmp_path, monkeypatch):
    monkeypatch.setenv("PAIRLAB_DISABLE_PLUGINS", "1")  # the built-ins only, as test_tutorials
    nb = jupytext.read(path)
    assert sum(c.cell_type == "markdown" for c in nb.cells) >= 2, f"{path.name}: no text cells"
    nb.cells.append(nbformat.v4.new_code_cell(QT_CHECK))
    execute(nb, tmp_path)
    shown = [o for o in outputs(nb) if o.output_type in ("execute_result", "display_data")]
    pngs = [o["data"]["image/png"] for o in shown if "image/png" in o.get("data", {})]
    assert pngs, f"{path.name} shows no figure in its outputs"
    for png in pngs:
        width, height = _png_size(png)
        assert width >= 200 and height >= 150, (path.name, width, height)
    errors = [o for o in outputs(nb) if o.output_type == "stream" and o.name == "stderr"
              and ("Traceback" in o.text or "Warning" in o.text)]
    assert not errors, errors
    assert "qt modules: []" in text(nb.cells[-1]), f"{path.name} imported Qt in the kernel"
    htmls = [o["data"].get("text/html", "") for o in shown if "data" in o]
    scrubbers = [h for h in htmls if "pairlab-scrubber" in h]
    if path.stem.startswith("01_"):  # the tutorial shows its Run: one frame per stored state
        assert len(scrubbers) == 1 and 'type="range"' in scrubbers[0]
        frames = re.findall(r'<div data-frame="[^"]*"(?: hidden="hidden")?>'
                            r'<img src="data:image/png;base64,([^"]+)"', scrubbers[0])
        states = re.search(r"all (\d+) states", scrubbers[0])
        assert states and len(frames) == int(states.group(1)) >= 5
        assert all(_png_size(f)[0] == 400 for f in frames)
    if "Stepper(" in path.read_text(encoding="utf-8"):  # the widget tutorial shows the widget
        assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in shown)
        assert (tmp_path / "gmpr.svg").read_bytes().startswith(b"<?xml")
