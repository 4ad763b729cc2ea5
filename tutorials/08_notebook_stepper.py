# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: gmm, gmpr

# %% [markdown]
# # pairlab in a notebook: pictures, rich display and the stepper widget
#
# Everything here runs in JupyterLab, Notebook 7, VS Code or Colab after
# `pip install "pairlab[notebook]"` (matplotlib and anywidget, no Qt). Run it as a script, too:
# the pictures are then written as files and the widget is driven from Python.

# %%
import numpy as np

from pairlab import Run
from pairlab.links import random_pairs
from pairlab.mpl import draw_run, save_figure
from pairlab.notebook import Stepper
from pairlab.registry import get_registry

data = get_registry().dataset("two-moons").make(seed=0, n_samples=200)
links = random_pairs(data.y, 6, 6, np.random.default_rng(0))
links  # noqa: B018 (a notebook shows the pairs as a table)

# %% [markdown]
# A `Run` shows its current state as a picture: the data in class colours (pale where a point is
# undecided), the covariance ellipses, the decision regions, must-links solid, cannot-links dashed
# and violated links crossed in red. `draw_run` returns a matplotlib `Figure` to restyle or save as
# PNG, SVG or PDF.

# %%
gmpr = Run("gmpr", data, links, {"n_components": 2}, seed=0)
gmpr.run()
print(gmpr)
fig = draw_run(gmpr)
save_figure(fig, "gmpr.svg")
fig  # noqa: B018 (the last expression of a cell is shown)

# %% [markdown]
# The stepper puts panes side by side. Buttons step, half-step (E then M) and go back, the slider
# scrubs through every iteration and half-step computed so far, and two charts show the
# objective and the ARI (the data has labels) against iteration. Choose must- or cannot-link and
# click two points to link them (click a linked pair again to unlink; undo takes an edit back);
# the clicked point's explanation appears underneath. The widget drives the desktop app's own
# Qt-free model, so a link edit, its undo and the explanation are the app's. Every button is
# also a method, as below.

# %%
w = Stepper(data, links, ["gmm", "gmpr"],
            params={"gmm": {"n_components": 2}, "gmpr": {"n_components": 2}})
for _ in range(3):
    w.step()
w.half_step()
print(w.status)
print("scrubber:", w.positions)
print("ARI per iteration:", [[round(v, 3) for v in s] for s in w.curves["metric"]["series"]])

# %% [markdown]
# A click on a point sends its index; a click on a second point sends both, as
# `{"event": "link", "i": ..., "j": ...}`. The widget checks the indices, adds the link and the
# panes start again from iteration 0 with it.

# %%
w.link_kind = "cannot"
w.handle({"event": "select", "point": 0})
w.handle({"event": "link", "i": 0, "j": 1})
print(w.status)
print(w.explanation)
w.handle({"event": "link", "i": 0, "j": 0})
print("refused:", w.error)
w  # noqa: B018

# %% [markdown]
# Undo takes the link back; the scrubber goes to any state computed so far.

# %%
w.undo()
w.step()
w.seek(0)
print(w.status)
