"""Random-effects meta-analysis: pool one effect measured on several independent sources.

The book pools each claim's effect (a paired difference of test errors, with its standard
error) over the real data sources (MMLU-Pro, MMLU-Redux, LLMBar). The sources differ in
task, models and size, so their true effects differ too: a **random-effects** model,
``estimate_i = mu + u_i + e_i`` with ``u_i ~ N(0, tau^2)`` (between-source spread) and
``e_i ~ N(0, se_i^2)`` (within-source noise), estimates the mean effect ``mu`` over sources
and how much the sources disagree.

The between-source variance ``tau^2``: **DerSimonian-Laird** (method of moments,
DerSimonian & Laird 1986), closed-form and deterministic; with three sources REML or
Paule-Mandel would estimate it from the same three residuals no better.

The interval: **Hartung-Knapp-Sidik-Jonkman** (HKSJ). The usual DerSimonian-Laird interval
``mu +- z * se(mu)`` treats ``tau^2`` as known; with few sources it is far too narrow (its
coverage drops well below 95 % when the sources disagree). HKSJ rescales the variance of
``mu`` by how far the sources scatter around it, ``q_HK = sum w*_i (x_i - mu)^2 / (k - 1)``,
and uses Student's t with ``k - 1`` degrees of freedom::

    mu +- t_{k-1} * sqrt(q_HK / sum w*_i)

(Hartung & Knapp 2001; Sidik & Jonkman 2002; IntHout, Ioannidis & Borm 2014). The normal
interval is kept beside it (``z_low``, ``z_high``) for comparison.

The **prediction interval** (Higgins, Thompson & Spiegelhalter 2009) says where the effect
of a *new* source would fall: ``mu +- t_{k-2} * sqrt(tau^2 + se(mu)^2)``; it needs at least
three sources. With fewer than :data:`FRAGILE_BELOW` sources every estimate of ``tau^2``
is unreliable, and the result says so (``fragile``).

Formulas: weights ``w_i = 1 / se_i^2``, fixed-effect mean ``m = sum w_i x_i / sum w_i``,
``Q = sum w_i (x_i - m)^2`` on ``k - 1`` degrees of freedom,
``tau^2 = max(0, (Q - (k - 1)) / (sum w_i - sum w_i^2 / sum w_i))``, random-effects weights
``w*_i = 1 / (se_i^2 + tau^2)``, ``mu = sum w*_i x_i / sum w*_i``,
``se(mu) = 1 / sqrt(sum w*_i)``, ``I^2 = max(0, (Q - (k - 1)) / Q)``.

References
----------
R. DerSimonian and N. Laird (1986), "Meta-analysis in clinical trials", Controlled Clinical
Trials 7, 177-188. J. Hartung and G. Knapp (2001), "On tests of the overall treatment effect
in meta-analysis with normally distributed responses", Statistics in Medicine 20,
1771-1782. K. Sidik and J. N. Jonkman (2002), "A simple confidence interval for
meta-analysis", Statistics in Medicine 21, 3153-3159. J. P. T. Higgins, S. G. Thompson and
D. J. Spiegelhalter (2009), "A re-evaluation of random-effects meta-analysis", JRSS A 172,
137-159. R. N. Kacker (2004), "Combining information from interlaboratory evaluations using
a random effects model", Metrologia 41, 132-136 (the worked example of the tests).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import special as _sp

from ensel._errors import UsageError
from ensel.stats import verdict

__all__ = ["FRAGILE_BELOW", "RandomEffects", "random_effects", "pool_claims", "pool_paired"]

#: Fewer sources than this make a pooled estimate fragile: ``tau^2`` (and with it every
#: interval) rests on fewer than four residuals.
FRAGILE_BELOW = 5


@dataclass(frozen=True)
class RandomEffects:
    """A random-effects pooled estimate (DerSimonian-Laird ``tau^2``, HKSJ interval).

    Attributes
    ----------
    estimate : float
        Pooled mean effect ``mu``.
    se : float
        Its DerSimonian-Laird standard error ``1 / sqrt(sum w*_i)``.
    low, high : float
        Bounds of the ``confidence`` interval: Hartung-Knapp-Sidik-Jonkman (Student's t with
        ``k - 1`` df) with two or more sources; with one source, ``estimate +- z * se``.
    hk_se : float
        The HKSJ standard error ``sqrt(q_HK) * se`` (equals ``se`` with one source).
    z_low, z_high : float
        The normal (DerSimonian-Laird) interval ``mu +- z * se``, for comparison.
    pi_low, pi_high : float
        Prediction interval for the effect of a new source (NaN with fewer than 3 sources).
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
        ``"DerSimonian-Laird, HKSJ"``.
    """

    estimate: float
    se: float
    low: float
    high: float
    hk_se: float
    z_low: float
    z_high: float
    pi_low: float
    pi_high: float
    tau2: float
    q: float
    q_p_value: float
    i2: float
    k: int
    weights: tuple[float, ...]
    confidence: float
    method: str = "DerSimonian-Laird, HKSJ"

    @property
    def fragile(self) -> bool:
        """Fewer than :data:`FRAGILE_BELOW` sources: ``tau^2`` and the intervals are
        unreliable."""
        return self.k < FRAGILE_BELOW

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary."""
        return asdict(self) | {"fragile": self.fragile}


def random_effects(estimates: Sequence[float] | np.ndarray, se: Sequence[float] | np.ndarray,
                   *, confidence: float = 0.95) -> RandomEffects:
    """Pool independent estimates with a random-effects model (DL ``tau^2``, HKSJ interval).

    Parameters
    ----------
    estimates : array-like of float
        One effect per source.
    se : array-like of float
        Their standard errors (positive).
    confidence : float, default=0.95
        Level of the pooled and prediction intervals.

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

    Three sources are too few for a sure pooled interval:

    >>> r.fragile, r.k
    (True, 3)
    """
    x = np.asarray(estimates, dtype=float).ravel()
    s = np.asarray(se, dtype=float).ravel()
    if x.size == 0 or x.shape != s.shape:
        raise UsageError(f"estimates and se of random_effects must be non-empty and equally "
                         f"long; got {x.size} and {s.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(s))):
        raise UsageError("estimates and se of random_effects must be finite numbers")
    if np.any(s <= 0):
        raise UsageError(f"se of random_effects must be positive; got {s.tolist()}")
    if isinstance(confidence, bool) or not 0 < float(confidence) < 1:
        raise UsageError(f"confidence of random_effects must be in (0, 1); got {confidence!r}")
    c = float(confidence)
    k = int(x.size)
    w = 1.0 / s**2
    m_fixed = float(np.sum(w * x) / np.sum(w))
    df = k - 1
    # one source has no heterogeneity: Q is 0 (rounding noise in m_fixed would make I^2 = 1)
    q = float(np.sum(w * (x - m_fixed) ** 2)) if df > 0 else 0.0
    cc = float(np.sum(w) - np.sum(w**2) / np.sum(w))
    tau2 = max(0.0, (q - df) / cc) if df > 0 and cc > 0 else 0.0
    w_star = 1.0 / (s**2 + tau2)
    mu = float(np.sum(w_star * x) / np.sum(w_star))
    se_mu = float(1.0 / math.sqrt(float(np.sum(w_star))))
    z = float(_sp.ndtri(0.5 + c / 2.0))
    z_low, z_high = mu - z * se_mu, mu + z * se_mu
    if df > 0:
        q_hk = float(np.sum(w_star * (x - mu) ** 2)) / df
        hk_se = math.sqrt(q_hk) * se_mu
        t = float(_sp.stdtrit(df, 0.5 + c / 2.0))
        low, high = mu - t * hk_se, mu + t * hk_se
    else:
        hk_se, low, high = se_mu, z_low, z_high
    if k >= 3:
        half = float(_sp.stdtrit(k - 2, 0.5 + c / 2.0)) * math.sqrt(tau2 + se_mu**2)
        pi_low, pi_high = mu - half, mu + half
    else:
        pi_low = pi_high = float("nan")
    q_p = float(_sp.chdtrc(df, q)) if df > 0 else 1.0
    i2 = max(0.0, (q - df) / q) if q > 0 else 0.0
    return RandomEffects(mu, se_mu, low, high, hk_se, z_low, z_high, pi_low, pi_high,
                         float(tau2), q, q_p, float(i2), k,
                         tuple(float(v) for v in w_star / np.sum(w_star)), c)


def pool_claims(verdicts_df: pd.DataFrame, sources: Sequence[str]) -> pd.DataFrame:
    """Each directional claim checked on the real ``sources``: every source's effect, interval
    and verdict, and the random-effects pooled estimate (:func:`random_effects`:
    DerSimonian-Laird ``tau^2``, Hartung-Knapp-Sidik-Jonkman interval) with its verdict,
    prediction interval and heterogeneity.

    Returns one row per (claim, source) plus one ``dataset="pooled"`` row per claim, with
    columns ``id, short, dataset, effect, effect_low, effect_high, se, verdict`` and, on the
    pooled rows, ``pi_low, pi_high`` (prediction interval for a new source), ``dl_low,
    dl_high`` (the normal DerSimonian-Laird interval, for comparison), ``tau2, i2,
    q_p_value, n_sources, fragile`` (fewer than :data:`FRAGILE_BELOW` sources).
    A source whose effect has no spread at all (standard error 0, e.g. both selectors always
    pick the same model) carries no weight information and is left out of the pooling
    (shown, not pooled; ``pooled`` says which).
    """
    v = verdicts_df[verdicts_df["dataset"].isin(list(sources)) & verdicts_df["effect"].notna()]
    rows = []
    for cid in pd.unique(v["id"]):
        part = v[v["id"] == cid].set_index("dataset").reindex(
            [s for s in sources if s in set(v.loc[v["id"] == cid, "dataset"])])
        usable = part[part["effect_se"] > 0]
        for d, r in part.iterrows():
            rows.append({"id": cid, "short": r["short"], "dataset": d, "effect": r["effect"],
                         "effect_low": r["effect_low"], "effect_high": r["effect_high"],
                         "se": r["effect_se"], "verdict": r["verdict"],
                         "pooled": d in usable.index})
        if len(usable) >= 2:
            m = random_effects(usable["effect"].to_numpy(), usable["effect_se"].to_numpy())
            rows.append({"id": cid, "short": part["short"].iloc[0], "dataset": "pooled",
                         "effect": m.estimate, "effect_low": m.low, "effect_high": m.high,
                         "se": m.hk_se, "verdict": verdict(m.low, m.high), "pooled": True,
                         "pi_low": m.pi_low, "pi_high": m.pi_high, "dl_low": m.z_low,
                         "dl_high": m.z_high, "tau2": m.tau2, "i2": m.i2,
                         "q_p_value": m.q_p_value, "n_sources": m.k, "fragile": m.fragile})
    cols = ["id", "short", "dataset", "effect", "effect_low", "effect_high", "se", "verdict",
            "pooled", "pi_low", "pi_high", "dl_low", "dl_high", "tau2", "i2", "q_p_value",
            "n_sources", "fragile"]
    return pd.DataFrame(rows).reindex(columns=cols)


def pool_paired(paired: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame | None:
    """Greedy MI − Top-k (MAP) per budget ``k`` on every real source side by side, and pooled
    (DerSimonian-Laird, HKSJ interval, prediction interval) over the budgets every source
    has with a non-zero spread; ``None`` when fewer than two sources saved their paired
    differences."""
    given: dict[str, pd.DataFrame] = {d: p for d, p in paired.items()
                                      if p is not None and len(p)}
    if len(given) < 2:
        return None
    common = sorted(set.intersection(*(set(p["k"].astype(int)) for p in given.values())))
    rows = []
    for k in common:
        part = {d: p[p["k"] == k].iloc[0] for d, p in given.items()}
        row: dict[str, Any] = {"k": k}
        for d, r in part.items():
            row[d] = f"{r['mean_diff']:+.4f} [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]"
        se = np.array([float(r["se"]) for r in part.values()])
        if np.all(se > 0):
            m = random_effects([float(r["mean_diff"]) for r in part.values()], se)
            row.update({"pooled": m.estimate, "pooled_low": m.low, "pooled_high": m.high,
                        "verdict": verdict(m.low, m.high), "pi_low": m.pi_low,
                        "pi_high": m.pi_high, "tau2": m.tau2, "i2": m.i2})
        else:
            row.update({"pooled": np.nan, "verdict": "not pooled (a source has no spread)"})
        rows.append(row)
    return pd.DataFrame(rows).set_index("k")
