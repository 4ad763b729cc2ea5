"""Results kept for read-only arrays (pairlab.memo): only arrays that cannot change, by identity."""

import numpy as np

from pairlab import Constraints, Dataset
from pairlab.draw.geometry import link_segments
from pairlab.memo import FrozenMemo, is_frozen
from pairlab.metrics import unique_codes


def test_only_arrays_that_cannot_change_are_frozen():
    a = np.arange(6)
    assert not is_frozen(a) and not is_frozen([1, 2])
    view = a[::2]
    view.setflags(write=False)
    assert not is_frozen(view)  # a read-only view of memory that can still change
    a.setflags(write=False)
    assert is_frozen(a) and is_frozen(view)


def test_memo_computes_once_per_frozen_array_and_always_for_others():
    calls = []
    memo = FrozenMemo(lambda a: calls.append(1) or a.sum(), size=2)
    frozen = np.arange(5)
    frozen.setflags(write=False)
    assert memo(frozen) == memo(frozen) == 10 and len(calls) == 1
    writeable = np.arange(5)
    assert memo(writeable) == 10
    writeable[0] = 100
    assert memo(writeable) == 110 and len(calls) == 3
    others = [np.full(3, i) for i in range(3)]
    for o in others:
        o.setflags(write=False)
        memo(o)
    assert memo(frozen) == 10 and len(calls) == 7  # pushed out by the newer two


def test_segments_and_class_codes_of_a_data_set_are_kept_read_only():
    rng = np.random.default_rng(0)
    data = Dataset(rng.normal(size=(30, 2)), rng.integers(0, 3, 30))
    links = Constraints([(0, 1), (2, 3)], [(4, 5)], n_samples=30)
    segs = link_segments(data.view, links.must_link)
    assert segs is link_segments(data.view, links.must_link) and not segs.flags.writeable
    assert np.array_equal(segs, np.stack([data.view[[0, 2]], data.view[[1, 3]]], axis=1))
    codes = unique_codes(data.y)
    assert codes[1] is unique_codes(data.y)[1] and not codes[1].flags.writeable
    assert np.array_equal(codes[1], np.unique(data.y, return_inverse=True)[1])
    plain = data.y.copy()
    assert unique_codes(plain)[1] is not unique_codes(plain)[1]
