"""Top-k, Greedy MI and ScoreMI for multiple-choice answers (option labels, a K-ary label).

The binary selectors read answers in ``{-1, 0, +1}`` (right/abstained/wrong against a
``{-1, +1}`` label). These read what a model *chose*: each cell is an option label, as
:func:`ensel._validation.check_options_X_y` takes it (integer codes ``0..K-1`` with ``-1``
for an abstention, or strings with ``None``/``NaN``/``""``), and ``y`` is the gold option of
each item (missing for an item without gold). Which reading applies is said by the class, never
guessed from the values: the integer codes ``{-1, 0, 1}`` mean "wrong, abstained, right" to
:class:`~ensel.select.TopK` and "abstained, option 0, option 1" here. The registry of these
classes is :data:`ensel.select.MULTICLASS_SPECS`, beside the binary :data:`~ensel.select.SPECS`;
:func:`ensel.experiment.heldout_errors` picks it when given an :class:`ensel.data.OptionMatrix`.

Conventions:

* *Items without gold* are left out of the selection (they say nothing about accuracy or
  about ``I(Y; X_S)``); at least one item must have gold (two distinct gold options for
  Greedy MI, as the binary information selectors need both classes).
* *Alphabets.* ``classes_`` is the sorted union of the labels in ``X`` and ``y`` (the
  aggregators' convention, :mod:`ensel.aggregate._multiclass`): ``Y`` has ``K = len(classes_)``
  values and ``X_j`` has ``K``, or ``K + 1`` when column ``j`` abstains somewhere; ``X_S`` has
  the product alphabet, so for ``K = 2`` without abstentions both selectors equal the binary
  ones on the same answers. Items offering fewer options share the one alphabet (as the
  aggregators do).
* *Ties.* Top-k compares integer counts exactly; Greedy MI's gains within
  :data:`~ensel.select.TIE_TOL` of the best go to the lowest column index.
* *Speed.* Greedy MI computes each candidate's ``I(Y; (X_S, X_j))`` from counts
  (:func:`ensel.info.smoothed_mutual_information`'s kernel), the pattern code of ``X_S``
  relabelled to the observed patterns after each pick: ``O(k * m * n)`` work, without the
  binary engine's single sparse product per step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ensel._validation import (
    NO_OPTION,
    Shown,
    check_options_X_y,
    check_real,
    constraint_error,
    validate_params,
)
from ensel.info import _smoothed_mi_codes
from ensel.select._base import _XY, _BaseSelector
from ensel.select._engine import _greedy_path
from ensel.select._greedy import TopK, _InfoSelector
from ensel.select._score_mi import ScoreMI, _score_greedy, score_bins

__all__ = ["MulticlassGreedyMI", "MulticlassScoreMI", "MulticlassTopK"]


class _OptionSelector(_BaseSelector):
    """Fits on option labels: ``_path`` receives option codes of the items with gold."""

    #: Distinct gold options the criterion needs.
    _min_gold_classes = 1
    #: Not the binary contracts of ``fit`` (re-encoding two labels as -1/+1, reading 0/1
    #: answers as False/True): here every label is an option.
    _ensel_contracts = False
    classes_: np.ndarray

    @validate_params(_XY)
    def fit(self, X: Any, y: Any) -> _OptionSelector:
        """Select ``k`` columns of ``X`` using the gold options ``y``.

        Parameters
        ----------
        X : array-like or pandas.DataFrame of shape (n_items, n_models)
            Option labels: integer codes ``0..K-1`` (``-1`` = abstained) or strings
            (``None``/``NaN``/``""`` = abstained).
        y : array-like of shape (n_items,)
            Gold labels of the same kind; missing for an item without gold (left out).

        Returns
        -------
        self
            With ``selected_`` (column indices in pick order), ``gains_``, ``scores_``
            (shape ``(k, n_models)``, ``NaN`` once selected), ``classes_`` (the sorted
            option labels), ``n_features_in_`` and, for a DataFrame, ``feature_names_in_``
            and ``selected_names_``.
        """
        self._fit(X, y)
        return self

    def _check_fit(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        A, yc, classes = check_options_X_y(X, y, require_y=True)
        assert yc is not None
        has = yc != NO_OPTION
        distinct = np.unique(yc[has])
        if distinct.size < self._min_gold_classes:
            raise constraint_error(
                "y", f"gold for at least {self._min_gold_classes} distinct options (the "
                "information of the answers about the gold is 0 with a single one)",
                Shown(f"only {classes[distinct].tolist()} among the items with gold"),
                func=f"{type(self).__name__}.fit")
        self.classes_ = classes
        return A[has].astype(np.int64), yc[has].astype(np.int64)

    def _check_transform(self, X: Any) -> np.ndarray:
        A, _, _ = check_options_X_y(X, classes=self.classes_)
        return A


class MulticlassTopK(_OptionSelector):
    """Top-``k`` models by accuracy on multiple-choice answers.

    Accuracy is the share of the items with gold where the model chose the gold option (an
    abstention is wrong); ties go to the lowest column index. ``gains_`` holds the
    accuracies of the picks, ``scores_`` every model's accuracy on each row (NaN once
    selected), ``classes_`` the option labels.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.

    Examples
    --------
    >>> X = [["A", "B", "A"], ["C", "C", "C"], ["B", "B", None], ["D", "A", "D"]]
    >>> sel = MulticlassTopK(2).fit(X, ["A", "C", "B", "D"])  # model 2 abstains once
    >>> sel.selected_, [round(float(g), 2) for g in sel.gains_]
    ([0, 2], [1.0, 0.75])
    """

    _path = TopK._path


class MulticlassGreedyMI(_OptionSelector, _InfoSelector):
    """Greedy MI on multiple-choice answers: ``argmax_j I(Y; X_j | X_S)`` with a K-ary ``Y``.

    The paper's Greedy MI with the answers as they are: ``I(Y; X_j | X_S) = I(Y; (X_S, X_j))
    - I(Y; X_S)``, each term the smoothed estimator of
    :func:`ensel.info.smoothed_mutual_information` (add-``alpha``, bits) with ``Y`` of
    ``K`` values and the product alphabet of the chosen options (``K`` per model, ``K + 1``
    for a model that abstains). Two models agreeing on the same wrong option are as
    informative together as one, which the binary view (right/wrong) cannot see. ``gains_``
    holds the gain of each pick; for ``K = 2`` the picks and gains are
    :class:`~ensel.select.GreedyMI`'s on the same answers.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Pseudo-count added to every cell of the K-ary tables of ``Y``, ``X_S`` and
        ``(Y, X_S)``; with ``K`` options the smoothing weighs more than with two, so a
        pool with many options may want a smaller one.

    Examples
    --------
    >>> from ensel.pools import multiclass_pool
    >>> pool = multiclass_pool(8, 3000, n_options=4, share=0.8, random_state=0)
    >>> sel = MulticlassGreedyMI(3).fit(pool.A, pool.y)
    >>> len(sel.selected_), sel.classes_.tolist()
    (3, [0, 1, 2, 3])
    """

    _min_gold_classes = 2

    def _path(self, Xa: np.ndarray, ya: np.ndarray,
              k: int) -> tuple[list[int], list[float], np.ndarray]:
        alpha = check_real(self.alpha, "alpha", low=0, low_open=True,
                           what="the Laplace pseudo-count")
        return _greedy_path(_OptionData(Xa, ya, len(self.classes_), alpha), k, _gain_option_mi,
                            need_errors=False)


class _OptionData:
    """Option codes as the engine's greedy loop reads them (:func:`_greedy_path`)."""

    def __init__(self, A: np.ndarray, y: np.ndarray, K: int, alpha: float) -> None:
        self.n, self.m = A.shape
        self.y, self.K, self.alpha = y, K, alpha
        self.base = K + 1  # an abstention is the extra symbol K
        self.d = np.where(A < 0, K, A).T.astype(np.int64)  # (m, n) digits
        self.r = np.where((A < 0).any(axis=0), K + 1, K).astype(np.int64)  # radix per column


def _gain_option_mi(P: _OptionData, xs: Any, es: Any, cand: np.ndarray) -> np.ndarray:
    """``I(Y; (X_S, X_j)) - I(Y; X_S)`` of every candidate (smoothed, bits)."""
    before = _smoothed_mi_codes(P.y, xs.codes, P.K, xs.K, P.alpha)
    return np.array([_smoothed_mi_codes(P.y, xs.codes * P.r[j] + P.d[j], P.K,
                                        xs.K * int(P.r[j]), P.alpha) for j in cand]) - before


class MulticlassScoreMI(_OptionSelector, ScoreMI):
    """ensel's large-pool selector (:class:`~ensel.select.ScoreMI`) on multiple-choice answers.

    The binary selector conditions on the binned log-odds weighted-vote score of the chosen
    set ``S``. Its K-ary statistic is that of the weighted plurality vote
    (:class:`ensel.aggregate.WeightedPluralityVote`): each option ``c`` scores
    ``s_c = sum_{i in S} w_i 1[x_i = c]`` with ``w_i = log((K - 1) p_i / (1 - p_i))``, and
    ``T_S`` is the pair (the winning option, ties to the lowest code; the quantile bin of its
    margin over the runner-up, at most ``n_bins`` bins). The gain of candidate ``j`` is the
    plug-in ``I(Y; X_j | T_S)`` from ``#(T_S, Y, X_j)``, a table of at most ``K n_bins x K x
    (K + 1)`` cells whatever ``|S|``; the test that lets a pick depart from the accuracy order
    and the fallback are :class:`~ensel.select.ScoreMI`'s, with ``cells x (K - 1) x (|X_j| -
    1)`` degrees of freedom. With one model picked ``T_S`` is its answer (and whether it
    answered), so the second pick maximises the plug-in ``I(Y; X_j | X_{j1})`` unless the
    accuracy order wins the test.

    Not measured beyond the tests yet: the binary selector's defaults (``n_bins = 16``,
    ``level = 0.01``) are kept, and whether it beats Top-k on large multiple-choice pools as
    the binary one does is the book's question (issue 39).

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    n_bins : int, default=16
        Largest number of quantile bins of the winning margin (``>= 2``).
    level : float, default=0.01
        Family-wise level of the test a departure from the accuracy order must pass.

    Examples
    --------
    >>> from ensel.pools import multiclass_pool
    >>> pool = multiclass_pool(30, 3000, n_options=4, share=0.8, random_state=0)
    >>> sel = MulticlassScoreMI(4).fit(pool.A, pool.y)
    >>> len(sel.selected_), len(sel.fallback_), sel.weights_.shape
    (4, 4, (30,))
    """

    _min_gold_classes = 2

    def _path(self, Xa: np.ndarray, ya: np.ndarray,
              k: int) -> tuple[list[int], list[float], np.ndarray]:
        import scipy.sparse as sp

        from ensel.aggregate._multiclass import answer_indicators
        from ensel.aggregate._weighted_plurality import log_odds_weights

        n_bins = int(self.n_bins)  # checked by fit
        n, m = Xa.shape
        K = len(self.classes_)
        correct = (Xa == ya[:, None]).sum(axis=0)
        w = log_odds_weights(correct / n, K, 1.0 / (n + 2))  # WeightedPluralityVote's
        O = answer_indicators(Xa, K).astype(np.float32 if n < (1 << 24) else np.float64)
        answered = (Xa >= 0).sum(axis=0)
        abstains = bool((answered < n).any())
        S = np.zeros((n, K))  # the options' weighted votes of the chosen set
        rows = np.arange(n)

        def counts(t: int) -> np.ndarray:
            if t:
                win = np.argmax(S, axis=1)  # ties -> the lowest code
                part = np.sort(S, axis=1)
                margin = part[:, -1] - part[:, -2]
                cell = win * n_bins + score_bins(margin, n_bins)
                _, cell = np.unique(cell, return_inverse=True)
                cell = cell.reshape(-1)
            else:
                cell = np.zeros(n, dtype=np.int64)
            G = int(cell.max()) + 1
            groups = cell * K + ya
            M = sp.csc_matrix((np.ones(n, dtype=O.dtype), groups, np.arange(n + 1)),
                              shape=(G * K, n))
            c = np.asarray((M @ O).toarray(), dtype=float).reshape(G, K, m, K)  # #(T, Y, j, x)
            if abstains:
                total = np.bincount(groups, minlength=G * K).astype(float).reshape(G, K)
                c = np.concatenate([c, (total[:, :, None] - c.sum(axis=3))[..., None]], axis=3)
            return c.transpose(2, 0, 1, 3)  # (m, G, K[y], K or K + 1[x])

        def add(j: int) -> None:
            has = Xa[:, j] >= 0
            S[rows[has], Xa[has, j]] += w[j]

        self.weights_ = w
        return _score_greedy(self, k, correct, n, counts, add)
