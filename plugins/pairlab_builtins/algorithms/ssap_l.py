"""Soft-constraint affinity propagation with must-links (SSAP-L): Leone, Sumedha & Weigt (2008).

"Unsupervised and semi-supervised clustering by message passing: soft-constraint affinity
propagation", Eur. Phys. J. B 66:125-135 (SCAP introduced in Bioinformatics 23:2708, 2007). SCAP
softens affinity propagation's exemplar-consistency constraint: a point chosen as exemplar by
others but not by itself costs a finite penalty p instead of being forbidden, so the messages
become (max-sum, derived in :mod:`.ap_choosers`)

    rho_ij   = s(i, j) - max_{k != j} (alpha_ik + s(i, k)),
    alpha_ij = min(0, max(rho_jj, -p) + sum_{k not in {i, j}} max(0, rho_kj)),   i != j,
    alpha_jj = min(p, sum_{k != j} max(0, rho_kj)),

and p = inf is affinity propagation. Exemplar choices may then form chains (an exemplar that
chooses another exemplar); SCAP's clusters are the connected components of the graph i -> c_i with
c_i = arg max_k (alpha_ik + rho_ik). For semi-supervision the points known to belong together are
merged into one macro-node, whose similarity to any other node is the maximum similarity between
their points (Arzeno & Vikalo, section 2.1); SSAP-L uses must-links only, so a macro-node is a
must-link group (the transitive closure of the must-links).

Choices (docs/algorithms/ssap_l.md): p defaults to inf (the hard limit; neither Leone et al.'s
nor Arzeno & Vikalo's p for this comparison is known to us); a macro-node's preference is the
largest preference of its points; cannot-links are not used; each point's drawn exemplar is the
representative (medoid) point of its cluster's most chosen node.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from pairlab import Param, State, hookimpl
from pairlab.explanation import Explanation

from .ap_choosers import CHOOSER_PARAMS, ChooserAlgorithm, block_max
from .ap_params import exemplar_rule
from .explain_ap import chooser_explain

__all__ = ["SSAPL"]


class SSAPL(ChooserAlgorithm):
    """Leone et al.'s soft-constraint affinity propagation with must-link macro-nodes.

    Each step is one iteration of the messages. States: ``labels``, ``model["exemplars"]`` each
    point's cluster representative, ``model["meta_points"]`` the mean position of each macro-node,
    ``objective`` SCAP's -E: the similarity of every node to its choice minus p for every node
    chosen by others but not by itself.
    """

    name = "ssap-l"
    title = "SSAP-L (soft-constraint affinity propagation, must-links)"
    citation = ("Leone, Sumedha & Weigt (2008), Unsupervised and semi-supervised clustering by "
                "message passing: soft-constraint affinity propagation, Eur. Phys. J. B 66:125-135")
    params = (
        *CHOOSER_PARAMS,
        Param("p", float, math.inf,
              "penalty p >= 0 for an exemplar that does not choose itself; inf = affinity "
              "propagation's hard constraint", low=0.0),
        exemplar_rule("components", {
            "components": "connected components of i -> arg max (alpha + rho) (SCAP)",
            "paper": "arg max over self-exemplars of alpha + rho",
            "refine": "the most similar self-exemplar (with no links: Frey & Dueck's refinement, "
                      "as scikit-learn)"}),
    )
    objective_name = "SCAP -E (similarities minus p per inconsistent exemplar)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.p_soft = float(self.params["p"])
        # SCAP's clusters come from every node's choice, which need not be a self-exemplar
        self.needs_self_exemplars = self.params["exemplar_rule"] != "components"
        if self.constraints.n_cannot_link:
            warnings.warn(f"ssap-l uses must-links only (Leone et al.); "
                          f"{self.constraints.n_cannot_link} cannot-link(s) are ignored.",
                          UserWarning, stacklevel=2)

    def ignored_links(self) -> tuple[np.ndarray, np.ndarray]:
        """Every cannot-link: SSAP-L uses must-links only."""
        c = self.constraints
        return np.zeros(c.n_must_link, dtype=bool), np.ones(c.n_cannot_link, dtype=bool)

    def build(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        node = self.constraints.chunklet_index
        r = int(node.max()) + 1
        if not self.constraints.chunklets:                # no must-links: every node a point
            self.representative = np.arange(r)
            return self.S, np.arange(r), node, None
        S_nodes = block_max(block_max(self.S, node, axis=0), node, axis=1)
        diag = np.full(r, -np.inf)
        np.maximum.at(diag, node, np.diag(self.S))
        S_nodes[np.arange(r), np.arange(r)] = diag
        # representative point of each node: the member with the largest summed similarity to
        # the other members (itself for a single point)
        within = self.S.copy()
        np.fill_diagonal(within, 0.0)
        same = node[:, None] == node[None, :]
        score = np.where(same, within, 0.0).sum(axis=1)
        order = np.lexsort((np.arange(node.size), -score, node))
        first = np.r_[True, np.diff(node[order]) != 0]
        self.representative = order[first]
        return S_nodes, np.arange(r), node, None

    def signature(self) -> np.ndarray:
        """With SCAP's components: every node's choice arg max (alpha + rho) must be stable."""
        if self.params["exemplar_rule"] != "components":
            return super().signature()
        e = self._engine
        return np.argmax(e.A + e.R, axis=1)

    def _choices(self) -> np.ndarray:
        if self.params["exemplar_rule"] != "components":
            return super()._choices()
        e = self._engine
        c = np.argmax(e.A + e.R, axis=1)
        r = e.r
        graph = csr_matrix((np.ones(r), (np.arange(r), c)), shape=(r, r))
        _, comp = connected_components(graph, directed=False)
        # each component is represented by its most chosen node (ties: the smallest index)
        chosen_count = np.bincount(c, minlength=r)
        order = np.lexsort((np.arange(r), -chosen_count, comp))
        head = order[np.r_[True, np.diff(comp[order]) != 0]]
        rep_of_comp = np.empty(comp.max() + 1, dtype=np.int64)
        rep_of_comp[comp[head]] = head
        self._node_choice = c
        return rep_of_comp[comp]

    def point_exemplars(self, choice: np.ndarray) -> np.ndarray:
        return self.representative[choice[self.row_of_point]]

    def objective_choice(self, choice: np.ndarray) -> np.ndarray:
        return self._node_choice if self.params["exemplar_rule"] == "components" else choice

    def penalty(self, c: np.ndarray) -> float:
        r = c.size
        chosen = np.zeros(r, dtype=bool)
        others = c != np.arange(r)
        chosen[c[others]] = True
        inconsistent = int(np.sum(chosen & (c != np.arange(r))))
        return 0.0 if inconsistent == 0 else self.p_soft * inconsistent

    def extra_info(self, choice: np.ndarray) -> dict[str, Any]:
        return {"n_macro_nodes": len(self.constraints.chunklets), "p": self.p_soft}

    def explain(self, state: State, index: int) -> Explanation:
        """The macro-node network's availabilities and responsibilities behind the exemplar."""
        return chooser_explain(self, state, index, "macro-node")


@hookimpl
def pairlab_algorithms():
    return [SSAPL]
