"""Recipes draw with matplotlib on request, in PNG, SVG and PDF, and hand back the Figures."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pairlab.errors import InvalidInputError
from pairlab.figure_backend import drawing, figures_drawn, record


def test_the_backend_and_formats_are_checked():
    with pytest.raises(InvalidInputError, match="unknown figure backend"):
        with figures_drawn("tikz"):
            pass
    with pytest.raises(InvalidInputError, match="unknown figure format"):
        with figures_drawn("matplotlib", ["png", "eps"]):
            pass
    with pytest.raises(InvalidInputError, match="PDF figures are drawn by matplotlib"):
        with figures_drawn("qt", ["pdf"]):
            pass


def test_figures_are_recorded_only_inside_the_block():
    with figures_drawn("matplotlib", ["PDF", ".svg"]) as d:
        assert drawing() is d and d.formats == ("pdf", "svg") and d.use_matplotlib()
        record("a figure")
    assert d.figures == ["a figure"]
    record("lost")  # outside: nothing keeps it
    assert drawing().figures == [] and drawing().backend == "auto"


NO_QT_RECIPES = """
import sys
class NoQt:  # an install with pairlab[figures] but without the gui extra
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6"):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, NoQt())
from pathlib import Path
from matplotlib.figure import Figure
from pairlab.registry import get_registry
from pairlab.reproduce import reproduce
out = Path(sys.argv[1])
reg = get_registry()
for name in ("fig8", "fig4"):  # panels of states, and curve panels
    recipe = reg.reproduction(name)
    doc = reproduce(recipe, out / name, trials=1, jobs=1, options=recipe.options({"quick": True})
                    if name == "fig4" else None, progress=None, backend="matplotlib",
                    formats=["png", "svg", "pdf"])
    assert doc["files"][-3:] == [f"{name}.png", f"{name}.svg", f"{name}.pdf"], doc["files"]
    (fig,) = doc.figures
    assert isinstance(fig, Figure) and fig.axes
    fig.axes[0].set_title("restyled")  # a researcher restyles and saves again
    fig.savefig(out / name / f"{name}-restyled.pdf")
assert not [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6")]
"""


@pytest.mark.ci
def test_recipes_return_matplotlib_figures_in_three_formats_without_qt(tmp_path):
    out = subprocess.run([sys.executable, "-c", NO_QT_RECIPES, str(tmp_path)], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}
    for name in ("fig8", "fig4"):
        for fmt, head in magic.items():
            assert (tmp_path / name / f"{name}.{fmt}").read_bytes().startswith(head)
    assert (tmp_path / "fig8" / "fig8-restyled.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.ci
def test_the_cli_takes_figures_and_formats(tmp_path, capsys):
    from pairlab.cli import main

    assert main(["reproduce", "fig3", "--trials", "1", "--jobs", "1", "--out", str(tmp_path),
                 "--figures", "matplotlib", "--formats", "pdf"]) == 0
    assert (tmp_path / "fig3.pdf").read_bytes().startswith(b"%PDF")
    assert not (tmp_path / "fig3.png").exists()


NO_QT_SWEEP_PDF = """
import sys
class NoQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6"):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, NoQt())
from pairlab.cli import main
assert main(["sweep", "--algorithm", "gmm", "--dataset", "two-moons", "--generator", "random",
             "--budget", "3", "--trials", "1", "--jobs", "1", "--out", sys.argv[1],
             "--figures", "matplotlib", "--formats", "png,svg,pdf"]) == 0
assert not [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph")]
"""


@pytest.mark.ci
def test_a_sweep_draws_pdf_with_matplotlib_without_qt(tmp_path):
    out = subprocess.run([sys.executable, "-c", NO_QT_SWEEP_PDF, str(tmp_path)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "sweep-purity.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "sweep-purity.png").read_bytes().startswith(b"\x89PNG")
