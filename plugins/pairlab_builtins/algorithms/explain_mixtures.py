"""Explanations of the E-step of the constrained mixtures: PPC and constrained EM.

Both posteriors have the form ``log r_ik = prior_k + data_k + link_k - log norm``: the point's
(or its chunklet's) mixing weight and Gaussian log-densities, plus what the pairwise relations
add. Each term is one :class:`~pairlab.explanation.Bars` with ``term`` set, so the app can say
which one tipped a change of label. The link term is the one the posterior method in use gives:

* mean field (PPC eq. 3.5 with the factor 2 of section 5.2.2): ``2 sum_j W_ij Q_j(k)``;
* exact enumeration / sum-product (PPC eq. 2.11 marginalised, Shental eq. 3 and 9) and Gibbs
  (PPC eq. 3.1, the marginal estimated from the sweeps): the shift the relations cause,
  ``log r_ik - log softmax_k(prior + data)``, i.e. the log-message from the rest of the clique.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import logsumexp

from pairlab import State
from pairlab.explanation import Bars, Explanation


def _names(k: int) -> tuple[str, ...]:
    return tuple(f"k={j}" for j in range(k))


def _members_log_density(algo: Any, state: State, members: np.ndarray) -> np.ndarray:
    """sum over ``members`` of log N(x_m | mu_k, Sigma_k), one value per component."""
    model = state.model
    return algo.log_gaussian(algo.X[members], np.asarray(model["means"]),
                             np.asarray(model["precisions_cholesky"])).sum(axis=0)


def _implied_link_term(resp_row: np.ndarray, unary: np.ndarray) -> np.ndarray:
    """log r_k - log softmax_k(unary): what the relations add to the unary log-odds."""
    log_soft = unary - logsumexp(unary)
    with np.errstate(divide="ignore", invalid="ignore"):
        link = np.log(resp_row) - log_soft
    return np.where(np.isneginf(log_soft) & (resp_row == 0), 0.0, link)


def _terms(prior: np.ndarray, data: np.ndarray, link: np.ndarray, r: np.ndarray,
           link_title: str) -> tuple[Bars, ...]:
    names, best = _names(r.size), int(r.argmax())
    return (Bars("posterior r_ik", names, r, best),
            Bars("prior: log mixing weight", names, prior, best, term="prior"),
            Bars("distance: Gaussian log-density", names, data, best, term="distance"),
            Bars(link_title, names, link, best, term="link term"))


def _partners(W_row: Any, members: np.ndarray, resp: np.ndarray, limit: int = 4) -> str:
    cols, vals = W_row.indices, W_row.data
    keep = ~np.isin(cols, members)
    cols, vals = cols[keep], vals[keep]
    if cols.size == 0:
        return ""
    order = np.argsort(-np.abs(vals), kind="stable")[:limit]
    shown = ", ".join(f"{int(cols[o])} (W={vals[o]:+.3g}, label {int(resp[cols[o]].argmax())})"
                      for o in order)
    more = f" and {cols.size - limit} more" if cols.size > limit else ""
    return f" Related points: {shown}{more}."


def ppc_explain(algo: Any, state: State, index: int) -> Explanation | None:
    """PPC's E-step for point ``index`` (see the module docstring)."""
    if state.phase:
        return None
    g = algo._graph
    node = int(g.node_of[index])
    members = np.flatnonzero(g.node_of == node) if g.agg is not None else np.array([index])
    with np.errstate(divide="ignore"):
        prior = members.size * np.log(np.asarray(state.model["weights"]))
    data = _members_log_density(algo, state, members)
    resp = np.asarray(state.responsibilities)
    r = resp[index]
    chunk = (f" Hard links make points {', '.join(map(str, members[:8]))}"
             f"{' ...' if members.size > 8 else ''} one chunklet (eq. 2.10): its terms sum over "
             "them." if members.size > 1 else "")
    approx = algo._approx is not None and node in set(algo._approx.nodes.tolist())
    single = g.comp_size[g.comp[node]] == 1
    if single:
        method, link = "no relations", np.zeros(r.size)
        equation = "E-step (eq. 2.11, no relation): r_ik ∝ π_k^|c| Π_m N(x_m | μ_k, Σ_k)"
        title = "link term (none)"
    elif approx and algo.params["inference"] == "gibbs":
        method, link = "Gibbs", _implied_link_term(r, prior + data)
        equation = ("Gibbs (eq. 3.1): P(z_i = k | z_-i) ∝ π_k N(x_i | θ_k) exp(2 Σ_j W_ij δ(z_j, k)); "
                    "r_ik = the sweeps' average")
        title = "link term: log r_ik − log softmax(prior + distance)"
    elif approx:
        method = "mean field"
        Q = resp if g.agg is None else resp[_first_member(g)]
        link = 2.0 * np.asarray(g.soft[node] @ Q).ravel()
        equation = ("mean field (eq. 3.5, factor 2 of §5.2.2): "
                    "Q_i(k) ∝ π_k N(x_i | θ_k) exp(2 Σ_j W_ij Q_j(k))")
        title = "link term: 2 Σ_j W_ij Q_j(k)"
    else:
        method, link = "exact", _implied_link_term(r, prior + data)
        equation = ("exact (eq. 2.11 summed over the clique): r_ik ∝ Σ_{Z: z_i = k} "
                    "Π_m π_{z_m} N(x_m | θ_{z_m}) Π_{m≠j} exp(W_mj δ(z_m, z_j))")
        title = "link term: log r_ik − log softmax(prior + distance)"
    text = (f"Posterior method: {method}. log r_ik = prior + distance + link term − log norm."
            + chunk + _partners(algo.W[index], members, resp))
    return Explanation(index, "E-step", equation, _terms(prior, data, link, r, title), text)


def _first_member(g: Any) -> np.ndarray:
    """One point of every node of a link graph (its lowest index)."""
    first = np.full(g.n_nodes, -1)
    order = np.arange(g.node_of.size)[::-1]
    first[g.node_of[order]] = order
    return first


def constrained_em_explain(algo: Any, state: State, index: int) -> Explanation | None:
    """Constrained EM's E-step for point ``index``: its chunklet's terms (Shental eq. 3, 9)."""
    if state.phase:
        return None
    c = int(algo._ci[index])
    members = np.flatnonzero(algo._ci == c)
    with np.errstate(divide="ignore"):
        prior = algo._s[c] * np.log(np.asarray(state.model["weights"]))
    data = _members_log_density(algo, state, members)
    r = np.asarray(state.responsibilities[index])
    linked = algo._net is not None and c in set(algo._linked.tolist())
    if linked:
        link = _implied_link_term(r, prior + data)
        exact = "exact" if algo._net.exact else "spanning-tree approximation (§2.2)"
        net = (f" Its chunklet is in the Markov network of cannot-links ({exact}); the network "
               "term is the log-message from the chunklets it cannot share a label with.")
    else:
        link, net = np.zeros(r.size), " No cannot-link reaches its chunklet."
    equation = ("E-step (eq. 3, 9): p(y_j = l | X) ∝ α_l^s_j Π_{x∈X_j} N(x | μ_l, Σ_l) × "
                "Σ over the other chunklets' labels of Π (1 − δ(y_a, y_b))")
    s = "1 (assumption 1)" if algo.params["sampling_assumption"] == 1 else f"|X_j| = {members.size}"
    text = (f"Point {index} is in chunklet {c} of {members.size} point(s)"
            f"{': ' + ', '.join(map(str, members[:8])) if members.size > 1 else ''}; s_j = {s}."
            + net)
    return Explanation(index, "E-step", equation,
                       _terms(prior, data, link, r, "network term (cannot-links)"), text)


def _point_terms(algo: Any, state: State, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A point's E-step inputs: log α_k, log N(x_i | μ_k, Σ_k) and its responsibilities."""
    with np.errstate(divide="ignore"):
        prior = np.log(np.asarray(state.model["weights"]))
    data = _members_log_density(algo, state, np.array([index]))
    return prior, data, np.asarray(state.responsibilities[index])


def em_pc_explain(algo: Any, state: State, index: int) -> Explanation | None:
    """EM-PC's projected E-step for point ``index``: q_i(k) ∝ α_k N(x_i) exp(−Σ_c λ_ck)."""
    if state.phase:
        return None
    prior, data, r = _point_terms(algo, state, index)
    pairs = algo.pairs
    mine = np.flatnonzero((pairs == index).any(axis=1)) if len(pairs) else np.zeros(0, int)
    dual = state.extras.get("dual")
    link = (-np.asarray(dual)[mine].sum(axis=0) if dual is not None and mine.size
            else np.zeros(r.size))
    shown = ", ".join(f"{int(pairs[c][pairs[c] != index][0])} (bound {algo.bound[c]:.3g})"
                      for c in mine[:6])
    text = ("log q_ik = prior + distance − Σ_c λ_ck − log norm: the dual variables λ of the "
            "constraints q_i(k) + q_j(k) ≤ b push the point out of the clusters its cannot-linked "
            "partners fill." + (f" Cannot-linked to {shown}." if shown else " No cannot-link."))
    equation = ("E-step (KL projection, dual): q_i(k) ∝ p(k | x_i) exp(−Σ_{c ∋ i} λ_ck), "
                "λ* = argmin_{λ≥0} λ·b + Σ_i log Σ_k p(k | x_i) exp(−Σ_c λ_ck)")
    return Explanation(index, "E-step", equation,
                       _terms(prior, data, link, r, "link term: −Σ_c λ_ck"), text)


def gmm_explain(algo: Any, state: State, index: int) -> Explanation | None:
    """The plain E-step for point ``index``: r_ik ∝ α_k N(x_i | μ_k, Σ_k), in two terms."""
    if state.phase:
        return None
    prior, data, r = _point_terms(algo, state, index)
    names, best = _names(r.size), int(r.argmax())
    return Explanation(index, "E-step", algo.e_step_equation, (
        Bars("responsibilities r_ik", names, r, best),
        Bars("prior: log α_k", names, prior, best, term="prior"),
        Bars("distance: log N(x_i | μ_k, Σ_k)", names, data, best, term="distance")),
        text="log r_ik = log α_k + log N(x_i | μ_k, Σ_k) − log Σ_j α_j N(x_i | μ_j, Σ_j).")
