"""The threshold beta of constrained spectral clustering (Wang & Davidson 2010) when the user
leaves it unset: the rules shared by the dense (:mod:`.csc`) and sparse (:mod:`.sparse_spectral`)
solvers."""

from __future__ import annotations

import numpy as np

__all__ = ["BETA_RULES", "default_beta"]

BETA_RULES = ("blend", "zero", "authors")


def default_beta(eig_Qb: np.ndarray, vol: float, rule: str, k: int) -> float:
    """beta for a rule, from the eigenvalues of Q_bar on the linked points (ascending).

    ``blend``: 2 lambda_min(Q_bar) vol; Q_bar - beta/vol I is then positive definite, every
    eigenvector of the pencil is feasible and the links act only through the pencil's weighting
    (the embedding tends to the unconstrained one as beta -> -inf, to the links' as beta -> 0).
    ``zero``: 0. ``authors``: beta/vol halfway between the K-th and (K + 1)-th largest |eigenvalue|
    of Q_bar, minus 1e-6, as the authors' K-way routine ``csp_K`` (DMKD 2014 code) does.
    """
    if rule == "zero":
        return 0.0
    if rule == "authors":
        sv = np.sort(np.abs(eig_Qb))[::-1]
        sv = np.concatenate([sv, np.zeros(max(0, k + 1 - sv.size))])
        return float(((sv[k - 1] + sv[k]) / 2.0 - 1e-6) * vol)
    return float(2.0 * eig_Qb[0] * vol)
