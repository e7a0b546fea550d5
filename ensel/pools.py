"""Seeded simulated pools of many models with family structure (Gaussian copula).

Practitioners' pools are large and made of families (one vendor's sizes and fine-tunes) that
share their mistakes. :func:`family_pool` draws such a pool from the paper's Gaussian copula
of errors (:mod:`ensel.copula`) with a two-factor latent structure like the stand-ins'
(:mod:`ensel.datasets.standins`); :func:`multiclass_pool` turns its correctness into
multiple-choice answers with a stated rule for the wrong option a wrong model picks::

    Z_j = sqrt(common) U + sqrt(within) V_f(j) + sqrt(1 - common - within) xi_j,

so ``corr(Z_i, Z_j) = common + within * 1[same family]``, ``E_j = 1(Z_j < tau_j)`` with
``tau_j = Phi^-1(1 - accuracy_j)`` and ``X_j = Y (1 - 2 E_j)``. Families have a common
accuracy level (uniform in ``[acc_low, acc_high]``) and each model deviates from it by
``N(0, jitter^2)`` (clipped to ``[0.51, 0.97]``), so the most accurate models tend to come
from one or two families: the situation where the most accurate set is not the best ensemble.

The factors are sampled directly (``O(n m)`` instead of the ``O(n m^2)`` of
:func:`ensel.copula.sample` with the full ``Sigma``); :attr:`FamilyPool.Sigma` and
:attr:`FamilyPool.tau` give the same law for :mod:`ensel.copula` and :mod:`ensel.theory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri

from ensel._validation import Shown, check_int, check_random_state, check_real, constraint_error

__all__ = ["FamilyPool", "MulticlassPool", "family_pool", "multiclass_pool"]


@dataclass(frozen=True)
class FamilyPool:
    """A sampled family-structured pool.

    Attributes
    ----------
    X : numpy.ndarray of shape (n, m), dtype int8
        Answers in ``{-1, +1}`` (``0`` = abstained, with ``abstain``).
    y : numpy.ndarray of shape (n,), dtype int8
        Labels in ``{-1, +1}`` (i.i.d. uniform).
    accuracy : numpy.ndarray of shape (m,)
        The models' true accuracies.
    family : numpy.ndarray of shape (m,), dtype int64
        Family of each model (``j // family_size``).
    common, within : float
        Latent loadings (see the module text).
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    accuracy: np.ndarray = field(repr=False)
    family: np.ndarray = field(repr=False)
    common: float
    within: float

    @property
    def tau(self) -> np.ndarray:
        """Latent thresholds ``Phi^-1(1 - accuracy)``."""
        return ndtri(1.0 - self.accuracy)

    @property
    def Sigma(self) -> np.ndarray:
        """Latent correlation matrix ``common + within * 1[same family]`` (unit diagonal)."""
        same = self.family[:, None] == self.family[None, :]
        S = self.common + self.within * same.astype(float)
        np.fill_diagonal(S, 1.0)
        return S


def family_pool(m: int, n: int, *, family_size: int | Sequence[int] = 10, common: float = 0.1,
                within: float = 0.5, acc_low: float = 0.6, acc_high: float = 0.88,
                jitter: float = 0.03, abstain: tuple[float, float] = (0.0, 0.0),
                random_state: int | np.random.Generator | None = None) -> FamilyPool:
    """Sample a pool of ``m`` models in families of ``family_size`` answering ``n`` items.

    Parameters
    ----------
    m : int
        Number of models (``>= 1``).
    n : int
        Number of items (``>= 1``).
    family_size : int or sequence of int, default=10
        Models per family (the last family may be smaller), or each family's size in order
        (summing to ``m``).
    common : float, default=0.1
        Latent correlation shared by every pair, in ``[0, 1)``.
    within : float, default=0.5
        Extra latent correlation within a family; ``common + within < 1``.
    acc_low, acc_high : float, default=0.6, 0.88
        Range of the family accuracy levels, ``0.5 < acc_low <= acc_high < 1``.
    jitter : float, default=0.03
        Standard deviation of a model's accuracy around its family's level (``>= 0``).
    abstain : (float, float), default=(0.0, 0.0)
        Range of the models' abstention rates: each model's rate is uniform in it, and each
        of its answers is blanked (``0``) independently with that probability (drawn after
        the answers, so a pool without abstentions is the same with or without it).
    random_state : int, numpy.random.Generator or None
        Seed; the same seed gives the same pool.

    Returns
    -------
    FamilyPool

    Examples
    --------
    >>> pool = family_pool(30, 2000, random_state=0)
    >>> pool.X.shape, sorted(set(pool.family.tolist()))
    ((2000, 30), [0, 1, 2])
    >>> acc = (pool.X == pool.y[:, None]).mean(axis=0)
    >>> bool(abs(acc - pool.accuracy).max() < 0.05)
    True
    >>> weak = family_pool(24, 1000, acc_low=0.51, acc_high=0.56, abstain=(0.15, 0.2),
    ...                    random_state=0)
    >>> bool(0.15 <= (weak.X == 0).mean() <= 0.2)
    True
    """
    m = check_int(m, "m", low=1)
    n = check_int(n, "n", low=1)
    if isinstance(family_size, (list, tuple)):  # families of the given sizes, in order
        sizes = [check_int(s, "family_size[]", low=1) for s in family_size]
        if sum(sizes) != m:
            raise constraint_error("family_size", f"sizes summing to m={m} when it lists the "
                                   "families' sizes", Shown(f"sizes summing to {sum(sizes)}"))
    else:
        sizes = None
        family_size = check_int(family_size, "family_size", low=1)
    common = check_real(common, "common", low=0, high=1, high_open=True)
    within = check_real(within, "within", low=0, high=1 - common, high_open=True,
                        what="common + within < 1")
    acc_low = check_real(acc_low, "acc_low", low=0.5, high=1, low_open=True, high_open=True)
    acc_high = check_real(acc_high, "acc_high", low=acc_low, high=1, high_open=True)
    jitter = check_real(jitter, "jitter", low=0)
    if not (isinstance(abstain, tuple | list) and len(abstain) == 2):
        raise ValueError(f"abstain of family_pool must be a pair (low, high) of rates; "
                         f"got {abstain!r}")
    ab_low = check_real(abstain[0], "abstain[0]", low=0, high=1, high_open=True)
    ab_high = check_real(abstain[1], "abstain[1]", low=ab_low, high=1, high_open=True)
    rng = check_random_state(random_state)
    family = (np.repeat(np.arange(len(sizes), dtype=np.int64), sizes) if sizes is not None
              else np.arange(m, dtype=np.int64) // family_size)
    n_fam = int(family[-1]) + 1
    level = rng.uniform(acc_low, acc_high, n_fam)
    accuracy = np.clip(level[family] + rng.normal(0.0, jitter, m), 0.51, 0.97)
    y = np.where(rng.random(n) < 0.5, -1, 1).astype(np.int8)
    tau = ndtri(1.0 - accuracy).astype(np.float32)
    X = np.empty((n, m), dtype=np.int8)
    chunk = max(1, (1 << 22) // m)  # bounded memory: float32 latent block of about 16 MB
    a, g, s = np.sqrt(common), np.sqrt(within), np.sqrt(1.0 - common - within)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        U = rng.standard_normal((hi - lo, 1), dtype=np.float32)
        V = rng.standard_normal((hi - lo, n_fam), dtype=np.float32)
        xi = rng.standard_normal((hi - lo, m), dtype=np.float32)
        Z = a * U + g * V[:, family] + s * xi
        X[lo:hi] = np.where(Z < tau, -y[lo:hi, None], y[lo:hi, None])
    if ab_high > 0:
        rate = rng.uniform(ab_low, ab_high, m)
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            X[lo:hi][rng.random((hi - lo, m)) < rate] = 0
    return FamilyPool(X=X, y=y, accuracy=accuracy, family=family, common=float(common),
                      within=float(within))



@dataclass(frozen=True)
class MulticlassPool:
    """A sampled multiple-choice pool (:func:`multiclass_pool`).

    Attributes
    ----------
    A : numpy.ndarray of shape (n, m), dtype int8
        Chosen options ``0..n_options-1``; ``-1`` = abstained.
    y : numpy.ndarray of shape (n,), dtype int8
        Gold options (i.i.d. uniform).
    distractor : numpy.ndarray of shape (n,), dtype int8
        Each item's attractive wrong option (uniform among the wrong ones).
    accuracy : numpy.ndarray of shape (m,)
        The models' true accuracies.
    family : numpy.ndarray of shape (m,), dtype int64
    n_options : int
    share : float
        Probability that a wrong answer is the item's distractor.
    common, within : float
        Latent loadings of the correctness copula (see the module text).
    """

    A: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    distractor: np.ndarray = field(repr=False)
    accuracy: np.ndarray = field(repr=False)
    family: np.ndarray = field(repr=False)
    n_options: int
    share: float
    common: float
    within: float


def multiclass_pool(m: int, n: int, *, n_options: int = 4, share: float = 0.0,
                    family_size: int | Sequence[int] = 10, common: float = 0.1,
                    within: float = 0.5,
                    acc_low: float = 0.6, acc_high: float = 0.88, jitter: float = 0.03,
                    abstain: tuple[float, float] = (0.0, 0.0),
                    random_state: int | np.random.Generator | None = None) -> MulticlassPool:
    """Sample ``m`` models answering ``n`` items with ``n_options`` options each.

    Which models are right on which items is :func:`family_pool`'s Gaussian copula (same
    parameters, same meaning). The gold option is uniform; the rule for a wrong answer:
    each item has one *distractor*, a wrong option drawn uniformly, and a wrong model picks
    it with probability ``share``, otherwise a wrong option uniformly at random (which may
    also be the distractor). So ``share = 0`` spreads wrong answers evenly (two wrong models
    agree with probability ``1 / (n_options - 1)``) and ``share = 1`` makes every wrong model
    of an item give the same wrong answer. Correctness correlation (``common``, ``within``)
    and shared wrong options (``share``) are the two knobs of dependence.

    Parameters
    ----------
    m, n : int
        Models and items.
    n_options : int, default=4
        Options per item (``>= 2``).
    share : float, default=0.0
        In ``[0, 1]``.
    family_size, common, within, acc_low, acc_high, jitter, abstain, random_state
        As in :func:`family_pool` (an abstention is ``-1``).

    Returns
    -------
    MulticlassPool

    Examples
    --------
    >>> pool = multiclass_pool(20, 3000, n_options=4, share=1.0, random_state=0)
    >>> wrong = (pool.A != pool.y[:, None]) & (pool.A >= 0)
    >>> bool((pool.A[wrong] == np.broadcast_to(pool.distractor[:, None], wrong.shape)[wrong]).all())
    True
    >>> bool(abs((pool.A == pool.y[:, None]).mean(axis=0) - pool.accuracy).max() < 0.05)
    True
    """
    n_options = check_int(n_options, "n_options", low=2, high=127)
    share = check_real(share, "share", low=0, high=1)
    rng = check_random_state(random_state)
    base = family_pool(m, n, family_size=family_size, common=common, within=within,
                       acc_low=acc_low, acc_high=acc_high, jitter=jitter, abstain=abstain,
                       random_state=rng)
    K = n_options
    n_items = int(base.X.shape[0])
    y: np.ndarray = rng.integers(0, K, size=n_items).astype(np.int8)
    distractor: np.ndarray = ((y + rng.integers(1, K, size=n_items)) % K).astype(np.int8)
    A: np.ndarray = np.empty(base.X.shape, dtype=np.int8)
    chunk = max(1, (1 << 22) // base.X.shape[1])
    for lo in range(0, A.shape[0], chunk):
        hi = min(A.shape[0], lo + chunk)
        yb, xb = y[lo:hi, None], base.X[lo:hi]
        uniform = (yb + rng.integers(1, K, xb.shape, dtype=np.int8)) % K
        shared = rng.random(xb.shape, dtype=np.float32) < share
        wrong = np.where(shared, distractor[lo:hi, None], uniform)
        A[lo:hi] = np.where(xb == base.y[lo:hi, None], yb, wrong)
        A[lo:hi][xb == 0] = -1
    return MulticlassPool(A=A, y=y, distractor=distractor, accuracy=base.accuracy,
                          family=base.family, n_options=K, share=float(share),
                          common=base.common, within=base.within)
