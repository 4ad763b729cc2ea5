"""Semi-supervised affinity propagation with meta-points (SSAP-G): Givoni & Frey (2009).

"Semi-supervised affinity propagation with instance-level constraints", AISTATS 2009, JMLR W&CP 5,
pp. 161-168, as described by Arzeno & Vikalo (TPAMI 2015, section 2.1, eq. 1), the comparison this
baseline serves. One meta-point (MTP) stands for each must-link group (the transitive closure of
the must-links) and, in our reading, for every other point as well (a point in a cannot-link that
is in no must-link group gets a meta-point of its own, as the paper says; for a point in no link
its meta-point is the point itself). Meta-points choose exemplars; they cannot be exemplars, and a
meta-point cannot choose another meta-point, so every member of a group gets the exemplar its
meta-point chooses (must-links are enforced). The similarity of meta-point m to candidate j is

    s(MTP_m, j) = max_{i in P_m} s(i, j)   for j not in P_m,        (Arzeno & Vikalo, eq. 1)
    s(MTP_m, j) = s(j, j)                  for j in P_m,

the second line being the preference of a member exemplar (its fellow members cost 0, the "0 if
i in P_m" of eq. 1). A cannot-link factor between the meta-points of two linked points is -inf when
they choose the same exemplar; its max-sum message is Arzeno & Vikalo's eq. 17 with q = inf, folded
into the meta-point's similarity ("the new updates can be interpreted as a change in the similarity
for the meta-points that are connected by the cannot-link constraints"). The message passing is
:class:`.ap_choosers.ChooserAP`; without links every meta-point is its point and SSAP-G is
affinity propagation, message for message.

Choices (docs/algorithms/ssap_g.md): the reading above of a paper we could not consult directly;
links are certain (confidences ignored) but max-sum on a loopy graph can still break a
cannot-link, which is reported (``certain_links``, LinkViolationWarning); a cannot-link inside a
must-link group cannot be honoured and is dropped (``extras["ignored_cannot_links"]``), as
Arzeno & Vikalo observe; the infinite penalty is capped at 2 n (max s - min s) + 1 in the
messages, as in ``scssap``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pairlab import State, hookimpl
from pairlab.explanation import Explanation

from .ap_choosers import CHOOSER_PARAMS, ChooserAlgorithm, block_max
from .ap_params import exemplar_rule
from .explain_ap import chooser_explain

__all__ = ["SSAPG"]


class SSAPG(ChooserAlgorithm):
    """Givoni & Frey's semi-supervised affinity propagation with meta-points.

    Each step is one iteration of the messages. States: ``labels`` (by exemplar index),
    ``model["exemplars"]`` each point's exemplar, ``model["meta_points"]`` the mean position of
    each must-link group's points, ``objective`` the net similarity of the meta-points'
    choices, ``extras`` the exemplars and the numbers of broken and ignored links.
    """

    name = "ssap-g"
    title = "SSAP-G (semi-supervised affinity propagation, meta-points)"
    citation = ("Givoni & Frey (2009), Semi-supervised affinity propagation with instance-level "
                "constraints, AISTATS 2009, JMLR W&CP 5:161-168")
    params = (
        *CHOOSER_PARAMS,
        exemplar_rule("paper", {
            "paper": "each meta-point takes the self-exemplar of largest alpha + rho",
            "refine": "the most similar one (with no links: Frey & Dueck's refinement, as scikit-learn)"}),
    )
    objective_name = "net similarity of the meta-points"

    def build(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        c = self.constraints
        row = c.chunklet_index
        if not c.chunklets:                               # no must-links: every MTP is its point
            cl = c.chunklet_cannot_link
            return self.S, row, row, cl if len(cl) else None
        S_rows = block_max(self.S, row, axis=0)
        cols = np.arange(self.S.shape[0])
        S_rows[row, cols] = self.S[cols, cols]
        cl = c.chunklet_cannot_link
        return S_rows, row, row, cl if len(cl) else None

    def certain_links(self) -> tuple[np.ndarray, np.ndarray]:
        """Every link is certain (its factor is -inf when broken) except the dropped conflicts.

        Max-sum on the loopy graph of cannot-link factors is approximate, so a result can still
        break a cannot-link; ``Run.violated_links`` and a LinkViolationWarning then say so.
        """
        c = self.constraints
        if not self.uses_constraints:
            return super().certain_links()
        chunk = c.chunklet_index[c.cannot_link].reshape(-1, 2)
        return np.ones(c.n_must_link, bool), chunk[:, 0] != chunk[:, 1]

    def extra_info(self, choice: np.ndarray) -> dict[str, Any]:
        cl = self.constraints.chunklet_cannot_link
        return {"n_meta_points": len(self.constraints.chunklets),
                "ignored_cannot_links": len(self.constraints.conflicts),
                "broken_meta_point_links": int(np.sum(choice[cl[:, 0]] == choice[cl[:, 1]]))}

    def explain(self, state: State, index: int) -> Explanation:
        """The meta-point network's availabilities and responsibilities behind the exemplar."""
        return chooser_explain(self, state, index, "meta-point")


@hookimpl
def pairlab_algorithms():
    return [SSAPG]
