"""Guard against the PySide6 6.12.0 + pyqtgraph 0.14.0 crash.

With PySide6 6.12.0, rendering a pyqtgraph ``ScatterPlotItem`` that has many distinct brushes
crashes the interpreter (``none_dealloc`` in shiboken). pairlab's canvas reuses a small table of
brushes, and pyproject pins ``PySide6-Essentials<6.12``; these tests fail when either protection
is lost. The rendering runs in a subprocess so that a crash is reported as a test failure instead
of killing the test run.
"""

import subprocess
import sys
import textwrap

import pytest

PySide6 = pytest.importorskip("PySide6")

pytestmark = pytest.mark.gui


def _version(text):
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def test_installed_pyside6_is_below_6_12():
    assert _version(PySide6.__version__) < (6, 12), (
        f"PySide6 {PySide6.__version__} is installed; 6.12.0 crashes with pyqtgraph 0.14.0 "
        "(many distinct brushes). Keep PySide6-Essentials<6.12 until that is fixed upstream.")


def test_scatter_with_many_distinct_brushes_renders():
    code = textwrap.dedent("""
        import os
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        import numpy as np
        import pyqtgraph as pg
        from PySide6 import QtGui
        app = pg.mkQApp()
        rng = np.random.default_rng(0)
        n = 3000
        brushes = [pg.mkBrush(int(r), int(g), int(b)) for r, g, b in rng.integers(0, 256, (n, 3))]
        widget = pg.PlotWidget()
        widget.resize(400, 300)
        scatter = pg.ScatterPlotItem(pos=rng.normal(size=(n, 2)), brush=brushes, size=6)
        widget.addItem(scatter)
        widget.show()
        for _ in range(3):
            scatter.setBrush([pg.mkBrush(int(c), 0, 0) for c in rng.integers(0, 256, n)])
            app.processEvents()
            image = widget.grab().toImage()
        del scatter, brushes
        widget.close()
        app.processEvents()
        print("rendered", image.width(), image.height())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"rendering crashed (exit {out.returncode}): {out.stderr[-2000:]}"
    assert "rendered 400 300" in out.stdout


def test_canvas_uses_a_small_brush_table():
    from pairlab.draw.palette import N_LEVELS, OKABE_ITO
    from pairlab.render import ensure_app

    ensure_app()
    import numpy as np
    import pyqtgraph as pg

    from pairlab import State, get_registry
    from pairlab.draw.frames import build_frame
    from pairlab.gui.canvas import CanvasLayers

    data = get_registry().dataset("gaussian-blobs").make(seed=0, n_samples=2000, n_centers=5)
    rng = np.random.default_rng(0)
    r = rng.dirichlet(np.ones(5), size=2000)
    state = State(0, r.argmax(axis=1), r)
    widget = pg.PlotWidget()
    layers = CanvasLayers(widget.getPlotItem())
    layers.show(build_frame(data, None, state))
    distinct = {id(b) for b in layers.scatter.data["brush"]}
    assert 5 < len(distinct) <= len(OKABE_ITO) * N_LEVELS + 1
    widget.close()
