"""The experiment engine (pairlab sweep): spec checks, table, resume, corruption, failures,
executors giving the same table, and a sweep killed midway."""

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pairlab import cli
from pairlab.errors import InvalidInputError
from pairlab.sweep import Task, TrialStore, make_executor, parse_spec, run_sweep, run_tasks
from pairlab.sweep.table import TIMING_COLUMNS

from .helpers import trial_records, write_trial_records

SPEC = {
    "name": "tiny",
    "trials": 3,
    "metrics": ["purity", "ari"],
    "algorithms": [{"name": "gmm", "params": {"n_components": 2}},
                   {"name": "gmpr", "params": {"n_components": 2}}],
    "datasets": [{"name": "two-moons", "params": {"n_samples": 40}}],
    "links": {"generator": "random", "budget": [0, 4]},
}


def without_timing(path):
    """The table's text with the timing columns removed."""
    rows = list(csv.reader(io.StringIO(path.read_text())))
    keep = [i for i, c in enumerate(rows[0]) if c not in TIMING_COLUMNS]
    return "\n".join(",".join(r[i] for i in keep) for r in rows)


def read_rows(path):
    return list(csv.DictReader(io.StringIO(path.read_text())))


def test_table_has_one_row_per_trial_with_factors_seeds_and_metrics(tmp_path):
    result = run_sweep(parse_spec(SPEC), tmp_path, progress=None)
    rows = read_rows(result.table)
    assert len(rows) == 2 * 2 * 3  # methods x budgets x trials
    assert [(r["method"], r["budget"], r["trial"]) for r in rows[:4]] == [
        ("gmm", "0", "0"), ("gmm", "0", "1"), ("gmm", "0", "2"), ("gmpr", "0", "0")]
    for r in rows:
        assert r["error"] == "" and 0 < float(r["purity"]) <= 1 and r["iterations"]
        assert int(r["n_must_link"]) == int(r["n_cannot_link"]) == int(r["budget"])
    # paired comparison: within a trial every method sees the same data, links and start
    by = {(r["method"], r["budget"], r["trial"]): r for r in rows}
    for b in ("0", "4"):
        for t in "012":
            g, p = by[("gmm", b, t)], by[("gmpr", b, t)]
            assert (g["data_seed"], g["link_seed"], g["fit_seed"]) == (
                p["data_seed"], p["link_seed"], p["fit_seed"])
    # the paper's equivalence shows in the table: GM-PR without links is GMM
    for t in "012":
        assert by[("gmm", "0", t)]["objective"] == by[("gmpr", "0", t)]["objective"]
    summary = read_rows(result.summary_table)
    assert len(summary) == 4 and all(s["trials"] == "3" and s["failures"] == "0" for s in summary)
    doc = json.loads(result.document.read_text())
    assert doc["spec"]["algorithms"][1]["name"] == "gmpr" and len(doc["cells"]) == 4
    assert {"pairlab", "plugins", "numpy", "platform", "command"} <= set(doc["provenance"])


def test_rerun_resumes_recomputes_corrupt_trials_and_only_changed_cells(tmp_path):
    first = run_sweep(parse_spec(SPEC), tmp_path, progress=None)
    text = without_timing(first.table)
    records = trial_records(tmp_path / ".trials")
    assert len(records) == 12
    damaged = [(h, p.replace(b"0.", b"1.", 1)) for h, p in records[1:3]]  # checksums fail
    write_trial_records(tmp_path / ".trials", damaged + records[3:])      # the first one lost
    again = run_sweep(parse_spec(SPEC), tmp_path, progress=None)
    assert (again.engine.stored, again.engine.ran) == (9, 3)
    assert sorted(again.engine.corrupt) == sorted(h["key"] for h, _ in damaged)
    assert without_timing(again.table) == text
    assert run_sweep(parse_spec(SPEC), tmp_path, progress=None).engine.stored == 12
    # a changed spec recomputes only the cells it changes
    changed = dict(SPEC, links={"generator": "random", "budget": [0, 4, 6]})
    third = run_sweep(parse_spec(changed), tmp_path, progress=None)
    assert (third.engine.stored, third.engine.ran) == (12, 6)


def test_editing_a_plugins_source_recomputes_its_cells_only(tmp_path, monkeypatch):
    from pairlab import hookimpl
    from pairlab.registry import get_registry
    from pairlab.sweep import fingerprint

    pkg = tmp_path / "src" / "edited_plugin"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "from pairlab_builtins.algorithms.gmm import GaussianMixtureEM\n\n"
        "class Edited(GaussianMixtureEM):\n    name = 'edited-gmm'\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    import edited_plugin

    class Plugin:
        @hookimpl
        def pairlab_algorithms(self):
            return [edited_plugin.Edited]

    get_registry().register(Plugin(), name="edited-plugin")
    spec = dict(SPEC, trials=1, algorithms=[{"name": "gmm"}, {"name": "edited-gmm"}])
    first = run_sweep(parse_spec(spec), tmp_path / "out", progress=None)
    assert (first.engine.stored, first.engine.ran) == (0, 4)
    again = run_sweep(parse_spec(spec), tmp_path / "out", progress=None)
    assert (again.engine.stored, again.engine.ran) == (4, 0)
    # the version stays (an editable install), the code changes: its two cells run again
    (pkg / "__init__.py").write_text((pkg / "__init__.py").read_text() + "# an edit\n")
    fingerprint._package_digest.cache_clear()
    edited = run_sweep(parse_spec(spec), tmp_path / "out", progress=None)
    assert (edited.engine.stored, edited.engine.ran) == (2, 2)


def test_a_budget_below_one_is_a_fraction_of_all_pairs(tmp_path):
    spec = dict(SPEC, trials=1, algorithms=[{"name": "gmm"}],
                links={"generator": "pairs", "budget": [0.05, 7]})
    rows = read_rows(run_sweep(parse_spec(spec), tmp_path, progress=None).table)
    links = [int(r["n_must_link"]) + int(r["n_cannot_link"]) for r in rows]
    assert links == [round(0.05 * 40 * 39 / 2), 7]


def test_failing_trial_is_recorded_and_the_rest_finish(tmp_path):
    # 12 points in two classes allow 66 - 36 = 30 must-links at most: budget 40 cannot be drawn
    spec = dict(SPEC, datasets=[{"name": "two-moons", "params": {"n_samples": 12}}],
                links={"generator": "random", "budget": [2, 40], "budget_params": ["n_must_link"]})
    result = run_sweep(parse_spec(spec), tmp_path, progress=None)
    rows = read_rows(result.table)
    bad = [r for r in rows if r["error"]]
    assert len(bad) == 6 and {r["budget"] for r in bad} == {"40"}
    assert all("must-links" in r["error"] and r["purity"] == "" for r in bad)
    assert all(r["purity"] for r in rows if r["budget"] == "2")
    summary = {(s["method"], s["budget"]): s for s in read_rows(result.summary_table)}
    assert summary[("gmm", "40")]["failures"] == "3" and summary[("gmm", "2")]["failures"] == "0"
    # failures are stored too: the rerun neither loses nor duplicates them
    again = run_sweep(parse_spec(spec), tmp_path, progress=None)
    assert again.engine.ran == 0 and without_timing(again.table) == without_timing(result.table)


@pytest.mark.parametrize("change, words", [
    ({"algorithms": [{"name": "gmpe"}]}, ["'gmpe'", "'gmpr'"]),
    ({"datasets": [{"name": "two-moon"}]}, ["'two-moon'", "'two-moons'"]),
    ({"algorithms": [{"name": "gmm", "params": {"n_component": 2}}]}, ["'n_component'", "'n_components'"]),
    ({"metrics": ["purty"]}, ["'purty'", "'purity'"]),
    ({"links": {"generator": "randm", "budget": [1]}}, ["'randm'", "'random'"]),
    ({"noise": {"link_model": "flip-prb", "link": [0.1]}}, ["'flip-prb'", "'flip-prob'"]),
    ({"trails": 3}, ["'trails'", "'trials'"]),
    ({"datasets": [{"name": "iris"}, {"name": "iris"}]}, ["'iris'", "distinct label"]),
    ({"links": {"generator": "pairs", "budget": [2.5]}}, ["2.5", "'n_pairs'", "whole number"]),
    ({"algorithms": [{"name": "gmm", "params": {"n_components": [2, 0]}}]}, ["n_components", ">= 1"]),
])
def test_unknown_names_and_bad_values_are_refused_before_anything_runs(tmp_path, capsys, change, words):
    spec = {**SPEC, **change}
    with pytest.raises(InvalidInputError) as info:
        parse_spec(spec)
    for w in words:
        assert w in str(info.value)
    # the command line says the same and writes nothing
    toml = tmp_path / "bad.toml"
    toml.write_text(_toml(spec))
    assert cli.main(["sweep", str(toml), "--out", str(tmp_path / "out")]) == 1
    assert words[0] in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def _toml(spec):
    def value(v):
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return json.dumps(v)

    lines = [f"{k} = {value(v)}" for k, v in spec.items() if not isinstance(v, list | dict)
             or (isinstance(v, list) and not (v and isinstance(v[0], dict)))]
    for k, v in spec.items():
        if isinstance(v, dict):
            lines += [f"[{k}]", *[f"{a} = {value(b)}" for a, b in v.items()]]
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                lines += [f"[[{k}]]", *[f"{a} = {value(b)}" for a, b in item.items()]]
    return "\n".join(lines) + "\n"


def test_toml_file_and_flags_describe_the_same_sweep(tmp_path):
    toml = tmp_path / "tiny.toml"
    toml.write_text(_toml(SPEC))
    assert cli.main(["sweep", str(toml), "--out", str(tmp_path / "file"), "--jobs", "1",
                     "--no-render"]) == 0
    assert cli.main(["sweep", "--name", "tiny", "--algorithm", "gmm", "--algorithm", "gmpr",
                     "--set", "n_components=2", "--dataset", "two-moons", "--data", "n_samples=40",
                     "--generator", "random", "--budget", "0,4", "--trials", "3",
                     "--metric", "purity", "--metric", "ari", "--out", str(tmp_path / "flags"),
                     "--jobs", "1", "--no-render"]) == 0
    assert without_timing(tmp_path / "file" / "tiny.csv") == without_timing(
        tmp_path / "flags" / "tiny.csv")


def _qt_modules_loaded():
    return sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6"))


def test_two_local_workers_give_the_same_table_as_one_and_never_load_qt(tmp_path):
    with make_executor(1) as one:
        a = run_sweep(parse_spec(SPEC), tmp_path / "one", one, progress=None)
    with make_executor(2) as two:
        b = run_sweep(parse_spec(SPEC), tmp_path / "two", two, progress=None)
        probe = run_tasks([Task("probe", _qt_modules_loaded, ())] * 2, TrialStore(tmp_path / "p"),
                          two, progress=None, fresh=True)
    assert without_timing(a.table) == without_timing(b.table)
    assert "local processes (2 workers)" in b.engine.executor
    assert probe.values == [[], []] and not any(probe.errors)


@pytest.mark.ci  # starts Python processes
def test_a_sweep_killed_midway_completes_on_rerun_with_one_row_per_trial(tmp_path):
    spec = dict(SPEC, trials=60, algorithms=[{"name": "gmm", "params": {"n_components": 2}}],
                links={"generator": "random", "budget": [0, 4]})
    toml = tmp_path / "kill.toml"
    toml.write_text(_toml(spec))
    out = tmp_path / "out"
    env = dict(os.environ, PAIRLAB_DISABLE_PLUGINS="1")
    proc = subprocess.Popen([sys.executable, "-m", "pairlab", "sweep", str(toml), "--out", str(out),
                             "--jobs", "1", "--no-render"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(TrialStore(out / ".trials").keys()) >= 10:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = len(TrialStore(out / ".trials").keys())
    assert 10 <= stored < 120 and not (out / "kill.csv").exists(), stored
    result = run_sweep(parse_spec(dict(spec, name="kill")), out, progress=None)
    assert result.engine.stored >= stored - 1 and result.engine.ran == 120 - result.engine.stored
    rows = read_rows(result.table)
    keys = [(r["cell"], r["trial"]) for r in rows]
    assert len(rows) == 120 and len(set(keys)) == 120 and not any(r["error"] for r in rows)


def test_figure_panels_put_the_budget_on_x_one_curve_per_method_one_panel_per_dataset(tmp_path):
    from pairlab.sweep.report import panels

    result = run_sweep(parse_spec(SPEC), tmp_path, progress=None)
    (panel,) = panels(result.summary, "purity", "random")
    assert panel.title == "two-moons" and panel.x_label == "link budget (random)"
    assert [c.method for c in panel.curves] == ["gmm", "gmpr"]
    rows = read_rows(result.table)
    gmm0 = [float(r["purity"]) for r in rows if r["method"] == "gmm" and r["budget"] == "0"]
    assert panel.curves[0].x == [0.0, 4.0]
    assert panel.curves[0].mean[0] == pytest.approx(sum(gmm0) / 3)



@pytest.mark.ci
def test_a_two_worker_dask_localcluster_gives_the_same_table_as_jobs_1(tmp_path):
    pytest.importorskip("distributed")
    with make_executor(1) as one:
        a = run_sweep(parse_spec(SPEC), tmp_path / "one", one, progress=None)
    with make_executor(2, scheduler="local") as dask:
        assert dask.workers == 2
        b = run_sweep(parse_spec(SPEC), tmp_path / "dask", dask, progress=None)
    assert b.engine.ran == 12 and "LocalCluster" in b.engine.executor
    assert without_timing(a.table) == without_timing(b.table)


def test_the_spec_in_docs_sweeps_md_is_valid_and_multiplies_out_as_described(tmp_path):
    import re
    from pathlib import Path

    from pairlab.sweep import load_spec

    text = (Path(__file__).resolve().parents[1] / "docs" / "sweeps.md").read_text()
    toml = re.findall(r"```toml\n(.*?)```", text, flags=re.S)[0]
    (tmp_path / "moons.toml").write_text(toml)
    spec = load_spec(tmp_path / "moons.toml")
    cells = spec.cells()
    # 2 noise levels of the data x 4 budgets x 2 link noise levels x (gmm + 2 GM-PR tolerances)
    assert len(cells) == 2 * 4 * 2 * 3 and spec.trials == 10
    assert {c.method for c in cells} == {"gmm", "GM-PR tol=0.001", "GM-PR tol=1e-06"}


def test_with_a_file_trials_and_seed_flags_override_and_other_flags_are_refused(tmp_path, capsys):
    toml = tmp_path / "tiny.toml"
    toml.write_text(_toml(SPEC))
    out = tmp_path / "out"
    assert cli.main(["sweep", str(toml), "--out", str(out), "--trials", "1", "--seed", "5",
                     "--jobs", "1", "--no-render"]) == 0
    rows = read_rows(out / "tiny.csv")
    assert len(rows) == 4 and json.loads((out / "tiny.json").read_text())["spec"]["seed"] == 5
    assert cli.main(["sweep", str(toml), "--budget", "3", "--out", str(out)]) == 1
    assert "--budget" in capsys.readouterr().err


def _worker_dies():
    os._exit(3)


def test_a_task_whose_worker_died_is_reported_and_not_stored(tmp_path):
    store = TrialStore(tmp_path)
    with make_executor(2) as ex:
        ran = run_tasks([Task("dies", _worker_dies, ())], store, ex, progress=None)
    assert ran.values == [None] and "BrokenProcessPool" in ran.errors[0]
    assert not TrialStore(tmp_path).keys()  # the next run tries it again


def test_a_plugin_metric_that_raises_leaves_its_column_empty_and_the_row_stands(tmp_path):
    from pairlab import get_registry, hookimpl
    from pairlab.metrics import Metric

    def broken(y_true, labels):
        raise RuntimeError("metric bug")

    class Plugin:
        @hookimpl
        def pairlab_metrics(self):
            return [Metric("broken-metric", "Broken", broken)]

    get_registry().register(Plugin(), name="broken-metric-plugin")
    spec = dict(SPEC, trials=1, algorithms=[{"name": "gmm"}], metrics=["purity", "broken-metric"],
                links={"generator": "random", "budget": [4]})
    rows = read_rows(run_sweep(parse_spec(spec), tmp_path, progress=None).table)
    assert [r["error"] for r in rows] == [""]
    assert float(rows[0]["purity"]) > 0
    assert rows[0]["broken-metric"] == ""
    assert "broken-metric" in rows[0]["warnings"] and "metric bug" in rows[0]["warnings"]
def _live_group(pgid):
    """Pids of the live (not zombie) processes in process group ``pgid`` (Linux /proc)."""
    pids = []
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getpgid(int(d)) == pgid and open(f"/proc/{d}/stat").read().split()[2] != "Z":
                pids.append(int(d))
        except (OSError, IndexError):
            pass
    return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.ci  # starts Python processes
def test_a_killed_two_worker_sweep_leaves_no_process_behind(tmp_path, sig):
    """Issue 33.6: the fork server, the resource tracker and both workers outlived kill -9 for a
    minute or more and kept stdout open, so `pairlab sweep ... | cat` never ended."""
    spec = dict(SPEC, trials=200, algorithms=[{"name": "gmpr", "params": {"n_components": 2}}],
                datasets=[{"name": "two-moons", "params": {"n_samples": 300}}],
                links={"generator": "random", "budget": [0, 40]})
    toml = tmp_path / "orphans.toml"
    toml.write_text(_toml(spec))
    proc = subprocess.Popen([sys.executable, "-m", "pairlab", "sweep", str(toml), "--out",
                             str(tmp_path / "out"), "--jobs", "2", "--no-render"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not TrialStore(tmp_path / "out" / ".trials").keys():
        time.sleep(0.05)
    assert len(_live_group(proc.pid)) >= 4      # the sweep, the fork server, two workers
    proc.send_signal(sig)
    proc.wait()
    deadline = time.monotonic() + 15
    while _live_group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _live_group(proc.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
    proc.stdout.read()                          # EOF: no process holds the pipe open
    proc.stdout.close()
