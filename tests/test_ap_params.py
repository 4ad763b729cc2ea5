"""The affinity-propagation plugins' parameters are defined once (ap_params)."""

import pytest
from pairlab_builtins.algorithms import ap_params

from pairlab import get_registry

AP_PLUGINS = ("affinity-propagation", "scssap", "scssap-metric", "ssap-g", "ssap-l")
SHARED = {p.name: p for p in (ap_params.PREFERENCE, ap_params.MAX_ITER, ap_params.CONVERGENCE_ITER,
                              ap_params.TOL, ap_params.AFFINITY, ap_params.N_NEIGHBORS,
                              *ap_params.PENALTIES)}
#: scssap-metric's own meanings: a round's preference, iteration caps over all rounds.
OWN = {("scssap-metric", "preference"), ("scssap-metric", "max_iter"),
       ("scssap-metric", "convergence_iter"), ("scssap-metric", "tol")}


@pytest.mark.parametrize("name", AP_PLUGINS)
def test_shared_parameters_are_the_one_definition(name):
    params = {p.name: p for p in get_registry().algorithm(name).params}
    shared = [k for k in params if k in SHARED and (name, k) not in OWN]
    assert shared, "an AP plugin shares no parameter definition"
    for key in shared:
        assert params[key] is SHARED[key], f"{name} redefines {key!r}"
    assert params["damping"].low == 0.5 and params["damping"].high == 1.0


def test_exemplar_rule_default_must_be_offered():
    with pytest.raises(ValueError, match="not among"):
        ap_params.exemplar_rule("paper", {"refine": "x"})
