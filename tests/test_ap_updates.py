"""The compiled message updates (eqs. 14 and 25) against their numpy form (scikit-learn's loop),
bit for bit, including NaN, infinities and signed zeros."""

from __future__ import annotations

import numpy as np
import pytest
from pairlab_builtins.algorithms.ap_messages import availability_update, responsibility_update


def numpy_availabilities(R, A, damping):
    """scikit-learn's availability step, whole arrays."""
    n = A.shape[0]
    tmp = np.maximum(R, 0)
    tmp.flat[:: n + 1] = R.flat[:: n + 1]
    tmp -= np.sum(tmp, axis=0)
    diag = tmp.flat[:: n + 1].copy()
    np.clip(tmp, 0, np.inf, out=tmp)
    tmp.flat[:: n + 1] = diag
    tmp *= 1 - damping
    A *= damping
    A -= tmp


def numpy_responsibilities(S, A, R, damping):
    """scikit-learn's responsibility step, whole arrays (rows of any length)."""
    ind = np.arange(S.shape[0])
    tmp = A + S
    best = np.argmax(tmp, axis=1)
    first = tmp[ind, best]
    tmp[ind, best] = -np.inf
    second = np.max(tmp, axis=1)
    tmp = S - first[:, None]
    tmp[ind, best] = S[ind, best] - second
    tmp *= 1 - damping
    R *= damping
    R += tmp


def same_bits(x, y):
    """Equal floats, signs of zero included; NaN where the other has NaN (payloads aside)."""
    nan = np.isnan(x)
    return np.array_equal(nan, np.isnan(y)) and np.array_equal(
        np.where(nan, 0.0, x).view(np.int64), np.where(nan, 0.0, y).view(np.int64))


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -np.inf, np.inf, np.nan, 0.5])


def _with_specials(rng, n, m):
    X = rng.normal(size=(n, m))
    hit = rng.random((n, m)) < 0.4
    X[hit] = rng.choice(SPECIAL, size=hit.sum())
    return X


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_updates_match_numpy_on_special_values():
    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(1, 9))
        m = n if trial % 2 == 0 else int(rng.integers(1, 9))

        S, A, R = (_with_specials(rng, n, m) for _ in range(3))
        damping = float(rng.choice([0.5, 0.75, 0.9]))
        want, got = R.copy(), R.copy()
        numpy_responsibilities(S, A, want, damping)
        responsibility_update(S, A, got, damping)
        assert same_bits(want, got), trial
        if n == m:
            want, got = A.copy(), A.copy()
            numpy_availabilities(R, want, damping)
            availability_update(R, got, damping)
            assert same_bits(want, got), trial


@pytest.mark.parametrize("n", [2, 129, 700])
def test_updates_match_numpy_on_message_sized_arrays(n):
    """Column sums of 700 rows add in numpy's order (row after row), ties in the row maxima."""
    rng = np.random.default_rng(n)
    S = -rng.random((n, n)).round(2) * 10   # rounded: many ties
    A, R = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    want, got = R.copy(), R.copy()
    numpy_responsibilities(S, A, want, 0.75)
    responsibility_update(S, A, got, 0.75)
    assert same_bits(want, got)
    want, got = A.copy(), A.copy()
    numpy_availabilities(R, want, 0.75)
    availability_update(R, got, 0.75)
    assert same_bits(want, got)
