"""Scoring labels with the registered metrics (a failing metric never takes a run down)."""

from __future__ import annotations

import numpy as np

from .constraints import Constraints
from .registry import get_registry

__all__ = ["evaluate"]


def evaluate(labels: np.ndarray, y_true: np.ndarray | None = None,
             constraints: Constraints | None = None, metrics=None) -> dict[str, float]:
    """Compute every applicable metric (``metrics``: Metric objects; default the registry's)."""
    if metrics is None:
        metrics = [e.obj for e in get_registry().entries("metrics")]
    out: dict[str, float] = {}
    for m in metrics:
        if m.needs_truth and y_true is None:
            continue
        if m.needs_constraints:
            if constraints is None or len(constraints) == 0:
                continue
            out[m.name] = float(m.func(y_true, labels, constraints))
        else:
            out[m.name] = float(m.func(y_true, labels))
    return out
