import json
import time

from pairlab.bench import BenchCase, discover_cases, run_case, time_call
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
