"""Cross-validation and parameter search with links (scikit-learn's splitters and searches).

scikit-learn cuts every fit argument of length ``n_samples`` with the rows of a fold, and passes
anything else whole -- so a ``(m, 2)`` array of pairs reaches each fold indexed for the full data.
:func:`link_rows` turns the links into one entry per point: its own index in the full data, its
must-link and cannot-link partners there, and optionally its label. Cut with the rows of a fold, the
entries tell the estimator which links have both ends in the fold (kept, re-indexed to the fold's
rows) and which cross the fold (left out of the fit). Give the rows as ``must_link=`` and
``cannot_link=`` (with or without ``sklearn.set_config(enable_metadata_routing=True)``) or as ``y``.

Scoring follows CVCP (Pourrajabi, Moulavi, Campello, Zimek, Sander & Goebel 2014, "Model selection
for semi-supervised clustering", EDBT): a clustering is judged by how well it classifies links it
did not see -- held-out must-links as "same cluster", cannot-links as "different clusters" -- with
the F-measure of each class averaged (:func:`link_f_measure`). Here the held-out links are those of
the test fold: both ends in it (both labels predicted), or one end in the training fold (its fitted
label) and one in the test fold (predicted). Where true labels are known, :class:`LabelScorer`
compares the predicted labels of the test fold with them (adjusted Rand index by default).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .errors import InvalidInputError

__all__ = ["LabelScorer", "LinkRow", "LinkScorer", "cut_links", "cut_links_with_confidence",
           "is_link_rows", "link_f_measure", "link_rows"]


class LinkRow(NamedTuple):
    """The links of one point: its index in the full data, its partners there, its label, and the
    links' confidences in the partners' order (empty: every link certain)."""

    index: int
    must: tuple[int, ...]
    cannot: tuple[int, ...]
    label: Any = None
    must_confidence: tuple[float, ...] = ()
    cannot_confidence: tuple[float, ...] = ()


def _pairs(pairs: Any, n: int, kind: str) -> np.ndarray:
    arr = np.zeros((0, 2), dtype=np.int64) if pairs is None else np.asarray(pairs)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidInputError(f"{kind} must be an (m, 2) array of integer indices, got shape "
                                f"{arr.shape} of {arr.dtype}.")
    if arr.min() < 0 or arr.max() >= n:
        raise InvalidInputError(f"{kind} indices must lie in [0, {n - 1}].")
    return arr.astype(np.int64)


def link_rows(n_samples: int, must_link: Any = None, cannot_link: Any = None,
              labels: Any = None, confidence: Any = None) -> np.ndarray:
    """One :class:`LinkRow` per point (an object array of length ``n_samples``).

    ``confidence`` as :class:`~pairlab.Constraints` takes it (a scalar, a mapping with keys
    ``must_link``/``cannot_link``, or one value per pair, must-links first); the rows carry each
    link's value, so a fold's fit keeps the confidences of the links it keeps.
    """
    from .constraints import Constraints

    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise InvalidInputError(f"n_samples must be a positive integer, got {n_samples!r}.")
    n = int(n_samples)
    ml, cl = _pairs(must_link, n, "must_link"), _pairs(cannot_link, n, "cannot_link")
    conf = None
    if confidence is not None:
        c = Constraints(ml, cl, n_samples=n, confidence=confidence)
        conf = {"must_link": c.ml_confidence, "cannot_link": c.cl_confidence}
    partners: dict[str, list[list[tuple[int, float]]]] = {}
    for kind, pairs in (("must_link", ml), ("cannot_link", cl)):
        lists: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        values = np.ones(len(pairs)) if conf is None else conf[kind]
        for (a, b), v in zip(pairs, values, strict=True):
            lists[a].append((int(b), float(v)))
            lists[b].append((int(a), float(v)))
        partners[kind] = [sorted(p) for p in lists]
    if labels is not None:
        labels = np.asarray(labels)
        if labels.shape != (n,):
            raise InvalidInputError(f"labels must have shape ({n},), got {labels.shape}.")
    out = np.empty(n, dtype=object)
    for i in range(n):
        must, cannot = partners["must_link"][i], partners["cannot_link"][i]
        out[i] = LinkRow(i, tuple(b for b, _ in must), tuple(b for b, _ in cannot),
                         None if labels is None else labels[i].item(),
                         () if conf is None else tuple(v for _, v in must),
                         () if conf is None else tuple(v for _, v in cannot))
    return out


def is_link_rows(value: Any) -> bool:
    """Whether ``value`` is (a cut of) :func:`link_rows`."""
    return (isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 1
            and value.size > 0 and all(isinstance(r, LinkRow) for r in value))


def cut_links(rows: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs, index)``: the ``kind`` ("must" or "cannot") links with both ends among ``rows``,
    re-indexed to positions in ``rows``, and the rows' indices in the full data."""
    pairs, index, _ = cut_links_with_confidence(rows, kind)
    return pairs, index


def cut_links_with_confidence(rows: np.ndarray,
                              kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`cut_links` and the kept links' confidences (``None`` when the rows carry none)."""
    index = np.array([r.index for r in rows], dtype=np.int64)
    if np.unique(index).size != index.size:
        raise InvalidInputError("link rows hold the same point twice (a fold drawn with "
                                "replacement?); cut them with a splitter of distinct rows.")
    position = {int(j): p for p, j in enumerate(index)}
    has_conf = any(getattr(r, f"{kind}_confidence") for r in rows)
    pairs, conf = [], []
    for p, r in enumerate(rows):
        partners = getattr(r, kind)
        values = getattr(r, f"{kind}_confidence") or (1.0,) * len(partners)
        for b, v in zip(partners, values, strict=True):
            if b in position and position[b] > p:
                pairs.append((p, position[b]))
                conf.append(v)
    return (np.array(pairs, dtype=np.int64).reshape(-1, 2), index,
            np.array(conf, dtype=float) if has_conf else None)


def _f1(tp: int, fp: int, fn: int) -> float:
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def link_f_measure(same_must: np.ndarray, same_cannot: np.ndarray) -> float:
    """CVCP's score: mean F-measure of the must-link and cannot-link classes, given whether each
    held-out must-link (``same_must``) and cannot-link (``same_cannot``) falls in one cluster.

    Must-link class: true positives are must-links kept together, false negatives must-links
    split, false positives cannot-links put together; the cannot-link class mirrors it. With links
    of one kind only, the F-measure of that class.
    """
    same_must, same_cannot = np.asarray(same_must, bool), np.asarray(same_cannot, bool)
    if same_must.size + same_cannot.size == 0:
        raise InvalidInputError("no held-out links to score: give links whose ends fall in the "
                                "test folds, or score with true labels (LabelScorer).")
    kept, split = int(same_must.sum()), int((~same_must).sum())
    joined, apart = int(same_cannot.sum()), int((~same_cannot).sum())
    scores = []
    if same_must.size:
        scores.append(_f1(kept, joined, split))
    if same_cannot.size:
        scores.append(_f1(apart, split, joined))
    return float(np.mean(scores))


class _Requests:
    """set_score_request / get_metadata_routing for a scorer (scikit-learn's routing)."""

    _metadata = ("must_link", "cannot_link")

    def set_score_request(self, **requests: Any) -> Any:
        unknown = set(requests) - set(self._metadata)
        if unknown:
            raise InvalidInputError(f"unknown score metadata {sorted(unknown)}; this scorer takes "
                                    f"{list(self._metadata)}.")
        self._requests = {**getattr(self, "_requests", {}), **requests}
        return self

    def get_metadata_routing(self) -> Any:
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=type(self).__name__)
        for name in self._metadata:
            request.score.add_request(param=name, alias=getattr(self, "_requests", {}).get(name))
        return request


def _test_rows(y: Any, must_link: Any, cannot_link: Any) -> np.ndarray:
    for value in (must_link, cannot_link, y):
        if value is not None and is_link_rows(value):
            return value
    raise InvalidInputError("the scorer needs the test fold's links: give link_rows(...) as y, or "
                            "as must_link=/cannot_link= with metadata routing and "
                            "scorer.set_score_request(must_link=True, cannot_link=True).")


class LinkScorer(_Requests):
    """Agreement of a fitted estimator with the test fold's held-out links (CVCP F-measure)."""

    def __call__(self, estimator: Any, X: Any, y: Any = None, must_link: Any = None,
                 cannot_link: Any = None) -> float:
        rows = _test_rows(y, must_link, cannot_link)
        test = {r.index: p for p, r in enumerate(rows)}
        train_index = getattr(estimator, "sample_index_", None)
        if train_index is None:
            raise InvalidInputError("the estimator was fitted without link_rows, so the test "
                                    "fold's links cannot be matched to its training points.")
        train = {int(j): p for p, j in enumerate(train_index)}
        predicted = np.asarray(estimator.predict(X))
        fitted = np.asarray(estimator.labels_)

        def label(j: int) -> Any:
            return predicted[test[j]] if j in test else fitted[train[j]] if j in train else None

        outcome: dict[str, list[bool]] = {"must": [], "cannot": []}
        for r in rows:
            for kind in outcome:
                for b in getattr(r, kind):
                    if b in test and test[b] < test[r.index]:
                        continue  # a test-test link, counted once
                    other = label(b)
                    if other is not None:
                        outcome[kind].append(bool(predicted[test[r.index]] == other))
        return link_f_measure(np.array(outcome["must"]), np.array(outcome["cannot"]))


class LabelScorer(_Requests):
    """A metric of the test fold's predicted labels against true labels (``y``, or the labels of
    link rows); adjusted Rand index by default."""

    def __init__(self, metric: Callable[[Any, Any], float] | None = None) -> None:
        self.metric = metric

    def __call__(self, estimator: Any, X: Any, y: Any = None, must_link: Any = None,
                 cannot_link: Any = None) -> float:
        if y is None:
            raise InvalidInputError("LabelScorer needs the true labels as y.")
        truth = np.array([r.label for r in y]) if is_link_rows(y) else np.asarray(y)
        if truth.dtype == object and any(t is None for t in truth):
            raise InvalidInputError("the link rows carry no labels; give labels= to link_rows.")
        metric = self.metric
        if metric is None:
            from sklearn.metrics import adjusted_rand_score as metric
        return float(metric(truth, estimator.predict(X)))
