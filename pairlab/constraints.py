"""Pairwise constraints: must-links and cannot-links, validated against ``n_samples``.

Derived views are computed once and cached: chunklets (transitive closure of must-links), the
cannot-link graph between chunklets, connected components of all links (PPC's "cliques") and
conflicts (cannot-links inside a chunklet).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import deque
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .atomic import atomic_write_text
from .errors import InconsistentConstraintsError, InvalidInputError

__all__ = ["Constraints"]

PairsLike = Sequence[Sequence[int]] | np.ndarray | None


def _as_pairs(pairs: PairsLike, kind: str, n: int) -> np.ndarray:
    if pairs is None:
        return np.empty((0, 2), dtype=np.int64)
    try:
        arr = np.asarray(pairs)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{kind} must be a list of (i, j) index pairs: {exc}") from None
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidInputError(
            f"{kind} must have shape (n_pairs, 2), got {arr.shape}; give pairs like [[0, 5], [3, 7]]."
        )
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise InvalidInputError(f"{kind} contains non-integer indices.")
    elif arr.dtype.kind not in "iu":
        raise InvalidInputError(f"{kind} must hold integer indices, got dtype {arr.dtype}.")
    arr = arr.astype(np.int64)
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise InvalidInputError(
            f"{kind} pair {row} is ({arr[row, 0]}, {arr[row, 1]}), but indices must lie in "
            f"[0, {n - 1}] for n_samples={n}."
        )
    self_rows = np.flatnonzero(arr[:, 0] == arr[:, 1])
    if self_rows.size:
        r = int(self_rows[0])
        raise InvalidInputError(
            f"{kind} pair {r} links point {arr[r, 0]} to itself; remove self-pairs."
        )
    arr = np.sort(arr, axis=1)
    keys = arr[:, 0] * n + arr[:, 1]
    uniq, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        dup = int(uniq[counts > 1][0])
        raise InvalidInputError(
            f"{kind} lists the pair ({dup // n}, {dup % n}) more than once; remove duplicates."
        )
    return np.ascontiguousarray(arr)


def _as_confidence(value: Any, n_pairs: int, kind: str) -> np.ndarray:
    if value is None:
        out = np.ones(n_pairs)
    else:
        out = np.array(np.broadcast_to(np.asarray(value, dtype=float), (n_pairs,)))
    if out.shape != (n_pairs,):
        raise InvalidInputError(f"confidence for {kind} must have {n_pairs} values, got {out.shape}.")
    if not np.all(np.isfinite(out)) or (out < 0).any() or (out > 1).any():
        raise InvalidInputError(f"confidence for {kind} must lie in [0, 1].")
    out.setflags(write=False)
    return out


class Constraints:
    """Must-link and cannot-link pairs over ``n_samples`` points.

    Parameters
    ----------
    must_link, cannot_link : array-like of shape (n_pairs, 2), optional
        Index pairs. Each pair is stored as (min, max); order within a set is kept.
    n_samples : int
        Number of points the indices refer to.
    confidence : float, mapping or array-like, optional
        Per-pair confidence in [0, 1] (1 = certain). A scalar applies to every pair; a mapping
        has keys ``"must_link"`` and ``"cannot_link"``; a flat sequence lists the must-links'
        values first, then the cannot-links'.
    """

    def __init__(
        self,
        must_link: PairsLike = None,
        cannot_link: PairsLike = None,
        *,
        n_samples: int,
        confidence: Any = None,
    ) -> None:
        if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer):
            raise InvalidInputError(f"n_samples must be an integer, got {n_samples!r}.")
        if n_samples < 1:
            raise InvalidInputError(f"n_samples must be >= 1, got {n_samples}.")
        self.n_samples = int(n_samples)
        self.must_link = _as_pairs(must_link, "must_link", self.n_samples)
        self.cannot_link = _as_pairs(cannot_link, "cannot_link", self.n_samples)
        self.must_link.setflags(write=False)
        self.cannot_link.setflags(write=False)
        n_ml, n_cl = len(self.must_link), len(self.cannot_link)
        if isinstance(confidence, Mapping):
            unknown = set(confidence) - {"must_link", "cannot_link"}
            if unknown:
                raise InvalidInputError(
                    f"confidence keys must be 'must_link' and 'cannot_link', got {sorted(unknown)}."
                )
            ml_conf, cl_conf = confidence.get("must_link"), confidence.get("cannot_link")
        elif confidence is not None and np.ndim(confidence) == 1:
            flat = np.asarray(confidence, dtype=float)
            if flat.shape != (n_ml + n_cl,):
                raise InvalidInputError(
                    f"confidence has {flat.size} values for {n_ml} must-links and {n_cl} "
                    "cannot-links; give one value per pair (must-links first)."
                )
            ml_conf, cl_conf = flat[:n_ml], flat[n_ml:]
        else:
            ml_conf = cl_conf = confidence
        self.ml_confidence = _as_confidence(ml_conf, n_ml, "must_link")
        self.cl_confidence = _as_confidence(cl_conf, n_cl, "cannot_link")
        both = np.intersect1d(self._keys(self.must_link), self._keys(self.cannot_link))
        if both.size:
            i, j = divmod(int(both[0]), self.n_samples)
            raise InvalidInputError(
                f"The pair ({i}, {j}) is both a must-link and a cannot-link; keep one of them."
            )

    # -- basic protocol -----------------------------------------------------------------------
    def _keys(self, pairs: np.ndarray) -> np.ndarray:
        return pairs[:, 0] * self.n_samples + pairs[:, 1]

    @property
    def n_must_link(self) -> int:
        return len(self.must_link)

    @property
    def n_cannot_link(self) -> int:
        return len(self.cannot_link)

    def __len__(self) -> int:
        return self.n_must_link + self.n_cannot_link

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return (
            f"Constraints(n_samples={self.n_samples}, must_link={self.n_must_link} pairs, "
            f"cannot_link={self.n_cannot_link} pairs)"
        )

    def _repr_html_(self) -> str:
        from .display import constraints_html

        return constraints_html(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Constraints):
            return NotImplemented
        return (
            self.n_samples == other.n_samples
            and np.array_equal(self.must_link, other.must_link)
            and np.array_equal(self.cannot_link, other.cannot_link)
            and np.array_equal(self.ml_confidence, other.ml_confidence)
            and np.array_equal(self.cl_confidence, other.cl_confidence)
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def has_confidence(self) -> bool:
        """True when some pair has a confidence below 1."""
        return bool((self.ml_confidence < 1).any() or (self.cl_confidence < 1).any())

    @classmethod
    def empty(cls, n_samples: int) -> Constraints:
        return cls(n_samples=n_samples)

    def replace(self, *, must_link: PairsLike = None, cannot_link: PairsLike = None,
                confidence: Any = None) -> Constraints:
        """A new object with the given sets replaced (the others kept, confidences reset)."""
        return Constraints(
            self.must_link if must_link is None else must_link,
            self.cannot_link if cannot_link is None else cannot_link,
            n_samples=self.n_samples,
            confidence=confidence,
        )

    # -- derived graph views ------------------------------------------------------------------
    def adjacency(self, kind: str = "must_link", weights: np.ndarray | None = None) -> sp.csr_matrix:
        """Symmetric (n, n) sparse adjacency of ``kind`` ("must_link", "cannot_link" or "all")."""
        if kind == "all":
            pairs = np.vstack([self.must_link, self.cannot_link])
        elif kind in ("must_link", "cannot_link"):
            pairs = getattr(self, kind)
        else:
            raise InvalidInputError(f"kind must be 'must_link', 'cannot_link' or 'all', got {kind!r}")
        w = np.ones(len(pairs)) if weights is None else np.asarray(weights, dtype=float)
        n = self.n_samples
        a = sp.coo_matrix(
            (np.concatenate([w, w]), (np.concatenate([pairs[:, 0], pairs[:, 1]]),
                                      np.concatenate([pairs[:, 1], pairs[:, 0]]))),
            shape=(n, n),
        )
        return a.tocsr()

    @cached_property
    def chunklet_index(self) -> np.ndarray:
        """(n,) chunklet id of every point; ids are numbered by each chunklet's smallest point."""
        _, comp = connected_components(self.adjacency("must_link"), directed=False)
        return _renumber_by_first(comp)

    @property
    def n_chunklets(self) -> int:
        """Number of chunklets, singletons included."""
        return int(self.chunklet_index.max()) + 1

    @cached_property
    def chunklet_sizes(self) -> np.ndarray:
        return np.bincount(self.chunklet_index, minlength=self.n_chunklets)

    @cached_property
    def chunklets(self) -> list[np.ndarray]:
        """Chunklets of two or more points, each a sorted index array (the papers' chunklets)."""
        order = np.argsort(self.chunklet_index, kind="stable")
        groups = np.split(order, np.cumsum(self.chunklet_sizes)[:-1])
        return [g for g in groups if g.size > 1]

    @cached_property
    def chunklet_cannot_link(self) -> np.ndarray:
        """Unique (c, 2) pairs of chunklet ids joined by at least one cannot-link (conflicts left out)."""
        c = self.chunklet_index[self.cannot_link]
        c = np.sort(c, axis=1)
        c = c[c[:, 0] != c[:, 1]]
        if len(c) == 0:
            return np.empty((0, 2), dtype=np.int64)
        return np.unique(c, axis=0)

    @cached_property
    def component_index(self) -> np.ndarray:
        """(n,) connected component of every point in the graph of all links (PPC's cliques)."""
        _, comp = connected_components(self.adjacency("all"), directed=False)
        return _renumber_by_first(comp)

    @cached_property
    def components(self) -> list[np.ndarray]:
        """Link components with two or more points, each a sorted index array."""
        idx = self.component_index
        order = np.argsort(idx, kind="stable")
        groups = np.split(order, np.cumsum(np.bincount(idx))[:-1])
        return [g for g in groups if g.size > 1]

    @cached_property
    def conflicts(self) -> np.ndarray:
        """Cannot-link pairs whose two points are in the same chunklet, shape (m, 2)."""
        c = self.chunklet_index[self.cannot_link]
        return self.cannot_link[c[:, 0] == c[:, 1]]

    @property
    def is_consistent(self) -> bool:
        return len(self.conflicts) == 0

    def must_link_path(self, i: int, j: int) -> list[int]:
        """A shortest chain of must-links from ``i`` to ``j`` (empty if they are not joined)."""
        adj = self.adjacency("must_link")
        prev = {i: -1}
        queue = deque([i])
        while queue:
            u = queue.popleft()
            if u == j:
                path = [j]
                while prev[path[-1]] != -1:
                    path.append(prev[path[-1]])
                return path[::-1]
            for v in adj.indices[adj.indptr[u]:adj.indptr[u + 1]]:
                v = int(v)
                if v not in prev:
                    prev[v] = u
                    queue.append(v)
        return []

    def check_consistent(self) -> None:
        """Raise InconsistentConstraintsError naming the chain of links behind the first conflict."""
        if self.is_consistent:
            return
        i, j = (int(v) for v in self.conflicts[0])
        chain = " - ".join(map(str, self.must_link_path(i, j)))
        more = len(self.conflicts) - 1
        raise InconsistentConstraintsError(
            f"Points {i} and {j} are cannot-linked but must-linked through the chain {chain}"
            + (f" ({more} more such conflict(s))" if more else "")
            + "; remove one of these links, or use an algorithm with soft constraints "
            "(ppc, scssap, rdpmeans)."
        )

    def uncolourable_witness(self, n_classes: int) -> np.ndarray | None:
        """Points whose cannot-links no labelling with ``n_classes`` classes satisfies, or None.

        The witness is an odd cycle of chunklets (``n_classes == 2``, exact: the chunklet
        cannot-link graph is not bipartite) or a clique of ``n_classes + 1`` chunklets found
        greedily (any ``n_classes``; a sufficient test, since deciding colourability is NP-hard).
        None means no such witness was found, not that a labelling exists.
        """
        edges = self.chunklet_cannot_link
        if len(edges) == 0 or n_classes < 1:
            return None
        m = self.n_chunklets
        adj = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(m, m))
        adj = (adj + adj.T).tocsr()
        nbrs = [set(adj.indices[adj.indptr[u]:adj.indptr[u + 1]].tolist()) for u in range(m)]
        chunk_sets: list[int] | None = None
        if n_classes == 1:
            chunk_sets = [int(v) for v in edges[0]]
        elif n_classes == 2:
            chunk_sets = _odd_cycle(nbrs)
        if chunk_sets is None:
            degree = np.diff(adj.indptr)
            for u in np.flatnonzero(degree >= n_classes):
                clique = [int(u)]
                common = set(nbrs[u])
                for v in sorted(common, key=lambda w: -degree[w]):
                    if v in common:
                        clique.append(v)
                        common &= nbrs[v]
                if len(clique) > n_classes:
                    chunk_sets = clique[: n_classes + 1]
                    break
        if chunk_sets is None:
            return None
        return np.flatnonzero(np.isin(self.chunklet_index, chunk_sets))

    def check_colourable(self, n_classes: int) -> None:
        """Raise InconsistentConstraintsError when the cannot-links provably need more classes."""
        pts = self.uncolourable_witness(n_classes)
        if pts is None:
            return
        shown = ", ".join(map(str, pts[:12])) + (" ..." if pts.size > 12 else "")
        raise InconsistentConstraintsError(
            f"The cannot-links among points {shown} cannot all hold with {n_classes} classes "
            f"(an odd cycle of cannot-links needs 3, a group of k mutually cannot-linked points "
            "needs k); increase the number of classes or remove some of these cannot-links."
        )

    # -- evaluation ---------------------------------------------------------------------------
    def satisfied(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Boolean masks: which must-links and which cannot-links ``labels`` satisfy."""
        labels = np.asarray(labels)
        ml = labels[self.must_link[:, 0]] == labels[self.must_link[:, 1]]
        cl = labels[self.cannot_link[:, 0]] != labels[self.cannot_link[:, 1]]
        return ml, cl

    def satisfied_fraction(self, labels: np.ndarray) -> float:
        """Fraction of all constraints that ``labels`` satisfy (1.0 when there are none)."""
        ml, cl = self.satisfied(labels)
        total = ml.size + cl.size
        return 1.0 if total == 0 else float((ml.sum() + cl.sum()) / total)

    # -- serialisation ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n_samples": self.n_samples,
            "must_link": self.must_link.tolist(),
            "cannot_link": self.cannot_link.tolist(),
        }
        if self.has_confidence:
            out["confidence"] = {
                "must_link": self.ml_confidence.tolist(),
                "cannot_link": self.cl_confidence.tolist(),
            }
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], n_samples: int | None = None) -> Constraints:
        if not isinstance(data, Mapping):
            raise InvalidInputError("constraints JSON must be an object with must_link/cannot_link")
        n = data.get("n_samples", n_samples)
        if n is None:
            raise InvalidInputError("constraints JSON has no n_samples; pass n_samples=...")
        if n_samples is not None and n != n_samples:
            raise InvalidInputError(
                f"constraints were made for {n} points but the data has {n_samples}."
            )
        return cls(data.get("must_link"), data.get("cannot_link"), n_samples=int(n),
                   confidence=data.get("confidence"))

    def to_csv_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["i", "j", "type", "confidence"])
        for (i, j), c in zip(self.must_link, self.ml_confidence, strict=True):
            w.writerow([int(i), int(j), "must", repr(float(c))])
        for (i, j), c in zip(self.cannot_link, self.cl_confidence, strict=True):
            w.writerow([int(i), int(j), "cannot", repr(float(c))])
        return buf.getvalue()

    @classmethod
    def from_csv_text(cls, text: str, n_samples: int) -> Constraints:
        """Parse CSV with columns i, j, type (must/cannot) and optional confidence."""
        rows = list(csv.reader(io.StringIO(text)))
        if not rows:
            return cls(n_samples=n_samples)
        header = [h.strip().lower() for h in rows[0]]
        missing = {"i", "j", "type"} - set(header)
        if missing:
            raise InvalidInputError(
                f"constraints CSV needs a header with columns i, j, type[, confidence]; "
                f"missing {sorted(missing)}."
            )
        col = {h: k for k, h in enumerate(header)}
        ml, cl, mlc, clc = [], [], [], []
        for line, row in enumerate(rows[1:], start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InvalidInputError(
                    f"constraints CSV line {line}: expected {len(header)} fields, got {len(row)}."
                )
            try:
                i, j = int(row[col["i"]]), int(row[col["j"]])
                conf = float(row[col["confidence"]]) if "confidence" in col else 1.0
            except ValueError as exc:
                raise InvalidInputError(f"constraints CSV line {line}: {exc}") from None
            kind = row[col["type"]].strip().lower()
            if kind in ("must", "must_link", "ml", "+1", "1"):
                ml.append((i, j))
                mlc.append(conf)
            elif kind in ("cannot", "cannot_link", "cl", "-1"):
                cl.append((i, j))
                clc.append(conf)
            else:
                raise InvalidInputError(
                    f"constraints CSV line {line}: type must be 'must' or 'cannot', got {kind!r}."
                )
        return cls(ml or None, cl or None, n_samples=n_samples,
                   confidence={"must_link": mlc, "cannot_link": clc})

    def save(self, path: str | os.PathLike[str]) -> None:
        """Save as JSON or CSV (chosen by the file suffix), atomically."""
        path = Path(path)
        if path.suffix.lower() == ".csv":
            atomic_write_text(path, self.to_csv_text())
        else:
            atomic_write_text(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str], n_samples: int | None = None) -> Constraints:
        """Load from JSON or CSV (chosen by the suffix); CSV needs ``n_samples``."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidInputError(f"cannot read constraints file {str(path)!r}: {exc}") from None
        except UnicodeDecodeError as exc:
            raise InvalidInputError(
                f"constraints file {str(path)!r} is not UTF-8 text ({exc.reason} at byte "
                f"{exc.start}); save it as UTF-8 JSON or CSV."
            ) from None
        if path.suffix.lower() == ".csv":
            if n_samples is None:
                raise InvalidInputError("loading constraints from CSV needs n_samples")
            return cls.from_csv_text(text, n_samples)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{str(path)!r} is not valid JSON: {exc}") from None
        except RecursionError:
            raise InvalidInputError(
                f"{str(path)!r} is nested too deeply to be a constraints file; it should hold "
                '{"must_link": [[i, j], ...], "cannot_link": [[i, j], ...]}.'
            ) from None
        return cls.from_dict(data, n_samples)


def _odd_cycle(nbrs: list[set[int]]) -> list[int] | None:
    """Nodes of an odd cycle of the graph (breadth-first 2-colouring), or None if bipartite."""
    side = [-1] * len(nbrs)
    parent = [-1] * len(nbrs)
    for root in range(len(nbrs)):
        if side[root] >= 0 or not nbrs[root]:
            continue
        side[root] = 0
        queue = deque([root])
        while queue:
            u = queue.popleft()
            for v in nbrs[u]:
                if side[v] < 0:
                    side[v], parent[v] = 1 - side[u], u
                    queue.append(v)
                elif side[v] == side[u]:  # the two tree paths to u and v close an odd cycle
                    a, b = [u], [v]
                    while a[-1] != -1:
                        a.append(parent[a[-1]])
                    while b[-1] != -1:
                        b.append(parent[b[-1]])
                    common = set(a) & set(b)
                    return [x for x in a if x not in common] + [x for x in b if x not in common] + [
                        next(x for x in a if x in common)]
    return None


def _renumber_by_first(comp: np.ndarray) -> np.ndarray:
    """Relabel component ids so that they appear in increasing order of first occurrence."""
    _, first = np.unique(comp, return_index=True)
    order = np.argsort(first)
    mapping = np.empty_like(order)
    mapping[order] = np.arange(order.size)
    out = mapping[comp].astype(np.int64)
    out.setflags(write=False)
    return out
