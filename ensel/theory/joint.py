"""Exact joint laws of ``(Y, X_1, ..., X_k)`` and the MAP rule on them (shared by every theorem).

Conventions
-----------
Joint tables of ``(Y, X_1, ..., X_k)`` are numpy arrays of shape ``(2,) * (k + 1)``; axis 0
is ``Y`` and axis ``1 + i`` is model ``i``; on every axis index 0 is the value ``-1`` and
index 1 is ``+1``. Error-pattern tables ``P(E = e)`` have shape ``(2,) * k`` with index
``e_j`` in ``{0, 1}`` (1 = model ``j`` is wrong). ``prior`` is ``P(Y = +1)``. Errors relate
to answers through ``X_j = Y (-1)^{E_j}``. Information is in bits (via :mod:`ensel.info`).
MAP ties go to ``+1`` (the paper's Algorithm "MAP Aggregation").

* :func:`independent_joint_law`, :func:`joint_law_from_error_laws`, :func:`product_error_law`;
* Gaussian-copula laws: :func:`error_pattern_law`, :func:`copula_joint_law`,
  :func:`label_dependent_copula_joint_law` (exact one-factor quadrature or Genz integration);
* on any table: :func:`subset_joint`, :func:`map_decisions`, :func:`map_error`,
  :func:`mutual_information_xy`;
* seeded random instances: :func:`random_joint_law`, :func:`random_correlation`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import log_ndtr, ndtr
from scipy.stats import multivariate_normal

from ensel._validation import (
    Interval,
    Shown,
    check_copula_parameters,
    check_random_state,
    constraint_error,
    validate_params,
)
from ensel.info import (
    mutual_information_table,
)
from ensel.theory._common import (
    ARR,
    ARR_OR_REAL,
    POS_INT,
    PRIOR,
    SEED,
    SUBSET,
    _check_joint,
    _check_prior,
    _check_rates,
    _check_subset,
)
from ensel.theory.saturation import _one_factor_nodes

_ABSEPS = [Interval(Real, 0, None, closed="neither")]

__all__ = [
    "TIE_RTOL",
    "copula_joint_law",
    "error_pattern_law",
    "independent_joint_law",
    "joint_law_from_error_laws",
    "label_dependent_copula_joint_law",
    "map_decisions",
    "map_error",
    "mutual_information_xy",
    "product_error_law",
    "random_correlation",
    "random_joint_law",
    "subset_joint",
]


#: Relative tolerance under which two posterior masses (or a weighted vote and 0) count as
#: a tie when *decisions* are compared (rounding in products must not flip a tie).
TIE_RTOL = 1e-12


@validate_params({"error_law_neg": ARR, "error_law_pos": ARR, "prior": PRIOR})
def joint_law_from_error_laws(error_law_neg: Any, error_law_pos: Any,
                              prior: float = 0.5) -> np.ndarray:
    """Joint table of ``(Y, X_1..X_k)`` from the error-pattern laws given each label.

    ``X_j = Y (-1)^{E_j}``: for ``Y = -1`` answer index equals ``e_j``; for ``Y = +1`` it is
    ``1 - e_j`` (all model axes flipped).

    Parameters
    ----------
    error_law_neg, error_law_pos : array-like of shape (2,) * k
        ``P(E = e | Y = -1)`` and ``P(E = e | Y = +1)``.
    prior : float
        ``P(Y = +1)``.

    Returns
    -------
    numpy.ndarray of shape (2,) * (k + 1)
    """
    p = _check_prior(prior)
    neg = np.asarray(error_law_neg, dtype=float)
    pos = np.asarray(error_law_pos, dtype=float)
    for name, arr in (("error_law_neg", neg), ("error_law_pos", pos)):
        if arr.ndim < 1 or any(s != 2 for s in arr.shape):
            raise constraint_error(name, "a table of shape (2, ..., 2)",
                                   Shown(f"shape {arr.shape}"))
        if not np.all(np.isfinite(arr)) or (arr < 0).any() or abs(arr.sum() - 1.0) > 1e-9:
            raise constraint_error(name, "a probability table (non-negative, sums to 1)",
                                   Shown(f"a sum of {float(arr.sum())!r}"))
    if neg.shape != pos.shape:
        raise constraint_error("error_law_pos", f"of the shape of error_law_neg {neg.shape}",
                               Shown(f"shape {pos.shape}"))
    out = np.empty((2,) + neg.shape)
    out[0] = (1.0 - p) * neg
    out[1] = p * np.flip(pos, axis=tuple(range(pos.ndim)))
    return out


@validate_params({"eps": ARR_OR_REAL, "prior": PRIOR})
def independent_joint_law(eps: Any, prior: float = 0.5) -> np.ndarray:
    """Joint table of ``(Y, X_1..X_k)`` for independent BSCs with error rates ``eps``.

    Parameters
    ----------
    eps : array-like of shape (k,)
        Error rates in ``[0, 1]``.
    prior : float
        ``P(Y = +1)``.

    Returns
    -------
    numpy.ndarray of shape (2,) * (k + 1)
        Axis 0 = ``Y``, axis ``1 + j`` = ``X_j``; index 0 = ``-1``, index 1 = ``+1``.
    """
    e = _check_rates(eps, "eps")
    law = np.ones(())
    for ej in e:
        law = np.multiply.outer(law, np.array([1.0 - ej, ej]))
    return joint_law_from_error_laws(law, law, prior)


def _pattern_signs(k: int) -> np.ndarray:
    """All ``2^k`` error patterns as rows of signs (+1 = error, -1 = correct), C order."""
    pats = np.array(list(itertools.product((0, 1), repeat=k)), dtype=int)
    return 2 * pats - 1


def _is_equicorrelated(S: np.ndarray) -> float | None:
    k = S.shape[0]
    if k < 2:
        return None
    off = S[~np.eye(k, dtype=bool)]
    if np.ptp(off) <= 1e-14 and 0.0 <= off[0] <= 1.0:
        return float(off[0])
    return None


def _one_factor_pattern_law(tau: np.ndarray, rho: float) -> np.ndarray:
    """``P(E = e)`` for ``Z_j = sqrt(rho) U + sqrt(1-rho) xi_j`` by composite Gauss-Legendre."""
    k = tau.size
    if rho == 1.0:
        # comonotone: E_j = 1(Z < tau_j) for one Z
        out = np.zeros((2,) * k)
        for idx in itertools.product((0, 1), repeat=k):
            err = tau[np.array(idx, dtype=bool)]
            ok = tau[~np.array(idx, dtype=bool)]
            upper = err.min() if err.size else np.inf
            lower = ok.max() if ok.size else -np.inf
            out[idx] = max(0.0, float(ndtr(upper) - ndtr(lower)))
        return out
    sr, sc = math.sqrt(rho), math.sqrt(1.0 - rho)
    if rho > 0.0:
        u, wu = _one_factor_nodes(tau / sr, sc / sr)
    else:
        u, wu = _one_factor_nodes(np.array([]), math.inf)
    z = (tau[:, None] - sr * u[None, :]) / sc  # (k, n)
    log_err = log_ndtr(z)
    log_ok = log_ndtr(-z)
    # log P(E = e | u) of every pattern (C order, the first model's digit slowest), summed
    # model by model: each prefix's partial sum is computed once and extended by the next
    # model's two terms, the same additions in the same order as summing each pattern's
    # k terms (bit for bit), in 2^(k+1) row additions instead of k 2^k
    logs = np.stack([log_ok[0], log_err[0]])
    for j in range(1, k):
        logs = (logs[:, None, :] + np.stack([log_ok[j], log_err[j]])[None]).reshape(
            -1, z.shape[1])
    probs = np.exp(logs) @ wu
    return probs.reshape((2,) * k)


def _connected_pattern_law(t: np.ndarray, S: np.ndarray, abseps: float,
                           random_state: int) -> np.ndarray:
    k = t.size
    if k == 1:
        return np.array([float(ndtr(-t[0])), float(ndtr(t[0]))])
    rho = _is_equicorrelated(S)
    if rho is not None:
        return _one_factor_pattern_law(t, rho)
    if k == 2:
        from ensel.copula import bivariate_normal_cdf

        r = float(S[0, 1])
        out = np.empty((2, 2))
        for i, j in itertools.product((0, 1), repeat=2):
            di, dj = 2 * i - 1, 2 * j - 1
            out[i, j] = bivariate_normal_cdf(di * t[0], dj * t[1], di * dj * r)
        return out
    eig = np.linalg.eigvalsh(S)
    if eig.min() <= 1e-12:
        raise constraint_error("Sigma", "positive definite for k >= 3",
                               Shown(f"a smallest eigenvalue of {eig.min():.3g}"))
    signs = _pattern_signs(k)
    vals = np.empty(len(signs))
    for n, d in enumerate(signs):
        cov = S * np.outer(d, d)
        vals[n] = multivariate_normal.cdf(
            d * t, mean=np.zeros(k), cov=cov, abseps=abseps, releps=0.0,
            maxpts=max(10_000 * k, 200_000), rng=np.random.default_rng(random_state),
        )
    return vals.reshape((2,) * k)


@validate_params({"tau": ARR, "Sigma": ARR, "abseps": _ABSEPS, "random_state": SEED})
def error_pattern_law(tau: Any, Sigma: Any, *, abseps: float = 1e-7,
                      random_state: int = 0) -> np.ndarray:
    """Law of the error pattern ``E`` under the Gaussian copula, ``P(E = e)`` for all ``e``.

    ``E_j = 1(Z_j < tau_j)``, ``Z ~ N(0, Sigma)``. Each pattern is one orthant probability
    ``P(D Z < D tau)`` with ``D = diag(+1 if e_j = 1 else -1)``, i.e. a multivariate normal
    CDF with covariance ``D Sigma D``. Independent blocks of ``Sigma`` (connected components
    of its non-zero correlations) are computed separately and multiplied. Exact paths per
    block: size 1; size 2 (Genz's bivariate algorithm, ~1e-15,
    :func:`ensel.copula.bivariate_normal_cdf`); equicorrelated with ``rho`` in ``[0, 1]``
    (any size; one-factor 1-D composite Gauss-Legendre quadrature, ~1e-14). Other blocks
    (size ``>= 3``) use ``scipy.stats.multivariate_normal.cdf`` (Genz's quasi-Monte Carlo
    algorithm with a fixed seed, so deterministic) with absolute tolerance ``abseps`` per
    pattern (~1e-7 by default; 2^k calls: about 0.2 s for k = 3, 3 s for k = 6, 10 s for
    k = 8); the table is then clipped
    at 0 and renormalised.

    Parameters
    ----------
    tau : array-like of shape (k,)
        Thresholds ``Phi^-1(eps_j)``.
    Sigma : array-like of shape (k, k)
        Correlation matrix (unit diagonal, symmetric, positive definite in the general path).
    abseps : float
        Tolerance of the general path (blocks of size ``>= 3`` that are not equicorrelated).
    random_state : int
        Seed of the quasi-Monte Carlo lattice of the general path.

    Returns
    -------
    numpy.ndarray of shape (2,) * k
    """

    t, S = check_copula_parameters(tau, Sigma)
    k = t.size
    if k > 12:
        raise constraint_error("tau", "of at most 12 models (2^k patterns are enumerated)",
                               Shown(f"{k} models"))
    # independent blocks (connected components of the non-zero correlations) factorise
    adj = (S != 0.0) & ~np.eye(k, dtype=bool)
    comp = -np.ones(k, dtype=int)
    for start in range(k):
        if comp[start] >= 0:
            continue
        comp[start] = start
        stack = [start]
        while stack:
            i = stack.pop()
            for j in np.flatnonzero(adj[i] & (comp < 0)):
                comp[j] = start
                stack.append(int(j))
    out = np.ones(())
    order: list[int] = []
    for c in dict.fromkeys(comp.tolist()):
        idx = np.flatnonzero(comp == c)
        block = _connected_pattern_law(t[idx], S[np.ix_(idx, idx)], abseps, random_state)
        out = np.multiply.outer(out, block)
        order.extend(idx.tolist())
    out = np.transpose(out, np.argsort(order))
    out = np.clip(out, 0.0, None)
    return out / out.sum()


@validate_params({"tau": ARR, "Sigma": ARR, "prior": PRIOR, "abseps": _ABSEPS,
                  "random_state": SEED})
def copula_joint_law(tau: Any, Sigma: Any, *, prior: float = 0.5, abseps: float = 1e-7,
                     random_state: int = 0) -> np.ndarray:
    """Joint table of ``(Y, X_1..X_k)`` under the Gaussian copula, errors independent of ``Y``.

    ``P(Y = y, X = x) = P(Y = y) P(E = e(x, y))`` with ``X_j = Y (-1)^{E_j}``; the error
    pattern law comes from :func:`error_pattern_law` (see there for accuracy). With
    ``Sigma = I`` this equals :func:`independent_joint_law` with ``eps = Phi(tau)``.

    Returns
    -------
    numpy.ndarray of shape (2,) * (k + 1)
    """
    law = error_pattern_law(tau, Sigma, abseps=abseps, random_state=random_state)
    return joint_law_from_error_laws(law, law, prior)


@validate_params({"tau_pos": ARR, "Sigma_pos": ARR, "tau_neg": ARR, "Sigma_neg": ARR,
                  "prior": PRIOR, "abseps": _ABSEPS, "random_state": SEED})
def label_dependent_copula_joint_law(tau_pos: Any, Sigma_pos: Any, tau_neg: Any,
                                     Sigma_neg: Any, *, prior: float = 0.5,
                                     abseps: float = 1e-7,
                                     random_state: int = 0) -> np.ndarray:
    """Joint table of ``(Y, X_S)`` when the error copula depends on the label.

    ``E | Y = +1`` follows the copula ``(tau_pos, Sigma_pos)`` and ``E | Y = -1`` follows
    ``(tau_neg, Sigma_neg)``. Errors are then *not* independent of ``Y``, so the correction
    ``Lambda_j(S)`` of Theorem 4.3 need not vanish (see
    :func:`ensel.info.decomposition_terms_exact`).
    """
    pos = error_pattern_law(tau_pos, Sigma_pos, abseps=abseps, random_state=random_state)
    neg = error_pattern_law(tau_neg, Sigma_neg, abseps=abseps, random_state=random_state)
    if pos.shape != neg.shape:
        raise constraint_error("tau_neg", f"of the {pos.ndim} models of tau_pos",
                               Shown(f"{neg.ndim} models"))
    return joint_law_from_error_laws(neg, pos, prior)


@validate_params({"joint": ARR, "S": SUBSET})
def subset_joint(joint: Any, S: Iterable[int] | None = None) -> np.ndarray:
    """Marginal table of ``(Y, X_S)`` with the model axes in the order given by ``S``.

    Parameters
    ----------
    joint : array-like of shape (2,) * (k + 1)
    S : iterable of int, optional
        Model indices (0-based). Default: all models. Empty: the law of ``Y`` alone.
    """
    arr = _check_joint(joint)
    SS = _check_subset(S, arr.ndim - 1)
    drop = tuple(1 + j for j in range(arr.ndim - 1) if j not in SS)
    marg = arr.sum(axis=drop) if drop else arr
    kept = sorted(SS)
    order = [0] + [1 + kept.index(j) for j in SS]
    return np.transpose(marg, order)


@validate_params({"joint": ARR, "S": SUBSET})
def map_decisions(joint: Any, S: Iterable[int] | None = None) -> np.ndarray:
    """MAP decision (``-1`` or ``+1``) for each answer pattern of ``X_S``.

    Returns an ``int8`` array of shape ``(2,) * |S|`` (index 0 = answer ``-1``). Ties
    (``|P(+1, x) - P(-1, x)| <= TIE_RTOL * max``) go to ``+1``.
    """
    p = subset_joint(joint, S)
    neg, pos = p[0], p[1]
    tie = np.abs(pos - neg) <= TIE_RTOL * np.maximum(pos, neg)
    return np.where((pos > neg) | tie, 1, -1).astype(np.int8)


@validate_params({"joint": ARR, "S": SUBSET})
def map_error(joint: Any, S: Iterable[int] | None = None) -> float:
    """Bayes (MAP) error of predicting ``Y`` from ``X_S``: ``sum_x min_y P(Y = y, X_S = x)``.

    The tie rule (``+1``) does not change this value.
    """
    p = subset_joint(joint, S)
    return float(np.minimum(p[0], p[1]).sum())


@validate_params({"joint": ARR, "S": SUBSET})
def mutual_information_xy(joint: Any, S: Iterable[int] | None = None) -> float:
    """``I(Y; X_S)`` in bits on a joint table (via :func:`ensel.info.mutual_information_table`)."""
    p = subset_joint(joint, S)
    if p.ndim == 1:
        return 0.0
    return mutual_information_table(p, 0, tuple(range(1, p.ndim)))


# ---------------------------------------------------------------------------
# Theorem E.1
# ---------------------------------------------------------------------------

@validate_params({"eps": ARR_OR_REAL})
def product_error_law(eps: Any) -> np.ndarray:
    """Law of independent error indicators, ``P(E = e) = prod_j eps_j^e_j (1-eps_j)^(1-e_j)``.

    Parameters
    ----------
    eps : array-like of shape (k,)
        Error rates in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray of shape (2,) * k
        Index ``e_j`` on axis ``j`` (1 = model ``j`` is wrong).
    """
    e = _check_rates(eps, "eps")
    law = np.ones(())
    for ej in e:
        law = np.multiply.outer(law, np.array([1.0 - ej, ej]))
    return law


# ---------------------------------------------------------------------------
# Theorem 4.3
# ---------------------------------------------------------------------------

@validate_params({"m": [Interval(Integral, 1, 12)],
                  "concentration": [Interval(Real, 0, None, closed="neither")],
                  "random_state": SEED})
def random_joint_law(m: int, *, concentration: float = 1.0,
                     random_state: Any = None) -> np.ndarray:
    """A random joint law of ``(Y, X_1, ..., X_m)``: Dirichlet over the ``2^(m+1)`` cells.

    Parameters
    ----------
    m : int
        Number of models (``1 <= m <= 12``).
    concentration : float
        Dirichlet parameter of every cell (positive); small values give peaked laws.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    numpy.ndarray of shape (2,) * (m + 1)
    """
    c = float(concentration)
    rng = check_random_state(random_state)
    p = rng.dirichlet(np.full(2 ** (m + 1), c))
    return p.reshape((2,) * (m + 1))


@validate_params({"m": POS_INT, "n_factors": POS_INT,
                  "min_unique": [Interval(Real, 0, 1, closed="right")], "random_state": SEED})
def random_correlation(m: int, *, n_factors: int = 2, min_unique: float = 0.2,
                       random_state: Any = None) -> np.ndarray:
    """A random positive-definite correlation matrix with non-negative correlations.

    ``A A^T + diag(u)`` rescaled to unit diagonal, with loadings ``A`` uniform on ``[0, 1]``
    (``m x n_factors``) and unique variances ``u`` uniform on ``[min_unique, 1]``: models
    sharing large loadings on a factor form correlated "families".

    Parameters
    ----------
    m : int
        Dimension (``m >= 1``).
    n_factors : int
        Number of common factors (``>= 1``).
    min_unique : float
        Lower bound of the unique variances, in ``(0, 1]`` (keeps the matrix well inside
        the positive-definite cone).
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    numpy.ndarray of shape (m, m)
    """
    u0 = float(min_unique)
    rng = check_random_state(random_state)
    A = rng.uniform(0.0, 1.0, size=(m, n_factors))
    S = A @ A.T + np.diag(rng.uniform(u0, 1.0, size=m))
    d = np.sqrt(np.diag(S))
    S = S / np.outer(d, d)
    np.fill_diagonal(S, 1.0)
    return S
