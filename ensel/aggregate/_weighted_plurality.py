"""Log-odds weighted plurality vote: the K-ary form of the paper's weighted vote.

Model ``j`` with accuracy ``p_j`` gets the weight ``w_j = log((K - 1) p_j / (1 - p_j))`` and
each class ``c`` the score ``sum_j w_j 1[x_j = c]``. This is the Bayes rule when each model
is right with probability ``p_j`` and otherwise picks one of the ``K - 1`` wrong options
uniformly, independently of the others, under a uniform prior (the one-coin model of
Dawid and Skene; Theorem E.1 of the paper for ``K = 2``, where the weight is
``log(p / (1 - p))``). A model at chance (``p_j = 1/K``) weighs 0; below chance its weight
is negative. :meth:`predict_proba` is the posterior of that model, the softmax of the scores.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from ensel._validation import Interval, validate_params
from ensel.aggregate._multiclass import MulticlassAggregatorMixin, option_sums, softmax_rows

__all__ = ["WeightedPluralityVote"]


def log_odds_weights(accuracy: np.ndarray, K: int, lo: float) -> np.ndarray:
    """``log((K - 1) p / (1 - p))`` of accuracies clipped to ``[lo, 1 - lo]``."""
    p = np.clip(accuracy, lo, 1.0 - lo)
    return np.log(K - 1) + np.log(p) - np.log1p(-p)


class WeightedPluralityVote(MulticlassAggregatorMixin):
    """Log-odds weighted plurality vote, fitted on gold labels.

    Accuracies are measured on the items with gold; an abstention counts as not correct.
    They are clipped as in :class:`ensel.aggregate.WeightedMajorityVote`: to
    ``[1/(n + 2), (n + 1)/(n + 2)]`` (``n`` items with gold) by default, or to
    ``[eps, 1 - eps]``.

    Parameters
    ----------
    eps : float or None, default=None

    Attributes
    ----------
    accuracies_ : numpy.ndarray of shape (n_models,)
        Raw accuracies on the items with gold.
    weights_ : numpy.ndarray of shape (n_models,)
        ``log((K - 1) p / (1 - p))`` of the clipped accuracies.
    classes_ : numpy.ndarray
    n_models_ : int

    Examples
    --------
    >>> X = [["A", "B", "B"], ["A", "A", "B"], ["B", "A", "B"], ["A", "B", "C"]]
    >>> y = ["A", "A", "B", "A"]
    >>> wv = WeightedPluralityVote().fit(X, y)
    >>> wv.accuracies_.tolist()
    [1.0, 0.25, 0.25]
    >>> wv.predict(X).tolist()
    ['A', 'A', 'B', 'A']
    """

    _parameter_constraints: dict[str, Any] = {
        "eps": [Interval(Real, 0, 0.5, closed="neither"), None]}

    def __init__(self, eps: float | None = None) -> None:
        self.eps = eps

    @validate_params({"X": ["array-like"], "y": ["array-like"],
                      "n_options": ["array-like", None]})
    def fit(self, X: Any, y: Any, *, n_options: Any = None) -> WeightedPluralityVote:
        """Measure each model's accuracy on the items with gold and its log-odds weight
        (``n_options``: each item's option count, checked against its answers and gold).

        Returns
        -------
        self
        """
        A, yc = self._fit_options(X, y, require_y=True)
        assert yc is not None
        self.option_mask(n_options, A, yc)
        return self._fit_codes(A, yc)

    def _fit_codes(self, A: np.ndarray, yc: np.ndarray) -> WeightedPluralityVote:
        """Accuracies and weights from option codes (``classes_`` set; ``-1`` = no gold)."""
        has = yc >= 0
        n = int(has.sum())
        self.accuracies_ = (A[has] == yc[has, None]).mean(axis=0, dtype=np.float64)
        lo = 1.0 / (n + 2) if self.eps is None else float(self.eps)
        self.weights_ = log_odds_weights(self.accuracies_, max(len(self.classes_), 2), lo)
        return self

    def _scores(self, A: np.ndarray) -> np.ndarray:
        K = len(self.classes_)
        W = np.eye(K)[:, None, :] * self.weights_[None, :, None]  # W[a, j, c] = w_j 1[a = c]
        return option_sums(A, W)

    @validate_params({"X": ["array-like"], "n_options": ["array-like", None]})
    def decision_function(self, X: Any, *, n_options: Any = None) -> np.ndarray:
        """Weighted votes of each class, shape (n_items, n_classes) (``-inf`` on a class an
        item does not offer, with ``n_options``)."""
        A, _, mask = self._read(X, n_options, "decision_function")
        return self._masked_scores(A, mask)

    @validate_params({"X": ["array-like"], "n_options": ["array-like", None]})
    def predict_proba(self, X: Any, *, n_options: Any = None) -> np.ndarray:
        """Posterior of the one-coin model with a uniform prior (over each item's options
        with ``n_options``): softmax of the votes."""
        A, _, mask = self._read(X, n_options, "predict_proba")
        return softmax_rows(self._masked_scores(A, mask))
