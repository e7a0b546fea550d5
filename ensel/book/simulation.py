"""Monte Carlo checks of simulated copula samples against their nominal values.

The System model chapter simulates the one-factor Gaussian copula and checks that what it
samples has the accuracies, pairwise error correlations and error-count moments the model
prescribes. Standard errors come from batch means, so they hold whatever the dependence
between models.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtri

from ensel._errors import UsageError
from ensel.copula import bivariate_normal_cdf

__all__ = ["batch_means", "compare_one_factor", "nominal_one_factor"]


def batch_means(values: np.ndarray, *, n_batches: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Mean and batch-means standard error of per-item statistics.

    Parameters
    ----------
    values : numpy.ndarray of shape (n_items, ...)
        Per-item values whose mean over items is estimated.
    n_batches : int, default=20
        Number of contiguous batches (items are exchangeable in a simulation).

    Returns
    -------
    mean, std_error : numpy.ndarray
        Arrays of shape ``values.shape[1:]``.
    """
    values = np.asarray(values, dtype=float)
    if values.shape[0] < 2 * n_batches:
        raise UsageError(
            f"need at least {2 * n_batches} items for {n_batches} batches; got {values.shape[0]}"
        )
    batches = np.array_split(values, n_batches, axis=0)
    means = np.stack([b.mean(axis=0) for b in batches])
    return values.mean(axis=0), means.std(axis=0, ddof=1) / np.sqrt(n_batches)


def nominal_one_factor(accuracy: float, rho: float, m: int) -> dict[str, float]:
    """Nominal error statistics of ``m`` equal-accuracy models in the one-factor copula.

    Returns the error rate ``eps = 1 - accuracy``, the joint error rate
    ``P(E_i = 1, E_j = 1) = Phi_2(tau, tau; rho)``, the error (phi) correlation
    ``(P11 - eps^2) / (eps (1 - eps))`` and the mean and variance of the number of
    simultaneous errors ``K = sum_j E_j``:
    ``E K = m eps`` and ``Var K = m eps (1 - eps) + m (m - 1) (P11 - eps^2)``.
    """
    if not 0.0 < accuracy < 1.0:
        raise UsageError(f"accuracy must be in (0, 1); got {accuracy!r}")
    if not 0.0 <= rho < 1.0:
        raise UsageError(f"rho must be in [0, 1); got {rho!r}")
    eps = 1.0 - accuracy
    tau = float(ndtri(eps))
    p11 = float(bivariate_normal_cdf(tau, tau, rho))
    return {
        "error_rate": eps,
        "joint_error_rate": p11,
        "error_correlation": (p11 - eps**2) / (eps * (1.0 - eps)),
        "errors_mean": m * eps,
        "errors_var": m * eps * (1 - eps) + m * (m - 1) * (p11 - eps**2),
    }


def compare_one_factor(E: Any, accuracy: float, rho: float, *, n_batches: int = 20
                       ) -> pd.DataFrame:
    """Compare a one-factor sample's error statistics with their nominal values.

    Parameters
    ----------
    E : array-like of shape (n_items, m)
        0/1 error indicators sampled with ``accuracy`` and ``rho``.
    accuracy, rho : float
        The nominal parameters.
    n_batches : int, default=20
        Batches for the batch-means standard errors.

    Returns
    -------
    pandas.DataFrame
        One row per statistic: ``nominal``, ``simulated``, ``std_error`` and
        ``z = (simulated - nominal) / std_error``. Per-model and per-pair statistics are
        averaged over models/pairs (their standard error accounts for the averaging).
    """
    E = np.asarray(E, dtype=float)
    if E.ndim != 2 or E.shape[1] < 2:
        raise UsageError(f"E must have shape (n_items, m) with m >= 2; got {E.shape}")
    if not np.isin(E, (0.0, 1.0)).all():
        raise UsageError("E must contain 0/1 error indicators only")
    n, m = E.shape
    nominal = nominal_one_factor(accuracy, rho, m)
    K = E.sum(axis=1)
    iu = np.triu_indices(m, 1)
    # per-item contributions whose means are the statistics
    per_item = np.column_stack([
        E.mean(axis=1),                                            # error rate (avg over models)
        (K * (K - 1) / (m * (m - 1))),                             # joint error (avg over pairs)
        K,
    ])
    mean, se = batch_means(per_item, n_batches=n_batches)
    err, p11, k_mean = mean
    # the sample variance of K and the error correlation are smooth functions of means:
    # their standard errors are taken from the spread of per-batch values
    batches = np.array_split(np.arange(n), n_batches)
    var_b = np.array([K[b].var() for b in batches])
    corr_b = []
    for b in batches:
        Eb = E[b]
        eb = Eb.mean(axis=0)
        cov = (Eb.T @ Eb) / len(b) - np.outer(eb, eb)
        sd = np.sqrt(np.outer(eb * (1 - eb), eb * (1 - eb)).clip(min=1e-300))
        corr_b.append((cov / sd)[iu].mean())
    corr_b = np.asarray(corr_b)
    e_all = E.mean(axis=0)
    cov_all = (E.T @ E) / n - np.outer(e_all, e_all)
    sd_all = np.sqrt(np.outer(e_all * (1 - e_all), e_all * (1 - e_all)).clip(min=1e-300))
    corr = (cov_all / sd_all)[iu].mean()
    rows = [
        ("error_rate", nominal["error_rate"], err, se[0]),
        ("joint_error_rate", nominal["joint_error_rate"], p11, se[1]),
        ("error_correlation", nominal["error_correlation"], corr,
         corr_b.std(ddof=1) / np.sqrt(n_batches)),
        ("errors_mean", nominal["errors_mean"], k_mean, se[2]),
        ("errors_var", nominal["errors_var"], K.var(), var_b.std(ddof=1) / np.sqrt(n_batches)),
    ]
    out = pd.DataFrame(rows, columns=["statistic", "nominal", "simulated", "std_error"])
    out["z"] = (out["simulated"] - out["nominal"]) / out["std_error"]
    return out
