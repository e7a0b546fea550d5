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
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtri

from ensel._validation import check_random_state, check_X_y

__all__ = [
    "errors_from",
    "sample_errors",
    "sample",
    "sample_equicorrelated",
]


# ----------------------------------------------------------------------------- helpers


def _check_probability_vector(values: Any, *, name: str, m: int | None = None) -> np.ndarray:
    """Return ``values`` as a float64 1-d array in [0, 1] (broadcast a scalar to ``m``)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        if m is None:
            arr = arr.reshape(1)
        else:
            arr = np.full(m, float(arr))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a scalar or a 1-dimensional array; got shape {arr.shape}")
    if m is not None and arr.shape[0] != m:
        raise ValueError(f"{name} has length {arr.shape[0]} but m={m} models were requested")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name}[{i}] = {arr[i]!r} is not a probability in [0, 1]")
    return arr


def _check_count(value: Any, *, name: str, minimum: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer; got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {int(value)}")
    return int(value)


def _check_tau_sigma(tau: Any, Sigma: Any) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(tau, dtype=float)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"tau must be a non-empty 1-dimensional array; got shape {t.shape}")
    if np.isnan(t).any():
        raise ValueError(f"tau contains NaN at position {int(np.argmax(np.isnan(t)))}")
    S = np.asarray(Sigma, dtype=float)
    m = t.shape[0]
    if S.shape != (m, m):
        raise ValueError(f"Sigma must have shape ({m}, {m}) to match tau; got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError("Sigma contains non-finite values")
    if not np.allclose(S, S.T, atol=1e-10):
        raise ValueError("Sigma must be symmetric")
    if not np.allclose(np.diag(S), 1.0, atol=1e-8):
        raise ValueError("Sigma must be a correlation matrix with unit diagonal")
    return t, S


def _labels(rng: np.random.Generator, n: int, balanced: bool) -> np.ndarray:
    if balanced:
        y = np.where(np.arange(n) < (n + 1) // 2, 1, -1).astype(np.int8)
        return rng.permutation(y)
    return np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)


# ----------------------------------------------------------------------------- errors


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
    """
    t, S = _check_tau_sigma(tau, Sigma)
    n = _check_count(n, name="n")
    rng = check_random_state(random_state)
    # symmetric square root via eigh: works for PSD matrices with zero eigenvalues too
    w, V = np.linalg.eigh(S)
    if w.min() < -1e-8:
        raise ValueError(
            f"Sigma is not positive semi-definite (smallest eigenvalue {w.min():.3g}); "
            "project it first, e.g. with fit_gaussian_copula"
        )
    root = V * np.sqrt(np.clip(w, 0.0, None))
    Z = rng.standard_normal((n, t.shape[0])) @ root.T
    return (Z < t).astype(np.int8)


def sample(tau: Any, Sigma: Any, n: int, *, random_state: int | np.random.Generator | None = None,
           balanced: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic answers from a Gaussian copula (Algorithm copula, Phase 4).

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
    t, S = _check_tau_sigma(tau, Sigma)
    n = _check_count(n, name="n")
    rng = check_random_state(random_state)
    y = _labels(rng, n, balanced)
    E = sample_errors(t, S, n, random_state=rng)
    X = (y[:, None] * (1 - 2 * E)).astype(np.int8)
    return X, y, E


def sample_equicorrelated(accuracy: Any, rho: float, m: int, n: int, *,
                          random_state: int | np.random.Generator | None = None,
                          balanced: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample the one-factor (equicorrelated) copula of the paper, Eq. (factor model).

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
    m = _check_count(m, name="m")
    n = _check_count(n, name="n")
    acc = _check_probability_vector(accuracy, name="accuracy", m=m)
    if isinstance(rho, (bool, np.bool_)) or not np.isscalar(rho):
        raise ValueError(f"rho must be a real number in [0, 1]; got {rho!r}")
    rho = float(rho)
    if not (0.0 <= rho <= 1.0):
        raise ValueError(f"rho must be in [0, 1] for the one-factor model; got {rho!r}")
    rng = check_random_state(random_state)
    y = _labels(rng, n, balanced)
    tau = ndtri(1.0 - acc)
    U = rng.standard_normal((n, 1))
    xi = rng.standard_normal((n, m))
    Z = np.sqrt(rho) * U + np.sqrt(1.0 - rho) * xi
    E = (Z < tau).astype(np.int8)
    X = (y[:, None] * (1 - 2 * E)).astype(np.int8)
    return X, y, E

