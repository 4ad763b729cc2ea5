"""The reproduction framework with a small recipe defined here (the paper recipes test themselves)."""

import json

import numpy as np

from pairlab import Dataset, Run
from pairlab.reproduce import reproduce, trial_seed
from pairlab.reproduction import Claim, Reproduction, ReproductionResult


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
