"""The page a reviewer reads after ``pairlab reproduce --all``: ``index.html`` and ``index.md``.

One section per paper, one block per recipe: its figure next to its claims table (held / not held,
the measured value, the paper's value where it prints one), the findings (every claim that did not
hold, and the recipe's notes), the timing and the provenance, with links to the recipe's JSON, CSV
and SVG. A table of times near the top gives each recipe's trials, their CPU seconds (those run
now and the recorded time of those reused from the store), the trials' summed wall seconds and
the recipe's wall seconds in this command, with the totals (issue 37). Recipes that could not
run (missing data, a missing plugin) are listed with the reason.

The HTML is one self-contained file (inline style, no script) that refers to the figures by
relative paths, so the output folder opens in a browser without a server and can be moved whole.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .atomic import atomic_write_text

__all__ = ["IndexEntry", "trial_cpu_text", "write_index"]


@dataclass
class IndexEntry:
    """One recipe on the page: its JSON document (``doc``) or the reason it was skipped."""

    name: str
    title: str
    paper: str
    folder: str  # relative to the index
    doc: dict[str, Any] | None = None
    skipped: str | None = None
    files: list[str] = field(default_factory=list)


def _value(v: Any, limit: int | None = 160) -> str:
    """``v`` as text, cut to ``limit`` characters (``None``: never cut)."""
    if v is None:
        return "—"
    if isinstance(v, float):
        text = f"{v:.4g}"
    elif isinstance(v, list | dict):
        text = json.dumps(_rounded(v))
    else:
        text = str(v)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def _html_value(v: Any) -> str:
    """The value for the page: in full, behind an expandable summary when it is long."""
    full = _value(v, None)
    if len(full) <= 160:
        return html.escape(full)
    return (f"<details><summary>{html.escape(_value(v))}</summary>"
            f'<div class="full">{html.escape(full)}</div></details>')


def _is_quick(doc: dict[str, Any] | None, header: dict[str, Any]) -> bool:
    """A ``--quick`` run (the page's header says so, or the recipe's own options)."""
    return bool(header.get("quick")) or bool(doc and (doc.get("options") or {}).get("quick"))


def _verdict(held: bool, quick: bool) -> tuple[str, str]:
    """(CSS class, label) of a claim's verdict; quick verdicts have their own of both."""
    if quick:
        return ("qheld", "held (quick run)") if held else ("qnot", "NOT HELD (quick run)")
    return ("held", "held") if held else ("not", "NOT HELD")


def _rounded(v: Any) -> Any:
    if isinstance(v, float):
        return float(f"{v:.4g}")
    if isinstance(v, list):
        return [_rounded(x) for x in v]
    if isinstance(v, dict):
        return {k: _rounded(x) for k, x in v.items()}
    return v


def _reason(e: IndexEntry) -> str:
    text = e.skipped or ""
    return text[len("skipped: "):] if text.startswith("skipped: ") else text


def _findings(doc: dict[str, Any]) -> list[str]:
    out = [f"Not held: {c['statement']} (measured {_value(c['measured'])}"
           + (f"; paper {_value(c.get('paper'))})" if c.get("paper") is not None else ")")
           for c in doc.get("claims", []) if not c["held"]]
    return out + [str(n) for n in doc.get("notes", [])]


def _papers(entries: Sequence[IndexEntry]) -> dict[str, list[IndexEntry]]:
    papers: dict[str, list[IndexEntry]] = {}
    for e in entries:
        papers.setdefault(e.paper or "(no paper named)", []).append(e)
    return papers


def _counts(entries: Sequence[IndexEntry]) -> tuple[int, int, int, int]:
    claims = [c for e in entries if e.doc for c in e.doc.get("claims", []) if not c.get("extension")]
    return (sum(e.doc is not None for e in entries), sum(e.skipped is not None for e in entries),
            sum(c["held"] for c in claims), len(claims))


def trial_cpu_text(engine: dict[str, Any]) -> str:
    """``trials X s CPU (N run, M reused, K of them without a recorded time)``: the CPU time of
    the trials this run computed plus the recorded time of those it reused from the store, from a
    recipe JSON's ``engine`` block (one written before times were recorded counts every reused
    trial as without one)."""
    stored = engine.get("stored", "?")
    cpu = engine.get("trial_cpu_seconds", float("nan")) + engine.get("reused_trial_cpu_seconds", 0.0)
    untimed = engine.get("reused_without_time", stored)
    without = f", {untimed} of them without a recorded time" if stored not in (0, "?") else ""
    return f"trials {cpu:.1f} s CPU ({engine.get('ran', '?')} run, {stored} reused{without})"


def _time_rows(entries: Sequence[IndexEntry]) -> list[tuple[str, ...]]:
    """Rows of the times table: recipe, trials (run / reused), trials' CPU, trials' summed wall,
    the recipe's wall in this command; a last row of totals. CPU and summed wall count the
    recorded times of reused trials (a store resumed in a later session keeps them), so a
    resumed run's totals still say what the whole computation cost."""
    rows, total = [], [0, 0, 0.0, 0.0, 0.0]
    for e in entries:
        if e.doc is None:
            continue
        eng, wall = e.doc.get("engine", {}), e.doc.get("provenance", {}).get("wall_seconds", 0.0)
        ran, stored = int(eng.get("ran", 0) or 0), int(eng.get("stored", 0) or 0)
        cpu = eng.get("trial_cpu_seconds", 0.0) + eng.get("reused_trial_cpu_seconds", 0.0)
        summed = eng.get("trial_wall_seconds", 0.0) + eng.get("reused_trial_wall_seconds", 0.0)
        untimed = int(eng.get("reused_without_time", stored) or 0)
        mark = f" ({untimed} without a recorded time)" if untimed else ""
        rows.append((e.name, f"{ran} / {stored}{mark}", f"{cpu:,.1f}", f"{summed:,.1f}",
                     f"{wall:,.1f}"))
        for i, v in enumerate((ran, stored, cpu, summed, wall)):
            total[i] += v
    if rows:
        rows.append(("total", f"{total[0]} / {total[1]}", f"{total[2]:,.1f}", f"{total[3]:,.1f}",
                     f"{total[4]:,.1f}"))
    return rows


TIME_COLUMNS = ("recipe", "trials run / reused", "trials' CPU (s)", "trials' wall, summed (s)",
                "recipe's wall in this command (s)")


def _provenance_line(doc: dict[str, Any]) -> str:
    p = doc.get("provenance", {})
    eng = doc.get("engine", {})
    return (f"{doc.get('trials')} trial(s), seed {doc.get('seed')}, "
            f"{p.get('wall_seconds', float('nan')):.1f} s wall, {trial_cpu_text(eng)}, "
            f"executor {eng.get('executor', '?')}; pairlab {p.get('pairlab')}, numpy "
            f"{p.get('numpy')}, scipy {p.get('scipy')}, Python {p.get('python')}, "
            f"{p.get('platform')}; command: {p.get('command')}")


# -- HTML --------------------------------------------------------------------------------------
STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em} h2{border-bottom:2px solid #888;margin-top:2em} h3{margin-bottom:.3em}
.recipe{display:flex;flex-wrap:wrap;gap:1.2em;align-items:flex-start;margin-bottom:2em}
.figure{flex:1 1 100%;overflow-x:auto} .figure img{max-width:100%;border:1px solid #ccc}
.figure a{cursor:zoom-in} .claims{flex:1 1 100%}
table{border-collapse:collapse;font-size:.9em;width:100%}
td,th{border:1px solid #bbb;padding:.25em .4em;vertical-align:top;text-align:left}
.held{background:#e3f5e1} .not{background:#fbe3e1} .small{font-size:.85em;color:#444}
.skipped{background:#f4f4f4;padding:.5em;border-left:4px solid #aaa}
.qheld{background:repeating-linear-gradient(45deg,#eef3fb,#eef3fb 6px,#dde7f7 6px,#dde7f7 12px)}
.qnot{background:repeating-linear-gradient(45deg,#fbf0dc,#fbf0dc 6px,#f5e2bd 6px,#f5e2bd 12px)}
.banner{background:#8a4b00;color:#fff;padding:.8em 1em;font-size:1.15em;font-weight:bold;
border:3px dashed #ffd27a} .quickbox{border-left:6px dashed #c77800;padding-left:.8em}
.full{white-space:pre-wrap;word-break:break-word;font-family:monospace;font-size:.85em}
"""


def _paper_cell(c: dict[str, Any]) -> str:
    """The paper's value, with our difference and the tolerance when the claim has them."""
    text = _html_value(c.get("paper"))
    if c.get("difference") is not None and c.get("tolerance") is not None:
        text += (f'<br><span class="small">ours - paper {_value(c["difference"])}, '
                 f'tolerance {_value(c["tolerance"])}</span>')
    return text


def _html_entry(e: IndexEntry, header: dict[str, Any] | None = None) -> str:
    h = html.escape
    quick = _is_quick(e.doc, header or {})
    anchor = h(e.name)
    if e.doc is None:
        return (f'<h3 id="{anchor}">{h(e.title)} <code>{h(e.name)}</code></h3>\n'
                f'<p class="skipped">skipped: {h(_reason(e))}</p>\n')
    doc = e.doc
    pngs = [f for f in e.files if f.endswith(".png")]
    figure = "".join(f'<a href="{h(e.folder)}/{h(f)}"><img src="{h(e.folder)}/{h(f)}" '
                     f'alt="{h(e.title)}"></a>' for f in pngs) or "<p>(no figure)</p>"
    rows = "".join(
        f'<tr class="{_verdict(c["held"], quick)[0]}"><td>{_verdict(c["held"], quick)[1]}'
        f'</td><td>{h(c["statement"])}</td><td>{_html_value(c["measured"])}</td>'
        f'<td>{_paper_cell(c)}</td></tr>' for c in doc.get("claims", []))
    table = ("<table><tr><th></th><th>claim of the paper</th><th>measured</th><th>paper</th></tr>"
             f"{rows}</table>") if rows else "<p>(this recipe states no claims)</p>"
    findings = "".join(f"<li>{h(f)}</li>" for f in _findings(doc))
    links = " · ".join(f'<a href="{h(e.folder)}/{h(f)}">{h(f)}</a>' for f in e.files)
    mark = (' <span class="small">[QUICK RUN: fewer trials or data than the default; '
            'not the default verdicts]</span>') if quick else ""
    box = ' class="quickbox"' if quick else ""
    return (f"<div{box}>"
            f'<h3 id="{anchor}">{h(e.title)} <code>{h(e.name)}</code>{mark}</h3>\n'
            f'<div class="recipe"><div class="figure">{figure}</div>\n<div class="claims">{table}'
            f'<h4>Findings and notes</h4><ul class="small">{findings or "<li>none</li>"}</ul>'
            f'<p class="small"><b>Files:</b> {links}</p>'
            f'<p class="small"><b>Run:</b> {h(_provenance_line(doc))}</p></div></div></div>\n')


def _html(entries: Sequence[IndexEntry], header: dict[str, Any]) -> str:
    h = html.escape
    ran, skipped, held, total = _counts(entries)
    toc = "".join(f'<li><a href="#{h(e.name)}">{h(e.name)}</a> — {h(e.title)}'
                  + (" (skipped)" if e.doc is None else
                     f' ({sum(c["held"] for c in e.doc.get("claims", []))}/'
                     f'{len(e.doc.get("claims", []))} claims held)') + "</li>" for e in entries)
    body = "".join(f"<h2>{h(paper)}</h2>\n" + "".join(_html_entry(e, header) for e in group)
                   for paper, group in _papers(entries).items())
    meta = "; ".join(f"{h(k)}: {h(str(v))}" for k, v in header.items())
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>pairlab reproductions</title><style>{STYLE}</style></head><body>\n"
            f"<h1>pairlab reproductions</h1>\n{_banner(entries, header)}"
            f"<p>{ran} recipe(s) ran, {skipped} skipped; "
            f"{held} of {total} claims of the papers held on our numbers. A claim that does not "
            f"hold is a finding (docs/reproductions.md discusses each).</p>\n"
            f'<p class="small">{meta}</p>\n<ul>{toc}</ul>\n{_html_times(entries)}{body}'
            "</body></html>\n")


def _html_times(entries: Sequence[IndexEntry]) -> str:
    rows = _time_rows(entries)
    if not rows:
        return ""
    h = html.escape
    head = "".join(f"<th>{h(c)}</th>" for c in TIME_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{h(v)}</td>" for v in row) + "</tr>" for row in rows)
    return (f'<h2 id="times">Times</h2>\n<p class="small">{h(TIMES_NOTE)}</p>\n'
            f'<table class="times"><tr>{head}</tr>{body}</table>\n')


TIMES_NOTE = ("Trials' CPU and summed wall include the recorded times of trials reused from the "
              "store (run in an earlier command); the recipe's wall is this command's (starting "
              "the executor, the trials it ran, the summary and the figures).")


def _banner(entries: Sequence[IndexEntry], header: dict[str, Any]) -> str:
    """A banner over the page when any recipe ran with ``--quick``."""
    quick = [e.name for e in entries if e.doc is not None and _is_quick(e.doc, header)]
    if not quick:
        return ""
    return ('<div class="banner" role="alert">QUICK RUN (--quick): '
            f"{len(quick)} recipe(s) ran with fewer trials or smaller data than their defaults. "
            "Their verdicts are marked \u201c(quick run)\u201d and striped; they are not the "
            "default runs\u2019 verdicts and can differ from them.</div>\n")


# -- Markdown ----------------------------------------------------------------------------------
def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_entry(e: IndexEntry, header: dict[str, Any] | None = None) -> str:
    quick = _is_quick(e.doc, header or {})
    lines = [f"### {e.title} (`{e.name}`)" + (" — QUICK RUN" if quick else ""), ""]
    if e.doc is None:
        return "\n".join([*lines, f"skipped: {_reason(e)}", "", ""])
    doc = e.doc
    lines += [f"![{e.title}]({e.folder}/{f})" for f in e.files if f.endswith(".png")]
    lines.append("")
    if doc.get("claims"):
        lines += ["| | claim of the paper | measured | paper |", "|---|---|---|---|"]
        lines += [f"| {_md_verdict(c['held'], quick)} | {_md_cell(c['statement'])} | "
                  f"{_md_cell(_value(c['measured'], None))} | {_md_cell(_value(c.get('paper')))} |"
                  for c in doc["claims"]]
        lines.append("")
    findings = _findings(doc)
    lines += ["Findings and notes:", ""] + [f"- {_md_cell(f)}" for f in findings or ["none"]]
    lines += ["", "Files: " + ", ".join(f"[{f}]({e.folder}/{f})" for f in e.files), "",
              f"Run: {_provenance_line(doc)}", "", ""]
    return "\n".join(lines)


def _md_verdict(held: bool, quick: bool) -> str:
    label = _verdict(held, quick)[1]
    return label if held else f"**{label}**"


def _markdown(entries: Sequence[IndexEntry], header: dict[str, Any]) -> str:
    ran, skipped, held, total = _counts(entries)
    banner = ["> **QUICK RUN (--quick)**: fewer trials or smaller data than the defaults; the "
              "verdicts below are the quick run's, not the default runs'.", ""] if any(
        e.doc is not None and _is_quick(e.doc, header) for e in entries) else []
    out = ["# pairlab reproductions", "", *banner,
           f"{ran} recipe(s) ran, {skipped} skipped; {held} of {total} claims of the papers held "
           "on our numbers.", "", "; ".join(f"{k}: {v}" for k, v in header.items()), ""]
    if rows := _time_rows(entries):
        out += ["## Times", "", TIMES_NOTE, "", "| " + " | ".join(TIME_COLUMNS) + " |",
                "|" + "---|" * len(TIME_COLUMNS)]
        for r in rows:
            name = "**total**" if r is rows[-1] else f"`{r[0]}`"
            out.append(f"| {name} | " + " | ".join(r[1:]) + " |")
        out.append("")
    for paper, group in _papers(entries).items():
        out += [f"## {paper}", ""] + [_md_entry(e, header) for e in group]
    return "\n".join(out)


def write_index(out_dir: Path, entries: Sequence[IndexEntry],
                header: dict[str, Any] | None = None) -> list[Path]:
    """Write ``index.html`` and ``index.md`` into ``out_dir``; return their paths."""
    header = dict(header or {})
    paths = [out_dir / "index.html", out_dir / "index.md"]
    atomic_write_text(paths[0], _html(entries, header))
    atomic_write_text(paths[1], _markdown(entries, header))
    return paths
