"""Paired differences over repeated random splits, with honest intervals and verdicts.

The paper's protocol evaluates each (selector, aggregator, k) arm on repeated random 80/20
splits of the same items. Two arms evaluated on the same split give a *paired* difference
``d = error(a) - error(b)``; its mean over splits estimates how much better ``a`` is. The
splits overlap (any two training parts share about 60 % of the items), so the differences are
positively correlated and the naive interval ``t * s / sqrt(J)`` is too narrow: with more
splits it shrinks to zero although the data (one finite set of items) does not grow.

The correction (Nadeau & Bengio, 2003)
--------------------------------------
With ``J`` random splits, ``n_train`` training and ``n_test`` test items, the *corrected
resampled t* replaces the variance ``s^2 / J`` of the mean by::

    (1 / J + n_test / n_train) * s^2

(``s^2`` = sample variance of the ``J`` differences) and uses Student's t with ``J - 1``
degrees of freedom. ``n_test / n_train`` (0.25 for 80/20 splits) is Nadeau & Bengio's
heuristic for the correlation between two evaluations on overlapping splits; it keeps the
interval from vanishing as ``J`` grows: the half-width tends to ``z * s * sqrt(n_test /
n_train)``, not to zero.

Several conditions
------------------
The paper's conditions (temperature x run) are answers to the **same items**; every
condition is split independently. :func:`paired_interval` therefore pools all
``C x J`` evaluations as ``C * J`` resamples of one item set: mean over all of them,
variance ``(1 / (C J) + n_test / n_train) * s^2`` with ``s^2`` the sample variance over
all evaluations, ``C J - 1`` degrees of freedom. This is exact in the correction's own
model when the conditions' answers coincide (each condition's splits are then just more
random splits of the same data) and conservative when they differ: answers drawn afresh
per condition correlate less across conditions than ``n_test / n_train``, and any
difference between the conditions' means inflates ``s^2``.

Half-sample replicates: when the correction is too optimistic
--------------------------------------------------------------
The correction assumes that two evaluations on overlapping splits correlate by
``n_test / n_train``. When the arms' decisions are fixed by the data set rather than by the
split (which model is best, which cell of a MAP table flips), the true correlation is
higher and the corrected interval is too narrow: on simulated Gaussian-copula pools (MAP
over three models minus the best single model, 400 items, 10 splits;
``tests/test_stats.py``) the true variance of the mean was twice the corrected estimate,
and the corrected interval covered the true expected difference in 84 % of data sets (the
naive one in 59 %).

The remedy measures the data-set-to-data-set variance instead of assuming it (a variant of
Nadeau & Bengio's *conservative Z*): the items are split ``M`` times into two disjoint
halves, and the whole procedure (random 80/20 splits, selection, aggregation, scoring) runs
on each half. The two halves of one halving are independent data sets, so with ``a_m`` and
``b_m`` the mean differences on them, ``(a_m - b_m)^2 / 2`` estimates the variance of the
half-size estimate without assumptions; a variance proportional to ``1 / n_items`` halves
it for the full size (checked in the same simulation: 1.9 from 200 to 400 items)::

    v_halves = mean_m (a_m - b_m)^2 / 4          (Student's t with M - 1 df)

:func:`paired_interval` with ``halves=`` takes the **larger** of the corrected variance
and ``v_halves`` (with its degrees of freedom): the corrected one for stable procedures,
the measured one when the picks change from one data set to the next. In the simulation
above, with ``M = 10`` halvings of 4 splits each, the interval covers the true difference
in 96 % of data sets (400 seeded data sets), and two exchangeable ensembles are called
different in 1 seed of 100 (10 with the corrected t alone).
:func:`ensel.experiment.half_sample_errors` runs the replicates; they cost about as much
again as the evaluation itself.

Verdicts
--------
A claim "``a`` has a lower error than ``b``" is judged by the 95 % interval of the mean
difference (:func:`verdict`): **holds** when the interval lies entirely below zero (in the
claimed direction), **contradicted** when it lies entirely above zero, **within noise**
when it contains zero.

References
----------
C. Nadeau and Y. Bengio (2003), "Inference for the Generalization Error", Machine Learning
52, 239-281 (the corrected resampled t and the conservative Z). R. R. Bouckaert and
E. Frank (2004), "Evaluating the Replicability of Significance Tests for Comparing Learning
Algorithms", PAKDD (the corrected resampled t).

Examples
--------
>>> import numpy as np
>>> from ensel.stats import paired_interval
>>> d = np.array([-0.02, -0.01, -0.03, -0.02, -0.015, -0.025, -0.02, -0.01, -0.02, -0.03])
>>> r = paired_interval(d, n_train=800, n_test=200)
>>> round(r.mean, 4), r.verdict
(-0.02, 'holds')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import special as _sp  # not scipy.stats: 1.3 s to import on every page

from ensel._validation import (
    Interval,
    Shown,
    StrOptions,
    check_real,
    constraint_error,
    validate_params,
)

__all__ = [
    "HOLDS",
    "WITHIN_NOISE",
    "CONTRADICTED",
    "VERDICTS",
    "EQUIVALENT",
    "NOT_SHOWN_EQUIVALENT",
    "DIFFERENT",
    "EQUIVALENCE_VERDICTS",
    "Equivalence",
    "equivalence",
    "holm",
    "PairedInterval",
    "SplitChoice",
    "choose_n_splits",
    "half_width",
    "paired_differences",
    "paired_interval",
    "pooled_sizes",
    "verdict",
]

HOLDS = "holds"
WITHIN_NOISE = "within noise"
CONTRADICTED = "contradicted"
#: The three outcomes of :func:`verdict`.
VERDICTS = (HOLDS, WITHIN_NOISE, CONTRADICTED)
EQUIVALENT = "equivalent"
NOT_SHOWN_EQUIVALENT = "not shown equivalent"
DIFFERENT = "different"
#: The three outcomes of :func:`equivalence` (a claim that two arms are as good).
EQUIVALENCE_VERDICTS = (EQUIVALENT, NOT_SHOWN_EQUIVALENT, DIFFERENT)
_DIRECTIONS = ("less", "greater")


@dataclass(frozen=True)
class PairedInterval:
    """Mean paired difference with its corrected interval and verdict.

    Attributes
    ----------
    mean : float
        Mean difference over all evaluations.
    low, high : float
        Bounds of the ``confidence`` interval.
    half_width : float
        ``(high - low) / 2``.
    sd : float
        Sample standard deviation of the differences (0 with a single evaluation).
    n_evaluations : int
        Number of paired evaluations (conditions x splits).
    df : int
        Degrees of freedom of the t quantile.
    ratio : float
        ``n_test / n_train`` used in the correction (0 = the naive interval).
    confidence : float
        Confidence level.
    direction : str
        ``"less"`` (the claim is ``mean < 0``) or ``"greater"``.
    verdict : str
        One of :data:`VERDICTS`.
    method : str
        Which variance the interval uses: ``"corrected"`` (Nadeau & Bengio), ``"halves"``
        (measured on half-sample replicates, larger than the corrected one) or ``"naive"``.
    n_halvings : int
        Number of half-sample replicate pairs given (0: none).
    se : float
        Standard error of the mean behind the interval (``half_width`` is ``se`` times the
        t quantile with ``df`` degrees of freedom).
    """

    mean: float
    low: float
    high: float
    half_width: float
    sd: float
    n_evaluations: int
    df: int
    ratio: float
    confidence: float
    direction: str
    verdict: str
    method: str = "corrected"
    n_halvings: int = 0
    se: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary (for JSON)."""
        return asdict(self)

    def p_value(self) -> float:
        """Two-sided p-value of "the mean difference is 0" under the same (corrected) t."""
        se = self.se
        if se == 0:
            return 1.0 if self.mean == 0 else 0.0
        return float(2 * _sp.stdtr(self.df, -abs(self.mean) / se))


def _t_quantile(p: float, df: int) -> float:
    """Student's t quantile (``scipy.stats.t.ppf``, which calls the same function)."""
    return float(_sp.stdtrit(df, p))


def _check_confidence(confidence: Any) -> float:
    return check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True,
                      high_open=True)


def _check_ratio(n_train: Any, n_test: Any) -> float:
    n_tr = check_real(n_train, "n_train", low=0.0, low_open=True)
    n_te = check_real(n_test, "n_test", low=0.0)
    return n_te / n_tr


#: Declared constraints of the public functions (checked by ``validate_params``).
_REAL = ["real"]
_CONFIDENCE = [Interval(Real, 0, 1, closed="neither")]
_N_TRAIN = [Interval(Real, 0, None, closed="neither")]
_N_TEST = [Interval(Real, 0, None)]


@validate_params({"low": _REAL, "high": _REAL, "direction": [StrOptions(_DIRECTIONS)]})
def verdict(low: float, high: float, direction: str = "less") -> str:
    """Three-outcome verdict of a claim about a difference, from its interval.

    Parameters
    ----------
    low, high : float
        Interval bounds of the difference (``low <= high``).
    direction : {"less", "greater"}, default="less"
        The claimed sign: ``"less"`` claims the difference is below zero (e.g. "Greedy MI's
        error minus Top-k's error is negative").

    Returns
    -------
    str
        ``"holds"`` (interval excludes 0 in the claimed direction), ``"within noise"``
        (contains 0) or ``"contradicted"`` (excludes 0 in the other direction).
    """
    if direction not in _DIRECTIONS:
        raise constraint_error("direction", f"one of {', '.join(map(repr, _DIRECTIONS))}",
                               direction)
    lo, hi = float(low), float(high)
    if math.isnan(lo) or math.isnan(hi):
        raise constraint_error("low" if math.isnan(lo) else "high", "a number (not NaN)",
                               float("nan"))
    if lo > hi:
        raise constraint_error("high", f"at least low ({lo})", hi)
    if direction == "greater":
        lo, hi = -hi, -lo
    if hi < 0:
        return HOLDS
    if lo > 0:
        return CONTRADICTED
    return WITHIN_NOISE


@validate_params({"sd": [Interval(Real, 0, None)], "n_evaluations": [Interval(Integral, 2, None)],
                  "ratio": [Interval(Real, 0, None)], "confidence": _CONFIDENCE})
def half_width(sd: float, n_evaluations: int, ratio: float, *,
               confidence: float = 0.95) -> float:
    """Half-width of the corrected interval: ``t_{J-1} * sd * sqrt(1/J + ratio)``.

    ``J = n_evaluations`` (at least 2); ``ratio = n_test / n_train``.
    """
    J = int(n_evaluations)
    if J < 2:
        raise constraint_error("n_evaluations", "an int in [2, inf) (an interval needs two "
                               "evaluations)", n_evaluations)
    c = _check_confidence(confidence)
    t = _t_quantile(0.5 + c / 2.0, J - 1)
    return t * float(sd) * math.sqrt(1.0 / J + float(ratio))


@validate_params({"differences": ["array-like"], "n_train": _N_TRAIN, "n_test": _N_TEST,
                  "confidence": _CONFIDENCE, "direction": [StrOptions(_DIRECTIONS)],
                  "correct": ["boolean"], "halves": ["array-like", None]})
def paired_interval(differences: Any, *, n_train: float, n_test: float,
                    confidence: float = 0.95, direction: str = "less",
                    correct: bool = True, halves: Any = None) -> PairedInterval:
    """Mean paired difference and its overlap-corrected interval.

    The variance of the mean is Nadeau & Bengio's ``(1/J + n_test/n_train) * s^2`` (Student's
    t, ``J - 1`` df); with ``halves`` it is the larger of that and the variance measured on
    half-sample replicates, ``mean((a - b)^2) / 4`` (``M - 1`` df; see the module text).

    Parameters
    ----------
    differences : array-like of float
        One difference per evaluation (condition x split), e.g. ``error(a) - error(b)``.
    n_train, n_test : float
        Training and test sizes of one split (their ratio enters the correction; with
        conditions of different sizes pass the mean sizes).
    confidence : float, default=0.95
    direction : {"less", "greater"}, default="less"
        Claimed sign of the difference, for the verdict.
    correct : bool, default=True
        ``False`` gives the naive interval (``ratio = 0``, no replicates), for comparison only.
    halves : array-like of shape (M, 2), optional
        The same mean difference computed on each half of ``M >= 2`` halvings of the items
        (:func:`ensel.experiment.half_sample_errors`).

    Returns
    -------
    PairedInterval

    Raises
    ------
    ValueError
        Fewer than two differences, a non-finite difference, bad sizes, confidence or
        ``halves``.

    Examples
    --------
    >>> d = [-0.02, -0.01, -0.03, -0.02, -0.015, -0.025, -0.02, -0.01, -0.02, -0.03]
    >>> paired_interval(d, n_train=800, n_test=200).verdict
    'holds'
    >>> h = [[-0.05, 0.03], [0.01, -0.06], [-0.04, 0.02]]  # halves disagree: more noise
    >>> r = paired_interval(d, n_train=800, n_test=200, halves=h)
    >>> r.method, r.verdict
    ('halves', 'within noise')
    """
    d = np.asarray(differences, dtype=float).ravel()
    if d.size < 2:
        raise constraint_error("differences", "at least 2 evaluations (splits x conditions)",
                               Shown(f"{d.size}"))
    if not np.all(np.isfinite(d)):
        i = int(np.argmax(~np.isfinite(d)))
        raise constraint_error("differences", "finite numbers",
                               Shown(f"{float(d[i])!r} at position {i}"))
    c = _check_confidence(confidence)
    ratio = _check_ratio(n_train, n_test) if correct else 0.0
    J = int(d.size)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    var, df, method, M = sd * sd * (1.0 / J + ratio), J - 1, "corrected" if correct else "naive", 0
    if halves is not None and correct:
        hv = np.asarray(halves, dtype=float)
        if hv.ndim != 2 or hv.shape[1] != 2 or hv.shape[0] < 2 or not np.all(np.isfinite(hv)):
            raise constraint_error("halves", "finite numbers of shape (M, 2) with M >= 2 halvings",
                                   Shown(f"shape {hv.shape}"
                                         + ("" if np.all(np.isfinite(hv)) else ", not finite")))
        M = int(hv.shape[0])
        v_halves = float(np.mean((hv[:, 0] - hv[:, 1]) ** 2)) / 4.0
        if v_halves > var:
            var, df, method = v_halves, M - 1, "halves"
    t = _t_quantile(0.5 + c / 2.0, df)
    h = t * math.sqrt(var)
    low, high = mean - h, mean + h
    return PairedInterval(mean, low, high, h, sd, J, df, ratio, c, direction,
                          verdict(low, high, direction), method, M, math.sqrt(var))


@dataclass(frozen=True)
class Equivalence:
    """Result of :func:`equivalence` (two one-sided tests).

    Attributes
    ----------
    mean, se : float
        The difference and its standard error.
    df : int
        Degrees of freedom of the t quantiles.
    margin : float
        The equivalence margin ``delta``: differences within ``[-delta, delta]`` count as
        "as good".
    low, high : float
        The ``1 - 2 alpha`` interval (90 % for ``alpha = 0.05``): equivalence is shown
        when it lies inside ``(-delta, delta)``.
    p_value : float
        TOST p-value, the larger of the two one-sided p-values.
    alpha : float
    verdict : str
        One of :data:`EQUIVALENCE_VERDICTS`.
    """

    mean: float
    se: float
    df: int
    margin: float
    low: float
    high: float
    p_value: float
    alpha: float
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary (for JSON)."""
        return asdict(self)


@validate_params({"mean": _REAL, "se": [Interval(Real, 0, None)],
                  "df": [Interval(Integral, 1, None)],
                  "margin": [Interval(Real, 0, None, closed="neither")],
                  "alpha": [Interval(Real, 0, 0.5, closed="neither")]})
def equivalence(mean: float, se: float, df: int, margin: float, *,
                alpha: float = 0.05) -> Equivalence:
    """Is a difference within ``±margin``? Schuirmann's two one-sided tests (TOST).

    A claim "``a`` is as good as ``b``" cannot be shown by failing to find a difference
    (an interval that contains 0 says as much about noisy data as about equal arms). TOST
    tests both ``H0: d <= -margin`` and ``H0: d >= margin`` at level ``alpha``; equivalence
    is shown when both are rejected, i.e. when the ``1 - 2 alpha`` interval lies inside
    ``(-margin, margin)``. Three outcomes:

    * **equivalent** -- both one-sided tests reject;
    * **different** -- not equivalent, and the two-sided ``1 - alpha`` interval excludes 0
      (the arms differ beyond the noise);
    * **not shown equivalent** -- otherwise: the data are too noisy to tell.

    Parameters
    ----------
    mean : float
        The difference ``d``.
    se : float
        Its standard error (0: the difference is known exactly).
    df : int
        Degrees of freedom of its t distribution.
    margin : float
        The equivalence margin (positive).
    alpha : float, default=0.05
        Level of each one-sided test.

    Returns
    -------
    Equivalence

    References
    ----------
    D. J. Schuirmann (1987), "A comparison of the two one-sided tests procedure and the
    power approach for assessing the equivalence of average bioavailability", Journal of
    Pharmacokinetics and Biopharmaceutics 15, 657-680.

    Examples
    --------
    >>> equivalence(0.002, 0.003, 29, 0.01).verdict
    'equivalent'
    >>> equivalence(0.002, 0.008, 29, 0.01).verdict
    'not shown equivalent'
    >>> equivalence(0.02, 0.004, 29, 0.01).verdict
    'different'
    """
    d, s, a, delta = float(mean), float(se), float(alpha), float(margin)
    t1 = _t_quantile(1.0 - a, int(df))
    if s == 0:
        p = 0.0 if abs(d) < delta else 1.0
        low = high = d
        two_sided_excludes_0 = d != 0
    else:
        p_low = float(_sp.stdtr(int(df), -(d + delta) / s))  # H0: d <= -margin
        p_high = float(_sp.stdtr(int(df), (d - delta) / s))  # H0: d >= margin
        p = max(p_low, p_high)
        low, high = d - t1 * s, d + t1 * s
        t2 = _t_quantile(1.0 - a / 2.0, int(df))
        two_sided_excludes_0 = abs(d) > t2 * s
    if p < a:
        out = EQUIVALENT
    elif two_sided_excludes_0:
        out = DIFFERENT
    else:
        out = NOT_SHOWN_EQUIVALENT
    return Equivalence(d, s, int(df), delta, low, high, p, a, out)


@validate_params({"p_values": ["array-like"]})
def holm(p_values: Any) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error over the whole family).

    Sort the ``m`` p-values, multiply the ``i``-th smallest (``i = 0, 1, ...``) by
    ``m - i``, make the sequence non-decreasing and cap it at 1; a hypothesis is rejected
    at level ``alpha`` when its adjusted p-value is below ``alpha``. Valid under any
    dependence between the tests (the budgets ``k`` of one comparison share their
    evaluations).

    Parameters
    ----------
    p_values : array-like of float
        Values in [0, 1].

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, in the input order.

    References
    ----------
    S. Holm (1979), "A simple sequentially rejective multiple test procedure",
    Scandinavian Journal of Statistics 6, 65-70.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005]).round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(p_values, dtype=float).ravel()
    if p.size and not (np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))):
        i = int(np.argmax(~(np.isfinite(p) & (p >= 0) & (p <= 1))))
        raise constraint_error("p_values", "numbers in [0, 1]",
                               Shown(f"{float(p[i])!r} at position {i}"))
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adj
    return out


@validate_params({"errors_a": ["array-like"], "errors_b": ["array-like"]})
def paired_differences(errors_a: Any, errors_b: Any) -> np.ndarray:
    """``errors_a - errors_b`` for two equally long sequences of paired evaluations."""
    a = np.asarray(errors_a, dtype=float).ravel()
    b = np.asarray(errors_b, dtype=float).ravel()
    if a.shape != b.shape:
        raise constraint_error("errors_b", f"paired one to one with errors_a ({a.size} values)",
                               Shown(f"{b.size} values"))
    return a - b


@dataclass(frozen=True)
class SplitChoice:
    """Result of :func:`choose_n_splits`.

    Attributes
    ----------
    n_splits : int
        The chosen number of splits (per condition).
    half_width : float
        Expected half-width of the interval with that many splits.
    floor : float
        Half-width with infinitely many splits (``z * sd * sqrt(ratio)``): no number of
        splits of the same items goes below it.
    reason : str
        One sentence saying why this number.
    """

    n_splits: int
    half_width: float
    floor: float
    reason: str


@validate_params({"sd": [Interval(Real, 0, None)], "n_train": _N_TRAIN, "n_test": _N_TEST,
                  "effect": [*_REAL, None], "n_conditions": [Interval(Integral, 1, None)],
                  "relative": [Interval(Real, 0, None, closed="neither")],
                  "near_floor": [Interval(Real, 1, None, closed="neither")],
                  "min_splits": [Interval(Integral, 1, None)],
                  "max_splits": [Interval(Integral, 1, None)], "confidence": _CONFIDENCE})
def choose_n_splits(sd: float, *, n_train: float, n_test: float, effect: float | None = None,
                    n_conditions: int = 1, relative: float = 0.5, near_floor: float = 1.1,
                    min_splits: int = 5, max_splits: int = 50,
                    confidence: float = 0.95) -> SplitChoice:
    """Number of random splits so that the interval is small relative to the effect.

    With ``J`` splits per condition and ``C`` conditions the expected half-width is
    ``t_{CJ-1} * sd * sqrt(1/(CJ) + n_test/n_train)``. The function returns the smallest
    ``J`` in ``[min_splits, max_splits]`` with half-width ``<= relative * |effect|``; when
    no ``J`` reaches that (the effect is smaller than the data can resolve) or no effect is
    given, the smallest ``J`` whose half-width is within ``near_floor`` times the floor (more
    splits would not help appreciably).

    Parameters
    ----------
    sd : float
        Standard deviation of the per-evaluation differences (e.g. from a pilot of 5 splits).
    n_train, n_test : float
        Sizes of one split's parts.
    effect : float, optional
        The difference the claim is about (e.g. the pilot mean, or the paper's effect).
    n_conditions : int, default=1
    relative : float, default=0.5
        Target half-width as a fraction of ``|effect|``.
    near_floor : float, default=1.1
        Stop once the half-width is within this factor of its floor.
    min_splits, max_splits : int, default 5 and 50
    confidence : float, default=0.95

    Returns
    -------
    SplitChoice
    """
    ratio = _check_ratio(n_train, n_test)
    c = _check_confidence(confidence)
    C = int(n_conditions)
    if int(min_splits) > int(max_splits):
        raise constraint_error("max_splits", f"at least min_splits ({min_splits})", max_splits)
    sd = float(sd)
    floor = float(_sp.ndtri(0.5 + c / 2.0)) * sd * math.sqrt(ratio)
    lo = max(int(min_splits), 2 if C == 1 else 1)
    Js = list(range(lo, int(max_splits) + 1))
    hw = [half_width(sd, C * J, ratio, confidence=c) for J in Js]
    if effect is not None and math.isfinite(float(effect)) and float(effect) != 0.0:
        target = relative * abs(float(effect))
        for J, h in zip(Js, hw, strict=True):
            if h <= target:
                return SplitChoice(J, h, floor, f"{J} splits give a half-width {h:.4f} <= "
                                   f"{relative:g} x |effect| = {target:.4f}")
    for J, h in zip(Js, hw, strict=True):
        if h <= near_floor * floor:
            why = ("the effect is too small to be resolved on these items; "
                   if effect is not None else "")
            return SplitChoice(J, h, floor, f"{why}{J} splits bring the half-width ({h:.4f}) "
                               f"within {near_floor:g} x its floor {floor:.4f} (more splits of "
                               "the same items would not narrow it appreciably)")
    J, h = Js[-1], hw[-1]
    return SplitChoice(J, h, floor, f"capped at {J} splits (half-width {h:.4f})")


@validate_params({"sizes": ["array-like"]})
def pooled_sizes(sizes: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """Mean ``(n_train, n_test)`` over evaluations (for conditions of different sizes)."""
    arr = np.asarray(sizes, dtype=float).reshape(-1, 2)
    return float(arr[:, 0].mean()), float(arr[:, 1].mean())
