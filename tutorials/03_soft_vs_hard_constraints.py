# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: gmm, ppc, affinity-propagation, scssap

# %% [markdown]
# # Soft versus hard constraints when some links are wrong
#
# Links come from people, and people make mistakes. A **hard** constraint is obeyed whatever the
# data say, so one wrong link drags points into the wrong cluster and everything fitted around
# them moves too. A **soft** constraint is a preference with a price: the algorithm breaks it
# when the data argue strongly enough against it.
#
# We compare both on the same data with the same links, first all correct, then with a quarter
# of them flipped (a must-link turned into a cannot-link or back), using two families:
#
# * **PPC**, penalized probabilistic clustering (Lu & Leen 2007): a Gaussian mixture whose prior
#   over assignments carries a weight W per link — `weighting="hard"` (W infinite, eq. 2.10),
#   `"uniform"` (one finite W), or `"confidence"` (W = 1/2 log(gamma / (1 - gamma)) from each
#   link's confidence gamma, eq. 2.15).
# * **SCSSAP**, soft-constraint semi-supervised affinity propagation (Arzeno & Vikalo 2015):
#   exemplar-based clustering with a penalty q for each broken link; q = inf enforces the links,
#   a finite q makes them soft.

# %%
import numpy as np

import pairlab
from pairlab import Constraints, Run
from pairlab.metrics import accuracy

registry = pairlab.get_registry()
data = registry.dataset("gaussian-blobs").make(seed=2, n_samples=120, n_centers=3,
                                               cluster_std=1.6, box=4.0)
print(data, "- three overlapping blobs")

# %% [markdown]
# ## Links: non-overlapping pairs, as in the PPC paper's experiments (section 5.1.1)
#
# Pick 50 disjoint pairs of points; a pair in one class becomes a must-link, otherwise a
# cannot-link. Then flip a random quarter of them to make the noisy version.

# %%
rng = np.random.default_rng(1)
pairs = rng.permutation(data.n_samples)[:100].reshape(50, 2)
same = data.y[pairs[:, 0]] == data.y[pairs[:, 1]]
wrong = rng.random(len(pairs)) < 0.25
said = same ^ wrong  # what the (fallible) teacher says

clean = Constraints(pairs[same], pairs[~same], n_samples=data.n_samples)
noisy = Constraints(pairs[said], pairs[~said], n_samples=data.n_samples)
noisy_75 = Constraints(pairs[said], pairs[~said], n_samples=data.n_samples, confidence=0.75)
wrong_in_order = np.r_[wrong[said], wrong[~said]]  # Constraints keeps must-links first
print(f"{clean.n_must_link} must-links and {clean.n_cannot_link} cannot-links; "
      f"{wrong.sum()} of the 50 are flipped in the noisy set")

# %% [markdown]
# ## Run every method on clean and on noisy links
#
# Affinity propagation's `preference` sets how many exemplars it picks; we take a low value (the
# 1st percentile of the similarities) so that it finds about three clusters, like the mixtures.
# The AP baseline uses SCSSAP's damping and exemplar rule, so it is SCSSAP without links.

# %%
S = -((data.X[:, None, :] - data.X[None, :, :]) ** 2).sum(axis=2)
pref = float(np.percentile(S, 1))
methods = [
    ("GMM (no links)", "gmm", {"n_components": 3}, False),
    ("PPC hard", "ppc", {"n_components": 3, "weighting": "hard"}, False),
    ("PPC soft, W = 1.5", "ppc", {"n_components": 3, "weighting": "uniform"}, False),
    ("PPC soft, confidence 0.75", "ppc", {"n_components": 3, "weighting": "confidence"}, True),
    ("AP (no links)", "affinity-propagation",
     {"preference": pref, "damping": 0.75, "exemplar_rule": "paper"}, False),
    ("SCSSAP hard, q = inf", "scssap", {"preference": pref}, False),
    ("SCSSAP soft, q = 3", "scssap", {"preference": pref, "q_ml": 3.0, "q_cl": 3.0}, False),
]

print(f"{'method':28s} {'clean acc':>9s} {'noisy acc':>9s}  wrong links obeyed")
results = {}
for title, name, params, with_confidence in methods:
    acc = []
    for links in (clean, noisy_75 if with_confidence else noisy):
        state = Run(name, data, links, params, seed=0).run()
        acc.append(accuracy(data.y, state.labels))
    ml_ok, cl_ok = noisy.satisfied(state.labels)
    obeyed = np.r_[ml_ok, cl_ok][wrong_in_order]
    results[title] = (acc, obeyed.mean())
    print(f"{title:28s} {acc[0]:9.3f} {acc[1]:9.3f}  {obeyed.sum():2d} of {obeyed.size}")

# %% [markdown]
# The hard and the soft PPC on the noisy links, as pictures: a wrong link the model refused is
# crossed in red.

# %%
from pairlab.mpl import draw_state  # noqa: E402
from pairlab.mpl_figure import PairlabFigure  # noqa: E402 (a Figure that shows itself in a notebook)

fig = PairlabFigure(figsize=(8, 3.6), layout="constrained")
for ax, (title, name, params, _) in zip(fig.subplots(1, 2), methods[1:3], strict=True):
    draw_state(data, noisy, Run(name, data, noisy, params, seed=0).run(), ax=ax, title=title)
print("drawn:", [ax.get_title() for ax in fig.axes])
fig  # noqa: B018

# %% [markdown]
# ## What to read from the table
#
# * With correct links the constrained methods beat their unconstrained baselines.
# * Hard constraints obey **every** wrong link (PPC hard, SCSSAP with q = inf): the wrong links
#   are satisfied whatever the data say, and accuracy drops.
# * Soft constraints break wrong links when the data and the correct links around them argue
#   strongly enough; the weight decides how often. PPC's W = 1.5 multiplies the prior of a
#   satisfied pair by exp(2W) = 20, a strong preference; a confidence of 0.75 means a factor of
#   3. How soft to be trades trust in the teacher against trust in the data.

# %%
for hard, soft in (("PPC hard", "PPC soft, W = 1.5"), ("SCSSAP hard, q = inf", "SCSSAP soft, q = 3")):
    print(f"{hard}: obeys {results[hard][1]:.0%} of the wrong links; "
          f"{soft}: {results[soft][1]:.0%}")

# %% [markdown]
# ## How soft? Sweeping SCSSAP's penalty
#
# The paper plots exp(-q) in [0, 1]: q = 0 is plain affinity propagation, q = inf enforces every
# link. Mean accuracy over 6 draws of 50 links, each used clean and with a quarter flipped.

# %%
print("    q   exp(-q)   clean links   noisy links")
for q in (0.0, 1.0, 3.0, np.inf):
    acc = {"clean": [], "noisy": []}
    for draw in range(6):
        r = np.random.default_rng(100 + draw)
        p = r.permutation(data.n_samples)[:100].reshape(50, 2)
        truth = data.y[p[:, 0]] == data.y[p[:, 1]]
        flip = r.random(50) < 0.25
        for kind, says in (("clean", truth), ("noisy", truth ^ flip)):
            links = Constraints(p[says], p[~says], n_samples=data.n_samples)
            state = Run("scssap", data, links, {"preference": pref, "q_ml": q, "q_cl": q}).run()
            acc[kind].append(accuracy(data.y, state.labels))
    print(f"{q:5.1f}   {np.exp(-q):7.3f}   {np.mean(acc['clean']):11.3f}   {np.mean(acc['noisy']):11.3f}")

# %% [markdown]
# Enforced links pay off when the teacher is right and hurt most when the teacher is wrong; a
# finite penalty gives up part of the gain for robustness. Exemplar-based SCSSAP moves mostly the
# linked points themselves, so its gains are smaller than the mixtures', whose links also move
# the means and covariances that decide every other point.
