"""Rich display in notebooks: HTML tables for Constraints, a reproduction and a sweep result.

The ``_repr_html_`` methods of those classes call the functions here; a Run's and an estimator's
display, which draw a picture, are in :mod:`pairlab.display_run`. No Qt, no app, no matplotlib.
"""

from __future__ import annotations

import base64
import html
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ReproductionDocument", "constraints_html", "has_matplotlib", "html_table", "img_tag",
           "reproduction_html", "sweep_html"]

#: Rows of a table shown before "... n more rows".
MAX_ROWS = 40
_STYLE = "border-collapse:collapse;font-size:90%"
_CELL = "border:1px solid #ccc;padding:2px 6px;text-align:left"


def has_matplotlib() -> bool:
    """True when matplotlib's ``Figure`` imports (pictures are drawn), False for text only."""
    if sys.modules.get("matplotlib", False) is None:
        return False
    try:
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        return False
    return True


def _text(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def img_tag(png: bytes, alt: str) -> str:
    """An ``<img>`` with the PNG inlined (base64)."""
    data = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}"/>'


def html_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None, *,
               limit: int = MAX_ROWS, caption: str | None = None) -> str:
    """An escaped HTML table of ``rows`` (dicts); ``columns`` default to the first row's keys."""
    columns = list(columns if columns is not None else (rows[0].keys() if rows else []))
    head = "".join(f'<th style="{_CELL}">{html.escape(str(c))}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f'<td style="{_CELL}">{html.escape(_text(r.get(c, "")))}</td>'
                                    for c in columns) + "</tr>" for r in rows[:limit])
    more = (f'<tr><td colspan="{len(columns)}" style="{_CELL}">... {len(rows) - limit} more rows</td></tr>'
            if len(rows) > limit else "")
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<table style="{_STYLE}">{cap}<tr>{head}</tr>{body}{more}</table>'


def constraints_html(constraints: Any, limit: int = 10) -> str:
    """Counts and the first ``limit`` pairs of each kind of a :class:`~pairlab.Constraints`."""
    parts = [f"<b>Constraints</b> on {constraints.n_samples} points: {constraints.n_must_link} must-link, "
             f"{constraints.n_cannot_link} cannot-link pairs"
             + (" (with confidence)" if constraints.has_confidence else "")]
    for kind in ("must_link", "cannot_link"):
        pairs = getattr(constraints, kind)
        if len(pairs):
            rows = [{"i": int(a), "j": int(b)} for a, b in pairs]
            parts.append(html_table(rows, limit=limit, caption=kind.replace("_", "-")))
    return "<br/>".join(parts[:1]) + "".join(parts[1:])


def reproduction_html(doc: Mapping[str, Any], folder: str | Path | None = None) -> str:
    """A reproduction's document (what :func:`pairlab.reproduce.reproduce` returns): its title,
    claims table (paper vs measured, held) and the PNG figure it wrote into ``folder``."""
    held = doc.get("all_claims_held")
    parts = [f"<h4>{html.escape(str(doc.get('title', doc.get('name', ''))))}</h4>",
             f"<div>{html.escape(str(doc.get('paper', '')))}</div>"]
    claims = [{"claim": c.get("name"), "statement": c.get("statement"), "paper": c.get("paper"),
               "measured": c.get("measured"), "held": c.get("held")} for c in doc.get("claims", [])]
    if claims:
        parts.append(html_table(claims, caption="claims: all held" if held else "claims: NOT all held"))
    for note in doc.get("notes", []):
        parts.append(f"<div><i>{html.escape(str(note))}</i></div>")
    if folder is not None:
        for name in doc.get("files", []):
            path = Path(folder) / name
            if path.suffix.lower() == ".png" and path.is_file():
                parts.append(img_tag(path.read_bytes(), name))
    return "".join(parts)


def sweep_html(result: Any) -> str:
    """A sweep result's summary table (one row per cell) and where its files are."""
    files = ", ".join(html.escape(str(p)) for p in (result.table, result.summary_table, result.document))
    return (f"<b>Sweep</b>: {len(result.rows)} trials in {len(result.summary)} cells<br/>"
            f"{html_table(result.summary, caption='summary')}<div>files: {files}</div>")


class ReproductionDocument(dict):  # type: ignore[type-arg]
    """The JSON document of a reproduction (a plain ``dict``) that shows as its claims table and
    figure in a notebook; ``folder`` is where its files were written."""

    def __init__(self, doc: Mapping[str, Any], folder: str | Path | None = None,
                 figures: list[Any] | None = None) -> None:
        super().__init__(doc)
        self.folder = None if folder is None else Path(folder)
        #: the matplotlib Figures the recipe drew (empty when Qt drew or nothing was drawn)
        self.figures = list(figures or [])

    def _repr_html_(self) -> str:
        return reproduction_html(self, self.folder)
