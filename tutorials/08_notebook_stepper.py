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
# The stepper puts panes side by side. Buttons step, half-step (E then M) and go back; choose
# must- or cannot-link and click two points to link them (click a linked pair again to unlink);
# the clicked point's explanation appears under the objective curve. Every button is also a
# method, as below.

# %%
w = Stepper(data, links, ["gmm", "gmpr"],
            params={"gmm": {"n_components": 2}, "gmpr": {"n_components": 2}})
for _ in range(3):
    w.step()
w.half_step()
print(w.status)
w.toggle_link(0, 1, "cannot")
w.select(0)
print(w.explanation)
w  # noqa: B018
