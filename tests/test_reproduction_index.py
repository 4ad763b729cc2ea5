"""The index page of `pairlab reproduce --all`: quick runs marked apart from default verdicts, full
measured values, the paper's value with difference and tolerance, figures at full size on click."""

from __future__ import annotations

from pairlab.reproduction_index import IndexEntry, write_index

LONG = list(range(200))  # its JSON text is far longer than 160 characters


def _doc(quick: bool) -> dict:
    claims = [{"name": "a", "statement": "a value holds", "measured": 0.5, "held": True},
              {"name": "b", "statement": "a printed value", "measured": LONG, "held": False,
               "paper": 0.87, "difference": -0.12, "tolerance": 0.05, "runs": 5}]
    return {"options": {"quick": quick} if quick else {}, "claims": claims, "notes": [],
            "trials": 1, "seed": 0, "provenance": {"wall_seconds": 1.0}, "engine": {}}


def _page(tmp_path, quick_header: bool, quick_doc: bool) -> tuple[str, str]:
    e = IndexEntry("r", "Recipe", "Paper", "r", doc=_doc(quick_doc), files=["r.png"])
    html_path, md_path = write_index(tmp_path, [e], {"quick": quick_header})
    return html_path.read_text(), md_path.read_text()


def test_quick_runs_have_a_banner_and_their_own_verdict_styling(tmp_path):
    page, md = _page(tmp_path, True, True)
    assert 'class="banner"' in page and "QUICK RUN" in page
    assert 'class="qheld"' in page and 'class="qnot"' in page
    assert 'class="held"' not in page and 'class="not"' not in page
    assert "held (quick run)" in page and "NOT HELD (quick run)" in page
    assert "QUICK RUN (--quick)" in md and "**NOT HELD (quick run)**" in md


def test_a_recipe_with_quick_in_its_options_is_marked_even_without_the_header(tmp_path):
    page, _md = _page(tmp_path, False, True)
    assert 'class="banner"' in page and 'class="qnot"' in page


def test_default_runs_have_no_banner_and_plain_verdicts(tmp_path):
    page, md = _page(tmp_path, False, False)
    assert 'class="banner"' not in page and "quick run" not in page and "QUICK" not in md
    assert 'class="held"' in page and 'class="not"' in page


def test_long_values_are_shown_in_full_and_the_paper_with_its_tolerance(tmp_path):
    page, md = _page(tmp_path, False, False)
    full = ", ".join(str(v) for v in LONG)
    assert "<details><summary>" in page and full in page
    assert full in md
    assert "0.87" in page and "ours - paper -0.12, tolerance 0.05" in page


def test_figures_are_not_capped_and_open_full_size(tmp_path):
    page, _md = _page(tmp_path, False, False)
    assert "max-width:1100px" not in page and "max-width:1500px" not in page
    assert '<a href="r/r.png"><img src="r/r.png"' in page


def test_the_run_line_counts_the_recorded_cpu_time_of_reused_trials(tmp_path):
    doc = _doc(False)
    doc["engine"] = {"ran": 1, "stored": 3, "trial_cpu_seconds": 1.25, "executor": "x",
                     "reused_trial_cpu_seconds": 2.5, "reused_without_time": 1}
    e = IndexEntry("r", "Recipe", "Paper", "r", doc=doc)
    line = "trials 3.8 s CPU (1 run, 3 reused, 1 of them without a recorded time)"
    page, md = (p.read_text() for p in write_index(tmp_path, [e]))
    assert line in page and line in md
    # a JSON written before times were recorded: every reused trial counts as without one
    doc["engine"] = {"ran": 1, "stored": 3, "trial_cpu_seconds": 1.25, "executor": "x"}
    page, _md = (p.read_text() for p in write_index(tmp_path, [e]))
    assert "trials 1.2 s CPU (1 run, 3 reused, 3 of them without a recorded time)" in page
    doc["engine"] = {"ran": 4, "stored": 0, "trial_cpu_seconds": 1.25, "executor": "x"}
    page, _md = (p.read_text() for p in write_index(tmp_path, [e]))
    assert "trials 1.2 s CPU (4 run, 0 reused), executor x" in page


def test_the_times_table_gives_each_recipe_and_the_totals_with_reused_trials_counted(tmp_path):
    """Issue 37: total wall and CPU per recipe on the page, also for a gallery resumed from its
    store in a later session (the reused trials' recorded times count)."""
    a, b = _doc(False), _doc(False)
    a["engine"] = {"ran": 2, "stored": 3, "trial_cpu_seconds": 1.5, "trial_wall_seconds": 2.0,
                   "reused_trial_cpu_seconds": 10.0, "reused_trial_wall_seconds": 12.0,
                   "reused_without_time": 0}
    a["provenance"]["wall_seconds"] = 7.25
    b["engine"] = {"ran": 4, "stored": 0, "trial_cpu_seconds": 3.0, "trial_wall_seconds": 3.5}
    b["provenance"]["wall_seconds"] = 5.0
    entries = [IndexEntry("ra", "A", "P", "ra", doc=a), IndexEntry("rb", "B", "P", "rb", doc=b),
               IndexEntry("rc", "C", "P", "rc", skipped="no data")]
    page, md = (p.read_text() for p in write_index(tmp_path, entries))
    assert "<td>ra</td><td>2 / 3</td><td>11.5</td><td>14.0</td><td>7.2</td>" in page
    assert "<td>rb</td><td>4 / 0</td><td>3.0</td><td>3.5</td><td>5.0</td>" in page
    assert "<td>total</td><td>6 / 3</td><td>14.5</td><td>17.5</td><td>12.2</td>" in page
    assert "| `ra` | 2 / 3 | 11.5 | 14.0 | 7.2 |" in md and "| **total** | 6 / 3 | 14.5 | 17.5 | 12.2 |" in md
    assert "rc" not in md.split("## Times")[1].split("## P")[0]  # a skipped recipe has no times
    # a JSON written before reused trials' times were recorded says so
    a["engine"].pop("reused_without_time")
    page, _md = (p.read_text() for p in write_index(tmp_path, entries))
    assert "<td>2 / 3 (3 without a recorded time)</td>" in page
