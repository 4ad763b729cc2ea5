"""Real data sets bundled with scikit-learn (no download): iris, wine, breast cancer, digits.

scikit-learn is optional (``pip install scikit-learn`` or ``pip install pairlab[data]``); it is
imported only when one of these data sets is loaded.
"""

from __future__ import annotations

import importlib

import numpy as np

from pairlab import Dataset, DatasetSpec, Param, hookimpl
from pairlab.dataset import pca_view, standardize
from pairlab.errors import InvalidInputError

REQUIRES = ("scikit-learn",)


def _sklearn_datasets():
    try:
        return importlib.import_module("sklearn.datasets")
    except ImportError:
        raise InvalidInputError(
            "this data set is bundled with scikit-learn, which is not installed; install it with "
            "`pip install scikit-learn` (or `pip install pairlab[data]`), or load your own copy "
            "with the 'csv' data set.") from None


def _bundled(loader: str, name: str):
    def load(params: dict, rng: np.random.Generator) -> Dataset:
        bunch = getattr(_sklearn_datasets(), loader)()
        X = np.asarray(bunch.data, dtype=float)
        scaled = standardize(X)
        # The view is the PCA of the standardised features either way: features in different
        # units (wine's proline is ~1000x its hue) would otherwise give a flat line on screen.
        # The view is linear in X, so means and ellipses still map onto it exactly.
        view = pca_view(scaled)
        if params["standardize"]:
            X = scaled
        return Dataset(X, np.asarray(bunch.target), name=name,
                       feature_names=tuple(str(f) for f in bunch.feature_names), view=view)

    load.__doc__ = f"scikit-learn's bundled ``{loader}()`` (optionally standardised)."
    return load


def _parse_classes(text: str) -> list[int]:
    try:
        classes = sorted({int(t) for t in text.replace(" ", "").split(",") if t != ""})
    except ValueError:
        classes = []
    if not classes or any(c < 0 or c > 9 for c in classes):
        raise InvalidInputError(f"classes must list digits 0-9 separated by commas, such as "
                                f"'1,2,3' or '4,5,6,7'; got {text!r}.")
    return classes


def load_digits(params: dict, rng: np.random.Generator) -> Dataset:
    """8x8 handwritten digits restricted to a class subset, optionally projected to 2 PCA
    components: GM-PR section 4.2.2 uses MNIST digits {1, 2, 3} and {4, 5, 6, 7} projected to two
    dimensions; this is the same protocol on scikit-learn's bundled 8x8 digits (MNIST itself would
    need a download). ``standardize`` scales the pixels (of the kept classes) before the
    projection."""
    classes = _parse_classes(params["classes"])
    bunch = _sklearn_datasets().load_digits()
    keep = np.isin(bunch.target, classes)
    X = np.asarray(bunch.data[keep], dtype=float)
    if params["standardize"]:
        X = standardize(X)
    y = np.asarray(bunch.target[keep])
    names = tuple(str(f) for f in bunch.feature_names)
    if params["pca"]:
        X = pca_view(X)
        names = ("PC1", "PC2")
    label = "".join(map(str, classes))
    return Dataset(X, y, name=f"digits-{label}" + ("-pca2" if params["pca"] else ""),
                   feature_names=names)


_STD = Param("standardize", bool, False, "scale every feature to mean 0 and variance 1")

DATASETS = [
    DatasetSpec("iris", "Iris (150 x 4, 3 classes)", _bundled("load_iris", "iris"), (_STD,),
                description="Fisher's iris flowers, from scikit-learn's bundled copy.",
                requires=REQUIRES),
    DatasetSpec("wine", "Wine (178 x 13, 3 classes)", _bundled("load_wine", "wine"), (_STD,),
                description="UCI wine recognition, from scikit-learn's bundled copy; the features "
                            "have very different scales (standardize=true helps).",
                requires=REQUIRES),
    DatasetSpec("breast-cancer", "Breast cancer Wisconsin (569 x 30, 2 classes)",
                _bundled("load_breast_cancer", "breast-cancer"), (_STD,),
                description="UCI breast cancer Wisconsin (diagnostic), from scikit-learn.",
                requires=REQUIRES),
    DatasetSpec(
        "digits", "Digits (8x8 images, class subset)", load_digits,
        (
            Param("classes", str, "1,2,3", "digits to keep, comma-separated (GM-PR 4.2.2 uses "
                  "1,2,3 and 4,5,6,7)"),
            Param("pca", bool, True, "project to the first 2 principal components (GM-PR 4.2.2)"),
            _STD,
        ),
        description="scikit-learn's 1797 handwritten 8x8 digits, restricted to a class subset "
                    "and projected to 2-D as GM-PR section 4.2.2 does with MNIST.",
        requires=REQUIRES,
    ),
]


@hookimpl
def pairlab_datasets():
    return DATASETS
