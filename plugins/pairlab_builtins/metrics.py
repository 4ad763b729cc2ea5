"""pairlab's built-in metrics, registered through the ``pairlab_metrics`` hook like any plugin's."""

from __future__ import annotations

from pairlab import hookimpl
from pairlab.metrics import (
    Metric,
    accuracy,
    adjusted_rand,
    constraint_satisfaction,
    modified_rand,
    nmi,
    pairwise_f_measure,
    purity,
    rand,
)

BUILTIN_METRICS = (
    Metric("purity", "Purity", purity),
    Metric("accuracy", "Accuracy (Hungarian matching)", accuracy),
    Metric("rand", "Rand index (SCSSAP eq. 26)", rand),
    Metric("modified-rand", "Modified Rand index (SCSSAP eq. 27)", modified_rand),
    Metric("ari", "Adjusted Rand index", adjusted_rand),
    Metric("nmi", "Normalised mutual information", nmi),
    Metric("pairwise-f", "Pairwise F-measure", pairwise_f_measure),
    Metric("constraints-satisfied", "Fraction of constraints satisfied", constraint_satisfaction,
           needs_truth=False, needs_constraints=True),
)


@hookimpl
def pairlab_metrics() -> list[Metric]:
    return list(BUILTIN_METRICS)
