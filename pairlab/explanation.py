"""What a student asks of one point: which update produced its label, and with which numbers.

An :class:`Explanation` is plain data (Qt-free): the app's explanation panel draws it, a script can
print it. Algorithms build one in :meth:`pairlab.Algorithm.explain`; the maths stays in the plugin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Bars", "Explanation"]


@dataclass(frozen=True)
class Bars:
    """One small bar chart: a value per choice, the chosen one highlighted."""

    title: str
    labels: tuple[str, ...]
    values: np.ndarray
    highlight: int | None = None
    lower_is_better: bool = False

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=float).reshape(-1)
        values.setflags(write=False)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "labels", tuple(str(s) for s in self.labels))
        if len(self.labels) != values.size:
            raise ValueError(f"{len(self.labels)} labels for {values.size} values in {self.title!r}")


@dataclass(frozen=True)
class Explanation:
    """The numbers behind point ``point``'s label at one state."""

    point: int
    phase: str
    equation: str
    bars: tuple[Bars, ...] = field(default_factory=tuple)
    text: str = ""

    def describe(self) -> dict:
        """JSON-ready form."""
        return {"point": self.point, "phase": self.phase, "equation": self.equation, "text": self.text,
                "bars": [{"title": b.title, "labels": list(b.labels), "values": b.values.tolist(),
                          "highlight": b.highlight, "lower_is_better": b.lower_is_better}
                         for b in self.bars]}


def component_labels(k: int, prefix: str = "k") -> tuple[str, ...]:
    return tuple(f"{prefix}={j}" for j in range(k))


def argmax_or_none(values: Sequence[float]) -> int | None:
    values = np.asarray(values, dtype=float)
    return int(np.nanargmax(values)) if values.size and np.isfinite(values).any() else None
