"""Drawing links: generators (pairs from ground-truth labels, the papers' protocols), noise models,
the named generator table and :func:`draw_links`, which the CLI, the sweep engine and the app call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .constraints import Constraints
from .errors import InvalidInputError
from .params import Param, resolve_params

if TYPE_CHECKING:
    from .dataset import Dataset

__all__ = [
    "FRACTION_READINGS",
    "GENERATORS",
    "NOISE_MODELS",
    "LinkGenerator",
    "add_noise",
    "draw_links",
    "draw_seed_labels",
    "e_matrix_noise",
    "flip_fraction",
    "flip_probability",
    "grid_links",
    "links_from_labels",
    "nonoverlapping_pairs",
    "ppc_weight",
    "random_pairs",
    "random_pairs_count",
    "random_pairs_fraction",
    "relabel_points",
    "reveal_labels",
    "teachers",
]


def _sample_pairs(y: np.ndarray, count: int, same: bool, rng: np.random.Generator,
                  exclude: set[int]) -> list[tuple[int, int]]:
    n = y.size
    counts = np.bincount(y)
    available = int((counts * (counts - 1)).sum() // 2)
    if not same:
        available = n * (n - 1) // 2 - available
    if count > available:
        kind = "must-links" if same else "cannot-links"
        raise InvalidInputError(f"asked for {count} {kind}, but the labels allow only {available}.")
    out: list[tuple[int, int]] = []
    seen = set(exclude)
    while len(out) < count:
        need = count - len(out)
        i = rng.integers(n, size=4 * need + 16)
        j = rng.integers(n, size=4 * need + 16)
        for a, b in zip(i.tolist(), j.tolist(), strict=True):
            if a == b or (y[a] == y[b]) != same:
                continue
            a, b = min(a, b), max(a, b)
            key = a * n + b
            if key in seen:
                continue
            seen.add(key)
            out.append((a, b))
            if len(out) == count:
                break
    return out


def random_pairs(y: np.ndarray, n_must_link: int, n_cannot_link: int,
                 rng: np.random.Generator) -> Constraints:
    """Distinct random pairs: must-links within a class, cannot-links across classes.

    Pairs are drawn uniformly among pairs with the required relation, without repetition.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise InvalidInputError("labels must be 1-D")
    if n_must_link < 0 or n_cannot_link < 0:
        raise InvalidInputError("the numbers of links must be >= 0")
    _, y = np.unique(y, return_inverse=True)
    ml = _sample_pairs(y, n_must_link, True, rng, set())
    cl = _sample_pairs(y, n_cannot_link, False, rng, set())
    return Constraints(ml or None, cl or None, n_samples=y.size)


# -- helpers shared by the generators below -------------------------------------------------------
def _labels(y: np.ndarray) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise InvalidInputError(f"labels must be 1-D, got shape {y.shape}.")
    if y.size < 2:
        raise InvalidInputError("at least 2 labelled points are needed to draw pairs.")
    return np.unique(y, return_inverse=True)[1].reshape(-1)


def _check_fraction(value: float, name: str, high: float = 1.0) -> float:
    value = float(value)
    if not np.isfinite(value) or value < 0 or value > high:
        raise InvalidInputError(f"{name} must lie in [0, {high:g}], got {value!r}.")
    return value


def _split_by_labels(y: np.ndarray, pairs: np.ndarray, n: int,
                     confidence: float | None = None) -> Constraints:
    """Must-link the pairs whose labels agree, cannot-link the others."""
    pairs = np.sort(np.asarray(pairs, dtype=np.int64).reshape(-1, 2), axis=1)
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    ml, cl = pairs[same], pairs[~same]
    return Constraints(ml if len(ml) else None, cl if len(cl) else None, n_samples=n,
                       confidence=confidence)


def _distinct_pairs(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct unordered pairs (i < j) drawn uniformly among all n(n-1)/2."""
    total = n * (n - 1) // 2
    if count > total:
        raise InvalidInputError(f"asked for {count} pairs, but {n} points have only {total}.")
    if count == 0:
        return np.empty((0, 2), dtype=np.int64)
    if total <= 4_000_000:
        rank = np.sort(rng.choice(total, size=count, replace=False))
        # rank r <-> pair (i, j), i < j, in row-major order of the upper triangle
        start = np.arange(n, dtype=np.int64) * (2 * n - np.arange(n, dtype=np.int64) - 1) // 2
        i = np.searchsorted(start, rank, side="right") - 1
        j = rank - start[i] + i + 1
        out = np.column_stack([i, j])
        return out[rng.permutation(count)]
    keys: list[int] = []
    seen: set[int] = set()
    while len(keys) < count:
        a = rng.integers(n, size=2 * (count - len(keys)) + 16)
        b = rng.integers(n, size=a.size)
        for lo, hi in zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist(), strict=True):
            key = lo * n + hi
            if lo != hi and key not in seen:
                seen.add(key)
                keys.append(key)
                if len(keys) == count:
                    break
    arr = np.asarray(keys, dtype=np.int64)
    return np.column_stack([arr // n, arr % n])


# -- sampling protocols ---------------------------------------------------------------------------
def random_pairs_count(y: np.ndarray, n_pairs: int, rng: np.random.Generator) -> Constraints:
    """``n_pairs`` distinct random pairs, labelled by the ground truth.

    Each pair is drawn uniformly among all pairs (not per relation, unlike :func:`random_pairs`),
    then becomes a must-link if the labels agree and a cannot-link otherwise: the protocol of
    SCSSAP section IV, PPC section 5.1.1 (without the non-overlap) and RDP-means section 5.
    """
    y = _labels(y)
    if isinstance(n_pairs, bool) or int(n_pairs) != n_pairs or n_pairs < 0:
        raise InvalidInputError(f"n_pairs must be a whole number >= 0, got {n_pairs!r}.")
    return _split_by_labels(y, _distinct_pairs(y.size, int(n_pairs), rng), y.size)


#: the two readings of RDP-means' r (section 5): "text" and "code", see random_pairs_fraction
FRACTION_READINGS = ("text", "code")


def random_pairs_fraction(y: np.ndarray, fraction: float, rng: np.random.Generator, *,
                          reading: str = "text") -> Constraints:
    """A fraction r of all pairs, labelled by the ground truth (RDP-means' r).

    RDP-means (section 5) defines r as the number of +-1 entries of the symmetric side-information
    matrix E normalised by its size. Two readings:

    * ``reading="text"`` (the paper's text): counting each unordered pair once, that is
      ``round(r * n (n - 1) / 2)`` distinct pairs (r = 0.01 on 300 points gives 448 pairs). r is
      read as the decimal it prints as and the product rounded half to even exactly, so r = 0.7 on
      10 points gives round(31.5) = 32 pairs, whichever way the floating-point product would have
      rounded.
    * ``reading="code"`` (the authors' public experiment code, as issue 19 describes it):
      ``round(r * n^2)`` ordered draws (i, j), each index uniform on 0..n-1 with replacement; a
      draw with i == j is dropped and repeated pairs count once, so about r n^2 distinct pairs,
      roughly twice the text's number.
    """
    y = _labels(y)
    fraction = _check_fraction(fraction, "fraction")
    if reading not in FRACTION_READINGS:
        raise InvalidInputError(f"reading must be one of {', '.join(FRACTION_READINGS)}, "
                                f"got {reading!r}.")
    n = y.size
    if reading == "text":
        count = round(Fraction(repr(float(fraction))) * (n * (n - 1) // 2))
        return _split_by_labels(y, _distinct_pairs(n, count, rng), n)
    draws = round(Fraction(repr(float(fraction))) * n * n)
    ij = rng.integers(n, size=(draws, 2))
    ij = ij[ij[:, 0] != ij[:, 1]]
    ij.sort(axis=1)
    _keys, first = np.unique(ij[:, 0] * n + ij[:, 1], return_index=True)
    return _split_by_labels(y, ij[np.sort(first)], n)


def nonoverlapping_pairs(y: np.ndarray, n_pairs: int, rng: np.random.Generator) -> Constraints:
    """PPC section 5.1.1: pairs drawn without replacement, so no point is in two pairs.

    A random permutation is cut into consecutive pairs; "to have 50% of the data involved"
    (section 5.1.4) use ``n_pairs = round(0.25 * n)``.
    """
    y = _labels(y)
    if isinstance(n_pairs, bool) or int(n_pairs) != n_pairs or n_pairs < 0:
        raise InvalidInputError(f"n_pairs must be a whole number >= 0, got {n_pairs!r}.")
    if 2 * n_pairs > y.size:
        raise InvalidInputError(
            f"{n_pairs} non-overlapping pairs need {2 * n_pairs} points; the data has {y.size}.")
    order = rng.permutation(y.size)[: 2 * int(n_pairs)]
    return _split_by_labels(y, order.reshape(-1, 2), y.size)


def teachers(y: np.ndarray, n_teachers: int, n_points: int, rng: np.random.Generator, *,
             complete: bool = False) -> Constraints:
    """Shental et al. section 3 ("distributed learning"): ``n_teachers`` teachers each receive
    ``n_points`` (K) random points and partition them into equivalence classes.

    Each teacher's partition becomes must-links inside every class group and cannot-links between
    groups. With ``complete=False`` (default) a group is joined by a chain and two groups by one
    cannot-link between their first members: the same chunklets and chunklet-level cannot-links
    as all pairs (what constrained EM uses), with far fewer links. ``complete=True`` emits every
    pair. Pairs stated by several teachers appear once.
    """
    y = _labels(y)
    n = y.size
    for name, v in (("n_teachers", n_teachers), ("n_points", n_points)):
        if isinstance(v, bool) or int(v) != v or v < 0:
            raise InvalidInputError(f"{name} must be a whole number >= 0, got {v!r}.")
    if n_points > n:
        raise InvalidInputError(f"n_points={n_points} exceeds the {n} points of the data.")
    ml: list[tuple[int, int]] = []
    cl: list[tuple[int, int]] = []
    for _ in range(int(n_teachers)):
        subset = rng.choice(n, size=int(n_points), replace=False)
        groups = [subset[y[subset] == c] for c in np.unique(y[subset])]
        for g in groups:
            if complete:
                ml.extend((int(a), int(b)) for k, a in enumerate(g) for b in g[k + 1:])
            else:
                ml.extend(zip(g[:-1].tolist(), g[1:].tolist(), strict=True))
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                if complete:
                    cl.extend((int(u), int(v)) for u in groups[a] for v in groups[b])
                else:
                    cl.append((int(groups[a][0]), int(groups[b][0])))

    def unique(pairs: list[tuple[int, int]]) -> np.ndarray | None:
        if not pairs:
            return None
        arr = np.sort(np.asarray(pairs, dtype=np.int64), axis=1)
        _, first = np.unique(arr[:, 0] * n + arr[:, 1], return_index=True)
        return arr[np.sort(first)]

    return Constraints(unique(ml), unique(cl), n_samples=n)


# -- noise models ---------------------------------------------------------------------------------
def _pairs_and_kind(c: Constraints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pairs = np.vstack([c.must_link, c.cannot_link]).reshape(-1, 2)
    is_ml = np.r_[np.ones(c.n_must_link, bool), np.zeros(c.n_cannot_link, bool)]
    conf = np.r_[c.ml_confidence, c.cl_confidence]
    return pairs, is_ml, conf


def _rebuild(n: int, pairs: np.ndarray, is_ml: np.ndarray, conf: np.ndarray) -> Constraints:
    ml, cl = pairs[is_ml], pairs[~is_ml]
    return Constraints(ml if len(ml) else None, cl if len(cl) else None, n_samples=n,
                       confidence={"must_link": conf[is_ml], "cannot_link": conf[~is_ml]})


def flip_fraction(constraints: Constraints, fraction: float, rng: np.random.Generator) -> Constraints:
    """SCSSAP's first noise type (section IV): move exactly ``round(fraction * m)`` of the m pairs
    to the other set (must-link <-> cannot-link), chosen uniformly without replacement.

    Pairs keep their confidence and their order within each set.
    """
    fraction = _check_fraction(fraction, "fraction")
    pairs, is_ml, conf = _pairs_and_kind(constraints)
    flip = np.zeros(len(pairs), dtype=bool)
    flip[rng.choice(len(pairs), size=round(fraction * len(pairs)), replace=False)] = True
    return _rebuild(constraints.n_samples, pairs, is_ml ^ flip, conf)


def relabel_points(y: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """SCSSAP's second noise type (section IV): change the labels of exactly
    ``round(fraction * n)`` points, each to a different class chosen uniformly, *before* pairs are
    sampled (the links then never contradict each other). Returns the noisy labels (codes of
    ``numpy.unique(y)``'s order).
    """
    codes = _labels(y)
    fraction = _check_fraction(fraction, "fraction")
    k = int(codes.max()) + 1
    m = round(fraction * codes.size)
    if m and k < 2:
        raise InvalidInputError("relabelling needs at least 2 classes.")
    out = codes.copy()
    idx = rng.choice(codes.size, size=m, replace=False)
    shift = rng.integers(1, k, size=m) if m else np.empty(0, dtype=np.int64)
    out[idx] = (codes[idx] + shift) % k
    return out


def ppc_weight(q: float) -> float:
    """PPC eq. 5.1: the weight ``w = 1/2 log((1 - q) / q)`` for flip probability ``q``."""
    q = _check_fraction(q, "q", 0.5)
    return float("inf") if q == 0 else 0.5 * float(np.log((1.0 - q) / q))


def flip_probability(constraints: Constraints, q: float, rng: np.random.Generator, *,
                     set_confidence: bool = True) -> Constraints:
    """PPC section 5.1.4: flip each pair independently with probability ``q`` (<= 0.5).

    With ``set_confidence`` every pair gets confidence ``1 - q``: the certainty gamma of eq. 2.15,
    which turns into exactly the weight of eq. 5.1, ``w = 1/2 log((1 - q) / q)`` (see
    :func:`ppc_weight`), in algorithms that weight links by confidence.
    """
    q = _check_fraction(q, "q", 0.5)
    pairs, is_ml, conf = _pairs_and_kind(constraints)
    flip = rng.random(len(pairs)) < q
    if set_confidence:
        conf = np.full(len(pairs), 1.0 - q)
    return _rebuild(constraints.n_samples, pairs, is_ml ^ flip, conf)


def e_matrix_noise(constraints: Constraints, p: float, q: float,
                   rng: np.random.Generator) -> Constraints:
    """RDP-means / TVClust eq. 8: side information E observed through a noisy channel.

    A true link (H_ij = 1) is reported as a link (E_ij = 1) with probability ``p`` and dropped to
    a may-not link (E_ij = 0) otherwise; a true non-link (H_ij = 0) is reported as such with
    probability ``q`` and becomes a false link otherwise. Must-links play H = 1, cannot-links
    H = 0. The paper's experiments use p = q ("noise with probability 1 - p"), which is
    :func:`flip_probability` with ``q = 1 - p`` (section 5). Confidences are kept.
    """
    p, q = _check_fraction(p, "p"), _check_fraction(q, "q")
    pairs, is_ml, conf = _pairs_and_kind(constraints)
    u = rng.random(len(pairs))
    flip = np.where(is_ml, u >= p, u >= q)
    return _rebuild(constraints.n_samples, pairs, is_ml ^ flip, conf)


# -- spatial neighbours ---------------------------------------------------------------------------
def grid_links(rows: int, cols: int, labels: np.ndarray | None = None, *,
               mode: str = "continuity") -> Constraints:
    """4-neighbour links between the blocks of a ``rows x cols`` grid (row-major indices).

    ``mode="continuity"`` (PPC section 5.2.2): every adjacent pair is a soft must-link; with
    ``labels`` each gets confidence ``1 - q``, q being the ML estimate of section 2.4.2 (the share
    of adjacent pairs not in the same class), so eq. 2.15 gives eq. 5.2's ``w = 1/2 log((1-q)/q)``
    (q is capped at 0.5, i.e. w >= 0). Without labels the links are hard (confidence 1).
    ``mode="labels"``: adjacent pairs are must-links inside a region and cannot-links across.
    """
    for name, v in (("rows", rows), ("cols", cols)):
        if isinstance(v, bool) or int(v) != v or v < 1:
            raise InvalidInputError(f"{name} must be a whole number >= 1, got {v!r}.")
    rows, cols = int(rows), int(cols)
    if rows * cols < 2:
        raise InvalidInputError("a grid needs at least 2 cells to have neighbours.")
    idx = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    pairs = np.vstack([np.column_stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()]),
                       np.column_stack([idx[:-1, :].ravel(), idx[1:, :].ravel()])])
    y = None
    if labels is not None:
        y = np.asarray(labels).reshape(-1) if np.ndim(labels) == 2 else np.asarray(labels)
        if y.shape != (rows * cols,):
            raise InvalidInputError(
                f"labels must have {rows * cols} entries (rows x cols), got shape {np.shape(labels)}.")
        y = np.unique(y, return_inverse=True)[1].reshape(-1)
    if mode == "labels":
        if y is None:
            raise InvalidInputError("grid_links(mode='labels') needs the region labels.")
        return _split_by_labels(y, pairs, rows * cols)
    if mode != "continuity":
        raise InvalidInputError(f"mode must be 'continuity' or 'labels', got {mode!r}.")
    conf = 1.0
    if y is not None:
        q = float(np.mean(y[pairs[:, 0]] != y[pairs[:, 1]]))
        conf = 1.0 - min(q, 0.5)
    return Constraints(pairs, None, n_samples=rows * cols, confidence=conf)


def links_from_labels(labels: np.ndarray, n_pairs: int | None = None,
                      rng: np.random.Generator | None = None, *,
                      unlabeled: int = -1) -> Constraints:
    """Links from partial labels (``unlabeled`` marks a point without one, scikit-learn's -1).

    ``n_pairs=None``: every pair of labelled points, a must-link when the labels agree and a
    cannot-link otherwise. An integer: that many distinct pairs drawn uniformly among the pairs of
    labelled points and labelled the same way (the protocol of :func:`random_pairs_count`).
    Indices refer to the rows of ``labels``.
    """
    y = np.asarray(labels)
    if y.ndim != 1:
        raise InvalidInputError(f"labels must be 1-D, got shape {y.shape}.")
    known = np.flatnonzero(y != unlabeled)
    if known.size < 2:
        raise InvalidInputError(f"at least 2 labelled points (labels other than {unlabeled}) are "
                                f"needed to make links, got {known.size}.")
    codes = np.unique(y[known], return_inverse=True)[1].reshape(-1)
    m = known.size
    if n_pairs is None:
        i, j = np.triu_indices(m, k=1)
        pairs = np.column_stack([i, j])
    else:
        if isinstance(n_pairs, bool) or int(n_pairs) != n_pairs or n_pairs < 0:
            raise InvalidInputError(f"n_pairs must be None or a whole number >= 0, got "
                                    f"{n_pairs!r}.")
        if rng is None:
            raise InvalidInputError("drawing n_pairs links needs rng (a numpy Generator).")
        pairs = _distinct_pairs(m, int(n_pairs), rng)
    full = np.zeros(y.size, dtype=np.int64)
    full[known] = codes
    return _split_by_labels(full, known[pairs], y.size)


def reveal_labels(y: np.ndarray, n_labeled: int, rng: np.random.Generator, *,
                  stratified: bool = False, unlabeled: int = -1) -> np.ndarray:
    """Partial labels: the labels of ``n_labeled`` points, ``unlabeled`` for the others.

    Revealed labels are class codes 0..C-1 (``numpy.unique(y)``'s order), so they can seed a
    cluster each. Points are drawn without replacement, uniformly over all points, or with
    ``stratified=True`` spread over the classes as evenly as their sizes allow (round robin over the
    classes in a random order), so every class is seeded once ``n_labeled`` reaches the number of
    classes: Seeded- and Constrained-KMeans (Basu, Banerjee & Mooney 2002) start each cluster at
    the mean of its seeds and need one in every cluster.
    """
    codes = _labels(y)
    n = codes.size
    if isinstance(n_labeled, bool) or int(n_labeled) != n_labeled or not 0 <= n_labeled <= n:
        raise InvalidInputError(f"n_labeled must be a whole number in [0, {n}] (the number of "
                                f"points), got {n_labeled!r}.")
    n_labeled = int(n_labeled)
    if stratified:
        k = int(codes.max()) + 1
        order = rng.permutation(k)                       # which class goes first in each round
        position = np.empty(k, dtype=np.int64)
        position[order] = np.arange(k)
        perm = rng.permutation(n)                        # random rank of each point in its class
        by_class = perm[np.argsort(codes[perm], kind="stable")]
        starts = np.searchsorted(codes[by_class], np.arange(k))
        rank = np.empty(n, dtype=np.int64)
        rank[by_class] = np.arange(n) - starts[codes[by_class]]
        chosen = np.argsort(rank * k + position[codes], kind="stable")[:n_labeled]
    else:
        chosen = rng.choice(n, size=n_labeled, replace=False)
    out = np.full(n, unlabeled, dtype=np.int64)
    out[chosen] = codes[chosen]
    return out


def _labels_generator(ds: Dataset, y: np.ndarray, v: dict[str, Any],
                      rng: np.random.Generator) -> Constraints:
    partial = reveal_labels(y, v["n_labeled"], rng, stratified=v["stratified"])
    if np.count_nonzero(partial >= 0) < 2:
        return Constraints.empty(y.size)                 # one labelled point makes no pair
    return links_from_labels(partial)


# --- the named generators and noise models (one place for the CLI, sweeps and the app) ---


@dataclass(frozen=True)
class LinkGenerator:
    """A named protocol for drawing links, with declared parameters (CLI ``--gen``)."""

    name: str
    help: str
    func: Callable[[Dataset, np.ndarray | None, dict[str, Any], np.random.Generator], Constraints]
    params: tuple[Param, ...] = ()
    needs_labels: bool = True
    #: what a budget below 1 is a share of in a sweep: all pairs, or all points
    budget_of: str = "pairs"


def _grid(ds: Dataset, y: np.ndarray | None, v: dict[str, Any], rng: np.random.Generator) -> Constraints:
    shape = dict(ds.source).get("params") or {}
    rows = v["rows"] if v["rows"] is not None else shape.get("grid_rows")
    cols = v["cols"] if v["cols"] is not None else shape.get("grid_cols")
    if rows is None or cols is None:
        raise InvalidInputError(f"data set {ds.name!r} has no grid_rows/grid_cols; give --gen rows=R "
                                "--gen cols=C (points must be grid cells in row order).")
    if rows * cols != ds.n_samples:
        raise InvalidInputError(f"a {rows} x {cols} grid has {rows * cols} cells but the data set has "
                                f"{ds.n_samples} points.")
    if v["mode"] == "labels" and y is None:
        raise InvalidInputError("--gen mode=labels needs a data set with labels")
    return grid_links(rows, cols, y if v["use_labels"] or v["mode"] == "labels" else None,
                          mode=v["mode"])


def _nonoverlapping(ds: Dataset, y: np.ndarray, v: dict[str, Any], rng: np.random.Generator) -> Constraints:
    n_pairs = v["n_pairs"]
    if n_pairs is None:
        n_pairs = int(np.floor(v["fraction_points"] * y.size / 2 + 0.5))
    return nonoverlapping_pairs(y, n_pairs, rng)


GENERATORS: dict[str, LinkGenerator] = {g.name: g for g in (
    LinkGenerator("random", "n_must_link within classes and n_cannot_link across (like --must-link)",
                  lambda ds, y, v, rng: random_pairs(y, v["n_must_link"], v["n_cannot_link"], rng),
                  (Param("n_must_link", int, 10, "number of must-links", low=0),
                   Param("n_cannot_link", int, 10, "number of cannot-links", low=0))),
    LinkGenerator("pairs", "n_pairs uniform among all pairs, typed by the labels",
                  lambda ds, y, v, rng: random_pairs_count(y, v["n_pairs"], rng),
                  (Param("n_pairs", int, 20, "number of pairs", low=0),)),
    LinkGenerator("fraction", "a share r of all pairs, typed by the labels (like --link-fraction)",
                  lambda ds, y, v, rng: random_pairs_fraction(y, v["fraction"], rng,
                                                                  reading=v["reading"]),
                  (Param("fraction", float, 0.01, "share r of the n(n-1)/2 pairs", low=0.0, high=1.0),
                   Param("reading", str, "text",
                         "text: round(r n(n-1)/2) distinct pairs (the paper's text); code: "
                         "round(r n^2) ordered draws with replacement (the authors' code, about "
                         "twice as many)", choices=FRACTION_READINGS))),
    LinkGenerator("nonoverlapping", "no point in two pairs (PPC 5.1.1)", _nonoverlapping,
                  (Param("n_pairs", int, None, "number of pairs (at most n/2)", low=0, nullable=True),
                   Param("fraction_points", float, 0.5, "share of points in a pair, if n_pairs is "
                         "not given (PPC 5.1.4: 0.5)", low=0.0, high=1.0))),
    LinkGenerator("teachers", "N teachers partition K random points each (Shental et al. sec. 3)",
                  lambda ds, y, v, rng: teachers(y, v["n_teachers"], v["n_points"], rng,
                                                     complete=v["complete"]),
                  (Param("n_teachers", int, 10, "number of teachers N", low=0),
                   Param("n_points", int, 5, "points per teacher K", low=0),
                   Param("complete", bool, False, "state every implied pair, not a minimal set"))),
    LinkGenerator("labels", "partial labels: the labels of n_labeled points, and every pair of "
                  "them linked (must when the labels agree); seed-taking algorithms also get the "
                  "labels as seeds in a sweep", _labels_generator,
                  (Param("n_labeled", int, 10, "number of labelled points", low=0),
                   Param("stratified", bool, False, "spread the labelled points evenly over the "
                         "classes (every class seeded once n_labeled reaches their number)")),
                  budget_of="points"),
    LinkGenerator("grid", "links between 4-neighbours of a grid (PPC 5.2.2)", _grid,
                  (Param("rows", int, None, "grid rows (default: the data set's grid_rows)", low=1,
                         nullable=True),
                   Param("cols", int, None, "grid columns (default: the data set's grid_cols)", low=1,
                         nullable=True),
                   Param("mode", str, "continuity", "soft must-links, or typed by the labels",
                         choices=("continuity", "labels")),
                   Param("use_labels", bool, True, "estimate q (confidence 1 - q) from the labels")),
                  needs_labels=False),
)}


#: Noise models by name: ``flip-fraction`` (a share of the links flipped, SCSSAP type 1),
#: ``flip-prob`` (each link flipped with probability q, confidence 1 - q, PPC 5.1.4) and
#: ``e-matrix`` (true must-links kept with probability p, cannot-links with q, RDP-means eq. 8).
NOISE_MODELS = ("flip-fraction", "flip-prob", "e-matrix")


def add_noise(links: Constraints, model: str, level: float | tuple[float, float],
              rng: np.random.Generator) -> Constraints:
    """``links`` with noise ``model`` (one of :data:`NOISE_MODELS`) at ``level`` ((p, q) for e-matrix)."""
    if model == "flip-fraction":
        return flip_fraction(links, float(level), rng)  # type: ignore[arg-type]
    if model == "flip-prob":
        return flip_probability(links, float(level), rng)  # type: ignore[arg-type]
    if model == "e-matrix":
        p, q = level  # type: ignore[misc]
        return e_matrix_noise(links, p, q, rng)
    raise InvalidInputError(f"unknown noise model {model!r}; choose one of {', '.join(NOISE_MODELS)}")


def _generator_labels(dataset: Dataset, spec: LinkGenerator, label_noise: float | None,
                      label_rng: np.random.Generator) -> np.ndarray | None:
    """The labels a generator draws from: the data set's, relabelled first with ``label_noise``."""
    y = None if dataset.y is None else np.asarray(dataset.y)
    if y is None and spec.needs_labels:
        raise InvalidInputError(
            f"dataset {dataset.name!r} has no labels to draw links from; use --constraints FILE")
    if label_noise is not None:
        if y is None:
            raise InvalidInputError("--label-noise needs a data set with labels")
        y = relabel_points(y, label_noise, label_rng)
    return y


def draw_links(dataset: Dataset, generator: str | None, params: dict[str, Any],
               rng: np.random.Generator, *, label_noise: float | None = None,
               label_rng: np.random.Generator | None = None, noise: str | None = None,
               level: float | tuple[float, float] | None = None,
               noise_rng: np.random.Generator | None = None) -> Constraints:
    """Links for ``dataset`` from the named ``generator`` (``None``: no links), then noise.

    ``label_noise`` relabels that share of the points first (with ``label_rng``, default ``rng``);
    ``noise``/``level`` pick a model of :func:`add_noise`, drawn with ``noise_rng``.
    """
    if generator is None:
        if label_noise is not None:
            raise InvalidInputError("--label-noise needs links drawn from the labels "
                                    "(e.g. --must-link 20 --cannot-link 20 or --generator pairs)")
        links = Constraints.empty(dataset.n_samples)
    else:
        if generator not in GENERATORS:
            raise InvalidInputError(f"unknown link generator {generator!r}; choose one of "
                                    f"{', '.join(sorted(GENERATORS))}")
        spec = GENERATORS[generator]
        y = _generator_labels(dataset, spec, label_noise, rng if label_rng is None else label_rng)
        values = resolve_params(spec.params, params, owner=f"link generator {generator!r}")
        links = spec.func(dataset, y, values, rng)
    if noise is not None and level is not None:
        if noise_rng is None:
            raise InvalidInputError("noise needs its own random generator (noise_rng)")
        links = add_noise(links, noise, level, noise_rng)
    return links


def draw_seed_labels(dataset: Dataset, params: dict[str, Any], rng: np.random.Generator, *,
                     label_noise: float | None = None,
                     label_rng: np.random.Generator | None = None) -> np.ndarray:
    """The partial labels behind ``draw_links(dataset, "labels", params, rng, ...)``: the same
    points with the same (possibly relabelled) labels, -1 elsewhere; the seeds of a seed-taking
    algorithm (``seed_labels``) in a sweep with partial-label budgets."""
    spec = GENERATORS["labels"]
    y = _generator_labels(dataset, spec, label_noise, rng if label_rng is None else label_rng)
    values = resolve_params(spec.params, params, owner="link generator 'labels'")
    return reveal_labels(y, values["n_labeled"], rng, stratified=values["stratified"])
