"""The sweep engine's query-strategy axis (issue 36): spec checks, one row per query budget equal
to the oracle loop's own scores, the figure, and the same table with one or two workers."""

import csv
import io

import pytest

from pairlab import cli
from pairlab.active import active_learn
from pairlab.errors import InvalidInputError
from pairlab.registry import get_registry
from pairlab.sweep import make_executor, parse_spec, run_sweep
from pairlab.sweep.table import TIMING_COLUMNS

SPEC = {
    "name": "act",
    "trials": 2,
    "metrics": ["ari", "purity"],
    "algorithms": [{"name": "pck-means", "params": {"n_clusters": 3}}],
    "datasets": [{"name": "iris"}],
    "active": {"strategies": ["random", "explore-consolidate", "minmax"], "budget": [0, 3, 8]},
}


def rows_of(path):
    return list(csv.DictReader(io.StringIO(path.read_text())))


def without_timing(path):
    rows = list(csv.reader(io.StringIO(path.read_text())))
    keep = [i for i, c in enumerate(rows[0]) if c not in TIMING_COLUMNS]
    return "\n".join(",".join(r[i] for i in keep) for r in rows)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    with make_executor(1) as one:
        return run_sweep(parse_spec(SPEC), tmp_path_factory.mktemp("one"), one, progress=None)


def test_one_row_per_strategy_budget_and_trial_equal_to_the_oracle_loop(swept):
    rows = rows_of(swept.table)
    assert len(rows) == 3 * 3 * 2 and not any(r["error"] for r in rows)
    assert [(r["strategy"], r["budget"], r["trial"]) for r in rows[:4]] == [
        ("random", "0", "0"), ("random", "3", "0"), ("random", "8", "0"), ("random", "0", "1")]
    data = get_registry().dataset("iris").make(0)
    for r in rows:
        assert int(r["n_must_link"]) + int(r["n_cannot_link"]) == int(r["budget"])
    for strategy in SPEC["active"]["strategies"]:
        mine = [r for r in rows if r["strategy"] == strategy and r["trial"] == "1"]
        loop = active_learn("pck-means", data, strategy, 8, params={"n_clusters": 3},
                            seed=int(mine[0]["fit_seed"]), metric="ari")
        by = dict(zip(loop.n_queries, loop.scores, strict=True))
        assert [float(r["ari"]) for r in mine] == [by[0], by[3], by[8]]
    # paired: every strategy of a trial starts from the same fit, so 0 queries agree exactly
    zero = {(r["trial"], r["ari"]) for r in rows if r["budget"] == "0"}
    assert len(zero) == 2
    summary = rows_of(swept.summary_table)
    assert len(summary) == 9 and {s["strategy"] for s in summary} == set(SPEC["active"]["strategies"])


def test_two_workers_give_the_same_table_and_a_rerun_reuses_every_trial(swept, tmp_path):
    with make_executor(2) as two:
        b = run_sweep(parse_spec(SPEC), tmp_path, two, progress=None)
    assert without_timing(swept.table) == without_timing(b.table)
    again = run_sweep(parse_spec(SPEC), tmp_path, progress=None)
    assert (again.engine.stored, again.engine.ran) == (6, 0)
    assert without_timing(again.table) == without_timing(b.table)


def test_figure_has_one_curve_per_strategy_against_the_number_of_queries(swept, tmp_path):
    pytest.importorskip("matplotlib")
    import json

    from pairlab.mpl_curves import draw_curves
    from pairlab.sweep.figures import draw_summary
    from pairlab.sweep.report import panels

    (panel,) = panels(swept.summary, "ari")
    assert panel.x_label.startswith("number of queries")
    assert [c.method for c in panel.curves] == [
        "pck-means · random", "pck-means · explore-consolidate", "pck-means · minmax"]
    assert all(c.x == [0.0, 3.0, 8.0] for c in panel.curves)
    rows = rows_of(swept.table)
    ec8 = [float(r["ari"]) for r in rows if r["strategy"] == "explore-consolidate"
           and r["budget"] == "8"]
    assert panel.curves[1].mean[2] == pytest.approx(sum(ec8) / 2)
    doc = json.loads(swept.document.read_text())
    files = draw_summary(doc, swept.summary, tmp_path, curves=draw_curves)
    pngs = [f for f in files if f.suffix == ".png"]
    assert pngs and all(f.stat().st_size > 5000 for f in pngs)
    assert (doc["trials"], doc["rows"]) == (6, 18)  # a trial per strategy, a row per budget
    from pairlab.sweep.command import report

    again, _ = report(swept.table.parent, None)  # --report reads the 18 rows back
    assert again["name"] == "act"


@pytest.mark.parametrize("change, words", [
    ({"strategies": ["randon"]}, "Did you mean 'random'"),
    ({"budget": [0, 3], "batch": 2}, "multiples of the batch"),
    ({"budget": [0, 2.5]}, "whole numbers"),
    ({"params": {"npu": {"gamma": 1.0}}}, "not one of the sweep's strategies"),
    ({"params": {"minmax": {"gama": 1.0}}}, "gamma"),
    ({"colour": 1}, "unknown key 'colour'"),
])
def test_bad_active_tables_are_refused_before_anything_runs(change, words):
    with pytest.raises(InvalidInputError, match=words):
        parse_spec(dict(SPEC, active={**SPEC["active"], **change}))


def test_links_and_label_noise_are_refused_with_strategies_but_answer_noise_runs(tmp_path):
    with pytest.raises(InvalidInputError, match="links come from the oracle loop"):
        parse_spec(dict(SPEC, links={"generator": "random", "budget": [4]}))
    with pytest.raises(InvalidInputError, match="links come from the oracle loop"):
        parse_spec(dict(SPEC, noise={"label": [0.1]}))
    spec = dict(SPEC, trials=1, active={"strategies": ["random"], "budget": [0, 20]},
                noise={"link": [0.0, 0.4], "link_model": "flip-fraction"})
    with pytest.raises(InvalidInputError, match="flip-prob"):
        parse_spec(spec)
    spec["noise"]["link_model"] = "flip-prob"
    rows = rows_of(run_sweep(parse_spec(spec), tmp_path, progress=None).table)
    clean, noisy = (r for r in rows if r["budget"] == "20")
    assert clean["link_noise"] == "0.0" and noisy["link_noise"] == "0.4"
    # each of the 20 answers flipped with probability 0.4, as the oracle loop does it
    data = get_registry().dataset("iris").make(0)
    seed = int(noisy["fit_seed"])
    loop = active_learn("pck-means", data, "random", 20, params={"n_clusters": 3}, seed=seed,
                        metric="ari", noise="flip-prob", level=0.4)
    truth = [bool(data.y[i] == data.y[j]) for i, j in loop.pairs]
    assert loop.answers != truth
    assert int(noisy["n_must_link"]) == sum(loop.answers)
    assert int(clean["n_must_link"]) == sum(truth)
    assert float(noisy["ari"]) == loop.scores[-1]


def test_flags_describe_the_same_sweep_as_the_table(capsys):
    assert cli.main(["sweep", "--algorithm", "pck-means", "--set", "n_clusters=3", "--dataset",
                     "iris", "--strategy", "random", "--strategy", "minmax", "--queries", "0,4",
                     "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "queries=0,4 (random)" in out and "queries=0,4 (minmax)" in out and "2 cells" in out
