"""The parameters of the affinity-propagation plugins, written once.

affinity-propagation, scssap and scssap-metric (one message core, ``ap_messages``) and ssap-g and
ssap-l (the chooser core, ``ap_choosers``) share these definitions. Only what genuinely differs is
set per plugin: the damping's default (scikit-learn's 0.5 against the 0.75 of Arzeno & Vikalo's
section 4.1), and the exemplar rules each plugin offers, with what each rule means there.
"""

from __future__ import annotations

import math

from pairlab import Param

__all__ = ["AFFINITY", "CONVERGENCE_ITER", "MAX_ITER", "N_NEIGHBORS", "PAPER_RULE", "PENALTIES", "PREFERENCE",
           "REFINE_RULE", "TOL", "damping", "exemplar_rule"]


def damping(default: float, source: str) -> Param:
    """The damping of alpha and rho, in [0.5, 1); ``source`` says where ``default`` comes from."""
    return Param("damping", float, default, f"damping mu of alpha and rho, in [0.5, 1) ({source})",
                 low=0.5, high=1.0, high_open=True)


def exemplar_rule(default: str, rules: dict[str, str]) -> Param:
    """The rule that turns messages into exemplars; ``rules`` maps each offered rule to its meaning."""
    if default not in rules:
        raise ValueError(f"default exemplar rule {default!r} is not among {sorted(rules)}")
    return Param("exemplar_rule", str, default, "; ".join(f"{k}: {v}" for k, v in rules.items()),
                 choices=tuple(rules))


PREFERENCE = Param("preference", float, None,
                   "s(k, k) for every k; none = median of the whole similarity matrix, diagonal zeros "
                   "included (as scikit-learn)", nullable=True)
MAX_ITER = Param("max_iter", int, 200, "maximum number of iterations", low=1)
CONVERGENCE_ITER = Param("convergence_iter", int, 15,
                         "stop when the exemplars have not changed for this many iterations", low=1)
TOL = Param("tol", float, 0.0,
            "also stop when no message changes by tol or more in an iteration (0: off)", low=0.0)
AFFINITY = Param("affinity", str, "euclidean",
                 "euclidean: s(i, j) = -|x_i - x_j|^2; precomputed: X is the (n, n) similarity matrix",
                 choices=("euclidean", "precomputed"))
N_NEIGHBORS = Param(
    "n_neighbors", int, None,
    "none: messages for all n^2 pairs (dense); k: messages only on a symmetric k-nearest-"
    "neighbour graph plus every linked pair (memory O(n k)); k >= n - 1 is the dense result",
    nullable=True, low=1)
#: SCSSAP's soft-constraint penalties q_m and q_c.
PENALTIES: tuple[Param, ...] = (
    Param("q_ml", float, math.inf,
          "must-link penalty q_m >= 0; the paper reports exp(-q) in [0, 1]: q = 0 (exp(-q) = 1) "
          "is plain AP, q = inf (exp(-q) = 0) enforces; times each link's confidence", low=0.0),
    Param("q_cl", float, math.inf,
          "cannot-link penalty q_c >= 0; exp(-q) = 1 (q = 0) is plain AP, exp(-q) = 0 (q = inf) "
          "enforces; times each link's confidence", low=0.0),
)

#: The two exemplar rules of the dense message core, as the paper and scikit-learn state them.
PAPER_RULE = "arg max over self-exemplars of alpha + rho (section 3)"
REFINE_RULE = "Frey & Dueck's nearest exemplar plus medoid refinement (scikit-learn)"
