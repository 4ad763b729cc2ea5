"""Colours, symbols and sizes of the canvas (no Qt here: plain RGB tuples and numbers).

The palette is Okabe & Ito's colour-blind-safe set (Okabe & Ito 2008, "Color Universal Design"),
without black, which is kept for links and means. Every class also gets its own marker symbol, so
the classes stay distinguishable in greyscale and for every kind of colour vision.

Soft labels are drawn as saturation, as in GM-PR Fig. 3: a point whose posterior for its hard
label is 1 gets the full class colour, a point that is undecided (posterior 1/k) a pale one. The
posterior is quantised to :data:`N_LEVELS` levels so that the canvas reuses a small table of
brushes (``n_colours * N_LEVELS`` entries) instead of one brush per point, which is both much
faster and avoids the PySide6 6.12 crash with many distinct brushes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = [
    "GREY",
    "INK",
    "N_LEVELS",
    "OKABE_ITO",
    "SYMBOLS",
    "Style",
    "blend_with_white",
    "colour_hex",
    "level_colours",
    "saturation_levels",
]

#: Okabe-Ito colours in the order classes use them (vermillion and blue first: the best pair).
OKABE_ITO: tuple[tuple[int, int, int], ...] = (
    (213, 94, 0),     # vermillion
    (0, 114, 178),    # blue
    (0, 158, 115),    # bluish green
    (230, 159, 0),    # orange
    (204, 121, 167),  # reddish purple
    (86, 180, 233),   # sky blue
    (240, 228, 66),   # yellow
)
#: Marker symbol of each class (pyqtgraph names); the cycle length differs from the colours', so
#: class 7 differs from class 0 by its symbol even though the colours wrap around.
SYMBOLS: tuple[str, ...] = ("o", "s", "t1", "d", "p", "h", "star", "t")
INK: tuple[int, int, int] = (25, 25, 25)
GREY: tuple[int, int, int] = (150, 150, 150)
#: Number of saturation levels of the brush table.
N_LEVELS = 8
_MIN_STRENGTH = 0.18


def colour_hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def blend_with_white(rgb: tuple[int, int, int], strength: float) -> tuple[int, int, int]:
    """``strength`` 1 gives the colour, 0 white."""
    return tuple(round(255 + (c - 255) * strength) for c in rgb)  # type: ignore[return-value]


def level_colours(rgb: tuple[int, int, int], n_levels: int = N_LEVELS) -> list[tuple[int, int, int]]:
    """The ``n_levels`` tints of one class colour, palest first."""
    strengths = _MIN_STRENGTH + (1 - _MIN_STRENGTH) * np.linspace(0.0, 1.0, n_levels)
    return [blend_with_white(rgb, float(s)) for s in strengths]


def saturation_levels(p: np.ndarray, n_classes: int, n_levels: int = N_LEVELS) -> np.ndarray:
    """Quantise the posterior ``p`` of each point's hard label to ``0 .. n_levels - 1``.

    ``p = 1/n_classes`` (undecided) maps to 0, ``p = 1`` to ``n_levels - 1``.
    """
    p = np.asarray(p, dtype=float)
    if n_classes <= 1:
        return np.full(p.shape, n_levels - 1, dtype=np.intp)
    floor = 1.0 / n_classes
    t = np.clip((p - floor) / (1.0 - floor), 0.0, 1.0)
    return np.minimum((t * n_levels).astype(np.intp), n_levels - 1)


@dataclass(frozen=True)
class Style:
    """Sizes of what the canvas draws; :meth:`presentation` is the large variant for lectures."""

    point_size: float = 8.0
    point_outline: float = 0.0
    mean_size: float = 18.0
    line_width: float = 1.6
    link_width: float = 2.2
    font_size: int = 10
    title_size: int = 11
    legend: bool = True

    @classmethod
    def presentation(cls) -> Style:
        return cls(point_size=14.0, mean_size=30.0, line_width=3.0, link_width=3.6,
                   font_size=16, title_size=18)

    def scaled(self, factor: float) -> Style:
        return replace(self, point_size=self.point_size * factor, mean_size=self.mean_size * factor,
                       line_width=self.line_width * factor, link_width=self.link_width * factor)
