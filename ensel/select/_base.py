"""The base class of every selector and the declared constraints of their parameters (private).

A selector subclasses :class:`_BaseSelector` and implements ``_path(Xa, ya, k) -> (selected,
gains, scores)``; ``fit``/``transform`` and the scikit-learn protocol (through
:class:`ensel._estimator.SelectorMixin`) come from here.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import check_is_fitted
from ensel._estimator import SelectorMixin
from ensel._validation import (
    Interval,
    Shown,
    check_k,
    check_X,
    check_X_y,
    constraint_error,
    validate_params,
)

#: Declared constraints of the public functions (checked by ``validate_params``).
_K = [Interval(Integral, 1, None)]  # k <= n_models is checked against X
_ALPHA = [Interval(Real, 0, None, closed="neither")]
_XY = {"X": ["array-like"], "y": ["array-like"]}


class _BaseSelector(SelectorMixin):
    """Common ``fit``/``transform`` logic; subclasses implement ``_path``.

    The scikit-learn protocol (``get_params``, ``set_params``, ``get_support``, tags) comes
    from :class:`ensel._estimator.SelectorMixin`.
    """

    _needs_both_classes = True
    _parameter_constraints: dict[str, Any] = {"k": _K}

    def __init__(self, k: int = 3) -> None:
        self.k = k

    @validate_params(_XY)
    def fit(self, X: Any, y: Any) -> _BaseSelector:
        """Select ``k`` columns of ``X`` using labels ``y``.

        Parameters
        ----------
        X : array-like or pandas.DataFrame of shape (n_items, n_models)
            Answers in ``{-1, +1}`` (``0`` = abstained).
        y : array-like of shape (n_items,)
            Labels: any two values (``-1``/``+1``, ``0``/``1``, strings, booleans), both

            present.

        Returns
        -------
        self
            With ``selected_`` (column indices in pick order), ``gains_`` (the criterion
            of each pick at its step), ``scores_`` (criterion of every candidate at every
            step, ``NaN`` for already-selected columns; shape ``(k, n_models)``),
            ``n_features_in_`` and, for a DataFrame, ``feature_names_in_`` and
            ``selected_names_``.
        """
        return self._fit(X, y)

    def _fit(self, X: Any, y: Any) -> _BaseSelector:
        Xa, ya = self._check_fit(X, y)
        k = check_k(self.k, Xa.shape[1])
        selected, gains, scores = self._path(Xa, ya, k)
        self.selected_ = selected
        self.gains_ = np.asarray(gains, dtype=float)
        self.scores_ = scores
        self.n_features_in_ = Xa.shape[1]
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
            self.selected_names_ = [X.columns[j] for j in selected]
        return self

    def _check_fit(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """The answers and labels ``_path`` reads (the binary rule: ``{-1, 0, +1}``);
        the selectors of option labels (:mod:`ensel.select._multiclass`) override it."""
        return check_X_y(X, y, require_both_classes=self._needs_both_classes)

    def _check_transform(self, X: Any) -> np.ndarray:
        """``X`` validated as in ``fit`` (without labels)."""
        return check_X(X)

    def _path(self, Xa: np.ndarray, ya: np.ndarray,
              k: int) -> tuple[list[int], list[float], np.ndarray]:
        raise NotImplementedError

    @validate_params({"X": ["array-like"]})
    def transform(self, X: Any) -> Any:
        """Keep the selected columns (in pick order); a DataFrame stays a DataFrame."""
        check_is_fitted(self, "selected_")
        Xa = self._check_transform(X)
        if Xa.shape[1] != self.n_features_in_:
            raise constraint_error("X", f"of {self.n_features_in_} models (columns), as in fit",
                                   Shown(f"{Xa.shape[1]} models"))
        if isinstance(X, pd.DataFrame):
            return X.iloc[:, self.selected_]
        return Xa[:, self.selected_]

    @validate_params(_XY)
    def fit_transform(self, X: Any, y: Any) -> Any:
        """``fit(X, y).transform(X)``."""
        return self.fit(X, y).transform(X)
