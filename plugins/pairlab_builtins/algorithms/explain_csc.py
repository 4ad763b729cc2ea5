"""CSC's explanation of one point: the embedding distances that decided its label.

Wang & Davidson (2010), the last steps of their algorithm: the constrained embedding is
u = D^-1/2 v of the feasible eigenvectors of least cost, and the labels are k-means on its rows.
A point's label at a state is argmin_c |u_i - m_c|^2 over that state's embedding centres m_c;
the squared distance is the sum of one part per eigenvector, (u_ij - m_cj)^2, and those parts
are the explanation's additive terms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pairlab import State
from pairlab.explanation import Bars, Explanation, component_labels

__all__ = ["csc_explain"]


def csc_explain(algo: Any, state: State, index: int) -> Explanation:
    """The embedding coordinates of point ``index`` and its squared distance to each embedding
    centre of ``state``, split per eigenvector (each part lower is better)."""
    sol = algo.solution
    U = np.asarray(sol["U"])
    centers = np.asarray(state.model["embedding_centers"])
    u = U[index]
    parts = (u[None, :] - centers) ** 2               # (K, m): centre c, eigenvector j
    best = int(state.labels[index])
    names = component_labels(centers.shape[0])
    m = U.shape[1]
    coords = tuple(f"u{j + 1}" for j in range(m))
    bars = [Bars("|u_i − m_c|² in the embedding", names, parts.sum(axis=1), best,
                 lower_is_better=True)]
    if m > 1:
        lam, cost = np.asarray(sol["lam"]), np.asarray(sol["cost"])
        bars += [Bars(f"part of eigenvector {j + 1} (λ={lam[j]:.3g}, v'L̄v={cost[j]:.3g})", names,
                      parts[:, j], best, True, term=f"eigenvector {j + 1}") for j in range(m)]
    else:
        bars[0] = Bars(bars[0].title, names, parts[:, 0], best, True, term="distance")
    bars.append(Bars("embedding coordinates u_i = D^-1/2 v_i", coords, u))
    how = ("k-means++ seeding chose the centres" if state.iteration == 0 else
           "centres are the embedding means of the previous iteration's clusters")
    text = (f"Label = nearest embedding centre ({how}). β = {sol['beta']:.4g}; "
            f"{sol['n_feasible']} feasible eigenvector(s), the {m} of least cost used.")
    return Explanation(index, state.phase or "assign points",
                       "z_i = argmin_c Σ_j (u_ij − m_cj)², u = D^-1/2 v, L̄ v = λ (Q̄ − β/vol I) v "
                       "(Wang & Davidson 2010: k-means on the rows of the embedding)", tuple(bars), text=text)
