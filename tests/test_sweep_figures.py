"""Sweep figures: drawn with pairlab.render from the summary; --report redraws from the table."""

import shutil

import numpy as np
import pytest

pytest.importorskip("PySide6")
from PIL import Image

from pairlab import cli

pytestmark = pytest.mark.gui


def test_report_redraws_figures_from_the_table_without_recomputing(tmp_path):
    out = tmp_path / "run"
    args = ["sweep", "--name", "s", "--algorithm", "gmm", "--algorithm", "gmpr",
            "--set", "n_components=2", "--dataset", "two-moons", "--data", "n_samples=30",
            "--generator", "random", "--budget", "0,3", "--trials", "2", "--jobs", "1",
            "--out", str(out)]
    assert cli.main([*args, "--no-render"]) == 0
    assert not list(out.glob("*.png"))
    shutil.rmtree(out / ".trials")  # the report must not need (or recompute) any trial
    summary = (out / "s-summary.csv").read_text()
    (out / "s-summary.csv").unlink()
    assert cli.main(["sweep", "--report", str(out)]) == 0
    assert (out / "s-summary.csv").read_text() == summary
    assert not (out / ".trials").exists()
    px = np.asarray(Image.open(out / "s-purity.png").convert("RGB"), dtype=float)
    assert px.shape[1] > 600 and px.std() > 10
    assert (out / "s-purity.svg").read_text().lstrip().startswith("<?xml")


def test_report_refuses_a_folder_without_a_sweep(tmp_path, capsys):
    assert cli.main(["sweep", "--report", str(tmp_path)]) == 1
    assert "holds 0 sweep results" in capsys.readouterr().err
