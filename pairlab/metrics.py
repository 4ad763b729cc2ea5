"""Clustering quality measures and the :class:`Metric` type a ``pairlab_metrics`` hook returns.

The built-in metrics register from :mod:`pairlab_builtins.metrics` like any plugin's; this module
imports nothing of the registry. :func:`pairlab.scoring.evaluate` applies the registered ones.

Pair-counting measures are computed from the contingency table, never by looping over pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import xlogy

from .constraints import Constraints
from .errors import InvalidInputError
from .memo import FrozenMemo, is_frozen

__all__ = [
    "Metric",
    "accuracy",
    "adjusted_rand",
    "class_matching",
    "constraint_satisfaction",
    "modified_rand",
    "nmi",
    "pairwise_f_measure",
    "purity",
    "rand",
    "shared_tables",
    "unique_codes",
]


@dataclass(frozen=True)
class Metric:
    """A named measure: ``func(y_true, labels)`` or, with ``needs_constraints``,
    ``func(y_true, labels, constraints)``. ``needs_truth=False`` measures work without labels."""

    name: str
    title: str
    func: Callable[..., float]
    needs_truth: bool = True
    needs_constraints: bool = False
    higher_is_better: bool = True


def _check(y_true: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y_true, labels = np.asarray(y_true), np.asarray(labels)
    if y_true.ndim != 1 or y_true.shape != labels.shape:
        raise InvalidInputError(
            f"y_true and labels must be 1-D of equal length, got {y_true.shape} and {labels.shape}"
        )
    if y_true.size == 0:
        raise InvalidInputError("metrics need at least one sample")
    return y_true, labels


def unique_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of a 1-D array: the sorted distinct values and
    each value's index among them. Integers of a small range take a counting pass instead of a
    sort (the app does this for every pane of every frame); for a read-only array (a data set's
    classes, :func:`pairlab.memo.is_frozen`) the result is kept and returned read-only."""
    if is_frozen(values):
        return _kept_codes(values)
    return _unique_codes(values)


def _read_only_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distinct, inverse = _unique_codes(values)
    distinct.setflags(write=False)
    inverse.setflags(write=False)
    return distinct, inverse


_kept_codes = FrozenMemo(_read_only_codes)


def _unique_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(values).reshape(-1)
    if values.dtype.kind in "iub" and values.size:
        lo, hi = int(values.min()), int(values.max())
        if hi - lo <= 4 * values.size:
            shifted = values.astype(np.intp) - lo
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            rank = np.cumsum(present) - 1
            distinct = (np.flatnonzero(present) + lo).astype(values.dtype)
            return distinct, rank[shifted]
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.reshape(-1)


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Each value's index among the sorted distinct values and their number."""
    distinct, inverse = unique_codes(values)
    return inverse, distinct.size


#: The tables of the :func:`shared_tables` block in progress: (id, id) -> (y_true, labels, table)
_TABLES: ContextVar[dict | None] = ContextVar("pairlab_contingency_tables", default=None)


@contextmanager
def shared_tables() -> Iterator[None]:
    """Inside the block, :func:`contingency` counts each pair of array objects once (purity, ARI
    and NMI of one :func:`~pairlab.scoring.evaluate` call share one table). The arrays must not
    change inside the block: they are recognised by identity."""
    token = _TABLES.set({})
    try:
        yield
    finally:
        _TABLES.reset(token)


def contingency(y_true: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Dense (n_classes, n_clusters) table of counts."""
    memo = _TABLES.get()
    key = (id(y_true), id(labels))
    if memo is not None and key in memo:
        return memo[key][2].copy()  # a copy: a metric may change its table
    a, b = _check(y_true, labels)
    yi, n_classes = _codes(a)
    li, n_clusters = _codes(b)
    counts = np.bincount(yi * n_clusters + li, minlength=n_classes * n_clusters)
    table = counts.reshape(n_classes, n_clusters).astype(float)
    if memo is not None:  # the arrays are kept, so their ids stay theirs while the block lasts
        memo[key] = (y_true, labels, table.copy())
    return table


def _pair_counts(y_true: np.ndarray, labels: np.ndarray) -> tuple[float, float, float, float]:
    """(same-same, same class only, same cluster only, total) pair counts."""
    t = contingency(y_true, labels)
    n = t.sum()
    both = (t * (t - 1)).sum() / 2
    same_class = (t.sum(axis=1) * (t.sum(axis=1) - 1)).sum() / 2
    same_cluster = (t.sum(axis=0) * (t.sum(axis=0) - 1)).sum() / 2
    return both, same_class, same_cluster, n * (n - 1) / 2


def purity(y_true: np.ndarray, labels: np.ndarray) -> float:
    """Fraction of points in the majority class of their cluster."""
    t = contingency(y_true, labels)
    return float(t.max(axis=0).sum() / t.sum())


def accuracy(y_true: np.ndarray, labels: np.ndarray) -> float:
    """Fraction of points correctly labelled under the best one-to-one cluster-class matching
    (Hungarian algorithm); surplus clusters count as errors."""
    t = contingency(y_true, labels)
    rows, cols = linear_sum_assignment(-t)
    return float(t[rows, cols].sum() / t.sum())


def class_matching(y: np.ndarray, labels: np.ndarray, n_labels: int) -> np.ndarray:
    """The true class each label value ``0 .. n_labels-1`` stands for: the best one-to-one
    matching (Hungarian algorithm) of labels to classes; labels left over get the indices after
    the classes, in order. Used to draw every cluster in its class's colour."""
    classes, yi = unique_codes(y)
    n_classes = classes.size
    labels = np.asarray(labels, dtype=np.intp)
    if labels.size and labels.min() < 0:
        labels = np.where(labels < 0, labels + n_labels, labels)  # as np.add.at indexed them
    table = np.bincount(yi * n_labels + labels, minlength=n_classes * n_labels).reshape(
        n_classes, n_labels).astype(float)  # counts, as np.add.at made them (once a frame)
    rows, cols = linear_sum_assignment(-table)
    out = np.full(n_labels, -1, dtype=np.int64)
    out[cols] = rows
    spare = np.flatnonzero(out < 0)
    out[spare] = n_classes + np.arange(spare.size)
    return out


def rand(y_true: np.ndarray, labels: np.ndarray) -> float:
    """Rand index, SCSSAP eq. 26: fraction of pairs on which the two partitions agree."""
    both, sc, scl, total = _pair_counts(y_true, labels)
    if total == 0:
        return 1.0
    return float((total - sc - scl + 2 * both) / total)


def modified_rand(y_true: np.ndarray, labels: np.ndarray) -> float:
    """Modified Rand index, SCSSAP eq. 27, as printed.

    Half the score is the fraction of predicted same-cluster pairs that share a class, half the
    fraction of predicted different-cluster pairs that differ in class. A half whose denominator
    is zero (one cluster, or all singletons) contributes 0.
    """
    both, sc, scl, total = _pair_counts(y_true, labels)
    diff_diff = total - sc - scl + both
    first = both / (2 * scl) if scl > 0 else 0.0
    second = diff_diff / (2 * (total - scl)) if total - scl > 0 else 0.0
    return float(first + second)


def adjusted_rand(y_true: np.ndarray, labels: np.ndarray) -> float:
    """Adjusted Rand index (Hubert & Arabie)."""
    both, sc, scl, total = _pair_counts(y_true, labels)
    if total == 0:
        return 1.0
    expected = sc * scl / total
    maximum = (sc + scl) / 2
    if maximum == expected:
        return 1.0
    return float((both - expected) / (maximum - expected))


def nmi(y_true: np.ndarray, labels: np.ndarray) -> float:
    """Normalised mutual information with arithmetic-mean normalisation (scikit-learn's default)."""
    t = contingency(y_true, labels)
    n = t.sum()
    pi, pj = t.sum(axis=1) / n, t.sum(axis=0) / n
    pij = t / n
    mi = float(np.sum(xlogy(pij, pij)) - np.sum(xlogy(pi, pi)) - np.sum(xlogy(pj, pj)))
    hi, hj = float(-np.sum(xlogy(pi, pi))), float(-np.sum(xlogy(pj, pj)))
    if hi == 0 and hj == 0:
        return 1.0
    denom = (hi + hj) / 2
    return float(max(mi, 0.0) / denom) if denom > 0 else 0.0


def pairwise_f_measure(y_true: np.ndarray, labels: np.ndarray) -> float:
    """Harmonic mean of pairwise precision and recall of "same cluster" decisions."""
    both, sc, scl, _ = _pair_counts(y_true, labels)
    if both == 0:
        return 0.0
    precision, recall = both / scl, both / sc
    return float(2 * precision * recall / (precision + recall))


def constraint_satisfaction(y_true: np.ndarray | None, labels: np.ndarray,
                            constraints: Constraints) -> float:
    """Fraction of must-links and cannot-links that ``labels`` satisfy."""
    return constraints.satisfied_fraction(labels)
