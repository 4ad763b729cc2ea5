"""SCSSAP with metric learning: Algorithm 2 of Arzeno & Vikalo (2015), section 5.2.

SCSSAP runs alternate with diagonal per-cluster (or global) metric learning, closed forms eq. 32
(regulariser eq. 29) and eq. 33 (eq. 30). The algorithm comes first, its closed forms after.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from pairlab import Param, State, hookimpl
from pairlab.errors import InvalidInputError

from .ap_messages import squared_distances
from .ap_params import N_NEIGHBORS, PAPER_RULE, PENALTIES, REFINE_RULE, damping, exemplar_rule
from .ap_sparse import pair_squared_distances
from .scssap import SCSSAP

__all__ = ["SCSSAPMetric", "learn_metric", "metric_regularizer"]


class SCSSAPMetric(SCSSAP):
    """SCSSAP with metric learning, Algorithm 2 of Arzeno & Vikalo (section 5.2).

    Rounds alternate a full SCSSAP run (Algorithm 1 from zero messages, ended by its own
    termination or ``round_max_iter``) with a closed-form update of diagonal, trace-one metrics
    A_u per cluster u (eq. 32 or 33). The similarity is s'(i, j) = -0.5 |x_i - x_j|^2_{A_i}
    - 0.5 |x_i - x_j|^2_{A_j}, A_i the metric of i's cluster, starting from A = I / D for all
    points. Each step is one message iteration; the step that starts a round also updates the
    metric. The run ends when the exemplars at the end of a round equal those of the previous
    round ``round_convergence_iter`` times in a row, after ``max_rounds`` rounds, or at
    ``max_iter`` iterations in all. The objective is eq. 28: eq. 6 under s' minus sum_i g(A_li).
    """

    name = "scssap-metric"
    title = "SCSSAP with metric learning (Algorithm 2)"
    citation = SCSSAP.citation + ", section 5.2"
    params = (
        damping(0.75, "0.75 in the paper, section 4.1"),
        *PENALTIES,
        Param("preference", float, None,
              "s(k, k); none = median of the whole similarity matrix of the round (diagonal "
              "zeros included)", nullable=True),
        Param("regularizer", str, "logdet",
              "logdet: g = -log det A (eq. 29, closed form eq. 32); entropy: g = h sum a log a "
              "(eq. 30, eq. 33)", choices=("logdet", "entropy")),
        Param("h", float, 0.1, "h of the entropy regulariser (eq. 30); 0.1 in section 5.3",
              low=0.0),
        Param("metric_scope", str, "cluster", "cluster: one metric per cluster; global: one for all",
              choices=("cluster", "global")),
        Param("max_rounds", int, 10, "maximum number of SCSSAP runs (metric updates + 1)", low=1),
        Param("round_convergence_iter", int, 1,
              "stop when the exemplars are unchanged from one round to the next this many times",
              low=1),
        Param("round_max_iter", int, 200, "maximum iterations of one SCSSAP run", low=1),
        Param("convergence_iter", int, 15,
              "a SCSSAP run ends when its exemplars have not changed for this many iterations",
              low=1),
        Param("tol", float, 0.0, "a SCSSAP run also ends when no message changes by tol (0: off)",
              low=0.0),
        Param("max_iter", int, 2000, "maximum number of message iterations over all rounds", low=1),
        N_NEIGHBORS,
        exemplar_rule("paper", {"paper": PAPER_RULE, "refine": REFINE_RULE}),
    )
    objective_name = "net similarity with metric (eq. 28)"

    def _n_square(self) -> int:
        return super()._n_square() + 1  # a round's new similarity is built beside the old

    def similarity_matrix(self) -> np.ndarray:
        """s'(i, j) = -0.5 |x_i - x_j|^2_{A_i} - 0.5 |x_i - x_j|^2_{A_j} under the current metrics."""
        W = self._weights[self._metric_of]                   # (n, d) metric of each point's cluster
        D = squared_distances(self.X, W)
        S = D + D.T
        S *= -0.5
        return S

    def pair_similarity(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        W = self._weights[self._metric_of]
        S = pair_squared_distances(self.X, rows, cols, W)
        S += pair_squared_distances(self.X, cols, rows, W)
        S *= -0.5
        return S

    def _start(self) -> None:
        n, d = self.X.shape
        self._weights = np.full((1, d), 1.0 / d)
        self._metric_of = np.zeros(n, dtype=np.int64)
        self._round, self._round_iter, self._round_done = 1, 0, False
        self._unchanged_rounds, self._done = 0, False
        self._round_end: np.ndarray | None = None
        self._exemplars = np.arange(n)
        if self._engine is None:
            self._engine = self._new_engine()
        else:
            self._set_metric_similarity()
        self._previous_mask = np.zeros(n, dtype=bool)
        self._stable = 0

    def _set_metric_similarity(self) -> None:
        eng = self._engine
        self._engine.set_similarity(self._similarity(getattr(eng, "graph", None)))

    def _advance(self) -> tuple[float | None, np.ndarray]:
        p = self.params
        if self._round_done and not self._done:
            self._weights, self._metric_of = learn_metric(
                self.X, self._exemplars, p["regularizer"], p["h"], p["metric_scope"])
            self._set_metric_similarity()
            self._round += 1
            self._round_iter, self._round_done = 0, False
            self._previous_mask = np.zeros(self.dataset.n_samples, dtype=bool)
            self._stable = 0
        change, mask = super()._advance()
        self._round_iter += 1
        k = p["convergence_iter"]
        inner = (mask.any() and self._stable >= k and self._round_iter > k) or (
            p["tol"] > 0 and change is not None and change < p["tol"])
        if inner or self._round_iter >= p["round_max_iter"] or self.dataset.n_samples == 1:
            self._round_done = True
            self._exemplars = self._engine.exemplars(mask, p["exemplar_rule"])
            if self._round_end is not None and np.array_equal(self._round_end, self._exemplars):
                self._unchanged_rounds += 1
            else:
                self._unchanged_rounds = 0
            self._round_end = self._exemplars.copy()
            self._done = (self._unchanged_rounds >= p["round_convergence_iter"]
                          or self._round >= p["max_rounds"])
        return change, mask

    def _extra_info(self) -> dict[str, Any]:
        return {
            "round": self._round,
            "round_iteration": self._round_iter,
            "round_done": self._round_done,
            "metric_converged": self._done,
            "feature_weights": self._weights.copy(),
        }

    def _regularizer_total(self) -> float:
        reg = metric_regularizer(self._weights, self.params["regularizer"], self.params["h"])
        return float(reg[self._metric_of].sum())

    def converged(self, previous: State, current: State) -> bool:
        return bool(current.extras["metric_converged"])


# -- metric learning (Algorithm 2) ---------------------------------------------------------------
def learn_metric(X: np.ndarray, exemplars: np.ndarray, regularizer: str, h: float,
                 scope: str = "cluster") -> tuple[np.ndarray, np.ndarray]:
    """Diagonal metrics (feature weights) per cluster, eq. 32 or eq. 33; rows sum to 1.

    Returns (weights (k, d), cluster of each point (n,)); ``scope="global"`` learns one metric
    for all points. ``regularizer="logdet"`` (eq. 29): a_d = |X_u| / sum_i (x_id - c_id)^2
    (eq. 32), then divided by its sum as in the paper's experiments; features with zero spread
    get infinite weight, so in the limit the weight is uniform over them and 0 elsewhere (the
    paper's remark in section 5.3; a singleton cluster gets uniform weights).
    ``regularizer="entropy"`` (eq. 30): a_d proportional to exp(-sum_i (x_id - c_id)^2 /
    (h |X_u|)) (eq. 33); h = 0 is its limit, uniform over the features of least spread.
    """
    n = X.shape[0]
    if scope == "global":
        lab = np.zeros(n, dtype=np.int64)
    else:
        _, lab = np.unique(exemplars, return_inverse=True)
    k = int(lab.max()) + 1
    dev = (X - X[exemplars]) ** 2
    onehot = sp.csr_matrix((np.ones(n), (lab, np.arange(n))), shape=(k, n))
    spread = np.asarray(onehot @ dev)                       # sum_i (x_id - c_id)^2, (k, d)
    size = np.bincount(lab, minlength=k).astype(float)[:, None]
    if regularizer == "logdet":
        zero = spread <= 0
        with np.errstate(divide="ignore"):
            w = np.where(zero.any(axis=1, keepdims=True), zero.astype(float), size / spread)
    elif regularizer == "entropy":
        if h > 0:
            z = -spread / (h * size)
            z -= z.max(axis=1, keepdims=True)
            w = np.exp(z)
        else:
            w = (spread == spread.min(axis=1, keepdims=True)).astype(float)
    else:
        raise InvalidInputError(f"regularizer must be 'logdet' or 'entropy', got {regularizer!r}.")
    w /= w.sum(axis=1, keepdims=True)
    return w, lab


def metric_regularizer(weights: np.ndarray, regularizer: str, h: float) -> np.ndarray:
    """g(A_u) of eq. 29 (-log det A) or eq. 30 (h sum a log a) for every row of ``weights``."""
    if regularizer == "logdet":
        with np.errstate(divide="ignore"):
            return -np.log(weights).sum(axis=1)
    safe = np.where(weights > 0, weights, 1.0)
    return h * (weights * np.log(safe)).sum(axis=1)


@hookimpl
def pairlab_algorithms():
    return [SCSSAPMetric]
