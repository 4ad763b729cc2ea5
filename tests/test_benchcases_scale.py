"""The issue-37 scale cases: absent from --quick, and their measuring helpers work at small sizes."""

from __future__ import annotations

import pytest

from pairlab.benchcases import ppc_scale, rdpmeans_scale, tvclust_scale


@pytest.mark.parametrize("module", [rdpmeans_scale, tvclust_scale, ppc_scale])
def test_scale_cases_stay_out_of_quick_and_have_goals(module):
    assert module.cases(True) == []
    full = module.cases(False)
    assert full and all(c.group.endswith("-scale") for c in full)


def test_rdpmeans_whole_run_child_reports_time_memory_and_convergence():
    got = rdpmeans_scale.child(2_000, 20_000)
    assert got["links"] == 20_000 and got["passes"] >= 1
    assert got["peak_GiB"] > 0 and got["total_s"] >= got["setup_s"] >= 0


def test_gibbs_scaling_fits_an_exponent():
    got = tvclust_scale.gibbs_scaling((200, 400), repeats=1)
    assert len(got["seconds"]) == 2 and all(s > 0 for s in got["seconds"])
    assert isinstance(got["exponent"], float)


@pytest.mark.ci  # starts Python processes
def test_ppc_memory_profile_runs_in_fresh_processes():
    got = ppc_scale.memory_profile((16, 24))
    assert got["n"] == [256, 576] and len(got["bytes_per_point"]) == 2


@pytest.mark.parametrize("divergence", ["sqeuclidean", "euclidean", "kl"])
@pytest.mark.parametrize("d", [2, 40])
def test_rdpmeans_table_by_row_blocks_equals_column_by_column(divergence, d):
    import numpy as np
    from pairlab_builtins.algorithms.rdpmeans_passes import Geometry

    rng = np.random.default_rng(0)
    g = Geometry(rng.uniform(size=(5_000, d)) * 5, divergence, 0.3)
    centers = g.Y[rng.choice(5_000, 7)]
    blocks = np.full((5_000, 9), np.inf)
    g.fill_table(blocks, centers, chunk=1024)
    columns = np.full((5_000, 9), np.inf)
    for k in range(7):
        columns[:, k] = g.to_center(centers[k])
    assert np.array_equal(blocks, columns)
