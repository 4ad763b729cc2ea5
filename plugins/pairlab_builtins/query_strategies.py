"""Built-in query strategies (issue 36), registered through ``pairlab_query_strategies``.

* ``random``: uniform among the pairs not asked yet; a batch of B on no links draws exactly what
  ``draw_links(dataset, "pairs", {"n_pairs": B}, rng)`` draws.
* ``explore-consolidate``: Basu, Banerjee & Mooney (2004), section 5 (Explore by farthest-first
  traversal, then Consolidate).
* ``minmax``: Mallapragada, Jin & Jain (2008): Explore as above; Consolidate asks about the point
  whose largest similarity to the skeleton is smallest (the min-max criterion).
* ``npu``: Xiong, Azimi & Fern (2014): the point with the largest neighbourhood uncertainty per
  expected query (eq. 4 / eq. 6), asked against neighbourhoods by decreasing probability; the
  similarity of eq. 3 is the model's (default, fast) or the paper's random forest.
* ``uncertainty``: the pair whose same-cluster posterior is most uncertain under the fitted
  model's label posteriors (GM-PR, PPC, constrained EM): expected information gain of a noise-free
  answer, H(P(z_i = z_j)).
"""

from __future__ import annotations

import numpy as np

from pairlab import hookimpl
from pairlab.constraints import Constraints
from pairlab.errors import InvalidInputError
from pairlab.params import Param
from pairlab.query import (
    QueryStrategy,
    asked,
    binary_entropy,
    distinct_pairs,
    pair_same_probability,
)
from pairlab.state import State


class RandomQuery(QueryStrategy):
    name = "random"
    title = "Random pairs (today's link draws)"

    def propose(self, links: Constraints, state: State | None = None, batch: int = 1) -> np.ndarray:
        self._check(links, batch)
        done = asked(links)
        if not done:
            self.reason = "uniform among all pairs"
            return distinct_pairs(self.n, int(batch), self.rng)
        total = self.n * (self.n - 1) // 2
        if len(done) + batch > total:
            raise InvalidInputError("no unasked pairs left")
        out: list[tuple[int, int]] = []
        while len(out) < batch:
            i, j = (int(v) for v in self.rng.integers(self.n, size=2))
            key = (min(i, j), max(i, j))
            if i != j and key not in done:
                done.add(key)
                out.append(key)
        self.reason = "uniform among the pairs not asked yet"
        return np.asarray(out, dtype=np.int64)


class _Neighbourhoods(QueryStrategy):
    """Explore (farthest-first traversal, Basu et al. 2004 sec. 5.1) and a Consolidate phase."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.hoods: list[list[int]] = []
        self.pending: int | None = None  # the point being placed
        self.order: list[int] = []  # neighbourhoods still to ask it about
        self.mindist = np.full(self.n, np.inf)
        self.placed = np.zeros(self.n, dtype=bool)

    def _visit(self, i: int) -> None:
        d = np.einsum("ij,ij->i", self.x - self.x[i], self.x - self.x[i])
        np.minimum(self.mindist, d, out=self.mindist)

    def _farthest(self) -> int:
        """Farthest-first: the unplaced point whose nearest traversed point is farthest."""
        score = np.where(self.placed, -np.inf, self.mindist)
        return int(np.argmax(score))

    def _consolidate_point(self) -> tuple[int, list[int]]:
        raise NotImplementedError

    def _start(self) -> None:
        """Refuse when every point is placed; the first neighbourhood is a random point."""
        if self.placed.all():
            raise InvalidInputError("every point is already in a neighbourhood: nothing to ask")
        if not self.hoods:
            first = int(self.rng.integers(self.n))
            self.hoods.append([first])
            self.placed[first] = True
            self._visit(first)

    def _next_point(self) -> None:
        self._start()
        if len(self.hoods) < self.n_clusters:
            i = self._farthest()
            self.pending, self.order = i, list(range(len(self.hoods)))
            self.phase = "explore"
        else:
            self.pending, self.order = self._consolidate_point()
            self.phase = "consolidate"

    def propose(self, links: Constraints, state: State | None = None, batch: int = 1) -> np.ndarray:
        self._check(links, batch)
        self.state = state
        if self.pending is None:
            self._next_point()
        i = int(self.pending)  # type: ignore[arg-type]
        h = self.order[0]
        j = self.hoods[h][0]
        self.reason = (f"{self.phase}: point {i} against neighbourhood {h} "
                       f"({len(self.hoods)} of {self.n_clusters} found)")
        return np.asarray([[min(i, j), max(i, j)]], dtype=np.int64)

    def tell(self, pair: tuple[int, int], must_link: bool) -> None:
        if self.pending is None:
            return
        i = self.pending
        h = self.order.pop(0)
        if must_link:
            self.hoods[h].append(i)
        elif self.order:
            return
        elif len(self.hoods) < self.n_clusters:
            self.hoods.append([i])
        else:  # noisy answers: cannot-linked with every neighbourhood; leave it out
            pass
        self.placed[i] = True
        self._visit(i)
        self.pending = None


class ExploreConsolidate(_Neighbourhoods):
    name = "explore-consolidate"
    title = "Explore-Consolidate (Basu, Banerjee & Mooney 2004)"
    citation = ("Basu, Banerjee & Mooney, Active semi-supervision for pairwise constrained "
                "clustering, SDM 2004")

    def _consolidate_point(self) -> tuple[int, list[int]]:
        """Sec. 5.2: a random point outside the neighbourhoods, asked against them by increasing
        distance to their centroids."""
        free = np.flatnonzero(~self.placed)
        i = int(free[self.rng.integers(free.size)])
        cent = np.array([self.x[h].mean(axis=0) for h in self.hoods])
        return i, np.argsort(((cent - self.x[i]) ** 2).sum(axis=1), kind="stable").tolist()


class MinMax(_Neighbourhoods):
    name = "minmax"
    title = "Min-max (Mallapragada, Jin & Jain 2008)"
    citation = "Mallapragada, Jin & Jain, Active query selection for semi-supervised clustering, ICPR 2008"
    params = (Param("gamma", float, None, "RBF similarity exp(-d^2/(2 gamma^2)); default: median "
                    "distance to the mean", low=0.0, nullable=True),)

    def _consolidate_point(self) -> tuple[int, list[int]]:
        """argmin_x max_{y in skeleton} S(x, y): with an RBF S, the point farthest from the skeleton;
        asked against neighbourhoods by decreasing largest similarity."""
        i = self._farthest()
        d = [float(((self.x[h] - self.x[i]) ** 2).sum(axis=1).min()) for h in self.hoods]
        return i, np.argsort(d, kind="stable").tolist()


class NPU(_Neighbourhoods):
    name = "npu"
    title = "Normalised point-based uncertainty (Xiong, Azimi & Fern 2014)"
    citation = "Xiong, Azimi & Fern, Active learning of constraints for semi-supervised clustering, TKDE 2014"
    uses_model = True
    params = (
        Param("similarity", str, "model",
              "M(x, y) of eq. 3. model: the fitted model's co-cluster probability (an RBF without "
              "a model; fast); random-forest: the paper's, the share of the trees of a random "
              "forest trained on the current cluster labels in which x and y reach the same leaf",
              choices=("model", "random-forest")),
        Param("n_trees", int, 50, "trees of the random forest (similarity random-forest)", low=1),
    )

    def _probabilities(self, cand: np.ndarray) -> np.ndarray:
        """p(x in N_l) (eq. 3): the mean similarity M(x, y) over y in N_l, normalised over l."""
        if self.values["similarity"] == "random-forest":
            return self._normalise([self._forest_similarity(cand, h) for h in self._forest_hoods()])
        resp = None if self.state is None else self.state.responsibilities
        if resp is None:
            resp = np.eye(int(self.state.labels.max()) + 1)[self.state.labels] if (
                self.state is not None) else None
        cols = []
        for h in self.hoods:
            if resp is not None:
                cols.append(resp[cand] @ resp[h].mean(axis=0))
            else:
                d = ((self.x[cand, None, :] - self.x[None, h, :]) ** 2).sum(-1)
                cols.append(np.exp(-d / (2 * self._scale())).mean(axis=1))
        return self._normalise(cols)

    @staticmethod
    def _normalise(cols: list[np.ndarray]) -> np.ndarray:
        p = np.column_stack(cols) + 1e-12
        return p / p.sum(axis=1, keepdims=True)

    def _forest_hoods(self) -> list[list[int]]:
        """Fit the paper's random forest on the current cluster labels (sec. 4.1) and keep each
        point's leaf per tree; the neighbourhoods to compare with."""
        from sklearn.ensemble import RandomForestClassifier

        if self.state is None:
            raise InvalidInputError("npu with similarity random-forest needs the fitted model's "
                                    "labels: pass the current state to propose")
        labels = np.asarray(self.state.labels)
        forest = RandomForestClassifier(n_estimators=self.values["n_trees"],
                                        random_state=int(self.rng.integers(2**31 - 1)))
        self._leaves = forest.fit(self.x, labels).apply(self.x)        # (n, trees)
        return self.hoods

    def _forest_similarity(self, cand: np.ndarray, hood: list[int]) -> np.ndarray:
        """Mean over y in ``hood`` of M(x, y), the share of trees where x and y share a leaf."""
        leaves = self._leaves
        # Per tree, count the hood's points in each leaf; a candidate shares a leaf with as many
        # hood points as its own leaf holds. Leaves are numbered per tree: offset them apart.
        offset = leaves + np.arange(leaves.shape[1]) * (int(leaves.max()) + 1)
        counts = np.bincount(offset[hood].ravel(), minlength=int(offset.max()) + 1)
        return counts[offset[cand]].sum(axis=1) / (leaves.shape[1] * len(hood))

    def _scale(self) -> float:
        if not hasattr(self, "_s2"):
            self._s2 = float(np.median(((self.x - self.x.mean(0)) ** 2).sum(1))) or 1.0
        return self._s2

    def _next_point(self) -> None:
        self._start()
        free = np.flatnonzero(~self.placed)
        p = self._probabilities(free)
        ent = -(p * np.log(p)).sum(axis=1)                             # H(N | x), eq. 4
        order = np.argsort(-p, axis=1, kind="stable")
        ps = np.take_along_axis(p, order, axis=1)
        cost = (ps * np.arange(1, p.shape[1] + 1)).sum(axis=1)        # E[#queries], eq. 5
        best = int(np.argmax(ent / cost))                              # eq. 6
        self.pending, self.order = int(free[best]), order[best].tolist()
        self.phase = "npu"

    def tell(self, pair: tuple[int, int], must_link: bool) -> None:
        if self.pending is not None and not must_link and len(self.order) == 1:
            i, h = self.pending, self.order.pop(0)
            del h
            self.hoods.append([i])  # cannot-linked to all: a new neighbourhood (sec. 4.1)
            self.placed[i] = True
            self._visit(i)
            self.pending = None
            return
        super().tell(pair, must_link)


class Uncertainty(QueryStrategy):
    name = "uncertainty"
    title = "Most uncertain pair under the model's label posteriors (expected information gain)"
    uses_model = True
    params = (Param("candidates", int, 200, "points with the most uncertain labels searched in "
                    "pairs (s^2 pairs instead of n^2)", low=2),)

    def propose(self, links: Constraints, state: State | None = None, batch: int = 1) -> np.ndarray:
        """argmax over candidate pairs of H(P(z_i = z_j)), P(z_i = z_j) = sum_m q_im q_jm; the
        candidates are the s points of largest label entropy (O(n k) + O(s^2 k), not O(n^2 k))."""
        self._check(links, batch)
        if state is None or state.responsibilities is None:
            raise InvalidInputError(f"query strategy {self.name!r} needs a fitted model with label "
                             "posteriors (GM-PR, PPC, constrained EM, GMM)")
        resp = np.asarray(state.responsibilities, dtype=float)
        ent = -(resp * np.log(np.clip(resp, 1e-300, None))).sum(axis=1)
        s = min(self.values["candidates"], self.n)
        cand = np.argsort(-ent, kind="stable")[:s]
        ii, jj = np.triu_indices(s, 1)
        i, j = cand[ii], cand[jj]
        p = pair_same_probability(resp, i, j)
        gain = binary_entropy(p)
        comp = links.component_index if len(links) else np.arange(self.n)
        gain[comp[i] == comp[j]] = -1.0  # already decided by the links
        order = np.argsort(-gain, kind="stable")
        lo, hi = np.minimum(i, j)[order], np.maximum(i, j)[order]
        done = np.concatenate([np.asarray(a, dtype=np.int64).reshape(-1, 2)
                               for a in (links.must_link, links.cannot_link)])
        done_keys = done.min(axis=1) * self.n + done.max(axis=1)
        fresh = ~np.isin(lo * self.n + hi, done_keys)  # pairs not asked yet, best first
        if int(fresh.sum()) < batch:
            raise InvalidInputError("no undecided pairs left among the candidates")
        out = np.column_stack([lo[fresh][:batch], hi[fresh][:batch]]).astype(np.int64)
        k0 = order[0]
        self.reason = (f"P(same cluster) = {p[k0]:.3f}, expected information gain "
                       f"{gain[k0]:.3f} nats")
        return out


STRATEGIES = (RandomQuery, ExploreConsolidate, MinMax, NPU, Uncertainty)


@hookimpl
def pairlab_query_strategies() -> list[type[QueryStrategy]]:
    return list(STRATEGIES)
