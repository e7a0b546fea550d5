"""Theorem E.1: under independent, label-symmetric errors and a uniform prior, the MAP rule is
the weighted vote with log-odds weights ``w_j = log(p_j / (1 - p_j))``.

* :func:`log_odds_weights`, :func:`weighted_vote_decisions`;
* :func:`compare_weighted_vote_with_map` (:class:`WeightedVoteComparison`) on any exact law,
  :func:`weighted_vote_matches_map`;
* the general case (any prior, label-dependent rates): :func:`independent_map_rule` gives the
  exact MAP rule as an affine vote, :func:`affine_vote_decisions` applies it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ensel._validation import Shown, constraint_error, validate_params
from ensel.theory._common import (
    ARR,
    ARR_OR_REAL,
    PRIOR,
    REAL,
    SUBSET,
    TOL,
    _check_prior,
    _check_rates,
    _check_weights,
)
from ensel.theory.joint import (
    TIE_RTOL,
    _pattern_signs,
    independent_joint_law,
    map_decisions,
    map_error,
    subset_joint,
)

__all__ = [
    "WeightedVoteComparison",
    "affine_vote_decisions",
    "compare_weighted_vote_with_map",
    "independent_map_rule",
    "log_odds_weights",
    "weighted_vote_decisions",
    "weighted_vote_matches_map",
]


# ---------------------------------------------------------------------------
# Theorem E.1: log-odds weights
# ---------------------------------------------------------------------------


@validate_params({"p": ARR_OR_REAL})
def log_odds_weights(p: Any) -> np.ndarray:
    """Log-odds weights ``w_j = log(p_j / (1 - p_j))`` of accuracies ``p_j`` in ``(0, 1)``."""
    acc = _check_rates(p, "p", open_interval=True)
    return np.log(acc) - np.log1p(-acc)


@validate_params({"weights": ARR})
def weighted_vote_decisions(weights: Any) -> np.ndarray:
    """Decision ``sign(sum_j w_j x_j)`` for every answer pattern ``x`` in ``{-1, +1}^k``.

    Returns an ``int8`` array of shape ``(2,) * k`` (index 0 = answer ``-1``); a vote with
    ``|V| <= TIE_RTOL * sum|w|`` is a tie and goes to ``+1`` (as the MAP tie rule).
    """
    w = _check_weights(weights)
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


@validate_params({"joint": ARR, "S": SUBSET, "weights": [*ARR, None]})
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
        raise constraint_error("S", "at least one model", Shown("an empty subset"))
    if weights is None:
        acc = np.empty(k)
        for j in range(k):
            pj = subset_joint(p, [j])
            acc[j] = pj[0, 0] + pj[1, 1]
        w = log_odds_weights(acc)
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != (k,):
            raise constraint_error("weights", f"of shape ({k},), one per model of S",
                                   Shown(f"shape {w.shape}"))
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


@validate_params({"eps": ARR_OR_REAL})
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


@validate_params({"eps_pos": ARR_OR_REAL, "eps_neg": ARR_OR_REAL, "prior": PRIOR})
def independent_map_rule(eps_pos: Any, eps_neg: Any, prior: float = 0.5
                         ) -> tuple[np.ndarray, float]:
    """Exact MAP rule of conditionally independent classifiers as an affine vote.

    With ``P(X_j != Y | Y = +1) = eps_pos[j]``, ``P(X_j != Y | Y = -1) = eps_neg[j]`` and
    ``P(Y = +1) = prior``, the log posterior ratio is ``b + sum_j w_j x_j`` with

    ``w_j = (1/2) [log((1 - eps_pos_j) / eps_neg_j) + log((1 - eps_neg_j) / eps_pos_j)]``,

    ``b = log(prior / (1 - prior))
    + (1/2) sum_j [log((1 - eps_pos_j) / eps_neg_j) - log((1 - eps_neg_j) / eps_pos_j)]``.

    For a balanced prior and symmetric errors (``eps_pos == eps_neg == eps``) this is
    ``b = 0`` and ``w_j = log((1 - eps_j) / eps_j)``: Theorem E.1's log-odds weights.

    Parameters
    ----------
    eps_pos, eps_neg : array-like of shape (k,)
        Class-conditional error rates in ``(0, 1)``.
    prior : float
        ``P(Y = +1)`` in ``(0, 1)``.

    Returns
    -------
    (numpy.ndarray of shape (k,), float)
        Weights ``w`` and bias ``b`` (natural log).
    """
    ep = _check_rates(eps_pos, "eps_pos", open_interval=True)
    en = _check_rates(eps_neg, "eps_neg", open_interval=True)
    if ep.shape != en.shape:
        raise constraint_error("eps_neg", f"of the shape of eps_pos {ep.shape}",
                               Shown(f"shape {en.shape}"))
    p = _check_prior(prior)
    a_plus = np.log1p(-ep) - np.log(en)   # LLR of an answer +1
    a_minus = np.log(ep) - np.log1p(-en)  # LLR of an answer -1
    w = 0.5 * (a_plus - a_minus)
    b = float(np.log(p) - np.log1p(-p) + 0.5 * (a_plus + a_minus).sum())
    return w, b


@validate_params({"weights": ARR, "bias": REAL, "tie_rtol": TOL})
def affine_vote_decisions(weights: Any, bias: float = 0.0, *,
                          tie_rtol: float = 1e-12) -> np.ndarray:
    """Decision ``sign(b + sum_j w_j x_j)`` for every answer pattern ``x`` in ``{-1,+1}^k``.

    Parameters
    ----------
    weights : array-like of shape (k,)
        Finite weights.
    bias : float
        Finite bias ``b``.
    tie_rtol : float
        A score with ``|b + w.x| <= tie_rtol * (|b| + sum|w|)`` is a tie and goes to ``+1``
        (the tie rule of :func:`ensel.theory.map_decisions`).

    Returns
    -------
    numpy.ndarray of shape (2,) * k, int8
        Index 0 on an axis = answer ``-1``, index 1 = ``+1`` (the table layout of
        :mod:`ensel.theory`).
    """
    w = _check_weights(weights)
    b = float(bias)
    k = w.size
    x = 2 * np.array(list(itertools.product((0, 1), repeat=k)), dtype=float) - 1
    v = b + x @ w
    tie = np.abs(v) <= tie_rtol * (abs(b) + np.abs(w).sum())
    return np.where((v > 0) | tie, 1, -1).astype(np.int8).reshape((2,) * k)
