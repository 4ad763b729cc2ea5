"""The paper reproductions (GM-PR Figs. 3, 6, 7, 8 and PPC Fig. 2) in quick mode, and the CLI.

Claims may or may not hold (a claim that does not reproduce is a documented finding); these
tests check that every claim is recorded with a measured value, that the outputs exist, that the
PNG is a real figure, and that ``--check`` turns a failed claim into exit status 3.
"""

import json

import numpy as np
import pytest

pytest.importorskip("PySide6")
from PIL import Image

from pairlab import cli, get_registry, hookimpl
from pairlab.draw.palette import OKABE_ITO
from pairlab.reproduce import reproduce
from pairlab.reproduction import Claim, Reproduction, ReproductionResult

pytestmark = pytest.mark.gui


def _pixels(path):
    return np.asarray(Image.open(path).convert("RGB"), dtype=float)


def _share(px, rgb, tol=40):
    return (np.abs(px - np.array(rgb, float)).sum(axis=2) < tol).mean()


def _check_outputs(doc, out, name, *, colours=True):
    for suffix in ("json", "png", "svg"):
        assert (out / f"{name}.{suffix}").is_file(), suffix
    assert json.loads((out / f"{name}.json").read_text())["name"] == name
    assert doc["claims"], "a recipe states the paper's claims"
    for claim in doc["claims"]:
        assert claim["measured"] is not None and claim["statement"]
        assert isinstance(claim["held"], bool)
    assert doc["all_claims_held"] == all(c["held"] for c in doc["claims"])
    px = _pixels(out / f"{name}.png")
    assert px.shape[1] > 1000 and px.std() > 20  # a real, wide figure, not a blank canvas
    if colours:  # both class colours at full strength: points were drawn and classified
        assert _share(px, OKABE_ITO[0]) > 5e-4 and _share(px, OKABE_ITO[1]) > 5e-4
    assert (out / f"{name}.svg").read_text().lstrip().startswith("<?xml")


def test_list_names_every_recipe(capsys):
    assert cli.main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("fig3", "fig6", "fig7", "fig8", "ppc-fig2"):
        assert any(line.split()[0] == name for line in out.splitlines() if line.strip()), name
    assert "gmpr-fig3" in out and "gmpr-fig8" in out


class _Tiny(Reproduction):
    name = "tiny-check"
    title = "a recipe whose second claim fails"
    default_trials = 2

    def trial(self, index, seed, options):
        return {"value": float(np.random.default_rng(seed).random())}

    def summarize(self, trials, options):
        return ReproductionResult({"values": [t["value"] for t in trials]})

    def claims(self, result):
        v = result.data["values"]
        return [Claim("in_range", "values lie in [0, 1)", v, all(0 <= x < 1 for x in v)),
                Claim("impossible", "a value exceeds 1", max(v), max(v) > 1)]


class _TinyPlugin:
    @hookimpl
    def pairlab_reproductions(self):
        return [_Tiny()]


def test_check_exits_3_when_a_claim_fails(tmp_path, capsys):
    get_registry().register(_TinyPlugin(), name="tiny-plugin")
    args = ["reproduce", "tiny-check", "--out", str(tmp_path), "--jobs", "1", "--no-render"]
    assert cli.main(args) == 0
    assert cli.main([*args, "--check"]) == 3
    err = capsys.readouterr()
    assert "NOT HELD" in err.out and "did not hold" in err.err
    doc = json.loads((tmp_path / "tiny-check.json").read_text())
    assert [c["held"] for c in doc["claims"]] == [True, False]


def test_fig8_quick(tmp_path):
    recipe = get_registry().reproduction("gmpr-fig8")
    doc = reproduce(recipe, tmp_path, trials=3, jobs=1, progress=None)
    _check_outputs(doc, tmp_path, "fig8")
    data = doc["data"]
    assert set(data["figure_misassigned"]) == {"gmm", "gmpr_1", "gmpr_2"}
    assert 0 <= data["figure_trial"] < 3
    # the figure is one of the trials, re-run from its seed
    shown = data["trials"][data["figure_trial"]]
    panels = {p["key"]: p for p in data["figure"]}
    for key in ("gmm", "gmpr_1", "gmpr_2"):
        assert panels[key]["misassigned"] == shown[key]["misassigned"]
    assert panels["gmpr_2"]["algorithm"] == "gmpr-mixture"
    assert len(panels["gmpr_2"]["class_of_component"]) == 4
    assert {c["name"] for c in doc["claims"]} >= {"gmpr2_zero", "gmpr1_le_gmm"}
    printed = {c["name"]: c for c in doc["claims"] if "tolerance" in c}
    assert {n: c["paper"] for n, c in printed.items()} == {
        "misassigned_gmm": 3, "misassigned_gmpr_1": 2, "misassigned_gmpr_2": 0}
    for key in ("gmm", "gmpr_1", "gmpr_2"):
        c = printed[f"misassigned_{key}"]
        assert c["measured"] == pytest.approx(data["trial_misassigned_mean"][key])
        assert c["runs"] == len(data["trials"]) and c["held"] == (abs(c["difference"]) <= c["tolerance"])
    assert (tmp_path / "fig8.csv").read_text().startswith("curve,column,index,value")


def test_fig3_quick(tmp_path):
    recipe = get_registry().reproduction("gmpr-fig3")
    doc = reproduce(recipe, tmp_path, trials=2, jobs=1, progress=None)
    _check_outputs(doc, tmp_path, "fig3")
    data = doc["data"]
    assert [p["key"] for p in data["figure"]] == ["data", "gmm", "gmpr_ml_cl", "gmpr_ml", "gmpr_cl"]
    panels = {p["key"]: p for p in data["figure"]}
    # (c) uses both kinds of link, (d) only the must-links, (e) only the cannot-links
    assert len(panels["gmpr_ml_cl"]["must_link"]) == 2 and len(panels["gmpr_ml_cl"]["cannot_link"]) == 2
    assert len(panels["gmpr_ml"]["cannot_link"]) == 0 and len(panels["gmpr_cl"]["must_link"]) == 0
    for key in ("gmm", "gmpr_ml_cl", "gmpr_ml", "gmpr_cl"):
        assert data["figure_purity"][key] == panels[key]["purity"]
        assert 0.5 <= data["figure_purity"][key] <= 1.0
    claims = {c["name"]: c for c in doc["claims"]}
    assert claims["gmm_wrong"]["measured"] == data["figure_purity"]["gmm"]
    assert set(data["trial_found_rate"]) >= {"gmm", "gmpr_ml_cl", "gmpr_ml", "gmpr_cl", "fixed_start_gmpr_ml"}
    assert all(len(t["must_link"]) == 2 and len(t["cannot_link"]) == 2 for t in data["trials"])
    # any single trial can be re-run alone from its seed
    assert recipe.trial(1, doc["trial_seeds"][1], {}) == data["trials"][1]


@pytest.mark.parametrize("name", ["fig4", "fig6", "fig7"])
def test_purity_curves_quick(tmp_path, name):
    recipe = get_registry().reproduction(name)
    options = {"data_dir": str(tmp_path / "no-uci"), "counts": [0, 20]}
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options=options, progress=None)
    _check_outputs(doc, tmp_path, name, colours=True)
    sets = doc["data"]["sets"]
    assert "not found" in sets["haberman"]["skipped"] and "not found" in sets["thyroid"]["skipped"]
    for key in ("digits123", "digits4567"):
        entry = sets[key]
        assert entry["counts"] == [0, 20] and entry["n_features"] == 2
        for method in ("gmpr", "gmm_ec"):
            assert all(0 < v <= 1 for v in entry[method]["mean"])
    text = (tmp_path / f"{name}.csv").read_text()
    assert "digits123_gmpr,mean" in text and "digits4567_gmm_ec,std" in text
    assert any("MNIST" in note for note in doc["notes"])


def test_fig7_draws_em_pc_with_the_papers_two_statements(tmp_path):
    """GM-PR's Fig. 7 has EM-PC as its third method: a curve per digits set, the paired
    comparison with GM-PR at every count and the "worse with more classes" claim, each with the
    rule that can fail (with one trial the standard errors are infinite: nothing can hold)."""
    recipe = get_registry().reproduction("fig7")
    options = {"data_dir": str(tmp_path / "no-uci"), "counts": [0, 24]}
    doc = reproduce(recipe, tmp_path, trials=2, jobs=1, options=options, progress=None,
                    render=False)
    for key in ("digits123", "digits4567"):
        entry = doc["data"]["sets"][key]
        assert all(0 < v <= 1 for v in entry["em_pc"]["mean"])
        # without links EM-PC is gmm from the same start, like GM-PR and GMM-EC
        assert [t[key][0]["em_pc"] for t in doc["data"]["trials"]] == [
            t[key][0]["gmpr"] for t in doc["data"]["trials"]]
    claims = {c["name"]: c for c in doc["claims"]}
    assert {"digits123_gmpr_vs_empc", "digits4567_gmpr_vs_empc",
            "empc_worse_with_more_classes"} <= set(claims)
    s4, s3, margin = claims["empc_worse_with_more_classes"]["measured"]
    assert claims["empc_worse_with_more_classes"]["held"] == (s4 - s3 > margin)
    one = reproduce(recipe, tmp_path / "one", trials=1, jobs=1, options=options, progress=None,
                    render=False)
    assert not {c["name"]: c for c in one["claims"]}["empc_worse_with_more_classes"]["held"]


def test_purity_curves_read_uci_files_from_data_dir(tmp_path):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (30, 3)), rng.normal(4, 1, (30, 3))])
    rows = [",".join(f"{v:.4f}" for v in x) + f",{1 + (i >= 30)}" for i, x in enumerate(X)]
    (tmp_path / "haberman.data").write_text("\n".join(rows) + "\n")
    recipe = get_registry().reproduction("fig6")
    options = {"data_dir": str(tmp_path), "counts": [0, 10]}
    doc = reproduce(recipe, tmp_path / "out", trials=1, jobs=1, options=options, progress=None,
                    render=False)
    entry = doc["data"]["sets"]["haberman"]
    assert entry["n_samples"] == 60 and entry["n_classes"] == 2 and entry["n_features"] == 3
    assert entry["gmpr"]["mean"][0] > 0.9  # two well separated blobs
    assert any(c["name"] == "haberman_outperforms" for c in doc["claims"])
    size = {c["name"]: c for c in doc["claims"]}["haberman_size"]  # the paper's 306, 3, 2
    assert size["paper"] == [306, 3, 2] and size["measured"] == [60, 3, 2] and not size["held"]


def test_ppc_fig2(tmp_path):
    recipe = get_registry().reproduction("ppc-fig2")
    doc = reproduce(recipe, tmp_path, trials=3, jobs=1, progress=None)
    _check_outputs(doc, tmp_path, "ppc-fig2")
    data = doc["data"]
    assert len(data["figure"]) == 12  # 3 weights x 4 snapshots
    assert data["snapshots"] == [1, 3, 5, 20]
    for key in ("w=0", "w=1.3", "w=3"):
        assert len(data["trajectories"][key]["purity"]) == 21  # iterations 0..20
        assert len(data["snapshot_purity"][key]) == 4
    assert len(data["sensitivity"]) == 3 and data["draws"] == []  # 3 trials: grid cells only
    assert data["drawn_cell"] == {"n_per_blob": 25, "spread": 1.0}
    # the drawn setting separates the rows (at 200 points, spread 0.6 all 12 panels were alike)
    assert data["final_purity"]["w=3"] > 0.9 > 0.7 > data["final_purity"]["w=0"]
    claims = {c["name"]: c for c in doc["claims"]}
    assert set(claims) == {"w0_wrong", "w1.3_wrong", "w1.3_slower", "w3_intended", "pattern_typical"}
    # without fresh draws the typicality claim cannot be judged: it does not hold
    assert claims["pattern_typical"]["measured"] == [0.0, 0] and not claims["pattern_typical"]["held"]


def test_shental_fig1(tmp_path):
    recipe = get_registry().reproduction("shental-fig1")
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, progress=None)
    _check_outputs(doc, tmp_path, "shental-fig1")
    mean = doc["data"]["mean"]
    # the stand-in of (a) has the paper's property: the horizontal split is the likelier GMM fit
    assert mean["a"]["em_loglik"] > mean["a"]["truth_loglik"]
    assert mean["a"]["cem_loglik_of_truth"] > mean["a"]["cem_loglik_of_em_fit"]
    assert len(doc["data"]["figure"]) == 4
    assert {c["name"] for c in doc["claims"]} >= {"a_ml_is_horizontal", "b_constraints_recover"}
    # the caption's log-likelihoods as printed claims (printed to the hundred, one illustration)
    printed = {c["name"]: c for c in doc["claims"] if "tolerance" in c}
    assert {n: c["paper"] for n, c in printed.items()} == {
        "a_loglik_horizontal": -2800, "a_loglik_vertical": -3500, "a_loglik_gap": 700}
    assert printed["a_loglik_horizontal"]["measured"] == pytest.approx(mean["a"]["em_loglik"])
    assert printed["a_loglik_gap"]["measured"] == pytest.approx(
        mean["a"]["em_loglik"] - mean["a"]["truth_loglik"])


def test_shental_fig5_quick(tmp_path):
    recipe = get_registry().reproduction("shental-fig5")
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, progress=None)
    _check_outputs(doc, tmp_path, "shental-fig5")
    table = doc["data"]["table"]
    assert set(table) >= {"wine", "iris", "breast-cancer"}
    for levels in table.values():
        for stats in levels.values():
            for key in ("kmeans", "em", "cem_pos", "cem_both"):
                assert 0.0 < stats[key]["mean"] <= 1.0 and stats[key]["n"] == 1
    # the teachers constrain about the share of points the paper names
    shares = [table[n][lv]["constrained_share"] for n in table for lv in ("0.15", "0.3")]
    assert all(abs(s - t) < 0.08 for s, t in zip(shares, [0.15, 0.3] * len(table), strict=True))
    assert any("balance" in s and "skipped" in s for s in doc["data"]["skipped"])
    # constrained K-means failures are counted per cell, shown and carried into the claims
    claims = {c["name"]: c for c in doc["claims"]}
    assert {"cem_beats_ckm", "ckm_improves_kmeans"} <= set(claims)
    for name in ("cem_beats_ckm", "ckm_improves_kmeans"):
        assert "two standard errors" in claims[name]["statement"]
        assert claims[name]["measured"]["of"] == 2 * len(table)
    for levels in table.values():
        for stats in levels.values():
            ckm = stats["ckm_both"]
            assert ckm["failed"] + ckm["n"] == len(ckm["runs"]) == 1
    assert any("Constrained K-means runs that failed" in n for n in doc["notes"])


@pytest.mark.parametrize("name", ["ppc-fig6", "ppc-fig9"])
def test_ppc_relation_curves_quick(tmp_path, name):
    recipe = get_registry().reproduction(name)
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options={"quick": True, "data_dir": None},
                    progress=None)
    _check_outputs(doc, tmp_path, name, colours=False)
    for s in doc["data"]["sets"].values():
        assert s["relations"][0] == 0 and len(s["relations"]) == 3
        for col in ("trn_ppc", "tst_ppc", "trn_cem", "tst_cem"):
            assert all(0.0 <= v <= 1.0 for v in s[col])
        # the difference curve is PPC minus constrained EM, point by point
        assert np.allclose(s["delta_trn"], np.subtract(s["trn_ppc"], s["trn_cem"]))
    if name == "ppc-fig9":
        assert any("Waveform" in n and "skipped" in n for n in doc["notes"])


def test_ppc_fig8_gain_rule_is_paired_over_the_nonzero_counts():
    from pairlab_builtins.reproductions.ppc_relations import GAIN_SHARE, _gain_rule

    base = [0.60, 0.62, 0.58, 0.61]
    runs = [base, [b + 0.001 * (-1) ** i for i, b in enumerate(base)],  # 10: no clear gain
            [b + 0.05 for b in base], [b + 0.08 + 0.01 * i for i, b in enumerate(base)]]
    sets = {"s": {"relations": [0, 10, 50, 100], "runs": {"trn_ppc": runs}}}
    claim = _gain_rule(sets, "g", "gain", "trn_ppc")
    assert claim.measured["s"]["significant"] == 2 and claim.measured["s"]["at"] == [10, 50, 100]
    assert claim.held == (2 / 3 >= GAIN_SHARE) and "of the budgets" in claim.statement
    runs[3] = [float("nan")] * 4  # every run at 100 failed: counted, not significant
    failed = _gain_rule(sets, "g", "gain", "trn_ppc").measured["s"]
    assert failed["failed"][2] == "4 / 4" and failed["significant"] == 1


def test_ppc_fig12_quick(tmp_path):
    recipe = get_registry().reproduction("ppc-fig12")
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options={"quick": True}, progress=None)
    _check_outputs(doc, tmp_path, "ppc-fig12", colours=False)
    mean = doc["data"]["mean"]
    assert set(mean) == {"gmm", "gibbs", "mean_field"}
    assert all(0 < m["accuracy"] <= 1 and m["seconds"] > 0 for m in mean.values())
    assert len(doc["data"]["figure"]) == 4
    speed = next(c for c in doc["claims"] if c["name"] == "speedup_ratio")
    assert speed["paper"] == 50 and speed["runs"] == 1 and speed["tolerance"] == "nan"
    assert speed["measured"] == pytest.approx(mean["gibbs"]["seconds"] / mean["mean_field"]["seconds"])


@pytest.mark.parametrize("name", ["shental-fig7", "ppc-fig11", "fig9"])
def test_recipes_needing_private_data_say_they_are_skipped(tmp_path, name):
    recipe = get_registry().reproduction(name)
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options={"data_dir": str(tmp_path)},
                    progress=None)
    assert any("skipped" in n and "not found" in n for n in doc["notes"])
    assert doc["claims"] == []


def test_shental_fig7_compares_the_captions_failure_bound_with_the_faces(tmp_path):
    """With a yaleb.npz in --data-dir (here a small stand-in: 10 classes of 12 points) the
    caption's "failed to converge in more than half of its runs" is a printed bound per kind."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(10), 12)
    np.savez(tmp_path / "yaleb.npz", X=rng.standard_normal((120, 6)) + 0.8 * y[:, None], y=y)
    recipe = get_registry().reproduction("shental-fig7")
    doc = reproduce(recipe, tmp_path / "out", trials=2, jobs=1,
                    options=recipe.options({"data_dir": str(tmp_path)}),
                    progress=None, render=False)
    bounds = {c["name"]: c for c in doc["claims"] if c["name"].endswith("fails_most_at_75")}
    assert set(bounds) == {"ckm_pos_fails_most_at_75", "ckm_both_fails_most_at_75"}
    for c in bounds.values():
        failed = doc["data"]["table"]["yaleb"]["0.75"]["ckm_" + c["name"].split("_")[1]]["failed"]
        assert c["paper"] == 0.5 and c["measured"] == pytest.approx(failed / 2) and c["runs"] == 2
        assert c["held"] == (c["difference"] >= -c["tolerance"])


def test_fig9_skipped_message_says_what_to_put_in_data_dir(tmp_path):
    recipe = get_registry().reproduction("gmpr-fig9")
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options={"data_dir": None},
                    progress=None)
    note = doc["data"]["skipped"]
    assert note.startswith("skipped:") and "no --data-dir given" in note
    for form in ("coil-20-proc", "coil-20-proc.zip", "coil20.npz", "--data-dir"):
        assert form in note
    assert doc["files"] == []


def test_fig9_quick_on_a_synthetic_coil_folder(tmp_path):
    """Fig. 9 on a stand-in for coil-20-proc (3 objects x 24 poses of generated 64x64 PNGs): three
    panels d = 10, 15, 20, each with GM-PR, SSKK and CSC at every count, purities in [0, 1]."""
    from .helpers import write_fake_coil

    write_fake_coil(tmp_path / "data" / "coil-20-proc", n_objects=3, n_poses=24, size=64)
    recipe = get_registry().reproduction("gmpr-fig9")
    options = {"data_dir": str(tmp_path / "data"), "counts": [0, 40]}
    doc = reproduce(recipe, tmp_path / "out", trials=1, jobs=1, options=options, progress=None)
    _check_outputs(doc, tmp_path / "out", "fig9", colours=True)
    sets = doc["data"]["sets"]
    assert list(sets) == ["d10", "d15", "d20"]
    trial = doc["data"]["trials"][0]
    for d in (10, 15, 20):
        entry = sets[f"d{d}"]
        assert entry["n_features"] == d and entry["n_samples"] == 72 and entry["n_classes"] == 3
        assert entry["counts"] == [0, 40]
        for method in ("gmpr", "sskk", "csc"):
            assert all(0 < v <= 1 for v in entry[method]["mean"]), (d, method)
        rows = trial[f"d{d}"]
        assert [r["count"] for r in rows] == [0, 40]
        # the three methods ran on the same links: the trial records one fit seed per count
        assert all({"gmpr", "sskk", "csc", "gmpr_iterations"} <= set(r) for r in rows)
    claims = {c["name"]: c for c in doc["claims"]}
    assert set(claims) == {f"d{d}_beats_{m}" for d in (10, 15, 20) for m in ("sskk", "csc")}
    for d in (10, 15, 20):  # the claim's measured value is the smallest gap at 0 < count <= 1000
        gap = sets[f"d{d}"]["gmpr"]["mean"][1] - sets[f"d{d}"]["sskk"]["mean"][1]
        assert claims[f"d{d}_beats_sskk"]["measured"] == pytest.approx(gap)
        assert claims[f"d{d}_beats_sskk"]["held"] == (gap > 0)
    assert any("72 images of 3 objects" in n for n in doc["notes"])


def test_ppc_fig10_quick(tmp_path):
    recipe = get_registry().reproduction("ppc-fig10")
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options={"data_dir": None, "quick": True},
                    progress=None)
    _check_outputs(doc, tmp_path, "ppc-fig10", colours=True)
    table = doc["data"]["table"]
    assert {"set1", "set2", "set3", "iris"} <= set(table)
    for entry in table.values():
        # the GMM and K-means do not see the relations: the same accuracy at both noise levels
        assert entry["0.15"]["gmm"]["mean"] == entry["0.3"]["gmm"]["mean"]
        assert entry["0.15"]["kmeans"]["mean"] == entry["0.3"]["kmeans"]["mean"]
        assert 0 < entry["0.3"]["soft_ppc"]["mean"] <= 1

# -- issue 19: SCSSAP, RDP-means tables, the index page -------------------------------------------
def test_scssap_curves_quick(tmp_path):
    recipe = get_registry().reproduction("scssap-fig5")
    options = {"data_dir": None, "quick": True, "budgets": [30], "only": ["iris"]}
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options=options, progress=None)
    _check_outputs(doc, tmp_path, "scssap-fig5", colours=False)
    data = doc["data"]
    assert data["datasets"] == ["iris"] and data["levels"] == [0.1, 0.2]
    penalties = [m for m in data["methods"] if m.startswith("SCSSAP")]
    assert len(penalties) == 5 and "AP" in data["methods"]
    for d in data["datasets"]:  # AP ignores links: the same clustering at every noise level
        aps = {data["table"][d][f"{lv:g}"]["AP"]["mean"][0] for lv in data["levels"]}
        assert len(aps) == 1 and 0 < aps.pop() <= 1
    have = set(get_registry().names("algorithms"))
    missing = [m for m in ("ssap-g", "ssap-l") if m not in have]
    assert data["not_registered"] == missing
    assert any(n.startswith("not registered") for n in doc["notes"]) == bool(missing)
    assert sum("skipped, no --data-dir" in n for n in doc["notes"]) == 5
    assert {c["name"] for c in doc["claims"]} >= {"beats_ap_0.1", "beats_ap_0.2"}
    # whole-curve rule, paired trial by trial; one trial has no spread: not significant
    beats = next(c for c in doc["claims"] if c["name"] == "beats_ap_0.1")
    assert "two standard errors at every budget" in beats["statement"]
    assert beats["measured"]["iris"]["of"] == 1 and beats["measured"]["iris"]["at"] == [30]
    assert beats["measured"]["iris"]["significant"] == 0 and not beats["held"]
    entry = data["table"]["iris"]["0.1"]["AP"]
    assert len(entry["runs"]) == 1 and entry["runs"][0] == [entry["mean"][0]]
    px = _pixels(tmp_path / "scssap-fig5.png")
    assert _share(px, (213, 40, 40)) > 1e-4  # AP's red curve is drawn


def test_consistent_links_drops_the_cannot_links_inside_chunklets():
    """What scssap-fig6 gives constrained EM from contradictory links: the cannot-links whose
    points the must-link closure joins are dropped, the rest kept; constrained EM refuses the
    original set and runs on the kept one."""
    from pairlab_builtins.reproductions.scssap_em_metric import consistent_links, noisy_links

    from pairlab import Constraints, Dataset, Run
    from pairlab.errors import InconsistentConstraintsError

    links = Constraints([[0, 1], [1, 2]], [[0, 2], [3, 4], [2, 5]], n_samples=6)
    kept, dropped = consistent_links(links)
    assert dropped == 1 and kept.is_consistent
    assert kept.must_link.tolist() == [[0, 1], [1, 2]]
    assert kept.cannot_link.tolist() == [[3, 4], [2, 5]]
    assert consistent_links(kept) == (kept, 0)
    X = np.array([[0.0, 0], [0.1, 0], [0.2, 0], [5, 5], [5.1, 5], [9, 0]])
    data = Dataset(X, np.array([0, 0, 0, 1, 1, 2]))
    with pytest.raises(InconsistentConstraintsError, match="must-linked through the chain"):
        Run("constrained-em", data, links, {"n_components": 3}, seed=0)
    labels = Run("constrained-em", data, kept, {"n_components": 3}, seed=0).run().labels
    assert labels[0] == labels[1] == labels[2] != labels[5] and labels[3] != labels[4]
    # the three conditions of a point share their pairs; only the label noise changes their types
    y = np.repeat([0, 1, 2], 50)
    sets = {k: noisy_links(y, 200, k, lv, 7) for k, lv in (("none", 0), ("link", .05), ("label", .1))}
    pairs = {k: sorted(map(tuple, np.vstack([c.must_link, c.cannot_link]).tolist()))
             for k, c in sets.items()}
    assert pairs["none"] == pairs["link"] == pairs["label"]
    flipped = len({tuple(p) for p in sets["none"].must_link.tolist()}
                  ^ {tuple(p) for p in sets["link"].must_link.tolist()})
    assert flipped == 10 and sets["label"].is_consistent


@pytest.mark.filterwarnings("ignore:constrained-em:UserWarning")
def test_scssap_fig6_quick(tmp_path):
    """scssap-fig6: constrained EM gets the k SCSSAP found at exp(-q) = 0 on the same links (re-
    derived here) and, under constraint noise, the links without the contradicting cannot-links."""
    from pairlab_builtins.reproductions.scssap_em_metric import (
        CEM_EXACT_WORK,
        consistent_links,
        noisy_links,
    )

    from pairlab import Run
    from pairlab.reproduce import trial_seed
    from pairlab.sweep.grid import derive_seed

    recipe = get_registry().reproduction("scssap-fig6")
    options = {"data_dir": None, "quick": True, "budgets": [200], "only": ["iris"]}
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options=options, progress=None)
    for suffix in ("json", "png", "svg", "csv"):
        assert (tmp_path / f"scssap-fig6.{suffix}").is_file(), suffix
    assert all(c["measured"] is not None and isinstance(c["held"], bool) for c in doc["claims"])
    data = doc["data"]
    assert data["datasets"] == ["iris"] and data["cem_k_is_scssap_k"] and data["cem_failed"] == 0
    table = data["table"]["iris"]
    # the noise handling: only the flipped pairs contradict, and only there is something dropped
    assert table["link"]["dropped_cannot_links"][0] >= 1
    assert table["none"]["dropped_cannot_links"] == table["label"]["dropped_cannot_links"] == [0]
    assert any("were dropped for constrained EM only" in n for n in doc["notes"])
    seed = trial_seed(0, "scssap-fig6", 0)
    iris = get_registry().dataset("iris").make(seed=0)
    mr = get_registry().metric("modified-rand").func
    for kind, level in (("none", 0.0), ("link", 0.05)):
        links = noisy_links(iris.y, 200, kind, level, derive_seed(seed, "links|iris|200", 0))
        fit_seed = derive_seed(seed, "fit|iris", 0)
        scssap = Run("scssap", iris, links, {"damping": 0.75, "q_ml": np.inf, "q_cl": np.inf},
                     seed=fit_seed).run()
        k = np.unique(scssap.labels).size
        assert table[kind]["k"] == [k]
        assert table[kind]["SCSSAP exp(-q)=0"]["mean"] == [mr(iris.y, scssap.labels)]
        kept, dropped = consistent_links(links)
        assert (dropped > 0) == (kind == "link")
        cem = Run("constrained-em", iris, kept, {"n_components": int(k),
                                                 "max_exact_work": CEM_EXACT_WORK},
                  seed=fit_seed).run()
        assert table[kind]["constrained EM"]["mean"] == [mr(iris.y, cem.labels)]
    names = {c["name"] for c in doc["claims"]}
    assert names == {"noiseless_at_least_cem", "constraint_noise_beats_cem",
                     "label_noise_beats_cem", "more_accurate_than_cem"}
    px = _pixels(tmp_path / "scssap-fig6.png")
    panel = px[:, : px.shape[1] * 2 // 3]  # the key (its red and blue samples) is right of the panel
    red, blue = (round(_share(panel, rgb) * panel.shape[0] * panel.shape[1])
                 for rgb in ((213, 40, 40), (0, 90, 200)))
    assert red >= 40 and blue >= 40, (red, blue)  # the noisy runs' markers are drawn (~100 px each)


def test_scssap_fig7_quick(tmp_path):
    """scssap-fig7: plain SCSSAP and four metric learning variants; soybean from --data-dir (a
    made-up file of the UCI layout here) or a clear "skipped"."""
    from pairlab_builtins.reproductions.scssap import uci_sets
    from pairlab_builtins.reproductions.scssap_em_metric import FIG7_FILES

    _found, skipped = uci_sets(None, FIG7_FILES)
    assert skipped[0] == ("soybean: skipped, no --data-dir given (looked for soybean-small.csv "
                          "or soybean-small.data)")
    # soybean-small's layout: 35 integer features, class D1-D4 last, no header; feature 5 is
    # constant, so eq. 32 gives a single g-bar metric all its weight there (section 5.3's remark)
    rng = np.random.default_rng(0)
    rows = []
    for c in range(4):
        for _ in range(12):
            x = rng.integers(0, 3, 35)
            x[5] = 0
            x[3 * c:3 * c + 3] += 3
            rows.append(",".join(map(str, x)) + f",D{c + 1}")
    (tmp_path / "soybean-small.data").write_text("\n".join(rows) + "\n")
    recipe = get_registry().reproduction("scssap-fig7")
    options = {"data_dir": str(tmp_path), "quick": True, "budgets": [100],
               "only": ["iris", "soybean (standardised)"]}
    out = tmp_path / "out"
    doc = reproduce(recipe, out, trials=1, jobs=1, options=options, progress=None)
    _check_outputs(doc, out, "scssap-fig7", colours=False)
    data = doc["data"]
    assert data["datasets"] == ["iris", "soybean (standardised)"]
    variants = ["g-bar, single metric", "g-bar, per cluster", "g-hat, single metric",
                "g-hat, per cluster"]
    assert data["methods"] == ["SCSSAP", *variants]
    for d in data["datasets"]:
        plain = data["table"][d]["0"]["SCSSAP"]["mean"][0]
        assert any(data["table"][d]["0"][v]["mean"][0] != plain for v in variants)
    claims = {c["name"]: c for c in doc["claims"]}
    assert set(claims) == {"iris_great_gain", "soybean_great_gain", "soybean_single_gbar_worse"}
    assert claims["soybean_single_gbar_worse"]["held"]  # all weight on the constant feature
    assert not any(n.startswith("soybean: skipped") for n in doc["notes"])
    assert any(n.startswith("parkinsons: skipped, parkinsons.csv") for n in doc["notes"])
    px = _pixels(out / "scssap-fig7.png")
    assert _share(px, (0, 90, 200)) > 1e-4 and _share(px, (0, 150, 60)) > 1e-4  # blue and green


def test_rdp_tables_quick(tmp_path):
    recipe = get_registry().reproduction("rdp-table2")  # alias: one run gives Tables 1-3
    assert recipe.name == "rdp-table1"
    options = {"data_dir": None, "quick": True, "rates": [0.05], "ps": [1.0, 0.8]}
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options=options, progress=None,
                    render=False)
    data = doc["data"]
    assert {"kmeans", "dpmeans", "rdpmeans"} <= set(data["methods"])
    for reading in ("text", "code"):
        t = data["tables"][reading]
        assert set(t["table1"]) == {"iris", "average"} and set(t["table2"]) == {"1", "0.8"}
        # K-means ignores the side information: the same scores at every noise level
        assert t["table2"]["1"]["kmeans"] == t["table2"]["0.8"]["kmeans"]
        assert all(0 <= v <= 1 for v in t["table1"]["iris"]["rdpmeans"])
    links = {rd: data["tables"][rd]["mean_links"]["iris, r=0.05"] for rd in ("text", "code")}
    assert links["text"] == round(0.05 * 150 * 149 / 2) and 1.8 < links["code"] / links["text"] < 2.05
    assert doc["claims"][-1]["name"] == "reading"
    assert set(doc["claims"][-1]["measured"]) == {"agree", "mean_distance"}
    # the paper's five-set average is not set against an average over iris alone
    assert all(c["paper"] is None for c in doc["claims"] if c["name"].startswith("rdp_best"))
    # every printed Table 1 cell of iris, under both readings, with difference and tolerance
    from pairlab_builtins.reproductions.rdpmeans import PAPER_TABLE1

    printed = {c["name"]: c for c in doc["claims"] if "tolerance" in c
               and c["name"].startswith("table1_") and "_average_" not in c["name"]}
    assert len(printed) == 2 * len(data["methods"]) * 3
    # the "averaged over datasets" row, cell by cell: over iris alone an extension
    from pairlab_builtins.reproductions.rdpmeans import PAPER_TABLE1_AVERAGE

    average = {c["name"]: c for c in doc["claims"] if "_average_" in c["name"]}
    assert len(average) == len(printed)
    for name, c in average.items():
        same = printed[name.replace("_average_", "_iris_")]
        assert c["extension"] and "iris only" in c["statement"]
        assert c["measured"] == pytest.approx(same["measured"])
        key, metric = name.split("_")[3], name.split("_")[4]
        assert c["paper"] == PAPER_TABLE1_AVERAGE[key][("F", "ARI", "NMI").index(metric)]
    for reading in ("text", "code"):
        for j, metric in enumerate(("F", "ARI", "NMI")):
            for key in data["methods"]:
                c = printed[f"table1_{reading}_iris_{key}_{metric}"]
                assert c["paper"] == PAPER_TABLE1["iris"][key][j]
                assert c["measured"] == pytest.approx(data["tables"][reading]["table1"]["iris"][key][j])
                assert c["difference"] == pytest.approx(c["measured"] - c["paper"])
                # one trial: one run a setting, no spread to judge by
                assert c["runs"] == (1 if key in ("kmeans", "dpmeans") else 2)
                assert c["tolerance"] == "nan" and not c["held"]
    # Tables 2 and 3 cell by cell; over iris alone (the paper: five sets) they are extensions
    from pairlab_builtins.reproductions.rdpmeans import PAPER_TABLE2, PAPER_TABLE3

    claims = {c["name"]: c for c in doc["claims"]}
    for reading in ("text", "code"):
        for p in (1.0, 0.8):
            for j, metric in enumerate(("F", "ARI", "NMI")):
                for key in data["methods"]:
                    t2 = claims[f"table2_{reading}_p{p:g}_{key}_{metric}"]
                    t3 = claims[f"table3_{reading}_p{p:g}_r0.05_{key}_{metric}"]
                    assert t2["paper"] == PAPER_TABLE2[p][key][j]
                    assert t3["paper"] == PAPER_TABLE3[p][0.05][key][j]
                    assert t2["extension"] and t3["extension"] and "iris only" in t2["statement"]
                    # one rate: Table 3's cell is Table 2's
                    assert t2["measured"] == pytest.approx(t3["measured"])
                    assert t2["measured"] == pytest.approx(
                        data["tables"][reading]["table2"][f"{p:g}"][key][j])
    assert not any(n.startswith("table3_") and "r0.01" in n for n in claims)
    # qualitative claims: paired per trial over the settings (links_help) or the rates (noise)
    for reading in ("text", "code"):
        links = claims[f"links_help_{reading}"]
        assert links["measured"]["at"] == ["0.05|1", "0.05|0.8"] and "75%" in links["statement"]
        noise = claims[f"noise_hurts_{reading}"]
        assert noise["measured"]["at"] == [0.05] and "at every budget" in noise["statement"]
        tf = data["trial_F"][reading]
        assert noise["measured"]["mean"][0] == pytest.approx(
            tf["0.05|1"]["rdpmeans"][0] - tf["0.05|0.8"]["rdpmeans"][0])
        assert not links["held"] and not noise["held"]  # one trial: no standard error


def test_rdp_paper_tables_agree_with_each_other():
    """Transcription check: Table 2 is the mean of Table 3 over r (to the printed rounding)."""
    from pairlab_builtins.reproductions.rdpmeans import PAPER_TABLE2, PAPER_TABLE3

    for p, row in PAPER_TABLE2.items():
        for key, values in row.items():
            for j, v in enumerate(values):
                mean = np.mean([PAPER_TABLE3[p][r][key][j] for r in (0.01, 0.03, 0.05)])
                assert abs(mean - v) <= 0.011, (p, key, j)



def test_rdp_fig3_tells_each_method_k_minus_deviation(tmp_path):
    from pairlab.metrics import pairwise_f_measure

    recipe = get_registry().reproduction("rdp-erroneous-k")
    assert recipe.name == "rdp-fig3"
    options = {"data_dir": None, "quick": True, "rate": 0.03, "p": 1.0, "reading": "code",
               "deviations": [-2, 0, 1, 2, 3]}
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options=options, progress=None,
                    render=False)
    data = doc["data"]
    iris = data["table"]["iris"]
    k = iris["k"]
    assert k == 3 and iris["deviations"] == [-2, 0, 1, 2]  # k - 3 = 0 clusters: dropped
    assert {"kmeans", "dpmeans", "rdpmeans", "tvclust", "tvclust_wide"} <= set(data["methods"])
    assert set(iris["methods"]) == set(data["methods"])  # a curve per method
    told = {"kmeans": "n_clusters", "mpckmeans": "n_clusters", "lcvqe": "n_clusters",
            "dpmeans": "k", "rdpmeans": "k", "tvclust": "truncation"}
    for key, e in iris["methods"].items():
        assert e["declared"] == [k - dev for dev in e["deviation"]]
        for declared, params in zip(e["declared"], e["params"], strict=True):
            if key == "tvclust_wide":
                assert params == {"truncation": max(10, 2 * declared)}
            else:
                assert params[told[key]] == declared
    if "lcvqe" in iris["methods"]:  # the paper's LCVQE needs two clusters (footnote 8)
        assert iris["methods"]["lcvqe"]["deviation"] == [-2, 0, 1]
    # lambda follows k - deviation through farthest-first: larger for fewer clusters, the same rule
    # (and value) for DP-means and RDP-means
    lam = iris["methods"]["dpmeans"]["lambda"]
    assert lam == sorted(set(lam)) and lam == iris["methods"]["rdpmeans"]["lambda"]
    # told one cluster, K-means puts every point together
    one = pairwise_f_measure(get_registry().dataset("iris").make(seed=0).y, np.zeros(150, int))
    assert iris["methods"]["kmeans"]["F"][-1] == pytest.approx(one)
    assert iris["methods"]["kmeans"]["clusters"] == [5, 3, 2, 1]
    # T = max(10, 2k') is 10 at every deviation here: same links and seed, so the same clustering
    assert len(set(iris["methods"]["tvclust_wide"]["F"])) == 1
    names = [c["name"] for c in doc["claims"]]
    assert {"dpmeans_stable", "rdpmeans_stable", "tvclust_stable",
            "rdpmeans_less_sensitive_than_kmeans"} <= set(names)
    assert doc["claims"][names.index("tvclust_wide_stable")]["held"]


def test_rdp_fig4_rate_of_pairs(tmp_path):
    recipe = get_registry().reproduction("rdp-pairs-rate")
    assert recipe.name == "rdp-fig4"
    options = {"data_dir": None, "quick": True, "reading": "code", "rates": [0.0, 0.02, 0.1]}
    doc = reproduce(recipe, tmp_path, trials=1, jobs=1, options=options, progress=None,
                    render=False)
    data = doc["data"]
    assert data["datasets"] == ["digits-100", "iris"]  # ImageNet only from --data-dir
    assert any("imagenet: skipped" in n for n in doc["notes"])
    digits, iris = data["table"]["digits-100"], data["table"]["iris"]
    assert digits["divergence"] == "kl" and digits["n"] == 100 and iris["divergence"] == "sqeuclidean"
    # no pairs: RDP-means is DP-means; the code reading draws round(r n^2) ordered pairs
    assert digits["n_links"][0] == 0 and digits["same_as_dpmeans"][0] == 1.0
    assert digits["F"][0] == digits["DP-means F"][0]
    assert 900 < digits["n_links"][2] <= 1000
    assert len(set(digits["DP-means F"])) == 1  # DP-means ignores the pairs
    names = {c["name"] for c in doc["claims"]}
    assert {"digits-100_dpmeans_at_zero", "digits-100_increases", "iris_increases"} <= names

class _Broken(Reproduction):
    name = "broken-data"
    title = "a recipe whose data are missing"
    paper = "Nobody (2024), a paper"

    def trial(self, index, seed, options):
        return {}

    def summarize(self, trials, options):
        from pairlab.reproduction import ReproductionError

        raise ReproductionError("skipped: no --data-dir given (looked for nothing.csv)")


class _IndexPlugin:
    @hookimpl
    def pairlab_reproductions(self):
        return [_Tiny(), _Broken()]


def test_all_writes_an_index_whose_links_and_images_resolve(tmp_path, capsys):
    """`pairlab reproduce --all`: every recipe's files and index.html / index.md, per paper, with
    the figure next to the claims; every image and link on the page resolves (and, when chromium
    is installed, the page renders in a headless browser)."""
    import re
    import shutil
    import subprocess
    from html.parser import HTMLParser
    from types import SimpleNamespace

    from pairlab.reproduce import reproduce_all

    get_registry().register(_IndexPlugin(), name="index-plugin")
    args = SimpleNamespace(quick=False, trials=1, seed=0, jobs=1, scheduler=None, fresh=False,
                           data_dir=None, set=None, no_render=False, argv=["reproduce", "--all"])
    out = tmp_path / "all"
    names = ["fig8", "tiny-check", "broken-data", "shental-fig7"]
    entries = reproduce_all(out, args, names=names, progress=None)
    assert [e.name for e in entries] == names
    assert entries[2].doc is None and "nothing.csv" in entries[2].skipped
    # a recipe that runs but finds no data (it says so in data["skipped"]) is listed as skipped
    assert entries[3].doc is None and "yaleb.npz" in entries[3].skipped
    assert (out / "fig8" / "fig8.png").is_file() and (out / "tiny-check" / "tiny-check.json").is_file()

    class Links(HTMLParser):
        def __init__(self):
            super().__init__()
            self.refs, self.ids = [], set()

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if "id" in a:
                self.ids.add(a["id"])
            for key in ("src", "href"):
                if key in a:
                    self.refs.append((tag, a[key]))

    page = (out / "index.html").read_text()
    parser = Links()
    parser.feed(page)
    images = [ref for tag, ref in parser.refs if tag == "img"]
    assert images == ["fig8/fig8.png"]
    for _tag, ref in parser.refs:
        assert "://" not in ref and not ref.startswith("/"), ref  # opens without a server
        if ref.startswith("#"):
            assert ref[1:] in parser.ids, ref
        else:
            assert (out / ref).is_file(), ref
    assert set(names) <= parser.ids
    assert "2 recipe(s) ran, 2 skipped" in page
    # per paper: the figure comes before (beside) its claims table, then findings and provenance
    gmpr = page.index("<h2>Yu, Elhabian")  # the paper's section (the header names it too)
    assert gmpr < page.index('src="fig8/fig8.png"') < page.index("<table", gmpr)
    assert "NOT HELD" in page and "Not held: a value exceeds 1" in page
    assert "skipped: no --data-dir given (looked for nothing.csv)" in page and "Nobody (2024)" in page
    assert "load average" in page and "wall" in page
    md = (out / "index.md").read_text()
    md_refs = re.findall(r"\]\(([^)]+)\)", md)
    assert "fig8/fig8.png" in md_refs and all((out / r).is_file() for r in md_refs)
    assert "| **NOT HELD** | a value exceeds 1 |" in md
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:  # the page in a real browser: a non-blank screenshot with the figure loaded
        shot = tmp_path / "shot.png"
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        f"--screenshot={shot}", "--window-size=1200,900",
                        (out / "index.html").as_uri()], check=True, timeout=120,
                       capture_output=True)
        px = _pixels(shot)
        assert px.shape[:2] == (900, 1200) and px.std() > 20
        # the figure's curves/points in the palette's colours appear in the screenshot
        assert _share(px, OKABE_ITO[0], tol=60) > 1e-4


def test_all_refuses_a_name_too(capsys):
    assert cli.main(["reproduce", "--all", "fig3"]) == 2
    assert "either a reproduction NAME or --all" in capsys.readouterr().err


def test_active_iris_quick(tmp_path):
    """Active selection recipe: every strategy starts from the same fit (no query, same seed),
    each curve has a point per query, and the claims are extensions with the paired rule."""
    recipe = get_registry().reproduction("active-iris")
    doc = reproduce(recipe, tmp_path, trials=2, jobs=1, options=recipe.options({"quick": True}),
                    progress=None, render=False)
    sets = doc["data"]["sets"]
    assert set(sets) == {"iris", "wine"} and doc["data"]["queries"] == list(range(21))
    for entry in sets.values():
        starts = {round(entry[s]["mean"][0], 12) for s in entry}
        assert len(starts) == 1 and all(len(entry[s]["mean"]) == 21 for s in entry)
        assert all(0 <= v <= 1 for s in entry for v in entry[s]["mean"])
    claims = {c["name"]: c for c in doc["claims"]}
    assert set(claims) == {"iris_ec_beats_random", "wine_ec_beats_random"}
    assert all(c["extension"] and "two standard errors" in c["statement"] for c in claims.values())
    assert claims["iris_ec_beats_random"]["measured"]["at"] == [10, 20]
