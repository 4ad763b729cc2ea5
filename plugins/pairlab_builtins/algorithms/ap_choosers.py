"""Affinity propagation over *choosers*: the message core of ``ssap-g`` and ``ssap-l``.

Frey & Dueck's responsibilities and availabilities on a rectangular (r, n) similarity: rows are
the choosers (data points, or nodes standing for several points: Givoni & Frey's meta-points,
Leone et al.'s macro-nodes) and columns the candidate exemplars. Column j's "self" entry is
(self_row[j], j): candidate j is an exemplar exactly when the chooser it belongs to chooses it.
With one chooser per point (self_row = identity) this is affinity propagation, operation for
operation as in :mod:`.ap_messages` and scikit-learn, so the results agree bit for bit.

Two generalisations sit on top:

* Leone, Sumedha & Weigt's soft constraint (SCAP): the exemplar-consistency factor costs a finite
  p instead of -inf when j is chosen by others but not by itself. Max-sum then gives
  alpha_ij = min(0, max(rho_jj, -p) + sum_{k not in {i, j}} max(0, rho_kj)) and
  alpha_jj = min(p, sum_{k != j} max(0, rho_kj)); p = inf is affinity propagation.
* Givoni & Frey's cannot-link factors between two choosers a, b (-inf when they choose the same
  exemplar j): the message to c_aj is gamma_a<-b(j) = -max(0, alpha_bj + rho_bj - gamma_b<-a(j)),
  i.e. Arzeno & Vikalo's cannot-link message (their eq. 17) with an infinite penalty; it is
  folded into the similarity, s_hat(a, j) = s(a, j) + sum_b gamma_a<-b(j).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pairlab import Algorithm, Param, State
from pairlab.errors import InvalidInputError

from .ap_messages import (
    available_memory,
    identify_exemplars,
    responsibility_update,
    squared_distances,
)
from .ap_params import AFFINITY, CONVERGENCE_ITER, MAX_ITER, PREFERENCE, damping

__all__ = ["CHOOSER_PARAMS", "ChooserAP", "ChooserAlgorithm", "block_max"]


def block_max(S: np.ndarray, groups: np.ndarray, axis: int) -> np.ndarray:
    """Maximum of S over the rows (axis 0) or columns (axis 1) of each group id 0..g-1."""
    order = np.argsort(groups, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(groups[order]) != 0])
    return np.maximum.reduceat(S.take(order, axis=axis), starts, axis=axis)


class ChooserAP:
    """Messages A (alpha), R (rho) and cannot-link messages gamma for one chooser similarity.

    ``S`` (r, n) holds s(row, j) with the preferences at the self entries; ``self_row`` (n,) the
    chooser of each candidate; ``p`` the SCAP penalty (inf: hard); ``cl_rows`` (c, 2) pairs of
    choosers that must not choose the same exemplar; ``q_cap`` the finite stand-in for the
    infinite cannot-link penalty (see :class:`.ap_messages.MessageEngine`).
    Order of one iteration (Frey & Dueck): gamma from the previous messages, s_hat, rho, alpha.
    """

    def __init__(self, S: np.ndarray, self_row: np.ndarray, damping: float, p: float = np.inf,
                 cl_rows: np.ndarray | None = None) -> None:
        self.S = S
        self.r, self.n = S.shape
        self.self_row = np.asarray(self_row, dtype=np.intp)
        self.cols = np.arange(self.n)
        self.damping = damping
        self.p = float(p)
        self.A = np.zeros_like(S)
        self.R = np.zeros_like(S)
        self.tmp = np.empty_like(S)
        cl = np.empty((0, 2), dtype=np.intp) if cl_rows is None else np.asarray(cl_rows, np.intp)
        self.first = np.r_[cl[:, 0], cl[:, 1]]
        self.second = np.r_[cl[:, 1], cl[:, 0]]
        self.gamma = np.zeros((self.first.size, self.n))
        # gamma rows grouped by their chooser, for s_hat = s + sum of a chooser's gamma rows
        self._by_first = np.argsort(self.first, kind="stable")
        firsts = self.first[self._by_first]
        self._starts = np.flatnonzero(np.r_[True, np.diff(firsts) != 0]) if firsts.size else firsts
        self._linked_rows = firsts[self._starts] if firsts.size else firsts
        span = float(S.max() - S.min()) if S.size else 0.0
        self.q_cap = 2.0 * self.n * span + 1.0
        self.S_hat = S.copy() if self.first.size else S

    # -- one iteration ----------------------------------------------------------------------------
    def _cannot_link(self) -> None:
        """gamma from the previous messages and s_hat = s + a chooser's gamma rows, in place
        (:func:`.ap_chooser_updates.cannot_link_messages`), the floats of the numpy form::

            lam = A[second] + R[second]; lam[:half] -= gamma[half:]; lam[half:] -= gamma[:half]
            gamma = clip(-lam, -q_cap, 0)
            S_hat[linked_rows] = S[linked_rows] + add.reduceat(gamma[by_first], starts, axis=0)
        """
        from .ap_chooser_updates import cannot_link_messages

        cannot_link_messages(self.A, self.R, self.S, self.S_hat, self.gamma, self.second,
                             self._by_first, self._starts, self._linked_rows, self.q_cap)

    def _responsibilities(self) -> None:
        """rho_ij = s_hat(i, j) - max_{k != j} (s_hat(i, k) + alpha_ik), damped (the (r, n) rows
        of the chooser network go through AP's own update)."""
        responsibility_update(self.S_hat, self.A, self.R, self.damping)

    def _availabilities(self) -> None:
        """alpha as in the module docstring (SCAP with penalty p), damped, in one compiled pass
        (:func:`.ap_chooser_updates.chooser_availabilities`), the floats of the numpy form::

            tmp = maximum(R, 0); tmp[own] = maximum(R[own], -p); tmp -= tmp.sum(axis=0)
            diag = maximum(tmp[own], -p); clip(tmp, 0, inf, out=tmp); tmp[own] = diag
            A = damping A - (1 - damping) tmp
        """
        from .ap_chooser_updates import chooser_availabilities

        chooser_availabilities(self.R, self.A, self.self_row, self.p, self.damping)

    def iterate(self) -> None:
        if self.n < 2:
            return
        if self.first.size:
            self._cannot_link()
        self._responsibilities()
        self._availabilities()

    # -- read-out ----------------------------------------------------------------------------------
    def self_exemplars(self) -> np.ndarray:
        """Boolean (n,): alpha + rho > 0 at each candidate's self entry."""
        own = (self.self_row, self.cols)
        return (self.A[own] + self.R[own]) > 0

    def choices(self, mask: np.ndarray, rule: str = "paper") -> np.ndarray:
        """The exemplar column chosen by every chooser row, shape (r,).

        ``paper``: arg max over the self-exemplars of alpha + rho (Frey & Dueck's belief);
        ``nearest``: arg max over them of s_hat (Frey & Dueck's assignment, without their medoid
        refinement). A row that is the self row of self-exemplars takes the best of those. With no
        self-exemplar yet, every row takes its best candidate and each chosen candidate's own row
        is made to choose it, so every state is a clustering.
        """
        A, R = self.A, self.R
        cols = np.flatnonzero(mask)
        if cols.size == 0:
            c = np.argmax(np.add(A, R, out=self.tmp), axis=1)
            chosen = np.unique(c)
            c[self.self_row[chosen]] = chosen
            return c
        if rule == "paper":  # cols[argmax(A[:, cols] + R[:, cols], axis=1)], compiled
            from .ap_chooser_updates import best_columns

            c = best_columns(A, R, cols)
        else:
            c = cols[np.argmax(self.S_hat[:, cols], axis=1)]
        rows = self.self_row[cols]
        own = A[rows, cols] + R[rows, cols]
        own_best = np.full(self.r, -np.inf)
        np.maximum.at(own_best, rows, own)
        hit = own == own_best[rows]
        c[rows[hit]] = cols[hit]
        return c


# -- the plugins' common stepper ------------------------------------------------------------------
_EPS = np.finfo(np.float64).eps
_TINY = np.finfo(np.float64).tiny

#: The parameters of the chooser plugins (ssap-g, ssap-l) besides their exemplar rules.
CHOOSER_PARAMS: tuple[Param, ...] = (
    damping(0.75, "0.75 in Arzeno & Vikalo's comparison"), PREFERENCE, MAX_ITER, CONVERGENCE_ITER, AFFINITY)


class ChooserAlgorithm(Algorithm):
    """Stepper shared by ``ssap-g`` and ``ssap-l``: affinity propagation on a chooser similarity.

    Subclasses implement :meth:`build` (the chooser similarity from the point similarity) and
    may override :meth:`point_exemplars`. The point similarity, its median preference and the
    tie-breaking noise s += (eps s + 100 tiny) N(0, 1) (seeded by the run's seed) are exactly
    those of ``affinity-propagation``, so without links the messages are the same. Termination
    as affinity propagation's: the self-exemplars unchanged for ``convergence_iter`` iterations,
    with at least one of them, after more than ``convergence_iter`` iterations.
    """

    p_soft: float = np.inf
    needs_self_exemplars: bool = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._noise_seed = int(self.rng.integers(2**63 - 1))
        pref = self.params["preference"]
        if pref is not None and not math.isfinite(pref):
            raise InvalidInputError(f"preference must be a finite number or None, got {pref}.")
        n = self.dataset.n_samples
        if self.params["affinity"] == "precomputed" and self.X.shape != (n, n):
            raise InvalidInputError(
                f"affinity='precomputed' needs X to be the (n, n) similarity matrix, got shape "
                f"{self.X.shape}; use affinity='euclidean' for feature vectors.")
        need, have = 8 * 6 * n * n, available_memory()
        if have is not None and need > have:
            raise InvalidInputError(
                f"{self.name} needs about {need / 2**30:.1f} GiB for n_samples={n} (six dense "
                f"n x n arrays) but {have / 2**30:.1f} GiB is available; cluster a subsample.")
        self.S = self._point_similarity()
        self._engine: ChooserAP | None = None
        self._last: State | None = None

    def _point_similarity(self) -> np.ndarray:
        if self.params["affinity"] == "precomputed":
            S = np.array(self.X, dtype=float)
        else:
            S = squared_distances(self.X)
            np.negative(S, out=S)
        n = S.shape[0]
        pref = self.params["preference"]
        S.flat[:: n + 1] = float(np.median(S)) if pref is None else pref
        noise = np.random.default_rng(self._noise_seed).standard_normal((n, n))
        noise *= _EPS * S + _TINY * 100
        S += noise
        return S

    # -- what subclasses define -------------------------------------------------------------------
    def build(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """(chooser similarity (r, n_cand), self_row (n_cand,), chooser of every point (n,),
        cannot-linked chooser pairs or None)."""
        raise NotImplementedError

    def point_exemplars(self, choice: np.ndarray) -> np.ndarray:
        """The exemplar point of every data point from the choice of every chooser."""
        return choice[self.row_of_point]

    # -- stepping -----------------------------------------------------------------------------------
    def _start(self) -> None:
        if self._engine is None:
            S_rows, self_row, self.row_of_point, cl = self.build()
            self._engine = ChooserAP(S_rows, self_row, self.params["damping"], self.p_soft, cl)
        else:
            e = self._engine
            e.A.fill(0.0)
            e.R.fill(0.0)
            e.gamma.fill(0.0)
            if e.first.size:
                e.S_hat[...] = e.S
        self._mask = np.zeros(self._engine.n, dtype=bool)
        self._signature = self._mask
        self._stable = 0

    def signature(self) -> np.ndarray:
        """What must stay unchanged for convergence: the self-exemplars (affinity propagation)."""
        return self._mask

    def _advance(self) -> None:
        self._engine.iterate()
        self._mask = self._engine.self_exemplars()
        sig = self.signature()
        self._stable = self._stable + 1 if np.array_equal(sig, self._signature) else 1
        self._signature = sig

    def _sync(self, state: State) -> None:
        if self._last is state and self._engine is not None:
            return
        self._start()
        for _ in range(state.iteration):
            self._advance()

    def _choices(self) -> np.ndarray:
        e = self._engine
        rule = self.params["exemplar_rule"]
        if rule == "refine" and e.r == e.n and np.array_equal(e.self_row, e.cols):
            return identify_exemplars(e.A, e.R, e.S_hat, self._mask, "refine")
        return e.choices(self._mask, "nearest" if rule == "refine" else "paper")

    def _state(self, iteration: int) -> State:
        e = self._engine
        choice = self._choices()
        exemplars = self.point_exemplars(choice).astype(np.int64)
        centers = np.unique(exemplars)
        labels = np.searchsorted(centers, exemplars).astype(np.int64)
        c = self.constraints
        info = {
            "exemplar_indices": centers,
            "n_self_exemplars": int(self._mask.sum()),
            "stable_iterations": int(self._stable),
            "broken_must_links": int(np.sum(labels[c.must_link[:, 0]] != labels[c.must_link[:, 1]])),
            "broken_cannot_links": int(np.sum(labels[c.cannot_link[:, 0]]
                                              == labels[c.cannot_link[:, 1]])),
            "n_choosers": e.r,
            **self.extra_info(choice),
        }
        model = {"exemplars": exemplars}
        model.update(self.meta_point_model())
        used = self.objective_choice(choice)
        objective = float(e.S[np.arange(e.r), used].sum())
        state = State(iteration, labels, objective=objective - self.penalty(used),
                      objective_name=self.objective_name, model=model, extras=info)
        self._last = state
        return state

    def extra_info(self, choice: np.ndarray) -> dict[str, Any]:
        return {}

    def objective_choice(self, choice: np.ndarray) -> np.ndarray:
        """The chooser choices the objective is computed for (default: ``choice`` itself)."""
        return choice

    def penalty(self, choice: np.ndarray) -> float:
        return 0.0

    def meta_point_model(self) -> dict[str, np.ndarray]:
        """``meta_points`` (m, d): the input-space mean of each meta-point's / macro-node's points."""
        groups = self.constraints.chunklets
        if not groups or self.params["affinity"] == "precomputed":
            return {}
        if getattr(self, "_meta_points", None) is None:  # the same every step: computed once
            self._meta_points = np.array([self.X[g].mean(axis=0) for g in groups])
        return {"meta_points": self._meta_points.copy()}

    def initialize(self) -> State:
        self._engine = None
        self._start()
        return self._state(0)

    def step(self, state: State) -> State:
        self._sync(state)
        self._advance()
        return self._state(state.iteration + 1)

    def converged(self, previous: State, current: State) -> bool:
        if self.dataset.n_samples == 1:
            return True
        k = self.params["convergence_iter"]
        return ((current.extras["n_self_exemplars"] > 0 or not self.needs_self_exemplars)
                and current.extras["stable_iterations"] >= k and current.iteration > k)
