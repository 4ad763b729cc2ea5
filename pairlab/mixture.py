"""Gaussian-mixture machinery shared by GMM, GM-PR, constrained EM and PPC.

One implementation of the Cholesky-based log densities, the weighted M-step for means and
covariances, k-means++ seeding and the EM stepper skeleton :class:`MixtureAlgorithm`, whose one
E-step hook (:meth:`MixtureAlgorithm.e_step`, returning an :class:`EStep`) every mixture plugin
fills; the constrained algorithms also override, where the paper says so, the M-step's update of
the mixing weights.

Covariance types (``covariance_type``, as scikit-learn's ``GaussianMixture``): ``"full"`` one
matrix per component, ``"tied"`` one matrix shared by all components, ``"diag"`` one
axis-aligned (diagonal) matrix per component, ``"spherical"`` one variance per component. The
functions here hold the covariances and precision Cholesky factors in scikit-learn's shapes for
the type -- full (k, d, d), tied (d, d), diag (k, d), spherical (k,) -- and
:func:`full_covariances` expands them to (k, d, d) matrices, which is what a state's ``model``
holds (so drawing and the brute-force oracles need not know the type). The M-step for each type
is the maximiser of the expected complete-data log-likelihood sum_ik r_ik log N(x_i | mu_k,
Sigma_k) over that family of matrices (see docs/algorithms/covariance_types.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy import linalg

from .algorithm import Algorithm
from .errors import InvalidInputError
from .explanation import Bars, Explanation
from .params import Param
from .state import State

__all__ = [
    "COVARIANCE_TYPES",
    "MIXTURE_PARAMS",
    "EStep",
    "MixtureAlgorithm",
    "check_covariances",
    "compact_covariances",
    "covariance_shape",
    "estimate_log_gaussian",
    "full_covariances",
    "gaussian_m_step",
    "initial_parameters",
    "kmeans_plusplus",
    "log_normalize",
    "precision_cholesky",
    "weighted_log_prob",
]

_EPS = 10 * np.finfo(np.float64).eps

COVARIANCE_TYPES: tuple[str, ...] = ("full", "tied", "diag", "spherical")
#: how each type restricts the full update Σ_k of the M-step (docs/algorithms/covariance_types.md)
_COVARIANCE_UPDATE = {
    "full": "",
    "tied": ";  tied: one Σ = Σ_k N_k Σ_k / Σ_k N_k for all k",
    "diag": ";  diag: only the diagonal of Σ_k is kept",
    "spherical": ";  spherical: Σ_k = (tr Σ_k / d) I",
}

MIXTURE_PARAMS: tuple[Param, ...] = (
    Param("n_components", int, 2, "number of mixture components (classes)", low=1),
    Param("covariance_type", str, "full", "covariance shape: full (one matrix per component), "
          "tied (one matrix shared by all), diag (axis-aligned per component) or spherical (one "
          "variance per component)", choices=COVARIANCE_TYPES),
    Param("reg_covar", float, 1e-6, "added to the covariance diagonals", low=0.0, finite=True),
    Param("tol", float, 1e-3, "stop when the mean log-likelihood per point moves less", low=0.0),
    Param("max_iter", int, 100, "maximum number of EM iterations", low=1),
    Param("init", str, "k-means++", "how to pick initial means", choices=("k-means++", "random")),
    Param("means_init", np.ndarray, None, "initial means (k, d)", nullable=True),
    Param("weights_init", np.ndarray, None, "initial weights (k,)", nullable=True),
    Param("covariances_init", np.ndarray, None, "initial covariances: (k, d, d) matrices of the "
          "covariance_type's form, or its own shape (tied (d, d), diag (k, d), spherical (k,))",
          nullable=True),
)


def _check_type(covariance_type: str) -> None:
    if covariance_type not in COVARIANCE_TYPES:
        raise InvalidInputError(f"covariance_type must be one of {', '.join(COVARIANCE_TYPES)}; "
                                f"got {covariance_type!r}.")


def covariance_shape(covariance_type: str, k: int, d: int) -> tuple[int, ...]:
    """scikit-learn's shape of the covariances (and precision Cholesky factors) of a type."""
    _check_type(covariance_type)
    return {"full": (k, d, d), "tied": (d, d), "diag": (k, d), "spherical": (k,)}[covariance_type]


def full_covariances(covariances: np.ndarray, covariance_type: str, k: int,
                     d: int | None = None) -> np.ndarray:
    """The (k, d, d) matrices of covariances held in the type's own shape (``d`` for spherical)."""
    _check_type(covariance_type)
    covariances = np.asarray(covariances, dtype=float)
    if covariance_type == "full":
        return covariances
    if covariance_type == "tied":
        return np.repeat(covariances[None], k, axis=0)
    if covariance_type == "diag":
        d = covariances.shape[1]
        out = np.zeros((k, d, d))
        out[:, np.arange(d), np.arange(d)] = covariances
        return out
    if d is None:
        raise ValueError("full_covariances needs d for spherical covariances")
    return covariances[:, None, None] * np.eye(d)


def compact_covariances(covariances: np.ndarray, covariance_type: str,
                        name: str = "covariances") -> np.ndarray:
    """Inverse of :func:`full_covariances`: the type's shape from (k, d, d) matrices of its form.

    Raises :class:`InvalidInputError` when the matrices are not of that form (off-diagonal
    entries for diag, unequal variances for spherical, different matrices for tied).
    """
    _check_type(covariance_type)
    covs = np.asarray(covariances, dtype=float)
    if covariance_type == "full":
        return covs
    diag = np.diagonal(covs, axis1=1, axis2=2)
    scale = max(float(np.abs(covs).max(initial=0.0)), np.finfo(float).tiny)
    tol = 1e-12 * scale
    if covariance_type == "tied":
        ok = bool(np.all(np.abs(covs - covs[:1]) <= tol))
        want, out = "one matrix shared by every component", covs[0]
    else:
        ok = bool(np.all(np.abs(covs - diag[:, :, None] * np.eye(covs.shape[1])) <= tol))
        want, out = "diagonal matrices", diag
        if covariance_type == "spherical":
            ok = ok and bool(np.all(np.abs(diag - diag[:, :1]) <= tol))
            want, out = "multiples of the identity", diag[:, 0]
    if not ok:
        raise InvalidInputError(
            f"{name} are (k, d, d) matrices but covariance_type={covariance_type!r} needs {want}; "
            f"give them in that form or in the type's own shape, or change covariance_type.")
    return np.array(out)


def precision_cholesky(covariances: np.ndarray, covariance_type: str = "full") -> np.ndarray:
    """Cholesky factors of the precisions in the type's shape; clear error if one is singular.

    full (k, d, d) and tied (d, d): the upper factor ``P`` with ``P P^T = Sigma^-1``; diag (k, d)
    and spherical (k,): ``1 / sqrt(variance)``.
    """
    _check_type(covariance_type)
    covariances = np.asarray(covariances, dtype=float)
    ndim = {"full": 3, "tied": 2, "diag": 2, "spherical": 1}[covariance_type]
    if covariances.ndim != ndim:  # a plugin passed another type's covariances: a bug, not input
        raise ValueError(f"covariances of shape {covariances.shape} are not of covariance_type "
                         f"{covariance_type!r}; compute them with gaussian_m_step(..., "
                         "covariance_type) (MixtureAlgorithm.gaussian_m_step)")
    singular = InvalidInputError(
        "a covariance is singular or not positive definite (a component collapsed onto too few "
        "or duplicate points); increase reg_covar, use fewer components, or remove duplicate "
        "points.")
    if covariance_type in ("diag", "spherical"):
        if not np.all(covariances > 0):
            raise singular
        return 1.0 / np.sqrt(covariances)
    tied = covariance_type == "tied"
    stack = covariances[None] if tied else covariances
    k, d, _ = stack.shape
    out = np.empty_like(stack)
    eye = np.eye(d)
    for j in range(k):
        try:
            chol = linalg.cholesky(stack[j], lower=True)
        except linalg.LinAlgError:
            what = "the shared (tied) covariance" if tied else f"covariance of component {j}"
            raise InvalidInputError(
                f"{what} is singular or not positive definite (a component "
                "collapsed onto too few or duplicate points); increase reg_covar, use fewer "
                "components, or remove duplicate points."
            ) from None
        out[j] = linalg.solve_triangular(chol, eye, lower=True).T
    return out[0] if tied else out


def estimate_log_gaussian(X: np.ndarray, means: np.ndarray, prec_chol: np.ndarray,
                          covariance_type: str = "full") -> np.ndarray:
    """log N(x_i | mu_k, Sigma_k) for every point and component, shape (n, k).

    ``prec_chol`` is :func:`precision_cholesky` of the covariances of ``covariance_type``.
    """
    n, d = X.shape
    k = means.shape[0]
    if covariance_type in ("full", "tied"):
        # ||P^T (x_i - mu_k)||^2 in the (d, n) layout: long contiguous rows, one buffer reused
        # (full, n = 100,000, d = 10, k = 4, one BLAS thread: measured 30 -> 23 ms against the
        # row-major loop)
        XT = np.ascontiguousarray(X.T)
        y = np.empty((d, n))
        maha_t = np.empty((k, n))
        if covariance_type == "tied":
            log_det = np.log(np.diagonal(prec_chol)).sum()
            XP = prec_chol.T @ XT  # the shared factor: one product for all k
            MP = means @ prec_chol
        else:
            log_det = np.log(np.diagonal(prec_chol, axis1=1, axis2=2)).sum(axis=1)
        for j in range(k):
            if covariance_type == "tied":
                np.subtract(XP, MP[j][:, None], out=y)
            else:
                np.matmul(prec_chol[j].T, XT, out=y)
                y -= (means[j] @ prec_chol[j])[:, None]
            y *= y
            y.sum(axis=0, out=maha_t[j])
        maha = np.ascontiguousarray(maha_t.T)
    elif covariance_type == "diag":
        # sum_l p_kl (x_il - mu_kl)^2 expanded into matrix products (as scikit-learn does)
        log_det = np.log(prec_chol).sum(axis=1)
        prec = prec_chol**2
        maha = (X * X) @ prec.T
        maha += X @ (-2.0 * means * prec).T
        maha += (means**2 * prec).sum(axis=1)
    elif covariance_type == "spherical":
        log_det = d * np.log(prec_chol)
        prec = prec_chol**2
        maha = X @ (-2.0 * means.T)
        maha += np.einsum("ij,ij->i", X, X)[:, None]
        maha += (means**2).sum(axis=1)
        maha *= prec
    else:
        _check_type(covariance_type)
    # in place on the one (n, k) array: -0.5 (d log 2 pi + maha) + log det P
    maha *= -0.5
    maha += log_det - 0.5 * d * np.log(2 * np.pi)
    return maha


#: Rows up to this long are reduced column by column (:func:`_row_reduce`).
_COLUMNWISE = 7


def _row_reduce(ufunc: np.ufunc, a: np.ndarray) -> np.ndarray:
    """``ufunc.reduce(a, axis=1)`` of an (n, k) array, the same bits, column by column when
    ``k <= 7``: numpy reduces a short last axis slowly (n = 9,216, k = 4: about 10x slower than
    k passes over the columns), and for rows shorter than 8 it adds them left to right, the
    order of the passes here (``tests/test_mixture.py`` checks the bits)."""
    k = a.shape[1]
    if not 1 <= k <= _COLUMNWISE:
        return ufunc.reduce(a, axis=1)
    out = a[:, 0].copy()
    for j in range(1, k):
        ufunc(out, a[:, j], out=out)
    return out


def log_normalize(log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-normalise ``exp(log_p)``: return ``(posteriors, log_norm)`` with log_norm = logsumexp.

    One pass of exp instead of ``scipy.special.logsumexp`` followed by a second exp (measured: 20
    gmm E+M steps at n = 100,000 took 0.47 s instead of 0.77 s). Rows of all ``-inf`` give
    ``log_norm = -inf`` and uniform posteriors rather than NaN.
    """
    m = _row_reduce(np.maximum, log_p)
    empty = ~np.isfinite(m)  # rows without any finite entry
    m[empty] = 0.0
    shifted = log_p - m[:, None]
    # exp of arguments below about -708 yields subnormals and is ~40x slower; terms below e^-700
    # relative to the row's largest are negligible in double precision, so they count as zero.
    shifted[shifted < -700.0] = -np.inf
    post = np.exp(shifted, out=shifted)
    post[empty] = 1.0
    total = _row_reduce(np.add, post)
    with np.errstate(divide="ignore"):
        log_norm = np.log(total) + m
    log_norm[empty] = -np.inf
    post /= total[:, None]
    return post, log_norm


def gaussian_m_step(
    X: np.ndarray, resp: np.ndarray, reg_covar: float, covariance_type: str = "full"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted means and covariances (GM-PR eq. 16-18 with ``resp`` the per-point posteriors).

    Returns ``(nk, means, covariances)`` where ``nk`` is the total responsibility of each
    component (plus a tiny epsilon, as scikit-learn adds, so an empty component stays finite)
    and the covariances have the shape of ``covariance_type``. With S_k = sum_i r_ik (x_i -
    mu_k)(x_i - mu_k)^T / N_k, the maximisers of sum_ik r_ik log N(x_i | mu_k, Sigma_k) are:
    full S_k; tied sum_k N_k S_k / sum_k N_k; diag diag(S_k); spherical tr(S_k) / d. ``reg_covar``
    is added as scikit-learn adds it: to every diagonal entry (full, tied, diag) and to the
    variance (spherical, the mean of the regularised diagonal).
    """
    nk = resp.sum(axis=0) + _EPS
    k, d = resp.shape[1], X.shape[1]
    if covariance_type == "full":
        means = (resp.T @ X) / nk[:, None]
        covs = np.empty((k, d, d))
        # Y = (X - mu_k)^T diag(sqrt r_k) in the (d, n) layout, so Y Y^T is one symmetric rank-n
        # update; one buffer for all k (n = 100,000, d = 10, k = 4, one BLAS thread: measured
        # 54 -> 31 ms against (r_k * diff.T) @ diff).
        XT = np.ascontiguousarray(X.T)
        sqrt_r = np.sqrt(resp.T)
        y = np.empty((d, X.shape[0]))
        for j in range(k):
            np.subtract(XT, means[j][:, None], out=y)
            y *= sqrt_r[j]
            covs[j] = (y @ y.T) / nk[j]
            covs[j].flat[:: d + 1] += reg_covar
        return nk, means, covs
    _check_type(covariance_type)
    means = (resp.T @ X) / nk[:, None]
    # Second moments about the weighted data mean c, E[(x-c)(x-c)^T] - (mu-c)(mu-c)^T: shifting
    # by c keeps the cancellation to the spread of the data, not its distance from 0.
    c = (nk @ means) / nk.sum()
    mc = means - c
    Xc = X - c  # the one (n, d) work buffer, squared or scaled in place below
    if covariance_type == "tied":
        Xc *= np.sqrt(resp.sum(axis=1))[:, None]  # row weights sum_k r_ik (1 for posteriors)
        cov = (Xc.T @ Xc - (nk * mc.T) @ mc) / nk.sum()
        cov.flat[:: d + 1] += reg_covar
        return nk, means, cov
    np.square(Xc, out=Xc)
    var = (resp.T @ Xc) / nk[:, None] - mc**2 + reg_covar
    if covariance_type == "spherical":
        var = var.mean(axis=1)
    return nk, means, var


def kmeans_plusplus(X: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding (Arthur & Vassilvitskii) with greedy local trials, as scikit-learn does."""
    n = X.shape[0]
    if k > n:
        raise InvalidInputError(f"cannot pick {k} initial means from {n} points; lower n_components.")
    trials = 2 + int(np.log(k))
    centers = np.empty((k, X.shape[1]))
    centers[0] = X[rng.integers(n)]
    sq = ((X - centers[0]) ** 2).sum(axis=1)
    for c in range(1, k):
        total = sq.sum()
        if total <= 0:
            centers[c] = X[rng.integers(n)]
            continue
        cand = np.searchsorted(np.cumsum(sq), rng.random(trials) * total)
        cand = np.minimum(cand, n - 1)
        d_cand = ((X[None, :, :] - X[cand][:, None, :]) ** 2).sum(axis=2)
        np.minimum(sq, d_cand, out=d_cand)
        best = int(np.argmin(d_cand.sum(axis=1)))
        centers[c] = X[cand[best]]
        sq = d_cand[best]
    return centers


def nearest_mean_responsibilities(X: np.ndarray, means: np.ndarray) -> np.ndarray:
    """One-hot (n, k) assignment of every point to its nearest mean."""
    d2 = ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    resp = np.zeros_like(d2)
    resp[np.arange(X.shape[0]), d2.argmin(axis=1)] = 1.0
    return resp


def initial_parameters(
    X: np.ndarray, params: dict[str, Any], rng: np.random.Generator, k: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starting ``(weights, means, covariances)`` (GM-PR section 4.1).

    Means from ``means_init`` or k-means++ (or ``k`` random points with ``init="random"``);
    covariances (in the shape of ``params["covariance_type"]``, default full) from
    ``covariances_init`` or from the nearest-mean assignment; weights from ``weights_init`` or
    uniform.
    """
    n, d = X.shape
    k = params["n_components"] if k is None else k
    covariance_type = params.get("covariance_type", "full")
    if not np.isfinite(params["reg_covar"]):
        raise InvalidInputError("reg_covar must be a finite number >= 0 (it is added to the "
                                f"covariance diagonals), got {params['reg_covar']}.")
    if n < k:
        raise InvalidInputError(f"n_components={k} exceeds the number of points ({n}).")
    means = params.get("means_init")
    if means is None:
        if params.get("init", "k-means++") == "random":
            means = X[rng.choice(n, size=k, replace=False)]
        else:
            means = kmeans_plusplus(X, k, rng)
    means = _check_shape(means, (k, d), "means_init")
    covs = params.get("covariances_init")
    if covs is None:
        _, _, covs = gaussian_m_step(X, nearest_mean_responsibilities(X, means),
                                     params["reg_covar"], covariance_type)
    else:
        covs = check_covariances(covs, covariance_type, k, d, "covariances_init")
    weights = params.get("weights_init")
    weights = np.full(k, 1.0 / k) if weights is None else _check_shape(weights, (k,), "weights_init")
    if (weights < 0).any() or not np.isclose(weights.sum(), 1.0):
        raise InvalidInputError("weights_init must be non-negative and sum to 1.")
    return np.array(weights, dtype=float), np.array(means, dtype=float), np.array(covs, dtype=float)


def _check_shape(arr: Any, shape: tuple[int, ...], name: str) -> np.ndarray:
    arr = np.asarray(arr, dtype=float)
    if arr.shape != shape:
        raise InvalidInputError(f"{name} must have shape {shape}, got {arr.shape}.")
    return arr


def check_covariances(covs: Any, covariance_type: str, k: int, d: int,
                      name: str = "covariances_init") -> np.ndarray:
    """``covs`` in the type's shape, given either in that shape or as (k, d, d) matrices."""
    shape = covariance_shape(covariance_type, k, d)
    arr = np.asarray(covs, dtype=float)
    if arr.shape == shape:
        return arr
    if arr.shape == (k, d, d):
        return compact_covariances(arr, covariance_type, name)
    also = "" if covariance_type == "full" else f" or {shape} (covariance_type={covariance_type!r})"
    raise InvalidInputError(f"{name} must have shape {(k, d, d)}{also}, got {arr.shape}.")


@dataclass(frozen=True)
class EStep:
    """What one E-step computes under parameters theta (:meth:`MixtureAlgorithm.e_step`).

    ``responsibilities``: the (n, k) posteriors of the labels (or their approximation);
    ``objective``: what EM increases, at theta; ``extras``: the state's extras, handed to the next
    E-step as its ``previous``; ``labels``: when not the first arg max of each row of
    ``responsibilities``; ``model``: entries of the state's model besides the weights, means,
    covariances and precision factors.
    """

    responsibilities: np.ndarray
    objective: float
    extras: dict[str, Any] = field(default_factory=dict)
    labels: np.ndarray | None = None
    model: dict[str, Any] = field(default_factory=dict)


class MixtureAlgorithm(Algorithm):
    """EM skeleton for Gaussian mixtures (the template of scikit-learn's ``BaseMixture``).
    Subclasses fill :meth:`e_step` and may override :meth:`m_step`.

    A state at iteration t holds the parameters theta_t in ``model`` and the posteriors and
    objective computed under theta_t; :meth:`step` is one M-step (:meth:`half_step`) then one
    E-step (:meth:`finish_step`), so the parameter sequence is exactly EM's (and scikit-learn's).
    The parameters travel as the tuple :meth:`m_step` returns: weights, means, covariances, then
    any a subclass adds (GM-PR's cluster proportions).

    Covariances travel between the steps in the shape of :attr:`covariance_type`;
    ``model["covariances"]`` holds them as (k, d, d) matrices whatever the type, and
    ``model["precisions_cholesky"]`` in the type's own (scikit-learn's) shape.
    """

    params: ClassVar[tuple[Param, ...]] = MIXTURE_PARAMS
    accepts_means_init: ClassVar[bool] = True
    objective_name: ClassVar[str] = "log-likelihood"
    #: states describe a Gaussian mixture: the estimator offers score, bic, aic and sample
    gaussian_mixture: ClassVar[bool] = True

    @property
    def covariance_type(self) -> str:
        return self.params.get("covariance_type", "full")

    def initialize(self) -> State:
        return self.make_state(0, initial_parameters(self.X, self.params, self.rng), {})

    phases: ClassVar[tuple[str, ...]] = ("M-step", "E-step")
    #: the E-step as the paper writes it, shown by :meth:`explain`
    e_step_equation: ClassVar[str] = (
        "E-step: r_ik = α_k N(x_i | μ_k, Σ_k) / Σ_j α_j N(x_i | μ_j, Σ_j)")
    m_step_equation: ClassVar[str] = (
        "M-step: α_k = N_k / N,  μ_k = Σ_i r_ik x_i / N_k,  "
        "Σ_k = Σ_i r_ik (x_i - μ_k)(x_i - μ_k)ᵀ / N_k,  N_k = Σ_i r_ik")

    def half_step(self, state: State) -> State:
        """The M-step: new parameters, the posteriors still those of ``state``."""
        parameters = tuple(self.m_step(state))
        weights, means, covs = parameters[:3]
        model = {**state.model, "weights": weights, "means": means,
                 "covariances": self.full_covariances(covs, means.shape[0]),
                 "precisions_cholesky": precision_cholesky(covs, self.covariance_type)}
        return State(iteration=state.iteration + 1, labels=state.labels,
                     responsibilities=state.responsibilities, objective=None,
                     objective_name=self.objective_name, model=model,
                     extras={"parameters": parameters, "previous_extras": state.extras},
                     phase=self.phases[0])

    def finish_step(self, half: State) -> State:
        """The E-step under the parameters :meth:`half_step` chose; means moved by hand in the
        half-state's model (the teaching app's drag) are the ones used."""
        parameters = tuple(half.extras["parameters"])
        means = half.model.get("means")
        if means is not None and means is not parameters[1]:
            parameters = (parameters[0], np.asarray(means, dtype=float), *parameters[2:])
        return self.make_state(half.iteration, parameters, half.extras["previous_extras"])

    def explain(self, state: State, index: int) -> Explanation | None:
        """The E-step's numbers for one point: its responsibilities (and, after the M-step
        half, the responsibilities the coming E-step will give under the new parameters)."""
        r = np.asarray(state.responsibilities[index])
        labels = tuple(f"k={j}" for j in range(r.size))
        if state.phase == self.phases[0]:
            return Explanation(
                point=index, phase=state.phase,
                equation=self.m_step_equation + _COVARIANCE_UPDATE[self.covariance_type],
                text=("The M-step moved the Gaussians using these responsibilities (from the "
                      "previous E-step); the next half-step recomputes them."),
                bars=(Bars("responsibilities used by the M-step", labels, r, int(r.argmax())),))
        return Explanation(point=index, phase="E-step", equation=self.e_step_equation,
                           bars=(Bars("responsibilities r_ik", labels, r, int(r.argmax())),))

    def make_state(self, iteration: int, parameters: tuple[np.ndarray, ...],
                   previous: Mapping[str, Any]) -> State:
        """The state at ``iteration`` for ``parameters`` (weights, means, covariances in the
        type's shape, ...): runs :meth:`e_step`, ``previous`` being the last E-step's extras."""
        weights, means, covs = parameters[:3]
        prec_chol = precision_cholesky(covs, self.covariance_type)
        e = self.e_step(parameters, prec_chol, previous)
        resp = e.responsibilities
        return State(
            iteration=iteration,
            labels=resp.argmax(axis=1) if e.labels is None else e.labels,
            responsibilities=resp,
            objective=e.objective,
            objective_name=self.objective_name,
            model={"weights": weights, "means": means,
                   "covariances": self.full_covariances(covs, means.shape[0]),
                   "precisions_cholesky": prec_chol, **e.model},
            extras=e.extras,
        )

    def full_covariances(self, covs: np.ndarray, k: int) -> np.ndarray:
        """(k, d, d) matrices of covariances in the shape of :attr:`covariance_type`."""
        return full_covariances(covs, self.covariance_type, k, self.X.shape[1])

    def log_gaussian(self, X: np.ndarray, means: np.ndarray, prec_chol: np.ndarray) -> np.ndarray:
        """:func:`estimate_log_gaussian` for this algorithm's covariance type."""
        return estimate_log_gaussian(X, means, prec_chol, self.covariance_type)

    def weighted_log_prob(self, X: np.ndarray, weights: np.ndarray, means: np.ndarray,
                          prec_chol: np.ndarray) -> np.ndarray:
        """:func:`weighted_log_prob` for this algorithm's covariance type."""
        return weighted_log_prob(X, weights, means, prec_chol, self.covariance_type)

    def gaussian_m_step(self, X: np.ndarray, resp: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`gaussian_m_step` with this algorithm's ``reg_covar`` and covariance type."""
        return gaussian_m_step(X, resp, self.params["reg_covar"], self.covariance_type)

    def e_step(self, parameters: tuple[np.ndarray, ...], prec_chol: np.ndarray,
               previous: Mapping[str, Any]) -> EStep:
        """The E-step hook: posteriors and objective under ``parameters`` (``prec_chol`` their
        precision factors in the covariance type's shape). ``previous`` holds the extras of the
        E-step before (empty at iteration 0), for E-steps that start where the last one ended.

        What each built-in computes:

        * ``gmm``: r_ik = α_k N(x_i | μ_k, Σ_k) / Σ_j α_j N(x_i | μ_j, Σ_j) (GM-PR eq. 11, a
          point in no link); objective the log-likelihood Σ_i log Σ_k α_k N(x_i | μ_k, Σ_k).
        * ``em-pc`` (Graça et al. 2007): the posterior projected onto the cannot-link set,
          q* = arg min KL(q || p(Z | X)) s.t. q_a(k) + q_b(k) <= 1, through its dual;
          objective log p(X) - KL(q* || p(Z | X)).
        * ``constrained-em`` (Shental et al. 2004): exact chunklet posteriors p(y_j | X, Θ, E),
          eq. 3 (must-links) and eq. 9 (cannot-links), by sum-product on the link network;
          objective log p(X | Θ, E) with the normaliser Z(α) of eq. 10.
        * ``ppc`` (Lu & Leen 2007): marginals P_p(z_i = k | X, Θ, W) under the prior of eq. 2.8,
          exact per clique, by Gibbs sampling (eq. 3.1) or by mean field (eq. 3.5); the last two
          start from ``previous``'s sample or Q; objective log P_p(X | Θ, W), Ω of eq. 2.12.
        * ``gmpr`` (Yu et al. 2016): exact class posteriors, eq. 11 (free points), eq. 12
          (must-linked chunklets), eq. 14 (cannot-links); ``gmpr-mixture`` with class densities
          Σ_k π_mk N(x | μ_mk, Σ_mk) (eq. 21, 27, 29) and cluster posteriors (eq. 26, 28);
          objective the observed-data log-likelihood.
        """
        raise NotImplementedError

    def m_step(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Default M-step: weights proportional to total responsibility (GMM)."""
        nk, means, covs = self.gaussian_m_step(self.X, state.responsibilities)
        return nk / nk.sum(), means, covs

    def converged(self, previous: State, current: State) -> bool:
        change = (current.objective - previous.objective) / self.dataset.n_samples
        return abs(change) < self.params["tol"]

    def predict_proba(self, state: State, X: np.ndarray) -> np.ndarray:
        """Posterior over components of unseen points under the fitted mixture (GM-PR eq. 11)."""
        log_p = self.weighted_log_prob(X, state.model["weights"], state.model["means"],
                                       state.model["precisions_cholesky"])
        return log_normalize(log_p)[0]


def weighted_log_prob(X: np.ndarray, weights: np.ndarray, means: np.ndarray,
                      prec_chol: np.ndarray, covariance_type: str = "full") -> np.ndarray:
    """log alpha_k + log N(x_i | mu_k, Sigma_k), shape (n, k); log 0 = -inf for empty weights."""
    with np.errstate(divide="ignore"):
        return estimate_log_gaussian(X, means, prec_chol, covariance_type) + np.log(weights)
