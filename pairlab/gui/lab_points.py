"""Points a student draws on the canvas, kept apart from the generated data set (Qt-free).

The session stores the data set as (name, params, seed) and the drawn points as rows
(x, y, class): the data is the generated points followed by the drawn ones, so the indices of
the generated points (and the links between them) never change when a point is drawn.
"""

from __future__ import annotations

import numpy as np

from ..dataset import Dataset
from ..errors import InvalidInputError

__all__ = ["NO_POINTS", "check_drawn", "with_points"]

#: No drawn points: an empty (0, 3) array of rows (x, y, class).
NO_POINTS = np.empty((0, 3))


def check_drawn(rows: object) -> np.ndarray:
    """``rows`` as an (m, 3) float array of (x, y, class), or a clear error."""
    arr = np.asarray(rows if rows is not None else NO_POINTS, dtype=float)
    if arr.size == 0:
        return NO_POINTS
    if arr.ndim != 2 or arr.shape[1] != 3 or not np.all(np.isfinite(arr)):
        raise InvalidInputError("drawn points must be a list of finite [x, y, class] rows")
    if np.any(arr[:, 2] < 0) or np.any(arr[:, 2] != np.round(arr[:, 2])):
        raise InvalidInputError("the class of a drawn point must be a whole number >= 0")
    return arr


def with_points(data: Dataset, drawn: np.ndarray) -> Dataset:
    """``data`` followed by the drawn points (2-D data only; their class is kept when the data
    has classes)."""
    if not len(drawn):
        return data
    if data.n_features != 2:
        raise InvalidInputError(
            f"points can be drawn on 2-D data only ({data.name} has {data.n_features} features: "
            "a point on the screen is not a point of the data)")
    X = np.vstack([data.X, drawn[:, :2]])
    y = None if data.y is None else np.concatenate([np.asarray(data.y),
                                                    drawn[:, 2].astype(np.asarray(data.y).dtype)])
    return Dataset(X, y, name=data.name, feature_names=data.feature_names, source=data.source,
                   view=X)
