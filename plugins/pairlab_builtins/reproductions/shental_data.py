"""Data and side information of the Shental et al. recipes (:mod:`.shental`): Fig. 5's data
sets (scikit-learn's, then UCI files from ``--data-dir``) and the teachers' constraints at a
target share of constrained points."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pairlab import Constraints, Dataset
from pairlab.links import teachers

from .common import make_dataset

#: scikit-learn's bundled sets, then UCI files looked up in --data-dir (name, label column)
FIG5_SETS: tuple[str, ...] = ("wine", "iris", "breast-cancer")
FIG5_UCI_FILES: dict[str, tuple[tuple[str, int], ...]] = {
    "balance": (("balance-scale.data", 0),),
    "ionosphere": (("ionosphere.data", -1),),
    "soybean": (("soybean-small.data", -1),),
    "protein": (("protein.data", -1), ("protein.csv", -1)),
    "boston": (("boston.csv", -1),),
}


def _fig5_sets(data_dir: str | None) -> tuple[dict[str, Dataset], list[str]]:
    sets: dict[str, Dataset] = {}
    skipped: list[str] = []
    for name in FIG5_SETS:
        try:
            sets[name] = make_dataset(name)
        except Exception as exc:  # scikit-learn missing: skip with the reason
            skipped.append(f"{name}: skipped ({exc})")
    for name, files in FIG5_UCI_FILES.items():
        found = [(f, col) for f, col in files if data_dir and (Path(data_dir) / f).is_file()]
        if found:
            f, col = found[0]
            sets[name] = make_dataset("csv", path=str(Path(data_dir) / f), label=str(col))
        else:
            where = f"in {data_dir}" if data_dir else "(no --data-dir given)"
            skipped.append(f"{name}: skipped, {' or '.join(f for f, _ in files)} not found {where}")
    return sets, skipped


def _teacher_constraints(data: Dataset, level: float, rng: np.random.Generator) -> Constraints:
    """Teachers of K = 2 C points each (C classes), as many as constrain about ``level`` of the
    points (the paper controls the product N K; a point two teachers see counts once)."""
    k = min(data.n_samples, 2 * data.n_classes)
    # N teachers of K random points cover 1 - (1 - K/n)^N of the points on average
    n_teachers = max(1, round(np.log1p(-level) / np.log1p(-k / data.n_samples)))
    return teachers(data.y, n_teachers, k, rng)


def _constrained_share(data: Dataset, cons: Constraints) -> float:
    return 1.0 - _free_points(data, cons).size / data.n_samples


def _free_points(data: Dataset, cons: Constraints) -> np.ndarray:
    """Indices of the points no constraint touches."""
    used = np.zeros(data.n_samples, dtype=bool)
    for pairs in (cons.must_link, cons.cannot_link):
        used[np.asarray(pairs, dtype=np.int64).ravel()] = True
    return np.flatnonzero(~used)
