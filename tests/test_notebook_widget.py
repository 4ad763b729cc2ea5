"""The notebook stepper (pairlab.notebook): stepped, clicked and explained in a real Jupyter kernel."""

import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("anywidget")

CELLS = [
    """import sys, numpy as np
from pairlab.registry import get_registry
from pairlab.links import random_pairs
from pairlab.notebook import Stepper
data = get_registry().dataset("two-moons").make(seed=0, n_samples=80)
links = random_pairs(data.y, 2, 2, np.random.default_rng(0))
w = Stepper(data, links, ["gmm", "gmpr"], params={"gmm": {"n_components": 2}, "gmpr": {"n_components": 2}})
w""",
    """w.step(); w.step(); w.half_step()
print(w.status)""",
    """fig = w._figure; ax = fig.axes[1]; height = fig.get_size_inches()[1] * fig.dpi
def pixel(i):
    x, y = ax.transData.transform(data.view[i])
    return x, height - y
w._on_message(w, {"event": "click", "x": pixel(3)[0], "y": pixel(3)[1]}, [])
w._on_message(w, {"event": "click", "x": pixel(40)[0], "y": pixel(40)[1]}, [])
print("links", len(w.constraints), [3, 40] in w.constraints.must_link.tolist())
print(w.explanation.splitlines()[0])
w._on_message(w, {"event": "back"}, [])
print("qt", [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6")])""",
]


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            kernel_manager_class=_this_python_kernel()).execute()
    return nb


def _this_python_kernel():
    from jupyter_client.manager import KernelManager

    class ThisPython(KernelManager):
        """The kernel runs on this venv's interpreter (whatever kernelspec is installed)."""

        def format_kernel_cmd(self, extra_arguments=None):
            return [sys.executable, "-m", "ipykernel_launcher", "-f", self.connection_file]

    return ThisPython


def _text(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_the_widget_shows_as_an_anywidget_view(executed):
    data = executed.cells[0].outputs[0]["data"]
    assert "application/vnd.jupyter.widget-view+json" in data


def test_stepping_clicking_two_points_links_them_and_explains(executed):
    assert "gmm: iteration 3 (half)   gmpr: iteration 3 (half)" in _text(executed.cells[1])
    out = _text(executed.cells[2])
    assert "links 5 True" in out
    assert out.splitlines()[1].startswith("gmm, point 40")
    assert "qt []" in out


def test_the_notebook_tutorial_runs_in_a_kernel_with_pictures_in_its_outputs(tmp_path):
    jupytext = pytest.importorskip("jupytext")
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tutorials" / "08_notebook_stepper.py"
    nb = jupytext.read(path)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, timeout=120, kernel_manager_class=_this_python_kernel(),
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = [set(o.get("data", {})) for c in nb.cells if c.cell_type == "code" for o in c.outputs
             if o.output_type == "execute_result"]
    assert any("text/html" in s for s in shown[:1])  # the links' table
    assert sum("image/png" in s for s in shown) >= 1  # the run's figure
    assert "application/vnd.jupyter.widget-view+json" in shown[-1]
    assert (tmp_path / "gmpr.svg").read_bytes().startswith(b"<?xml")
