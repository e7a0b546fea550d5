"""The constraints shared by the modules of :mod:`ensel.theory` (over :mod:`ensel._validation`)."""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._validation import (
    Interval,
    Shown,
    check_int,
    check_probabilities,
    check_real,
    check_subset,
    constraint_error,
)


def _real(value: Any, name: str) -> float:
    return check_real(value, name)


def _check_alpha(alpha: Any, *, strict_half: bool) -> float:
    if strict_half:
        return check_real(alpha, "alpha", low=0.5, high=1.0, low_open=True, high_open=True,
                          what="the model accuracy of Theorem 4.4")
    return check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True,
                      what="the model accuracy")


def _check_rho(rho: Any) -> float:
    return check_real(rho, "rho", low=0.0, high=1.0,
                      what="the equicorrelation of the latent scores")


def _check_m(m: Any) -> int:
    return check_int(m, "m", low=1, integral_float=True)


def _check_prior(prior: Any) -> float:
    return check_real(prior, "prior", low=0.0, high=1.0, low_open=True, high_open=True,
                      what="P(Y = +1)")


def _check_rates(values: Any, name: str, *, open_interval: bool = False) -> np.ndarray:
    return check_probabilities(values, name, open_interval=open_interval)


def _check_joint(joint: Any) -> np.ndarray:
    arr = np.asarray(joint, dtype=float)
    if arr.ndim < 1 or any(s != 2 for s in arr.shape):
        raise constraint_error(
            "joint", "the law of (Y, X_1, ..., X_k) with shape (2, 2, ..., 2) "
            "(axis 0 = Y, index 0 = -1, index 1 = +1)", Shown(f"shape {arr.shape}"))
    if not np.all(np.isfinite(arr)) or (arr < 0).any():
        raise constraint_error("joint", "a table of finite, non-negative probabilities",
                               Shown("a negative or non-finite entry"))
    total = float(arr.sum())
    if abs(total - 1.0) > 1e-9:
        raise constraint_error("joint", "a probability table that sums to 1",
                               Shown(f"a sum of {total!r}"))
    return arr


def _check_joint_table(joint: Any) -> np.ndarray:
    """The law of (Y, X_1, ..., X_m) with at least one model."""
    arr = _check_joint(joint)
    if arr.ndim < 2:
        raise constraint_error("joint", "a law that includes at least one model X_1",
                               Shown(f"shape {arr.shape}"))
    return arr


def _check_subset(S: Iterable[int] | None, k: int, name: str = "S") -> tuple[int, ...]:
    return check_subset(S, k, name)


def _check_weights(weights: Any) -> np.ndarray:
    """Vote weights: a finite, non-empty 1-d array."""
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)):
        raise constraint_error("weights", "a finite, non-empty 1-d array", weights)
    return w


# Declared constraints of the public functions (checked by ``validate_params``).
ARR = ["array-like"]
ARR_OR_REAL = ["array-like", "real"]
REAL = [Interval(Real, None, None)]
PRIOR = [Interval(Real, 0, 1, closed="neither")]
RATE = [Interval(Real, 0, 1)]
SUBSET = ["iterable", None]
POS_INT = [Interval(Integral, 1, None)]
SEED = ["random_state", None]
TOL = [Interval(Real, 0, None)]
FUNC = ["callable"]
