"""covariance_type (full, tied, diag, spherical) for every Gaussian plugin: the per-type maths of
pairlab.mixture, scikit-learn's GaussianMixture of the same type with no links, the brute-force
oracles of the link E-steps for each type, and the ellipses the app draws."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.mixture import GaussianMixture

from pairlab import Constraints, Dataset, InvalidInputError, Run, make_estimator
from pairlab.draw.frames import build_frame
from pairlab.mixture import (
    COVARIANCE_TYPES,
    compact_covariances,
    estimate_log_gaussian,
    full_covariances,
    gaussian_m_step,
    precision_cholesky,
)

from . import test_constrained_em as cem
from . import test_gmpr as gm
from . import test_ppc as pp

GAUSSIAN_PLUGINS = ("gmm", "gmpr", "gmpr-mixture", "constrained-em", "ppc")


def random_covariances(rng, cov_type, k, d):
    """Covariances of ``cov_type`` in its own (scikit-learn's) shape."""
    if cov_type == "full":
        a = rng.normal(size=(k, d, d))
        return a @ a.transpose(0, 2, 1) + 0.5 * np.eye(d)
    if cov_type == "tied":
        a = rng.normal(size=(d, d))
        return a @ a.T + 0.5 * np.eye(d)
    if cov_type == "diag":
        return rng.uniform(0.3, 3.0, size=(k, d))
    return rng.uniform(0.3, 3.0, size=k)


def sklearn_precisions(covs, cov_type):
    return np.linalg.inv(covs) if cov_type in ("full", "tied") else 1.0 / covs


# -- the shared maths ------------------------------------------------------------------------------
@pytest.mark.parametrize("cov_type", COVARIANCE_TYPES)
def test_log_density_and_shapes_per_type(cov_type):
    rng = np.random.default_rng(0)
    k, d = 3, 4
    X, means = rng.normal(size=(25, d)), rng.normal(size=(k, d))
    covs = random_covariances(rng, cov_type, k, d)
    full = full_covariances(covs, cov_type, k, d)
    assert full.shape == (k, d, d)
    np.testing.assert_array_equal(compact_covariances(full, cov_type), covs)
    got = estimate_log_gaussian(X, means, precision_cholesky(covs, cov_type), cov_type)
    want = np.column_stack([multivariate_normal(m, c).logpdf(X) for m, c in zip(means, full,
                                                                                strict=True)])
    np.testing.assert_allclose(got, want, rtol=1e-11)


def test_m_step_per_type_is_the_maximiser_within_the_family_with_sklearns_reg_covar():
    """With S_k the weighted scatter of eq. 18: tied sum N_k S_k / N, diag diag(S_k), spherical
    tr(S_k) / d; reg_covar on the diagonal (the mean of the regularised diagonal for spherical)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3)) * [1.0, 3.0, 0.5]
    resp = rng.dirichlet(np.ones(3), size=40)
    reg = 0.01
    nk, means, full = gaussian_m_step(X, resp, 0.0)
    eye = np.eye(3)
    want = {"tied": (nk[:, None, None] * full).sum(0) / nk.sum() + reg * eye,
            "diag": np.diagonal(full, axis1=1, axis2=2) + reg,
            "spherical": np.trace(full, axis1=1, axis2=2) / 3 + reg}
    for cov_type, ref in want.items():
        _, means2, covs = gaussian_m_step(X, resp, reg, cov_type)
        np.testing.assert_allclose(means2, means, rtol=1e-13)
        np.testing.assert_allclose(covs, ref, rtol=1e-12)
    # brute force: no random member of each family near the update has a higher Q_Sigma
    q_rng = np.random.default_rng(11)

    def q_sigma(covs, cov_type):
        pc = precision_cholesky(covs, cov_type)
        return float((resp * estimate_log_gaussian(X, means, pc, cov_type)).sum())

    for cov_type in ("tied", "diag", "spherical"):
        best = gaussian_m_step(X, resp, 0.0, cov_type)[2]
        q_best = q_sigma(best, cov_type)
        for _ in range(30):
            if cov_type == "tied":
                e = q_rng.normal(scale=0.02, size=(3, 3))
                other = best + 0.5 * (e + e.T)  # symmetric, still positive definite
            else:
                other = best * np.exp(q_rng.normal(scale=0.05, size=best.shape))
            assert q_sigma(other, cov_type) < q_best
    # the second moments are taken about the data mean: a far offset costs no precision
    for cov_type in ("tied", "diag", "spherical"):
        near = gaussian_m_step(X, resp, reg, cov_type)[2]
        far = gaussian_m_step(X + 1e7, resp, reg, cov_type)[2]
        np.testing.assert_allclose(far, near, rtol=1e-7)


def test_covariances_init_in_either_shape_and_clear_errors():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    var = np.array([[1.0, 2.0], [0.5, 0.7]])
    base = {"n_components": 2, "covariance_type": "diag", "means_init": X[:2]}
    a = Run("gmm", Dataset(X), params={**base, "covariances_init": var}).state
    b = Run("gmm", Dataset(X), params={**base, "covariances_init": a.model["covariances"]}).state
    assert a.equals(b) and a.model["covariances"].shape == (2, 2, 2)
    with pytest.raises(InvalidInputError, match="needs diagonal matrices"):
        Run("gmm", Dataset(X), params={**base, "covariances_init": np.ones((2, 2, 2))})
    with pytest.raises(InvalidInputError, match=r"\(2, 2, 2\) or \(2,\)"):
        Run("gmm", Dataset(X), params={**base, "covariance_type": "spherical",
                                       "covariances_init": var})
    with pytest.raises(InvalidInputError, match="one matrix shared"):
        Run("gmm", Dataset(X), params={**base, "covariance_type": "tied",
                                       "covariances_init": np.stack([np.eye(2), 2 * np.eye(2)])})
    with pytest.raises(InvalidInputError, match="covariance_type"):
        Run("gmm", Dataset(X), params={**base, "covariance_type": "diagonal"})
    with pytest.raises(InvalidInputError, match="increase reg_covar"):
        Run("gmm", Dataset(X), params={**base, "covariances_init": np.zeros((2, 2))})
    with pytest.raises(InvalidInputError, match=r"shared \(tied\) covariance is singular"):
        Run("gmm", Dataset(X), params={**base, "covariance_type": "tied",
                                       "covariances_init": np.zeros((2, 2))})


# -- no links: scikit-learn's GaussianMixture of the same type -------------------------------------
@pytest.mark.parametrize("cov_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("name", GAUSSIAN_PLUGINS)
def test_no_links_equals_sklearn_of_the_same_type(name, cov_type):
    rng = np.random.default_rng(3)
    k, d = 3, 3
    X = np.vstack([rng.normal(loc=2.5 * i, scale=1 + 0.3 * i, size=(50, d)) for i in range(k)])
    means = X[rng.choice(len(X), k, replace=False)]
    weights = rng.dirichlet(np.ones(k) * 3)
    covs = random_covariances(rng, cov_type, k, d)
    params = {"n_components": k, "means_init": means, "weights_init": weights,
              "covariances_init": covs, "covariance_type": cov_type, "tol": 0, "reg_covar": 1e-4}
    if name == "gmpr-mixture":  # K = 3 clusters in 2 classes: EM over all clusters
        params.update(n_components=2, n_components_per_class=[2, 1],
                      weights_init=np.array([weights[:2].sum(), weights[2]]))
        weights = np.array([weights[:2].sum() / 2, weights[:2].sum() / 2, weights[2]])
    run = Run(name, Dataset(X), params=params)
    n_iter = 8
    sk = GaussianMixture(k, covariance_type=cov_type, tol=0, max_iter=n_iter, reg_covar=1e-4,
                         weights_init=weights, means_init=means,
                         precisions_init=sklearn_precisions(covs, cov_type))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkConvergenceWarning)
        sk.fit(X)
    for _ in range(n_iter):
        run.step()
    model = run.state.model
    if name == "gmpr-mixture":
        w = model["weights"][model["class_of_component"]] * model["component_weights"]
    else:
        w = model["weights"]
    np.testing.assert_allclose(model["means"], sk.means_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(w, sk.weights_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(compact_covariances(model["covariances"], cov_type),
                               sk.covariances_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(model["precisions_cholesky"], sk.precisions_cholesky_,
                               rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(run.history[-2].objective / len(X), sk.lower_bound_, rtol=1e-10)
    Xnew = rng.normal(2, 3, size=(20, d))
    proba = run.algorithm.predict_proba(run.state, Xnew)
    sk_proba = sk.predict_proba(Xnew)
    if name == "gmpr-mixture":
        sk_proba = np.column_stack([sk_proba[:, :2].sum(1), sk_proba[:, 2]])
    np.testing.assert_allclose(proba, sk_proba, atol=1e-8)


# -- links: the E-steps are unchanged (brute force) and EM still never decreases -------------------
@pytest.mark.parametrize("cov_type", COVARIANCE_TYPES)
def test_gmpr_and_mixture_e_steps_equal_brute_force_for_each_type(cov_type):
    for structure in (0, 2):
        n, m, ml, cl = gm.STRUCTURES[structure]
        rng = np.random.default_rng(structure)
        X = rng.normal(scale=2, size=(n, 2))
        cons = Constraints(ml, cl, n_samples=n)
        alpha = rng.dirichlet(np.ones(m))
        means = rng.normal(scale=2, size=(m, 2))
        covs = random_covariances(rng, cov_type, m, 2)
        run = Run("gmpr", Dataset(X), cons, params={
            "n_components": m, "covariance_type": cov_type, "weights_init": alpha,
            "means_init": means, "covariances_init": covs, "tol": 0})
        run.step()  # the oracle also holds after an M-step of this type
        for st in run.history:
            mod = st.model
            ll, q, _ = gm.brute_force(X, ml, cl, mod["weights"], mod["means"], mod["covariances"])
            np.testing.assert_allclose(st.objective, ll, rtol=1e-11)
            np.testing.assert_allclose(st.responsibilities, q, atol=1e-11)
    n, m, ml, cl = gm.STRUCTURES[5]
    n = 6
    ml, cl = [p for p in ml if max(p) < n], [p for p in cl if max(p) < n]
    per_class = [2, 1, 2]
    rng = np.random.default_rng(9)
    X = rng.normal(scale=2, size=(n, 2))
    run = Run("gmpr-mixture", Dataset(X), Constraints(ml, cl, n_samples=n), params={
        "n_components": m, "n_components_per_class": per_class, "covariance_type": cov_type,
        "covariances_init": random_covariances(rng, cov_type, 5, 2),
        "means_init": rng.normal(scale=2, size=(5, 2)), "tol": 0}, seed=0)
    run.step()
    for st in run.history:
        mod = st.model
        if cov_type == "tied":  # one matrix over all clusters of all classes
            assert np.all(mod["covariances"] == mod["covariances"][0])
        ll, q, r = gm.brute_force(X, ml, cl, mod["weights"], mod["means"], mod["covariances"],
                                  mod["component_weights"], mod["class_of_component"])
        np.testing.assert_allclose(st.objective, ll, rtol=1e-11)
        np.testing.assert_allclose(st.responsibilities, q, atol=1e-11)
        np.testing.assert_allclose(st.extras["component_responsibilities"], r, atol=1e-11)


@pytest.mark.parametrize("cov_type", COVARIANCE_TYPES)
def test_constrained_em_and_ppc_e_steps_equal_brute_force_for_each_type(cov_type):
    rng = np.random.default_rng(4)
    X, cons = cem.random_problem(rng, n_ml=2, n_cl=4)
    w, m = rng.dirichlet(np.ones(3) * 2), rng.normal(size=(3, 2))
    c = random_covariances(rng, cov_type, 3, 2)
    for assumption in (1, 2):
        run = cem.make_run(X, cons, w, m, c, sampling_assumption=assumption,
                           covariance_type=cov_type)
        run.step()
        for st in run.history:
            mod = st.model
            post, loglik, _ = cem.brute_force(X, cons, mod["weights"], mod["means"],
                                              mod["covariances"], assumption)
            np.testing.assert_allclose(st.responsibilities, post, atol=1e-10)
            np.testing.assert_allclose(st.objective, loglik, rtol=1e-12)
    links = Constraints(**pp.LINKS, n_samples=7)
    X, w, m, _ = pp.tiny_problem(0)
    c = random_covariances(rng, cov_type, 3, 2)
    kw = dict(weighting="uniform", must_link_weight=0.8, cannot_link_weight=1.3)
    run = Run("ppc", Dataset(X), links, params=pp.start(w, m, c, inference="exact",
                                                         omega="exact", covariance_type=cov_type,
                                                         **kw))
    run.step()
    for st in run.history:
        mod = st.model
        marg, loglik, _ = pp.brute_force(X, pp.dense_w(links, **kw), mod["weights"], mod["means"],
                                         mod["covariances"])
        np.testing.assert_allclose(st.responsibilities, marg, atol=1e-10)
        assert st.objective == pytest.approx(loglik, abs=1e-9)


@pytest.mark.parametrize("cov_type", ("tied", "diag", "spherical"))
def test_objectives_never_decrease_with_links_for_each_type(cov_type):
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(loc=(3 * i, i), scale=(1.0, 0.4), size=(25, 2)) for i in range(3)])
    y = np.repeat(np.arange(3), 25)
    pairs = rng.choice(75, size=(20, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    cons = Constraints(pairs[same], pairs[~same], n_samples=75)
    extra = {"gmpr-mixture": {"n_components_per_class": 2}, "ppc": {"inference": "exact"}}
    for name in GAUSSIAN_PLUGINS[1:]:
        run = Run(name, Dataset(X), cons, params={
            "n_components": 3, "covariance_type": cov_type, "tol": 0, "max_iter": 15,
            **extra.get(name, {})}, seed=1)
        run.run()
        obj = np.asarray(run.objectives)
        assert np.all(np.diff(obj) >= -1e-9 * np.abs(obj[1:])), name


def test_estimator_exposes_full_matrices_and_predicts_per_type():
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(size=(40, 2)), rng.normal(4, 0.5, size=(40, 2))])
    Xnew = rng.normal(2, 3, size=(15, 2))
    for cov_type in COVARIANCE_TYPES:
        est = make_estimator("gmpr", n_components=2, covariance_type=cov_type,
                             random_state=0).fit(X, cannot_link=[[0, 79]])
        assert est.covariances_.shape == (2, 2, 2)
        dens = np.column_stack([w * multivariate_normal(m, c).pdf(Xnew) for w, m, c in
                                zip(est.weights_, est.means_, est.covariances_, strict=True)])
        np.testing.assert_allclose(est.predict_proba(Xnew), dens / dens.sum(1, keepdims=True),
                                   atol=1e-12)


# -- the app's ellipses ----------------------------------------------------------------------------
def test_the_app_draws_circles_for_spherical_and_axis_aligned_ellipses_for_diag():
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(size=(30, 2)) @ [[2.0, 0.8], [0.0, 0.5]] + 5 * i
                   for i in range(2)])
    data = Dataset(X)
    for cov_type in COVARIANCE_TYPES:
        state = Run("gmm", data, params={"n_components": 2, "covariance_type": cov_type},
                    seed=0).state
        curves = build_frame(data, None, state).ellipses  # (k, sigmas, m, 2)
        assert curves is not None and curves.shape[:2] == (2, 2)
        rel = curves - state.model["means"][:, None, None, :]
        var = np.diagonal(state.model["covariances"], axis1=1, axis2=2)
        sx = np.sqrt(var[:, :1]) * [1.0, 2.0]  # (k, sigmas): the extent along each axis
        sy = np.sqrt(var[:, 1:]) * [1.0, 2.0]
        np.testing.assert_allclose(np.abs(rel[..., 0]).max(axis=2), sx, rtol=2e-2)
        np.testing.assert_allclose(np.abs(rel[..., 1]).max(axis=2), sy, rtol=2e-2)
        radius = np.hypot(rel[..., 0], rel[..., 1])
        axis_aligned = np.allclose((rel[..., 0] / sx[..., None]) ** 2
                                   + (rel[..., 1] / sy[..., None]) ** 2, 1.0, atol=1e-9)
        circle = np.allclose(radius, radius[..., :1], rtol=1e-9)
        assert axis_aligned == (cov_type != "full" and cov_type != "tied"), cov_type
        assert circle == (cov_type == "spherical"), cov_type


@pytest.mark.parametrize("cov_type", ("tied", "diag", "spherical"))
def test_half_steps_of_each_type_equal_whole_steps(cov_type):
    rng = np.random.default_rng(8)
    X = np.vstack([rng.normal(loc=4 * i, size=(15, 2)) for i in range(3)])
    cons = Constraints([(0, 1), (20, 21)], [(0, 20), (21, 40)], n_samples=45)
    for name in GAUSSIAN_PLUGINS:
        params = {"n_components": 3, "covariance_type": cov_type}
        whole = Run(name, Dataset(X), cons, params, seed=2)
        halves = Run(name, Dataset(X), cons, params, seed=2)
        for _ in range(2):
            whole.step()
            half = halves.half_step()
            assert half.model["covariances"].shape[1:] == (2, 2)
            after = halves.half_step()
            np.testing.assert_array_equal(half.model["covariances"], after.model["covariances"])
        assert all(a.equals(b) for a, b in zip(whole.history, halves.history, strict=True)), name
        halves.half_back()
        explanation = halves.explain(0)
        assert explanation is not None and f"{cov_type}:" in explanation.equation, name
