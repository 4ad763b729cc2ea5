"""Hostile inputs of issue 33, one regression test each: a clear one-line error, never a traceback,
a Qt abort, a silent wrong result or a file outside the output folder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pairlab.gui.display import XCB_LIBRARIES, display_problem


def _pairlab(*args: str, env: dict[str, str] | None = None, timeout: float = 120):
    return subprocess.run([sys.executable, "-m", "pairlab", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)


def _no_traceback(done):
    assert "Traceback" not in done.stderr and "Aborted" not in done.stderr, done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb platform")
@pytest.mark.ci  # starts Python processes
def test_gui_without_a_display_says_what_to_do_instead_of_qt_abort():
    """Issue 33.9: `pairlab gui` with no display ended in Qt's abort (exit 134)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = _pairlab("gui", env=env)
    assert done.returncode == 1 and "--screenshot" in done.stderr and "DISPLAY" in done.stderr
    _no_traceback(done)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb platform")
def test_gui_names_the_missing_xcb_libraries_and_their_packages():
    env = {"DISPLAY": ":97"}
    problem = display_problem(env, loadable=lambda so: so != "libxcb-cursor.so.0")
    assert "libxcb-cursor.so.0" in problem and "apt install libxcb-cursor0" in problem
    assert "--screenshot" in problem
    docs = open(_docs("gui.md")).read()
    assert all(package in docs for package in XCB_LIBRARIES.values())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb platform")
def test_gui_probe_reports_a_display_qt_cannot_open():
    """Every library present but no X server on :97: the probe's subprocess aborts, not us."""
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["DISPLAY"] = ":97"
    problem = display_problem(env, loadable=lambda so: True)
    assert problem is not None and "xcb" in problem and "--screenshot" in problem


@pytest.mark.ci  # starts Python processes
def test_gui_refuses_a_negative_number_of_links(tmp_path):
    """Issue 33.10: `pairlab gui --must-link -3 --screenshot x.png` exited 0."""
    for flag in ("--must-link", "--cannot-link"):
        done = _pairlab("gui", flag, "-3", "--screenshot", str(tmp_path / "x.png"))
        assert done.returncode == 1 and f"{flag} expects a number of links >= 0" in done.stderr
        _no_traceback(done)
        assert not (tmp_path / "x.png").exists()


def _docs(name: str) -> str:
    return os.path.join(os.path.dirname(__file__), os.pardir, "docs", name)


def _die_once(marker: str, value: int) -> int:
    """A task whose worker dies (SIGKILL) the first time it runs."""
    import signal

    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return value


def test_trials_of_a_dead_local_worker_are_retried(tmp_path):
    """Issue 33.3: one dead worker turned every pending trial into a BrokenProcessPool row."""
    from pairlab.sweep import Task, TrialStore, make_executor, run_tasks

    marker = str(tmp_path / "died")
    tasks = [Task(f"t{i}", _die_once, (marker, i)) for i in range(8)]
    with make_executor(2) as two:
        result = run_tasks(tasks, TrialStore(tmp_path / "store"), two, progress=None)
    assert os.path.exists(marker)
    assert result.errors == [""] * 8 and result.values == list(range(8))


def _sweep_args(tmp_path, *extra: str) -> list[str]:
    return ["sweep", "--algorithm", "gmm", "--dataset", "two-moons", "--data", "n_samples=30",
            "--out", str(tmp_path / "out"), "--jobs", "1", "--no-render", *extra]


@pytest.mark.parametrize("flags, words", [
    (("--budget", "10"), "a budget needs a generator"),
    (("--generator", "random", "--budget", "nan"), "got nan"),
    (("--generator", "random", "--budget", "1e30"), "got 1e+30"),
])
def test_sweep_budgets_that_cannot_run_are_refused_up_front(tmp_path, flags, words, capsys):
    """Issue 33.3: --budget without --generator was dropped (budget 0); nan and 1e30 passed the
    check and --dry-run, then every trial failed."""
    from pairlab import cli

    assert cli.main(_sweep_args(tmp_path, *flags, "--dry-run")) == 1
    assert words in capsys.readouterr().err


def test_a_sweep_with_failed_trials_exits_1_unless_allowed(tmp_path, capsys):
    from pairlab import cli

    args = _sweep_args(tmp_path, "--set", "n_components=31")     # more components than points
    assert cli.main(args) == 1
    assert "1 of 1 trials failed" in capsys.readouterr().err
    assert cli.main([*args, "--allow-failures"]) == 0


@pytest.mark.parametrize("name", ["../../escape", "", ".hidden", "a\x00b", "a/b", "x" * 101])
def test_sweep_names_that_leave_the_folder_are_refused_before_any_trial(tmp_path, name):
    """Issue 33.5: name = "../../escape" wrote two folders above --out; "" wrote hidden files;
    a NUL gave a traceback after every trial ran."""
    import json

    from pairlab import cli

    spec = tmp_path / "a" / "b" / "s.toml"
    spec.parent.mkdir(parents=True)
    spec.write_text(f"name = {json.dumps(name)}\ntrials = 1\n[[algorithms]]\nname = \"gmm\"\n"
                    "[[datasets]]\nname = \"two-moons\"\n")
    out = tmp_path / "a" / "b" / "out"
    assert cli.main(["sweep", str(spec), "--out", str(out), "--jobs", "1", "--no-render"]) == 1
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "s.toml"]


def test_a_non_utf8_sweep_spec_is_a_clear_error(tmp_path, capsys):
    """Issue 33.8: UnicodeDecodeError traceback."""
    from pairlab import cli

    spec = tmp_path / "bad.toml"
    spec.write_bytes(b'name = "\xff\xfe"\n')
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "o")]) == 1
    assert "is not UTF-8 text" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["sweep", "--algorithm", "gmm", "--dataset", "two-moons"], ["reproduce", "fig3", "--trials", "1"]])
def test_a_garbage_scheduler_is_a_clear_error(tmp_path, command, capsys):
    """Issue 33.8: ValueError traceback from distributed for --scheduler garbage://x."""
    pytest.importorskip("distributed")
    from pairlab import cli

    assert cli.main([*command, "--scheduler", "garbage://x", "--out", str(tmp_path / "o")]) == 1
    assert "--scheduler 'garbage://x'" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["truncated", "not-utf8"])
def test_report_of_a_damaged_table_is_a_clear_error(tmp_path, damage, capsys):
    """Issue 33.8: `pairlab sweep --report DIR` with a truncated or non-UTF-8 NAME.csv."""
    from pairlab import cli

    assert cli.main(_sweep_args(tmp_path, "--trials", "3")) == 0
    table = tmp_path / "out" / "sweep.csv"
    text = table.read_bytes()
    table.write_bytes(text[: text.index(b"\n") + 5] if damage == "truncated" else b"\xff" + text)
    capsys.readouterr()
    assert cli.main(["sweep", "--report", str(tmp_path / "out"), "--no-render"]) == 1
    assert "cannot read the sweep table" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["deep-header", "folder", "old-file-deep-header",
                                    "old-file-folder"])
def test_damaged_trial_records_are_set_aside_and_recomputed(tmp_path, damage):
    """Issue 33.8: a header nested 100,000 levels deep (RecursionError on every resume); a trial
    file replaced by a folder stopped the sweep. Both in a log and in an older store's file."""
    from pairlab import cli
    from pairlab.sweep import TrialStore

    from .helpers import trial_records, write_trial_records

    assert cli.main(_sweep_args(tmp_path, "--trials", "2")) == 0
    trials = tmp_path / "out" / ".trials"
    records = trial_records(trials)
    write_trial_records(trials, records[1:])            # the first trial's record gone ...
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n{}\n"
    victim = TrialStore(trials).path(records[0][0]["key"])
    if damage.startswith("old-file"):                  # ... and in an older store's file
        victim.parent.mkdir(parents=True)
        victim.mkdir() if damage.endswith("folder") else victim.write_bytes(deep)
    elif damage == "folder":                           # ... a folder named like a log
        (trials / "log" / "1-1-folder.log").mkdir()
    else:                                              # ... a log damaged at its first byte
        log = trials / "log" / "0-0-edited.log"
        log.write_bytes(deep + log.read_bytes())
    before = (tmp_path / "out" / "sweep.csv").read_text()
    assert cli.main(_sweep_args(tmp_path, "--trials", "2")) == 0
    if damage.startswith("old-file"):
        assert list(victim.parent.glob("*.corrupt"))   # set aside for inspection
    elif damage == "deep-header":
        assert list((trials / "log").glob("*.corrupt"))
    assert len(TrialStore(trials).keys()) == 2
    strip = lambda t: [ln.split(",")[:8] for ln in t.splitlines()]   # noqa: E731 (no timings)
    assert strip((tmp_path / "out" / "sweep.csv").read_text()) == strip(before)


def test_bench_prints_the_goal_it_checks():
    """Issue 33.11: a goal of 1.05 printed as "1.1" next to a ratio of 1.09 "SLOWER THAN GOAL"."""
    from pairlab.bench import BenchCase, goal_text

    case = BenchCase("x", lambda: None, None, "-", 1, 1, 1, 0, goal=1.05)
    assert goal_text(case) == "1.05"
    assert goal_text(BenchCase("y", lambda: None, None, "-", 1, 1, 1, 0, goal_seconds=0.5)) == "<0.5s"


@pytest.mark.ci  # starts Python processes
def test_sweep_progress_into_a_log_file_is_plain_lines(tmp_path):
    """Issue 33.11: carriage-return frames landed in log files when stderr was not a terminal."""
    log = tmp_path / "log.txt"
    with open(log, "w") as err:
        done = subprocess.run([sys.executable, "-m", "pairlab", *_sweep_args(tmp_path, "--trials", "5")],
                              stdout=subprocess.DEVNULL, stderr=err, timeout=120)
    assert done.returncode == 0
    text = log.read_text()
    assert "\r" not in text and "5/5 trials" in text


def test_progress_on_a_terminal_redraws_one_line():
    import io

    from pairlab.sweep.engine import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    bar = Progress(2, 0, out)
    bar.advance()
    bar.advance()
    assert out.getvalue().count("\r") >= 2 and out.getvalue().endswith("\n")


@pytest.mark.parametrize("name", ["gmpr", "gmpr-mixture"])
def test_gmpr_refuses_more_classes_than_points_before_allocating(name):
    """Issue 33.7: n_components=10**9 on 40 points took 14 GiB and ended in MemoryError."""
    import numpy as np

    from pairlab import InvalidInputError, make_estimator

    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(InvalidInputError, match="n_components=1000000000 exceeds the number of points"):
        make_estimator(name, n_components=10**9, random_state=0).fit(X)


@pytest.mark.ci  # starts Python processes
def test_cli_sizes_beyond_memory_are_one_line_errors():
    """Issue 33.7: `--data n_samples=10**12` printed a MemoryError traceback; sizes no check
    foresees end in one line too (limited to 3 GB of address space here)."""
    done = _pairlab("run", "gmm", "--dataset", "two-moons", "--data", "n_samples=1000000000000")
    assert done.returncode == 1 and "n_samples' must be <= 100000000" in done.stderr
    _no_traceback(done)
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30)); "
            "from pairlab.cli import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "run", "gmm", "--dataset", "gaussian-blobs",
                           "--data", "n_samples=1000", "--data", "n_features=100000000"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "not enough memory" in done.stderr
    _no_traceback(done)


def test_run_accepts_registered_names_as_the_readme_shows():
    """Issue 33.10: pairlab.Run("gmpr", "two-moons") failed with AttributeError on a str."""
    import numpy as np

    import pairlab

    run = pairlab.Run("gmpr", "two-moons")
    same = pairlab.Run("gmpr", pairlab.get_registry().dataset("two-moons").make(0))
    np.testing.assert_array_equal(run.run().labels, same.run().labels)
    with pytest.raises(pairlab.InvalidInputError, match="pairlab.Dataset"):
        pairlab.Run("gmpr", np.zeros((5, 2)))


CHATTY = """
import numpy as np
from pairlab import Algorithm, Param, State, hookimpl

class Chatty(Algorithm):
    name = "chatty"
    title = "Prints while it runs"
    params = (Param("max_iter", int, 2, "steps", low=1),)

    def initialize(self):
        print("chatty: initialize")
        return State(0, np.zeros(self.dataset.n_samples, dtype=int))

    def step(self, state):
        print("chatty: step")
        return State(state.iteration + 1, state.labels)

@hookimpl
def pairlab_algorithms():
    return [Chatty]
"""


@pytest.mark.ci  # starts Python processes
def test_a_plugin_that_prints_cannot_corrupt_run_json(tmp_path):
    """Issue 33.10: a plugin's print() during `pairlab run --json` corrupted the JSON."""
    import json

    from tests.helpers import make_site_plugin, run_cli

    site = make_site_plugin(tmp_path, "pairlab-chatty", "pairlab_chatty", CHATTY)
    done = run_cli("run", "chatty", "--dataset", "two-moons", "--json", extra_path=site,
                   external=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["algorithm"] == "chatty"
    assert "chatty: step" in done.stderr
