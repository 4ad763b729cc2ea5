# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: gmm, gmpr

# %% [markdown]
# # Choosing the number of components by BIC, with and without links
#
# Every Gaussian-family estimator (gmm, gmpr, gmpr-mixture, constrained-em, ppc, em-pc,
# tvclust-variational) has scikit-learn's `score_samples`, `score`, `bic`, `aic` and `sample`.
# BIC = -2 log L + p log n, with L the density of the fitted mixture at the points and p its free
# parameters (means, weights, covariance entries of the `covariance_type`). The links shape the
# fitted parameters; the likelihood in BIC is the mixture's, for points taken without links (see
# `pairlab.likelihood` for why), so with and without links the numbers are on one scale and equal
# scikit-learn's `GaussianMixture` when there are no links.

# %%
import warnings

import numpy as np

import pairlab
from pairlab import make_estimator
from pairlab.links import random_pairs_count

registry = pairlab.get_registry()
data = registry.dataset("gaussian-blobs").make(seed=3, n_samples=150, n_centers=3,
                                               cluster_std=1.0, box=8.0)
X, y = data.X, data.y
links = random_pairs_count(y, 40, np.random.default_rng(0))
print(data, f"- {len(links.must_link)} must-links, {len(links.cannot_link)} cannot-links")

# %% [markdown]
# ## The BIC curve
#
# One fit per number of components from 2 (cannot-links need two classes at least); the lowest
# BIC wins. gmm ignores the links, gmpr uses them.

# %%
print(" k    BIC gmm    BIC gmpr+links   parameters")
best = {}
for k in range(2, 7):
    row = []
    for name, kwargs in (("gmm", {}), ("gmpr", {"must_link": links.must_link,
                                                "cannot_link": links.cannot_link})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # k < 3 cannot honour every cannot-link
            est = make_estimator(name, n_components=k, random_state=0).fit(X, **kwargs)
        row.append(est.bic(X))
        best.setdefault(name, []).append(est.bic(X))
    print(f"{k:2d}  {row[0]:9.1f}  {row[1]:13.1f}   {est.n_parameters():5d}")
for name, curve in best.items():
    print(f"{name}: BIC chooses k = {int(np.argmin(curve)) + 2} (the data has 3 blobs)")

# %% [markdown]
# The BIC curves as a picture.

# %%
from pairlab.mpl_figure import PairlabFigure  # noqa: E402 (a Figure that shows itself in a notebook)

fig = PairlabFigure(figsize=(4.5, 3.2), layout="constrained")
ax = fig.subplots()
for name, curve in best.items():
    ax.plot(range(2, 7), curve, marker="o", label=name)
ax.set(xlabel="number of components k", ylabel="BIC (lower is better)")
ax.legend()
print("drawn:", [line.get_label() for line in ax.get_lines()])
fig  # noqa: B018

# %% [markdown]
# ## Covariance types count parameters differently
#
# A tied or spherical model has fewer free parameters, so BIC may prefer it on round blobs.

# %%
for covariance_type in ("full", "tied", "diag", "spherical"):
    est = make_estimator("gmm", n_components=3, covariance_type=covariance_type,
                         random_state=0).fit(X)
    print(f"{covariance_type:9s}  parameters {est.n_parameters():3d}   BIC {est.bic(X):8.1f}   "
          f"AIC {est.aic(X):8.1f}")

# %% [markdown]
# ## Sampling from the chosen model
#
# `sample(n)` draws points and their components; the same `random_state` gives the same draws.

# %%
est = make_estimator("gmpr", n_components=3, random_state=0).fit(
    X, must_link=links.must_link, cannot_link=links.cannot_link)
Xs, components = est.sample(300)
print("drawn per component:", np.bincount(components).tolist(),
      " mean log-density of the draws:", round(est.score(Xs), 3))

# %% [markdown]
# On this draw two of the blobs touch: without links the 2-component fit explains them well
# enough for BIC, while the cannot-links between them make gmpr's 2-component fit poor and its
# 3-component fit the best. To choose parameters by held-out links instead (CVCP), cut the links
# with the folds: `pairlab.model_selection.link_rows` and `LinkScorer` with scikit-learn's
# `GridSearchCV` (docs/model_selection.md).
