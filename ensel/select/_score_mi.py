"""Greedy selection on the binned weighted-vote score: ensel's selector for large pools.

The paper's Greedy MI (:class:`ensel.select.GreedyMI`) estimates ``I(Y; X_j | X_S)`` from
add-one counts over the ``2^|S|`` answer patterns of the chosen set ``S``. With ``n``
training items the table has ``2^|S|`` cells, so from ``|S|`` around ``log2(n) - 3`` most
patterns are seen once or never, the smoothing mass dominates and the estimated gains turn
negative or meaningless (``notebooks/large_pools.py`` measures it against the exact gain
of Gaussian-copula laws). :class:`ScoreMI` keeps the greedy conditional-information idea
and replaces the pattern of ``S`` by a **one-dimensional statistic** of it:

* the **log-odds weighted-vote score** ``s_S(x) = sum_{i in S} w_i x_i`` with
  ``w_i = log(p_i / (1 - p_i))`` and ``p_i`` the training accuracy (the statistic of
  :class:`ensel.aggregate.WeightedMajorityVote`; sufficient for ``Y`` given ``X_S`` when the
  errors are independent given the label, Theorem E.1), cut into at most ``n_bins``
  quantile bins ``T_S``;
* the gain of candidate ``j`` is the plug-in ``I(Y; X_j | T_S)`` in bits from the counts
  ``#(T_S, Y, X_j)``: a table of ``n_bins x 2 x 2`` cells (``x 3`` with abstentions) whatever
  ``|S|``, so its bias stays of order ``n_bins / (2 n ln 2)`` bits and is the same for every
  candidate;
* the **accuracy order is the default** and a departure from it needs evidence:
  ``2 n ln(2) I`` is the G-statistic of the independence of ``Y`` and ``X_j`` within the bins
  (chi-square with one degree of freedom per non-empty bin for binary answers), and the
  candidate with the largest gain is picked only when its statistic exceeds the most
  accurate remaining model's by the ``1 - level / n_candidates`` quantile (Bonferroni over
  candidates); otherwise the pick is the most accurate remaining model, as Top-k would pick
  (``fallback_`` marks these steps; a step whose most accurate model also has the largest
  gain picks it and is a fallback only when that gain itself is below the quantile).

With one or two models picked the bins are the exact score values, i.e. the exact answer
patterns, so the first picks coincide with Greedy MI's; later the statistic stays estimable.
The defaults ``n_bins = 16`` and ``level = 0.01`` were set once, not tuned on the page's data.

Why this design (measured, see ``notebooks/large_pools.py``): on seeded family-structured
copula pools of 50, 300 and 1,000 models (3,000-5,000 items, budgets 2-20) and on the
paper-calibrated stand-ins, we compared four selectors with three aggregators: Top-k,
Greedy MI, this selector, and forward stepwise logistic regression with score tests.
Greedy MI's picks degrade from ``|S|`` about 8 on (picks of 55 % models, held-out errors up
to 0.30 with MAP at k = 20 where Top-k with the weighted vote errs below 0.01); the
score-test forward selection was worse than this selector at middle budgets; this selector
matched or beat Greedy MI on the stand-ins and was within noise of or better than Top-k
everywhere, with a large gain on the 300-model pools (k = 5-10). A first version departed
from the accuracy order whenever the best gain alone passed the test; on the 300-model pool
at k = 4 its picks then erred more than Top-k's with any aggregator (0.043 against 0.041 with
logistic stacking): a supported gain is not a gain *over the most accurate model*. Requiring
the margin over the accuracy order's own gain brought k = 4 to 0.041 (Top-k + MAP 0.042)
and kept the large-budget gains (the page has the full table).

Speed: one step counts ``#(bin, Y, X_j = +1)`` for all candidates with one sparse (one-hot of
``2 bin + y``) times dense (0/1 answers) product, a single pass over the ``n x m`` answers;
``benchmarks/bench_scalable.py`` times it against :func:`ensel.select.greedy_mi`.

Examples
--------
>>> from ensel.copula import sample
>>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
>>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
>>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
>>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
>>> score_mi(X, y, 2)
[0, 2]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._kernels import group_sums
from ensel._validation import Interval
from ensel.aggregate import WeightedMajorityVote
from ensel.select._base import _BaseSelector
from ensel.select._engine import TIE_TOL

__all__ = ["ScoreMI", "score_mi", "score_bins"]

_LN2 = math.log(2.0)


def score_bins(score: np.ndarray, n_bins: int) -> np.ndarray:
    """Codes ``0..G-1`` of at most ``n_bins`` quantile bins of ``score`` (``G`` = bins used).

    When the score takes at most ``n_bins`` distinct values each value is its own bin (no
    information is lost); otherwise the cut points are the ``i / n_bins`` quantiles, merged
    where they coincide. The result depends only on the multiset of scores (ties share a bin).

    Examples
    --------
    >>> import numpy as np
    >>> score_bins(np.array([0.5, -0.5, 0.5, 2.0]), 4).tolist()
    [1, 0, 1, 2]
    >>> score_bins(np.arange(8.0), 2).tolist()
    [0, 0, 0, 0, 1, 1, 1, 1]
    """
    # what np.unique(score, return_inverse=True) gives, from one sort (no argsort): the
    # rank of each value among the distinct ones; ``used``: the bins holding a score
    ordered = np.sort(score)
    distinct = np.empty(ordered.size, dtype=bool)
    distinct[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=distinct[1:])
    if int(distinct.sum()) <= n_bins:
        return np.searchsorted(ordered[distinct], score).astype(np.int64)
    cuts = np.unique(np.quantile(score, np.arange(1, n_bins) / n_bins))
    raw = np.searchsorted(cuts, score, side="right")
    used = np.bincount(raw, minlength=cuts.size + 1) > 0
    return (np.cumsum(used) - 1)[raw].astype(np.int64)


def _plugin_cmi_bits(c: np.ndarray) -> np.ndarray:
    """Plug-in ``I(Y; X | T)`` in bits per candidate from counts ``c[cand, t, y, x]``.

    For binary labels and at most three answer values (up to six cells per bin, fewer
    than numpy's eight-way pairwise blocks) the marginals add the cells one at a time in
    their memory order and each entropy sums a candidate's terms as one contiguous run:
    numpy's sums over the small trailing axes make these additions in this order (bit for
    bit), but with a loop per cell."""
    N = float(c[0].sum())
    p = c / N
    if p.shape[2] != 2 or p.shape[3] not in (2, 3):
        return _plugin_cmi_bits_general(p)

    def ent(q: np.ndarray) -> np.ndarray:  # -sum q log2 q over all but the first axis
        q = q.reshape(q.shape[0], -1)
        terms = np.zeros(q.shape)
        np.log2(q, out=terms, where=q > 0)
        terms *= q  # 0 where q = 0
        return -terms.sum(axis=1)

    r = p.shape[3]
    p_ty = p[..., 0]
    for v in range(1, r):
        p_ty = p_ty + p[..., v]
    p_tx = p[:, :, 0] + p[:, :, 1]
    p_t = p[:, :, 0, 0]
    for y, v in np.ndindex(2, r):
        if y or v:
            p_t = p_t + p[:, :, y, v]
    return np.maximum(ent(p_ty) + ent(p_tx) - ent(p) - ent(p_t), 0.0)


def _plugin_cmi_bits_general(p: np.ndarray) -> np.ndarray:
    """:func:`_plugin_cmi_bits` from the probabilities ``p = c / N``, any alphabet sizes."""
    def ent(q: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return -np.where(q > 0, q * np.log2(np.where(q > 0, q, 1.0)), 0.0).sum(axis=axes)

    h_t = ent(p.sum(axis=(2, 3)), (1,))
    h_ty = ent(p.sum(axis=3), (1, 2))
    h_tx = ent(p.sum(axis=2), (1, 2))
    h_txy = ent(p, (1, 2, 3))
    return np.maximum(h_ty + h_tx - h_txy - h_t, 0.0)


class ScoreMI(_BaseSelector):
    """Greedy ``argmax_j I(Y; X_j | T_S)`` with ``T_S`` the binned weighted-vote score of ``S``.

    See the module text for the estimator, the fallback rule and the measurements behind
    the choice. The selection is nested (its first ``k`` picks at a larger budget are its
    size-``k`` choice), deterministic, and ties (within ``TIE_TOL`` bits) go to the lowest
    column index; the fallback takes the most accurate remaining model (ties -> lowest index).

    Parameters
    ----------
    k : int
        Budget, ``1 <= k <= n_models``.
    n_bins : int, default=16
        Largest number of quantile bins of the score (``>= 2``).
    level : float, default=0.01
        Family-wise level of the test a departure from the accuracy order must pass, in
        ``(0, 1)``; the per-candidate level is ``level / n_candidates``.

    Attributes
    ----------
    selected_ : list of int
        Column indices in pick order.
    gains_ : numpy.ndarray of shape (k,)
        Estimated ``I(Y; X_j | T_S)`` (bits) of each pick at its step (for a fallback pick,
        its own, unsupported, estimate).
    scores_ : numpy.ndarray of shape (k, n_models)
        The estimate of every candidate at every step (``NaN`` once selected).
    thresholds_ : numpy.ndarray of shape (k,)
        The margin (bits) by which a candidate's gain had to exceed the most accurate
        remaining model's at each step.
    fallback_ : list of bool
        Whether each pick came from the accuracy order for want of a supported gain
        beyond it.
    weights_ : numpy.ndarray of shape (n_models,)
        Log-odds weights of the training accuracies, the weights of the score.
    n_features_in_ : int

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> sel = ScoreMI(3).fit(X, y)
    >>> sel.selected_, sel.fallback_
    ([0, 2, 1], [False, False, False])
    >>> [round(float(g), 3) for g in sel.gains_]
    [0.279, 0.121, 0.022]
    """

    _parameter_constraints: dict[str, Any] = {
        "k": [Interval(Integral, 1, None)],
        "n_bins": [Interval(Integral, 2, None)],
        "level": [Interval(Real, 0, 1, closed="neither")],  # family-wise level of the no-gain test
    }

    def __init__(self, k: int = 3, n_bins: int = 16, level: float = 0.01) -> None:
        self.k = k
        self.n_bins = n_bins
        self.level = level

    def _path(self, Xa: np.ndarray, ya: np.ndarray,
              k: int) -> tuple[list[int], list[float], np.ndarray]:
        n_bins = int(self.n_bins)  # checked by fit
        n, m = Xa.shape
        ftype = np.float32 if n < (1 << 24) else np.float64  # exact 0/1 sums below 2**24
        B1 = np.ascontiguousarray(Xa == 1, dtype=ftype)
        abstains = bool((Xa == 0).any())
        B2 = np.ascontiguousarray(Xa == 0, dtype=ftype) if abstains else None
        yb = (ya.astype(np.int64) + 1) // 2
        w = WeightedMajorityVote().fit(Xa, ya).weights_
        score = np.zeros(n)

        def counts(t: int) -> np.ndarray:
            bins = score_bins(score, n_bins) if t else np.zeros(n, dtype=np.int64)
            G = int(bins.max()) + 1
            groups = bins * 2 + yb
            total = np.bincount(groups, minlength=2 * G).astype(float)
            c1 = np.asarray(group_sums(groups, 2 * G, B1), dtype=float)  # #(bin, y, X_j = +1)
            parts = [c1]
            if B2 is not None:
                parts.append(np.asarray(group_sums(groups, 2 * G, B2), dtype=float))
            c0 = total[:, None] - sum(parts)
            cnt = np.stack([c0, *parts], axis=-1)  # (2G, m, r)
            return cnt.reshape(G, 2, m, -1).transpose(2, 0, 1, 3)  # (m, G, 2, r)

        def add(j: int) -> None:
            nonlocal score
            score = score + w[j] * Xa[:, j]

        self.weights_ = w
        return _score_greedy(self, k, (Xa == ya[:, None]).sum(axis=0), n, counts, add)


def _score_greedy(sel: Any, k: int, correct: np.ndarray, n: int,
                  counts: Callable[[int], np.ndarray], add: Callable[[int], None]
                  ) -> tuple[list[int], list[float], np.ndarray]:
    """The greedy loop of :class:`ScoreMI` (and its K-ary form): ``counts(t)`` gives the counts
    ``c[j, t, y, x]`` of every model under the current statistic, ``add(j)`` adds a pick to it;
    the gain, the test and the fallback to the accuracy order are the module's. Sets
    ``sel.thresholds_`` and ``sel.fallback_``."""
    from scipy.special import chdtri

    level = float(sel.level)  # checked by fit
    m = correct.size
    remaining = np.ones(m, dtype=bool)
    selected: list[int] = []
    gains: list[float] = []
    thresholds: list[float] = []
    fallback: list[bool] = []
    scores = np.full((k, m), np.nan)
    for t in range(k):
        cnt = counts(t)
        cand = np.flatnonzero(remaining)
        gain = _plugin_cmi_bits(cnt[cand])
        scores[t, cand] = gain
        df = cnt.shape[1] * (cnt.shape[2] - 1) * (cnt.shape[3] - 1)  # cells x (|Y|-1)(|X_j|-1)
        need = float(chdtri(df, level / cand.size)) / (2.0 * n * _LN2)
        best = float(gain.max())
        top = correct[cand].max()
        acc_pos = int(np.flatnonzero(correct[cand] == top)[0])  # the accuracy order's pick
        if gain[acc_pos] >= best - TIE_TOL:  # the accuracy order's pick has the top gain
            pos, fell = acc_pos, best < need
        elif best - float(gain[acc_pos]) >= need:  # a gain beyond the accuracy order's
            pos, fell = int(np.flatnonzero(gain >= best - TIE_TOL)[0]), False
        else:  # no supported advantage: the most accurate remaining model
            pos, fell = acc_pos, True
        j = int(cand[pos])
        selected.append(j)
        gains.append(float(gain[pos]))
        thresholds.append(need)
        fallback.append(fell)
        remaining[j] = False
        add(j)
    sel.thresholds_ = np.asarray(thresholds)
    sel.fallback_ = fallback
    return selected, gains, scores


def score_mi(X: Any, y: Any, k: int, *, n_bins: int = 16, level: float = 0.01) -> list[int]:
    """Greedy selection on the binned weighted-vote score, in pick order. See :class:`ScoreMI`.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
        Answers in ``{-1, +1}`` (``0`` = abstained).
    y : array-like of shape (n_items,)
        Labels in ``{-1, +1}``; both classes must be present.
    k : int
        Budget, ``1 <= k <= n_models``.
    n_bins : int, default=16
        Largest number of quantile bins of the score.
    level : float, default=0.01
        Family-wise level of the test a departure from the accuracy order must pass.

    Returns
    -------
    list of int
        Column indices in pick order.

    Examples
    --------
    >>> from ensel.copula import sample_equicorrelated
    >>> X, y, _ = sample_equicorrelated([0.9, 0.9, 0.6, 0.8], 0.2, 4, 5000, random_state=1)
    >>> score_mi(X, y, 3)
    [1, 0, 3]
    """
    return ScoreMI(k, n_bins=n_bins, level=level).fit(X, y).selected_
