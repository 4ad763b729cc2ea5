"""Compiled q(z) block update of ``tvclust-variational`` (numba, ``cache=True``, no fast-math).

One colour block's update, fused into one loop over its points: the logits
E[log pi_k] + E[log N(x_i | theta_k)] + sum_j W_ij q(z_j = k), split into the links to earlier and
later blocks, row-normalised as :func:`pairlab.mixture.log_normalize` does (shift by the row's
maximum, terms below e^-700 dropped, rows without a finite entry uniform), written into q(z) in
place; returns sum_i q(z_i)' (sum_{j earlier} W_ij q(z_j)), the block's share of the ELBO's
pair sum. Without temporaries of size (block, T) it replaces a sparse product, a fancy-indexed
gather, an (n, T) exp and a scatter per block (issue 37).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .rdpmeans_kernels import _prefetch

__all__ = ["block_update"]

#: Links ahead whose partner's row of q(z) is prefetched (the reads are at random rows).
AHEAD = 16


@numba.njit(inline="always")
def _add_partners(acc: np.ndarray, ptr_s: int, ptr_e: int, idx: np.ndarray, dat: np.ndarray,
                  resp: np.ndarray, flat: np.ndarray) -> None:  # pragma: no cover - compiled
    """acc += sum over CSR entries ptr_s:ptr_e of w * resp[j], prefetching AHEAD entries on."""
    T = resp.shape[1]
    n_idx = idx.size
    for p in range(ptr_s, ptr_e):
        if p + AHEAD < n_idx:
            q = idx[p + AHEAD] * T
            _prefetch(flat, q)
            _prefetch(flat, q + T - 1)
        j = idx[p]
        w = dat[p]
        for k in range(T):
            acc[k] += w * resp[j, k]


@numba.njit(cache=True)
def block_update(members: np.ndarray, e_ptr: np.ndarray, e_idx: np.ndarray, e_dat: np.ndarray,
                 l_ptr: np.ndarray, l_idx: np.ndarray, l_dat: np.ndarray, log_rho: np.ndarray,
                 resp: np.ndarray) -> float:  # pragma: no cover - compiled
    T = resp.shape[1]
    flat = resp.reshape(-1)
    acc = np.empty(T)
    early = np.empty(T)
    pair = 0.0
    for r in range(members.size):
        i = members[r]
        for k in range(T):
            early[k] = 0.0
        _add_partners(early, e_ptr[r], e_ptr[r + 1], e_idx, e_dat, resp, flat)
        for k in range(T):
            acc[k] = log_rho[i, k] + early[k]
        _add_partners(acc, l_ptr[r], l_ptr[r + 1], l_idx, l_dat, resp, flat)
        m = -np.inf
        for k in range(T):
            if acc[k] > m:
                m = acc[k]
        if not math.isfinite(m):
            for k in range(T):
                resp[i, k] = 1.0 / T
                pair += resp[i, k] * early[k]
            continue
        total = 0.0
        for k in range(T):
            s = acc[k] - m
            e = math.exp(s) if s >= -700.0 else 0.0
            acc[k] = e
            total += e
        for k in range(T):
            resp[i, k] = acc[k] / total
            pair += resp[i, k] * early[k]
    return pair
