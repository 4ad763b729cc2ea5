"""Hook specifications: what a pairlab plugin can provide.

A plugin is a module (or any object) with functions named after these hooks, each marked with
:data:`hookimpl`, registered through the ``pairlab`` entry point group::

    # pyproject.toml of your distribution
    [project.entry-points.pairlab]
    my_plugin = "my_package.plugin"

pairlab's own algorithms, data sets, metrics and reproductions are registered exactly this way.
Every hook takes no arguments and returns a list; pairlab calls each plugin's implementation
separately, so one that raises or returns something malformed is reported and skipped while the
others keep working.

A plugin module may declare ``PAIRLAB_API_VERSION = 1``; a plugin built for another major
version of this API is reported as incompatible and not loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .algorithm import Algorithm
    from .dataset import DatasetSpec
    from .metrics import Metric
    from .query import QueryStrategy
    from .reproduction import Reproduction

__all__ = ["PLUGIN_API_VERSION", "hookimpl", "hookspec"]

#: The version of the plugin API described here. Bumped when a hook or contract changes.
PLUGIN_API_VERSION = 1

hookspec = pluggy.HookspecMarker("pairlab")
hookimpl = pluggy.HookimplMarker("pairlab")


@hookspec
def pairlab_algorithms() -> list[type[Algorithm]]:
    """Return algorithm classes (subclasses of :class:`pairlab.Algorithm`) this plugin provides.

    Called once when the registry loads plugins. Each class needs a unique lower-case ``name``;
    a name another plugin already registered is reported as a clash and the later one is ignored.

    Example::

        from pairlab import Algorithm, Param, State, hookimpl

        class Nearest(Algorithm):
            name = "nearest"
            title = "Assign every point to point 0's label"
            params = (Param("max_iter", int, 1, "number of steps", low=1),)

            def initialize(self):
                return State(0, np.zeros(self.dataset.n_samples, dtype=int))

            def step(self, state):
                return State(state.iteration + 1, state.labels)

        @hookimpl
        def pairlab_algorithms():
            return [Nearest]
    """


@hookspec
def pairlab_datasets() -> list[DatasetSpec]:
    """Return :class:`pairlab.DatasetSpec` objects: named data sets with declared parameters.

    Called once when the registry loads plugins. ``DatasetSpec.load(params, rng)`` receives the
    validated parameters and a ``numpy.random.Generator`` and returns a :class:`pairlab.Dataset`.

    Example::

        from pairlab import Dataset, DatasetSpec, Param, hookimpl

        def _line(params, rng):
            x = rng.normal(size=(params["n_samples"], 2))
            return Dataset(x, (x[:, 0] > 0).astype(int), name="line")

        @hookimpl
        def pairlab_datasets():
            return [DatasetSpec("line", "Two half-planes", _line,
                                (Param("n_samples", int, 100, "points", low=2),))]
    """


@hookspec
def pairlab_reproductions() -> list[Reproduction]:
    """Return :class:`pairlab.reproduction.Reproduction` objects: recipes for a paper's figure.

    Called once when the registry loads plugins; ``pairlab reproduce NAME`` runs one. A recipe
    runs trials (``trial`` or a sweep ``grid``), combines them (``summarize``), checks the paper's
    claims (``claims``) and draws the figure (``render``). Its options are declared ``Param`` objects
    (``params``; ``DATA_DIR`` and ``QUICK`` from :mod:`pairlab.reproduction` are shared ones),
    validated by ``options(given)``; the command line builds them from ``--data-dir``, ``--quick``
    and ``--set KEY=VALUE``, and ``pairlab reproduce NAME --help`` lists them.

    Example::

        from pairlab import Param, hookimpl
        from pairlab.reproduction import DATA_DIR, Reproduction

        class MyFigure(Reproduction):
            name = "my-fig1"
            title = "Figure 1 of my paper"
            params = (DATA_DIR, Param("rate", float, 0.05, "share of pairs linked", low=0.0))
            ...

        @hookimpl
        def pairlab_reproductions():
            return [MyFigure()]
    """


@hookspec
def pairlab_metrics() -> list[Metric]:
    """Return :class:`pairlab.metrics.Metric` objects: named clustering quality measures.

    Called once when the registry loads plugins. A metric's ``func(y_true, labels)`` returns a
    float; metrics that also need the constraints set ``needs_constraints=True`` and take
    ``func(y_true, labels, constraints)``.

    Example::

        from pairlab import hookimpl
        from pairlab.metrics import Metric

        def _n_clusters(y_true, labels):
            return float(len(set(labels)))

        @hookimpl
        def pairlab_metrics():
            return [Metric("n-clusters", "Number of clusters", _n_clusters, needs_truth=False)]
    """


@hookspec
def pairlab_query_strategies() -> list[type[QueryStrategy]]:
    """Return query strategy classes (subclasses of :class:`pairlab.query.QueryStrategy`).

    Called once when the registry loads plugins. A strategy is built for one data set, a number of
    clusters, validated ``params`` and a random generator; ``propose(links, state, batch)`` returns
    the next pairs to ask an oracle about (an int array (batch, 2)) given the links so far and,
    when ``uses_model`` is True, the fitted :class:`pairlab.State`; ``tell(pair, must_link)``
    receives each answer. :func:`pairlab.active.active_learn` drives them.

    Example::

        import numpy as np
        from pairlab import hookimpl
        from pairlab.query import QueryStrategy

        class FirstPair(QueryStrategy):
            name = "first-pair"
            title = "Always ask about points 0 and 1"

            def propose(self, links, state=None, batch=1):
                return np.array([[0, 1]] * batch)

        @hookimpl
        def pairlab_query_strategies():
            return [FirstPair]
    """
