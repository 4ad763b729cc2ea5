"""``pairlab run`` link options: --generator/--gen, --label-noise, --flip-prob, --e-matrix."""

import json

import numpy as np
import pytest

from pairlab import get_registry
from pairlab.cli import build_parser, main
from pairlab.cli_links import constraints_from_args
from pairlab.errors import InvalidInputError
from pairlab.links import GENERATORS


def _links(*argv, dataset="iris", data=()):
    args = build_parser().parse_args(["run", "gmm", "--dataset", dataset, *argv])
    spec = get_registry().dataset(dataset)
    return constraints_from_args(args, spec.make(seed=args.seed, **dict(data)))


def _agree(c, y):
    return bool(np.all(y[c.must_link[:, 0]] == y[c.must_link[:, 1]])
                and np.all(y[c.cannot_link[:, 0]] != y[c.cannot_link[:, 1]]))


def test_issue_command_runs(capsys):
    assert main(["run", "gmm", "--dataset", "iris", "--must-link", "20", "--cannot-link", "20",
                 "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_must_link"] == 20 and out["n_cannot_link"] == 20


@pytest.mark.parametrize(("name", "gen", "count"), [
    ("random", ["n_must_link=7", "n_cannot_link=5"], 12),
    ("pairs", ["n_pairs=30"], 30),
    ("fraction", ["fraction=0.01"], round(0.01 * 150 * 149 / 2)),
    ("nonoverlapping", [], round(0.5 * 150 / 2)),
    ("nonoverlapping", ["n_pairs=10"], 10),
    ("teachers", ["n_teachers=3", "n_points=5"], None),
])
def test_generators_agree_with_labels_and_are_deterministic(name, gen, count):
    argv = ["--generator", name, "--seed", "3"] + [a for g in gen for a in ("--gen", g)]
    c = _links(*argv)
    y = get_registry().dataset("iris").make(seed=3).y
    assert _agree(c, y) and len(c) > 0
    if count is not None:
        assert len(c) == count
    assert _links(*argv) == c
    assert _links(*argv[:2], "--seed", "4", *argv[4:]) != c


def test_every_generator_is_documented_by_its_params():
    for spec in GENERATORS.values():
        assert spec.help and all(p.help for p in spec.params)


def test_label_noise_and_flip_probability():
    clean = _links("--must-link", "30", "--cannot-link", "30")
    noisy = _links("--must-link", "30", "--cannot-link", "30", "--label-noise", "0.3")
    y = get_registry().dataset("iris").make(seed=0).y
    assert _agree(clean, y) and not _agree(noisy, y)
    assert noisy.n_must_link == 30 and noisy.n_cannot_link == 30  # counts hold for the noisy labels
    flipped = _links("--must-link", "30", "--cannot-link", "30", "--flip-prob", "0.2")
    assert len(flipped) == 60 and np.allclose(flipped.ml_confidence, 0.8)  # PPC eq. 5.1 via 2.15
    assert np.allclose(flipped.cl_confidence, 0.8)


def test_e_matrix_keeps_everything_at_credibility_one():
    base = _links("--generator", "pairs", "--gen", "n_pairs=80")
    assert _links("--generator", "pairs", "--gen", "n_pairs=80", "--e-matrix", "1") == base
    changed = _links("--generator", "pairs", "--gen", "n_pairs=80", "--e-matrix", "0.5,0.5")
    assert len(changed) == 80 and changed != base


def test_grid_links_take_the_shape_from_the_data_set():
    c = _links("--generator", "grid", dataset="texture-grid",
               data={"grid_rows": 4, "grid_cols": 5, "features": "stats"})
    assert c.n_must_link == 4 * 4 + 3 * 5 and c.n_cannot_link == 0
    assert np.all(c.ml_confidence <= 1) and np.all(c.ml_confidence >= 0.5)


@pytest.mark.parametrize(("argv", "match"), [
    (["--gen", "n_pairs=3"], "--gen needs --generator"),
    (["--generator", "pairs", "--must-link", "3"], "either --must-link/--cannot-link or --generator pairs"),
    (["--generator", "pairs", "--gen", "n_pair=3"], "Did you mean 'n_pairs'"),
    (["--generator", "grid"], "grid_rows"),
    (["--label-noise", "0.1"], "--label-noise needs links"),
    (["--must-link", "5", "--flip-prob", "0.1", "--link-noise", "0.1"], "one noise option"),
    (["--must-link", "5", "--flip-prob", "0.7"], "q must lie"),
    (["--must-link", "5", "--e-matrix", "a,b"], "P or P,Q"),
])
def test_bad_options_explain_themselves(argv, match):
    with pytest.raises(InvalidInputError, match=match):
        _links(*argv)


def test_errors_reach_the_user_without_a_traceback(capsys):
    assert main(["run", "gmm", "--dataset", "iris", "--generator", "grid"]) == 1
    assert "grid_rows" in capsys.readouterr().err
