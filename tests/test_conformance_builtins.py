"""Every registered built-in algorithm and data set passes pairlab.testing's conformance checks.

The lists come from the registry (third-party plugins disabled), so each built-in added later is
checked automatically, on small data.
"""

from __future__ import annotations

import numpy as np
import pytest

from pairlab import Registry
from pairlab.testing import check_algorithm, check_dataset, make_check_constraints, make_check_dataset

_REGISTRY = Registry(external=False)
ALGORITHMS = _REGISTRY.names("algorithms")
DATASETS = _REGISTRY.names("datasets")
SMALL = 40


def test_the_registry_has_builtins_to_check():
    assert {"gmm", "kmeans"} <= set(ALGORITHMS)
    assert {"two-moons", "gaussian-blobs"} <= set(DATASETS)
    assert not _REGISTRY.failures, [(p.name, p.error) for p in _REGISTRY.failures]


@pytest.mark.parametrize("name", ALGORITHMS)
def test_algorithm_conforms(name):
    data = make_check_dataset(SMALL)
    check_algorithm(_REGISTRY.algorithm(name), data, make_check_constraints(data), n_steps=2)


def _small_params(spec) -> dict:
    """Shrink the data set where it has an ``n_samples`` parameter that allows it."""
    for p in spec.params:
        if p.name == "n_samples" and p.type is int and (p.default is None or p.default > SMALL):
            if (p.low is None or p.low <= SMALL) and (p.high is None or p.high >= SMALL):
                return {"n_samples": SMALL}
    return {}


def _input_file_params(spec, tmp_path) -> dict:
    """Data sets that read a user's file (a ``path`` parameter) get a small CSV written here, or an
    NPZ with ``X`` and ``y`` where the parameter does not mention CSV (e.g. ``coil20``)."""
    path_param = next((p for p in spec.params if p.name == "path"), None)
    if path_param is None:
        return {}
    rng = np.random.default_rng(0)
    X = rng.normal(size=(SMALL, 2))
    if "CSV" not in path_param.help:
        path = tmp_path / "points.npz"
        np.savez(path, X=X, y=(X[:, 0] > 0).astype(int))
        return {"path": str(path)}
    rows = ["a,b,label"] + [f"{x:.6f},{y:.6f},{int(x > 0)}" for x, y in X]
    path = tmp_path / "points.csv"
    path.write_text("\n".join(rows) + "\n")
    return {"path": str(path)}


@pytest.mark.parametrize("name", DATASETS)
def test_dataset_conforms(name, tmp_path):
    spec = _REGISTRY.dataset(name)
    check_dataset(spec, {**_small_params(spec), **_input_file_params(spec, tmp_path)})
