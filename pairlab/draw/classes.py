"""Which colour slot a point is drawn in: its class under a state (components summed per class)
and the slot of each label (matched to the true classes when asked)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..metrics import class_matching, unique_codes
from ..state import State

__all__ = ["point_classes", "slot_mapper"]

#: Labels below this are their own slot; larger label values (exemplar indices) are ranked.
IDENTITY_LABELS = 64


def slot_mapper(labels: np.ndarray, truth: np.ndarray | None = None,
                 n_labels: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """Class slot (colour and symbol) of label values.

    Without ``truth``: the value itself for small labels, else its rank among the state's labels
    (affinity propagation labels points by their exemplar's index). With ``truth``: the true
    class each label is matched to (:func:`pairlab.metrics.class_matching`), so every pane draws
    a class in the same colour; labels left over (and values ``>= n_labels``) get the slots after
    the classes.
    """
    uniq = unique_codes(labels)[0]  # np.unique's values, by counting for small labels
    small = uniq.size == 0 or uniq.max() < IDENTITY_LABELS
    if small:
        def index(v: np.ndarray) -> np.ndarray:
            return np.asarray(v, dtype=np.intp)
    else:
        def index(v: np.ndarray) -> np.ndarray:
            return np.searchsorted(uniq, np.asarray(v)).astype(np.intp)
    if truth is None or uniq.size == 0:
        return index
    size = max(n_labels, int(index(uniq).max()) + 1)
    perm = class_matching(truth, index(labels), size)
    spare = int(perm.max()) + 1

    def matched(v: np.ndarray) -> np.ndarray:
        i = index(v)
        if i.size and 0 <= i.min() and i.max() < size:  # every value matched: a lookup
            return perm[i].astype(np.intp)
        return np.where(i < size, perm[np.minimum(i, size - 1)], spare + i - size).astype(np.intp)

    return matched


def point_classes(state: State) -> tuple[np.ndarray, np.ndarray, int]:
    """(class of every point, posterior of that class, number of classes) of a state.

    With ``class_of_component`` and per-component responsibilities, posteriors are summed per
    class, and labels that name components are mapped to their class, so every component of a
    class shows in the class colour.
    """
    labels = np.asarray(state.labels)
    r = state.responsibilities
    coc = state.model.get("class_of_component")
    n = labels.size
    if r is None:
        k = int(labels.max()) + 1 if n else 1
        return labels, np.ones(n), k
    if coc is not None and len(coc) == r.shape[1]:
        coc = np.asarray(coc, dtype=np.intp)
        n_cls = int(coc.max()) + 1
        onehot = np.zeros((len(coc), n_cls))
        onehot[np.arange(len(coc)), coc] = 1.0
        class_prob = r @ onehot
        are_components = labels.max(initial=0) >= n_cls or (
            np.array_equal(labels, r.argmax(axis=1))
            and not np.array_equal(labels, class_prob.argmax(axis=1)))
        classes = coc[labels] if are_components else labels
        classes = np.minimum(classes, n_cls - 1)
        return classes, class_prob[np.arange(n), classes], n_cls
    if labels.max(initial=0) < r.shape[1]:
        return labels, r[np.arange(n), labels], r.shape[1]
    return labels, r.max(axis=1), r.shape[1]
