"""scikit-learn's bundled data sets, and the message when scikit-learn is missing."""

import sys

import numpy as np
import pytest

from pairlab import cli, get_registry
from pairlab.errors import InvalidInputError

pytest.importorskip("sklearn")


@pytest.mark.parametrize(("name", "shape", "k"), [("iris", (150, 4), 3), ("wine", (178, 13), 3),
                                                   ("breast-cancer", (569, 30), 2)])
def test_bundled_tables(name, shape, k):
    spec = get_registry().dataset(name)
    assert spec.requires == ("scikit-learn",)
    data = spec.make()
    assert data.X.shape == shape and data.n_classes == k and len(data.feature_names) == shape[1]
    assert data.view.shape == (shape[0], 2)
    std = spec.make(standardize=True)
    assert np.allclose(std.X.mean(axis=0), 0) and np.allclose(std.X.std(axis=0), 1)


def test_iris_feature_names():
    assert get_registry().dataset("iris").make().feature_names[0] == "sepal length (cm)"


def test_digits_subset_and_pca():
    spec = get_registry().dataset("digits")
    data = spec.make()
    assert set(np.unique(data.y)) == {1, 2, 3} and data.n_features == 2
    assert data.feature_names == ("PC1", "PC2") and data.name == "digits-123-pca2"
    assert data.n_samples == 182 + 177 + 183
    # the PCA projection is that of the subset: centred, first axis carries the most variance
    assert np.allclose(data.X.mean(axis=0), 0) and data.X[:, 0].var() >= data.X[:, 1].var()
    raw = spec.make(classes="4, 5,6,7", pca=False)
    assert set(np.unique(raw.y)) == {4, 5, 6, 7} and raw.n_features == 64
    std = spec.make(classes="4,5,6,7", pca=False, standardize=True).X
    sd = std.std(axis=0)  # constant pixels (always blank) stay constant; the others get sd 1
    assert np.allclose(std.mean(axis=0), 0) and np.allclose(sd[raw.X.std(axis=0) > 0], 1)
    assert np.array_equal(sd == 0, raw.X.std(axis=0) == 0)
    with pytest.raises(InvalidInputError, match="digits 0-9"):
        spec.make(classes="1,x")
    with pytest.raises(InvalidInputError, match="digits 0-9"):
        spec.make(classes="12")


def test_missing_scikit_learn_is_explained(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # makes the import fail
    for name in ("iris", "digits"):
        with pytest.raises(InvalidInputError, match=r"pip install scikit-learn.*pairlab\[data\]"):
            get_registry().dataset(name).make()


def test_cli_run_on_iris(capsys):
    assert cli.main(["run", "gmm", "--dataset", "iris", "--must-link", "20", "--cannot-link", "20",
                     "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "20 must-links, 20 cannot-links" in out and "iris" in out
