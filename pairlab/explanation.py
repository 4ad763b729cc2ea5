"""What a student asks of one point: which update produced its label, and with which numbers.

An :class:`Explanation` is plain data (Qt-free): the app's explanation panel draws it, a script can
print it. Algorithms build one in :meth:`pairlab.Algorithm.explain`; the maths stays in the plugin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["Bars", "Explanation", "why_moved"]


@dataclass(frozen=True)
class Bars:
    """One small bar chart: a value per choice, the chosen one highlighted.

    ``term`` names the bars when they are one additive term of the score the choice maximises
    (minimises when ``lower_is_better``), e.g. "distance", "link term", "prior": the terms of
    one explanation sum to that score, which is how :func:`why_moved` finds the term that
    tipped a change of label.
    """

    title: str
    labels: tuple[str, ...]
    values: np.ndarray
    highlight: int | None = None
    lower_is_better: bool = False
    term: str = ""

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=float).reshape(-1)
        values.setflags(write=False)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "labels", tuple(str(s) for s in self.labels))
        if len(self.labels) != values.size:
            raise ValueError(f"{len(self.labels)} labels for {values.size} values in {self.title!r}")


@dataclass(frozen=True)
class Explanation:
    """The numbers behind point ``point``'s label at one state.

    ``before`` is the same explanation one iteration earlier when the point's label changed over
    the half-step just taken, and ``moved`` says which term tipped it (see :func:`why_moved`).
    """

    point: int
    phase: str
    equation: str
    bars: tuple[Bars, ...] = field(default_factory=tuple)
    text: str = ""
    before: Explanation | None = None
    moved: str = ""

    @property
    def terms(self) -> tuple[Bars, ...]:
        """The bars that are additive terms of the choice's score."""
        return tuple(b for b in self.bars if b.term)

    @property
    def choice(self) -> str | None:
        """The label of the highlighted bar (the choice made), from the first bars that have one."""
        for b in self.bars:
            if b.highlight is not None:
                return b.labels[b.highlight]
        return None

    def describe(self) -> dict:
        """JSON-ready form."""
        out = {"point": self.point, "phase": self.phase, "equation": self.equation,
               "text": self.text, "moved": self.moved,
               "bars": [{"title": b.title, "labels": list(b.labels), "values": b.values.tolist(),
                         "highlight": b.highlight, "lower_is_better": b.lower_is_better,
                         "term": b.term} for b in self.bars]}
        if self.before is not None:
            out["before"] = self.before.describe()
        return out


def _score_terms(e: Explanation) -> dict[str, Bars]:
    return {b.term: b for b in e.terms}


def _margin(bars: Bars, old: str, new: str) -> float:
    sign = -1.0 if bars.lower_is_better else 1.0
    return sign * float(bars.values[bars.labels.index(new)] - bars.values[bars.labels.index(old)])


def why_moved(before: Explanation, after: Explanation, old: str, new: str) -> Explanation:
    """``after`` with ``before`` attached and the term that tipped the move from choice ``old``
    to choice ``new`` (bar labels, e.g. "k=0") named in ``moved``.

    Each term's margin is ``sign * (value[new] - value[old])`` (sign -1 for costs); the margins
    sum to the score margin, which was not positive before and is positive after. The term whose
    margin rose most is the one that tipped it. When the terms are not comparable (a choice
    missing on either side) the values are still shown side by side, without a verdict.
    """
    rises: list[tuple[float, str, float, float]] = []
    tb, ta = _score_terms(before), _score_terms(after)
    for name, a in ta.items():
        b = tb.get(name)
        if b is None or not {old, new} <= set(a.labels) or not {old, new} <= set(b.labels):
            rises = []
            break
        m_b, m_a = _margin(b, old, new), _margin(a, old, new)
        rises.append((m_a - m_b, name, m_b, m_a))
    if rises:
        rises.sort(key=lambda r: -r[0] if np.isfinite(r[0]) else -np.inf)
        top = rises[0]
        parts = "; ".join(f"{name}: {m_b:+.4g} -> {m_a:+.4g}" for _, name, m_b, m_a in rises)
        flipped = sum(r[2] for r in rises) <= 0 < sum(r[3] for r in rises)
        verdict = (f"the {top[1]} tipped it" if flipped else
                   f"not by the largest score (a draw or a rule beyond the terms); the {top[1]} "
                   "moved its margin most")
        moved = (f"moved from {old} to {new}: {verdict}. Margin of {new} over "
                 f"{old}, before -> after, per term (+ favours {new}): {parts}")
    else:
        moved = f"moved from {old} to {new} (values before and after shown side by side)"
    return replace(after, before=before, moved=moved)


def component_labels(k: int, prefix: str = "k") -> tuple[str, ...]:
    return tuple(f"{prefix}={j}" for j in range(k))


def argmax_or_none(values: Sequence[float]) -> int | None:
    values = np.asarray(values, dtype=float)
    return int(np.nanargmax(values)) if values.size and np.isfinite(values).any() else None
