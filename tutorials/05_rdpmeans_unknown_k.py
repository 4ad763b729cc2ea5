# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: dpmeans, rdpmeans, gmm

# %% [markdown]
# # RDP-means: clustering when k is unknown
#
# k-means and Gaussian mixtures need the number of clusters up front. **DP-means** (Kulis &
# Jordan 2012), the small-variance limit of a Dirichlet-process mixture, replaces k by a price
# lambda for every cluster it opens; it minimises
#
#     sum_i ||x_i - mu_{z_i}||^2 + lambda * K.
#
# Visiting the points one by one, a point joins its nearest centre unless every centre is
# farther than lambda (in squared distance) — then it opens a new cluster. **RDP-means**
# (Khashabi et al. 2015) is the same limit of TVClust, a model in which may-links and
# may-not-links are noisy observations of the clustering: a point's score for cluster k also
# subtracts xi1 per may-link partner in k and adds xi2 per may-not-link partner there, with xi
# growing pass after pass, so the links count more and more as the clustering settles.

# %%
import numpy as np

import pairlab
from pairlab import Run
from pairlab.links import random_pairs
from pairlab.metrics import nmi

registry = pairlab.get_registry()
data = registry.dataset("gaussian-blobs").make(seed=2, n_samples=150, n_centers=4,
                                               cluster_std=1.0, box=6.0)
print(data, "- four blobs; the algorithms are not told that there are four")

# %% [markdown]
# ## lambda sets the scale, k follows
#
# A small lambda makes clusters cheap; a large one merges everything into one.

# %%
print(" lambda   clusters   NMI     objective")
for lam in (2.0, 5.0, 10.0, 20.0, 40.0, 80.0):
    state = Run("dpmeans", data, None, {"lambda_": lam}, seed=0).run()
    print(f"{lam:7.1f}   {state.n_clusters:8d}   {nmi(data.y, state.labels):.3f}   {state.objective:9.1f}")

# %% [markdown]
# ## Watching a pass
#
# With `trace_every=m` the stepper also reports a state every m point visits, so one can watch
# clusters being opened during the first pass (the GUI animates exactly these states).

# %%
run = Run("dpmeans", data, None, {"lambda_": 20.0, "trace_every": 3}, seed=0)
print(" state  pass  clusters  points just visited")
print(f"{0:6d}  {'-':>4s}  {run.state.n_clusters:8d}  (start: one cluster at the mean)")
for _ in range(8):
    state = run.step()
    print(f"{state.iteration:6d}  {state.extras['pass']:4d}  {state.n_clusters:8d}  "
          f"{np.asarray(state.extras.get('visited', [])).tolist()}")

# %% [markdown]
# ## Choosing lambda from a rough guess of k
#
# Kulis & Jordan's farthest-first heuristic turns a guess k into lambda: start from the data's
# mean, add the point farthest from everything chosen so far k times, and take the last such
# distance. The guess need not be exact — the data decide the final number.

# %%
print(" guess k   lambda   clusters found   NMI")
for k in (2, 3, 4, 6):
    state = Run("dpmeans", data, None, {"k": k}, seed=0).run()
    score = nmi(data.y, state.labels)
    print(f"{k:8d}   {state.extras['lambda']:6.1f}   {state.n_clusters:14d}   {score:.3f}")

# %% [markdown]
# ## Side information: RDP-means
#
# Three overlapping blobs are hard for DP-means: at a lambda that finds three clusters they are
# cut in the wrong places. Links drawn from the truth pull the clustering towards it,
# and the number of clusters still comes out of the data. The weight of the links, xi, starts
# at 0.001 and doubles after every pass (section 5 of the paper).

# %%
hard = registry.dataset("gaussian-blobs").make(seed=0, n_samples=150, n_centers=3,
                                               cluster_std=1.6, box=4.0)
print("links   mean clusters   mean NMI   links satisfied   (5 draws of links each)")
for n_links in (0, 10, 25, 50):
    rows = []
    for draw in range(5):
        links = random_pairs(hard.y, n_links, n_links, np.random.default_rng(draw))
        state = Run("rdpmeans", hard, links, {"lambda_": 40.0}, seed=0).run()
        rows.append((state.n_clusters, nmi(hard.y, state.labels), links.satisfied_fraction(state.labels)))
    k, score, sat = np.mean(rows, axis=0)
    print(f"{2 * n_links:5d}   {k:13.1f}   {score:8.3f}   {sat:15.0%}")
print(f"xi grew to {state.extras['xi']:.3g} by the last pass of the last run")

# %% [markdown]
# The last run (100 links) as a picture.

# %%
from pairlab.mpl import draw_state  # noqa: E402
from pairlab.mpl_figure import PairlabFigure  # noqa: E402 (a Figure that shows itself in a notebook)

fig = PairlabFigure(figsize=(4.5, 3.8), layout="constrained")
draw_state(hard, links, state, ax=fig.subplots(), title=f"RDP-means, {state.n_clusters} clusters")
print("drawn:", [ax.get_title() for ax in fig.axes])
fig  # noqa: B018

# %% [markdown]
# ## Compared with a model that must be told k
#
# A Gaussian mixture with the wrong k has no way to notice; DP-means and RDP-means pay lambda per
# cluster and settle on a number themselves. Their objective never increases from one pass to
# the next (for a fixed xi), like k-means'.

# %%
for k in (2, 3, 6):
    state = Run("gmm", data, None, {"n_components": k}, seed=0).run()
    print(f"GMM told k={k}: NMI {nmi(data.y, state.labels):.3f}")
run = Run("dpmeans", data, None, {"k": 3}, seed=0)
run.run()
print(f"DP-means from the guess k=3: {run.state.n_clusters} clusters, "
      f"NMI {nmi(data.y, run.state.labels):.3f}; objective per pass never increased: "
      f"{bool(np.all(np.diff(run.objectives) <= 1e-9))}")
