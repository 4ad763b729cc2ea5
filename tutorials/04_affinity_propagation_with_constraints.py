# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: affinity-propagation, scssap, scssap-metric

# %% [markdown]
# # Affinity propagation, with and without constraints
#
# Affinity propagation (Frey & Dueck 2007) clusters by choosing **exemplars**: actual data points
# that represent their clusters. Every point i sends every candidate k a *responsibility*
# r(i, k) — how well k would serve as i's exemplar compared with the alternatives — and receives
# an *availability* a(i, k) — how much support k gets from the other points to be an exemplar.
# After enough rounds of messages, the points with a(k, k) + r(k, k) > 0 are exemplars. Nobody
# chooses k: the **preference** s(k, k) (how much each point wants to be an exemplar) does.
#
# SCSSAP (Arzeno & Vikalo 2015) adds one more kind of message per must-link and cannot-link, with
# a penalty q for breaking it, and a variant that also learns a metric from the clusters.

# %%
import numpy as np

import pairlab
from pairlab import Run
from pairlab.links import random_pairs
from pairlab.metrics import accuracy, nmi

registry = pairlab.get_registry()
blobs = registry.dataset("gaussian-blobs").make(seed=2, n_samples=120, n_centers=3,
                                                cluster_std=1.6, box=4.0)
S = -((blobs.X[:, None, :] - blobs.X[None, :, :]) ** 2).sum(axis=2)  # s(i, k) = -|x_i - x_k|^2

# %% [markdown]
# ## The preference decides how many clusters
#
# scikit-learn's default (and pairlab's) is the median similarity. Lower preferences make fewer
# points willing to be exemplars.

# %%
print("preference (percentile of s)   clusters   NMI")
for pct in (50, 10, 2, 0.5):
    pref = float(np.percentile(S, pct))
    state = Run("affinity-propagation", blobs, None, {"preference": pref}).run()
    print(f"{pref:11.1f} ({pct:4.1f}th)             {state.n_clusters:8d}   {nmi(blobs.y, state.labels):.3f}")

# %% [markdown]
# ## Watching the messages settle
#
# Each pairlab state holds `model["exemplars"]`: the exemplar of every point. Early on, many
# points claim to be exemplars; the damped messages then settle on a few.

# %%
pref = float(np.percentile(S, 2))
run = Run("affinity-propagation", blobs, None, {"preference": pref})
run.run()
print(" iter  number of exemplars")
for state in run.history[:: max(1, run.n_iter // 8)]:
    print(f"{state.iteration:5d}  {np.unique(state.model['exemplars']).size:3d}")
exemplars = np.unique(run.state.model["exemplars"])
print(f"converged after {run.n_iter} iterations; the exemplars are the data points {exemplars.tolist()}:",
      blobs.X[exemplars].round(2).tolist())

# %% [markdown]
# ## Adding links: SCSSAP
#
# With q = inf (the default) every link is enforced through its messages; a finite q makes it
# soft (see the tutorial on soft versus hard constraints). With no links SCSSAP is affinity
# propagation again.

# %%
pref = float(np.percentile(S, 1))
base = Run("scssap", blobs, None, {"preference": pref}).run()
print(f"no links: {base.n_clusters} clusters, accuracy {accuracy(blobs.y, base.labels):.3f}")
print("links   mean accuracy   mean NMI   mean clusters   links satisfied (6 draws)")
for n_links in (5, 10, 25):
    rows = []
    for draw in range(6):
        links = random_pairs(blobs.y, n_links, n_links, np.random.default_rng(draw))
        state = Run("scssap", blobs, links, {"preference": pref}).run()
        rows.append((accuracy(blobs.y, state.labels), nmi(blobs.y, state.labels), state.n_clusters,
                     links.satisfied_fraction(state.labels)))
    acc, nmi_, k, sat = np.mean(rows, axis=0)
    print(f"{2 * n_links:5d}   {acc:13.3f}   {nmi_:8.3f}   {k:13.1f}   {sat:15.0%}")

# %% [markdown]
# ## When exemplars are not enough: learning a metric
#
# An exemplar with squared Euclidean distance describes a round cluster. Two interleaved moons
# are not round, so affinity propagation cuts them in the wrong place, and SCSSAP fixes mainly
# the points that carry links. SCSSAP with metric learning (the paper's Algorithm 2) alternates
# SCSSAP with fitting a diagonal metric per cluster, so the links reshape the geometry for every
# point.

# %%
moons = registry.dataset("two-moons").make(seed=0, n_samples=120, noise=0.08)
S_moons = -((moons.X[:, None, :] - moons.X[None, :, :]) ** 2).sum(axis=2)
pref_moons = float(np.percentile(S_moons, 2))
ap = Run("affinity-propagation", moons, None, {"preference": pref_moons}).run()
print(f"affinity propagation: {ap.n_clusters} clusters, NMI {nmi(moons.y, ap.labels):.3f}")
print("links    SCSSAP (k, NMI)    SCSSAP + metric (k, NMI)")
for n_links in (5, 20, 40):
    c = random_pairs(moons.y, n_links, n_links, np.random.default_rng(1))
    plain = Run("scssap", moons, c, {"preference": pref_moons}).run()
    metric = Run("scssap-metric", moons, c, {"preference": pref_moons}).run()
    print(f"{2 * n_links:5d}    {plain.n_clusters:2d}, {nmi(moons.y, plain.labels):.3f}"
          f"          {metric.n_clusters:2d}, {nmi(moons.y, metric.labels):.3f}")

# %% [markdown]
# The last two runs (80 links) as pictures: SCSSAP's exemplars against the learnt metric's.

# %%
from pairlab.mpl import draw_state  # noqa: E402
from pairlab.mpl_figure import PairlabFigure  # noqa: E402 (a Figure that shows itself in a notebook)

fig = PairlabFigure(figsize=(8, 3.6), layout="constrained")
for ax, (title, state) in zip(fig.subplots(1, 2), (("SCSSAP", plain), ("SCSSAP + metric", metric)),
                              strict=True):
    draw_state(moons, c, state, ax=ax, title=title)
print("drawn:", [ax.get_title() for ax in fig.axes])
fig  # noqa: B018
