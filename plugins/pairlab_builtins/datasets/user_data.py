"""The ``csv`` data set: the user's own CSV/TSV or NPZ file (e.g. Haberman or Thyroid from UCI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pairlab import Dataset, DatasetSpec, Param, hookimpl
from pairlab.dataset import standardize
from pairlab.tabular import load_table


def load_user_table(params: dict, rng: np.random.Generator) -> Dataset:
    """Read ``params["path"]`` with :func:`pairlab.tabular.load_table`; ``rng`` is unused."""
    table = load_table(params["path"], label=params["label"], header=params["header"],
                       delimiter=params["delimiter"])
    X = standardize(table.X) if params["standardize"] else table.X
    return Dataset(X, table.y, name=Path(params["path"]).stem or "csv",
                   feature_names=table.feature_names)


DATASETS = [
    DatasetSpec(
        "csv", "Your own file (CSV or NPZ)", load_user_table,
        (
            Param("path", str, "", "CSV/TSV/TXT file, or NPZ with arrays X (and y, feature_names)"),
            Param("label", str, "", "class column: header name or 0-based index (-1 = last); "
                  "for NPZ the labels array (default y if present); empty = no labels"),
            Param("header", str, "auto", "first row is a header", choices=("auto", "yes", "no")),
            Param("delimiter", str, "auto", "field separator: auto, ',', ';', 'tab', '|' or ' '"),
            Param("standardize", bool, False, "scale every feature to mean 0 and variance 1"),
        ),
        description="Any numeric table: a CSV/TSV with optional header and label column, or an NPZ "
                    "file. Errors name the line and column to fix.",
    ),
]


@hookimpl
def pairlab_datasets():
    return DATASETS
