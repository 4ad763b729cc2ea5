"""Affinity propagation (Frey & Dueck 2007): the unsupervised baseline of SCSSAP.

The same message core as ``scssap`` (:mod:`.ap_messages`) with Frey & Dueck's update order,
termination and exemplar refinement, i.e. exactly scikit-learn's ``AffinityPropagation``.
"""

from __future__ import annotations

from pairlab import hookimpl

from .ap_params import N_NEIGHBORS, PAPER_RULE, REFINE_RULE, damping, exemplar_rule
from .scssap import COMMON_PARAMS, SCSSAP

__all__ = ["AffinityPropagation"]


class AffinityPropagation(SCSSAP):
    """Affinity propagation (Frey & Dueck 2007), the unsupervised baseline.

    Frey & Dueck's update order (responsibilities, then availabilities), termination and
    exemplar refinement, so that it reproduces scikit-learn's ``AffinityPropagation`` with the
    same ``preference``, ``damping``, ``max_iter`` and ``convergence_iter``. Equivalent to
    ``scssap`` without links, whose messages are the same sequence half an iteration apart.
    """

    name = "affinity-propagation"
    title = "Affinity propagation (Frey & Dueck)"
    citation = ("Frey & Dueck (2007), Clustering by passing messages between data points, "
                "Science 315:972-976")
    uses_constraints = False
    params = (
        damping(0.5, "scikit-learn's default 0.5"),
        *COMMON_PARAMS,
        N_NEIGHBORS,
        exemplar_rule("refine", {"refine": REFINE_RULE, "paper": PAPER_RULE}),
    )
    order = "frey-dueck"
    objective_name = "net similarity"


@hookimpl
def pairlab_algorithms():
    return [AffinityPropagation]
