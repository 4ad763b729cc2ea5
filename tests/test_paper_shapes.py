"""The papers' synthetic data sets: determinism, class sizes, shapes, and `pairlab list --json`."""

import json

import numpy as np
import pytest
from pairlab_builtins.datasets.paper_shapes import PATTERNS, ppc_fig1_relations

from pairlab import cli, get_registry
from pairlab.links import grid_links

CASES = [("anisotropic-blobs", {}), ("ppc-fig1", {}), ("texture-grid", {}),
         ("texture-grid", {"features": "stats"})]
CASES += [("ppc-artificial", {"shape": s}) for s in (1, 2, 3)]
CASES += [("rdp-patterns", {"pattern": p}) for p in PATTERNS]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_deterministic_and_valid(name, params):
    spec = get_registry().dataset(name)
    a, b = spec.make(seed=3, **params), spec.make(seed=3, **params)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, spec.make(seed=4, **params).X)
    assert a.view.shape == (a.n_samples, 2) and len(a.feature_names) == a.n_features
    assert a.n_classes >= 2 and np.isfinite(a.X).all()


def test_ppc_artificial_has_200_per_class():
    for s in (1, 2, 3):
        d = get_registry().dataset("ppc-artificial").make(shape=s)
        assert np.bincount(d.y).tolist() == [200, 200]


def test_rdp_patterns_fill_the_figure_axes():
    for p in PATTERNS:
        d = get_registry().dataset("rdp-patterns").make(pattern=p)
        assert 10 < np.abs(d.X).max() < 22, p  # Fig. 2 axes run from -20 to 20


def test_ppc_fig1_two_symmetric_fits_and_relations():
    d = get_registry().dataset("ppc-fig1").make()
    # classes are top and bottom: the horizontal axis separates them
    assert np.mean((d.X[:, 1] > 0) == (d.y == 0)) > 0.97
    links, means = ppc_fig1_relations(d)
    assert len(links) == 20 and means.shape == (2, 2)
    y = d.y
    assert np.all(y[links.must_link[:, 0]] == y[links.must_link[:, 1]])
    assert np.all(y[links.cannot_link[:, 0]] != y[links.cannot_link[:, 1]])


def test_texture_grid_shape_labels_and_neighbour_links():
    d = get_registry().dataset("texture-grid").make(grid_rows=6, grid_cols=8, features="stats")
    rows, cols = d.source["params"]["grid_rows"], d.source["params"]["grid_cols"]
    assert d.n_samples == rows * cols == 48 and d.name == "texture-grid 6x8"
    assert d.y.reshape(rows, cols)[0, 0] == 0 and d.y.reshape(rows, cols)[-1, -1] == 3
    links = grid_links(rows, cols, d.y)
    assert links.n_must_link == 6 * 7 + 8 * 5
    boundary = 8 + 6  # adjacent pairs across the two quadrant boundaries
    assert np.allclose(links.ml_confidence, 1 - boundary / links.n_must_link)
    # stats features separate the textures: each region's mean feature vector differs
    means = np.array([d.X[d.y == k].mean(axis=0) for k in range(4)])
    assert np.linalg.matrix_rank(means - means.mean(axis=0)) == 3


def test_every_dataset_lists_its_params(capsys):
    assert cli.main(["list", "--json"]) == 0
    data = {d["name"]: d for d in json.loads(capsys.readouterr().out)["datasets"]}
    expected = {"anisotropic-blobs": "n_centers", "ppc-artificial": "shape", "ppc-fig1": "spread",
                "rdp-patterns": "pattern", "texture-grid": "grid_rows", "csv": "path",
                "iris": "standardize", "wine": "standardize", "breast-cancer": "standardize",
                "digits": "classes"}
    for name, param in expected.items():
        assert param in [p["name"] for p in data[name]["params"]], name
    assert data["digits"]["requires"] == ["scikit-learn"]
    pattern = next(p for p in data["rdp-patterns"]["params"] if p["name"] == "pattern")
    assert pattern["choices"] == list(PATTERNS)
