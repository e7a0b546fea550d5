"""What the multiple-choice aggregators share: option labels in and out, ties, two kernels.

Answers are option labels (:func:`ensel._validation.check_options_X_y`): integer codes
``0..K-1`` with ``-1`` for an abstention, or strings with ``None`` / ``NaN`` / ``""``; gold
``y`` is of the same kind and may be missing for some items (or absent: the label-free
aggregators fit without it). ``classes_`` is the sorted union of the labels seen at fit.

**Each item's own options.** Items may offer different numbers of options (MMLU-Pro: 3 to
10). Every method that reads answers takes ``n_options``, the option count ``K_i`` of each
item, for answers that are the positions ``0..K_i-1`` of each item's options (the codes of
an :class:`ensel.data.OptionMatrix`, whose :attr:`~ensel.data.OptionMatrix.n_options` it
is): class ``c`` is then an option of item ``i`` iff ``c < K_i`` (:meth:`option_mask`), an
item gets no score, probability or posterior on a class it does not offer, and its ties are
among its own options. An answer or gold code at or beyond ``K_i`` is refused, naming the
item and model. Without ``n_options`` (or where every item offers every class) every item
has the one alphabet ``classes_``, and the results are those of that alphabet exactly.

Every aggregator scores each class of each item (:meth:`MulticlassAggregatorMixin._scores`,
higher is better). :meth:`~MulticlassAggregatorMixin.predict` returns the best class; a tie
among ``t`` classes (of the item's options) is broken by one stated rule, the **first tied
class in** ``classes_`` **order**, and :meth:`~MulticlassAggregatorMixin.predict_ties`
exposes the tied set so that an evaluation counts what a fair tie break would err:
:meth:`~MulticlassAggregatorMixin.tie_error` is ``1 - 1/t`` when the gold is among the ``t``
tied classes and ``1`` when it is not (``0`` for a lone right answer), as the binary
evaluations count a tie as half an error.

The two kernels are one sparse-times-dense product each over the one-hot of the answers
(:func:`answer_indicators`, built once per fit): ``option_sums`` is ``sum_j W[a_j, j]`` (the
E-step of Dawid-Skene, the weighted votes) and ``option_counts`` is ``1[A = a]^T T`` for
every ``a`` (the M-step's expected confusion counts).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ensel._errors import check_is_fitted
from ensel._estimator import EstimatorMixin
from ensel._validation import (
    NO_OPTION,
    Shown,
    check_options_X_y,
    check_sample_weight,
    constraint_error,
    validate_params,
)

__all__ = ["MulticlassAggregatorMixin", "answer_indicators", "masked_shares", "one_hot",
           "option_counts", "option_sums", "row_max", "row_sum", "softmax_rows", "tie_error"]

#: Scores within this relative distance of the best count as tied.
TIE_RTOL = 1e-12

def answer_indicators(A: np.ndarray, K: int) -> Any:
    """The one-hot of the answers as a sparse (n, m * K) matrix: column ``j * K + a`` is
    ``1[A[:, j] = a]`` (abstentions, ``-1``, have no entry). Built once per fit and read by
    :func:`option_sums` and :func:`option_counts`.

    Examples
    --------
    >>> answer_indicators(np.array([[0, 1], [1, -1]]), 2).toarray().tolist()
    [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]
    """
    import scipy.sparse as sp

    n, m = A.shape
    answered = A >= 0
    cols = (A.astype(np.int32) + (np.arange(m, dtype=np.int32) * K)[None, :])[answered]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(answered.sum(axis=1), out=indptr[1:])
    return sp.csr_matrix((np.ones(cols.size), cols, indptr), shape=(n, m * K))


def option_sums(O: Any, W: np.ndarray) -> np.ndarray:
    """``sum_j W[a_j, j, :]`` of each item: one sparse-times-dense product.

    ``O`` is :func:`answer_indicators` of the answers (or the answer codes themselves, ``-1``
    = abstained, adding nothing), ``W`` has shape (K, m, c). Returns (n, c) float64.

    Examples
    --------
    >>> A = np.array([[0, 1], [1, -1]])
    >>> W = np.arange(8.0).reshape(2, 2, 2)  # W[a, j, :]
    >>> option_sums(A, W).tolist()
    [[6.0, 8.0], [4.0, 5.0]]
    """
    K, m, c = W.shape
    if isinstance(O, np.ndarray):
        O = answer_indicators(O, K)
    return np.asarray(O @ np.ascontiguousarray(W.transpose(1, 0, 2)).reshape(m * K, c))


def option_counts(O: Any, T: np.ndarray, K: int, *, transposed: Any = None) -> np.ndarray:
    """``C[a, j, :] = sum_i 1[A[i, j] = a] T[i, :]``: weighted counts of each model's answers.

    ``O`` as in :func:`option_sums`; ``T`` (n, c) weighs the items (Dawid-Skene's class
    posteriors). ``transposed``: ``O.T.tocsr()``, when the caller counts many times over the
    same answers (EM: the transpose made once, and the same sums, item by item in order).
    Returns (K, m, c).

    Examples
    --------
    >>> A = np.array([[0, 1], [1, -1]])
    >>> option_counts(A, np.ones((2, 1)), 2)[:, :, 0].tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    if transposed is None:
        if isinstance(O, np.ndarray):
            O = answer_indicators(O, K)
        transposed = O.T
    m = transposed.shape[0] // K
    return np.asarray(transposed @ T).reshape(m, K, T.shape[1]).transpose(1, 0, 2)


def tie_error(tied: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Expected 0/1 error of a fair tie break: ``1 - 1/t`` if the gold is among the ``t``
    tied classes of an item, else ``1`` (items without gold, ``-1``, give ``NaN``).

    Examples
    --------
    >>> tied = np.array([[True, False, False], [True, True, False], [True, True, True]])
    >>> tie_error(tied, np.array([0, 1, 2])).tolist()
    [0.0, 0.5, 0.6666666666666667]
    """
    t = tied.sum(axis=1)
    has = gold >= 0
    hit = tied[np.arange(len(gold)), np.where(has, gold, 0)]
    return np.where(has, np.where(hit, 1.0 - 1.0 / t, 1.0), np.nan)


class MulticlassAggregatorMixin(EstimatorMixin):
    """A multiple-choice classifier over answers that are option labels.

    The class using it implements ``fit`` (calling :meth:`_fit_options` first) and
    ``_scores(A)`` (per-class scores of option codes, higher is better).
    """

    _estimator_type = "classifier"
    _fitted_attribute = "classes_"
    classes_: np.ndarray
    n_models_: int

    def _fit_options(self, X: Any, y: Any, *, require_y: bool = False
                     ) -> tuple[np.ndarray, np.ndarray | None]:
        """Validate ``X`` (and ``y``), set ``classes_``, ``n_models_`` and
        ``feature_names_in_``; return the option codes."""
        import pandas as pd

        A, yc, classes = check_options_X_y(X, y, require_y=require_y)
        if classes.size < 2:
            raise constraint_error(
                "X", "answers (and gold) with at least two distinct labels: an aggregator "
                "chooses among options", Shown(f"only the label {classes[0]!r}"),
                func=f"{type(self).__name__}.fit")
        if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)
        self.classes_ = classes
        self.n_models_ = A.shape[1]
        return A, yc

    def _codes(self, X: Any, method: str) -> np.ndarray:
        """``X`` after fit: fit's column names and models, labels among ``classes_``."""
        check_is_fitted(self, "classes_")
        X = self._fitted_X(X, method)  # the column-name check of every estimator
        A, _, _ = check_options_X_y(X, classes=self.classes_)
        if A.shape[1] != self.n_models_:
            raise constraint_error(
                "X", f"of {self.n_models_} columns (models), the models of fit in the same "
                "order", Shown(f"{A.shape[1]} columns"), func=f"{type(self).__name__}.{method}")
        return A

    def _scores(self, A: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @validate_params({"n_options": ["array-like", None], "A": ["array-like", None],
                      "yc": ["array-like", None], "method": ["no_validation"]})
    def option_mask(self, n_options: Any, A: np.ndarray | None = None,
                    yc: np.ndarray | None = None, *, method: str = "fit") -> np.ndarray | None:
        """Which classes each item offers: ``mask[i, c] = classes_[c] < n_options[i]``, bool
        (n_items, n_classes); ``None`` when ``n_options`` is ``None`` or every item offers
        every class (the one alphabet). ``A`` and ``yc`` (codes into ``classes_``), when
        given, are checked to lie among their item's options."""
        if n_options is None:
            return None
        func = f"{type(self).__name__}.{method}"
        k = np.asarray(n_options)
        n = len(A) if A is not None else len(k)
        if k.ndim != 1 or len(k) != n or not np.issubdtype(k.dtype, np.integer):
            raise constraint_error("n_options", f"integers, one per item ({n})",
                                   Shown(f"{k.dtype} array of shape {k.shape}"), func=func)
        if len(k) and k.min() < 2:
            i = int(np.argmin(k))
            raise constraint_error("n_options", "at least 2 options per item",
                                   Shown(f"{int(k[i])} at item {i}"), func=func)
        if self.classes_.dtype == object or not np.issubdtype(self.classes_.dtype, np.integer):
            raise constraint_error(
                "n_options", "None for option labels: it applies to answers that are the "
                "positions 0..K_i-1 of each item's options (an OptionMatrix's codes)",
                Shown(f"answers labelled {self.classes_[:3].tolist()}"), func=func)
        mask = self.classes_[None, :] < k[:, None]
        for what, codes in (("X", A), ("y", yc)):
            if codes is None:
                continue
            c2 = codes if codes.ndim == 2 else codes[:, None]
            # ~mask[i, c] for each code c of item i, read as classes_[c] >= k[i]
            bad = (c2 >= 0) & (self.classes_[np.clip(c2, 0, None)] >= k[:, None])
            if bad.any():
                i, j = (int(v) for v in np.argwhere(bad)[0])
                where = f"model (column) {j} on item (row) {i}" if what == "X" else f"item {i}"
                raise constraint_error(
                    what, "among each item's options (codes 0..n_options-1)",
                    Shown(f"the option {self.classes_[c2[i, j]].item()!r} from {where}, which has "
                          f"{int(k[i])} options"), func=func)
        return None if mask.all() else mask

    def _masked_scores(self, A: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        """:meth:`_scores` with ``-inf`` on the classes an item does not offer."""
        S = self._scores(A)
        return S if mask is None else np.where(mask, S, -np.inf)

    def _read(self, X: Any, n_options: Any, method: str, y: Any = None
              ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``X`` (and ``y``) after fit as codes, and the items' option mask."""
        if y is None:
            A, yc = self._codes(X, method), None
        else:
            A, yc, _ = check_options_X_y(self._fitted_X(X, method), y, classes=self.classes_)
        return A, yc, self.option_mask(n_options, A, yc, method=method)

    @property
    def n_features_in_(self) -> int:
        """Number of models seen in ``fit`` (scikit-learn's name for ``n_models_``)."""
        check_is_fitted(self, "n_models_")
        return int(self.__dict__["n_models_"])

    def _tied(self, scores: np.ndarray) -> np.ndarray:
        best = row_max(scores)[:, None]
        return scores >= best - TIE_RTOL * np.maximum(1.0, np.abs(best))

    @validate_params({"X": ["array-like"], "n_options": ["array-like", None]})
    def predict(self, X: Any, *, n_options: Any = None) -> np.ndarray:
        """The best class of each item; a tie goes to the first tied class of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_items, n_models_)
            Option labels (``-1`` / ``None`` / ``NaN`` / ``""`` = abstained).
        n_options : array-like of shape (n_items,), optional
            Each item's number of options (answers are then the positions ``0..K_i-1``):
            no item is given a class it does not offer.

        Returns
        -------
        numpy.ndarray of shape (n_items,)
            Labels of ``classes_``.
        """
        A, _, mask = self._read(X, n_options, "predict")
        return self.classes_[self._tied(self._masked_scores(A, mask)).argmax(axis=1)]

    @validate_params({"X": ["array-like"], "n_options": ["array-like", None]})
    def predict_ties(self, X: Any, *, n_options: Any = None) -> np.ndarray:
        """Which classes share the best score of each item: bool (n_items, n_classes),
        columns in ``classes_`` order (one ``True`` per row when there is no tie; with
        ``n_options``, only the item's own options can tie)."""
        A, _, mask = self._read(X, n_options, "predict_ties")
        return self._tied(self._masked_scores(A, mask))

    @validate_params({"X": ["array-like"], "y": ["array-like"],
                      "n_options": ["array-like", None]})
    def tie_error(self, X: Any, y: Any, *, n_options: Any = None) -> np.ndarray:
        """Each item's expected error under a fair tie break (see :func:`tie_error`):
        ``0`` right, ``1`` wrong, ``1 - 1/t`` when the gold is one of ``t`` tied classes
        (of the item's options, with ``n_options``); ``NaN`` for an item without gold."""
        A, yc, mask = self._read(X, n_options, "tie_error", y)
        assert yc is not None
        return tie_error(self._tied(self._masked_scores(A, mask)), yc)

    def score(self, X: Any, y: Any, sample_weight: Any = None, *, n_options: Any = None
              ) -> float:
        """Accuracy of :meth:`predict` on the items with gold in ``y``.

        Parameters
        ----------
        X : array-like of shape (n_items, n_models_)
        y : array-like of shape (n_items,)
            Gold labels among ``classes_`` (missing = not scored).
        sample_weight : array-like of shape (n_items,), optional
        n_options : array-like of shape (n_items,), optional
            As in :meth:`predict`.

        Returns
        -------
        float
        """
        A, yc, mask = self._read(X, n_options, "score", y)
        assert yc is not None
        w = check_sample_weight(sample_weight, len(yc), func="score")
        pred = self._tied(self._masked_scores(A, mask)).argmax(axis=1)
        has = yc != NO_OPTION
        w = has.astype(float) if w is None else w * has
        return float(np.average(pred == yc, weights=w))

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags

        tags = self._base_tags()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags(multi_class=True)
        tags.input_tags.allow_nan = True
        return tags


#: Widest rows :func:`row_max` and :func:`row_sum` reduce column by column (wider ones go
#: to numpy's row reduction, which is as fast there).
_NARROW = 16


def row_max(L: np.ndarray) -> np.ndarray:
    """``L.max(axis=1)`` of a 2-d array, the same numbers, column by column: numpy reduces
    a row of a few classes at a cost per row, and this sits in every EM iteration.

    Examples
    --------
    >>> row_max(np.array([[1.0, 3.0, 2.0], [-np.inf, -1.0, -np.inf]])).tolist()
    [3.0, -1.0]
    """
    K = L.shape[1]
    if not 2 <= K <= _NARROW:
        return L.max(axis=1)
    out = np.maximum(L[:, 0], L[:, 1])
    for c in range(2, K):
        np.maximum(out, L[:, c], out=out)
    return out


def row_sum(P: np.ndarray) -> np.ndarray:
    """``P.sum(axis=1)`` of a 2-d float64 array, bit for bit, column by column (see
    :func:`row_max`): the additions in numpy's order for a row of at most :data:`_NARROW`
    values (its pairwise sum: one after the other below 8, else 8 running sums added in
    pairs, then the rest one by one, on C-ordered rows; ``tests/test_multiclass_aggregate.py``
    compares).

    Examples
    --------
    >>> row_sum(np.arange(20.0).reshape(2, 10)).tolist()
    [45.0, 145.0]
    """
    K = P.shape[1]
    if not 2 <= K <= _NARROW or P.dtype != np.float64 or not P.flags.c_contiguous:
        return P.sum(axis=1)  # numpy's own order for another layout
    if K < 8:
        out = P[:, 0] + P[:, 1]
        for c in range(2, K):
            out += P[:, c]
        return out
    R = P[:, :8] + P[:, 8:16] if K == 16 else P[:, :8].copy()
    R = R[:, 0::2] + R[:, 1::2]
    out = (R[:, 0] + R[:, 1]) + (R[:, 2] + R[:, 3])
    for c in range(16 if K == 16 else 8, K):
        out += P[:, c]
    return out


def softmax_rows(L: np.ndarray) -> np.ndarray:
    """Row-wise ``exp(L) / sum exp(L)`` (stable); rows of ``-inf`` only are uniform."""
    return _softmax_with_sums(L)[0]


def _softmax_with_sums(L: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`softmax_rows` and the two numbers of each row it is made of: the row's largest
    value (``0`` where it is not finite) and the sum of ``exp(L - top)``, so
    ``top + log(sum)`` is the row's log-sum-exp (Dawid-Skene's EM reads both)."""
    top = row_max(L)
    top = np.where(np.isfinite(top), top, 0.0)
    P = np.subtract(L, top[:, None])
    np.exp(P, out=P)
    s = row_sum(P)
    if (s > 0).all():  # the usual case: no row of -inf only (or NaN)
        P /= s[:, None]
        return P, top, s
    return (np.where(s[:, None] > 0, P / np.where(s > 0, s, 1.0)[:, None], 1.0 / L.shape[1]),
            top, s)


def masked_shares(P: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Rows of non-negative ``P`` renormalised over each item's options (``mask``); a row
    with no mass there is uniform over them."""
    if mask is None:
        return P
    P = np.where(mask, P, 0.0)
    tot = P.sum(axis=1, keepdims=True)
    return np.where(tot > 0, P / np.where(tot > 0, tot, 1.0),
                    mask / np.maximum(mask.sum(axis=1, keepdims=True), 1))


def one_hot(codes: np.ndarray, K: int) -> np.ndarray:
    """(n, K) float indicators of codes (``-1`` -> a row of zeros)."""
    out = np.zeros((codes.shape[0], K))
    has = codes >= 0
    out[np.flatnonzero(has), codes[has]] = 1.0
    return out
