"""Rich display of a :class:`~pairlab.Run` and a fitted estimator in notebooks: a summary table
and the current state as a picture drawn with matplotlib (:mod:`pairlab.mpl`, imported only when
a picture is asked for; without matplotlib the display is the table alone). No Qt, no app.
"""

from __future__ import annotations

import html
import io
import math
from typing import Any

from .display import has_matplotlib, html_table

__all__ = ["estimator_bundle", "run_bundle", "run_png"]


def _png_of(figure: Any) -> bytes:
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=80, metadata={"Software": None})
    return buf.getvalue()


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
    """MIME bundle of a :class:`~pairlab.Run`: text, an HTML summary and (with matplotlib) the
    cursor's picture as PNG and, in the HTML, a scrubber over every stored state
    (:mod:`pairlab.display_scrub`)."""
    table = html_table(_run_rows(run), ["", "value"])
    bundle: dict[str, Any] = {"text/plain": repr(run)}
    if not has_matplotlib():
        bundle["text/html"] = table
        return bundle
    from .display_scrub import scrubber

    pictures, bundle["image/png"] = scrubber(run)
    bundle["text/html"] = (f'<div style="display:flex;gap:12px;align-items:flex-start">'
                           f'{pictures}{table}</div>')
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
