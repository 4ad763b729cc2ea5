# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: gmm

# %% [markdown]
# # EM for a Gaussian mixture, step by step
#
# A Gaussian mixture says each point was drawn by first picking a component k with probability
# alpha_k, then drawing from N(mu_k, Sigma_k). We never see which component; EM (Dempster, Laird &
# Rubin 1977) alternates two steps that each increase the log-likelihood
#
#     L(theta) = sum_i log sum_k alpha_k N(x_i | mu_k, Sigma_k):
#
# * **E-step**: with the parameters fixed, the posterior ("responsibility") of component k for
#   point i is r_ik = alpha_k N(x_i | mu_k, Sigma_k) / sum_j alpha_j N(x_i | mu_j, Sigma_j).
# * **M-step**: with the responsibilities fixed, every parameter has a closed form — weighted
#   proportions, weighted means and weighted covariances.
#
# We write both steps in a few lines of numpy and check, iteration by iteration, that pairlab's
# `gmm` stepper does exactly the same. Run this file with `python`, or open it as a notebook.

# %%
import numpy as np

import pairlab
from pairlab import Run

np.set_printoptions(precision=3, suppress=True)
blobs = pairlab.get_registry().dataset("gaussian-blobs")
data = blobs.make(seed=5, n_samples=150, n_centers=3, cluster_std=1.0, box=5.0)
X = data.X
print(data)

# %% [markdown]
# ## Start: k-means++ means, one covariance per nearest-mean group, equal weights
#
# pairlab's state at iteration 0 holds the starting parameters *and* the E-step under them.

# %%
run = Run("gmm", data, params={"n_components": 3}, seed=0)
s0 = run.state
print("initial weights:", s0.model["weights"])
print("initial means:\n", s0.model["means"])

# %% [markdown]
# ## The E-step by hand
#
# Densities through a Cholesky factor of each covariance (stable for nearly singular ones), and
# normalisation in log space so that tiny densities never underflow to 0/0.


# %%
def log_gaussian(X, mean, cov):
    d = X.shape[1]
    chol = np.linalg.cholesky(cov)
    z = np.linalg.solve(chol, (X - mean).T)  # whitened residuals, (d, n)
    log_det = 2 * np.log(np.diag(chol)).sum()
    return -0.5 * (d * np.log(2 * np.pi) + log_det + (z**2).sum(axis=0))


def e_step(X, weights, means, covs):
    log_p = np.column_stack([np.log(w) + log_gaussian(X, m, c)
                             for w, m, c in zip(weights, means, covs, strict=True)])
    log_norm = np.logaddexp.reduce(log_p, axis=1)  # log sum_k alpha_k N(x_i | k)
    return np.exp(log_p - log_norm[:, None]), log_norm.sum()


resp, loglik = e_step(X, s0.model["weights"], s0.model["means"], s0.model["covariances"])
unsure = np.argsort(resp.max(axis=1))[:4]  # the points the model is least sure about
print(f"responsibilities of points {unsure.tolist()}:\n", resp[unsure])
print(f"log-likelihood by hand {loglik:.6f}, pairlab {s0.objective:.6f}")
assert np.allclose(resp, s0.responsibilities) and np.isclose(loglik, s0.objective)

# %% [markdown]
# ## The M-step by hand
#
# N_k = sum_i r_ik;  alpha_k = N_k / n;  mu_k = sum_i r_ik x_i / N_k;
# Sigma_k = sum_i r_ik (x_i - mu_k)(x_i - mu_k)^T / N_k (+ a tiny `reg_covar` on the diagonal,
# so a component that collapses onto one point stays invertible).


# %%
def m_step(X, resp, reg_covar=1e-6):
    nk = resp.sum(axis=0)
    means = resp.T @ X / nk[:, None]
    covs = []
    for k in range(resp.shape[1]):
        diff = X - means[k]
        covs.append((resp[:, k, None] * diff).T @ diff / nk[k] + reg_covar * np.eye(X.shape[1]))
    return nk / len(X), means, np.array(covs)


weights, means, covs = m_step(X, s0.responsibilities)
s1 = run.step()  # pairlab: one M-step, then the E-step under the new parameters
print("weights after one M-step, by hand:", weights, " pairlab:", s1.model["weights"])
assert np.allclose(means, s1.model["means"], atol=1e-10) and np.allclose(covs, s1.model["covariances"])

# %% [markdown]
# ## Iterate: the log-likelihood never decreases
#
# Each EM iteration maximises a lower bound that touches L at the current parameters, so
# L(theta_{t+1}) >= L(theta_t). We keep both implementations side by side until pairlab reports
# convergence (the mean log-likelihood per point moved by less than `tol`, 1e-3 by default).

# %%
w, m, c = s0.model["weights"], s0.model["means"], s0.model["covariances"]
resp, ll = e_step(X, w, m, c)
run.seek(0)  # back to iteration 0: pairlab keeps the whole history
print(" iter   log-likelihood (by hand)        pairlab     increase")
previous = None
while True:
    state = run.state
    gain = "" if previous is None else f"{ll - previous:+.2e}"
    print(f"{state.iteration:5d}   {ll:22.6f}   {state.objective:12.6f}   {gain}")
    assert np.isclose(ll, state.objective, rtol=1e-9)
    assert previous is None or ll >= previous - 1e-9
    if run.converged:
        break
    previous = ll
    run.step()  # replays the stored iteration 1, then computes new ones
    resp, ll = e_step(X, *m_step(X, resp))
print(f"converged after {run.n_iter} iterations")

# %% [markdown]
# ## What we found
#
# The mixture's components against the true blobs, and the posterior of an unseen point — a
# generative model classifies new points (`predict_proba`), which a partition alone cannot.

# %%
from pairlab.metrics import accuracy, nmi  # noqa: E402

final = run.state
print("weights:", final.model["weights"])
print("means:\n", final.model["means"])
print(f"accuracy {accuracy(data.y, final.labels):.3f}, NMI {nmi(data.y, final.labels):.3f}")
new_point = X.mean(axis=0, keepdims=True)
print("posterior of the data's centroid:", run.algorithm.predict_proba(final, new_point)[0])

# %% [markdown]
# The first and the last state as pictures (matplotlib: `pip install "pairlab[figures]"`): each
# point in its cluster's colour, the covariance ellipses and the decision regions. In a notebook
# a `Figure` left as the last expression of a cell is shown; as a script nothing is drawn.

# %%
from pairlab.mpl import draw_run  # noqa: E402
from pairlab.mpl_figure import PairlabFigure  # noqa: E402 (a Figure that shows itself in a notebook)

fig = PairlabFigure(figsize=(8, 3.6), layout="constrained")
first, last = fig.subplots(1, 2)
draw_run(run, ax=first, index=0, title="iteration 0")
draw_run(run, ax=last, title=f"iteration {run.state.iteration}")
print("drawn:", [ax.get_title() for ax in fig.axes])
fig  # noqa: B018

# %% [markdown]
# A `Run` left as the last expression of a cell shows itself: a summary and every stored state
# as a picture with a slider (moved in the browser: no kernel needed, so it still works in a
# saved notebook or its HTML export). At most 20 pictures, spread evenly over the states.

# %%
run  # noqa: B018

# %% [markdown]
# The same thing in one line, scikit-learn style:

# %%
est = pairlab.make_estimator("gmm", n_components=3, random_state=0)
labels = est.fit_predict(X)
print("estimator labels equal the stepper's:", bool(np.array_equal(labels, final.labels)),
      f"({est.n_iter_} iterations)")
