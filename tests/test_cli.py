import itertools
import json

import pytest

from pairlab.cli import main
from tests.helpers import run_cli


def test_version(capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "pairlab" in capsys.readouterr().out


def test_run_json(capsys):
    assert main(["run", "gmm", "--dataset", "two-moons", "--seed", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["algorithm"] == "gmm" and out["iterations"] >= 1
    assert 0.5 <= out["metrics"]["purity"] <= 1.0
    hist = out["objective_history"]
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(hist))


def test_run_with_links_and_params(capsys, tmp_path):
    assert main(["run", "kmeans", "--dataset", "gaussian-blobs", "--data", "n_centers=4",
                 "--set", "n_clusters=4", "--must-link", "5", "--cannot-link", "5"]) == 0
    text = capsys.readouterr().out
    assert "5 must-links, 5 cannot-links" in text and "constraints-satisfied" in text


def test_errors_are_one_line_messages(capsys):
    assert main(["run", "gmm", "--dataset", "two-moons", "--set", "n_component=2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pairlab: error: Unknown parameter 'n_component'") and "Traceback" not in err
    assert main(["run", "gmx", "--dataset", "two-moons"]) == 1
    assert "Did you mean 'gmm'" in capsys.readouterr().err


@pytest.mark.ci  # starts Python processes
def test_console_script_entry_point():
    out = run_cli("list")
    assert out.returncode == 0 and "gmm" in out.stdout and "two-moons" in out.stdout
