"""Theorem 4.4: with ``m`` equicorrelated models of accuracy ``alpha`` the ensemble error
saturates at ``Phi(Phi^-1(1 - alpha) / sqrt(rho))`` as ``m -> infinity``.

* :func:`saturation_floor` (and :func:`saturation_floor_array`);
* :func:`error_count_distribution` -- the exact law of the number of wrong models
  (deterministic quadrature over the common factor, accurate to ~1e-10 for ``m`` up to
  ``10^4`` and beyond);
* :func:`ensemble_error` -- the exact error of the MAP rule and of majority vote at finite ``m``;
* :func:`compare_count_law` -- simulated counts against an exact law (z-scores, total variation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import erfcx, gammaln, log_ndtr, ndtr, ndtri

from ensel._validation import Interval, Shown, constraint_error, validate_params
from ensel.theory._common import ARR, ARR_OR_REAL, _check_alpha, _check_m, _check_rho

# alpha, rho and m are checked in the bodies (the same format, with what they mean)
_IN_BODY = "no_validation"

__all__ = [
    "CountLawComparison",
    "CountLawInfo",
    "compare_count_law",
    "ensemble_error",
    "error_count_distribution",
    "saturation_floor",
    "saturation_floor_array",
]


_LOG_2PI = math.log(2.0 * math.pi)

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


# ---------------------------------------------------------------------------
# Theorem 4.4: saturation floor
# ---------------------------------------------------------------------------


@validate_params({"alpha": _IN_BODY, "rho": _IN_BODY})
def saturation_floor(alpha: float, rho: float) -> float:
    """Error floor of Theorem 4.4: ``Phi(Phi^-1(1 - alpha) / sqrt(rho))``.

    The limit, as ``m -> infinity``, of the MAP (= majority vote) error of ``m``
    equicorrelated models of accuracy ``alpha`` under the one-factor Gaussian copula.

    Parameters
    ----------
    alpha : float
        Marginal accuracy of every model, in the open interval ``(1/2, 1)``.
    rho : float
        Latent equicorrelation, in ``[0, 1]``. ``rho = 0`` (independent errors) is allowed
        and returns ``0.0``: it is both the limit ``rho -> 0`` of the formula and the true
        ``m -> infinity`` error of independent models (law of large numbers). ``rho = 1``
        gives ``1 - alpha`` (identical models).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``alpha`` is outside ``(1/2, 1)`` or ``rho`` outside ``[0, 1]``.

    Examples
    --------
    >>> round(saturation_floor(0.7, 0.3), 4)
    0.1692
    """
    a = _check_alpha(alpha, strict_half=True)
    r = _check_rho(rho)
    if r == 0.0:
        return 0.0
    return float(ndtr(ndtri(1.0 - a) / math.sqrt(r)))


@validate_params({"alpha": ARR_OR_REAL, "rho": ARR_OR_REAL})
def saturation_floor_array(alpha: Any, rho: Any) -> np.ndarray:
    """Vectorised :func:`saturation_floor` over broadcastable ``alpha`` and ``rho``.

    Same validation and the same ``rho = 0 -> 0`` convention; returns a float array of the
    broadcast shape (for plotting floors over a grid).
    """
    a = np.asarray(alpha, dtype=float)
    r = np.asarray(rho, dtype=float)
    if np.isnan(a).any() or ((a <= 0.5) | (a >= 1.0)).any():
        bad = a[np.isnan(a) | (a <= 0.5) | (a >= 1.0)].ravel()[0]
        raise constraint_error("alpha", "values in (0.5, 1)", float(bad))
    if np.isnan(r).any() or ((r < 0.0) | (r > 1.0)).any():
        bad = r[np.isnan(r) | (r < 0.0) | (r > 1.0)].ravel()[0]
        raise constraint_error("rho", "values in [0, 1]", float(bad))
    a, r = np.broadcast_arrays(a, r)
    with np.errstate(divide="ignore"):
        z = ndtri(1.0 - a) / np.sqrt(r)
    return np.where(r == 0.0, 0.0, ndtr(z))


# ---------------------------------------------------------------------------
# Theorem 4.4: exact law of the number of wrong models, and the finite-m error
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CountLawInfo:
    """Diagnostics of :func:`error_count_distribution` (``return_info=True``).

    Attributes
    ----------
    total_mass_error : float
        ``sum_e P(K = e) - 1`` before any normalisation (a quadrature-accuracy check).
    method : str
        ``"binomial"`` (``rho = 0``), ``"comonotone"`` (``rho = 1``) or ``"quadrature"``.
    max_nodes : int
        Largest number of quadrature nodes used for one ``e`` (0 for closed forms).
    """

    total_mass_error: float
    method: str
    max_nodes: int


def _mills(z: np.ndarray) -> np.ndarray:
    """``phi(z) / Phi(z)`` for any real ``z`` without overflow or cancellation."""
    return _SQRT_2_OVER_PI / erfcx(-z / math.sqrt(2.0))


def _log_integrand(u: np.ndarray, e: np.ndarray, m: int, mu: float, s: float) -> np.ndarray:
    """``log[p(u)^e (1 - p(u))^(m - e)] - u^2 / 2`` with ``p(u) = Phi(mu - s u)``."""
    z = mu - s * u
    return e * log_ndtr(z) + (m - e) * log_ndtr(-z) - 0.5 * u * u


def _log_integrand_derivatives(u: np.ndarray, e: np.ndarray, m: int, mu: float,
                               s: float) -> tuple[np.ndarray, np.ndarray]:
    z = mu - s * u
    r1 = _mills(z)
    r2 = _mills(-z)
    d1 = -s * e * r1 + s * (m - e) * r2 - u
    d2 = -s * s * (e * r1 * (z + r1) + (m - e) * r2 * (r2 - z)) - 1.0
    return d1, d2


@lru_cache(maxsize=4)
def _gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.polynomial.legendre.leggauss(n)``, computed once (an eigenvalue problem that
    cost more than the integrals using it); read-only arrays."""
    xg, wg = np.polynomial.legendre.leggauss(n)
    xg.setflags(write=False)
    wg.setflags(write=False)
    return xg, wg


def _one_factor_nodes(centers: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes/weights in ``u`` for one-factor integrals.

    The integrand is ``phi(u)`` times functions of ``z = (c - u) / width`` for each centre
    ``c``; panel breaks every 0.25 in ``u`` on ``[-12, 12]`` (``phi(12) ~ 1e-32``) and every
    0.5 in ``z`` on ``[-40, 40]`` around each centre, 20 nodes per panel, resolve both scales.
    Weights include ``phi(u)``.
    """
    breaks = set(np.arange(-12.0, 12.0001, 0.25).tolist())
    if np.isfinite(width) and width > 0:
        zs = np.arange(-40.0, 40.0001, 0.5)
        for c in centers[np.isfinite(centers)]:
            x = c - width * zs
            breaks.update(x[(x > -12.0) & (x < 12.0)].tolist())
    b = np.array(sorted(breaks))
    xg, wg = _gauss_legendre(20)
    mid = 0.5 * (b[1:] + b[:-1])
    half = 0.5 * (b[1:] - b[:-1])
    u = (mid[:, None] + half[:, None] * xg).ravel()
    w = (half[:, None] * wg).ravel() * np.exp(-0.5 * u * u - 0.5 * _LOG_2PI)
    return u, w


def _endpoint_mass(tau: float, rho: float, m: int, e: int) -> float:
    """``P(K = e)`` for ``e`` in ``{0, m}``: a soft step in ``u``, not a bump."""
    sr, sc = math.sqrt(rho), math.sqrt(1.0 - rho)
    u, w = _one_factor_nodes(np.array([tau / sr]), sc / sr)
    z = (tau - sr * u) / sc
    vals = np.exp(e * log_ndtr(z) + (m - e) * log_ndtr(-z))
    return float(vals @ w)


@lru_cache(maxsize=512)
def _count_law_quadrature(alpha: float, rho: float, m: int) -> tuple[np.ndarray, int]:
    """:func:`_count_law_quadrature_raw`, remembered (the pages ask for the same law for
    the MAP rule and majority vote, and at the same ``m`` in several figures); the array
    is read-only, callers normalise into a new one."""
    pmf, nodes = _count_law_quadrature_raw(alpha, rho, m)
    pmf.setflags(write=False)
    return pmf, nodes


def _count_law_quadrature_raw(alpha: float, rho: float, m: int, *, step: float = 0.1,
                          drop: float = 46.0, chunk: int = 4096) -> tuple[np.ndarray, int]:
    r"""Law of ``K`` for ``0 < rho < 1`` (see :func:`error_count_distribution`).

    For each ``e`` the integrand ``C(m, e) p(u)^e (1 - p(u))^{m-e} phi(u)`` is log-concave in
    ``u``. Its mode ``u*`` is found by safeguarded Newton, ``sigma = (-L''(u*))^{-1/2}``, and
    the integral is done by the trapezoidal rule in ``v`` with ``u = u* + sigma sinh(v)``
    (double-exponential-type convergence), over the range where the log-integrand is within
    ``drop`` of its maximum. ``e = 0`` and ``e = m`` (a soft step rather than a bump) go
    through adaptive quadrature with break points at the step.
    """
    tau = float(ndtri(1.0 - alpha))
    mu = tau / math.sqrt(1.0 - rho)
    s = math.sqrt(rho / (1.0 - rho))
    out = np.empty(m + 1)
    max_nodes = 0
    for start in range(0, m + 1, chunk):
        e = np.arange(start, min(start + chunk, m + 1), dtype=float)
        L0 = _log_integrand(np.zeros_like(e), e, m, mu, s)
        # the mode satisfies u^2 / 2 <= -L(0) since the binomial log-likelihood is <= 0
        bound = np.sqrt(-2.0 * np.minimum(L0, 0.0)) + 1.0
        lo, hi = -bound, bound.copy()
        q = np.clip(e / m, 0.5 / m, 1.0 - 0.5 / m)
        zq = ndtri(q)
        curv = s * s * m * np.exp(-zq * zq - _LOG_2PI) / (q * (1.0 - q))
        u = np.clip(curv * (mu - zq) / s / (curv + 1.0), lo, hi)
        for _ in range(200):
            d1, d2 = _log_integrand_derivatives(u, e, m, mu, s)
            up = d1 > 0
            lo = np.where(up, u, lo)
            hi = np.where(up, hi, u)
            un = u - d1 / d2
            outside = ~((un >= lo) & (un <= hi))
            un = np.where(outside, 0.5 * (lo + hi), un)
            done = np.abs(un - u) <= 1e-13 * (1.0 + np.abs(u)) + 1e-13 / np.sqrt(-d2)
            u = un
            if done.all():
                break
        _, d2 = _log_integrand_derivatives(u, e, m, mu, s)
        sig = 1.0 / np.sqrt(-d2)
        Lm = _log_integrand(u, e, m, mu, s)
        vr = []
        for sign in (-1.0, 1.0):
            t = 2.0 * sig
            for _ in range(2000):
                need = _log_integrand(u + sign * t, e, m, mu, s) - Lm > -drop
                if not need.any():
                    break
                t = np.where(need, 2.0 * t, t)
            vr.append(np.arcsinh(t / sig))
        vlo, vhi = -vr[0], vr[1]
        n = np.ceil((vhi - vlo) / step).astype(int) + 1
        nb = np.maximum(2 ** np.ceil(np.log2(n)).astype(int), 16)
        logint = np.empty(e.size)
        for size in np.unique(nb):
            idx = np.flatnonzero(nb == size)
            x = np.linspace(0.0, 1.0, int(size))
            width = vhi[idx] - vlo[idx]
            v = vlo[idx, None] + width[:, None] * x
            uu = u[idx, None] + sig[idx, None] * np.sinh(v)
            val = np.exp(_log_integrand(uu, e[idx, None], m, mu, s) - Lm[idx, None]) * np.cosh(v)
            trap = val.sum(axis=1) - 0.5 * (val[:, 0] + val[:, -1])
            logint[idx] = np.log(trap * width / (size - 1) * sig[idx])
            max_nodes = max(max_nodes, int(size))
        logc = gammaln(m + 1.0) - gammaln(e + 1.0) - gammaln(m - e + 1.0) - 0.5 * _LOG_2PI
        out[start:start + e.size] = np.exp(logc + Lm + logint)
    out[0] = _endpoint_mass(tau, rho, m, 0)
    out[m] = _endpoint_mass(tau, rho, m, m)
    return out, max_nodes


@validate_params({"alpha": _IN_BODY, "rho": _IN_BODY, "m": _IN_BODY,
                  "return_info": ["boolean"]})
def error_count_distribution(alpha: float, rho: float, m: int, *,
                             return_info: bool = False) -> Any:
    r"""Exact law of the number ``K`` of wrong models among ``m`` equicorrelated models.

    Model (paper, Section 3 and Appendix "Proof of Theorem 4.4"): ``Z_j = sqrt(rho) U +
    sqrt(1 - rho) xi_j``, ``E_j = 1(Z_j < tau)``, ``tau = Phi^-1(1 - alpha)``, errors
    independent of ``Y``. Given ``U = u`` the errors are i.i.d. Bernoulli(``p(u)``),
    ``p(u) = Phi((tau - sqrt(rho) u) / sqrt(1 - rho))``, so

    .. math:: P(K = e) = \int \binom{m}{e} p(u)^e (1 - p(u))^{m - e} \phi(u)\, du .

    Computed by deterministic quadrature in log space (no Monte Carlo): for each ``e`` the
    integrand is log-concave in ``u``; it is integrated around its mode with a sinh change
    of variables and the trapezoidal rule (absolute error ~1e-11 for ``m = 10^4``, checked
    against adaptive ``scipy.integrate.quad`` references). ``rho = 0`` is the binomial law
    ``Bin(m, 1 - alpha)`` exactly; ``rho = 1`` puts mass ``alpha`` on ``K = 0`` and
    ``1 - alpha`` on ``K = m``.

    Parameters
    ----------
    alpha : float
        Accuracy of every model, in ``(0, 1)`` (Theorem 4.4 assumes ``alpha > 1/2``).
    rho : float
        Latent equicorrelation in ``[0, 1]``.
    m : int
        Number of models, ``>= 1``.
    return_info : bool, default False
        Also return a :class:`CountLawInfo` with the quadrature diagnostics.

    Returns
    -------
    numpy.ndarray of shape (m + 1,)
        ``P(K = e)`` for ``e = 0..m`` (renormalised to sum to 1; the raw deviation, below
        1e-10, is reported in ``info.total_mass_error``). With ``return_info`` a tuple
        ``(pmf, info)``.

    Examples
    --------
    >>> error_count_distribution(0.7, 0.0, 2).round(2).tolist()
    [0.49, 0.42, 0.09]
    """
    a = _check_alpha(alpha, strict_half=False)
    r = _check_rho(rho)
    mm = _check_m(m)
    if r == 0.0:
        e = np.arange(mm + 1)
        logc = gammaln(mm + 1.0) - gammaln(e + 1.0) - gammaln(mm - e + 1.0)
        pmf = np.exp(logc + e * math.log1p(-a) + (mm - e) * math.log(a))
        info = CountLawInfo(float(pmf.sum() - 1.0), "binomial", 0)
    elif r == 1.0:
        pmf = np.zeros(mm + 1)
        pmf[0] += a
        pmf[mm] += 1.0 - a
        info = CountLawInfo(0.0, "comonotone", 0)
    else:
        pmf, nodes = _count_law_quadrature(a, r, mm)
        info = CountLawInfo(float(pmf.sum() - 1.0), "quadrature", nodes)
    pmf = pmf / pmf.sum()
    return (pmf, info) if return_info else pmf


def _error_from_count_law(pmf: np.ndarray, rule: str) -> float:
    m = pmf.size - 1
    if rule == "map":
        # P_e = sum_t C(m,t) 0.5 min(q(m-t), q(t)) = 0.5 sum_e min(P(K=e), P(K=m-e)):
        # the pattern with t votes for +1 has e = m - t errors if Y = +1 and e = t if Y = -1.
        return float(0.5 * np.minimum(pmf, pmf[::-1]).sum())
    half = m // 2
    err = float(pmf[half + 1:].sum())
    if m % 2 == 0:
        err += 0.5 * float(pmf[half])
    return err


@validate_params({"alpha": _IN_BODY, "rho": _IN_BODY, "m": _IN_BODY, "rule": [str]})
def ensemble_error(alpha: float, rho: float, m: int, rule: str = "map") -> float:
    r"""Exact error of the MAP rule or majority vote for ``m`` equicorrelated models.

    Setting of Theorem 4.4 (see :func:`error_count_distribution`): equal accuracy
    ``alpha``, one-factor Gaussian copula with correlation ``rho``, balanced ``Y``, errors
    independent of ``Y``.

    * ``rule="map"``: by exchangeability the posterior depends on the answers only through
      the number ``t`` of ``+1`` votes, and
      ``P_e = sum_t C(m, t) 0.5 min(q(m - t), q(t))`` with ``q(e) = E_U[p^e (1-p)^(m-e)]``
      (the probability of one particular pattern with ``e`` errors), i.e.
      ``P_e = 0.5 sum_e min(P(K = e), P(K = m - e))``. A tie (possible only at
      ``t = m/2``) goes to ``+1``; the tie pattern then contributes ``0.5 q(m/2)`` either
      way, so the tie rule does not change the error.
    * ``rule="majority"`` (alias ``"mv"``): ``P(K > m/2) + 0.5 P(K = m/2)`` (random tie
      break, the paper's Algorithm "Majority Voting").

    For ``alpha > 1/2`` the two coincide for every ``m``: the density of ``p(U)`` satisfies
    ``f(p) > f(1 - p)`` for ``p < 1/2``, so ``P(K = e) >= P(K = m - e)`` for ``e < m/2``
    (the paper's step "MAP equals majority vote", Eq. (65)); the two rules are
    computed by different formulas, so this is a numerical check of that step.

    Parameters
    ----------
    alpha : float
        Accuracy of every model, in ``(0, 1)``.
    rho : float
        Latent equicorrelation in ``[0, 1]``.
    m : int
        Number of models, ``>= 1``.
    rule : {"map", "majority", "mv"}
        Aggregation rule.

    Returns
    -------
    float
        Error probability; accurate to ~1e-10 (absolute) for ``m`` up to ``10^4``.

    Examples
    --------
    >>> round(ensemble_error(0.7, 0.3, 1), 4)
    0.3
    >>> round(ensemble_error(0.7, 0.3, 101), 4)
    0.1735
    >>> round(ensemble_error(0.7, 0.3, 101, rule="majority"), 4)
    0.1735
    """
    if rule.lower() not in ("map", "majority", "mv"):
        raise constraint_error("rule", "one of 'map', 'majority' or 'mv' (any case)", rule)
    key = "map" if rule.lower() == "map" else "majority"
    pmf = error_count_distribution(alpha, rho, m)
    return _error_from_count_law(pmf, key)


@dataclass(frozen=True)
class CountLawComparison:
    """Simulated counts against an exact law (see :func:`compare_count_law`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per bin: ``bin`` (the value ``k``, or ``"rare"`` for the pooled bins with a
        small expected count), ``expected`` (probability), ``observed`` (frequency),
        ``std_error`` (``sqrt(p (1 - p) / n)``) and ``z``.
    total_variation : float
        ``0.5 sum_k |observed_k - expected_k|`` over the unpooled values.
    max_abs_z : float
        Largest ``|z|`` over the bins.
    n : int
        Number of simulated items.
    """

    table: pd.DataFrame
    total_variation: float
    max_abs_z: float
    n: int


@validate_params({"K": ARR, "pmf": ARR,
                  "min_expected": [Interval(Real, 0, None, closed="neither")]})
def compare_count_law(K: Any, pmf: Any, *, min_expected: float = 10.0) -> CountLawComparison:
    """Compare per-item counts ``K`` (e.g. numbers of wrong models) with an exact law ``pmf``.

    Items are independent draws, so the frequency of each value ``k`` has standard error
    ``sqrt(p_k (1 - p_k) / n)``. Values whose expected count ``n p_k`` is below
    ``min_expected`` are pooled into one ``"rare"`` bin so that no z-score rests on a handful
    of expected events.

    Parameters
    ----------
    K : array-like of int, shape (n,)
        Simulated values in ``0..len(pmf) - 1``.
    pmf : array-like of shape (m + 1,)
        Exact probabilities (non-negative, summing to 1 within 1e-8).
    min_expected : float, default 10.0
        Pooling threshold on the expected count.

    Returns
    -------
    CountLawComparison
    """
    p = np.asarray(pmf, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise constraint_error("pmf", "a non-empty 1-d array", Shown(f"shape {p.shape}"))
    if not np.all(np.isfinite(p)) or (p < 0).any() or abs(p.sum() - 1.0) > 1e-8:
        raise constraint_error("pmf", "non-negative and summing to 1",
                               Shown(f"a sum of {float(p.sum())!r}"))
    k = np.asarray(K)
    if k.ndim != 1 or k.size == 0:
        raise constraint_error("K", "a non-empty 1-d array of counts", Shown(f"shape {k.shape}"))
    if not np.issubdtype(k.dtype, np.integer):
        if not np.all(np.isfinite(k)) or not np.all(np.equal(np.mod(k, 1), 0)):
            raise constraint_error("K", "integer counts", Shown("a non-integer value"))
        k = k.astype(np.int64)
    if k.min() < 0 or k.max() >= p.size:
        raise constraint_error("K", f"counts in 0..{p.size - 1} (the support of pmf)",
                               Shown(f"values in {int(k.min())}..{int(k.max())}"))
    n = int(k.size)
    freq = np.bincount(k, minlength=p.size) / n
    big = n * p >= min_expected
    bins: list[Any] = [int(v) for v in np.flatnonzero(big)]
    exp = list(p[big])
    obs = list(freq[big])
    if (~big).any():
        bins.append("rare")
        exp.append(float(p[~big].sum()))
        obs.append(float(freq[~big].sum()))
    e = np.array(exp)
    o = np.array(obs)
    se = np.sqrt(e * (1.0 - e) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, (o - e) / np.where(se > 0, se, 1.0), np.where(o == e, 0.0, np.inf))
    table = pd.DataFrame({"bin": bins, "expected": e, "observed": o, "std_error": se, "z": z})
    return CountLawComparison(
        table=table,
        total_variation=float(0.5 * np.abs(freq - p).sum()),
        max_abs_z=float(np.abs(z).max()),
        n=n,
    )
