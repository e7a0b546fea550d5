"""Aggregation rules of the paper (Appendix "Implementation Details").

* :class:`MAPAggregator` -- plug-in MAP over answer patterns with add-``alpha`` counts
  (Algorithm "The MAP Aggregation"; ties -> ``+1``);
* :class:`MajorityVote` -- sign of the vote sum, ties broken by a fair coin of the fitted
  seed and the row's answers (Algorithm "Majority Voting");
* :class:`WeightedMajorityVote` -- sign of the log-odds weighted vote
  ``sum_j log(p_j / (1 - p_j)) x_j`` (Algorithm "W-MV", optimal under independence,
  Theorem E.1).

All three are scikit-learn binary classifiers (:class:`ensel._estimator.AggregatorMixin`:
``get_params``, ``set_params``, ``score``, ``classes_``, tags): ``fit(X, y)`` returns
``self``, fitted attributes end in ``_``, ``predict(X)`` returns labels in ``{-1, +1}``
(``int8``).
Answers ``X`` are ``{-1, +1}`` with ``0`` for an abstention (see :mod:`ensel._validation`).
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from ensel._errors import check_is_fitted
from ensel._estimator import AggregatorMixin
from ensel._kernels import label_bits, row_coins
from ensel._validation import (
    Interval,
    Shown,
    check_random_state,
    check_X,
    check_X_y,
    constraint_error,
    validate_params,
)
from ensel.info import pattern_codes

__all__ = ["MAPAggregator", "MajorityVote", "WeightedMajorityVote"]

#: Largest pattern alphabet stored as a dense ``(size, 2)`` count table; beyond it only the
#: observed patterns are stored (``patterns_``).
DENSE_MAX_PATTERNS = 2**22
#: Largest number of dense table rows per training item: a larger table is mostly empty
#: (20 models on 16,000 items: 16 MB for at most 16,000 patterns), so only the observed
#: patterns are stored; the predictions are the same either way.
DENSE_ROWS_PER_ITEM = 8


def _check_n_models(estimator: Any, Xa: np.ndarray) -> None:
    check_is_fitted(estimator, "n_models_")
    if Xa.shape[1] != estimator.n_models_:
        raise constraint_error(
            "X", f"of {estimator.n_models_} columns (models), the selected models of fit in the "
            "same order", Shown(f"{Xa.shape[1]} columns"))


class MAPAggregator(AggregatorMixin):
    """Plug-in MAP aggregation over answer patterns (the paper's Algorithm MAP).

    For every answer pattern ``x_S`` seen in training, count the items with ``Y = +1``
    and ``Y = -1``, add ``alpha`` to both (Laplace smoothing for ``alpha = 1``), and predict
    the label with the larger smoothed count; ties (including unseen patterns) -> ``+1``.
    No conditional-independence assumption: this is the MAP rule for the (smoothed)
    empirical joint law of answers and label. The counts include the class frequencies, so
    the prior is the empirical one (uniform for the paper's balanced labels).

    Patterns are coded as in the paper, ``idx(x) = sum_j (x_j + 1)/2 * 2^(j-1)`` (column
    ``j`` is bit ``j - 1``), via :func:`ensel.info.pattern_codes`. If the training answers
    contain abstentions (``0``), ``0`` is a third symbol and patterns are base-3 numbers
    (digits ``-1 -> 0, +1 -> 1, 0 -> 2``). If training had no abstentions, a test row with
    an abstention is a pattern never seen in training: it gets counts ``(alpha, alpha)``,
    i.e. probability 1/2 and the tie answer ``+1`` -- exactly what a base-3 table would give.

    Parameters
    ----------
    alpha : float, default=1.0
        Pseudo-count added to each class count of each pattern (``>= 0``). With
        ``alpha = 0`` an unseen pattern has no counts; it predicts ``+1`` with probability 1/2.

    Attributes
    ----------
    counts_ : numpy.ndarray of shape (size, 2), dtype int64
        Raw training counts per pattern, column 0 for ``y = -1`` and column 1 for
        ``y = +1`` (smoothing is added at prediction time). When the alphabet is larger
        than ``DENSE_MAX_PATTERNS`` or than ``DENSE_ROWS_PER_ITEM`` rows per training item
        (at least 16 items counted) only observed patterns are stored: row ``r`` belongs to
        pattern code ``patterns_[r]``.
    patterns_ : numpy.ndarray of shape (n_observed,) or None
        Sorted observed pattern codes in the sparse case, ``None`` for a dense table.
    base_ : int
        2, or 3 when the training answers contain abstentions.
    size_ : int
        Alphabet size ``base_ ** n_models_``.
    n_models_ : int
        Number of columns (models) seen in ``fit``.
    classes_ : numpy.ndarray, ``[-1, 1]``
        Column order of :meth:`predict_proba`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1], [1, -1], [-1, -1], [1, -1]])
    >>> y = np.array([1, 1, -1, -1])
    >>> MAPAggregator().fit(X, y).predict(X).tolist()
    [1, 1, -1, 1]
    """

    _parameter_constraints: dict[str, Any] = {"alpha": [Interval(Real, 0, None)]}

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    @validate_params({"X": ["array-like"], "y": ["array-like"]})
    def fit(self, X: Any, y: Any) -> MAPAggregator:
        """Count labels per answer pattern.

        Parameters
        ----------
        X : array-like of shape (n_items, k)
            Answers of the selected models (``{-1, 0, +1}``).
        y : array-like of shape (n_items,)
            Labels: any two values (``-1``/``+1``, ``0``/``1``, strings, booleans), both

            present; they become ``classes_``, which :meth:`predict` returns.

        Returns
        -------
        self
        """
        Xa, ya = check_X_y(X, y, require_both_classes=True)
        base = 3 if bool((Xa == 0).any()) else 2
        codes, size = pattern_codes(Xa, base=base)
        return self._fit_codes(codes, size, base, ya, Xa.shape[1])

    def _fit_codes(self, codes: np.ndarray, size: int, base: int, ya: np.ndarray,
                   n_models: int) -> MAPAggregator:
        """:meth:`fit` from the checked answers' pattern codes (:func:`ensel.info.pattern_codes`
        in ``base``, 3 exactly when they hold an abstention) and checked labels ``ya``."""
        lab = label_bits(ya)  # -1 -> 0, +1 -> 1
        if size <= DENSE_MAX_PATTERNS and size <= DENSE_ROWS_PER_ITEM * max(len(ya), 16):
            self.counts_ = np.bincount(codes * 2 + lab, minlength=2 * size).reshape(size, 2)
            self.patterns_ = None
        else:
            pats, inv = np.unique(codes, return_inverse=True)
            self.counts_ = np.bincount(inv * 2 + lab, minlength=2 * pats.size).reshape(-1, 2)
            self.patterns_ = pats
        self.base_ = base
        self.size_ = size
        self.n_models_ = n_models
        self.classes_ = np.array([-1, 1], dtype=np.int8)
        return self

    def _smoothed_counts(self, X: Any) -> np.ndarray:
        """Smoothed ``(C^-, C^+)`` of each row's pattern, shape (n, 2) float."""
        alpha = float(self.alpha)
        Xa = check_X(X)
        _check_n_models(self, Xa)
        unseen = np.zeros(Xa.shape[0], dtype=bool)
        if self.base_ == 2:
            unseen = (Xa == 0).any(axis=1)
            if unseen.any():
                Xa = Xa.copy()
                Xa[unseen] = 1
        codes, _ = pattern_codes(Xa, base=self.base_)
        if self.patterns_ is None:
            counts = self.counts_[codes].astype(np.float64)
        else:
            pos = np.searchsorted(self.patterns_, codes)
            pos_c = np.minimum(pos, self.patterns_.size - 1)
            found = self.patterns_[pos_c] == codes
            counts = np.where(found[:, None], self.counts_[pos_c], 0).astype(np.float64)
        if unseen.any():
            counts[unseen] = 0.0
        return counts + alpha

    @validate_params({"X": ["array-like"]})
    def predict(self, X: Any) -> np.ndarray:
        """MAP label of each row: ``+1`` if ``C^+ >= C^-`` (ties -> ``+1``), else ``-1``.

        Parameters
        ----------
        X : array-like of shape (n_items, n_models_)

        Returns
        -------
        numpy.ndarray of shape (n_items,), dtype int8
        """
        c = self._smoothed_counts(X)
        return np.where(c[:, 1] >= c[:, 0], 1, -1).astype(np.int8)

    @validate_params({"X": ["array-like"]})
    def predict_proba(self, X: Any) -> np.ndarray:
        """Smoothed posterior ``P(Y = y | pattern)``; columns follow ``classes_ = [-1, +1]``.

        ``P(Y=+1 | x) = (n_+(x) + alpha) / (n_+(x) + n_-(x) + 2 alpha)``; a pattern without any
        (smoothed) count gets ``[0.5, 0.5]``. :meth:`predict` is ``+1`` exactly when the second
        column is ``>= 0.5``.

        Returns
        -------
        numpy.ndarray of shape (n_items, 2)
        """
        c = self._smoothed_counts(X)
        tot = c.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(tot > 0, c / np.where(tot > 0, tot, 1.0), 0.5)
        return p


class MajorityVote(AggregatorMixin):
    """Majority vote (the paper's Algorithm MV).

    Predict the sign of ``V = sum_j x_j``; abstentions (``0``) add nothing. A tie
    ``V = 0`` -- possible for an even number of models, or when abstentions leave an even
    number of votes, including all models abstaining -- is broken by a fair coin, as the
    paper's "ties are broken randomly".

    The coin of a tied row is a function of the fitted seed ``tie_seed_`` and of the row's
    answers only (:func:`ensel._kernels.row_coins`), not of a generator advanced through the
    batch. So a row predicted alone gets the label it gets in any batch, permuting the rows
    permutes the predictions, and refitting with the same int ``random_state`` gives the same
    labels. What this means: under one seed, identical answer patterns get the same coin
    (tied items with the same answers are all ``+1`` or all ``-1``), while different patterns
    get independent-looking coins; over seeds every row's coin is fair. An evaluation does
    not use the coin: :func:`ensel.aggregate.heldout_error` counts a tied row (``V = 0``,
    :meth:`decision_function`) as half an error, the coin's expectation, since one coin per
    pattern sends every tie of a small ensemble the same way and inflates the spread of the
    error over splits.

    Parameters
    ----------
    random_state : int, numpy.random.Generator or None, default=None
        Source of ``tie_seed_``, drawn once in :meth:`fit`: an int gives the same seed at
        every fit, a Generator is advanced by one draw per fit, ``None`` draws fresh entropy
        per fit (predictions stay deterministic per row within one fitted estimator).

    Attributes
    ----------
    tie_seed_ : int
        The seed of the tie coins, in ``[0, 2**64)``.
    n_models_ : int
        Number of columns seen in ``fit``.
    classes_ : numpy.ndarray, ``[-1, 1]``
        The labels (scikit-learn's classifier convention).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, -1], [-1, -1, 1]])
    >>> MajorityVote(random_state=0).fit(X, [1, -1]).predict(X).tolist()
    [1, -1]
    >>> Xt = np.array([[1, -1], [-1, 1], [1, -1]])  # ties; rows 0 and 2 are one pattern
    >>> mv = MajorityVote(random_state=0).fit(Xt, [1, -1, 1])
    >>> pred = mv.predict(Xt)
    >>> bool(pred[0] == pred[2] == mv.predict(Xt[2:])[0])
    True
    """

    _parameter_constraints: dict[str, Any] = {"random_state": ["random_state", None]}

    def __init__(self, random_state: int | np.random.Generator | None = None) -> None:
        self.random_state = random_state

    @validate_params({"X": ["array-like"], "y": ["array-like", None]})
    def fit(self, X: Any, y: Any = None) -> MajorityVote:
        """Validate the inputs, record ``n_models_`` and draw ``tie_seed_`` (nothing is
        learned from the answers)."""
        if y is None:
            Xa = check_X(X)
        else:
            Xa, _ = check_X_y(X, y)
        rng = check_random_state(self.random_state)
        self.tie_seed_ = int(rng.integers(0, 2**64, dtype=np.uint64))
        self.n_models_ = Xa.shape[1]
        self.classes_ = np.array([-1, 1], dtype=np.int8)
        return self

    @validate_params({"X": ["array-like"]})
    def decision_function(self, X: Any) -> np.ndarray:
        """Vote sum ``V = sum_j x_j`` of each row (``int64``)."""
        Xa = check_X(X)
        _check_n_models(self, Xa)
        return Xa.sum(axis=1, dtype=np.int64)

    @validate_params({"X": ["array-like"]})
    def predict(self, X: Any) -> np.ndarray:
        """``sign(V)``; a tied row gets its coin of ``(tie_seed_, row)``; ``int8`` in
        ``{-1, +1}``."""
        Xa = check_X(X)
        _check_n_models(self, Xa)
        v = Xa.sum(axis=1, dtype=np.int64)
        out = np.sign(v).astype(np.int8)
        ties = np.flatnonzero(v == 0)
        if ties.size:
            out[ties] = np.where(row_coins(Xa, self.tie_seed_, rows=ties), 1, -1)
        return out


class WeightedMajorityVote(AggregatorMixin):
    """Log-odds weighted majority vote (the paper's Algorithm W-MV, Theorem E.1).

    ``w_j = log(p_j / (1 - p_j))`` with ``p_j`` model ``j``'s training accuracy
    ``P(X_j = Y)``; an abstention is *not correct* (it counts in the denominator, not the
    numerator). Prediction: ``sign(sum_j w_j x_j)`` with abstentions adding nothing and an
    exact tie (sum ``== 0``, e.g. all weights 0 or all models abstaining) -> ``+1``, as in
    Algorithm MAP. A model below 50 % accuracy gets a negative weight (its vote is flipped),
    which is what Theorem E.1 prescribes.

    Accuracies of exactly 0 or 1 would give infinite weights, so ``p_j`` is clipped:

    * ``eps=None`` (default): to ``[1 / (n + 2), (n + 1) / (n + 2)]`` with ``n`` the number of
      training items -- the Laplace (add-one) estimate of a model that was always right
      (or always wrong); accuracies strictly inside are used as they are, as in the paper;
    * ``eps`` a float in ``(0, 0.5)``: to ``[eps, 1 - eps]``.

    Parameters
    ----------
    eps : float or None, default=None

    Attributes
    ----------
    accuracies_ : numpy.ndarray of shape (n_models,)
        Raw training accuracies (before clipping).
    weights_ : numpy.ndarray of shape (n_models,)
        Finite log-odds weights of the clipped accuracies.
    n_models_ : int
    classes_ : numpy.ndarray, ``[-1, 1]``
        The labels (scikit-learn's classifier convention).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, -1, -1], [1, 1, -1], [-1, -1, 1], [-1, 1, 1]])
    >>> y = np.array([1, 1, -1, -1])
    >>> wmv = WeightedMajorityVote().fit(X, y)
    >>> wmv.predict(X).tolist()
    [1, 1, -1, -1]
    """

    _parameter_constraints: dict[str, Any] = {
        "eps": [Interval(Real, 0, 0.5, closed="neither"), None]}

    def __init__(self, eps: float | None = None) -> None:
        self.eps = eps

    @validate_params({"X": ["array-like"], "y": ["array-like"]})
    def fit(self, X: Any, y: Any) -> WeightedMajorityVote:
        """Estimate accuracies and log-odds weights; both classes must be present in ``y``."""
        Xa, ya = check_X_y(X, y, require_both_classes=True)
        n = Xa.shape[0]
        acc = (Xa == ya[:, None]).mean(axis=0, dtype=np.float64)
        lo = 1.0 / (n + 2) if self.eps is None else float(self.eps)
        p = np.clip(acc, lo, 1.0 - lo)
        self.accuracies_ = acc
        self.weights_ = np.log(p) - np.log1p(-p)
        self.n_models_ = Xa.shape[1]
        self.classes_ = np.array([-1, 1], dtype=np.int8)
        return self

    @validate_params({"X": ["array-like"]})
    def decision_function(self, X: Any) -> np.ndarray:
        """Weighted vote ``V = sum_j w_j x_j`` of each row."""
        Xa = check_X(X)
        _check_n_models(self, Xa)
        return Xa.astype(np.float64) @ self.weights_

    @validate_params({"X": ["array-like"]})
    def predict(self, X: Any) -> np.ndarray:
        """``sign(V)`` with ``V == 0`` -> ``+1``; ``int8`` in ``{-1, +1}``."""
        v = self.decision_function(X)
        return np.where(v >= 0, 1, -1).astype(np.int8)
