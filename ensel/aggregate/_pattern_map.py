"""The MAP table over answer patterns, backing off to the weighted vote: K-ary.

The paper's MAP rule counts the labels of every answer pattern and predicts the most
frequent; :class:`ensel.aggregate.BackoffMAP` shrinks each pattern's counts towards a model's
probability so that rare and unseen patterns are decided by the model. This is the one
generalisation to option labels: a pattern is a row of option codes (abstention a symbol of
its own), its class counts ``n(x, c)`` are shrunk towards the posterior ``q(c | x)`` of the
log-odds weighted plurality vote (:class:`ensel.aggregate.WeightedPluralityVote`, times the
training class frequencies) with the weight of ``s`` items::

    P(c | x) = (n(x, c) + s q(c | x)) / (n(x) + s)

and ``s`` is chosen on the training data by empirical Bayes, as the binary back-off chooses
its strength: the value of ``STRENGTH_GRID`` (or ``inf``: the vote alone) that maximises the
Dirichlet-multinomial marginal likelihood of the patterns' counts. Patterns are compared
whole (any number of models and options; no pattern-code overflow).
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from ensel._validation import Interval, StrOptions, validate_params
from ensel.aggregate._multiclass import MulticlassAggregatorMixin, softmax_rows
from ensel.aggregate._stacking import STRENGTH_GRID
from ensel.aggregate._weighted_plurality import WeightedPluralityVote

__all__ = ["PatternBackoffMAP"]


def _rows(A: np.ndarray) -> np.ndarray:
    """Each row of option codes as one opaque value (byte string), for exact matching."""
    a = np.ascontiguousarray(A)
    return a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()


def _dirichlet_strength(counts: np.ndarray, q: np.ndarray) -> float:
    """The ``s`` of ``STRENGTH_GRID`` or ``inf`` maximising the Dirichlet-multinomial
    marginal likelihood of ``counts`` (patterns x classes) under ``Dir(s q)``; ties go to
    the larger strength."""
    from scipy.special import gammaln, xlogy

    q = np.clip(q, 1e-12, None)
    n = counts.sum(axis=1)
    ll = np.array([float((gammaln(s) - gammaln(s + n)).sum()
                         + (gammaln(s * q + counts) - gammaln(s * q)).sum())
                   for s in STRENGTH_GRID])
    ll_inf = float(xlogy(counts, q).sum())
    best = int(np.flatnonzero(ll >= ll.max())[-1])
    return float(STRENGTH_GRID[best]) if ll[best] > ll_inf else float("inf")


class PatternBackoffMAP(MulticlassAggregatorMixin):
    """MAP over answer patterns of option labels, backing off to the weighted vote.

    Parameters
    ----------
    strength : float or "auto", default="auto"
        Prior strength ``s`` in pseudo-items (``> 0``), or ``"auto"`` (empirical Bayes).

    Attributes
    ----------
    vote_ : WeightedPluralityVote
        The fitted back-off model (its posterior times ``class_prior_``).
    class_prior_ : numpy.ndarray of shape (n_classes,)
        Training class frequencies (add-one).
    patterns_ : numpy.ndarray
        The distinct training patterns (sorted, as opaque row values).
    counts_ : numpy.ndarray of shape (n_patterns, n_classes)
        Gold counts of each pattern.
    strength_ : float
        The strength used (``inf``: the vote alone).
    classes_ : numpy.ndarray
    n_models_ : int

    Examples
    --------
    >>> X = [["A", "B"]] * 6 + [["B", "B"]] * 4 + [["A", "A"]] * 4
    >>> y = ["B"] * 5 + ["A"] + ["B"] * 4 + ["A"] * 4
    >>> agg = PatternBackoffMAP(strength=1.0).fit(X, y)
    >>> agg.predict([["A", "B"], ["B", "A"]]).tolist()  # seen (counts) and unseen (vote)
    ['B', 'A']
    """

    _parameter_constraints: dict[str, Any] = {
        "strength": [Interval(Real, 0, None, closed="neither"), StrOptions(["auto"])]}

    def __init__(self, strength: float | str = "auto") -> None:
        self.strength = strength

    @validate_params({"X": ["array-like"], "y": ["array-like"],
                      "n_options": ["array-like", None]})
    def fit(self, X: Any, y: Any, *, n_options: Any = None) -> PatternBackoffMAP:
        """Count the gold of each answer pattern and fit the back-off vote (items without
        gold are left out; ``n_options``: each item's option count, so that the back-off
        prior of a pattern puts no mass on options its item does not have).

        Returns
        -------
        self
        """
        A, yc = self._fit_options(X, y, require_y=True)
        assert yc is not None
        mask = self.option_mask(n_options, A, yc)
        has = yc >= 0
        A, yc = A[has], yc[has]
        mask = None if mask is None else mask[has]
        K = len(self.classes_)
        self.vote_ = WeightedPluralityVote()
        self.vote_.classes_, self.vote_.n_models_ = self.classes_, self.n_models_
        self.vote_._fit_codes(A, yc)
        n = A.shape[0]
        self.class_prior_ = (np.bincount(yc, minlength=K) + 1.0) / (n + K)
        pats, inv = np.unique(_rows(A), return_inverse=True)
        self.patterns_ = pats
        self.counts_ = np.zeros((pats.size, K))
        np.add.at(self.counts_, (inv.ravel(), yc), 1.0)
        if isinstance(self.strength, str):
            first = np.zeros(pats.size, dtype=np.int64)
            first[inv.ravel()] = np.arange(n)
            self.strength_ = _dirichlet_strength(
                self.counts_, self._prior(A[first], None if mask is None else mask[first]))
        else:
            self.strength_ = float(self.strength)
        return self

    def _prior(self, A: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        S = self.vote_._scores(A) + np.log(self.class_prior_)[None, :]
        return softmax_rows(S if mask is None else np.where(mask, S, -np.inf))

    def _posterior(self, A: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        q = self._prior(A, mask)
        if np.isinf(self.strength_):
            return q
        keys = _rows(A)
        pos = np.minimum(np.searchsorted(self.patterns_, keys), self.patterns_.size - 1)
        found = self.patterns_[pos] == keys
        counts = np.where(found[:, None], self.counts_[pos], 0.0)
        if mask is not None:  # a pattern seen on items with other options: theirs only
            counts = np.where(mask, counts, 0.0)
        s = self.strength_
        return (counts + s * q) / (counts.sum(axis=1, keepdims=True) + s)

    def _scores(self, A: np.ndarray) -> np.ndarray:
        return self._posterior(A)

    def _masked_scores(self, A: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        if mask is None:
            return self._posterior(A)
        return np.where(mask, self._posterior(A, mask), -np.inf)

    @validate_params({"X": ["array-like"], "n_options": ["array-like", None]})
    def predict_proba(self, X: Any, *, n_options: Any = None) -> np.ndarray:
        """``P(c | pattern)``: the counts shrunk towards the vote; columns in ``classes_``
        (over each item's options with ``n_options``)."""
        A, _, mask = self._read(X, n_options, "predict_proba")
        return self._posterior(A, mask)
