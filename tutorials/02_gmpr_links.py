# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: gmm, gmpr

# %% [markdown]
# # Must-links and cannot-links in GM-PR: why two links can flip the solution
#
# GM-PR (Yu, Elhabian & Whitaker) is a Gaussian mixture in which the user's relations are part
# of the probability model. A **must-link** says two points share one latent class, so the pair
# enters the likelihood as sum_m alpha_m N(x_i | m) N(x_j | m) (eq. 5); a **cannot-link** says
# they take different classes, sum_{m != m'} alpha_m alpha_m' N(x_i | m) N(x_j | m') /
# (1 - sum_m alpha_m^2) (eq. 6-9). EM on this likelihood is still EM: an E-step computing
# posteriors (now jointly for linked points, eq. 12 and 14) and closed-form means and
# covariances.
#
# The data mimic the paper's Fig. 1 and Fig. 3: two classes whose correct boundary is the
# horizontal x-axis, while a mixture started from means placed left and right (the
# figure's crosses) settles on a left/right split.

# %%
import numpy as np

from pairlab import Constraints, Dataset, Run
from pairlab.metrics import accuracy

rng = np.random.default_rng(2)
n = 25  # points per class: two long horizontal bands, one above the x-axis and one below
top = np.column_stack([rng.normal(0.0, 3.0, n), rng.normal(1.0, 0.3, n)])
bottom = np.column_stack([rng.normal(0.0, 3.0, n), rng.normal(-1.0, 0.3, n)])
data = Dataset(np.vstack([top, bottom]), np.repeat([0, 1], n), name="bands")
X, y = data.X, data.y
means0 = np.array([[-2.0, 0.2], [2.0, -0.2]])  # the starting means, left and right
params = {"n_components": 2, "means_init": means0}
print(data)

# %% [markdown]
# ## Without links: a left/right split
#
# Plain EM from these means is a local search: every iteration improves the likelihood a little
# and the left/right split is a fixed point it cannot leave.

# %%
gmm = Run("gmm", data, None, params)
gmm.run()
print(f"GMM: accuracy {accuracy(y, gmm.state.labels):.2f} after {gmm.n_iter} iterations, "
      f"means {gmm.state.model['means'].round(2).tolist()}")

# %% [markdown]
# ## Four links
#
# Must-link the leftmost and the rightmost point of each band; cannot-link the two leftmost and
# the two rightmost points across the bands.

# %%
tl, tr = int(X[:n, 0].argmin()), int(X[:n, 0].argmax())
bl, br = n + int(X[n:, 0].argmin()), n + int(X[n:, 0].argmax())
must = [[tl, tr], [bl, br]]
cannot = [[tl, bl], [tr, br]]
print(f"must-links {must}, cannot-links {cannot}")
for name, links in (("2 must + 2 cannot", Constraints(must, cannot, n_samples=2 * n)),
                    ("2 must-links only", Constraints(must, None, n_samples=2 * n)),
                    ("2 cannot-links only", Constraints(None, cannot, n_samples=2 * n))):
    run = Run("gmpr", data, links, params)
    run.run()
    print(f"GM-PR with {name:20s} accuracy {accuracy(y, run.state.labels):.2f} "
          f"after {run.n_iter} iterations")

# %% [markdown]
# ## Why: the E-step of a must-linked pair
#
# Under the left/right model the leftmost top point belongs to the left component and the
# rightmost to the right one. Must-linked, they share one label whose posterior is proportional
# to alpha_m N(x_i | m) N(x_j | m) (eq. 12): neither component explains both ends, so the pair
# goes to the one that is least bad for the two *together* — and the next M-step has to stretch
# that component along the band to cover both ends. We compute eq. 12 by hand under the GMM's
# final parameters and compare with GM-PR's first E-step from the same parameters (with only
# the must-links, so that the pair is on its own).

# %%
from scipy.stats import multivariate_normal  # noqa: E402

w, mu, cov = (gmm.state.model[k] for k in ("weights", "means", "covariances"))
dens = np.column_stack([multivariate_normal(mu[m], cov[m]).pdf(X) for m in range(2)])
alone = w * dens[[tl, tr]] / (w * dens[[tl, tr]]).sum(axis=1, keepdims=True)
joint = w * dens[tl] * dens[tr]
joint /= joint.sum()
print("posteriors of the two ends, each alone (GMM):", alone.round(3).tolist())
print("posterior of their shared label (eq. 12):    ", joint.round(3).tolist())

start = {**params, "means_init": mu, "weights_init": w, "covariances_init": cov}
gmpr_ml = Run("gmpr", data, Constraints(must, None, n_samples=2 * n), start)
print("GM-PR's posterior of the pair at the same parameters:",
      gmpr_ml.state.responsibilities[[tl, tr]].round(3).tolist())
assert np.allclose(gmpr_ml.state.responsibilities[[tl, tr]], joint, atol=1e-9)

# %% [markdown]
# ## And a cannot-linked pair
#
# For a cannot-link the posterior is over *pairs* of different labels, proportional to
# alpha_m alpha_m' N(x_i | m) N(x_j | m') for m != m' (eq. 14; the normaliser
# 1 - sum alpha^2 cancels). Each point's marginal is what the state's `responsibilities` hold.
# The cannot-linked ends of the bands are in the *same* left component under the GMM; the link
# forces them apart.

# %%
only_cannot = Constraints(None, cannot, n_samples=2 * n)
pair = np.outer(w * dens[tl], w * dens[bl])  # rows: label of tl, columns: label of bl
np.fill_diagonal(pair, 0.0)
pair /= pair.sum()
print("GMM posteriors of the two left ends:", alone[0].round(3).tolist(),
      (w * dens[bl] / (w * dens[bl]).sum()).round(3).tolist())
print("joint posterior over (label of top-left, label of bottom-left):\n", pair.round(3))
gmpr_cl = Run("gmpr", data, only_cannot, start)
assert np.allclose(gmpr_cl.state.responsibilities[tl], pair.sum(axis=1), atol=1e-9)
assert np.allclose(gmpr_cl.state.responsibilities[bl], pair.sum(axis=0), atol=1e-9)
print("matches GM-PR's marginals:", gmpr_cl.state.responsibilities[[tl, bl]].round(3).tolist())

# %% [markdown]
# ## Following the flip
#
# With all four links, from the GMM's left/right solution, GM-PR's iterations rotate the two
# components: the means move from left/right to top/bottom and the covariances turn into long
# horizontal ellipses. The objective, the observed-data log-likelihood with the pair terms,
# never decreases.

# %%
gmpr = Run("gmpr", data, Constraints(must, cannot, n_samples=2 * n), start)
gmpr.run()
print(" iter   mean of component 0      mean of component 1      log-likelihood   accuracy")
for state in gmpr.history:
    m = state.model["means"]
    print(f"{state.iteration:5d}   ({m[0, 0]:6.2f}, {m[0, 1]:5.2f})         ({m[1, 0]:6.2f}, {m[1, 1]:5.2f})"
          f"         {state.objective:12.3f}   {accuracy(y, state.labels):8.2f}")
assert np.all(np.diff(gmpr.objectives) >= -1e-9)

# %% [markdown]
# The links did not force every point: they changed the *model*. The final Gaussians are long
# horizontal ellipses, so unseen points are classified by the right boundary too (GM-PR is a
# generative model, `predict_proba` works on new data):

# %%
new = np.array([[-5.0, 0.6], [5.0, 0.6], [-5.0, -0.6], [5.0, -0.6]])
print("new points:", new.tolist())
print("classes:   ", gmpr.algorithm.predict_proba(gmpr.state, new).argmax(axis=1).tolist(),
      "(GMM would say", gmm.algorithm.predict_proba(gmm.state, new).argmax(axis=1).tolist(), ")")

# %% [markdown]
# The two models as pictures: GMM without links, GM-PR with them (must-links solid,
# cannot-links dashed, a violated link crossed in red).

# %%
from pairlab.mpl import draw_run  # noqa: E402
from pairlab.mpl_figure import PairlabFigure  # noqa: E402 (a Figure that shows itself in a notebook)

fig = PairlabFigure(figsize=(8, 3.6), layout="constrained")
for ax, r in zip(fig.subplots(1, 2), (gmm, gmpr), strict=True):
    draw_run(r, ax=ax)
print("drawn:", [ax.get_title() for ax in fig.axes])
fig  # noqa: B018

# %% [markdown]
# ## The paper's own toy: `fig3-toy`
#
# pairlab ships the data of GM-PR's Fig. 3 (four round blobs, two per class, wider than tall, so
# the maximum-likelihood split is left/right) with the figure's starting model and links
# (`pairlab reproduce fig3` draws it). The same four experiments:

# %%
from pairlab_builtins.datasets.synthetic import fig3_init, fig3_links  # noqa: E402

import pairlab  # noqa: E402

toy = pairlab.get_registry().dataset("fig3-toy").make(seed=0)
init = fig3_init(toy)  # starting means, covariances and weights of Fig. 3(a)
for title, algorithm, links in (
    ("(b) GMM", "gmm", None),
    ("(c) GM-PR, 2 must + 2 cannot", "gmpr", fig3_links(toy)),
    ("(d) GM-PR, 2 must-links", "gmpr", fig3_links(toy, cannot_link=False)),
    ("(e) GM-PR, 2 cannot-links", "gmpr", fig3_links(toy, must_link=False)),
):
    run = Run(algorithm, toy, links, init)
    run.run()
    print(f"{title:32s} accuracy {accuracy(toy.y, run.state.labels):.2f} after {run.n_iter} iterations")
