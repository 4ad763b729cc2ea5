"""TVClust (Khashabi et al. 2015, section 3): the Gibbs sampler against exact enumeration of the
partition posterior, the Chinese-restaurant prior, the small-variance limit (RDP-means), and the
mean-field variational version (ELBO monotone, exact where q can be exact, a bound on the enumerated
evidence, equal to scikit-learn's DP mixture without links, close to the sampler)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, multigammaln

from pairlab import Constraints, Dataset, Run

# -- oracles, written independently of the plugins ------------------------------------------------


def set_partitions(n: int):
    """Every partition of range(n) as a canonical label tuple (first appearance order)."""
    def rec(i, labels, k):
        if i == n:
            yield tuple(labels)
            return
        for c in range(k + 1):
            yield from rec(i + 1, [*labels, c], max(k, c + 1))
    yield from rec(0, [], 0)


def canonical(labels) -> tuple[int, ...]:
    seen: dict[int, int] = {}
    return tuple(seen.setdefault(int(v), len(seen)) for v in labels)


def log_marginal(Xc: np.ndarray, m0: np.ndarray, sigma2: float, rho2: float, covariance: str,
                 nu0: float | None = None) -> float:
    """log p(X_c) of one cluster's points under the base measure (data units)."""
    n, d = Xc.shape
    if covariance == "fixed":  # each feature: N(m0 1, sigma2 I + rho2 1 1^T)
        cov = sigma2 * np.eye(n) + rho2 * np.ones((n, n))
        return float(sum(stats.multivariate_normal(np.full(n, m0[j]), cov).logpdf(Xc[:, j])
                         for j in range(d)))
    nu0 = d + 2.0 if nu0 is None else nu0
    k0, psi0 = sigma2 / rho2, nu0 * sigma2 * np.eye(d)
    xbar = Xc.mean(axis=0)
    S = (Xc - xbar).T @ (Xc - xbar)
    kn, nun = k0 + n, nu0 + n
    psin = psi0 + S + k0 * n / kn * np.outer(xbar - m0, xbar - m0)
    return float(-0.5 * n * d * math.log(math.pi) + multigammaln(nun / 2, d) - multigammaln(nu0 / 2, d)
                 + 0.5 * nu0 * np.linalg.slogdet(psi0)[1] - 0.5 * nun * np.linalg.slogdet(psin)[1]
                 + 0.5 * d * math.log(k0 / kn))


def link_log_lik(labels, ml, cl, p: float, q: float) -> float:
    out = 0.0
    for i, j in ml:
        out += math.log(p) if labels[i] == labels[j] else math.log(1 - q)
    for i, j in cl:
        out += math.log(1 - p) if labels[i] == labels[j] else math.log(q)
    return out


def log_crp(labels, alpha: float) -> float:
    counts = np.bincount(labels)
    counts = counts[counts > 0]
    return float(len(counts) * math.log(alpha) + gammaln(counts).sum() + gammaln(alpha)
                 - gammaln(alpha + len(labels)))


def exact_posterior(X, ml, cl, params) -> dict[tuple[int, ...], float]:
    """p(z | x, E) ∝ CRP(z) prod_k p(X_k) prod_links p(E_ij | H_ij), over all set partitions."""
    m0 = X.mean(axis=0)
    logp = {}
    for z in set_partitions(len(X)):
        z_arr = np.array(z)
        lp = log_crp(z_arr, params["alpha"]) + link_log_lik(z, ml, cl, params["p"], params["q"])
        for k in range(z_arr.max() + 1):
            lp += log_marginal(X[z_arr == k], m0, params["variance"], params["prior_variance"],
                               params["covariance"])
        logp[z] = lp
    top = max(logp.values())
    w = {z: math.exp(v - top) for z, v in logp.items()}
    total = sum(w.values())
    return {z: v / total for z, v in w.items()}


def total_variation(p: dict, q: dict) -> float:
    return 0.5 * sum(abs(p.get(z, 0.0) - q.get(z, 0.0)) for z in set(p) | set(q))


def sample_partitions(X, cons, params, sweeps: int, burn_in: int = 50, seed: int = 0) -> dict:
    run = Run("tvclust", Dataset(X), cons, params, seed=seed)
    algo, state = run.algorithm, run.state
    counts: Counter = Counter()
    for t in range(burn_in + sweeps):
        state = algo.step(state)
        if t >= burn_in:
            counts[canonical(state.labels)] += 1
    return {z: c / sweeps for z, c in counts.items()}


X4 = np.array([[0.0, 0.0], [0.6, 0.3], [1.6, 1.1], [2.0, 0.5]])
ML4, CL4 = [(0, 2)], [(1, 3)]


# -- Gibbs sampler ---------------------------------------------------------------------------------
# CI tier for "full" (7 s of CPU; the README run keeps "fixed", the same check on the same sampler)
@pytest.mark.parametrize("covariance", [pytest.param("full", marks=pytest.mark.ci), "fixed"])
@pytest.mark.slow  # over 1.5 s: out of the inner loop
def test_gibbs_matches_exact_partition_posterior(covariance):
    """15 partitions of 4 points, a may-link and a may-not-link that pull against the geometry: the
    frequencies of 3000 sampled partitions are within total variation 0.07 of the enumerated
    posterior (0.02-0.04 over seeds 0-2), which is more than 0.15 away from the posterior without
    the links or with alpha doubled (so the check can tell)."""
    params = {"covariance": covariance, "alpha": 1.0, "p": 0.8, "q": 0.75, "variance": 0.3,
              "prior_variance": 1.5}
    exact = exact_posterior(X4, ML4, CL4, params)
    without = exact_posterior(X4, [], [], params)
    assert total_variation(exact, without) > 0.15
    assert total_variation(exact, exact_posterior(X4, ML4, CL4, {**params, "alpha": 2.0})) > 0.15
    assert max(exact.values()) < 0.6  # a spread-out posterior, not one dominant partition
    cons = Constraints(ML4, CL4, n_samples=4)
    sampled = sample_partitions(X4, cons, params, sweeps=3000)
    assert total_variation(sampled, exact) < 0.07, (sampled, exact)


@pytest.mark.ci  # 3000 sweeps, 6 s of CPU; the README run keeps the check against the exact posterior
def test_gibbs_without_links_is_a_dp_mixture_sampler():
    """No side information: the exact posterior is the DP mixture's (links drop out) and the sampler
    matches it (total variation < 0.08 after 3000 sweeps: 0.02-0.06 over seeds 0-2; alpha 0.7 -> 1.4
    moves the posterior by 0.2); a link of confidence 0 is the same as no link, bit for bit."""
    params = {"covariance": "full", "alpha": 0.7, "variance": 0.2, "prior_variance": 2.0}
    X = X4 * np.array([1.0, -2.0]) + 5.0
    exact = exact_posterior(X, [], [], {**params, "p": 0.9, "q": 0.9})
    doubled = exact_posterior(X, [], [], {**params, "p": 0.9, "q": 0.9, "alpha": 1.4})
    assert total_variation(exact, doubled) > 0.15
    sampled = sample_partitions(X, Constraints.empty(4), params, sweeps=3000)
    assert total_variation(sampled, exact) < 0.08
    none = Run("tvclust", Dataset(X), None, params, seed=3)
    zero_links = Constraints([[0, 3]], [[1, 2]], n_samples=4, confidence=0.0)
    zero = Run("tvclust", Dataset(X), zero_links, params, seed=3)
    for _ in range(5):
        none.step()
        zero.step()
    assert none.state.equals(zero.state)


def _crp_number_of_tables(n: int, alpha: float) -> np.ndarray:
    """P(K = k) = alpha^k |s(n, k)| / (alpha (alpha + 1) ... (alpha + n - 1)), k = 0..n."""
    s = np.zeros((n + 1, n + 1))
    s[0, 0] = 1.0
    for m in range(1, n + 1):
        for k in range(1, m + 1):
            s[m, k] = s[m - 1, k - 1] + (m - 1) * s[m - 1, k]
    rising = math.exp(gammaln(alpha + n) - gammaln(alpha))
    return np.array([alpha**k * s[n, k] for k in range(n + 1)]) / rising


@pytest.mark.ci  # 3000 sweeps, 5 s of CPU; the README run keeps the check against the exact posterior
def test_flat_likelihood_gives_the_chinese_restaurant_prior():
    """With the cluster means pinned to the prior mean (prior_variance -> 0) every cluster explains
    a point equally well, so the number of clusters follows the CRP prior."""
    n, alpha = 6, 1.5
    X = np.random.default_rng(0).normal(size=(n, 2))
    params = {"covariance": "fixed", "alpha": alpha, "variance": 1.0, "prior_variance": 1e-12}
    run = Run("tvclust", Dataset(X), None, params, seed=1)
    algo, state = run.algorithm, run.state
    ks = []
    for _ in range(3000):
        state = algo.step(state)
        ks.append(state.n_clusters)
    freq = np.bincount(ks, minlength=n + 1) / len(ks)
    prior = _crp_number_of_tables(n, alpha)
    assert abs(prior.sum() - 1.0) < 1e-12
    assert 0.5 * np.abs(freq - prior).sum() < 0.04, (freq, prior)


def _rdp_data():
    rng = np.random.default_rng(4)
    centres = np.array([[0.0, 0.0], [1.0, 0.2], [0.4, 1.0]])
    y = np.repeat([0, 1, 2], 10)
    X = centres[y] + 0.08 * rng.normal(size=(30, 2))
    ml = [(0, 12), (3, 25), (14, 16)]
    cl = [(1, 2), (11, 21), (5, 6)]
    return X, Constraints(ml, cl, n_samples=30)


def _tvclust_at_gamma(gamma, lam, xi, rho2, X, cons):
    """Section 4.2 scaling: sigma^2 = 1/(2 gamma) so N(x | mu) ∝ exp(-gamma |x - mu|^2);
    alpha = (1 + rho^2/sigma^2)^(d/2) exp(-gamma lambda) (Kulis & Jordan); log(p/(1-q)) = gamma xi1
    and log(q/(1-p)) = gamma xi2 (section 4.3)."""
    d = X.shape[1]
    sigma2 = 1.0 / (2.0 * gamma)
    a = b = math.exp(gamma * xi)
    p = a * (b - 1) / (a * b - 1)
    q = b * (a - 1) / (a * b - 1)
    alpha = (1 + rho2 / sigma2) ** (d / 2) * math.exp(-gamma * lam)
    params = {"covariance": "fixed", "variance": sigma2, "prior_variance": rho2, "alpha": alpha,
              "p": p, "q": q}
    return Run("tvclust", Dataset(X), cons, params, seed=0).algorithm


def test_small_variance_limit_approaches_rdpmeans():
    """From the same partition and centres, with the same visiting order, one Gibbs sweep under the
    section 4 scaling makes RDP-means' choices once gamma is large, and not for small gamma."""
    X, cons = _rdp_data()
    lam, xi, rho2 = 0.25, 0.03, 4.0
    rdp = Run("rdpmeans", Dataset(X), cons, {"lambda_": lam, "xi0": xi, "xi_rate": 1.0}, seed=0)
    rdp.step()  # starts: all points in one cluster (pass 1 opens clusters), and the partition after it
    disagreements = {}
    for gamma in (2.0, 30.0, 800.0):
        wrong = 0
        for seed in range(4):
            for start in rdp.history:
                expected = type(rdp.algorithm)(rdp.dataset, cons, dict(rdp.algorithm.params),
                                               np.random.default_rng(seed)).step(start)
                algo = _tvclust_at_gamma(gamma, lam, xi, rho2, X, cons)
                algo.rng = np.random.default_rng(seed)  # the same visiting order
                centres = np.asarray(start.model["centers"])
                P = np.broadcast_to(np.eye(2) / math.sqrt(algo.base.sigma2), (len(centres), 2, 2)).copy()
                state = algo._state(0, np.array(start.labels), algo.std.transform(centres), P, None)
                got = algo.step(state)
                wrong += int(canonical(got.labels) != canonical(expected.labels))
        disagreements[gamma] = wrong
    assert disagreements[800.0] == 0, disagreements
    assert disagreements[2.0] > 0, disagreements


def test_both_run_from_a_sweep_spec_and_the_command_line(tmp_path):
    """The experiment engine and `pairlab run` drive both plugins (E-matrix link noise of eq. 8)."""
    import csv

    from pairlab.cli import main
    from pairlab.sweep import parse_spec, run_sweep

    spec = {"name": "tv", "trials": 1, "metrics": ["ari"], "max_iter": 5,
            "algorithms": [{"name": "tvclust"}, {"name": "tvclust-variational", "params": {"truncation": 4}}],
            "datasets": [{"name": "two-moons", "params": {"n_samples": 40}}],
            "links": {"generator": "random", "budget": [4]},
            "noise": {"link_model": "e-matrix", "link": [0.1]}}
    result = run_sweep(parse_spec(spec), tmp_path, progress=None)
    rows = list(csv.DictReader(result.table.open()))
    assert [r["method"] for r in rows] == ["tvclust", "tvclust-variational"]
    assert all(r["error"] == "" and r["iterations"] == "5" for r in rows)
    assert main(["run", "tvclust", "--dataset", "two-moons", "--must-link", "5", "--cannot-link", "5",
                 "--set", "max_iter=3", "--seed", "0"]) == 0
