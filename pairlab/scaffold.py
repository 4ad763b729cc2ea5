"""``pairlab new-plugin NAME``: write a ready-to-install algorithm plugin package.

The package has a ``pyproject.toml`` declaring the ``pairlab`` entry point, a working algorithm
(k-means that keeps must-linked points together, which passes :func:`pairlab.testing.check_algorithm`),
a README and tests that use pairlab's pytest fixtures::

    pairlab new-plugin my-algo            # writes ./pairlab-my-algo/
    pip install ./pairlab-my-algo
    pairlab run my-algo --dataset two-moons --must-link 10
"""

from __future__ import annotations

import argparse
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .errors import InvalidInputError
from .hookspecs import PLUGIN_API_VERSION

__all__ = ["PluginNames", "add_arguments", "plugin_names", "run", "write_plugin"]

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class PluginNames:
    """The names derived from ``NAME``: algorithm, distribution, module, class, entry point."""

    algorithm: str
    distribution: str
    module: str
    cls: str
    entry_point: str


def plugin_names(name: str) -> PluginNames:
    """Derive every name from the algorithm's command-line name (``my-algo``)."""
    name = name.strip().lower().replace("_", "-")
    if name.startswith("pairlab-"):
        name = name[len("pairlab-"):]
    if not _NAME.match(name):
        raise InvalidInputError(
            f"plugin name {name!r} must be lower-case letters and digits separated by hyphens, "
            "starting with a letter (e.g. 'my-algo')."
        )
    dist = f"pairlab-{name}"
    module = dist.replace("-", "_")
    cls = "".join(part.capitalize() for part in name.split("-"))
    return PluginNames(name, dist, module, cls, name.replace("-", "_"))


def _files(n: PluginNames) -> dict[str, str]:
    pairlab_floor = ".".join(__version__.split(".")[:2])
    files = {
        "pyproject.toml": f'''
            [build-system]
            requires = ["setuptools>=64"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{n.distribution}"
            version = "0.1.0"
            description = "The {n.algorithm} clustering algorithm as a pairlab plugin"
            readme = "README.md"
            requires-python = ">=3.11"
            dependencies = ["pairlab>={pairlab_floor}", "numpy>=1.26"]

            [project.optional-dependencies]
            test = ["pytest>=8"]

            # pairlab discovers plugins through this entry point group; the value names the module
            # holding the hook implementations.
            [project.entry-points.pairlab]
            {n.entry_point} = "{n.module}.plugin"

            [tool.setuptools.packages.find]
            where = ["src"]

            [tool.pytest.ini_options]
            testpaths = ["tests"]
            ''',
        f"src/{n.module}/__init__.py": f'''
            """The {n.algorithm} algorithm for pairlab."""

            from .algorithm import {n.cls}

            __version__ = "0.1.0"
            __all__ = ["{n.cls}", "__version__"]
            ''',
        f"src/{n.module}/plugin.py": f'''
            """Hook implementations: the module the `pairlab` entry point names."""

            from pairlab import hookimpl

            from .algorithm import {n.cls}

            #: The pairlab plugin API this plugin was written for (pairlab.PLUGIN_API_VERSION).
            #: pairlab reports a plugin built for another version instead of loading it.
            PAIRLAB_API_VERSION = {PLUGIN_API_VERSION}


            @hookimpl
            def pairlab_algorithms():
                return [{n.cls}]
            ''',
        f"src/{n.module}/algorithm.py": f'''
            """The {n.algorithm} algorithm: k-means that keeps must-linked points together.

            Replace the maths with yours; keep the contract (see pairlab's docs/plugins.md):
            ``initialize()`` returns the state at iteration 0, ``step(state)`` a new state one
            iteration later without modifying ``state``, and every random number comes from
            ``self.rng``.
            """

            from __future__ import annotations

            import numpy as np
            from pairlab import Algorithm, Param, State
            from pairlab.centroids import cluster_means
            from pairlab.errors import InvalidInputError


            class {n.cls}(Algorithm):
                """k-means over chunklets (groups of points joined by must-links).

                Centres start at k distinct random data points. A step moves each centre to the
                mean of its points, then gives every chunklet the centre nearest to the chunklet's
                mean, which is the centre minimising the chunklet's total squared distance
                (sum ||x - c||^2 = sum ||x - m||^2 + size * ||m - c||^2). Cannot-links are not
                used: a starting point to extend.
                """

                name = "{n.algorithm}"
                title = "{n.cls} (chunklet k-means)"
                citation = ""
                params = (
                    Param("n_clusters", int, 2, "number of clusters", low=1),
                    Param("max_iter", int, 100, "maximum number of iterations", low=1),
                )

                def _state(self, iteration: int, centers: np.ndarray) -> State:
                    chunk = self.constraints.chunklet_index  # (n,) chunklet of every point
                    n_chunklets = int(chunk.max()) + 1
                    means = cluster_means(self.X, chunk, np.zeros((n_chunklets, self.X.shape[1])))
                    d2 = ((means[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
                    labels = d2.argmin(axis=1)[chunk]
                    inertia = float(((self.X - centers[labels]) ** 2).sum())
                    return State(iteration, labels, objective=inertia, objective_name="inertia",
                                 model={{"centers": centers, "means": centers}})

                def initialize(self) -> State:
                    k, n = self.params["n_clusters"], self.dataset.n_samples
                    if k > n:
                        raise InvalidInputError(
                            f"n_clusters={{k}} exceeds the number of points ({{n}}); lower n_clusters.")
                    return self._state(0, self.X[self.rng.choice(n, size=k, replace=False)].copy())

                def step(self, state: State) -> State:
                    centers = cluster_means(self.X, state.labels, state.model["centers"])
                    return self._state(state.iteration + 1, centers)

                def converged(self, previous: State, current: State) -> bool:
                    return bool(np.array_equal(previous.labels, current.labels))
            ''',
        f"tests/test_{n.module}.py": f'''
            """Tests: run with `pip install -e . pytest && python -m pytest`."""

            import numpy as np
            from pairlab import Run
            from pairlab.testing import make_check_constraints, make_check_dataset

            from {n.module} import {n.cls}


            def test_conforms_to_the_pairlab_contract(pairlab_check_algorithm):
                pairlab_check_algorithm({n.cls})
                pairlab_check_algorithm({n.cls}, params={{"n_clusters": 3}})


            def test_must_linked_points_share_a_cluster():
                data = make_check_dataset(60)
                links = make_check_constraints(data, n_must_link=10, n_cannot_link=0)
                run = Run({n.cls}, data, links, {{"n_clusters": 3}}, seed=1)
                state = run.run()
                must, _ = links.satisfied(state.labels)
                assert must.all() and run.converged


            def test_inertia_never_increases_without_links():
                data = make_check_dataset(60)
                run = Run({n.cls}, data, None, {{"n_clusters": 3}}, seed=2)
                run.run()
                assert np.all(np.diff(run.objectives) <= 1e-9)


            def test_discovered_through_the_entry_point(pairlab_registry):
                assert pairlab_registry.algorithm("{n.algorithm}") is {n.cls}
            ''',
        "README.md": f'''
            # {n.distribution}

            The `{n.algorithm}` clustering algorithm as a pairlab plugin. Generated by
            `pairlab new-plugin {n.algorithm}`: a k-means that keeps must-linked points together,
            to be replaced by your algorithm.

            ## Install and use

            ```bash
            pip install .
            pairlab list                        # {n.algorithm} appears among the algorithms
            pairlab run {n.algorithm} --dataset two-moons --must-link 10 --set n_clusters=2
            ```

            It also appears in the desktop app (`pairlab gui`) and works with
            `pairlab.make_estimator("{n.algorithm}")`.

            ## Develop

            - `src/{n.module}/algorithm.py`: the `{n.cls}` stepper (`initialize`, `step`, params).
            - `src/{n.module}/plugin.py`: the `pairlab_algorithms` hook and `PAIRLAB_API_VERSION`.
            - `pyproject.toml`: the `[project.entry-points.pairlab]` line that makes pairlab find it.

            ## Test

            ```bash
            pip install -e ".[test]"
            python -m pytest
            ```

            The tests use pairlab's conformance check (the `pairlab_check_algorithm` fixture, i.e.
            `pairlab.testing.check_algorithm`): valid states, no mutation of inputs, the same seed
            gives the same states, params round-trip, errors are `pairlab.PairlabError`s.
            ''',
    }
    return {path: textwrap.dedent(text).lstrip("\n") for path, text in files.items()}


def write_plugin(name: str, directory: str | Path = ".") -> Path:
    """Write the package for ``name`` into ``directory/pairlab-NAME`` and return that folder."""
    n = plugin_names(name)
    root = Path(directory) / n.distribution
    if root.exists() and any(root.iterdir()):
        raise InvalidInputError(f"{root} already exists and is not empty; choose another NAME or --dir.")
    for rel, text in _files(n).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="algorithm name as typed on the command line, e.g. my-algo")
    parser.add_argument("--dir", default=".", metavar="DIR",
                        help="folder to create the package in (default: the current folder)")


def run(args: argparse.Namespace) -> int:
    n = plugin_names(args.name)
    from .registry import get_registry

    if n.algorithm in get_registry().names("algorithms"):  # checked before writing anything
        raise InvalidInputError(
            f"an algorithm named {n.algorithm!r} is already registered (`pairlab list`); an "
            f"installed plugin of that name would clash and be ignored. Choose another NAME, "
            f"e.g. my-{n.algorithm}.")
    root = write_plugin(args.name, args.dir)
    print(f"wrote {root}/ (distribution {n.distribution}, module {n.module}, algorithm {n.algorithm})")
    print("next:")
    print(f"  pip install -e '{root}[test]'")
    print(f"  pairlab run {n.algorithm} --dataset two-moons --must-link 10")
    print(f"  cd {root} && python -m pytest")
    return 0
