"""The compiled chooser-network updates (ssap-g, ssap-l) give the numpy form's floats bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from pairlab_builtins.algorithms.ap_chooser_updates import (
    best_columns,
    cannot_link_messages,
    chooser_availabilities,
    group_sum,
)


def _messages(rng: np.random.Generator, r: int, n: int) -> np.ndarray:
    """Values over many magnitudes, with exact zeros of both signs (the sign rules matter)."""
    X = rng.standard_normal((r, n)) * np.exp(rng.uniform(-8, 8, (r, n)))
    X[rng.random((r, n)) < 0.05] = 0.0
    X[rng.random((r, n)) < 0.05] = -0.0
    return X


@pytest.mark.parametrize("p", [np.inf, 0.5, 0.0])
@pytest.mark.parametrize("r,n", [(40, 40), (25, 60), (1, 5)])
def test_availabilities_match_numpy(p: float, r: int, n: int) -> None:
    rng = np.random.default_rng(r * n)
    R, A = _messages(rng, r, n), _messages(rng, r, n)
    self_row = rng.integers(0, r, n)
    self_row[:r] = np.arange(r)[: min(r, n)]
    own, d = (self_row, np.arange(n)), 0.75
    tmp = np.maximum(R, 0)
    tmp[own] = np.maximum(R[own], -p)
    tmp -= np.sum(tmp, axis=0)
    diag = np.maximum(tmp[own], -p)
    np.clip(tmp, 0, np.inf, out=tmp)
    tmp[own] = diag
    tmp *= 1 - d
    expected = A * d
    expected -= tmp
    chooser_availabilities(R, A, self_row, p, d)
    assert A.tobytes() == expected.tobytes()


@pytest.mark.parametrize("size", [1, 2, 7, 8, 9, 16, 17, 129, 300])
def test_group_sum_is_reduceat(size: int) -> None:
    rng = np.random.default_rng(size)
    X = _messages(rng, 400, 6)
    rows = rng.permutation(400)[:size]
    acc, rest = np.empty(6), np.empty(6)
    group_sum(X, rows, acc, rest)
    assert acc.tobytes() == np.add.reduceat(X[rows], [0], axis=0)[0].tobytes()


def test_cannot_link_messages_match_numpy() -> None:
    rng = np.random.default_rng(7)
    r, n, c = 50, 70, 90                  # many links a chooser: groups of more than 8 rows
    A, R, S = _messages(rng, r, n), _messages(rng, r, n), _messages(rng, r, n)
    pairs = rng.integers(0, 12, (c, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    first, second = np.r_[pairs[:, 0], pairs[:, 1]], np.r_[pairs[:, 1], pairs[:, 0]]
    gamma = -np.abs(_messages(rng, first.size, n))
    by_first = np.argsort(first, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(first[by_first]) != 0])
    linked = first[by_first][starts]
    q, half = 1e3, first.size // 2
    lam = A[second] + R[second]
    lam[:half] -= gamma[half:]
    lam[half:] -= gamma[:half]
    np.clip(-lam, -q, 0.0, out=lam)
    expected_hat = S.copy()
    expected_hat[linked] = S[linked] + np.add.reduceat(lam[by_first], starts, axis=0)
    S_hat = S.copy()
    cannot_link_messages(A, R, S, S_hat, gamma, second, by_first, starts, linked, q)
    assert gamma.tobytes() == lam.tobytes()
    assert S_hat.tobytes() == expected_hat.tobytes()


def test_best_columns_is_argmax_with_nan() -> None:
    rng = np.random.default_rng(3)
    A, R = _messages(rng, 30, 50), _messages(rng, 30, 50)
    A[4, 10] = np.nan
    A[5, :] = 1.0                         # ties: the first column wins
    R[5, :] = 0.0
    cols = np.sort(rng.choice(50, 20, replace=False))
    cols = np.r_[10, cols[cols != 10]]
    expected = cols[np.argmax(A[:, cols] + R[:, cols], axis=1)]
    assert np.array_equal(best_columns(A, R, cols), expected)
