"""Random-effects meta-analysis: pool one effect measured on several independent sources.

The book pools each claim's effect (a paired difference of test errors, with its standard
error) over the real data sources (MMLU-Pro, MMLU-Redux, LLMBar). The sources differ in
task, models and size, so their true effects differ too: a **random-effects** model,
``estimate_i = mu + u_i + e_i`` with ``u_i ~ N(0, tau^2)`` (between-source spread) and
``e_i ~ N(0, se_i^2)`` (within-source noise), estimates the mean effect ``mu`` over sources
and how much the sources disagree.

Which estimator of ``tau^2``, and why: **DerSimonian-Laird** (method of moments,
DerSimonian & Laird 1986). It is closed-form (no iteration that could fail to converge, the
same answer on every machine), the most widely reported one (the default of Cochrane's
RevMan), and with three sources the alternatives do not know more: REML and Paule-Mandel
estimate ``tau^2`` from the same three residuals, and every estimator of it is imprecise
with so few sources. That imprecision is stated next to every pooled estimate (the number of
sources, Cochran's ``Q`` with its p-value and ``I^2``), and the pooled interval is the usual
normal one, ``mu +- z * se(mu)``.

Formulas: weights ``w_i = 1 / se_i^2``, fixed-effect mean ``m = sum w_i x_i / sum w_i``,
``Q = sum w_i (x_i - m)^2`` on ``k - 1`` degrees of freedom,
``tau^2 = max(0, (Q - (k - 1)) / (sum w_i - sum w_i^2 / sum w_i))``, random-effects weights
``w*_i = 1 / (se_i^2 + tau^2)``, ``mu = sum w*_i x_i / sum w*_i``,
``se(mu) = 1 / sqrt(sum w*_i)``, ``I^2 = max(0, (Q - (k - 1)) / Q)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import special as _sp

__all__ = ["RandomEffects", "random_effects"]


@dataclass(frozen=True)
class RandomEffects:
    """A DerSimonian-Laird random-effects pooled estimate.

    Attributes
    ----------
    estimate : float
        Pooled mean effect ``mu``.
    se : float
        Its standard error.
    low, high : float
        Bounds of the ``confidence`` interval (normal quantile).
    tau2 : float
        Between-source variance (DerSimonian-Laird, truncated at 0).
    q : float
        Cochran's heterogeneity statistic.
    q_p_value : float
        ``P(chi2_{k-1} >= q)`` (1 with a single source).
    i2 : float
        Share of the total variation due to between-source differences, in [0, 1].
    k : int
        Number of sources.
    weights : tuple of float
        Random-effects weights, normalised to sum to 1, in input order.
    confidence : float
    method : str
        ``"DerSimonian-Laird"``.
    """

    estimate: float
    se: float
    low: float
    high: float
    tau2: float
    q: float
    q_p_value: float
    i2: float
    k: int
    weights: tuple[float, ...]
    confidence: float
    method: str = "DerSimonian-Laird"

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary."""
        return asdict(self)


def random_effects(estimates: Sequence[float] | np.ndarray, se: Sequence[float] | np.ndarray,
                   *, confidence: float = 0.95) -> RandomEffects:
    """Pool independent estimates with a DerSimonian-Laird random-effects model.

    Parameters
    ----------
    estimates : array-like of float
        One effect per source.
    se : array-like of float
        Their standard errors (positive).
    confidence : float, default=0.95
        Level of the pooled interval.

    Returns
    -------
    RandomEffects

    Raises
    ------
    ValueError
        Empty or mismatched inputs, non-finite values, a standard error that is not positive,
        or a confidence outside (0, 1).

    Examples
    --------
    Two sources that disagree far beyond their noise: ``tau^2`` absorbs the disagreement.

    >>> r = random_effects([0.0, 1.0], [0.1, 0.1])
    >>> round(r.estimate, 6), round(r.tau2, 6), round(r.se, 6), round(r.i2, 6)
    (0.5, 0.49, 0.5, 0.98)

    Sources that agree within their noise: ``tau^2 = 0``, the fixed-effect answer.

    >>> r = random_effects([0.1, 0.3, 0.2], [0.1, 0.1, 0.1])
    >>> round(r.estimate, 6), r.tau2, round(r.se ** 2, 6)
    (0.2, 0.0, 0.003333)
    """
    x = np.asarray(estimates, dtype=float).ravel()
    s = np.asarray(se, dtype=float).ravel()
    if x.size == 0 or x.shape != s.shape:
        raise ValueError(f"estimates and se of random_effects must be non-empty and equally "
                         f"long; got {x.size} and {s.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(s))):
        raise ValueError("estimates and se of random_effects must be finite numbers")
    if np.any(s <= 0):
        raise ValueError(f"se of random_effects must be positive; got {s.tolist()}")
    if isinstance(confidence, bool) or not 0 < float(confidence) < 1:
        raise ValueError(f"confidence of random_effects must be in (0, 1); got {confidence!r}")
    k = int(x.size)
    w = 1.0 / s**2
    m_fixed = float(np.sum(w * x) / np.sum(w))
    q = float(np.sum(w * (x - m_fixed) ** 2))
    df = k - 1
    c = float(np.sum(w) - np.sum(w**2) / np.sum(w))
    tau2 = max(0.0, (q - df) / c) if df > 0 and c > 0 else 0.0
    w_star = 1.0 / (s**2 + tau2)
    mu = float(np.sum(w_star * x) / np.sum(w_star))
    se_mu = float(1.0 / math.sqrt(float(np.sum(w_star))))
    z = float(_sp.ndtri(0.5 + float(confidence) / 2.0))
    q_p = float(_sp.chdtrc(df, q)) if df > 0 else 1.0
    i2 = max(0.0, (q - df) / q) if q > 0 else 0.0
    return RandomEffects(mu, se_mu, mu - z * se_mu, mu + z * se_mu, float(tau2), q, q_p,
                         float(i2), k, tuple(float(v) for v in w_star / np.sum(w_star)),
                         float(confidence))
