import numpy as np
import pytest

from pairlab import InvalidInputError, Param
from pairlab.params import parse_assignments, resolve_params

SPECS = (
    Param("k", int, 2, "clusters", low=1),
    Param("q", float, 1.0, "penalty", low=0.0),
    Param("mode", str, "a", "mode", choices=("a", "b")),
    Param("flag", bool, False, "flag"),
    Param("init", np.ndarray, None, "means", nullable=True),
)


def test_defaults_and_unknown_name_suggestion():
    assert resolve_params(SPECS, {})["k"] == 2
    with pytest.raises(InvalidInputError, match="Did you mean 'mode'"):
        resolve_params(SPECS, {"mod": "b"})


def test_parse_assignments_round_trip():
    got = parse_assignments(SPECS, ["k=3", "q=inf", "mode=b", "flag=true", "init=[[0,1],[2,3]]"])
    assert got["k"] == 3 and got["q"] == float("inf") and got["flag"] is True
    assert got["init"].shape == (2, 2)
    for p in SPECS:
        if p.name in got:
            text = str(p.to_json(got[p.name])).lower() if p.type is not np.ndarray else \
                str(p.to_json(got[p.name]))
            assert np.array_equal(np.asarray(p.parse(text)), np.asarray(got[p.name]))


@pytest.mark.parametrize("item, msg", [
    ("k=0", ">= 1"), ("k=1.5", "expects int"), ("q=-1", ">= 0"), ("mode=c", "one of"),
    ("flag=maybe", "expects bool"), ("k", "key=value"), ("q=nan", "NaN"),
])
def test_bad_values(item, msg):
    with pytest.raises(InvalidInputError, match=msg):
        parse_assignments(SPECS, [item])
