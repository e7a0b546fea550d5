"""Gaussian copula of model errors: fitting, sampling and validation diagnostics.

The paper (Section 3, Algorithm "Gaussian-Copula Fitting and Synthetic Generation")
models the error indicators ``E_j = 1(X_j != Y)`` of ``m`` models through a latent
Gaussian vector ``Z ~ N(0, Sigma)`` (``Sigma`` a correlation matrix) and thresholds
``tau_j = Phi^-1(eps_j)``::

    E_j = 1(Z_j < tau_j),        X_j = Y * (1 - 2 E_j).

In the equicorrelated case ``Sigma_ij = rho`` this is the one-factor model
``Z_j = sqrt(rho) U + sqrt(1 - rho) xi_j``.

Error convention: an abstention (answer ``0``) counts as an error, ``E = 1`` -- the model
did not give the right answer (see :func:`errors_from`).

Why one module of this size: fitting, sampling, the tetrachoric solver and the paper's two
diagnostics share the vectorised bivariate normal CDF and the threshold conventions.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import check_is_fitted
from ensel._validation import (
    Interval,
    Shown,
    check_copula_parameters,
    check_errors,
    check_int,
    check_probabilities,
    check_random_state,
    check_real,
    check_X_y,
    constraint_error,
    validate_params,
)

__all__ = [
    "average_correlation",
    "bivariate_normal_cdf",
    "bivariate_normal_pdf",
    "copula_diagnostics",
    "CopulaDiagnostics",
    "errors_from",
    "fit_gaussian_copula",
    "GaussianCopula",
    "model_pairwise_joint_errors",
    "nearest_correlation",
    "pairwise_joint_errors",
    "sample",
    "sample_equicorrelated",
    "sample_errors",
    "simultaneous_error_distribution",
    "solve_tetrachoric",
    "tetrachoric",
    "tetrachoric_matrix",
    "thresholds",
]


# ----------------------------------------------------------------------------- helpers
#: Declared constraints of the public functions (checked by ``validate_params``).
_ARR = ["array-like"]
_ARR_OR_REAL = ["array-like", "real"]
_N = [Interval(Integral, 1, None)]
_RS = ["random_state", None]
_EPS = [Interval(Real, 0, 0.5, closed="neither")]


def _labels(rng: np.random.Generator, n: int, balanced: bool) -> np.ndarray:
    if balanced:
        y = np.where(np.arange(n) < (n + 1) // 2, 1, -1).astype(np.int8)
        return rng.permutation(y)
    return np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)


# ----------------------------------------------------------------------------- errors


@validate_params({"X": _ARR, "y": _ARR})
def errors_from(X: Any, y: Any) -> np.ndarray:
    """Error indicators ``E_ij = 1(X_ij != y_i)``.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
        Answers in ``{-1, 0, +1}`` (``0`` = abstained).
    y : array-like of shape (n_items,)
        Labels in ``{-1, +1}``.

    Returns
    -------
    numpy.ndarray of shape (n_items, n_models), dtype int8
        ``1`` where the model is wrong. An abstention (``0``) is never equal to the label,
        so it counts as an error: the model did not deliver the right answer.
    """
    Xa, ya = check_X_y(X, y)
    return (Xa != ya[:, None]).astype(np.int8)


# ----------------------------------------------------------------------------- sampling


@validate_params({"tau": _ARR, "Sigma": _ARR, "n": _N, "random_state": _RS})
def sample_errors(tau: Any, Sigma: Any, n: int, *,
                  random_state: int | np.random.Generator | None = None) -> np.ndarray:
    """Sample error indicators ``E = 1(Z < tau)`` with ``Z ~ N(0, Sigma)``.

    Parameters
    ----------
    tau : array-like of shape (m,)
        Latent thresholds (``Phi(tau_j)`` is model ``j``'s error rate).
    Sigma : array-like of shape (m, m)
        Correlation matrix (symmetric, unit diagonal, positive semi-definite).
    n : int
        Number of items.
    random_state : int, numpy.random.Generator or None
        Seed; the same seed gives the same sample.

    Returns
    -------
    numpy.ndarray of shape (n, m), dtype int8

    Notes
    -----
    The same seed gives the same sample on every machine but with a negligible probability:
    the square root of ``Sigma`` (an eigendecomposition) and the product with the normal
    draws run through BLAS, whose last bits depend on the CPU's kernels, so ``Z`` moves by
    about ``1e-15`` between machines and a comparison ``Z_j < tau_j`` flips with probability
    about ``0.4e-15`` (``2e-9`` for ``n m = 2.6`` million). That holds when ``tau`` and
    ``Sigma`` themselves carry no more than rounding noise (a fit by
    :class:`GaussianCopula`: about ``2e-15``); parameters out of an iterative fit that stops
    short of its optimum are made stable first (the stand-ins round theirs, see
    :mod:`ensel.datasets.standins`).
    """
    t, S = check_copula_parameters(tau, Sigma)
    n = check_int(n, "n", low=1)
    rng = check_random_state(random_state)
    # symmetric square root via eigh: works for PSD matrices with zero eigenvalues too
    w, V = np.linalg.eigh(S)
    if w.min() < -1e-8:
        raise constraint_error("Sigma", "positive semi-definite (project it first, e.g. with "
                               "fit_gaussian_copula)",
                               Shown(f"a smallest eigenvalue of {w.min():.3g}"))
    root = V * np.sqrt(np.clip(w, 0.0, None))
    Z = rng.standard_normal((n, t.shape[0])) @ root.T
    return (Z < t).astype(np.int8)


@validate_params({"tau": _ARR, "Sigma": _ARR, "n": _N, "random_state": _RS,
                  "balanced": ["boolean"]})
def sample(tau: Any, Sigma: Any, n: int, *, random_state: int | np.random.Generator | None = None,
           balanced: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic answers from a Gaussian copula (Algorithm 6, Phase 4).

    Parameters
    ----------
    tau, Sigma, n, random_state
        As in :func:`sample_errors`.
    balanced : bool, default=False
        ``False``: labels i.i.d. uniform on ``{-1, +1}`` as in the paper's Phase 4.
        ``True``: exactly ``ceil(n/2)`` positives, randomly permuted.

    Returns
    -------
    X : numpy.ndarray of shape (n, m), dtype int8
        ``X = y * (1 - 2 E)``.
    y : numpy.ndarray of shape (n,), dtype int8
    E : numpy.ndarray of shape (n, m), dtype int8
    """
    t, S = check_copula_parameters(tau, Sigma)
    n = check_int(n, "n", low=1)
    rng = check_random_state(random_state)
    y = _labels(rng, n, balanced)
    E = sample_errors(t, S, n, random_state=rng)
    X = (y[:, None] * (1 - 2 * E)).astype(np.int8)
    return X, y, E


@validate_params({"accuracy": [*_ARR, "real"], "rho": [Interval(Real, 0, 1)], "m": _N,
                  "n": _N, "random_state": _RS, "balanced": ["boolean"]})
def sample_equicorrelated(accuracy: Any, rho: float, m: int, n: int, *,
                          random_state: int | np.random.Generator | None = None,
                          balanced: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample the one-factor (equicorrelated) copula of the paper, Eq. (1).

    ``Z_j = sqrt(rho) U + sqrt(1 - rho) xi_j`` with ``U, xi_j ~ N(0, 1)`` independent,
    ``E_j = 1(Z_j < tau_j)``, ``tau_j = Phi^-1(1 - accuracy_j)``, ``X_j = Y (1 - 2 E_j)``.

    Parameters
    ----------
    accuracy : float or array-like of shape (m,)
        Marginal accuracies ``P(X_j = Y)`` in ``[0, 1]`` (a scalar is used for every model).
    rho : float
        Common latent correlation in ``[0, 1]`` (``0``: independent errors; ``1``: one shared
        latent variable, so equal-accuracy models always err together).
    m : int
        Number of models.
    n : int
        Number of items.
    random_state : int, numpy.random.Generator or None
        Seed; the same seed gives the same sample.
    balanced : bool, default=False
        Labels i.i.d. uniform (default) or exactly balanced (see :func:`sample`).

    Returns
    -------
    X : numpy.ndarray of shape (n, m), dtype int8
    y : numpy.ndarray of shape (n,), dtype int8
    E : numpy.ndarray of shape (n, m), dtype int8
    """
    from scipy.special import ndtri

    m = check_int(m, "m", low=1)
    n = check_int(n, "n", low=1)
    acc = check_probabilities(accuracy, "accuracy", size=m)
    rho = check_real(rho, "rho", low=0.0, high=1.0, what="the one-factor correlation")
    rng = check_random_state(random_state)
    y = _labels(rng, n, balanced)
    tau = ndtri(1.0 - acc)
    U = rng.standard_normal((n, 1))
    xi = rng.standard_normal((n, m))
    Z = np.sqrt(rho) * U + np.sqrt(1.0 - rho) * xi
    E = (Z < tau).astype(np.int8)
    X = (y[:, None] * (1 - 2 * E)).astype(np.int8)
    return X, y, E



# ----------------------------------------------------------------------------- bivariate normal

# Gauss-Legendre nodes/weights on [-1, 1] (10 of the 20-point rule, positive half), as in
# A. Genz (2004), "Numerical computation of rectangular bivariate and trivariate normal and
# t probabilities", Statistics and Computing 14, 251-260 (MATLAB bvnl.m).
_GL_W = np.array([
    0.01761400713915212, 0.04060142980038694, 0.06267204833410906, 0.08327674157670475,
    0.1019301198172404, 0.1181945319615184, 0.1316886384491766, 0.1420961093183821,
    0.1491729864726037, 0.1527533871307259,
])
_GL_X = np.array([
    0.9931285991850949, 0.9639719272779138, 0.9122344282513259, 0.8391169718222188,
    0.7463319064601508, 0.6360536807265150, 0.5108670019508271, 0.3737060887154196,
    0.2277858511416451, 0.07652652113349733,
])
# nodes mapped to [0, 2] (the rule integrates over [0, 1] with weights summing to 1 per half)
_NODES = np.concatenate([1.0 - _GL_X, 1.0 + _GL_X])
_WEIGHTS = np.concatenate([_GL_W, _GL_W])
_TWO_PI = 2.0 * np.pi


def _bvnu(dh: np.ndarray, dk: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Upper bivariate normal probability ``P(X > dh, Y > dk)`` for finite 1-d arrays.

    Genz's vectorised version of the Drezner-Wesolowsky method: Gauss-Legendre quadrature
    (20 points) of Plackett's identity for ``|r| < 0.925`` and of the asymptotic
    expansion around ``|r| = 1`` otherwise. Absolute error about 1e-15.
    """
    from scipy.special import ndtr

    out = np.empty(dh.shape, dtype=float)
    ar = np.abs(r)
    low = ar < 0.925
    if low.any():
        h, k, rr = dh[low], dk[low], r[low]
        hk = h * k
        hs = (h * h + k * k) / 2.0
        asr = np.arcsin(rr) / 2.0
        sn = np.sin(asr[:, None] * _NODES)
        bvn = np.exp((sn * hk[:, None] - hs[:, None]) / (1.0 - sn * sn)) @ _WEIGHTS
        out[low] = bvn * asr / _TWO_PI + ndtr(-h) * ndtr(-k)
    high = ~low
    if high.any():
        h, rr = dh[high], r[high]
        k = np.where(rr < 0, -dk[high], dk[high])
        hk = h * k
        inner = np.abs(rr) < 1.0
        bvn = np.zeros(h.shape)
        if inner.any():
            hi, ki, hki, ri = h[inner], k[inner], hk[inner], rr[inner]
            as_ = (1.0 - ri) * (1.0 + ri)
            a = np.sqrt(as_)
            bs = (hi - ki) ** 2
            asr = -(bs / as_ + hki) / 2.0
            c = (4.0 - hki) / 8.0
            d = (12.0 - hki) / 80.0
            with np.errstate(under="ignore", over="ignore"):
                t1 = np.where(
                    asr > -100,
                    a * np.exp(np.maximum(asr, -100.0))
                    * (1.0 - c * (bs - as_) * (1.0 - d * bs) / 3.0 + c * d * as_ * as_),
                    0.0,
                )
                b = np.sqrt(bs)
                sp = np.sqrt(_TWO_PI) * ndtr(-b / a)
                t2 = np.where(
                    hki > -100,
                    np.exp(-np.maximum(hki, -100.0) / 2.0) * sp * b
                    * (1.0 - c * bs * (1.0 - d * bs) / 3.0),
                    0.0,
                )
                val = t1 - t2
                a2 = a / 2.0
                xs = (a2[:, None] * _NODES) ** 2
                asr2 = -(bs[:, None] / xs + hki[:, None]) / 2.0
                sp2 = 1.0 + c[:, None] * xs * (1.0 + 5.0 * d[:, None] * xs)
                rs = np.sqrt(1.0 - xs)
                ep = np.exp(-(hki[:, None] / 2.0) * xs / (1.0 + rs) ** 2) / rs
                terms = np.where(
                    asr2 > -100, np.exp(np.maximum(asr2, -100.0)) * (ep - sp2), 0.0
                )
                val = val + a2 * (terms @ _WEIGHTS)
            bvn[inner] = -val / _TWO_PI
        res = np.empty(h.shape)
        pos = rr > 0
        res[pos] = bvn[pos] + ndtr(-np.maximum(h[pos], k[pos]))
        neg = ~pos
        if neg.any():
            hn, kn, bn = h[neg], k[neg], bvn[neg]
            L = np.where(hn < 0, ndtr(kn) - ndtr(hn), ndtr(-hn) - ndtr(-kn))
            res[neg] = np.where(hn >= kn, -bn, L - bn)
        out[high] = res
    return np.clip(out, 0.0, 1.0)


@validate_params({"h": _ARR_OR_REAL, "k": _ARR_OR_REAL, "rho": _ARR_OR_REAL})
def bivariate_normal_cdf(h: Any, k: Any, rho: Any) -> np.ndarray | float:
    """Standard bivariate normal CDF ``Phi_2(h, k; rho) = P(Z_1 <= h, Z_2 <= k)``.

    Vectorised over broadcastable ``h``, ``k``, ``rho`` (numpy only; Genz's 2004
    algorithm, absolute error about 1e-15). Infinite limits are allowed.

    Parameters
    ----------
    h, k : float or array-like
        Upper integration limits.
    rho : float or array-like
        Correlation in ``[-1, 1]``.

    Returns
    -------
    float or numpy.ndarray
        A plain float when all inputs are scalars.
    """
    from scipy.special import ndtr

    hh, kk, rr = np.broadcast_arrays(np.asarray(h, float), np.asarray(k, float),
                                     np.asarray(rho, float))
    scalar = hh.ndim == 0
    hh, kk, rr = (np.atleast_1d(a).ravel() for a in (hh, kk, rr))
    if np.isnan(hh).any() or np.isnan(kk).any() or np.isnan(rr).any():
        name = "h" if np.isnan(hh).any() else "k" if np.isnan(kk).any() else "rho"
        raise constraint_error(name, "free of NaN", Shown("NaN"))
    if (np.abs(rr) > 1).any():
        raise constraint_error("rho", "a correlation in [-1, 1]", float(rr[np.abs(rr) > 1][0]))
    out = np.empty(hh.shape)
    fin = np.isfinite(hh) & np.isfinite(kk)
    if fin.any():
        out[fin] = _bvnu(-hh[fin], -kk[fin], rr[fin])
    if (~fin).any():
        hi, ki = hh[~fin], kk[~fin]
        val = np.where(
            (hi == -np.inf) | (ki == -np.inf), 0.0,
            np.where(hi == np.inf, ndtr(ki), ndtr(hi)),
        )
        out[~fin] = val
    if scalar:
        return float(out[0])
    return out.reshape(np.broadcast_shapes(np.shape(h), np.shape(k), np.shape(rho)))


@validate_params({"h": _ARR_OR_REAL, "k": _ARR_OR_REAL, "rho": _ARR_OR_REAL})
def bivariate_normal_pdf(h: Any, k: Any, rho: Any) -> np.ndarray | float:
    """Standard bivariate normal density ``phi_2(h, k; rho)`` (``= d Phi_2 / d rho``).

    Vectorised like :func:`bivariate_normal_cdf`; returns ``0`` at ``|rho| = 1``, where the
    law is singular. A plain float when all inputs are scalars.
    """
    h = np.asarray(h, float)
    k = np.asarray(k, float)
    r = np.asarray(rho, float)
    one_m = (1.0 - r) * (1.0 + r)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        q = (h * h - 2.0 * r * h * k + k * k) / one_m
        dens = np.exp(-q / 2.0) / (_TWO_PI * np.sqrt(one_m))
    out = np.where(one_m > 0, np.nan_to_num(dens, nan=0.0, posinf=0.0), 0.0)
    return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------- tetrachoric

_BOUND_RTOL = 1e-12  # relative: Phi(Phi^-1(rate)) reproduces a rate to ~1e-16


@validate_params({"error_rates": [*_ARR, "real"], "eps": _EPS})
def thresholds(error_rates: Any, *, eps: float = 1e-6) -> np.ndarray:
    """Latent thresholds ``tau_j = Phi^-1(clamp(eps_j, eps, 1 - eps))`` (Phase 1)."""
    from scipy.special import ndtri

    eps = check_real(eps, "eps", low=0, high=0.5, low_open=True, high_open=True)
    rates = check_probabilities(error_rates, "error_rates")
    return ndtri(np.clip(rates, eps, 1.0 - eps))


@validate_params({"tau_i": _ARR_OR_REAL, "tau_j": _ARR_OR_REAL, "p_joint": _ARR_OR_REAL,
                  "tol": [Interval(Real, 0, None, closed="neither")],
                  "max_iter": [Interval(Integral, 1, None)]})
def solve_tetrachoric(tau_i: Any, tau_j: Any, p_joint: Any, *, tol: float = 1e-13,
                      max_iter: int = 100) -> np.ndarray:
    """Solve ``Phi_2(tau_i, tau_j; rho) = p_joint`` for ``rho``, vectorised over pairs.

    Safeguarded Newton iteration on all pairs at once: ``d Phi_2 / d rho = phi_2`` gives the
    Newton step, and a bracket ``[lo, hi]`` that always contains the root (``Phi_2`` is
    increasing in ``rho``) replaces any step leaving it by bisection.

    Parameters
    ----------
    tau_i, tau_j : array-like
        Finite thresholds (broadcastable).
    p_joint : array-like
        Target joint probabilities ``P(E_i = 1, E_j = 1)``.
    tol : float, default=1e-13
        Stop when every bracket or Newton step is below ``tol``.
    max_iter : int, default=100

    Returns
    -------
    numpy.ndarray
        ``rho`` in ``[-1, 1]``. The attainable range is the Frechet interval
        ``[max(0, p_i + p_j - 1), min(p_i, p_j)]`` with ``p = Phi(tau)``, reached at
        ``rho = -1`` and ``rho = +1``: a target at or below the lower bound returns ``-1``,
        at or above the upper bound returns ``+1``.
    """
    from scipy.special import ndtr

    ti, tj, pj = np.broadcast_arrays(np.asarray(tau_i, float), np.asarray(tau_j, float),
                                     np.asarray(p_joint, float))
    shape = ti.shape
    ti, tj, pj = (np.atleast_1d(a).ravel().copy() for a in (ti, tj, pj))
    if not (np.all(np.isfinite(ti)) and np.all(np.isfinite(tj))):
        name = "tau_i" if not np.all(np.isfinite(ti)) else "tau_j"
        raise constraint_error(name, "finite thresholds (clamp the error rates first)",
                               Shown("a non-finite value"))
    if np.isnan(pj).any():
        raise constraint_error("p_joint", "free of NaN", Shown("NaN"))
    pi, pjm = ndtr(ti), ndtr(tj)
    lower = np.maximum(0.0, pi + pjm - 1.0)
    upper = np.minimum(pi, pjm)
    rho = np.zeros(ti.shape)
    at_lo = pj <= lower * (1.0 + _BOUND_RTOL)
    at_hi = (pj >= upper * (1.0 - _BOUND_RTOL)) & ~at_lo
    rho[at_lo] = -1.0
    rho[at_hi] = 1.0
    act = np.flatnonzero(~(at_lo | at_hi))
    if act.size:
        a, b, target = ti[act], tj[act], pj[act]
        lo = np.full(act.size, -1.0)
        hi = np.full(act.size, 1.0)
        # start from the rho = 0 independence guess shifted by the linear term
        r = np.clip((target - pi[act] * pjm[act]) / np.maximum(
            bivariate_normal_pdf(a, b, 0.0), 1e-300), -0.99, 0.99)
        live = np.arange(act.size)
        for _ in range(max_iter):
            ra, aa, bb, tt = r[live], a[live], b[live], target[live]
            f = bivariate_normal_cdf(aa, bb, ra) - tt
            # shrink the bracket
            lo_l, hi_l = lo[live], hi[live]
            lo_l = np.where(f < 0, ra, lo_l)
            hi_l = np.where(f > 0, ra, hi_l)
            d = bivariate_normal_pdf(aa, bb, ra)
            with np.errstate(divide="ignore", invalid="ignore"):
                step = np.where(d > 0, f / d, np.inf)
            new = ra - step
            bad = ~np.isfinite(new) | (new <= lo_l) | (new >= hi_l)
            new = np.where(bad, 0.5 * (lo_l + hi_l), new)
            converged = (f == 0) | (np.abs(new - ra) < tol) | (hi_l - lo_l < tol)
            new = np.where(f == 0, ra, new)
            r[live], lo[live], hi[live] = new, lo_l, hi_l
            live = live[~converged]
            if live.size == 0:
                break
        rho[act] = np.clip(r, -1.0, 1.0)
    return rho.reshape(shape)


@validate_params({"e_i": _ARR, "e_j": _ARR, "eps": _EPS})
def tetrachoric(e_i: Any, e_j: Any, *, eps: float = 1e-6) -> float:
    """Tetrachoric correlation of two error indicator vectors (Algorithm 6, Phase 2).

    Solves ``Phi_2(tau_i, tau_j; rho) = P(E_i = 1, E_j = 1)`` with
    ``tau = Phi^-1(clamp(error rate, eps, 1 - eps))``.

    Parameters
    ----------
    e_i, e_j : array-like of shape (n_items,)
        0/1 error indicators (``1`` = wrong) of two models on the same items.
    eps : float, default=1e-6
        Clamp of the error rates (Phase 1 of the paper's algorithm).

    Returns
    -------
    float
        ``rho`` in ``[-1, 1]``.

        * Bounds: ``Phi_2`` ranges over the Frechet interval
          ``[max(0, p_i + p_j - 1), min(p_i, p_j)]`` (``rho = -1`` and ``+1``). A joint error
          rate at or below the lower bound returns ``-1.0``; at or above the upper bound
          (e.g. one model errs exactly where the other does, or on a subset of its errors)
          returns ``+1.0``.
        * Constant column: if either model is never wrong or always wrong, ``rho`` is not
          identifiable (every ``rho`` fits the data up to the clamp ``eps``); we return
          ``0.0`` (independence) so such a model adds no spurious dependence.

    Raises
    ------
    ValueError
        If the vectors are not 0/1, not 1-d, or differ in length.

    Examples
    --------
    >>> from ensel.copula import sample_errors
    >>> E = sample_errors([-1.0, -1.0], [[1, 0.5], [0.5, 1]], 20000, random_state=0)
    >>> round(tetrachoric(E[:, 0], E[:, 1]), 2)
    0.49
    """
    a = check_errors(e_i, name="e_i")
    b = check_errors(e_j, name="e_j")
    if a.ndim != 1 or b.ndim != 1:
        name = "e_i" if a.ndim != 1 else "e_j"
        raise constraint_error(name, "1-dimensional (one model's errors)",
                               Shown(f"shape {(a if a.ndim != 1 else b).shape}"))
    if a.shape[0] != b.shape[0]:
        raise constraint_error("e_j", f"of the same length as e_i ({a.shape[0]} items)",
                               Shown(f"{b.shape[0]} items"))
    R = tetrachoric_matrix(np.column_stack([a, b]), eps=eps)
    return float(R[0, 1])


@validate_params({"E": _ARR, "eps": _EPS})
def tetrachoric_matrix(E: Any, *, eps: float = 1e-6) -> np.ndarray:
    """All pairwise tetrachoric correlations of an error matrix (raw, before projection).

    Parameters
    ----------
    E : array-like of shape (n_items, n_models)
        0/1 error indicators.
    eps : float, default=1e-6
        Clamp of the error rates.

    Returns
    -------
    numpy.ndarray of shape (n_models, n_models)
        Symmetric with unit diagonal; entries as in :func:`tetrachoric` (bounds give
        ``-1``/``+1``, pairs involving a constant column give ``0``). Not necessarily
        positive semi-definite.
    """
    from scipy.special import ndtri

    eps = check_real(eps, "eps", low=0, high=0.5, low_open=True, high_open=True)
    Ea = check_errors(E)
    if Ea.ndim != 2:
        raise constraint_error("E", "2-dimensional (n_items, n_models)", Shown(f"shape {Ea.shape}"))
    n, m = Ea.shape
    Ef = Ea.astype(np.float64)
    counts = Ef.T @ Ef  # exact integer counts of joint errors
    rates = np.diag(counts) / n
    tau = ndtri(np.clip(rates, eps, 1.0 - eps))
    iu, ju = np.triu_indices(m, 1)
    R = np.eye(m)
    if iu.size:
        rho = solve_tetrachoric(tau[iu], tau[ju], counts[iu, ju] / n)
        const = (rates == 0) | (rates == 1)
        rho = np.where(const[iu] | const[ju], 0.0, rho)
        R[iu, ju] = rho
        R[ju, iu] = rho
    return R


# ----------------------------------------------------------------------------- fitting


@validate_params({"R": _ARR, "eps": [Interval(Real, 0, None)]})
def nearest_correlation(R: Any, *, eps: float = 1e-6) -> np.ndarray:
    """Spectral projection of Algorithm 6, Phase 3.

    Eigen-decompose ``R = V D V^T``, clip the eigenvalues to at least ``eps``, rebuild, and
    re-normalise to unit diagonal (``S_jk / sqrt(S_jj S_kk)``). The result is symmetric,
    positive definite (smallest eigenvalue ``>= eps / max_j S_jj > 0``) with unit diagonal.
    A matrix whose eigenvalues are all ``>= eps`` is returned unchanged (up to rounding).

    Parameters
    ----------
    R : array-like of shape (m, m)
        Symmetric matrix with unit diagonal (e.g. raw pairwise tetrachoric correlations).
    eps : float, default=1e-6
        Eigenvalue floor.

    Returns
    -------
    numpy.ndarray of shape (m, m)
    """
    eps = check_real(eps, "eps", low=0, high=0.5, low_open=True, high_open=True)
    S = np.asarray(R, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise constraint_error("R", "a square matrix", Shown(f"shape {S.shape}"))
    if not np.all(np.isfinite(S)):
        raise constraint_error("R", "finite", Shown("a non-finite entry"))
    if not np.allclose(S, S.T, atol=1e-10):
        raise constraint_error("R", "symmetric", Shown("an asymmetric matrix"))
    S = (S + S.T) / 2.0
    w, V = np.linalg.eigh(S)
    S = (V * np.maximum(w, eps)) @ V.T
    dinv = 1.0 / np.sqrt(np.diag(S))
    S = S * dinv[:, None] * dinv[None, :]
    S = (S + S.T) / 2.0
    np.fill_diagonal(S, 1.0)
    return S


class GaussianCopula:
    """Gaussian copula of model errors (the paper's Algorithm 6).

    Parameters
    ----------
    eps : float, default=1e-6
        Clamp of the marginal error rates (Phase 1) and eigenvalue floor (Phase 3).

    Attributes
    ----------
    error_rates_ : numpy.ndarray of shape (m,)
        Empirical error rates (unclamped).
    tau_ : numpy.ndarray of shape (m,)
        Thresholds ``Phi^-1(clamp(error_rates_, eps, 1 - eps))``.
    raw_Sigma_ : numpy.ndarray of shape (m, m)
        Pairwise tetrachoric correlations before projection (:func:`tetrachoric_matrix`).
    Sigma_ : numpy.ndarray of shape (m, m)
        The projected correlation matrix (positive definite, unit diagonal).
    n_models_ : int

    Examples
    --------
    >>> from ensel.copula import sample_errors
    >>> E = sample_errors([-1.0, -0.5], [[1, 0.4], [0.4, 1]], 20000, random_state=0)
    >>> cop = GaussianCopula().fit(E)
    >>> cop.Sigma_.round(1).tolist()
    [[1.0, 0.4], [0.4, 1.0]]
    """

    _parameter_constraints: dict[str, Any] = {"eps": [Interval(Real, 0, 0.5, closed="neither")]}

    def __init__(self, eps: float = 1e-6) -> None:
        self.eps = eps

    @validate_params({"E": ["array-like"]})
    def fit(self, E: Any) -> GaussianCopula:
        """Fit thresholds and latent correlations to a 0/1 error matrix ``E``."""
        from scipy.special import ndtri

        eps = float(self.eps)
        Ea = check_errors(E)
        if Ea.ndim != 2:
            raise constraint_error("E", "2-dimensional (n_items, n_models)",
                                   Shown(f"shape {Ea.shape}"))
        self.error_rates_ = Ea.mean(axis=0, dtype=np.float64)
        self.tau_ = ndtri(np.clip(self.error_rates_, eps, 1.0 - eps))
        self.raw_Sigma_ = tetrachoric_matrix(Ea, eps=eps)
        self.Sigma_ = nearest_correlation(self.raw_Sigma_, eps=eps)
        self.n_models_ = Ea.shape[1]
        return self

    def _check_fitted(self) -> None:
        check_is_fitted(self, "Sigma_", call="fit(E)")

    @validate_params({"n": [Interval(Integral, 1, None)], "random_state": ["random_state", None]})
    def sample_errors(self, n: int, *,
                      random_state: int | np.random.Generator | None = None) -> np.ndarray:
        """Sample ``n`` rows of error indicators (see :func:`sample_errors`)."""
        self._check_fitted()
        return sample_errors(self.tau_, self.Sigma_, n, random_state=random_state)

    @validate_params({"n": [Interval(Integral, 1, None)], "random_state": ["random_state", None],
                      "balanced": ["boolean"]})
    def sample(self, n: int, *, random_state: int | np.random.Generator | None = None,
               balanced: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sample ``(X, y, E)`` as in Phase 4 (see :func:`sample`)."""
        self._check_fitted()
        return sample(self.tau_, self.Sigma_, n, random_state=random_state, balanced=balanced)


@validate_params({"E": _ARR, "eps": _EPS})
def fit_gaussian_copula(E: Any, *, eps: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Fit the Gaussian copula of Algorithm 6 (Phases 1-3) to a 0/1 error matrix.

    Parameters
    ----------
    E : array-like of shape (n_items, n_models)
        Error indicators (``errors_from(X, y)``).
    eps : float, default=1e-6
        Clamp of the error rates and eigenvalue floor.

    Returns
    -------
    tau : numpy.ndarray of shape (m,)
        Thresholds ``Phi^-1(clamped error rate)``.
    Sigma : numpy.ndarray of shape (m, m)
        Correlation matrix: symmetric, positive definite, unit diagonal.

    Examples
    --------
    >>> from ensel.copula import sample_errors
    >>> Sigma = [[1, .5, .3], [.5, 1, .4], [.3, .4, 1]]
    >>> E = sample_errors([-1.0, -0.5, -1.2], Sigma, 20000, random_state=0)
    >>> tau, Sigma = fit_gaussian_copula(E)
    >>> tau.round(1).tolist(), Sigma.round(1)[0].tolist()
    ([-1.0, -0.5, -1.2], [1.0, 0.5, 0.3])
    """
    cop = GaussianCopula(eps=eps).fit(E)
    return cop.tau_, cop.Sigma_


# ----------------------------------------------------------------------------- diagnostics


@validate_params({"E": _ARR})
def pairwise_joint_errors(E: Any) -> np.ndarray:
    """Empirical ``P(E_i = 1, E_j = 1)`` for every pair ``i < j``.

    Parameters
    ----------
    E : array-like of shape (n_items, n_models)
        0/1 error indicators.

    Returns
    -------
    numpy.ndarray of shape (m (m - 1) / 2,)
        In ``numpy.triu_indices(m, 1)`` order: (0,1), (0,2), ..., (1,2), ...
    """
    Ea = check_errors(E)
    if Ea.ndim != 2:
        raise constraint_error("E", "2-dimensional (n_items, n_models)", Shown(f"shape {Ea.shape}"))
    Ef = Ea.astype(np.float64)
    joint = (Ef.T @ Ef) / Ea.shape[0]
    return joint[np.triu_indices(Ea.shape[1], 1)]


@validate_params({"tau": _ARR, "Sigma": _ARR})
def model_pairwise_joint_errors(tau: Any, Sigma: Any) -> np.ndarray:
    """Copula-implied ``P(E_i = 1, E_j = 1) = Phi_2(tau_i, tau_j; Sigma_ij)`` for ``i < j``.

    Same order as :func:`pairwise_joint_errors`.
    """
    t, S = check_copula_parameters(tau, Sigma)
    iu, ju = np.triu_indices(t.shape[0], 1)
    return np.asarray(bivariate_normal_cdf(t[iu], t[ju], np.clip(S[iu, ju], -1.0, 1.0)),
                      dtype=float).reshape(-1)


@validate_params({"E": _ARR})
def simultaneous_error_distribution(E: Any) -> np.ndarray:
    """Frequency of the number of models wrong on the same item.

    Parameters
    ----------
    E : array-like of shape (n_items, n_models)
        0/1 error indicators.

    Returns
    -------
    numpy.ndarray of shape (m + 1,)
        Entry ``c`` is the fraction of items on which exactly ``c`` models err; sums to 1.
    """
    Ea = check_errors(E)
    if Ea.ndim != 2:
        raise constraint_error("E", "2-dimensional (n_items, n_models)", Shown(f"shape {Ea.shape}"))
    counts = np.bincount(Ea.sum(axis=1, dtype=np.int64), minlength=Ea.shape[1] + 1)
    return counts / Ea.shape[0]


@dataclass(frozen=True)
class CopulaDiagnostics:
    """The paper's two copula-validation diagnostics (Section 6 figures), tidy.

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per pair ``i < j``: ``model_i, model_j`` (names), ``empirical`` (observed
        ``P(E_i & E_j)``), ``model`` (``Phi_2(tau_i, tau_j; Sigma_ij)`` at the fitted,
        projected ``Sigma``), ``sampled`` (frequency in the synthetic sample), ``rho``
        (fitted ``Sigma_ij``).
    simultaneous : pandas.DataFrame
        One row per count ``n_errors`` in ``0..m``: ``empirical`` and ``copula`` (synthetic)
        fractions of items with exactly that many models wrong.
    copula : GaussianCopula
        The fitted copula.
    n_samples : int
        Size of the synthetic sample.
    """

    pairs: pd.DataFrame
    simultaneous: pd.DataFrame
    copula: GaussianCopula
    n_samples: int


@validate_params({"E": _ARR, "n_samples": [*_N, None], "random_state": _RS, "eps": _EPS})
def copula_diagnostics(E: Any, *, n_samples: int | None = None,
                       random_state: int | np.random.Generator | None = None,
                       eps: float = 1e-6) -> CopulaDiagnostics:
    """Fit the copula to ``E``, sample from it, and compare both ways (one call per figure).

    Parameters
    ----------
    E : array-like or pandas.DataFrame of shape (n_items, n_models)
        0/1 error indicators; DataFrame column names are used as model names.
    n_samples : int, optional
        Synthetic sample size (default: ``n_items``, as in the paper).
    random_state : int, numpy.random.Generator or None
        Seed for the synthetic sample.
    eps : float, default=1e-6

    Returns
    -------
    CopulaDiagnostics
    """
    names = list(E.columns) if isinstance(E, pd.DataFrame) else None
    Ea = check_errors(E)
    if Ea.ndim != 2:
        raise constraint_error("E", "2-dimensional (n_items, n_models)", Shown(f"shape {Ea.shape}"))
    n, m = Ea.shape
    if names is None:
        names = list(range(m))
    n_samples = n if n_samples is None else check_int(n_samples, "n_samples", low=1)
    cop = GaussianCopula(eps=eps).fit(Ea)
    E_syn = cop.sample_errors(n_samples, random_state=random_state)
    iu, ju = np.triu_indices(m, 1)
    pairs = pd.DataFrame({
        "model_i": [names[i] for i in iu],
        "model_j": [names[j] for j in ju],
        "empirical": pairwise_joint_errors(Ea),
        "model": model_pairwise_joint_errors(cop.tau_, cop.Sigma_),
        "sampled": pairwise_joint_errors(E_syn),
        "rho": cop.Sigma_[iu, ju],
    })
    simultaneous = pd.DataFrame({
        "n_errors": np.arange(m + 1),
        "empirical": simultaneous_error_distribution(Ea),
        "copula": simultaneous_error_distribution(E_syn),
    })
    return CopulaDiagnostics(pairs=pairs, simultaneous=simultaneous, copula=cop,
                             n_samples=n_samples)


@validate_params({"Sigma": _ARR, "per_model": ["boolean"]})
def average_correlation(Sigma: Any, *, per_model: bool = False) -> Any:
    """Average off-diagonal correlation: the paper's ``rho-bar`` (or each model's average).

    Parameters
    ----------
    Sigma : array-like of shape (m, m)
        A correlation matrix.
    per_model : bool, default=False
        Return each model's average correlation with the others (the paper's per-model
        column) instead of the mean over all pairs.

    Returns
    -------
    float, or numpy.ndarray of shape (m,)
        ``nan`` when there is only one model.

    Examples
    --------
    >>> round(average_correlation([[1, 0.2, 0.4], [0.2, 1, 0.6], [0.4, 0.6, 1]]), 6)
    0.4
    >>> average_correlation([[1, 0.2, 0.4], [0.2, 1, 0.6], [0.4, 0.6, 1]], per_model=True)
    array([0.3, 0.4, 0.5])
    """
    S = np.asarray(Sigma, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise constraint_error("Sigma", "a square matrix", Shown(f"shape {S.shape}"))
    m = S.shape[0]
    if m < 2:
        return np.full(m, np.nan) if per_model else float("nan")
    off = S.sum(axis=1) - np.diag(S)
    if per_model:
        return off / (m - 1)
    return float(off.sum() / (m * (m - 1)))
