"""Scoring labels with the registered metrics (a failing metric never takes a run down)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .constraints import Constraints
from .errors import PairlabError, PluginWarning
from .metrics import shared_tables
from .registry import get_registry

__all__ = ["evaluate"]


def evaluate(labels: np.ndarray, y_true: np.ndarray | None = None,
             constraints: Constraints | None = None, metrics=None,
             errors: dict[str, str] | None = None) -> dict[str, float]:
    """Compute every applicable metric (``metrics``: Metric objects; default the registry's).

    A metric that raises, or returns something that is not a finite number, is left out of the
    result, reported with a :class:`~pairlab.errors.PluginWarning` and, when ``errors`` is given,
    recorded there as ``{name: message}``; the other metrics are still computed.
    """
    if metrics is None:
        metrics = [e.obj for e in get_registry().entries("metrics")]
    with shared_tables():  # one contingency table for all the metrics of these labels
        return _evaluate(labels, y_true, constraints, metrics, errors)


def _evaluate(labels: np.ndarray, y_true: np.ndarray | None, constraints: Constraints | None,
              metrics, errors: dict[str, str] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for m in metrics:
        if m.needs_truth and y_true is None:
            continue
        if m.needs_constraints and (constraints is None or len(constraints) == 0):
            continue
        try:
            args = (y_true, labels, constraints) if m.needs_constraints else (y_true, labels)
            value = m.func(*args)
            number = float(value)
            if not math.isfinite(number):
                raise ValueError(f"returned {number}, not a finite number")
        except KeyboardInterrupt:
            raise
        except PairlabError as exc:  # e.g. labels the metric cannot score: not the plugin's bug
            message = str(exc)
        except BaseException as exc:  # any failure of plugin code is isolated
            message = f"{type(exc).__name__}: {exc}"
        else:
            out[m.name] = number
            continue
        if errors is not None:
            errors[m.name] = message
        warnings.warn(f"metric {m.name!r} failed and was left out: {message}", PluginWarning,
                      stacklevel=3)  # the caller of evaluate
    return out
