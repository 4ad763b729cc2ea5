"""Query strategies: which pair to ask an oracle about next (issue 36).

A strategy is constructed for one data set, a number of clusters ``n_clusters``, validated
parameters and a random generator. :meth:`QueryStrategy.propose` returns the next pair(s) given the
links so far and optionally the current fitted :class:`~pairlab.State`; :meth:`QueryStrategy.tell`
receives the oracle's answer (strategies with phases, e.g. Explore-Consolidate, keep their
neighbourhoods from it). Plugins provide strategies through the ``pairlab_query_strategies`` hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .constraints import Constraints
from .errors import InvalidInputError
from .links import _distinct_pairs
from .params import Param, resolve_params

if TYPE_CHECKING:
    from .dataset import Dataset
    from .state import State

__all__ = ["QueryStrategy", "asked", "binary_entropy", "distinct_pairs", "pair_same_probability"]


def binary_entropy(p: np.ndarray) -> np.ndarray:
    """H(p) in nats, 0 at p = 0 or 1."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    out = np.zeros_like(p)
    inside = (p > 0) & (p < 1)
    q = p[inside]
    out[inside] = -(q * np.log(q) + (1 - q) * np.log1p(-q))
    return out


def distinct_pairs(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct pairs uniform among all n(n-1)/2, drawn as the ``pairs`` link generator
    draws them (so a random batch equals today's ``draw_links``)."""
    return _distinct_pairs(n, count, rng)


def pair_same_probability(resp: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """P(z_i = z_j) = sum_m q_im q_jm from two points' label posteriors (exact when the two points
    are in different link components, where the joint posterior factorises given the parameters)."""
    return np.einsum("ij,ij->i", resp[i], resp[j])


class QueryStrategy:
    """Base class of query strategy plugins.

    Class attributes: ``name`` (lower-case), ``title``, ``citation``, ``params`` (tuple of
    :class:`~pairlab.Param`) and ``uses_model`` (True if :meth:`propose` reads the fitted state).
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    citation: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    uses_model: ClassVar[bool] = False

    def __init__(self, dataset: Dataset, n_clusters: int, params: dict[str, Any] | None = None,
                 rng: np.random.Generator | None = None) -> None:
        if isinstance(n_clusters, bool) or int(n_clusters) != n_clusters or n_clusters < 1:
            raise InvalidInputError(f"n_clusters must be a whole number >= 1, got {n_clusters!r}.")
        if dataset.n_samples < 2:
            raise InvalidInputError("a query needs a data set with at least 2 points.")
        self.dataset = dataset
        self.x = np.asarray(dataset.X, dtype=float)
        self.n = int(dataset.n_samples)
        self.n_clusters = int(n_clusters)
        self.values = resolve_params(self.params, dict(params or {}), owner=f"query strategy "
                                                                          f"{self.name!r}")
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.reason = ""

    def propose(self, links: Constraints, state: State | None = None, batch: int = 1) -> np.ndarray:
        """The next ``batch`` pairs to ask about, an int array (batch, 2); sets :attr:`reason`."""
        raise NotImplementedError

    def tell(self, pair: tuple[int, int], must_link: bool) -> None:
        """The oracle's answer for ``pair`` (default: nothing to remember)."""

    def _check(self, links: Constraints, batch: int) -> None:
        if links.n_samples != self.n:
            raise InvalidInputError(f"links are for {links.n_samples} points, the data set has "
                                    f"{self.n}.")
        if isinstance(batch, bool) or int(batch) != batch or batch < 1:
            raise InvalidInputError(f"batch must be a whole number >= 1, got {batch!r}.")


def asked(links: Constraints) -> set[tuple[int, int]]:
    """The unordered pairs (i < j) already linked."""
    out: set[tuple[int, int]] = set()
    for arr in (links.must_link, links.cannot_link):
        for a, b in np.asarray(arr).reshape(-1, 2).tolist():
            out.add((min(a, b), max(a, b)))
    return out
