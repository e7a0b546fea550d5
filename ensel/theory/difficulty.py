"""Theorem D.1: with a latent difficulty ``D``, ``F(S) = I(Y; X_S | D)`` is monotone and
submodular, so greedy selection is within ``1 - 1/e`` of the best subset.

* :class:`LatentDifficultyModel` (``F(S)``, the price of difficulty ``I(Y; D | X_S)``) and
  :func:`random_latent_difficulty_model` (seeded instances);
* set-function checks over every subset: :func:`set_function_table`,
  :func:`monotonicity_violation`, :func:`submodularity_violation` (local),
  :func:`diminishing_returns_violation` (global, with the worst triple), :func:`is_monotone`,
  :func:`is_submodular`;
* :func:`greedy_maximize` and :func:`exhaustive_maximize`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ensel._validation import (
    Interval,
    Shown,
    check_k,
    check_random_state,
    constraint_error,
    validate_params,
)
from ensel.info import (
    conditional_mutual_information_table,
    entropy_table,
    mutual_information_table,
)
from ensel.theory._common import (
    ARR,
    FUNC,
    POS_INT,
    PRIOR,
    SEED,
    SUBSET,
    TOL,
    _check_m,
    _check_prior,
    _check_rates,
    _check_rho,
    _check_subset,
)

__all__ = [
    "DifficultyDecomposition",
    "DiminishingReturnsViolation",
    "LatentDifficultyModel",
    "diminishing_returns_violation",
    "exhaustive_maximize",
    "greedy_maximize",
    "is_monotone",
    "is_submodular",
    "monotonicity_violation",
    "random_latent_difficulty_model",
    "set_function_table",
    "submodularity_violation",
]


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
        ``H(Y | X_S) - H(Y | X_S, D)`` (Eq. (69); equals the price).
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
        """``I(Y;X_S) - [F(S) - price]``: zero by Eq. (68)."""
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

    @validate_params({"difficulty_prior": ARR, "error_rates": ARR, "prior": PRIOR})
    def __init__(self, difficulty_prior: Any, error_rates: Any, *, prior: float = 0.5) -> None:
        pi = np.asarray(difficulty_prior, dtype=float)
        if pi.ndim != 1 or pi.size == 0:
            raise constraint_error("difficulty_prior", "a non-empty 1-d array",
                                   Shown(f"shape {pi.shape}"))
        if not np.all(np.isfinite(pi)) or (pi < 0).any() or abs(pi.sum() - 1.0) > 1e-9:
            raise constraint_error("difficulty_prior", "non-negative and summing to 1",
                                   Shown(f"a sum of {float(pi.sum())!r}"))
        eps = np.asarray(error_rates, dtype=float)
        if eps.ndim == 2:
            eps = np.stack([eps, eps], axis=1)
        if eps.ndim != 3 or eps.shape[0] != pi.size or eps.shape[1] != 2 or eps.shape[2] == 0:
            raise constraint_error("error_rates", "of shape (n_levels, m) or (n_levels, 2, m) "
                                   f"with n_levels={pi.size}",
                                   Shown(f"shape {np.shape(error_rates)}"))
        if not np.all(np.isfinite(eps)) or (eps < 0).any() or (eps > 1).any():
            raise constraint_error("error_rates", "probabilities in [0, 1]",
                                   Shown("a value outside [0, 1]"))
        self.prior = _check_prior(prior)
        self.difficulty_prior = pi
        self.error_rates = eps
        self.n_levels = int(pi.size)
        self.n_models = int(eps.shape[2])
        py = np.array([1.0 - self.prior, self.prior])
        self.marginal_error_rates = np.einsum("d,y,dyj->j", pi, py, eps)

    @classmethod
    @validate_params({"accuracy": [*ARR, "real"], "rho": ["real"], "n_levels": POS_INT,
                      "m": [*POS_INT, None], "prior": PRIOR})
    def from_one_factor(cls, accuracy: Any, rho: float, *, n_levels: int = 40,
                        m: int | None = None, prior: float = 0.5) -> LatentDifficultyModel:
        """Discretise the one-factor copula: ``D`` = Gauss-Hermite node of ``U``.

        ``P(D = d)`` are the probabilists' Gauss-Hermite weights and
        ``eps_j(d) = Phi((tau_j - sqrt(rho) u_d) / sqrt(1 - rho))``, ``tau_j = Phi^-1(1 -
        accuracy_j)``: the latent common factor ``U`` of Theorem 4.4 *is* a latent difficulty.
        Marginal accuracies are matched up to the quadrature error.
        """
        r = _check_rho(rho)
        if r >= 1.0:
            raise constraint_error("rho", "a real number in [0, 1) for a latent-difficulty "
                                   "discretisation", r)
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

    @validate_params({"S": SUBSET})
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

    @validate_params({"S": SUBSET})
    def joint_yx(self, S: Iterable[int] | None = None) -> np.ndarray:
        """Joint table of ``(Y, X_S)`` (``D`` summed out)."""
        return self.joint(S).sum(axis=0)

    @validate_params({"S": SUBSET})
    def difficulty_aware_information(self, S: Iterable[int] | None = None) -> float:
        """``F(S) = I(Y; X_S | D)`` in bits."""
        p = self.joint(S)
        if p.ndim == 2:
            return 0.0
        return conditional_mutual_information_table(p, 1, tuple(range(2, p.ndim)), 0)

    @validate_params({"S": SUBSET})
    def information(self, S: Iterable[int] | None = None) -> float:
        """``I(Y; X_S)`` in bits."""
        p = self.joint(S)
        if p.ndim == 2:
            return 0.0
        return mutual_information_table(p, 1, tuple(range(2, p.ndim)))

    @validate_params({"S": SUBSET})
    def price_of_difficulty(self, S: Iterable[int] | None = None) -> float:
        """Price of Difficulty ``I(Y; D | X_S)`` in bits (Theorem D.1)."""
        p = self.joint(S)
        return conditional_mutual_information_table(p, 1, 0, tuple(range(2, p.ndim)))

    @validate_params({"S": SUBSET})
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

    @validate_params({"S": SUBSET, "oracle": ["boolean"]})
    def map_error(self, S: Iterable[int] | None = None, *, oracle: bool = False) -> float:
        """Bayes error from ``X_S`` (or, with ``oracle=True``, from ``(X_S, D)``)."""
        p = self.joint(S)
        if oracle:
            return float(np.minimum(p[:, 0], p[:, 1]).sum())
        q = p.sum(axis=0)
        return float(np.minimum(q[0], q[1]).sum())


# --- exhaustive checks on set functions ------------------------------------


@validate_params({"F": FUNC, "m": [Interval(Integral, 1, 16)]})
def set_function_table(F: Callable[[tuple[int, ...]], float], m: int) -> dict[int, float]:
    """Evaluate ``F`` on all ``2^m`` subsets of ``{0..m-1}``; keys are bit masks.

    ``F`` receives the subset as a sorted tuple. ``m`` must be at most 16.
    """
    mm = _check_m(m)
    if mm > 16:
        raise constraint_error("m", "an int in [1, 16] (exhaustive evaluation)", mm)
    return {mask: float(F(tuple(j for j in range(mm) if mask >> j & 1)))
            for mask in range(1 << mm)}


@validate_params({"F": FUNC, "m": [Interval(Integral, 1, 16)]})
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


@validate_params({"F": FUNC, "m": [Interval(Integral, 1, 16)]})
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


@validate_params({"F": FUNC, "m": [Interval(Integral, 1, 16)], "tol": TOL})
def is_monotone(F: Callable[[tuple[int, ...]], float], m: int, *, tol: float = 1e-12) -> bool:
    """Exhaustive check that ``F`` is monotone non-decreasing on subsets of ``{0..m-1}``."""
    return monotonicity_violation(F, m) <= tol


@validate_params({"F": FUNC, "m": [Interval(Integral, 1, 16)], "tol": TOL})
def is_submodular(F: Callable[[tuple[int, ...]], float], m: int, *, tol: float = 1e-12) -> bool:
    """Exhaustive check that ``F`` is submodular on subsets of ``{0..m-1}``."""
    return submodularity_violation(F, m) <= tol


@validate_params({"F": FUNC, "m": POS_INT, "k": POS_INT})
def greedy_maximize(F: Callable[[tuple[int, ...]], float], m: int,
                    k: int) -> tuple[list[int], float]:
    """Greedy maximisation of ``F`` under ``|S| <= k`` (ties to the lowest index).

    Returns ``(picks in order, F(picks))``. For monotone submodular ``F`` with
    ``F(empty) = 0`` the value is at least ``(1 - 1/e)`` of the optimum.
    """
    mm = _check_m(m)
    kk = _check_m(k)
    kk = check_k(kk, mm)
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


@validate_params({"F": FUNC, "m": POS_INT, "k": POS_INT})
def exhaustive_maximize(F: Callable[[tuple[int, ...]], float], m: int,
                        k: int) -> tuple[tuple[int, ...], float]:
    """Best subset of size exactly ``k`` by enumeration (ties: lexicographically first)."""
    mm = _check_m(m)
    kk = _check_m(k)
    kk = check_k(kk, mm)
    best: tuple[int, ...] = ()
    best_val = -math.inf
    for S in itertools.combinations(range(mm), kk):
        val = float(F(S))
        if val > best_val + 1e-15:
            best, best_val = S, val
    return best, best_val


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


@validate_params({"F": FUNC, "m": [Interval(Integral, 1, 12)]})
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
    mm = int(m)
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


@validate_params({"m": POS_INT, "n_levels": POS_INT, "label_dependent": ["boolean"],
                  "error_range": ["sequence"], "random_state": SEED})
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
    try:
        low, high = (float(error_range[0]), float(error_range[1]))
    except (TypeError, ValueError, IndexError):
        raise constraint_error("error_range", "a pair (low, high) with 0 <= low < high <= 1",
                               error_range) from None
    if len(error_range) != 2 or not 0.0 <= low < high <= 1.0:
        raise constraint_error("error_range", "a pair (low, high) with 0 <= low < high <= 1",
                               error_range)
    rng = check_random_state(random_state)
    pi = rng.dirichlet(np.ones(int(n_levels)))
    shape = (int(n_levels), 2, int(m)) if label_dependent else (int(n_levels), int(m))
    eps = rng.uniform(low, high, size=shape)
    return LatentDifficultyModel(pi, eps)
