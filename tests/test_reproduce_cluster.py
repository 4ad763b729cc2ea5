"""`pairlab reproduce` on a two-worker Dask LocalCluster over TCP gives the result of `--jobs 1`
byte for byte (apart from timings and the executor's name), and reports the trials' CPU time."""

import json

import pytest

from pairlab import get_registry
from pairlab.reproduce import reproduce
from pairlab.sweep.executors import make_executor


def _without_timings(doc: dict) -> str:
    doc = json.loads(json.dumps(doc))
    doc.pop("provenance")
    for key in ("executor", "trial_wall_seconds", "trial_cpu_seconds", "reused_trial_wall_seconds",
                "reused_trial_cpu_seconds"):
        doc["engine"].pop(key)
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("name", ["fig8"])
def test_localcluster_over_tcp_equals_jobs_1_byte_for_byte(tmp_path, name):
    pytest.importorskip("distributed")
    recipe = get_registry().reproduction(name)
    options = recipe.options({"quick": True} if any(p.name == "quick" for p in recipe.params)
                             else {})
    one = reproduce(recipe, tmp_path / "one", trials=3, jobs=1, options=options, progress=None,
                    render=False)
    with make_executor(2, scheduler="local") as probe:    # the same cluster reproduce starts
        assert probe.workers == 2
    dask = reproduce(recipe, tmp_path / "dask", trials=3, jobs=2, scheduler="local",
                     options=options, progress=None, render=False)
    assert "LocalCluster" in dask["engine"]["executor"]
    assert _without_timings(one) == _without_timings(dask)
    for doc in (one, dask):
        assert doc["engine"]["ran"] == 3 and doc["engine"]["trial_cpu_seconds"] > 0
    # a rerun reuses every stored trial: nothing computed, no CPU time reported
    again = reproduce(recipe, tmp_path / "one", trials=3, jobs=1, options=options, progress=None,
                      render=False)
    assert again["engine"]["ran"] == 0 and again["engine"]["trial_cpu_seconds"] == 0
    # ... but the CPU time recorded with each stored trial, so a resumed run still has it
    assert again["engine"]["reused_trial_cpu_seconds"] == one["engine"]["trial_cpu_seconds"]
    assert again["engine"]["reused_without_time"] == 0
