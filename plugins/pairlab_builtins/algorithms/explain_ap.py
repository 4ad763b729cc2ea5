"""Explanations of the affinity-propagation family (affinity-propagation, scssap, scssap-metric).

Point i's exemplar is chosen among the self-exemplars Psi = {k : alpha_kk + rho_kk > 0}: by
arg max_k alpha_ik + rho_ik (SCSSAP, end of section 3: availabilities eq. 14, responsibilities
eq. 25) or, with Frey & Dueck's refinement, by the similarity s(i, k) to the refined exemplars.
SCSSAP's constraint messages (omega, eq. 20; gamma, eq. 17) enter through the modified
similarity s_hat(i, k) = s(i, k) + sum omega + sum gamma (eq. 24), from which rho is computed.

The messages live in the algorithm's engine, which holds the newest state only; an older state is
replayed on a copy so that explaining never disturbs the run.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from pairlab import State
from pairlab.explanation import Bars, Explanation

from .ap_messages import MessageEngine


def _engine_at(algo: Any, state: State) -> Any:
    if algo._last is state and algo._engine is not None:
        return algo._engine
    twin = copy.deepcopy(algo)
    twin._sync(state)
    return twin._engine


def ap_explain(algo: Any, state: State, index: int) -> Explanation:
    """The messages behind point ``index``'s exemplar at ``state``."""
    exemplar = int(state.model["exemplars"][index])
    centers = np.asarray(state.extras["exemplar_indices"])
    names = tuple(f"ex {int(k)}" for k in centers)
    best = int(np.searchsorted(centers, exemplar))
    engine = _engine_at(algo, state)
    if not isinstance(engine, MessageEngine):
        return Explanation(index, "messages", "exemplar of i: arg max_k∈Ψ α_ik + ρ_ik",
                           text=(f"Point {index}'s exemplar is {exemplar}. The messages are kept "
                                 "on a sparse graph (n_neighbors) and are not shown."))
    A, R = engine.A[index, centers], engine.R[index, centers]
    rule = algo.params.get("exemplar_rule", "paper")
    if not state.extras["n_self_exemplars"]:
        rule = "paper"  # no self-exemplar yet: every point takes its best candidate, arg max α + ρ
    evidence = engine.A[centers, centers] + engine.R[centers, centers]
    bars = [Bars("α_ik + ρ_ik", names, A + R, best)]
    # a self-exemplar is its own exemplar whatever its scores: no term decides it
    decides = "" if exemplar == index else "decides"
    if rule == "paper":
        equation = ("exemplar of i: arg max_{k∈Ψ} α_ik + ρ_ik, Ψ = {k : α_kk + ρ_kk > 0}; "
                    "ρ_ik = ŝ(i,k) − max_{k'≠k} (ŝ(i,k') + α_ik') (eq. 25), "
                    "α_ik = min(0, ρ_kk + Σ_{j∉{i,k}} max(0, ρ_jk)) (eq. 14)")
        bars += [Bars("availability α_ik", names, A, best, term=decides and "availability"),
                 Bars("responsibility ρ_ik", names, R, best, term=decides and "responsibility")]
    else:
        equation = ("exemplar of i (Frey & Dueck's refinement): arg max_{k∈Ψ} s(i,k) over the "
                    "refined exemplars, Ψ = {k : α_kk + ρ_kk > 0}")
        bars += [Bars("similarity s(i, k)", names, engine.S_hat[index, centers], best,
                      term=decides and "similarity"),
                 Bars("availability α_ik", names, A, best),
                 Bars("responsibility ρ_ik", names, R, best)]
    if engine.constrained:
        shift = engine.S_hat[index, centers] - engine.S[index, centers]
        bars.append(Bars("constraint messages Σω + Σγ in ŝ(i,k) (eq. 24)", names, shift, best))
    bars.append(Bars("self-evidence α_kk + ρ_kk (> 0: exemplar)", names, evidence, best))
    text = (f"Point {index}'s exemplar is {exemplar}"
            + (" (itself: a self-exemplar is its own exemplar)." if exemplar == index else ".")
            + (" Links reach ρ through the modified similarity ŝ = s + Σω + Σγ."
               if engine.constrained else ""))
    return Explanation(index, "messages", equation, tuple(bars), text)


def chooser_explain(algo: Any, state: State, index: int, what: str) -> Explanation:
    """The chooser network's messages behind point ``index``'s exemplar (ssap-g, ssap-l).

    ``what`` names a chooser row and a candidate column, e.g. "meta-point" or "macro-node".
    """
    twin = algo if algo._last is state and algo._engine is not None else copy.deepcopy(algo)
    twin._sync(state)
    e = twin._engine
    row = int(twin.row_of_point[index])
    choice = np.asarray(twin._choices())
    rule = algo.params["exemplar_rule"]
    if rule == "refine" and not twin._mask.any():
        rule = "paper"  # no self-exemplar yet: every chooser takes its best candidate
    if rule == "components":  # each node's own arg max alpha + rho, then the graph's components
        mine = int(twin._node_choice[row])
        cols = np.union1d(np.argsort(-(e.A[row] + e.R[row]), kind="stable")[:6], [mine])
    else:
        mine = int(choice[row])
        cols = np.unique(choice)
    names = tuple(f"cand {int(j)}" for j in cols)
    best = int(np.searchsorted(cols, mine))
    A, R = e.A[row, cols], e.R[row, cols]
    own = e.A[e.self_row[cols], cols] + e.R[e.self_row[cols], cols]
    bars = [Bars("α + ρ of the chooser", names, A + R, best)]
    # the row of a self-exemplar takes it (the best of its own): no term decides that
    decides = "" if rule != "components" and e.self_row[mine] == row else "decides"
    if rule == "refine":
        bars += [Bars("similarity ŝ(row, j)", names, e.S_hat[row, cols], best,
                      term=decides and "similarity"),
                 Bars("availability α", names, A, best), Bars("responsibility ρ", names, R, best)]
    else:
        bars += [Bars("availability α", names, A, best, term=decides and "availability"),
                 Bars("responsibility ρ", names, R, best, term=decides and "responsibility")]
    if e.first.size:
        bars.append(Bars("cannot-link messages Σγ in ŝ", names,
                         e.S_hat[row, cols] - e.S[row, cols], best))
    bars.append(Bars("self-evidence α + ρ at j's own row (> 0: exemplar)", names, own, best))
    members = np.flatnonzero(twin.row_of_point == row)
    text = (f"Point {index} chooses through {what} {row}"
            + (f" (points {', '.join(map(str, members[:8]))}{' ...' if members.size > 8 else ''})"
               if members.size > 1 else "")
            + f"; its candidate is {mine}, exemplar point "
            + f"{int(state.model['exemplars'][index])}.")
    if rule == "components":
        text += " Exemplars are the components of the graph of each node's arg max α + ρ."
    equation = ("chooser c picks arg max_j α_cj + ρ_cj over the self-exemplars (Frey & Dueck); "
                "ρ_cj = ŝ(c,j) − max_{k≠j}(ŝ(c,k) + α_ck), "
                "α_cj = min(0, max(ρ_jj, −p) + Σ_{k∉{c,j}} max(0, ρ_kj))")
    return Explanation(index, "messages", equation, tuple(bars), text)
