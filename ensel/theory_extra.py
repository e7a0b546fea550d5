"""Small exact helpers used by the theory pages (Section 3, Theorem D.1).

* :func:`diminishing_returns_violation` -- the *global* submodularity check of a set
  function over every triple ``S subset T``, ``j not in T`` (with the worst triple, so a
  page can show a counterexample), complementing the local pairwise check
  :func:`ensel.theory.submodularity_violation`.
* :func:`random_latent_difficulty_model` -- seeded random instances of the latent-difficulty
  model of Theorem D.1 (:class:`ensel.theory.LatentDifficultyModel`).
* :func:`binary_entropy` and :func:`bsc_capacity` -- ``h(p)`` and ``1 - h(eps)`` in bits,
  the capacity of a binary symmetric channel (each model as a BSC, Section 3).
* :func:`compare_count_law` -- simulated numbers of wrong models per item against an exact
  law such as :func:`ensel.theory.error_count_distribution` (per-bin z-scores, total
  variation).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ensel._validation import check_random_state
from ensel.theory import LatentDifficultyModel, set_function_table

__all__ = [
    "CountLawComparison",
    "DiminishingReturnsViolation",
    "binary_entropy",
    "bsc_capacity",
    "compare_count_law",
    "diminishing_returns_violation",
    "random_latent_difficulty_model",
]


def _mask_to_tuple(mask: int, m: int) -> tuple[int, ...]:
    return tuple(j for j in range(m) if mask >> j & 1)


@dataclass(frozen=True)
class DiminishingReturnsViolation:
    """Worst violation of diminishing returns found by :func:`diminishing_returns_violation`.

    Attributes
    ----------
    gap : float
        ``max [F(T + j) - F(T)] - [F(S + j) - F(S)]`` over ``S`` a proper subset of ``T``,
        ``j not in T``. ``F`` is submodular iff ``gap <= 0`` (up to round-off); 0 when there
        is no triple (``m = 1``).
    S, T : tuple of int
        The subsets attaining the maximum (sorted model indices, ``S`` a proper subset of
        ``T``).
    j : int
        The added element (``-1`` when there is no triple, i.e. ``m = 1``).
    gain_small, gain_large : float
        ``F(S + j) - F(S)`` and ``F(T + j) - F(T)``.
    n_triples : int
        Number of triples ``(S, T, j)`` examined.
    """

    gap: float
    S: tuple[int, ...]
    T: tuple[int, ...]
    j: int
    gain_small: float
    gain_large: float
    n_triples: int


def diminishing_returns_violation(F: Callable[[tuple[int, ...]], float],
                                  m: int) -> DiminishingReturnsViolation:
    """Check diminishing returns of ``F`` over *every* ``S subset T subset [m]``, ``j not in T``.

    Submodularity means ``F(S + j) - F(S) >= F(T + j) - F(T)`` whenever ``S`` is a subset of
    ``T`` and ``j`` is not in ``T``. This evaluates ``F`` once on each of the ``2^m`` subsets
    (via :func:`ensel.theory.set_function_table`) and examines all
    ``m (3^(m-1) - 2^(m-1))`` triples with ``S`` a *proper* subset of ``T`` (``S = T`` has
    gap 0 and is skipped, so a strictly submodular ``F`` gets a negative gap).

    Parameters
    ----------
    F : callable
        Set function; receives a sorted tuple of indices in ``0..m-1``.
    m : int
        Ground-set size, ``1 <= m <= 12`` (the triple count grows like ``3^m``).

    Returns
    -------
    DiminishingReturnsViolation
        The largest ``gain_large - gain_small`` and the triple attaining it (ties: first in
        the order ``T`` by bit mask, then ``S``, then ``j``). ``gap <= tol`` means submodular.

    Raises
    ------
    ValueError
        If ``m`` is not an integer in ``[1, 12]``.
    """
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)):
        raise ValueError(f"m (ground-set size) must be an integer; got {m!r}")
    mm = int(m)
    if not 1 <= mm <= 12:
        raise ValueError(
            f"m must lie in [1, 12] for an exhaustive check over 3^m triples; got {mm}"
        )
    vals = set_function_table(F, mm)
    best = (-math.inf, 0, 0, -1, 0.0, 0.0)
    count = 0
    for T in range(1 << mm):
        outside = [j for j in range(mm) if not T >> j & 1]
        if not outside:
            continue
        gains_T = {j: vals[T | 1 << j] - vals[T] for j in outside}
        if T == 0:
            continue
        S = (T - 1) & T
        while True:  # all proper submasks S of T (S = T gives a zero gap)
            for j in outside:
                gs = vals[S | 1 << j] - vals[S]
                gap = gains_T[j] - gs
                count += 1
                if gap > best[0]:
                    best = (gap, S, T, j, gs, gains_T[j])
            if S == 0:
                break
            S = (S - 1) & T
    if count == 0:  # m = 1: no pair S strictly inside T with j outside T
        return DiminishingReturnsViolation(0.0, (), (), -1, 0.0, 0.0, 0)
    gap, S, T, j, gs, gt = best
    return DiminishingReturnsViolation(
        gap=float(gap), S=_mask_to_tuple(S, mm), T=_mask_to_tuple(T, mm), j=int(j),
        gain_small=float(gs), gain_large=float(gt), n_triples=count,
    )


def random_latent_difficulty_model(m: int, n_levels: int, *, label_dependent: bool = False,
                                   error_range: tuple[float, float] = (0.02, 0.98),
                                   random_state: Any = None) -> LatentDifficultyModel:
    """A seeded random instance of the latent-difficulty model of Theorem D.1.

    ``P(D = d)`` is drawn from a flat Dirichlet over ``n_levels`` levels, and the error rate
    of each model at each level (and, if ``label_dependent``, for each label) uniformly from
    ``error_range``. Both assumptions of Theorem D.1 hold by construction (``D`` independent
    of ``Y``; errors independent given ``(Y, D)``), and ``Y`` is balanced.

    Parameters
    ----------
    m : int
        Number of models, ``>= 1``.
    n_levels : int
        Number of difficulty levels, ``>= 1``.
    label_dependent : bool, default False
        Draw separate rates for ``Y = -1`` and ``Y = +1``.
    error_range : tuple of float, default (0.02, 0.98)
        ``(low, high)`` with ``0 <= low < high <= 1``.
    random_state : int, numpy.random.Generator or None
        Seed; the same seed gives the same model.

    Returns
    -------
    ensel.theory.LatentDifficultyModel
    """
    for name, v in (("m", m), ("n_levels", n_levels)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer; got {v!r}")
    try:
        low, high = (float(error_range[0]), float(error_range[1]))
    except (TypeError, ValueError, IndexError):
        raise ValueError(f"error_range must be a pair (low, high); got {error_range!r}") from None
    if len(error_range) != 2 or not 0.0 <= low < high <= 1.0:
        raise ValueError(f"error_range must satisfy 0 <= low < high <= 1; got {error_range!r}")
    rng = check_random_state(random_state)
    pi = rng.dirichlet(np.ones(int(n_levels)))
    shape = (int(n_levels), 2, int(m)) if label_dependent else (int(n_levels), int(m))
    eps = rng.uniform(low, high, size=shape)
    return LatentDifficultyModel(pi, eps)


def binary_entropy(p: Any) -> Any:
    """Binary entropy ``h(p) = -p log2 p - (1 - p) log2 (1 - p)`` in bits (``h(0) = h(1) = 0``).

    Parameters
    ----------
    p : float or array-like
        Probabilities in ``[0, 1]``.

    Returns
    -------
    float or numpy.ndarray
        A plain float for scalar input, else an array of the input's shape.
    """
    arr = np.asarray(p, dtype=float)
    if not np.all(np.isfinite(arr)) or (arr < 0).any() or (arr > 1).any():
        raise ValueError(f"p must contain probabilities in [0, 1]; got {p!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(arr > 0, arr * np.log2(arr), 0.0)
              + np.where(arr < 1, (1 - arr) * np.log2(1 - arr), 0.0))
    return float(h) if h.ndim == 0 else h


def bsc_capacity(eps: Any) -> Any:
    """Capacity ``1 - h(eps)`` (bits per use) of a binary symmetric channel with crossover ``eps``.

    It is attained by the uniform input, so for a model with error rate ``eps`` answering a
    balanced label, ``I(Y; X_j) = 1 - h(eps)``.

    Parameters
    ----------
    eps : float or array-like
        Crossover probabilities in ``[0, 1]``.

    Returns
    -------
    float or numpy.ndarray
    """
    try:
        h = binary_entropy(eps)
    except ValueError:
        raise ValueError(
            f"eps must contain crossover probabilities in [0, 1]; got {eps!r}"
        ) from None
    return 1.0 - h


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
        raise ValueError(f"pmf must be a non-empty 1-d array; got shape {p.shape}")
    if not np.all(np.isfinite(p)) or (p < 0).any() or abs(p.sum() - 1.0) > 1e-8:
        raise ValueError("pmf must be non-negative and sum to 1")
    k = np.asarray(K)
    if k.ndim != 1 or k.size == 0:
        raise ValueError(f"K must be a non-empty 1-d array of counts; got shape {k.shape}")
    if not np.issubdtype(k.dtype, np.integer):
        if not np.all(np.isfinite(k)) or not np.all(np.equal(np.mod(k, 1), 0)):
            raise ValueError("K must contain integers")
        k = k.astype(np.int64)
    if k.min() < 0 or k.max() >= p.size:
        raise ValueError(f"K must lie in 0..{p.size - 1} (the support of pmf); "
                         f"got values in {int(k.min())}..{int(k.max())}")
    if not min_expected > 0:
        raise ValueError(f"min_expected must be positive; got {min_expected!r}")
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
