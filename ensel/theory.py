"""Closed forms and exact computations behind the paper's theorems.

Everything here is computed from a *known* probability model (no data, no sampling):

* Theorem 4.3 (saturation): :func:`saturation_floor`, and the exact finite-``m`` error of
  the MAP rule and of majority vote for ``m`` equicorrelated models of equal accuracy,
  :func:`ensemble_error`, from the exact law of the number of wrong models,
  :func:`error_count_distribution` (deterministic quadrature, accurate to ~1e-10 for
  ``m`` up to ``10^4`` and beyond).
* Theorem 4.1 (alignment under independence): :func:`bsc_degradation_delta` (Lemma C.1),
  :func:`independent_joint_law`, and for correlated errors :func:`copula_joint_law` /
  :func:`label_dependent_copula_joint_law` (exact joint tables of ``(Y, X_S)``);
  :func:`map_error`, :func:`map_decisions`, :func:`mutual_information_xy`,
  :func:`subset_joint` on such tables.
* Theorem D.1 (latent difficulty): :class:`LatentDifficultyModel` (``F(S) = I(Y; X_S | D)``,
  the price of difficulty ``I(Y; D | X_S)``), and exhaustive checks of monotonicity and
  submodularity of a set function plus greedy vs exhaustive maximisation.
* Theorem E.1 (log-odds weights): :func:`log_odds_weights`,
  :func:`weighted_vote_decisions`, :func:`compare_weighted_vote_with_map`,
  :func:`weighted_vote_matches_map`.

Conventions
-----------
Joint tables of ``(Y, X_1, ..., X_k)`` are numpy arrays of shape ``(2,) * (k + 1)``; axis 0
is ``Y`` and axis ``1 + i`` is model ``i``; on every axis index 0 is the value ``-1`` and
index 1 is ``+1``. Error-pattern tables ``P(E = e)`` have shape ``(2,) * k`` with index
``e_j`` in ``{0, 1}`` (1 = model ``j`` is wrong). ``prior`` is ``P(Y = +1)``. Errors relate
to answers through ``X_j = Y (-1)^{E_j}``. Information is in bits (via :mod:`ensel.info`).
MAP ties go to ``+1`` (the paper's Algorithm "MAP Aggregation").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import erfcx, gammaln, log_ndtr, ndtr, ndtri
from scipy.stats import multivariate_normal

from ensel.info import (
    conditional_mutual_information_table,
    entropy_table,
    mutual_information_table,
)

__all__ = [
    "CountLawInfo",
    "DifficultyDecomposition",
    "LatentDifficultyModel",
    "WeightedVoteComparison",
    "bsc_degradation_delta",
    "compare_weighted_vote_with_map",
    "copula_joint_law",
    "ensemble_error",
    "error_count_distribution",
    "error_pattern_law",
    "exhaustive_maximize",
    "greedy_maximize",
    "independent_joint_law",
    "is_monotone",
    "is_submodular",
    "joint_law_from_error_laws",
    "label_dependent_copula_joint_law",
    "log_odds_weights",
    "map_decisions",
    "map_error",
    "monotonicity_violation",
    "mutual_information_xy",
    "saturation_floor",
    "saturation_floor_array",
    "set_function_table",
    "subset_joint",
    "submodularity_violation",
    "weighted_vote_decisions",
    "weighted_vote_matches_map",
]

_LOG_2PI = math.log(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

#: Relative tolerance under which two posterior masses (or a weighted vote and 0) count as
#: a tie when *decisions* are compared (rounding in products must not flip a tie).
TIE_RTOL = 1e-12

# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------


def _real(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a real number; got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number; got {value!r}") from None
    if math.isnan(x):
        raise ValueError(f"{name} must be a real number; got NaN")
    return x


def _check_alpha(alpha: Any, *, strict_half: bool) -> float:
    a = _real(alpha, "alpha")
    if strict_half:
        if not 0.5 < a < 1.0:
            raise ValueError(
                f"alpha (model accuracy) must lie in the open interval (1/2, 1) as in "
                f"Theorem 4.3; got {a!r}"
            )
    elif not 0.0 < a < 1.0:
        raise ValueError(f"alpha (model accuracy) must lie in the open interval (0, 1); got {a!r}")
    return a


def _check_rho(rho: Any) -> float:
    r = _real(rho, "rho")
    if not 0.0 <= r <= 1.0:
        raise ValueError(
            f"rho (equicorrelation of the latent scores) must lie in [0, 1]; got {r!r}"
        )
    return r


def _check_m(m: Any) -> int:
    if isinstance(m, (bool, np.bool_)):
        raise ValueError(f"m (number of models) must be a positive integer; got {m!r}")
    if isinstance(m, (float, np.floating)) and float(m).is_integer():
        m = int(m)
    if not isinstance(m, (int, np.integer)):
        raise ValueError(f"m (number of models) must be a positive integer; got {m!r}")
    if int(m) < 1:
        raise ValueError(f"m (number of models) must be a positive integer; got {int(m)}")
    return int(m)


def _check_prior(prior: Any) -> float:
    p = _real(prior, "prior")
    if not 0.0 < p < 1.0:
        raise ValueError(f"prior = P(Y=+1) must lie in the open interval (0, 1); got {p!r}")
    return p


def _check_rates(values: Any, name: str, *, open_interval: bool = False) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-dimensional array; got shape {arr.shape}")
    if open_interval:
        bad = ~np.isfinite(arr) | (arr <= 0) | (arr >= 1)
        what = "the open interval (0, 1)"
    else:
        bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
        what = "[0, 1]"
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name}[{i}] = {arr[i]!r} is not in {what}")
    return arr


def _check_joint(joint: Any) -> np.ndarray:
    arr = np.asarray(joint, dtype=float)
    if arr.ndim < 1 or any(s != 2 for s in arr.shape):
        raise ValueError(
            "joint must be the law of (Y, X_1, ..., X_k) with shape (2, 2, ..., 2) "
            f"(axis 0 = Y, index 0 = -1, index 1 = +1); got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or (arr < 0).any():
        raise ValueError("joint must contain finite, non-negative probabilities")
    total = float(arr.sum())
    if abs(total - 1.0) > 1e-9:
        raise ValueError(f"joint must sum to 1 (a probability table); it sums to {total!r}")
    return arr


def _check_subset(S: Iterable[int] | None, k: int, name: str = "S") -> tuple[int, ...]:
    if S is None:
        return tuple(range(k))
    out = []
    for s in S:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise ValueError(f"{name} must contain integer model indices; got {s!r}")
        if not 0 <= int(s) < k:
            raise ValueError(f"{name} contains model {int(s)}, but there are only {k} models "
                             f"(valid indices 0..{k - 1})")
        out.append(int(s))
    if len(set(out)) != len(out):
        raise ValueError(f"{name} repeats a model: {tuple(out)}")
    return tuple(out)


# ---------------------------------------------------------------------------
# Theorem 4.3: saturation floor
# ---------------------------------------------------------------------------


def saturation_floor(alpha: float, rho: float) -> float:
    """Error floor of Theorem 4.3: ``Phi(Phi^-1(1 - alpha) / sqrt(rho))``.

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
    """
    a = _check_alpha(alpha, strict_half=True)
    r = _check_rho(rho)
    if r == 0.0:
        return 0.0
    return float(ndtr(ndtri(1.0 - a) / math.sqrt(r)))


def saturation_floor_array(alpha: Any, rho: Any) -> np.ndarray:
    """Vectorised :func:`saturation_floor` over broadcastable ``alpha`` and ``rho``.

    Same validation and the same ``rho = 0 -> 0`` convention; returns a float array of the
    broadcast shape (for plotting floors over a grid).
    """
    a = np.asarray(alpha, dtype=float)
    r = np.asarray(rho, dtype=float)
    if np.isnan(a).any() or ((a <= 0.5) | (a >= 1.0)).any():
        bad = a[np.isnan(a) | (a <= 0.5) | (a >= 1.0)].ravel()[0]
        raise ValueError(f"alpha values must lie in (1/2, 1); got {bad!r}")
    if np.isnan(r).any() or ((r < 0.0) | (r > 1.0)).any():
        bad = r[np.isnan(r) | (r < 0.0) | (r > 1.0)].ravel()[0]
        raise ValueError(f"rho values must lie in [0, 1]; got {bad!r}")
    a, r = np.broadcast_arrays(a, r)
    with np.errstate(divide="ignore"):
        z = ndtri(1.0 - a) / np.sqrt(r)
    return np.where(r == 0.0, 0.0, ndtr(z))


# ---------------------------------------------------------------------------
# Theorem 4.3: exact law of the number of wrong models, and the finite-m error
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
    xg, wg = np.polynomial.legendre.leggauss(20)
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


def _count_law_quadrature(alpha: float, rho: float, m: int, *, step: float = 0.1,
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


def error_count_distribution(alpha: float, rho: float, m: int, *,
                             return_info: bool = False) -> Any:
    r"""Exact law of the number ``K`` of wrong models among ``m`` equicorrelated models.

    Model (paper, Section 3 and Appendix "Proof of Theorem 4.3"): ``Z_j = sqrt(rho) U +
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
        Accuracy of every model, in ``(0, 1)`` (Theorem 4.3 assumes ``alpha > 1/2``).
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


def ensemble_error(alpha: float, rho: float, m: int, rule: str = "map") -> float:
    r"""Exact error of the MAP rule or majority vote for ``m`` equicorrelated models.

    Setting of Theorem 4.3 (see :func:`error_count_distribution`): equal accuracy
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
    (the paper's step "MAP equals majority vote", Eq. ``map_equals_maj``); the two rules are
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
    """
    if not isinstance(rule, str) or rule.lower() not in ("map", "majority", "mv"):
        raise ValueError(f"rule must be 'map' or 'majority' (alias 'mv'); got {rule!r}")
    key = "map" if rule.lower() == "map" else "majority"
    pmf = error_count_distribution(alpha, rho, m)
    return _error_from_count_law(pmf, key)


# ---------------------------------------------------------------------------
# Theorem 4.1: BSCs, joint laws and the MAP error on tables
# ---------------------------------------------------------------------------


def bsc_degradation_delta(eps_strong: float, eps_weak: float) -> float:
    """Crossover of the BSC that degrades ``BSC(eps_strong)`` into ``BSC(eps_weak)``.

    Lemma C.1: cascading ``BSC(eps_strong)`` with an independent ``BSC(delta)`` gives a BSC
    with error ``eps_strong (1 - delta) + (1 - eps_strong) delta``; setting this to
    ``eps_weak`` gives ``delta = (eps_weak - eps_strong) / (1 - 2 eps_strong)``. Example C.1:
    ``bsc_degradation_delta(0.2, 0.4) == 1/3``.

    Parameters
    ----------
    eps_strong, eps_weak : float
        Error rates with ``0 <= eps_strong <= eps_weak < 1/2``.

    Returns
    -------
    float
        ``delta`` in ``[0, 1/2)``.
    """
    e1 = _real(eps_strong, "eps_strong")
    e2 = _real(eps_weak, "eps_weak")
    if not 0.0 <= e1 < 0.5:
        raise ValueError(f"eps_strong must lie in [0, 1/2); got {e1!r}")
    if not 0.0 <= e2 < 0.5:
        raise ValueError(f"eps_weak must lie in [0, 1/2); got {e2!r}")
    if e2 < e1:
        raise ValueError(
            f"eps_weak ({e2!r}) must be >= eps_strong ({e1!r}): only a more accurate channel "
            "can be degraded into a less accurate one"
        )
    return (e2 - e1) / (1.0 - 2.0 * e1)


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
            raise ValueError(f"{name} must have shape (2, ..., 2); got {arr.shape}")
        if not np.all(np.isfinite(arr)) or (arr < 0).any() or abs(arr.sum() - 1.0) > 1e-9:
            raise ValueError(f"{name} must be a probability table (non-negative, sums to 1)")
    if neg.shape != pos.shape:
        raise ValueError(f"error_law_neg {neg.shape} and error_law_pos {pos.shape} differ")
    out = np.empty((2,) + neg.shape)
    out[0] = (1.0 - p) * neg
    out[1] = p * np.flip(pos, axis=tuple(range(pos.ndim)))
    return out


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
    signs = _pattern_signs(k)
    logs = np.where(signs[:, :, None] > 0, log_err[None], log_ok[None]).sum(axis=1)
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
        raise ValueError(
            f"Sigma must be positive definite for k >= 3 (smallest eigenvalue {eig.min():.3g})"
        )
    signs = _pattern_signs(k)
    vals = np.empty(len(signs))
    for n, d in enumerate(signs):
        cov = S * np.outer(d, d)
        vals[n] = multivariate_normal.cdf(
            d * t, mean=np.zeros(k), cov=cov, abseps=abseps, releps=0.0,
            maxpts=max(10_000 * k, 200_000), rng=np.random.default_rng(random_state),
        )
    return vals.reshape((2,) * k)


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
    from ensel.copula import _check_tau_sigma

    t, S = _check_tau_sigma(tau, Sigma)
    k = t.size
    if k > 12:
        raise ValueError(f"error_pattern_law enumerates 2^k patterns; k={k} > 12 is too large")
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


def label_dependent_copula_joint_law(tau_pos: Any, Sigma_pos: Any, tau_neg: Any,
                                     Sigma_neg: Any, *, prior: float = 0.5,
                                     abseps: float = 1e-7,
                                     random_state: int = 0) -> np.ndarray:
    """Joint table of ``(Y, X_S)`` when the error copula depends on the label.

    ``E | Y = +1`` follows the copula ``(tau_pos, Sigma_pos)`` and ``E | Y = -1`` follows
    ``(tau_neg, Sigma_neg)``. Errors are then *not* independent of ``Y``, so the correction
    ``Lambda_j(S)`` of Theorem 4.2 need not vanish (see
    :func:`ensel.info.decomposition_terms_exact`).
    """
    pos = error_pattern_law(tau_pos, Sigma_pos, abseps=abseps, random_state=random_state)
    neg = error_pattern_law(tau_neg, Sigma_neg, abseps=abseps, random_state=random_state)
    if pos.shape != neg.shape:
        raise ValueError(f"tau_pos has {pos.ndim} models but tau_neg has {neg.ndim}")
    return joint_law_from_error_laws(neg, pos, prior)


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


def map_decisions(joint: Any, S: Iterable[int] | None = None) -> np.ndarray:
    """MAP decision (``-1`` or ``+1``) for each answer pattern of ``X_S``.

    Returns an ``int8`` array of shape ``(2,) * |S|`` (index 0 = answer ``-1``). Ties
    (``|P(+1, x) - P(-1, x)| <= TIE_RTOL * max``) go to ``+1``.
    """
    p = subset_joint(joint, S)
    neg, pos = p[0], p[1]
    tie = np.abs(pos - neg) <= TIE_RTOL * np.maximum(pos, neg)
    return np.where((pos > neg) | tie, 1, -1).astype(np.int8)


def map_error(joint: Any, S: Iterable[int] | None = None) -> float:
    """Bayes (MAP) error of predicting ``Y`` from ``X_S``: ``sum_x min_y P(Y = y, X_S = x)``.

    The tie rule (``+1``) does not change this value.
    """
    p = subset_joint(joint, S)
    return float(np.minimum(p[0], p[1]).sum())


def mutual_information_xy(joint: Any, S: Iterable[int] | None = None) -> float:
    """``I(Y; X_S)`` in bits on a joint table (via :func:`ensel.info.mutual_information_table`)."""
    p = subset_joint(joint, S)
    if p.ndim == 1:
        return 0.0
    return mutual_information_table(p, 0, tuple(range(1, p.ndim)))


# ---------------------------------------------------------------------------
# Theorem D.1: latent difficulty
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DifficultyDecomposition:
    """The quantities of Theorem D.1 for one subset ``S`` (bits).

    Attributes
    ----------
    information : float
        ``I(Y; X_S)``.
    difficulty_aware_information : float
        ``F(S) = I(Y; X_S | D)``.
    price_of_difficulty : float
        ``I(Y; D | X_S)``.
    price_operational : float
        ``H(Y | X_S) - H(Y | X_S, D)`` (Eq. ``price_operational``; equals the price).
    label_difficulty_information : float
        ``I(Y; D)`` (0 under the theorem's assumption ``D`` independent of ``Y``).
    """

    information: float
    difficulty_aware_information: float
    price_of_difficulty: float
    price_operational: float
    label_difficulty_information: float

    @property
    def residual(self) -> float:
        """``I(Y;X_S) - [F(S) - price]``: zero by Eq. ``oracle_decomp_main``."""
        return self.information - (self.difficulty_aware_information - self.price_of_difficulty)


class LatentDifficultyModel:
    """Discrete latent-difficulty model of Theorem D.1.

    ``D`` takes ``n_levels`` values with prior ``difficulty_prior``, independent of ``Y``
    (``P(Y = +1) = prior``). Given ``(Y, D = d)`` the model errors are independent, with
    rates ``error_rates[d, j]`` (label-invariant) or ``error_rates[d, y, j]`` (label-dependent,
    ``y`` index 0 = ``Y=-1``, 1 = ``Y=+1``); answers ``X_j = Y (-1)^{E_j}``. This satisfies both
    assumptions of the theorem, so ``I(Y; X_S) = F(S) - I(Y; D | X_S)`` with
    ``F(S) = I(Y; X_S | D)`` monotone submodular.

    Parameters
    ----------
    difficulty_prior : array-like of shape (n_levels,)
        ``P(D = d)`` (non-negative, sums to 1).
    error_rates : array-like of shape (n_levels, m) or (n_levels, 2, m)
        Error probabilities in ``[0, 1]``.
    prior : float, default 0.5
        ``P(Y = +1)``.

    Attributes
    ----------
    n_levels, n_models : int
    difficulty_prior : numpy.ndarray
    error_rates : numpy.ndarray of shape (n_levels, 2, m)
        Always stored label-dependent (duplicated for label-invariant input).
    marginal_error_rates : numpy.ndarray of shape (m,)
        ``P(E_j = 1)``.
    """

    def __init__(self, difficulty_prior: Any, error_rates: Any, *, prior: float = 0.5) -> None:
        pi = np.asarray(difficulty_prior, dtype=float)
        if pi.ndim != 1 or pi.size == 0:
            raise ValueError(
                f"difficulty_prior must be a non-empty 1-d array; got shape {pi.shape}"
            )
        if not np.all(np.isfinite(pi)) or (pi < 0).any() or abs(pi.sum() - 1.0) > 1e-9:
            raise ValueError("difficulty_prior must be non-negative and sum to 1")
        eps = np.asarray(error_rates, dtype=float)
        if eps.ndim == 2:
            eps = np.stack([eps, eps], axis=1)
        if eps.ndim != 3 or eps.shape[0] != pi.size or eps.shape[1] != 2 or eps.shape[2] == 0:
            raise ValueError(
                "error_rates must have shape (n_levels, m) or (n_levels, 2, m) with "
                f"n_levels={pi.size}; got {np.shape(error_rates)}"
            )
        if not np.all(np.isfinite(eps)) or (eps < 0).any() or (eps > 1).any():
            raise ValueError("error_rates must lie in [0, 1]")
        self.prior = _check_prior(prior)
        self.difficulty_prior = pi
        self.error_rates = eps
        self.n_levels = int(pi.size)
        self.n_models = int(eps.shape[2])
        py = np.array([1.0 - self.prior, self.prior])
        self.marginal_error_rates = np.einsum("d,y,dyj->j", pi, py, eps)

    @classmethod
    def from_one_factor(cls, accuracy: Any, rho: float, *, n_levels: int = 40,
                        m: int | None = None, prior: float = 0.5) -> LatentDifficultyModel:
        """Discretise the one-factor copula: ``D`` = Gauss-Hermite node of ``U``.

        ``P(D = d)`` are the probabilists' Gauss-Hermite weights and
        ``eps_j(d) = Phi((tau_j - sqrt(rho) u_d) / sqrt(1 - rho))``, ``tau_j = Phi^-1(1 -
        accuracy_j)``: the latent common factor ``U`` of Theorem 4.3 *is* a latent difficulty.
        Marginal accuracies are matched up to the quadrature error.
        """
        r = _check_rho(rho)
        if r >= 1.0:
            raise ValueError("rho must be < 1 for a latent-difficulty discretisation")
        acc = np.asarray(accuracy, dtype=float)
        if acc.ndim == 0:
            acc = np.full(_check_m(m if m is not None else 1), float(acc))
        acc = _check_rates(acc, "accuracy", open_interval=True)
        nl = _check_m(n_levels)
        x, w = np.polynomial.hermite_e.hermegauss(nl)
        w = w / w.sum()
        tau = ndtri(1.0 - acc)
        eps = ndtr((tau[None, :] - math.sqrt(r) * x[:, None]) / math.sqrt(1.0 - r))
        return cls(w, eps, prior=prior)

    def _subset(self, S: Iterable[int] | None) -> tuple[int, ...]:
        return _check_subset(S, self.n_models)

    def joint(self, S: Iterable[int] | None = None) -> np.ndarray:
        """Exact joint table of ``(D, Y, X_S)``: shape ``(n_levels, 2) + (2,) * |S|``."""
        SS = self._subset(S)
        py = np.array([1.0 - self.prior, self.prior])
        out = self.difficulty_prior[:, None] * py[None, :]
        out = out.reshape(self.n_levels, 2)
        for j in SS:
            e = self.error_rates[:, :, j]  # (n_levels, 2)
            # P(X_j = -1 | y) is the error rate for y = +1 and 1 - error rate for y = -1
            px = np.empty((self.n_levels, 2, 2))
            px[:, 0, 0] = 1.0 - e[:, 0]
            px[:, 0, 1] = e[:, 0]
            px[:, 1, 0] = e[:, 1]
            px[:, 1, 1] = 1.0 - e[:, 1]
            shape = (self.n_levels, 2) + (1,) * (out.ndim - 2) + (2,)
            out = out[..., None] * px.reshape(shape)
        return out

    def joint_yx(self, S: Iterable[int] | None = None) -> np.ndarray:
        """Joint table of ``(Y, X_S)`` (``D`` summed out)."""
        return self.joint(S).sum(axis=0)

    def difficulty_aware_information(self, S: Iterable[int] | None = None) -> float:
        """``F(S) = I(Y; X_S | D)`` in bits."""
        p = self.joint(S)
        if p.ndim == 2:
            return 0.0
        return conditional_mutual_information_table(p, 1, tuple(range(2, p.ndim)), 0)

    def information(self, S: Iterable[int] | None = None) -> float:
        """``I(Y; X_S)`` in bits."""
        p = self.joint(S)
        if p.ndim == 2:
            return 0.0
        return mutual_information_table(p, 1, tuple(range(2, p.ndim)))

    def price_of_difficulty(self, S: Iterable[int] | None = None) -> float:
        """Price of Difficulty ``I(Y; D | X_S)`` in bits (Theorem D.1)."""
        p = self.joint(S)
        return conditional_mutual_information_table(p, 1, 0, tuple(range(2, p.ndim)))

    def decomposition(self, S: Iterable[int] | None = None) -> DifficultyDecomposition:
        """All quantities of Theorem D.1 for ``S`` (see :class:`DifficultyDecomposition`)."""
        p = self.joint(S)
        xs = tuple(range(2, p.ndim))
        info = mutual_information_table(p, 1, xs) if xs else 0.0
        f = conditional_mutual_information_table(p, 1, xs, 0) if xs else 0.0
        price = conditional_mutual_information_table(p, 1, 0, xs)
        h_y_x = entropy_table(p, (1,) + xs) - entropy_table(p, xs)
        h_y_xd = entropy_table(p, (0, 1) + xs) - entropy_table(p, (0,) + xs)
        return DifficultyDecomposition(
            information=info,
            difficulty_aware_information=f,
            price_of_difficulty=price,
            price_operational=h_y_x - h_y_xd,
            label_difficulty_information=mutual_information_table(p, 1, 0),
        )

    def map_error(self, S: Iterable[int] | None = None, *, oracle: bool = False) -> float:
        """Bayes error from ``X_S`` (or, with ``oracle=True``, from ``(X_S, D)``)."""
        p = self.joint(S)
        if oracle:
            return float(np.minimum(p[:, 0], p[:, 1]).sum())
        q = p.sum(axis=0)
        return float(np.minimum(q[0], q[1]).sum())


# --- exhaustive checks on set functions ------------------------------------


def set_function_table(F: Callable[[tuple[int, ...]], float], m: int) -> dict[int, float]:
    """Evaluate ``F`` on all ``2^m`` subsets of ``{0..m-1}``; keys are bit masks.

    ``F`` receives the subset as a sorted tuple. ``m`` must be at most 16.
    """
    mm = _check_m(m)
    if mm > 16:
        raise ValueError(f"exhaustive evaluation needs m <= 16; got m={mm}")
    return {mask: float(F(tuple(j for j in range(mm) if mask >> j & 1)))
            for mask in range(1 << mm)}


def monotonicity_violation(F: Callable[[tuple[int, ...]], float], m: int) -> float:
    """``max_{S, j} [F(S) - F(S + j)]`` (``<= 0`` iff ``F`` is monotone non-decreasing)."""
    vals = set_function_table(F, m)
    mm = _check_m(m)
    worst = -math.inf
    for mask, v in vals.items():
        for j in range(mm):
            if not mask >> j & 1:
                worst = max(worst, v - vals[mask | 1 << j])
    return worst if worst != -math.inf else 0.0


def submodularity_violation(F: Callable[[tuple[int, ...]], float], m: int) -> float:
    """``max_{S; i != j not in S} [F(S+i+j) - F(S+i) - F(S+j) + F(S)]``.

    ``<= 0`` iff ``F`` is submodular (diminishing returns; the local pairwise condition is
    equivalent to the global one). Returns 0 when ``m < 2``.
    """
    vals = set_function_table(F, m)
    mm = _check_m(m)
    worst = -math.inf
    for mask, v in vals.items():
        free = [j for j in range(mm) if not mask >> j & 1]
        for a, b in itertools.combinations(free, 2):
            ia, ib = 1 << a, 1 << b
            worst = max(worst, vals[mask | ia | ib] - vals[mask | ia] - vals[mask | ib] + v)
    return worst if worst != -math.inf else 0.0


def is_monotone(F: Callable[[tuple[int, ...]], float], m: int, *, tol: float = 1e-12) -> bool:
    """Exhaustive check that ``F`` is monotone non-decreasing on subsets of ``{0..m-1}``."""
    return monotonicity_violation(F, m) <= tol


def is_submodular(F: Callable[[tuple[int, ...]], float], m: int, *, tol: float = 1e-12) -> bool:
    """Exhaustive check that ``F`` is submodular on subsets of ``{0..m-1}``."""
    return submodularity_violation(F, m) <= tol


def greedy_maximize(F: Callable[[tuple[int, ...]], float], m: int,
                    k: int) -> tuple[list[int], float]:
    """Greedy maximisation of ``F`` under ``|S| <= k`` (ties to the lowest index).

    Returns ``(picks in order, F(picks))``. For monotone submodular ``F`` with
    ``F(empty) = 0`` the value is at least ``(1 - 1/e)`` of the optimum.
    """
    mm = _check_m(m)
    kk = _check_m(k)
    if kk > mm:
        raise ValueError(f"k={kk} exceeds the number of models m={mm}")
    S: list[int] = []
    for _ in range(kk):
        best, best_val = -1, -math.inf
        for j in range(mm):
            if j in S:
                continue
            val = float(F(tuple(sorted(S + [j]))))
            if val > best_val + 1e-15:
                best, best_val = j, val
        S.append(best)
    return S, float(F(tuple(sorted(S))))


def exhaustive_maximize(F: Callable[[tuple[int, ...]], float], m: int,
                        k: int) -> tuple[tuple[int, ...], float]:
    """Best subset of size exactly ``k`` by enumeration (ties: lexicographically first)."""
    mm = _check_m(m)
    kk = _check_m(k)
    if kk > mm:
        raise ValueError(f"k={kk} exceeds the number of models m={mm}")
    best: tuple[int, ...] = ()
    best_val = -math.inf
    for S in itertools.combinations(range(mm), kk):
        val = float(F(S))
        if val > best_val + 1e-15:
            best, best_val = S, val
    return best, best_val


# ---------------------------------------------------------------------------
# Theorem E.1: log-odds weights
# ---------------------------------------------------------------------------


def log_odds_weights(p: Any) -> np.ndarray:
    """Log-odds weights ``w_j = log(p_j / (1 - p_j))`` of accuracies ``p_j`` in ``(0, 1)``."""
    acc = _check_rates(p, "p", open_interval=True)
    return np.log(acc) - np.log1p(-acc)


def weighted_vote_decisions(weights: Any) -> np.ndarray:
    """Decision ``sign(sum_j w_j x_j)`` for every answer pattern ``x`` in ``{-1, +1}^k``.

    Returns an ``int8`` array of shape ``(2,) * k`` (index 0 = answer ``-1``); a vote with
    ``|V| <= TIE_RTOL * sum|w|`` is a tie and goes to ``+1`` (as the MAP tie rule).
    """
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)):
        raise ValueError(f"weights must be a finite, non-empty 1-d array; got {weights!r}")
    k = w.size
    x = _pattern_signs(k)  # rows in C order of the (2,)*k table, index 1 -> +1
    V = x @ w
    tie = np.abs(V) <= TIE_RTOL * np.abs(w).sum()
    return np.where((V > 0) | tie, 1, -1).astype(np.int8).reshape((2,) * k)


@dataclass(frozen=True)
class WeightedVoteComparison:
    """Weighted vote vs MAP on a joint table (see :func:`compare_weighted_vote_with_map`).

    Attributes
    ----------
    n_patterns : int
        ``2^k``.
    n_disagree : int
        Patterns where the two decisions differ.
    disagreement_mass : float
        ``P(X_S in disagreeing patterns)``.
    map_error, weighted_vote_error : float
        Exact error probabilities of the two rules.
    weights : numpy.ndarray
        The weights used.
    """

    n_patterns: int
    n_disagree: int
    disagreement_mass: float
    map_error: float
    weighted_vote_error: float
    weights: np.ndarray

    @property
    def excess_error(self) -> float:
        """``weighted_vote_error - map_error`` (``>= 0``)."""
        return self.weighted_vote_error - self.map_error


def compare_weighted_vote_with_map(joint: Any, S: Iterable[int] | None = None,
                                   weights: Any = None) -> WeightedVoteComparison:
    """Compare the log-odds weighted vote with the exact MAP rule on ``(Y, X_S)``.

    Parameters
    ----------
    joint : array-like of shape (2,) * (k + 1)
        Joint law of ``(Y, X_1..X_k)``.
    S : iterable of int, optional
        Models used (default: all).
    weights : array-like of shape (|S|,), optional
        Default: :func:`log_odds_weights` of the true accuracies ``P(X_j = Y)`` in ``joint``.

    Returns
    -------
    WeightedVoteComparison
    """
    p = subset_joint(joint, S)
    k = p.ndim - 1
    if k == 0:
        raise ValueError("S must contain at least one model")
    if weights is None:
        acc = np.empty(k)
        for j in range(k):
            pj = subset_joint(p, [j])
            acc[j] = pj[0, 0] + pj[1, 1]
        w = log_odds_weights(acc)
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != (k,):
            raise ValueError(f"weights must have shape ({k},); got {w.shape}")
    d_map = map_decisions(p)
    d_w = weighted_vote_decisions(w)
    differ = d_map != d_w
    px = p.sum(axis=0)
    err_w = float(np.where(d_w == 1, p[0], p[1]).sum())
    return WeightedVoteComparison(
        n_patterns=int(differ.size),
        n_disagree=int(differ.sum()),
        disagreement_mass=float(px[differ].sum()),
        map_error=map_error(p),
        weighted_vote_error=err_w,
        weights=w,
    )


def weighted_vote_matches_map(eps: Any) -> bool:
    """Theorem E.1 check: under independence (balanced ``Y``) the log-odds weighted vote
    takes the MAP decision on every one of the ``2^k`` answer patterns.

    Parameters
    ----------
    eps : array-like of shape (k,)
        Error rates in ``(0, 1)``.
    """
    e = _check_rates(eps, "eps", open_interval=True)
    cmp = compare_weighted_vote_with_map(independent_joint_law(e), weights=log_odds_weights(1 - e))
    return cmp.n_disagree == 0
