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

The interval: **Hartung-Knapp-Sidik-Jonkman** (HKSJ) with its scale factor floored at 1.
The usual DerSimonian-Laird interval ``mu +- z * se(mu)`` treats ``tau^2`` as known; with
few sources it is far too narrow (its coverage drops well below 95 % when the sources
disagree). HKSJ rescales the variance of ``mu`` by how far the sources scatter around it,
``q_HK = sum w*_i (x_i - mu)^2 / (k - 1)``, and uses Student's t with ``k - 1`` degrees of
freedom (Hartung & Knapp 2001; Sidik & Jonkman 2002; IntHout, Ioannidis & Borm 2014). Left
alone, ``q_HK`` can fall far below 1 when a few sources happen to agree more closely than
their own noise says they should (with three sources it rests on two residuals): the
interval then shrinks below the one of any source, below the fixed-effect interval, and
with few sources and unequal standard errors its coverage falls under the nominal level
(Röver, Knapp & Friede 2015; Jackson et al. 2017). The book uses the **modified** HKSJ
interval (Knapp & Hartung 2003; Röver, Knapp & Friede 2015)::

    mu +- t_{k-1} * sqrt(max(1, q_HK)) * se(mu)

so the HKSJ rescaling can widen the DerSimonian-Laird interval but never narrow it. Since
``t_{k-1} >= z`` and ``se(mu) >= 1 / sqrt(sum w_i)`` (``tau^2 >= 0``), the interval is never
narrower than the fixed-effect (inverse-variance) interval of the same sources.
``q_HK`` itself is kept (``q_hk``), and so is the normal interval (``z_low``, ``z_high``)
and the fixed-effect one (``fe_low``, ``fe_high``), for comparison.
:func:`simulate_coverage` measures by simulation how often each of these intervals covers
the true mean effect with a few sources of unequal precision.

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
137-159. G. Knapp and J. Hartung (2003), "Improved tests for a random effects
meta-regression with a single covariate", Statistics in Medicine 22, 2693-2710.
C. Röver, G. Knapp and T. Friede (2015), "Hartung-Knapp-Sidik-Jonkman approach and its
modification for random-effects meta-analysis with few studies", BMC Medical Research
Methodology 15, 99. D. Jackson, M. Law, G. Rücker and G. Schwarzer (2017), "The
Hartung-Knapp modification for random-effects meta-analysis: a useful refinement but are
there any residual concerns?", Statistics in Medicine 36, 3923-3934. J. IntHout,
J. P. A. Ioannidis and G. F. Borm (2014), "The Hartung-Knapp-Sidik-Jonkman method for random
effects meta-analysis is straightforward and considerably outperforms the standard
DerSimonian-Laird method", BMC Medical Research Methodology 14, 25. R. N. Kacker (2004),
"Combining information from interlaboratory evaluations using a random effects model",
Metrologia 41, 132-136 (the worked example of the tests).
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
from ensel._validation import check_int, check_real
from ensel.stats import verdict

__all__ = ["COVERAGE_SE_RANGE", "FRAGILE_BELOW", "METHOD", "RandomEffects", "random_effects",
           "pool_claims", "pool_paired", "simulate_coverage", "coverage_table"]

#: How the book pools: DerSimonian-Laird ``tau^2``, modified HKSJ interval.
METHOD = "DerSimonian-Laird, HKSJ (q floored at 1)"

#: Default smallest and largest per-source standard error of :func:`simulate_coverage` (an
#: input, used where no real source has results): the standard errors of the three real
#: sources' effects on the book's first claim (G1) in a full build, 0.0012 (MMLU-Pro) to
#: 0.0094 (LLMBar). The report uses the values of its own build instead.
COVERAGE_SE_RANGE = (0.0012, 0.0094)

#: Fewer sources than this make a pooled estimate fragile: ``tau^2`` (and with it every
#: interval) rests on fewer than four residuals.
FRAGILE_BELOW = 5


@dataclass(frozen=True)
class RandomEffects:
    """A random-effects pooled estimate (DerSimonian-Laird ``tau^2``, modified HKSJ
    interval: the HKSJ scale factor floored at 1).

    Attributes
    ----------
    estimate : float
        Pooled mean effect ``mu``.
    se : float
        Its DerSimonian-Laird standard error ``1 / sqrt(sum w*_i)``.
    low, high : float
        Bounds of the ``confidence`` interval: modified Hartung-Knapp-Sidik-Jonkman,
        ``estimate +- t_{k-1} * hk_se``, with two or more sources; with one source,
        ``estimate +- z * se``. Never narrower than ``[fe_low, fe_high]``.
    hk_se : float
        The HKSJ standard error ``sqrt(max(1, q_hk)) * se`` (equals ``se`` with one source).
    q_hk : float
        The HKSJ scale factor ``sum w*_i (x_i - mu)^2 / (k - 1)`` before the floor (NaN with
        one source); below 1 the sources agree more closely than their noise says.
    z_low, z_high : float
        The normal (DerSimonian-Laird) interval ``mu +- z * se``, for comparison.
    fe_estimate, fe_low, fe_high : float
        The fixed-effect (inverse-variance) mean and its normal interval
        ``m +- z / sqrt(sum w_i)``, for comparison.
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
        :data:`METHOD`, ``"DerSimonian-Laird, HKSJ (q floored at 1)"``.
    """

    estimate: float
    se: float
    low: float
    high: float
    hk_se: float
    q_hk: float
    z_low: float
    z_high: float
    fe_estimate: float
    fe_low: float
    fe_high: float
    pi_low: float
    pi_high: float
    tau2: float
    q: float
    q_p_value: float
    i2: float
    k: int
    weights: tuple[float, ...]
    confidence: float
    method: str = METHOD

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
    """Pool independent estimates with a random-effects model (DerSimonian-Laird ``tau^2``,
    Hartung-Knapp-Sidik-Jonkman interval with its scale factor floored at 1).

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

    Sources that agree far more closely than their noise says (``q_hk`` < 1): the floor
    keeps the interval at ``t_2 * se`` instead of shrinking it by ``sqrt(q_hk)`` = 0.2, so
    it stays wider than the fixed-effect interval.

    >>> r = random_effects([0.18, 0.22, 0.2], [0.1, 0.1, 0.1])
    >>> round(r.q_hk, 6), round(r.hk_se / r.se, 6)
    (0.04, 1.0)
    >>> r.low < r.fe_low and r.fe_high < r.high
    True
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
    f = _fit(x[None, :], s[None, :])
    mu, se_mu, tau2, q = (float(f[n][0]) for n in ("mu", "se", "tau2", "q"))
    q_hk = float(f["q_hk"][0])
    z = float(_sp.ndtri(0.5 + c / 2.0))
    z_low, z_high = mu - z * se_mu, mu + z * se_mu
    fe, fe_se = float(f["fe"][0]), float(f["fe_se"][0])
    df = k - 1
    if df > 0:
        hk_se = math.sqrt(max(1.0, q_hk)) * se_mu
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
    w_star = f["w_star"][0]
    return RandomEffects(mu, se_mu, low, high, hk_se, q_hk, z_low, z_high, fe, fe - z * fe_se,
                         fe + z * fe_se, pi_low, pi_high, tau2, q, q_p, float(i2), k,
                         tuple(float(v) for v in w_star / np.sum(w_star)), c)


def _fit(x: np.ndarray, s: np.ndarray) -> dict[str, np.ndarray]:
    """The DerSimonian-Laird fit of every row of ``x`` (estimates) and ``s`` (their standard
    errors), both ``(n, k)``: one meta-analysis of ``k`` sources per row, vectorised so that
    :func:`simulate_coverage` runs thousands at once with the formulas of
    :func:`random_effects`. Returns per row the fixed-effect mean ``fe`` and its standard
    error ``fe_se``, ``q``, ``tau2``, ``mu``, ``se``, the unfloored HKSJ factor ``q_hk`` (NaN
    when ``k = 1``) and the random-effects weights ``w_star`` (``(n, k)``)."""
    k = x.shape[1]
    df = k - 1
    w = 1.0 / s**2
    sw = np.sum(w, axis=1)
    fe = np.sum(w * x, axis=1) / sw
    # one source has no heterogeneity: Q is 0 (rounding noise in fe would make I^2 = 1)
    q = np.sum(w * (x - fe[:, None]) ** 2, axis=1) if df > 0 else np.zeros(x.shape[0])
    cc = sw - np.sum(w**2, axis=1) / sw
    if df > 0:
        tau2 = np.where(cc > 0, np.maximum(0.0, (q - df) / np.where(cc > 0, cc, 1.0)), 0.0)
    else:
        tau2 = np.zeros_like(q)
    w_star = 1.0 / (s**2 + tau2[:, None])
    sws = np.sum(w_star, axis=1)
    mu = np.sum(w_star * x, axis=1) / sws
    q_hk = (np.sum(w_star * (x - mu[:, None]) ** 2, axis=1) / df if df > 0
            else np.full_like(q, np.nan))
    return {"fe": fe, "fe_se": 1.0 / np.sqrt(sw), "q": q, "tau2": tau2, "mu": mu,
            "se": 1.0 / np.sqrt(sws), "q_hk": q_hk, "w_star": w_star}


def simulate_coverage(n_sources: int, *,
                      se_range: tuple[float, float] = COVERAGE_SE_RANGE,
                      tau: float = 0.0, n_rep: int = 2000, confidence: float = 0.95,
                      seed: int = 0) -> dict[str, float]:
    """How often the pooled intervals cover the true mean effect: a seeded simulation of
    ``n_rep`` meta-analyses of ``n_sources`` sources.

    Source ``i`` has standard error ``se_i``, spaced geometrically from ``se_range[0]`` to
    ``se_range[1]`` (sources of unequal precision, as the book's real sources are); its
    estimate is drawn as ``x_i = mu + u_i + e_i`` with ``u_i ~ N(0, tau^2)`` (``tau = 0``:
    one true effect for all; ``tau > 0``: heterogeneous true effects) and
    ``e_i ~ N(0, se_i^2)``, and pooled with the formulas of :func:`random_effects`. The
    coverage of each interval is the share of replicates whose interval holds ``mu``; its
    Monte Carlo standard error is about ``sqrt(0.05 * 0.95 / n_rep)``.

    Parameters
    ----------
    n_sources : int
        Sources per meta-analysis (at least 2).
    se_range : (float, float), default=:data:`COVERAGE_SE_RANGE`
        Smallest and largest standard error of a source (positive, smallest first); the
        default spans the real sources' effects on the book's first claim.
    tau : float, default=0.0
        Between-source standard deviation of the true effects (at least 0).
    n_rep : int, default=2000
        Simulated meta-analyses.
    confidence : float, default=0.95
    seed : int, default=0

    Returns
    -------
    dict
        ``hksj_floored`` (the book's interval, :data:`METHOD`), ``hksj`` (unfloored HKSJ),
        ``dl_normal`` (``mu +- z se``) and ``fixed`` (the fixed-effect interval): each a
        coverage in [0, 1]; ``share_q_below_1`` (replicates where the floor acts),
        ``width_ratio`` (median width of the floored over the unfloored interval), and the
        inputs ``n_sources, tau, n_rep, se_low, se_high``.

    Examples
    --------
    >>> c = simulate_coverage(3, tau=0.004, n_rep=2000, seed=1)
    >>> c["hksj_floored"] >= c["hksj"]
    True
    >>> c == simulate_coverage(3, tau=0.004, n_rep=2000, seed=1)  # seeded: reproducible
    True
    """
    func = "simulate_coverage"
    k = check_int(n_sources, "n_sources", low=2, func=func)
    try:
        lo_in, hi_in = se_range
    except (TypeError, ValueError):
        raise UsageError(f"se_range of simulate_coverage must be a pair (smallest, largest "
                         f"standard error); got {se_range!r}") from None
    lo = check_real(lo_in, "se_range[0]", low=0, low_open=True, func=func)
    hi = check_real(hi_in, "se_range[1]", low=lo, what="at least se_range[0]", func=func)
    tau = check_real(tau, "tau", low=0, func=func)
    n_rep = check_int(n_rep, "n_rep", low=1, func=func)
    c = check_real(confidence, "confidence", low=0, high=1, low_open=True, high_open=True,
                   func=func)
    seed = check_int(seed, "seed", low=0, func=func)
    se = np.geomspace(lo, hi, k)
    rng = np.random.default_rng(seed)
    x = (tau * rng.standard_normal((n_rep, k))
         + se * rng.standard_normal((n_rep, k)))  # true mean effect 0
    s = np.broadcast_to(se, x.shape)
    f = _fit(x, s)
    z = float(_sp.ndtri(0.5 + c / 2.0))
    t = float(_sp.stdtrit(k - 1, 0.5 + c / 2.0))

    def covers(centre: np.ndarray, half: np.ndarray) -> float:
        return float(np.mean(np.abs(centre) <= half))

    half_raw = t * np.sqrt(f["q_hk"]) * f["se"]
    half_floored = t * np.sqrt(np.maximum(1.0, f["q_hk"])) * f["se"]
    return {"n_sources": k, "tau": tau, "n_rep": n_rep, "se_low": lo, "se_high": hi,
            "hksj_floored": covers(f["mu"], half_floored), "hksj": covers(f["mu"], half_raw),
            "dl_normal": covers(f["mu"], z * f["se"]),
            "fixed": covers(f["fe"], z * f["fe_se"]),
            "share_q_below_1": float(np.mean(f["q_hk"] < 1)),
            "width_ratio": float(np.median(half_floored / half_raw))}


def coverage_table(se_range: tuple[float, float] = COVERAGE_SE_RANGE, *,
                   n_sources: Sequence[int] = (3, 5), n_rep: int = 2000,
                   confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """:func:`simulate_coverage` for each number of sources in ``n_sources`` and four
    spreads of the true effects: one true effect (``tau = 0``), ``tau`` = a typical
    source's standard error (the geometric mean of ``se_range``), ``tau`` = the noisiest
    source's, and three times that.

    Returns one row per (``sources``, ``true effects``) with the columns of
    :func:`simulate_coverage`; every row uses the same ``seed``.

    Examples
    --------
    >>> t = coverage_table(n_sources=(3,), n_rep=500, seed=1)
    >>> list(t.index.get_level_values("true effects"))[:2]
    ['one true effect', "τ = a typical source's se"]
    >>> bool((t["hksj_floored"] >= t["hksj"]).all())
    True
    """
    try:
        lo, hi = (float(v) for v in se_range)
    except (TypeError, ValueError):
        raise UsageError(f"se_range of coverage_table must be a pair (smallest, largest "
                         f"standard error); got {se_range!r}") from None
    typical = math.sqrt(lo * hi) if lo > 0 and hi > 0 else lo  # simulate_coverage names it
    spreads = {"one true effect": 0.0, "τ = a typical source's se": typical,
               "τ = the noisiest source's se": hi, "τ = 3 × the noisiest source's se": 3 * hi}
    rows = [{"sources": n, "true effects": name}
            | simulate_coverage(n, se_range=(lo, hi), tau=tau, n_rep=n_rep,
                                confidence=confidence, seed=seed)
            for n in n_sources for name, tau in spreads.items()]
    return pd.DataFrame(rows).set_index(["sources", "true effects"])


def pool_claims(verdicts_df: pd.DataFrame, sources: Sequence[str]) -> pd.DataFrame:
    """Each directional claim checked on the real ``sources``: every source's effect, interval
    and verdict, and the random-effects pooled estimate (:func:`random_effects`:
    DerSimonian-Laird ``tau^2``, Hartung-Knapp-Sidik-Jonkman interval with its scale factor
    floored at 1) with its verdict, prediction interval and heterogeneity.

    Returns one row per (claim, source) plus one ``dataset="pooled"`` row per claim, with
    columns ``id, short, dataset, effect, effect_low, effect_high, se, verdict`` and, on the
    pooled rows, ``pi_low, pi_high`` (prediction interval for a new source), ``dl_low,
    dl_high`` (the normal DerSimonian-Laird interval) and ``fe_low, fe_high`` (the
    fixed-effect interval), for comparison, ``q_hk`` (the HKSJ scale factor before the
    floor), ``tau2, i2, q_p_value, n_sources, fragile`` (fewer than :data:`FRAGILE_BELOW`
    sources).
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
                         "dl_high": m.z_high, "fe_low": m.fe_low, "fe_high": m.fe_high,
                         "q_hk": m.q_hk, "tau2": m.tau2, "i2": m.i2,
                         "q_p_value": m.q_p_value, "n_sources": m.k, "fragile": m.fragile})
    cols = ["id", "short", "dataset", "effect", "effect_low", "effect_high", "se", "verdict",
            "pooled", "pi_low", "pi_high", "dl_low", "dl_high", "fe_low", "fe_high", "q_hk",
            "tau2", "i2", "q_p_value", "n_sources", "fragile"]
    return pd.DataFrame(rows).reindex(columns=cols)


def pool_paired(paired: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame | None:
    """Greedy MI − Top-k (MAP) per budget ``k`` on every real source side by side, and pooled
    (:func:`random_effects`: DerSimonian-Laird, HKSJ interval with its scale factor floored
    at 1, prediction interval; ``fe_low, fe_high``: the fixed-effect interval and ``q_hk``:
    the scale factor before the floor, for comparison) over the budgets every source has
    with a non-zero spread; ``None`` when fewer than two sources saved their paired
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
                        "pi_high": m.pi_high, "fe_low": m.fe_low, "fe_high": m.fe_high,
                        "q_hk": m.q_hk, "tau2": m.tau2, "i2": m.i2})
        else:
            row.update({"pooled": np.nan, "verdict": "not pooled (a source has no spread)"})
        rows.append(row)
    return pd.DataFrame(rows).set_index("k")
