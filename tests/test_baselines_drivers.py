"""The five baselines of issue 17 run from the command line and the estimator API."""

import json
import warnings

import numpy as np
import pytest

from pairlab import make_estimator
from pairlab.cli import main

BASELINES = ["ssap-g", "ssap-l", "sskk", "csc", "em-pc"]


@pytest.mark.parametrize("name", BASELINES)
def test_cli_run(name, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # ssap-l / em-pc announce ignored links
        assert main(["run", name, "--dataset", "two-moons", "--data", "n_samples=80",
                     "--must-link", "6", "--cannot-link", "6", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["algorithm"] == name and out["iterations"] >= 1
    assert 0.5 <= out["metrics"]["purity"] <= 1.0


@pytest.mark.parametrize("name", BASELINES)
def test_estimator(name):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 6])
    est = make_estimator(name, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        labels = est.fit_predict(X, must_link=[[0, 1]], cannot_link=[[0, 25]])
    assert labels.shape == (40,)
    assert labels[0] != labels[25] or name == "ssap-l"        # ssap-l uses must-links only
    assert labels[0] == labels[1] or name == "em-pc"          # em-pc uses cannot-links only


def test_sweep_spec(tmp_path):
    """The experiment engine drives all five from one spec."""
    import csv

    from pairlab.sweep import parse_spec, run_sweep

    spec = {"name": "baselines", "trials": 1, "metrics": ["ari"], "max_iter": 5,
            "algorithms": [{"name": n} for n in BASELINES],
            "datasets": [{"name": "two-moons", "params": {"n_samples": 40}}],
            "links": {"generator": "random", "budget": [6]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = run_sweep(parse_spec(spec), tmp_path, progress=None)
    rows = list(csv.DictReader(result.table.open()))
    assert sorted(r["method"] for r in rows) == sorted(BASELINES)
    assert all(r["error"] == "" for r in rows), [(r["method"], r["error"]) for r in rows]
