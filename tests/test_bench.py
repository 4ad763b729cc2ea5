import json
import statistics
import subprocess
import sys
import time

import pytest

from pairlab.bench import BenchCase, discover_cases, pair_ratio, run_case, time_call, time_pair
from pairlab.cli import main


def test_time_call_measures_the_callable():
    t = time_call(lambda: time.sleep(0.01), repeats=3, warmup=0)
    assert 0.009 < t < 0.1


def test_run_case_ratio_and_goal():
    case = BenchCase("x", lambda: time.sleep(0.03), lambda: time.sleep(0.005), "sixth", 1, 1, 1, 0,
                     goal=1.5)
    entry = run_case(case, repeats=3, min_time=0)
    assert 2.0 < entry["ratio"] < 7.0  # 6 nominal; sleep overhead and load pull it towards 1
    assert entry["met"] is False
    timed = BenchCase("z", lambda: time.sleep(0.02), None, "-", 1, 1, 1, 0, goal_seconds=0.01)
    entry = run_case(timed, repeats=3, min_time=0)
    assert entry["ratio"] is None and entry["met"] is False and entry["goal_seconds"] == 0.01
    assert run_case(BenchCase("w", lambda: None, None, "-", 1, 1, 1, 0, goal_seconds=1.0),
                    repeats=3, min_time=0)["met"] is True
    broken = run_case(BenchCase("y", lambda: 1 / 0, None, "-", 1, 1, 1, 0), repeats=1, min_time=0)
    assert "ZeroDivisionError" in broken["error"]


def test_time_pair_interleaves_the_samples():
    calls = []
    s, r = time_pair(lambda: calls.append("s"), lambda: calls.append("r"), repeats=3, warmup=1)
    assert "".join(calls) == "sr" + "sr" "rs" "sr" and s > 0 and r > 0  # warm-up, then alternating


def test_the_ratio_is_the_median_of_the_rounds_ratios():
    # round 2 ran in a busy moment, its subject more so: the ratio of medians says 2.4, the rounds 2.0
    assert pair_ratio([2.0, 2.0, 6.0, 4.0], [1.0, 1.0, 1.5, 2.0]) == 2.0
    assert statistics.median([2.0, 2.0, 6.0, 4.0]) / statistics.median([1.0, 1.0, 1.5, 2.0]) == 2.4
    entry = run_case(BenchCase("p", lambda: None, lambda: None, "-", 1, 1, 1, 0), repeats=3,
                     min_time=0)
    assert len(entry["samples"]["subject"]) == len(entry["samples"]["reference"]) == 3
    assert entry["ratio"] == pair_ratio(entry["samples"]["subject"], entry["samples"]["reference"])


def test_case_repeats_and_info_reach_the_entry():
    info = {}
    ran = []

    def subject():
        ran.append(1)
        info["peak"] = 1.5

    entry = run_case(BenchCase("z", subject, None, "-", 1, 1, 1, 0, repeats=1, info=info),
                     repeats=5, min_time=0.5)
    assert len(ran) == 1 and entry["info"] == {"peak": 1.5}   # one run, no warm-up


def test_a_case_timed_by_its_own_report_checks_the_goal_on_that():
    """rdpmeans-1e6-whole-run printed "SLOWER THAN GOAL" (136 s of process, with making ten
    million links) beside "within budget True" (the run's 99 s): the goal now uses the time the
    case reports for the work it is about, and keeps the process's time beside it."""
    info = {}

    def subject():
        time.sleep(0.05)  # starting a process and making the data
        info["total_s"] = 0.01

    case = BenchCase("r", subject, None, "-", 1, 1, 1, 0, goal_seconds=0.03, repeats=1, info=info,
                     seconds_key="total_s")
    entry = run_case(case, repeats=5, min_time=0)
    assert entry["median_seconds"] == 0.01 and entry["process_seconds"] >= 0.05
    assert entry["met"] is True
    info_less = BenchCase("s", lambda: None, None, "-", 1, 1, 1, 0, goal_seconds=1.0, repeats=1,
                          info={}, seconds_key="total_s")
    assert "seconds_key needs one timed run" in run_case(info_less, repeats=1, min_time=0)["error"]


@pytest.mark.ci  # starts Python processes
def test_bench_output_has_no_qt_offscreen_noise():
    """Listing the cases builds no window, and a window with size hints shown offscreen prints no
    "This plugin does not support propagateSizeHints()" line (it does without the filter)."""
    code = ("import sys; from pairlab.benchcases import gui; gui.cases(True); "
            "assert 'PySide6.QtWidgets' not in sys.modules; "
            "from pairlab.render import ensure_app; from PySide6 import QtWidgets; "
            "app = ensure_app(); w = QtWidgets.QWidget(); w.setMinimumSize(200, 100); w.show(); "
            "app.processEvents(); w.setMinimumSize(250, 120); app.processEvents(); w.close()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert "propagateSizeHints" not in out.stderr + out.stdout


def test_discovery_finds_the_gmm_case():
    cases, errors = discover_cases(quick=True, only="gmm-em-iteration")
    assert [c.name for c in cases] == ["gmm-em-iteration"]
    assert not errors


def test_cli_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--only", "gmm-em-iteration", "--repeats", "1",
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    (entry,) = doc["cases"]
    assert {"name", "n", "d", "k", "links", "median_seconds", "reference", "ratio"} <= set(entry)
    assert entry["median_seconds"] > 0 and entry["ratio"] > 0
    assert doc["machine"]["cores"] >= 1
    assert doc["scaling"][0]["algorithm"] == "gmm" and len(doc["scaling"][0]["seconds"]) == 3
    assert "gmm-em-iteration" in capsys.readouterr().out


def test_thread_limit_reaches_scipy_and_sklearn_pools_and_child_processes(monkeypatch):
    # SciPy and scikit-learn load their own OpenBLAS and OpenMP; a limit set before they are
    # loaded does not reach them (it did not: 2 threads each inside `pairlab bench --threads 1`)
    script = (
        "import os, json\n"
        "from pairlab.bench import limit_threads\n"
        "from threadpoolctl import threadpool_info\n"
        "with limit_threads(1):\n"
        "    import sklearn.cluster, scipy.linalg\n"
        "    pools = [i['num_threads'] for i in threadpool_info()]\n"
        "    env = [os.environ[v] for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS')]\n"
        "print(json.dumps({'pools': pools, 'env': env}))\n")
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)  # the child starts with the machine's defaults
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(got["pools"]) >= 2 and set(got["pools"]) == {1}
    assert got["env"] == ["1", "1"]


_CALLS: list[int] = []


def _counted(i: int) -> dict[str, int]:
    _CALLS.append(i)
    return {"i": i}


def test_the_twinned_executor_runs_every_trial_once_on_each_side_a_trial_apart(tmp_path):
    from pairlab.benchcases.sweep import TwinnedExecutor
    from pairlab.sweep import Task, TrialStore, run_tasks

    _CALLS.clear()
    executor = TwinnedExecutor()
    tasks = [Task(f"k{i}", _counted, (i,)) for i in range(5)]
    result = run_tasks(tasks, TrialStore(tmp_path), executor, fresh=True, progress=None)
    assert result.values == [{"i": i} for i in range(5)]      # the sweep's own trials, stored
    # sweep's trial i, then the plain loop's call of trial i - 1: every trial once on each side,
    # no call right after its own computation
    assert _CALLS == [0, 4, 1, 0, 2, 1, 3, 2, 4, 3]
    assert executor.plain_seconds > 0


def test_a_case_timing_both_sides_itself_gets_its_ratio_from_its_pairs():
    info: dict = {}

    def subject():
        info.setdefault("pairs", []).append((0.3, 0.2) if len(info.get("pairs", [])) % 2 else
                                            (0.22, 0.2))

    entry = run_case(BenchCase("t", subject, None, "-", 1, 1, 1, 0, goal=1.2, info=info,
                               paired_key="pairs"), repeats=3, min_time=0)
    # warm-up (0.22, 0.2) dropped; runs: (0.3, 0.2), (0.22, 0.2), (0.3, 0.2)
    assert entry["samples"] == {"subject": [0.3, 0.22, 0.3], "reference": [0.2, 0.2, 0.2]}
    assert entry["ratio"] == pytest.approx(1.5) and entry["met"] is False
    assert entry["median_seconds"] == 0.3 and "process_seconds" in entry
    silent = BenchCase("u", lambda: None, None, "-", 1, 1, 1, 0, info={}, paired_key="pairs")
    assert "paired_key needs" in run_case(silent, repeats=2, min_time=0)["error"]


def test_the_sweep_overhead_case_reports_its_sweeps_and_plain_loops_and_in_sweep_ratios():
    from pairlab.benchcases.sweep import _twinned_sweep

    info: dict = {}
    run = _twinned_sweep(4, info)
    for _ in range(3):
        result = run()
    ratios, pairs = info["in_sweep_ratios"], info["sweep_and_plain_s"]
    assert len(ratios) == 3 and info["in_sweep_ratio"] == sorted(ratios)[1] and len(pairs) == 3
    # a sweep takes at least as long as its trials; the plain loop ran the same four trials
    assert all(r >= 1.0 for r in ratios) and len(result.engine.seconds) == 4
    assert all(sweep > 0 and plain > 0 for sweep, plain in pairs)
