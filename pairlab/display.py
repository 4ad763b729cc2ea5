"""Rich display in notebooks: HTML (and PNG) for a Run, an estimator, Constraints, a reproduction
and a sweep result.

The ``_repr_html_`` / ``_repr_mimebundle_`` methods of those classes call the functions here. A
picture is drawn with matplotlib (:mod:`pairlab.mpl`), imported only when a picture is asked for;
without matplotlib the display is plain HTML tables. No Qt, no app.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import io
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ReproductionDocument", "constraints_html", "estimator_bundle", "has_matplotlib", "html_table",
           "reproduction_html", "run_bundle", "run_png", "sweep_html"]

#: Rows of a table shown before "... n more rows".
MAX_ROWS = 40
_STYLE = "border-collapse:collapse;font-size:90%"
_CELL = "border:1px solid #ccc;padding:2px 6px;text-align:left"


def has_matplotlib() -> bool:
    """True when matplotlib can be imported (pictures are drawn), False for text only."""
    if "matplotlib" in sys.modules:
        return sys.modules["matplotlib"] is not None
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


def _text(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


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


def _png_of(figure: Any) -> bytes:
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=80, metadata={"Software": None})
    return buf.getvalue()


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}"/>'


def run_png(run: Any, size: tuple[float, float] = (480, 420)) -> bytes | None:
    """A PNG of ``run`` at its cursor (matplotlib), or None without matplotlib."""
    if not has_matplotlib():
        return None
    from .mpl import draw_run

    return _png_of(draw_run(run, size=size))


def _run_rows(run: Any) -> list[dict[str, Any]]:
    state, links = run.state, run.constraints
    rows = [{"": "algorithm", "value": f"{run.algorithm_class.title} ({run.algorithm_class.name})"},
            {"": "data", "value": f"{run.dataset.name}: {run.dataset.n_samples} points, "
                                  f"{run.dataset.n_features} features"},
            {"": "links", "value": f"{links.n_must_link} must, {links.n_cannot_link} cannot"},
            {"": "iteration", "value": f"{state.iteration} of {len(run.history) - 1} computed"
                                       + (" (converged)" if run.converged else "")}]
    if state.objective is not None and math.isfinite(state.objective):
        rows.append({"": state.objective_name or "objective", "value": state.objective})
    violated = run.violated_links()
    rows.append({"": "violated links", "value": sum(len(v) for v in violated.values())})
    return rows


def run_bundle(run: Any) -> dict[str, Any]:
    """MIME bundle of a :class:`~pairlab.Run`: text, an HTML summary and (with matplotlib) its
    picture as PNG, also inlined in the HTML."""
    png = run_png(run)
    table = html_table(_run_rows(run), ["", "value"])
    bundle: dict[str, Any] = {"text/plain": repr(run)}
    if png is None:
        bundle["text/html"] = table
    else:
        bundle["image/png"] = png
        bundle["text/html"] = (f'<div style="display:flex;gap:12px;align-items:flex-start">'
                               f'{_img(png, "run")}{table}</div>')
    return bundle


def estimator_bundle(estimator: Any) -> dict[str, Any]:
    """MIME bundle of an estimator: its parameters and, once fitted, its run's summary and picture."""
    params = [{"parameter": k, "value": v} for k, v in estimator.get_params().items()]
    head = f"<b>{html.escape(repr(estimator))}</b>"
    run = getattr(estimator, "run_", None)
    if run is None:
        return {"text/plain": repr(estimator),
                "text/html": f"{head}<br/>not fitted{html_table(params)}"}
    bundle = run_bundle(run)
    bundle["text/plain"] = repr(estimator)
    bundle["text/html"] = f"{head}<br/>{bundle['text/html']}<details><summary>parameters</summary>" \
                          f"{html_table(params)}</details>"
    return bundle


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
                parts.append(_img(path.read_bytes(), name))
    return "".join(parts)


def sweep_html(result: Any) -> str:
    """A sweep result's summary table (one row per cell) and where its files are."""
    files = ", ".join(html.escape(str(p)) for p in (result.table, result.summary_table, result.document))
    return (f"<b>Sweep</b>: {len(result.rows)} trials in {len(result.summary)} cells<br/>"
            f"{html_table(result.summary, caption='summary')}<div>files: {files}</div>")


class ReproductionDocument(dict):  # type: ignore[type-arg]
    """The JSON document of a reproduction (a plain ``dict``) that shows as its claims table and
    figure in a notebook; ``folder`` is where its files were written."""

    def __init__(self, doc: Mapping[str, Any], folder: str | Path | None = None) -> None:
        super().__init__(doc)
        self.folder = None if folder is None else Path(folder)

    def _repr_html_(self) -> str:
        return reproduction_html(self, self.folder)
