"""Inputs that used to print a traceback, abort, or exit 0 when they should be refused."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest

from pairlab import Dataset, InvalidInputError, make_estimator
from pairlab.atomic import atomic_write_text, check_writable_file
from pairlab.cli import main
from pairlab.constraints import Constraints

UNWRITABLE = "/proc/pairlab-no-such-dir/out"  # not creatable, even by root


def _fails(argv: list[str], capsys, match: str, code: int = 1) -> str:
    if code == 2:  # argparse refusal
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
    else:
        assert main(argv) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err and match in err, err
    return err


def test_one_point_data_set_has_a_2d_view():
    for d in (1, 2, 5):
        view = Dataset(np.arange(d, dtype=float).reshape(1, d)).view
        assert view.shape == (1, 2) and np.all(np.isfinite(view))


def test_estimator_arguments_that_crashed():
    X = np.random.default_rng(0).normal(size=(20, 2))
    for name in ("gmm", "gmpr", "gmpr-mixture", "constrained-em", "ppc"):
        with pytest.raises(InvalidInputError, match="reg_covar'? must be a finite number"):
            make_estimator(name, reg_covar=np.inf).fit(X)
    for bad in ("abc", -1):
        with pytest.raises(InvalidInputError, match="random_state must be"):
            make_estimator("gmpr", random_state=bad).fit(X)


@pytest.mark.parametrize("argv, match", [
    (["run", "gmm", "--dataset", "two-moons", "--seed", "-1"], "--seed: expected a whole number >= 0"),
    (["run", "gmm", "--dataset", "two-moons", "--max-iter", "-1"], "--max-iter: expected a whole number"),
    (["reproduce", "fig3", "--seed", "-1"], "--seed: expected a whole number >= 0"),
    (["gui", "--seed", "-2"], "--seed: expected a whole number >= 0"),
])
def test_negative_numbers_are_refused(argv, match, capsys):
    _fails(argv, capsys, match, code=2)


def test_bad_constraints_files(tmp_path, capsys):
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'\xff\xfe{"must_link": [[0, 1]]}')
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    run = ["run", "gmm", "--dataset", "two-moons", "--constraints"]
    _fails([*run, str(latin)], capsys, "is not UTF-8 text")
    _fails([*run, str(deep)], capsys, "nested too deeply")


def test_unwritable_and_special_output_paths(tmp_path, capsys):
    _fails(["reproduce", "fig3", "--quick", "--no-render", "--out", UNWRITABLE], capsys, "cannot use")
    _fails(["reproduce", "fig3", "--quick", "--no-render", "--out", os.devnull], capsys, "cannot use")
    _fails(["new-plugin", "my-algo", "--dir", os.devnull], capsys, "Not a directory")
    _fails(["bench", "--quick", "--only", "gmm", "--no-scaling", "--json", UNWRITABLE], capsys,
           "choose a folder that exists")
    _fails(["bench", "--quick", "--only", "gmm", "--no-scaling", "--json", os.devnull], capsys,
           "it is a device or other special file")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)  # and the device is still a device
    with pytest.raises(InvalidInputError, match="it is a folder"):
        atomic_write_text(tmp_path, "x")
    assert check_writable_file(tmp_path / "fine.json") == tmp_path / "fine.json"
    assert not list(tmp_path.glob(".fine.json*"))  # the probe file is removed


def test_refused_instead_of_exit_zero(capsys, monkeypatch):
    from types import SimpleNamespace

    import pairlab.bench

    # the real cases take seconds to build; the selection is what is under test
    fake = [SimpleNamespace(name="gmm-em-iteration", group="gmm")]
    monkeypatch.setattr(pairlab.bench, "discover_cases", lambda quick, only=None: (fake, []))
    err = _fails(["bench", "--quick", "--only", "NO-SUCH-CASE"], capsys, "no benchmark case matches")
    assert "cases: gmm-em-iteration" in err
    _fails(["gui", "--size", "0x0", "--screenshot", "a.png"], capsys, "between 100 and 16384")


def test_screenshot_paths_are_checked_before_qt_starts(tmp_path, capsys):
    _fails(["gui", "--screenshot", str(tmp_path / "shot")], capsys, "must end in one of .png")
    _fails(["gui", "--screenshot", UNWRITABLE + ".png"], capsys, "cannot write")


def test_mistyped_session_fields(tmp_path, capsys):
    good = {"format": "pairlab-session", "version": 1,
            "dataset": {"name": "two-moons", "params": {}, "seed": 0},
            "panes": [{"algorithm": "gmm", "params": {}}]}
    cases = [({"version": "abc"}, "'version' must be a whole number"),
             ({"seed": -3}, "'seed' must be a whole number >= 0"),
             ({"noise": "lots"}, "'noise' must be a number in [0, 1]"),
             ({"iteration": [1]}, "'iteration' must be a whole number"),
             ({"initial_means": [[0, "x"]]}, "'initial_means' must be null or a list"),
             ({"view": 3}, "'view' must be an object"),
             ({"panes": [{"algorithm": "gmm", "params": [1, 2]}]}, "'params' must be an object"),
             ({"dataset": {"name": "two-moons", "seed": "zero"}}, "'seed' must be a whole number")]
    for change, match in cases:
        path = tmp_path / "s.json"
        path.write_text(json.dumps({**good, **change}))
        _fails(["gui", "--session", str(path), "--screenshot", str(tmp_path / "s.png")], capsys,
               match)


def test_constraints_written_atomically_still_load(tmp_path):
    c = Constraints([[0, 1]], [[1, 2]], n_samples=3)
    c.save(tmp_path / "c.json")
    assert Constraints.load(tmp_path / "c.json") == c
