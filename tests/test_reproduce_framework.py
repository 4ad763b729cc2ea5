"""The reproduction framework with a small recipe defined here (the paper recipes test themselves)."""

import json
from pathlib import Path

import numpy as np
import pytest

from pairlab import Dataset, Run
from pairlab.reproduce import reproduce, trial_seed
from pairlab.reproduction import Claim, Reproduction, ReproductionError, ReproductionResult
from pairlab.sweep import TrialStore

from .helpers import trial_records, write_trial_records


class MeanOfGMMs(Reproduction):
    name = "toy-gmm"
    title = "GMM purity on random blobs"
    default_trials = 4

    def trial(self, index, seed, options):
        rng = np.random.default_rng(seed)
        X = np.vstack([rng.normal(size=(30, 2)), rng.normal(5, size=(30, 2))])
        state = Run("gmm", Dataset(X), seed=seed).run()
        y = np.r_[np.zeros(30, int), np.ones(30, int)]
        agree = max(np.mean(state.labels == y), np.mean(state.labels != y))
        return {"index": index, "seed": seed, "agreement": float(agree),
                "objective": state.objective}

    def summarize(self, trials, options):
        values = [t["agreement"] for t in trials]
        return ReproductionResult(
            data={"trials": trials, "mean_agreement": float(np.mean(values))},
            curves={"agreement": {"trial": list(range(len(values))), "value": values}},
            notes=["toy recipe used by the test-suite"])

    def claims(self, result):
        m = result.data["mean_agreement"]
        return [Claim("separates", "GMM separates well separated blobs", m, m > 0.9),
                Claim("impossible", "agreement exceeds 1", m, m > 1)]


def test_trial_seeds_depend_only_on_seed_name_and_index():
    assert trial_seed(0, "a", 3) == trial_seed(0, "a", 3)
    assert len({trial_seed(0, "a", t) for t in range(50)}) == 50
    assert trial_seed(0, "a", 0) != trial_seed(0, "b", 0) != trial_seed(1, "a", 0)


def test_results_do_not_depend_on_jobs(tmp_path):
    recipe = MeanOfGMMs()
    one = reproduce(recipe, tmp_path / "one", jobs=1, progress=None, argv=["reproduce", "toy"])
    two = reproduce(recipe, tmp_path / "two", jobs=2, progress=None, argv=["reproduce", "toy"])
    assert one["data"] == two["data"]
    assert one["trial_seeds"] == [t["seed"] for t in one["data"]["trials"]]
    # any single trial can be re-run alone
    again = recipe.trial(2, one["trial_seeds"][2], {})
    assert again == one["data"]["trials"][2]
    doc = json.loads((tmp_path / "one" / "toy-gmm.json").read_text())
    assert doc["claims"][0]["held"] is True and doc["claims"][1]["held"] is False
    assert doc["all_claims_held"] is False
    prov = doc["provenance"]
    assert {"pairlab", "numpy", "scipy", "platform", "command", "wall_seconds"} <= set(prov)
    assert (tmp_path / "one" / "toy-gmm.csv").read_text().startswith("curve,column,index,value")


def test_trials_are_stored_and_a_rerun_reuses_them(tmp_path):
    recipe = MeanOfGMMs()
    first = reproduce(recipe, tmp_path, jobs=1, progress=None, render=False)
    assert first["engine"]["ran"] == 4 and first["engine"]["stored"] == 0
    stored = trial_records(tmp_path / ".trials")
    assert len(stored) == 4
    write_trial_records(tmp_path / ".trials", stored[:1] + stored[2:])  # one lost
    again = reproduce(recipe, tmp_path, jobs=1, progress=None, render=False)
    assert (again["engine"]["stored"], again["engine"]["ran"]) == (3, 1)
    assert again["data"] == first["data"]
    # another seed or option is another trial
    other = reproduce(recipe, tmp_path, jobs=1, progress=None, render=False, seed=1)
    assert other["engine"]["ran"] == 4
    fresh = reproduce(recipe, tmp_path, jobs=1, progress=None, render=False, fresh=True)
    assert fresh["engine"]["ran"] == 4 and fresh["data"] == first["data"]


def test_a_resumed_run_reports_the_recorded_time_of_the_trials_it_reused(tmp_path):
    recipe = MeanOfGMMs()
    first = reproduce(recipe, tmp_path, jobs=1, progress=None, render=False)
    records = trial_records(tmp_path / ".trials")
    headers = [h for h, _ in records]
    assert all(h["cpu_seconds"] > 0 and h["wall_seconds"] > 0 for h in headers)
    assert sum(h["cpu_seconds"] for h in headers) == pytest.approx(
        first["engine"]["trial_cpu_seconds"])
    old = {k: v for k, v in headers[1].items() if k not in ("wall_seconds", "cpu_seconds")}
    write_trial_records(tmp_path / ".trials", [(old, records[1][1]), *records[2:]])  # the first
    # lost (it runs again), the second as written before times were recorded
    again = reproduce(recipe, tmp_path, jobs=1, progress=None, render=False)
    eng = again["engine"]
    assert (eng["ran"], eng["stored"], eng["reused_without_time"]) == (1, 3, 1)
    assert again["data"] == first["data"]               # the old file still loads
    assert eng["reused_trial_cpu_seconds"] == sum(h["cpu_seconds"] for h in headers[2:])
    assert eng["reused_trial_wall_seconds"] == sum(h["wall_seconds"] for h in headers[2:])
    newest = {h["key"]: h for h, _ in trial_records(tmp_path / ".trials")}
    assert 0 < eng["trial_cpu_seconds"] == newest[headers[0]["key"]]["cpu_seconds"]


class FailsOnOdd(MeanOfGMMs):
    name = "toy-fails"

    def trial(self, index, seed, options):
        if index % 2:
            raise ValueError(f"trial {index} is odd")
        return super().trial(index, seed, options)


def test_a_failing_recipe_trial_is_named_and_the_others_are_kept(tmp_path):
    with pytest.raises(ReproductionError, match="2 of 4 trials failed.*trial 1: ValueError: trial 1"):
        reproduce(FailsOnOdd(), tmp_path, jobs=1, progress=None, render=False)
    assert len(TrialStore(tmp_path / ".trials").keys()) == 2


class PurityGrid(Reproduction):
    """A recipe declared as a sweep grid: GMM and GM-PR against the number of links."""

    name = "toy-grid"
    default_trials = 2

    def grid(self, options):
        return {"algorithms": [{"name": "gmm", "params": {"n_components": 2}},
                               {"name": "gmpr", "params": {"n_components": 2}}],
                "datasets": [{"name": "two-moons", "params": {"n_samples": 40}}],
                "links": {"generator": "random", "budget": [0, 5]}, "metrics": ["purity"]}

    def summarize(self, rows, options):
        means = {}
        for r in rows:
            means.setdefault((r["method"], r["budget"]), []).append(r["purity"])
        data = {f"{m}@{b}": float(np.mean(v)) for (m, b), v in means.items()}
        return ReproductionResult(data, notes=[f"{len(rows)} rows"])

    def claims(self, result):
        d = result.data
        return [Claim("no_links_equal", "GM-PR without links is GMM", [d["gmm@0"], d["gmpr@0"]],
                      d["gmm@0"] == d["gmpr@0"])]


def test_a_recipe_declared_as_a_grid_runs_as_a_sweep(tmp_path):
    doc = reproduce(PurityGrid(), tmp_path, jobs=1, progress=None, render=False)
    assert doc["notes"] == ["8 rows"] and doc["all_claims_held"]
    assert (tmp_path / "toy-grid-trials.csv").read_text().count("\n") == 9
    again = reproduce(PurityGrid(), tmp_path, jobs=1, progress=None, render=False)
    assert again["engine"]["stored"] == 8 and again["data"] == doc["data"]


# -- recipe options as declared parameters ------------------------------------------------------
RECIPE_DIR = Path(__file__).resolve().parents[1] / "plugins" / "pairlab_builtins" / "reproductions"


def _cli_args(**given):
    import argparse

    from pairlab.reproduce import add_arguments

    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    argv = [given.pop("name")]
    for flag, value in given.items():
        argv += [f"--{flag.replace('_', '-')}"] + ([] if value is True else [str(value)])
    return parser.parse_args(argv)


def test_every_recipe_declares_its_options_as_params_and_validates_them():
    from pairlab.errors import InvalidInputError
    from pairlab.params import Param
    from pairlab.registry import get_registry

    reg = get_registry()
    for name in reg.names("reproductions"):
        recipe = reg.reproduction(name)
        assert all(isinstance(p, Param) for p in recipe.params), name
        described = recipe.describe()["params"]
        assert [p["name"] for p in described] == [p.name for p in recipe.params], name
        defaults = recipe.options()
        for p in recipe.params:
            assert defaults[p.name] == p.default or (p.default is None and defaults[p.name] is None)
        with pytest.raises(InvalidInputError, match="Unknown parameter 'no_such_option'"):
            recipe.options({"no_such_option": 1})
        if any(p.name == "quick" for p in recipe.params):
            with pytest.raises(InvalidInputError, match="'quick'"):
                recipe.options({"quick": "sometimes"})


def test_the_command_line_builds_recipe_options_from_flags_and_set():
    from pairlab.errors import InvalidInputError
    from pairlab.registry import get_registry
    from pairlab.reproduce import recipe_options

    recipe = get_registry().reproduction("rdp-fig3")
    opts = recipe_options(recipe, _cli_args(name="rdp-fig3", quick=True, data_dir="/d",
                                            set="rate=0.05"))
    assert (opts["quick"], opts["data_dir"], opts["rate"], opts["reading"]) == (
        True, "/d", 0.05, "code")
    assert opts["deviations"] == [-3, -2, -1, 0, 1, 2, 3]  # expanded from the declared values
    with pytest.raises(InvalidInputError, match="must be one of"):
        recipe_options(recipe, _cli_args(name="rdp-fig3", set="reading=txt"))
    with pytest.raises(InvalidInputError, match="Did you mean 'rate'"):
        recipe_options(recipe, _cli_args(name="rdp-fig3", set="rat=0.1"))
    fig3 = get_registry().reproduction("fig3")  # reads no files: --data-dir is an error ...
    with pytest.raises(InvalidInputError, match="reads no data files"):
        recipe_options(fig3, _cli_args(name="fig3", data_dir="/d"))
    # ... except under --all, which passes it to the recipes that declare it
    assert recipe_options(fig3, _cli_args(name="fig3", data_dir="/d", quick=True),
                          strict=False) == {}


def test_reproduce_name_help_lists_the_recipes_options(capsys):
    from pairlab.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["reproduce", "rdp-fig3", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "options of rdp-fig3" in out and "reading (str, default 'code', one of ['text', 'code'])" in out
    assert "rate (float, default 0.03, range (0.0, 1.0])" in out
    assert "default run: 5 trial(s); --quick: 1." in out  # the trial counts, then the options
    with pytest.raises(SystemExit):
        main(["reproduce", "shental-fig5", "--help"])
    assert "default run: 100 trial(s); --quick: 2. Measured: " in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["reproduce", "fig3", "--help"])
    assert "fig3 has no options." in capsys.readouterr().out
    assert main(["reproduce", "rdp-fig3", "--set", "reading=txt"]) == 1
    assert "Parameter 'reading' must be one of ['text', 'code']" in capsys.readouterr().err


def test_recipe_modules_are_small_documented_and_free_of_the_command_line():
    import ast

    for path in sorted(RECIPE_DIR.glob("*.py")):
        text = path.read_text()
        assert len(text.splitlines()) <= 500, f"{path.name}: {len(text.splitlines())} lines"
        if path.name == "__init__.py":
            continue
        tree = ast.parse(text)
        assert ast.get_docstring(tree), f"{path.name} has no module docstring"
        assert "argparse" not in text and "getattr(args" not in text, path.name


def test_every_recipe_module_is_registered_by_its_own_entry_point():
    import tomllib

    points = tomllib.loads((RECIPE_DIR.parents[2] / "pyproject.toml").read_text())[
        "project"]["entry-points"]["pairlab"]
    modules = {v for v in points.values() if v.startswith("pairlab_builtins.reproductions.")}
    hooked = {f"pairlab_builtins.reproductions.{p.stem}" for p in RECIPE_DIR.glob("*.py")
              if "def pairlab_reproductions" in p.read_text()}
    assert hooked == modules


def test_printed_tolerance_follows_the_stated_rule():
    import math

    from pairlab.reproduction import printed_claim, printed_tolerance

    runs = [0.70, 0.74, 0.78, 0.82]  # one setting: sd 0.0516
    s = float(np.std(runs, ddof=1))
    assert printed_tolerance([runs], 5, 0.01) == pytest.approx(0.005 + 2 * s * math.sqrt(1 / 4 + 1 / 5))
    # two settings (e.g. two noise levels): their difference is not noise, only the spread within
    two = [[0.70, 0.72], [0.90, 0.94]]
    var = (np.var(two[0], ddof=1) + np.var(two[1], ddof=1)) * (1 / 2 + 1 / 5)
    assert printed_tolerance(two, 5, 0.01) == pytest.approx(0.005 + 2 * math.sqrt(var) / 2)
    assert math.isnan(printed_tolerance([[0.7], [0.7, 0.8]], 5, 0.01))  # a setting with one run
    near = printed_claim("c", "a cell", 0.80, [runs], paper_runs=5)
    assert near.held and near.difference == pytest.approx(-0.04) and near.runs == 4
    far = printed_claim("c", "a cell", 0.90, [runs], paper_runs=5)
    assert not far.held and far.describe()["tolerance"] == pytest.approx(near.tolerance)
    assert printed_claim("c", "two", 0.815, two, paper_runs=5).measured == pytest.approx(0.815)
    assert not printed_claim("c", "one run", 0.7, [[0.7]], paper_runs=5).held  # cannot be judged
    assert "tolerance" not in Claim("q", "qualitative", 1, True).describe()


def test_printed_bound_is_one_sided_with_the_printed_value_tolerance():
    from pairlab.reproduction import printed_bound, printed_claim

    runs = [0.50, 0.54, 0.58, 0.62]  # mean 0.56
    tol = printed_claim("c", "x", 0.60, [runs], paper_runs=100).tolerance
    below = printed_bound("c", "less than 60%", 0.60, [runs], below=True, paper_runs=100)
    assert below.held and below.tolerance == pytest.approx(tol) and "[bound: ours <=" in below.statement
    assert not printed_bound("c", "reaches 60%", 0.60 + tol + 0.05, [runs], below=False,
                             paper_runs=100).held  # far below a bound it should reach
    assert printed_bound("c", "reaches", 0.50, [runs], below=False, paper_runs=100).held
    assert not printed_bound("c", "less than 45%", 0.45, [runs], below=True, paper_runs=100).held
    assert not printed_bound("c", "one run", 0.9, [[0.5]], below=True, paper_runs=100).held


def test_ppc_section_513_claims_read_the_stated_counts():
    from pairlab_builtins.reproductions.ppc_relations import SECTION_513, _section_513_claims

    counts = [0, 10, 50, 75, 100, 150]
    rng = np.random.default_rng(0)

    def runs(level):  # count x realisation
        return [(level(c) + 0.01 * rng.standard_normal(8)).tolist() for c in counts]

    def entry(title, ppc_trn, ppc_tst, cop):
        r = {"trn_ppc": runs(ppc_trn), "tst_ppc": runs(ppc_tst), "trn_cop": runs(cop),
             "tst_cop": runs(cop)}
        return {"title": title, "relations": counts, "runs": r,
                **{k: np.mean(v, axis=1).tolist() for k, v in r.items()}}

    sets = {"set1": entry("one", lambda c: 0.6 + 0.4 * min(c, 75) / 75,
                          lambda c: 0.6 + 0.4 * min(c, 75) / 75, lambda c: 0.55),
            "set2": entry("two", lambda c: 0.75 + 0.2 * c / 150, lambda c: 0.75 + 0.15 * c / 150,
                          lambda c: 0.7),
            "set3": entry("three", lambda c: 0.5 + 0.45 * c / 150, lambda c: 0.5, lambda c: 0.5)}
    claims = {c.name: c for c in _section_513_claims(sets)}
    assert set(claims) == {row[0] for row in SECTION_513}
    assert all(c.held for c in claims.values()), [c.name for c in claims.values() if not c.held]
    assert "ours at 75 relations" in claims["set1_train_after_70"].statement
    assert "ours at 100 relations" in claims["set3_below_95_at_100"].statement
    assert claims["set1_train_after_70"].tolerance > 0.025  # "close to": printed to 5 points
    sets["set3"] = entry("three", lambda c: 0.99, lambda c: 0.5, lambda c: 0.6)
    claims = {c.name: c for c in _section_513_claims(sets)}
    assert not claims["set3_below_95_at_100"].held and not claims["set3_cop_below_55"].held


def test_ppc_uci_sizes_are_compared_on_the_sets_read():
    from pairlab_builtins.reproductions.ppc_relations import _size_claims

    sets = {"iris": {"title": "Iris", "n_samples": 150, "n_classes": 3},
            "digits0689": {"title": "digits", "n_samples": 713, "n_classes": 4},
            "waveform": {"title": "Waveform", "n_samples": 4999, "n_classes": 3}}
    claims = {c.name: c for c in _size_claims(sets)}
    assert set(claims) == {"iris_size", "waveform_size"}  # the stand-in is not the paper's data
    assert claims["iris_size"].held and claims["iris_size"].paper == [150, 3]
    assert not claims["waveform_size"].held and claims["waveform_size"].measured == [4999, 3]


def test_paired_rule_needs_two_standard_errors_at_the_stated_share_of_budgets():
    from pairlab.errors import InvalidInputError
    from pairlab.reproduction import paired_rule

    clear = [0.10, 0.12, 0.11, 0.09]  # mean 0.105, se 0.0065: significant
    noisy = [0.10, -0.08, 0.12, -0.10]  # mean 0.01, se 0.058: not
    every = paired_rule("c", "helps", [clear, clear, noisy], labels=[50, 100, 200])
    assert not every.held and every.measured["significant"] == 2 and every.measured["of"] == 3
    assert every.measured["at"] == [50, 100, 200] and "at every budget" in every.statement
    assert every.measured["mean"][0] == pytest.approx(0.105)
    assert paired_rule("c", "helps", [clear, clear, noisy], share=0.6).held
    assert not paired_rule("c", "helps", [[-x for x in clear]]).held  # the wrong sign
    # a failed run (None) is counted, not averaged; one finite run cannot be judged
    failed = paired_rule("c", "helps", [[0.1, None, 0.12, float("nan")], [0.2, None]])
    assert failed.measured["failed"] == ["2 / 4", "1 / 2"] and failed.measured["significant"] == 1
    assert "failed" not in every.measured
    with pytest.raises(InvalidInputError, match="share"):
        paired_rule("c", "x", [clear], share=0)


def test_printed_counts_per_paper_leave_out_extensions():
    from pairlab.reproduce import printed_counts

    def c(held, tol=0.1, **kw):
        return {"held": held, "tolerance": tol, **kw}

    docs = [{"paper": "A", "claims": [c(True), c(False), c(False, "nan"), {"held": True}]},
            {"paper": "A", "claims": [c(True), c(True, extension=True)]},
            {"paper": "B", "claims": [{"held": False}]}]
    assert printed_counts(docs) == {"A": (4, 2, 1), "B": (0, 0, 0)}


def test_a_default_run_announces_its_measured_time_before_it_starts(capsys, monkeypatch):
    from pairlab import cli
    from pairlab.reproduce import expected_time

    class Slow(MeanOfGMMs):
        name = "slow-demo"
        run_time = "Measured: 12 min wall (demo)."

    slow = Slow()
    line = expected_time(slow, None)
    assert line is not None and "12 min wall" in line and "slow-demo" in line
    assert expected_time(slow, 3) is None  # --quick and --trials say how many: no estimate
    assert expected_time(MeanOfGMMs(), None) is None  # nothing measured, nothing printed

    import pairlab.reproduce as rp
    from pairlab.registry import get_registry

    class Stop(Exception):
        pass

    def stop(*_a, **_k):
        raise Stop

    monkeypatch.setattr(rp, "reproduce", stop)  # the line must come before any trial runs
    ppc10 = get_registry().reproduction("ppc-fig10")
    with pytest.raises(Stop):
        cli.main(["reproduce", "ppc-fig10", "--out", "/nonexistent-never-written"])
    assert ppc10.run_time in capsys.readouterr().err


def test_a_measured_time_names_no_other_recipe():
    """A recipe's announced time is its own: a subclass (shental-fig7 of shental-fig5) must not
    inherit a measurement of its parent that names the parent's command."""
    import re

    from pairlab.registry import get_registry

    reg = get_registry()
    names = set(reg.names("reproductions"))
    for name in names:
        said = names & set(re.findall(r"pairlab reproduce ([\w-]+)", reg.reproduction(name).run_time))
        assert said <= {name}, f"{name}'s run_time names the command of {sorted(said - {name})}"
