# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---
# requires: kmeans

# %% [markdown]
# # Writing your own pairlab plugin
#
# Every algorithm in pairlab — the built-ins included — is a plugin: a class with an
# `initialize()` that returns the first state and a `step(state)` that returns the next one,
# handed to pairlab by a hook function. Here we write one, check it with pairlab's conformance
# test, use it from every driver (stepper, estimator) and finally generate an installable
# package for it. The full guide is `docs/plugins.md`.
#
# Our algorithm: **farthest-first traversal** (Gonzalez 1985), the classic 2-approximation for the
# k-centre problem (minimise the largest distance from a point to its centre). It starts from one
# random point; each step adds the point farthest from all current centres. It is a good
# stepper to watch: one new centre per step, and the covering radius never grows.

# %%
import sys
import tempfile
from pathlib import Path

import numpy as np

import pairlab
from pairlab import Algorithm, Param, Run, State, hookimpl
from pairlab.errors import InvalidInputError
from pairlab.testing import ConformanceError, check_algorithm


class FarthestFirst(Algorithm):
    """Farthest-first traversal for k-centres (Gonzalez 1985)."""

    name = "farthest-first"
    title = "Farthest-first traversal (k-centres)"
    citation = "Gonzalez (1985), Clustering to minimize the maximum intercluster distance"
    uses_constraints = False
    params = (
        Param("n_clusters", int, 3, "number of centres k", low=1),
        Param("max_iter", int, 50, "maximum number of iterations", low=1),
    )

    def _state(self, iteration, centers):
        dist = np.sqrt(((self.X[:, None, :] - self.X[centers][None, :, :]) ** 2).sum(axis=2))
        labels = dist.argmin(axis=1)
        return State(iteration, labels, objective=float(dist.min(axis=1).max()),
                     objective_name="covering radius",
                     model={"centers": self.X[centers]}, extras={"center_index": centers})

    def initialize(self):
        k, n = self.params["n_clusters"], self.dataset.n_samples
        if k > n:
            raise InvalidInputError(f"n_clusters={k} exceeds the number of points ({n}).")
        return self._state(0, np.array([self.rng.integers(n)]))  # randomness only via self.rng

    def step(self, state):
        centers = state.extras["center_index"]
        if len(centers) < self.params["n_clusters"]:
            dist = ((self.X[:, None, :] - self.X[centers][None, :, :]) ** 2).sum(axis=2).min(axis=1)
            centers = np.append(centers, dist.argmax())  # a new array: never modify `state`
        return self._state(state.iteration + 1, centers)

    def converged(self, previous, current):
        return len(current.extras["center_index"]) == self.params["n_clusters"] and (
            len(previous.extras["center_index"]) == len(current.extras["center_index"]))


@hookimpl
def pairlab_algorithms():
    return [FarthestFirst]


# %% [markdown]
# ## Check it against the contract
#
# `pairlab.testing.check_algorithm` runs the class on a small data set with a few links and
# checks valid states, that `step` does not modify its input, that a seed gives the same states
# bit for bit, parameter round-trips and error types. It returns a report or raises an
# `AssertionError` listing what broke.

# %%
report = check_algorithm(FarthestFirst)
print(report)

# %% [markdown]
# What a broken plugin looks like: this variant draws its first centre from numpy's global
# generator instead of `self.rng`, and grows the centre list in place.


# %%
class Sloppy(FarthestFirst):
    name = "sloppy"

    def initialize(self):
        return self._state(0, [int(np.random.randint(self.dataset.n_samples))])  # noqa: NPY002

    def step(self, state):
        centers = state.extras["center_index"]
        dist = ((self.X[:, None, :] - self.X[centers][None, :, :]) ** 2).sum(axis=2).min(axis=1)
        centers.append(int(dist.argmax()))  # modifies the state it was given!
        return self._state(state.iteration + 1, centers)


try:
    check_algorithm(Sloppy)
except ConformanceError as err:
    print(err)

# %% [markdown]
# ## Register it and use it like a built-in
#
# An installed plugin is found through its `pairlab` entry point. In a script we can register
# the hook module by hand; this file is itself a module with the hook function.

# %%
registry = pairlab.get_registry()
registry.register(sys.modules[__name__], name="tutorial_plugin")
print("registered algorithms:", registry.names("algorithms"))

data = registry.dataset("gaussian-blobs").make(seed=1, n_samples=120, n_centers=4)
run = Run("farthest-first", data, params={"n_clusters": 4}, seed=0)
run.run()
print(" iter  centres  covering radius")
for state in run.history:
    print(f"{state.iteration:5d}  {len(state.extras['center_index']):7d}  {state.objective:15.3f}")
assert np.all(np.diff(run.objectives) <= 0), "the covering radius never grows"

# %% [markdown]
# A plugin is drawn like a built-in: the run's last state (its centres are the exemplars).

# %%
from pairlab.mpl import draw_run  # noqa: E402
from pairlab.mpl_figure import PairlabFigure  # noqa: E402 (a Figure that shows itself in a notebook)

fig = PairlabFigure(figsize=(4.5, 3.8), layout="constrained")
draw_run(run, ax=fig.subplots())
print("drawn:", [ax.get_title() for ax in fig.axes])
fig  # noqa: B018

# %% [markdown]
# Farthest-first makes a good seeding for k-means: its centres are spread out. Every driver
# works with the new name — here the scikit-learn style estimator, then k-means from its centres.

# %%
from pairlab.metrics import accuracy  # noqa: E402

est = pairlab.make_estimator("farthest-first", n_clusters=4, random_state=0).fit(data.X)
kmeans = pairlab.make_estimator("kmeans", n_clusters=4, means_init=est.centers_).fit(data.X)
print(f"farthest-first accuracy {accuracy(data.y, est.labels_):.3f}; "
      f"k-means from its centres {accuracy(data.y, kmeans.labels_):.3f}")

# %% [markdown]
# ## Ship it
#
# `pairlab new-plugin NAME` writes an installable package: a `pyproject.toml` declaring the
# entry point, the algorithm module, the hook module (with `PAIRLAB_API_VERSION`), a README and
# tests that use pairlab's pytest fixtures. Replace the generated algorithm with yours, then
# `pip install -e ".[test]"`, `python -m pytest`, and `pairlab list` shows it.

# %%
from pairlab.scaffold import write_plugin  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    root = write_plugin("farthest-first", tmp)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        print(path.relative_to(Path(tmp)))
    pyproject = (root / "pyproject.toml").read_text()
    print(pyproject[pyproject.index("[project.entry-points.pairlab]"):].split("\n\n")[0])
