"""Exhaustive search over all subsets of ``k`` models (small pools; private module)."""

from __future__ import annotations

import copy
import itertools
import math
from numbers import Integral
from typing import Any

import numpy as np

from ensel._kernels import answer_digits, label_bits
from ensel._validation import (
    HasMethods,
    Interval,
    Shown,
    StrOptions,
    check_k,
    check_real,
    check_X_y,
    constraint_error,
    validate_params,
)
from ensel.aggregate import MAPAggregator
from ensel.info import _smoothed_mi_codes
from ensel.select._base import _ALPHA, _K, _XY
from ensel.select._engine import TIE_TOL

__all__ = ["exhaustive_search"]


def _is_estimator(obj: Any) -> bool:
    return hasattr(obj, "fit") and hasattr(obj, "predict")


@validate_params({**_XY, "k": _K,
                  "objective": [StrOptions(["mi", "map"]), HasMethods(["fit", "predict"]),
                                "callable"],
                  "X_val": ["array-like", None], "y_val": ["array-like", None],
                  "alpha": _ALPHA, "max_subsets": [Interval(Integral, 1, None)],
                  "return_score": ["boolean"]})
def exhaustive_search(X: Any, y: Any, k: int, *, objective: Any = "mi",
                      X_val: Any = None, y_val: Any = None, alpha: float = 1.0,
                      max_subsets: int = 100_000,
                      return_score: bool = False) -> list[int] | tuple[list[int], float]:
    """Best subset of ``k`` models by brute force over all ``C(m, k)`` subsets.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
        Training answers.
    y : array-like of shape (n_items,)
        Training labels (both classes required).
    k : int
        Subset size.
    objective : "mi", "map", an aggregator, or a callable, default="mi"
        * ``"mi"``: maximise the smoothed ``I(Y; X_S)`` on ``(X, y)`` (pattern alphabet
          of ``X_S`` as in :func:`greedy_mi`).
        * an aggregator (any object with ``fit(X, y)`` and ``predict(X)``, e.g.
          ``ensel.aggregate.MAPAggregator()``), or ``"map"`` for
          ``MAPAggregator(alpha=alpha)``: minimise the error of a fresh copy fitted on
          ``(X[:, S], y)`` and scored on ``(X_val[:, S], y_val)``; without ``X_val`` the
          training error is used.
        * a callable ``scorer(X_S, y) -> float``: maximise it on ``(X, y)``.
    X_val, y_val : array-like, optional
        Held-out answers and labels for an aggregator objective (both or neither).
    alpha : float, default=1.0
        Laplace pseudo-count for ``"mi"`` and ``"map"``.
    max_subsets : int, default=100_000
        Refuse to enumerate more subsets than this (raise it deliberately).
    return_score : bool, default=False
        Also return the best score (MI in bits, error rate, or scorer value).

    Returns
    -------
    list of int, or (list of int, float)
        The best subset in increasing column order. Ties (within ``TIE_TOL``) go to the
        lexicographically first subset.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> exhaustive_search(X, y, 2)
    [0, 2]
    """
    Xa, ya = check_X_y(X, y, require_both_classes=True)
    m = Xa.shape[1]
    k = check_k(k, m)
    n_sub = math.comb(m, k)
    if n_sub > max_subsets:
        raise constraint_error(
            "max_subsets", f"at least the C({m}, {k}) = {n_sub} subsets to search (raise it, "
            "or use a greedy selector)", max_subsets)
    al = check_real(alpha, "alpha", low=0, low_open=True, what="the Laplace pseudo-count")
    if (X_val is None) != (y_val is None):
        raise constraint_error("y_val" if y_val is None else "X_val",
                               "given together with " + ("X_val" if y_val is None else "y_val")
                               + " (both or neither)", None)
    if isinstance(objective, str):
        if objective == "map":

            objective = MAPAggregator(alpha=alpha)
        elif objective != "mi":
            raise constraint_error("objective", "'mi', 'map', an aggregator with fit/predict, "
                                   "or a callable scorer(X_S, y)", objective)
    Xv = yv = None
    if X_val is not None:
        if not _is_estimator(objective):
            raise constraint_error("X_val", "None unless objective is an aggregator",
                                   Shown("held-out answers with objective "
                                         f"{objective!r}"))
        Xv, yv = check_X_y(X_val, y_val)
        if Xv.shape[1] != m:
            raise constraint_error("X_val", f"of {m} models (columns), as X",
                                   Shown(f"{Xv.shape[1]} models"))

    if isinstance(objective, str):  # "mi"
        d = answer_digits(Xa)
        r = np.where((Xa == 0).any(axis=0), 3, 2)
        yc = label_bits(ya)

        def score(S: tuple[int, ...]) -> float:
            codes = np.zeros(Xa.shape[0], dtype=np.int64)
            w = 1
            for c in S:
                codes += d[:, c] * w
                w *= int(r[c])
            return _smoothed_mi_codes(yc, codes, 2, w, al)

        sign = 1.0
    elif _is_estimator(objective):
        Xe, ye = (Xa, ya) if Xv is None else (Xv, yv)

        def score(S: tuple[int, ...]) -> float:
            est = copy.deepcopy(objective)
            cols = list(S)
            pred = np.asarray(est.fit(Xa[:, cols], ya).predict(Xe[:, cols]))
            return float(np.mean(pred != ye))

        sign = -1.0
    elif callable(objective):
        def score(S: tuple[int, ...]) -> float:
            return float(objective(Xa[:, list(S)], ya))

        sign = 1.0
    else:
        raise constraint_error("objective", "'mi', 'map', an aggregator with fit/predict, "
                               "or a callable scorer(X_S, y)", objective)

    best_S: tuple[int, ...] | None = None
    best = -math.inf
    for S in itertools.combinations(range(m), k):
        s = sign * score(S)
        if s > best + TIE_TOL:
            best, best_S = s, S
    assert best_S is not None
    subset = [int(c) for c in best_S]
    if return_score:
        return subset, float(sign * best)
    return subset
