"""Plurality vote over option labels: the multiple-choice majority vote.

Each item gets the option most models chose (abstentions add nothing). A tie among ``t``
options is predicted as the first tied option of ``classes_`` and exposed by
:meth:`~ensel.aggregate._multiclass.MulticlassAggregatorMixin.predict_ties`, so an evaluation
counts ``1 - 1/t`` of an error when the gold is tied (``tie_error``). Nothing is learned:
``fit`` reads the labels (``y`` is optional) and needs no gold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ensel._validation import validate_params
from ensel.aggregate._multiclass import (
    MulticlassAggregatorMixin,
    masked_shares,
    option_sums,
)

__all__ = ["PluralityVote"]


class PluralityVote(MulticlassAggregatorMixin):
    """Plurality vote: the option chosen by the most models.

    Attributes
    ----------
    classes_ : numpy.ndarray
        The sorted labels seen in ``fit`` (answers and gold).
    n_models_ : int
        Number of columns (models) seen in ``fit``.

    Examples
    --------
    >>> X = [["A", "B", "B"], ["C", "A", None], [None, None, None]]
    >>> pv = PluralityVote().fit(X)
    >>> pv.predict(X).tolist()
    ['B', 'A', 'A']
    >>> pv.predict_ties(X).sum(axis=1).tolist()  # tied options per item
    [1, 2, 3]
    """

    _parameter_constraints: dict[str, Any] = {}

    def __init__(self) -> None:
        pass

    @validate_params({"X": ["array-like"], "y": ["array-like", None],
                      "n_options": ["array-like", None]})
    def fit(self, X: Any, y: Any = None, *, n_options: Any = None) -> PluralityVote:
        """Read the labels (``classes_`` is the union of the answers and ``y``); no gold
        needed. ``n_options``: each item's option count, checked against its answers (see
        :mod:`ensel.aggregate._multiclass`).

        Returns
        -------
        self
        """
        A, yc = self._fit_options(X, y)
        self.option_mask(n_options, A, yc)
        return self

    def _scores(self, A: np.ndarray) -> np.ndarray:
        K = len(self.classes_)
        return option_sums(A, np.broadcast_to(np.eye(K)[:, None, :], (K, A.shape[1], K)))

    @validate_params({"X": ["array-like"], "n_options": ["array-like", None]})
    def predict_proba(self, X: Any, *, n_options: Any = None) -> np.ndarray:
        """Vote shares of each class (uniform for an item no model answered, over its own
        options with ``n_options``)."""
        A, _, mask = self._read(X, n_options, "predict_proba")
        v = self._scores(A)
        if mask is not None:
            return masked_shares(v, mask)
        tot = v.sum(axis=1, keepdims=True)
        return np.where(tot > 0, v / np.where(tot > 0, tot, 1.0), 1.0 / v.shape[1])
