"""What a sweep's figures show, as numbers (Qt-free; :mod:`.figures` draws it).

One figure per metric; one panel per data set (and per level of any other swept factor); in each
panel, the metric's mean against the swept factor (the link budget or number of queries, else the
link noise, else the label noise) with one curve per method (and query strategy) and a band of
± 1 s.d. over the trials.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CurveData", "PanelData", "panels"]

X_FACTORS = (("budget", "link budget"), ("link_noise", "link noise"), ("label_noise", "label noise"))


@dataclass
class CurveData:
    method: str
    x: list[float]
    mean: list[float]
    std: list[float]


@dataclass
class PanelData:
    title: str
    x_label: str
    y_label: str
    curves: list[CurveData]


def _float(value: Any) -> float:
    return math.nan if value in (None, "") else float(value)


def x_factor(summary: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """The factor on the x axis: the first of budget, link noise, label noise that varies."""
    for key, label in X_FACTORS:
        if len({str(s[key]) for s in summary}) > 1:
            return key, label
    return X_FACTORS[0]


def panels(summary: Sequence[dict[str, Any]], metric: str, generator: str | None = None
           ) -> list[PanelData]:
    """The panels of ``metric``'s figure from the summary rows (in summary order)."""
    key, label = x_factor(summary)
    others = [k for k, _ in X_FACTORS if k != key and len({str(s[k]) for s in summary}) > 1]
    groups: dict[tuple[str, ...], dict[str, list[tuple[float, float, float]]]] = {}
    for s in summary:
        panel = (s["dataset"], *[f"{k.replace('_', ' ')} {s[k]}" for k in others])
        curve = f"{s['method']} · {s['strategy']}" if s.get("strategy") else s["method"]
        groups.setdefault(panel, {}).setdefault(curve, []).append(
            (_float(s[key]), _float(s[f"{metric}_mean"]), _float(s[f"{metric}_std"])))
    if key == "budget" and any(s.get("strategy") for s in summary):
        label = "number of queries (one curve per query strategy)"
    elif key == "budget" and generator:
        label = f"link budget ({generator})"
    out = []
    for panel, methods in groups.items():
        curves = []
        for method, points in methods.items():
            points.sort()
            curves.append(CurveData(method, [p[0] for p in points], [p[1] for p in points],
                                    [p[2] for p in points]))
        out.append(PanelData(", ".join(panel), label, f"{metric} (mean, band ± 1 s.d.)", curves))
    return out
