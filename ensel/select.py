"""Ensemble selection under a budget ``k``: Top-k, relevance, mRMR, Greedy MI, exhaustive.

Each selector exists as a function returning the picked column indices in pick order
(the public contract) and as a scikit-learn style class with fitted attributes::

    >>> import numpy as np
    >>> from ensel.select import greedy_mi, GreedyMI
    >>> rng = np.random.default_rng(0)
    >>> y = rng.choice([-1, 1], size=500)
    >>> X = np.where(rng.random((500, 4)) < [0.9, 0.8, 0.7, 0.6], y[:, None], -y[:, None])
    >>> greedy_mi(X, y, 2)
    [0, 1]
    >>> sel = GreedyMI(k=2).fit(X, y)
    >>> sel.selected_, sel.transform(X).shape
    ([0, 1], (500, 2))

The functions are thin wrappers around the classes, so both always agree.

Criteria (``S`` = models picked so far; every information quantity is the smoothed
estimator :func:`ensel.info.smoothed_mutual_information`, add-``alpha``, bits):

* ``top_k`` -- training accuracy ``mean(X_j == y)`` (an abstention counts as wrong).
* ``relevance`` -- ``I(Y; X_j)`` (the paper's Term 1).
* ``mrmr`` -- ``I(Y; X_j) - I(X_j; X_S)`` with ``X_S`` the joint answer pattern
  (Terms 1 + 2).
* ``greedy_mi`` -- the full conditional gain ``I(Y; X_j | X_S) = I(Y; (X_j, X_S)) -
  I(Y; X_S)`` (Section 5 / Algorithm "Greedy MI Selection", computed as the paper says
  it does "in practice"); each of the two terms is the smoothed estimator with the
  pattern alphabet of ``X_S`` (``2^|S|`` answer patterns).
* ``three_term_greedy`` -- the Eq. (9) estimate ``I(Y; X_j) - I(X_j; X_S) +
  I(E_j; E_S)``, with ``E_j = 1(X_j != Y)``.

Conventions:

* *Alphabets.* The alphabet of ``X_j`` is ``{-1, +1}`` (size 2), or ``{-1, 0, +1}``
  (size 3) when column ``j`` contains an abstention (``0``) in the data given to ``fit``;
  ``X_S`` has the product alphabet (``2^|S|`` when nothing abstains); ``E_S`` has
  ``2^|S|`` (an abstention is an error).
* *Ties.* Among candidates whose score is within ``TIE_TOL = 1e-12`` bits of the best,
  the lowest column index wins. The tolerance makes picks stable across platforms and
  BLAS/ufunc rounding; Top-k compares integer counts exactly.
* *Labels.* The information-based selectors (and :func:`exhaustive_search`) require both
  classes in ``y``: with a single class every ``I(Y; .)`` is 0 in truth and the smoothed
  estimate would be pure smoothing noise, so they raise ``ValueError``. Top-k by accuracy
  is well defined with one class and accepts it.
* *Speed.* At each greedy step the counts ``#(X_S pattern, Y, X_j)`` of all candidates
  come from one sparse-times-dense product (one-hot of ``2 * code(X_S) + y`` times the
  0/1 answer matrix), a single pass over the ``n x m`` answers, and the entropies are
  vectorised over candidates. The pattern code of ``X_S`` is relabelled to the observed
  patterns after each pick, so the count tables have at most ``min(n, 2^|S|)`` rows; the
  nominal alphabet size (``2^|S|``) is kept for the smoothing, whose empty cells are
  summed in closed form. For Greedy MI, patterns of ``X_S`` seen on a single item add the
  same amount to every candidate's entropies and are added in closed form instead of
  counted, and entropies of integer counts are read from a table of ``-q log2 q`` per count
  value (:class:`ensel._kernels.CountTable`, a reduction of the package's one smoothed-entropy
  kernel; m = 1,000 models, n = 20,000 items, k = 20: about 1.5 s).
  ``benchmarks/bench_greedy_mi.py`` and ``benchmarks/bench_select_cli.py`` time it.

Why one module of this size: every selector shares one counting engine (the pattern codes
and smoothed entropies of ``_Prepared``), which is what makes Greedy MI fast; the selectors
themselves are a few lines each.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ensel._errors import check_is_fitted
from ensel._estimator import SelectorMixin
from ensel._kernels import CountTable, answer_digits, entropy_rows, label_bits
from ensel._validation import (
    HasMethods,
    Interval,
    Shown,
    StrOptions,
    check_k,
    check_real,
    check_X,
    check_X_y,
    constraint_error,
    validate_params,
)
from ensel.info import (
    _check_prob,
    _smoothed_mi_codes,
    conditional_mutual_information_table,
)

__all__ = [
    "DEFAULT_REASON",
    "DEFAULT_SELECTOR",
    "SELECTORS",
    "marginal_gains",
    "TIE_TOL",
    "GreedyMI",
    "MRMR",
    "Relevance",
    "ThreeTermGreedy",
    "TopK",
    "exhaustive_search",
    "greedy_mi",
    "greedy_mi_exact",
    "mrmr",
    "relevance",
    "three_term_greedy",
    "top_k",
]

#: Scores within this many bits of the best count as tied (lowest index wins).
TIE_TOL = 1e-12

#: Declared constraints of the public functions (checked by ``validate_params``).
_K = [Interval(Integral, 1, None)]  # k <= n_models is checked against X
_ALPHA = [Interval(Real, 0, None, closed="neither")]
_XY = {"X": ["array-like"], "y": ["array-like"]}

# Memory bound of one block of group counts (cells = groups x columns x 3 digit values).
_MAX_CELLS = 1 << 22
# Number of digit values per answer in the (relabelled) code space: -1, +1, abstained.
_R = 3


# ---------------------------------------------------------------------------
# Shared data preparation and the vectorised counting engine
# ---------------------------------------------------------------------------

class _Prepared:
    """Validated data and the views every criterion needs."""

    def __init__(self, Xa: np.ndarray, ya: np.ndarray, alpha: float) -> None:
        self.n, self.m = Xa.shape
        self.N = float(self.n)
        self.alpha = alpha
        self.y = label_bits(ya)  # 0/1
        self.d = answer_digits(Xa, np.int8).T  # (m, n) digits
        self.r = np.where((Xa == 0).any(axis=0), 3, 2).astype(np.int64)  # radix per column
        # Indicator matrices (n, m) of digit 1 (+1) and digit 2 (abstained); float32 sums
        # of 0/1 are exact below 2**24 items.
        ftype = np.float32 if self.n < (1 << 24) else np.float64
        # C order matters: scipy copies a non-C-contiguous dense operand at every product.
        self.B1 = np.ascontiguousarray(Xa == 1, dtype=ftype)
        self.B2 = np.ascontiguousarray(Xa == 0, dtype=ftype) if (self.r == 3).any() else None
        self.table = CountTable(self.n, alpha)  # phi per count value, for Greedy MI
        ycounts = np.bincount(self.y, minlength=2).astype(float)
        self.h_y = self._h(ycounts[None, :], 2.0)[0]
        # Marginal entropies H(X_j), H(E_j) and relevance I(Y; X_j) of every column.
        cnt = self.counts(_Pattern(self.n), np.arange(self.m))[:, 0]  # (m, 2[y], 3[v])
        self.h_x = self._h(cnt.sum(axis=1), self.r.astype(float))
        h_xy = self._h(cnt.reshape(self.m, 6), 2.0 * self.r)
        self.rel = np.maximum(self.h_y + self.h_x - h_xy, 0.0)
        self.h_e = self._h(_errors(cnt[:, None])[:, 0], 2.0)

    def _h(self, counts: np.ndarray, K: Any) -> np.ndarray:
        K = np.broadcast_to(np.asarray(K, dtype=float), (counts.shape[0],))
        return entropy_rows(counts, K, self.N, self.alpha)

    def iter_counts(self, pattern: _Pattern, cols: np.ndarray):
        """Yield ``(pos, c)`` with ``c[i, g, y, v] = #{items: pattern = g, Y = y, X_j digit v}``.

        ``j = cols[pos[i]]``; ``cols`` must be ascending. Counting is one sparse (one-hot of
        ``2 * pattern + y``) times dense (0/1 indicator matrix) product, a single pass over
        the ``n x m`` answers vectorised over columns, in column blocks bounded in memory.
        All columns of a block are counted (cheaper than gathering the candidates) and the
        few already-selected ones are dropped.
        """
        G, n = pattern.G, self.n
        Gy = 2 * G
        keep = getattr(pattern, "keep", None)
        if keep is None:
            groups = pattern.codes * 2 + self.y
            indptr = np.arange(n + 1)
        else:  # only the items of the kept groups (see _without_singletons)
            groups = pattern.codes[keep] * 2 + self.y[keep]
            indptr = np.concatenate([[0], np.cumsum(keep)])
        M = sp.csc_matrix((np.ones(groups.size, dtype=self.B1.dtype), groups, indptr),
                          shape=(Gy, n))
        total = np.bincount(groups, minlength=Gy).astype(float)
        block = max(1, _MAX_CELLS // (3 * Gy))
        for a in range(0, self.m, block):
            b = min(self.m, a + block)
            pos = np.flatnonzero((cols >= a) & (cols < b))
            if pos.size == 0:
                continue
            whole = a == 0 and b == self.m
            B1 = self.B1 if whole else np.ascontiguousarray(self.B1[:, a:b])
            c1 = M @ B1  # (Gy, b - a)
            if self.B2 is not None:
                B2 = self.B2 if whole else np.ascontiguousarray(self.B2[:, a:b])
                c2 = M @ B2
            else:
                c2 = np.zeros_like(c1)
            keep = cols[pos] - a
            c1, c2 = c1[:, keep], c2[:, keep]
            c0 = total[:, None] - c1 - c2
            blk = np.stack([c0, c1, c2], axis=-1)  # (Gy, c, 3)
            yield pos, blk.reshape(G, 2, pos.size, 3).transpose(2, 0, 1, 3)

    def iter_counts_binary(self, pattern: _Reduced, cols: np.ndarray):
        """Like :meth:`iter_counts` for data without abstentions (``B2 is None``), leaner.

        Yields ``(pos, c1, total)``: ``c1[2 g + y, i] = #{kept items: pattern = g, Y = y,
        X_j = +1}`` (``j = cols[pos[i]]``) and ``total[2 g + y]`` (so the ``X_j = -1``
        counts are ``total - c1``). Only the items of ``pattern.keep`` are read: their rows
        of the answer matrix are gathered once, then counted in column blocks.
        """
        Gy = 2 * pattern.G
        rows = np.flatnonzero(pattern.keep)
        groups = pattern.codes[rows] * 2 + self.y[rows]
        nk = rows.size
        M = sp.csc_matrix((np.ones(nk, dtype=self.B1.dtype), groups, np.arange(nk + 1)),
                          shape=(Gy, nk))
        total = np.bincount(groups, minlength=Gy).astype(float)
        Bk = self.B1 if nk == self.n else self.B1[rows]  # (nk, m), C order
        block = max(1, _MAX_CELLS // Gy)
        for a in range(0, self.m, block):
            b = min(self.m, a + block)
            pos = np.flatnonzero((cols >= a) & (cols < b))
            if pos.size == 0:
                continue
            B1 = Bk if (a == 0 and b == self.m) else np.ascontiguousarray(Bk[:, a:b])
            c1 = M @ B1  # (Gy, b - a)
            yield pos, np.asarray(c1[:, cols[pos] - a], dtype=float), total

    def counts(self, pattern: _Pattern, cols: np.ndarray) -> np.ndarray:
        """All blocks of :meth:`iter_counts` stacked (only for small patterns)."""
        out = np.empty((cols.size, pattern.G, 2, 3))
        for pos, blk in self.iter_counts(pattern, cols):
            out[pos] = blk
        return out


def _errors(cnt: np.ndarray) -> np.ndarray:
    """Counts ``(c, G, 2[e])`` of ``E_j = 1(X_j != Y)`` from counts ``(c, G, 2[y], 3[v])``.

    Digit ``v``: 0 = answer -1, 1 = answer +1, 2 = abstained (always an error).
    """
    e1 = cnt[:, :, 0, 1] + cnt[:, :, 0, 2] + cnt[:, :, 1, 0] + cnt[:, :, 1, 2]
    e0 = cnt[:, :, 0, 0] + cnt[:, :, 1, 1]
    return np.stack([e0, e1], axis=-1)


class _Pattern:
    """Relabelled code of a growing pattern (``X_S`` or ``E_S``) and its nominal alphabet."""

    def __init__(self, n: int) -> None:
        self.codes = np.zeros(n, dtype=np.int64)
        self.G = 1  # number of distinct relabelled codes
        self.K = 1  # nominal alphabet size (Python int, exact)

    def add(self, digits: np.ndarray, radix: int) -> None:
        raw = self.codes * _R + digits
        present = np.bincount(raw, minlength=self.G * _R) > 0
        relabel = np.cumsum(present) - 1
        self.codes = relabel[raw]
        self.G = int(present.sum())
        self.K *= int(radix)
        if not math.isfinite(float(self.K)):
            raise constraint_error("k", "small enough for a float pattern alphabet",
                                   Shown(f"an alphabet of {self.K} patterns"))

    @property
    def Kf(self) -> float:
        return float(self.K)


def _pattern_entropies(P: _Prepared, pattern: _Pattern) -> tuple[float, float]:
    """``H(pattern)`` and ``H(pattern, Y)`` (smoothed)."""
    cy = np.bincount(pattern.codes * 2 + P.y, minlength=2 * pattern.G).astype(float)
    h_s = P._h(cy.reshape(pattern.G, 2).sum(axis=1)[None, :], pattern.Kf)[0]
    h_sy = P._h(cy[None, :], 2.0 * pattern.Kf)[0]
    return float(h_s), float(h_sy)


class _Reduced:
    """The groups of a pattern holding at least two items (relabelled ``0..G-1``).

    ``keep`` marks their items; ``n_singletons`` counts the groups of one item, left out.
    """

    def __init__(self, pattern: _Pattern) -> None:
        sizes = np.bincount(pattern.codes, minlength=pattern.G)
        multi = sizes >= 2
        relabel = np.cumsum(multi) - 1
        self.keep = multi[pattern.codes]
        self.codes = np.where(self.keep, relabel[pattern.codes], 0)
        self.G = int(multi.sum())
        self.n_singletons = int(pattern.G - self.G)


def _gain_greedy_mi(P: _Prepared, xs: _Pattern, es: _Pattern, cand: np.ndarray) -> np.ndarray:
    """``I(Y; (X_j, X_S)) - I(Y; X_S)`` for every candidate (both terms smoothed, clipped).

    A group of ``X_S`` holding one item contributes the same to ``H(X_j, X_S)`` and
    ``H(X_j, X_S, Y)`` whatever ``j`` (one cell with count 1, the others empty), so such
    groups are left out of the counting and added back in closed form (:class:`_Reduced`):
    once ``X_S`` separates most items (large ``|S|``), the counts cover only the few items
    that still share a pattern.
    """
    h_s, h_sy = _pattern_entropies(P, xs)
    i_ys = max(P.h_y + h_s - h_sy, 0.0)
    out = np.empty(cand.size)
    red = _Reduced(xs)
    s = float(red.n_singletons)

    def finish(pos: np.ndarray, cnt: np.ndarray | None) -> None:
        c = pos.size
        Kjs = xs.Kf * P.r[cand[pos]].astype(float)
        if cnt is None:  # every group is a singleton
            h_js = P._h(np.zeros((c, 1)), Kjs)
            h_jsy = P._h(np.zeros((c, 1)), 2.0 * Kjs)
        else:
            h_js = P.table.rows(cnt.sum(axis=2).reshape(c, -1), Kjs)
            h_jsy = P.table.rows(cnt.reshape(c, -1), 2.0 * Kjs)
        if s:
            h_js = h_js + s * P.table.step(Kjs)
            h_jsy = h_jsy + s * P.table.step(2.0 * Kjs)
        out[pos] = np.maximum(P.h_y + h_js - h_jsy, 0.0) - i_ys

    if red.G == 0:
        finish(np.arange(cand.size), None)
        return out
    if P.B2 is None:  # no abstention: every candidate has radix 2, one table per entropy
        Kjs, Kjsy = 2.0 * xs.Kf, 4.0 * xs.Kf
        t_js, z_js = P.table.table(Kjs)
        t_jsy, z_jsy = P.table.table(Kjsy)
        corr_js = s * P.table.step(np.array([Kjs]))[0] if s else 0.0
        corr_jsy = s * P.table.step(np.array([Kjsy]))[0] if s else 0.0
        for pos, c1, total in P.iter_counts_binary(red, cand):
            i1 = c1.astype(np.intp)
            i0 = total.astype(np.intp)[:, None] - i1
            h_jsy = (t_jsy[i1].sum(axis=0) + t_jsy[i0].sum(axis=0)) + z_jsy + corr_jsy
            g1 = i1[0::2] + i1[1::2]
            g0 = (total[0::2] + total[1::2]).astype(np.intp)[:, None] - g1
            h_js = (t_js[g1].sum(axis=0) + t_js[g0].sum(axis=0)) + z_js + corr_js
            out[pos] = np.maximum(P.h_y + h_js - h_jsy, 0.0) - i_ys
        return out
    for pos, cnt in P.iter_counts(red, cand):  # type: ignore[arg-type]  # (c, G, 2[y], 3[v])
        finish(pos, cnt)
    return out


def _redundancy(P: _Prepared, xs: _Pattern, cand: np.ndarray) -> np.ndarray:
    """``I(X_j; X_S)`` for every candidate (smoothed)."""
    h_s, _ = _pattern_entropies(P, xs)
    out = np.empty(cand.size)
    for pos, cnt in P.iter_counts(xs, cand):
        Kjs = xs.Kf * P.r[cand[pos]].astype(float)
        h_js = P._h(cnt.sum(axis=2).reshape(pos.size, -1), Kjs)
        out[pos] = np.maximum(P.h_x[cand[pos]] + h_s - h_js, 0.0)
    return out


def _error_correlation(P: _Prepared, es: _Pattern, cand: np.ndarray) -> np.ndarray:
    """``I(E_j; E_S)`` for every candidate (smoothed)."""
    h_s, _ = _pattern_entropies(P, es)
    out = np.empty(cand.size)
    for pos, cnt in P.iter_counts(es, cand):
        ecnt = _errors(cnt)  # (c, G, 2[e])
        h_js = P._h(ecnt.reshape(pos.size, -1), 2.0 * es.Kf)
        out[pos] = np.maximum(P.h_e[cand[pos]] + h_s - h_js, 0.0)
    return out


def _gain_mrmr(P: _Prepared, xs: _Pattern, es: _Pattern, cand: np.ndarray) -> np.ndarray:
    if xs.K == 1:
        return P.rel[cand].copy()
    return P.rel[cand] - _redundancy(P, xs, cand)


def _gain_three_term(P: _Prepared, xs: _Pattern, es: _Pattern, cand: np.ndarray) -> np.ndarray:
    if xs.K == 1:
        return P.rel[cand].copy()
    return P.rel[cand] - _redundancy(P, xs, cand) + _error_correlation(P, es, cand)


def _gain_relevance(P: _Prepared, xs: _Pattern, es: _Pattern, cand: np.ndarray) -> np.ndarray:
    return P.rel[cand].copy()


def _pick(scores: np.ndarray, cand: np.ndarray) -> int:
    """Position in ``cand`` (ascending column indices) of the best score, ties -> lowest."""
    best = float(np.max(scores))
    return int(np.flatnonzero(scores >= best - TIE_TOL)[0])


def _greedy_path(P: _Prepared, k: int, gain: Callable[..., np.ndarray],
                 need_errors: bool) -> tuple[list[int], list[float], np.ndarray]:
    xs, es = _Pattern(P.n), _Pattern(P.n)
    selected: list[int] = []
    gains: list[float] = []
    scores = np.full((k, P.m), np.nan)
    remaining = np.ones(P.m, dtype=bool)
    for t in range(k):
        cand = np.flatnonzero(remaining)
        s = gain(P, xs, es, cand)
        scores[t, cand] = s
        pos = _pick(s, cand)
        j = int(cand[pos])
        selected.append(j)
        gains.append(float(s[pos]))
        remaining[j] = False
        if t + 1 < k:
            xs.add(P.d[j].astype(np.int64), int(P.r[j]))
            if need_errors:
                es.add((P.d[j] != P.y).astype(np.int64), 2)
    return selected, gains, scores


# ---------------------------------------------------------------------------
# scikit-learn style selectors
# ---------------------------------------------------------------------------

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
            Labels in ``{-1, +1}``.

        Returns
        -------
        self
            With ``selected_`` (column indices in pick order), ``gains_`` (the criterion
            of each pick at its step), ``scores_`` (criterion of every candidate at every
            step, ``NaN`` for already-selected columns; shape ``(k, n_models)``),
            ``n_features_in_`` and, for a DataFrame, ``feature_names_in_`` and
            ``selected_names_``.
        """
        Xa, ya = check_X_y(X, y, require_both_classes=self._needs_both_classes)
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

    def _path(self, Xa: np.ndarray, ya: np.ndarray,
              k: int) -> tuple[list[int], list[float], np.ndarray]:
        raise NotImplementedError

    @validate_params({"X": ["array-like"]})
    def transform(self, X: Any) -> Any:
        """Keep the selected columns (in pick order); a DataFrame stays a DataFrame."""
        check_is_fitted(self, "selected_")
        Xa = check_X(X)
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


class TopK(_BaseSelector):
    """Top-``k`` models by training accuracy (abstention = wrong; ties -> lowest index).

    ``gains_`` holds the accuracies of the picks; ``scores_`` repeats every model's
    accuracy on each row (NaN once selected). One-class labels are accepted.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> TopK(2).fit(X, y).selected_
    [0, 1]
    """

    _needs_both_classes = False

    def _path(self, Xa, ya, k):
        correct = (Xa == ya[:, None]).sum(axis=0)
        order = np.argsort(-correct, kind="stable")[:k]
        acc = correct / Xa.shape[0]
        scores = np.tile(acc.astype(float), (k, 1))
        for t, j in enumerate(order):
            scores[t + 1:, j] = np.nan
        return [int(j) for j in order], [float(acc[j]) for j in order], scores


class _InfoSelector(_BaseSelector):
    _gain: Callable[..., np.ndarray]
    _need_errors = False
    _parameter_constraints: dict[str, Any] = {"k": _K, "alpha": _ALPHA}

    def __init__(self, k: int = 3, alpha: float = 1.0) -> None:
        self.k = k
        self.alpha = alpha

    def _path(self, Xa, ya, k):
        alpha = check_real(self.alpha, "alpha", low=0, low_open=True,
                           what="the Laplace pseudo-count")
        P = _Prepared(Xa, ya, alpha)
        return _greedy_path(P, k, type(self)._gain, self._need_errors)


class Relevance(_InfoSelector):
    """The ``k`` models with the largest smoothed relevance ``I(Y; X_j)`` (Term 1).

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count of the smoothed MI estimator.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> Relevance(2).fit(X, y).selected_
    [0, 1]
    """

    _gain = staticmethod(_gain_relevance)


class MRMR(_InfoSelector):
    """Greedy mRMR: maximise ``I(Y; X_j) - I(X_j; X_S)`` (the paper's Terms 1 + 2).

    Redundancy is measured against the *joint* answer pattern ``X_S`` of the models
    already picked (not the mean of pairwise terms as in Peng et al.), matching the
    decomposition of Theorem 4.2.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count of the smoothed MI estimator.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> MRMR(2).fit(X, y).selected_
    [0, 2]
    """

    _gain = staticmethod(_gain_mrmr)


class GreedyMI(_InfoSelector):
    """Greedy MI (the paper's Algorithm "Greedy MI Selection").

    At each step picks ``argmax_j I(Y; X_j | X_S) = I(Y; (X_j, X_S)) - I(Y; X_S)``, each
    term from :func:`ensel.info.smoothed_mutual_information` with the pattern alphabet of
    ``X_S`` (``2^|S|``; ``3`` per abstaining column). ``gains_`` holds the estimated
    ``Delta(j* | S)`` of each pick.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count (1.0 = add-one, as in the paper).

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> sel = GreedyMI(2).fit(X, y)
    >>> sel.selected_
    [0, 2]
    >>> [round(float(g), 3) for g in sel.gains_]
    [0.279, 0.12]
    """

    _gain = staticmethod(_gain_greedy_mi)


class ThreeTermGreedy(_InfoSelector):
    """Greedy maximisation of the Eq. (9) estimate ``I(Y;X_j) - I(X_j;X_S) + I(E_j;E_S)``.

    The label-dependence correction ``Lambda_j(S)`` of Theorem 4.2 is dropped (it is 0
    when errors are independent of the label); compare with :class:`GreedyMI`, which
    estimates the full ``I(Y; X_j | X_S)``.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count.
    """

    _gain = staticmethod(_gain_three_term)
    _need_errors = True


#: The one registry of greedy selectors: name -> class (``cls(k).fit(X, y).selected_`` is the
#: pick order). Every selector here is nested: its first ``k`` picks at a larger budget are
#: its size-``k`` choice. ``ensel.experiment`` and the command line read names from here.
SELECTORS: dict[str, type[_BaseSelector]] = {
    "topk": TopK,
    "relevance": Relevance,
    "mrmr": MRMR,
    "greedy_mi": GreedyMI,
    "three_term": ThreeTermGreedy,
}


# ---------------------------------------------------------------------------
# Function interface (the public contract)
# ---------------------------------------------------------------------------

@validate_params({**_XY, "k": _K})
def top_k(X: Any, y: Any, k: int) -> list[int]:
    """Indices of the ``k`` most accurate models on ``(X, y)``, most accurate first.

    Accuracy is ``mean(X_j == y)`` (an abstention counts as wrong); ties go to the lowest
    column index. See :class:`TopK`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> top_k(X, y, 2)
    [0, 1]
    """
    return TopK(k).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def relevance(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """The ``k`` models with the largest smoothed ``I(Y; X_j)``. See :class:`Relevance`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> relevance(X, y, 2)
    [0, 1]
    """
    return Relevance(k, alpha=alpha).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def mrmr(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """Greedy ``I(Y; X_j) - I(X_j; X_S)`` selection, in pick order. See :class:`MRMR`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> mrmr(X, y, 2)
    [0, 2]
    """
    return MRMR(k, alpha=alpha).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def greedy_mi(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """Greedy MI selection (maximise ``I(Y; X_j | X_S)``), in pick order. See :class:`GreedyMI`.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
        Answers in ``{-1, +1}`` (``0`` = abstained).
    y : array-like of shape (n_items,)
        Labels in ``{-1, +1}``; both classes must be present.
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count of the smoothed MI estimator.

    Returns
    -------
    list of int
        Column indices in pick order.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> top_k(X, y, 2), greedy_mi(X, y, 2)
    ([0, 1], [0, 2])
    """
    return GreedyMI(k, alpha=alpha).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def three_term_greedy(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """Greedy maximisation of the Eq. (9) estimate. See :class:`ThreeTermGreedy`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> three_term_greedy(X, y, 2)
    [0, 2]
    """
    return ThreeTermGreedy(k, alpha=alpha).fit(X, y).selected_


@validate_params({"p": ["array-like"], "k": _K})
def greedy_mi_exact(p: Any, k: int) -> list[int]:
    """Greedy MI on an exact joint law: ``argmax_j I(Y; X_j | X_S)`` from a probability table.

    The population version of :func:`greedy_mi`, for the theory pages (e.g. Theorem 4.1:
    with independent BSCs it picks the ``k`` most accurate channels).

    Parameters
    ----------
    p : array-like
        Joint probability table of ``(Y, X_1, ..., X_m)``: axis 0 is ``Y``, axis ``1 + j``
        is model ``j`` (any alphabet sizes).
    k : int
        Budget, ``1 <= k <= m``.

    Returns
    -------
    list of int
        Model indices (0-based) in pick order; ties within ``TIE_TOL`` -> lowest index.
    """
    arr = _check_prob(p)
    if arr.ndim < 2:
        raise constraint_error("p", "a table with one axis for Y and at least one per model",
                               Shown(f"shape {arr.shape}"))
    m = arr.ndim - 1
    k = check_k(k, m)
    selected: list[int] = []
    for _ in range(k):
        cand = np.array([j for j in range(m) if j not in selected])
        axes_S = [1 + s for s in selected]
        scores = np.array([conditional_mutual_information_table(arr, 0, 1 + j, axes_S)
                           for j in cand])
        selected.append(int(cand[_pick(scores, cand)]))
    return selected


# ---------------------------------------------------------------------------
# Exhaustive search (small m)
# ---------------------------------------------------------------------------

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
            from ensel.aggregate import MAPAggregator  # imported lazily (optional coupling)

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


@validate_params({**_XY, "picks": ["array-like"], "alpha": _ALPHA})
def marginal_gains(X: Any, y: Any, picks: Any, alpha: float = 1.0) -> list[float]:
    """``I(Y; X_{S_t}) - I(Y; X_{S_{t-1}})`` in bits along ``picks`` (smoothed estimator).

    The pattern alphabet has radix 2 per column (3 for a column with an abstention), as in
    :func:`greedy_mi`, whose gains (``GreedyMI.gains_``) these are for its own picks.

    Examples
    --------
    >>> from ensel.copula import sample_equicorrelated
    >>> X, y, _ = sample_equicorrelated(0.8, 0.3, 4, 2000, random_state=0)
    >>> g = GreedyMI(3).fit(X, y)
    >>> np.allclose(marginal_gains(X, y, g.selected_), g.gains_)
    True
    """
    from ensel.info import smoothed_mutual_information

    Xa, ya = check_X_y(X, y)
    yc = label_bits(ya)
    codes = np.zeros(len(ya), dtype=np.int64)
    size, prev, out = 1, 0.0, []
    for j in picks:
        col = Xa[:, int(j)]
        d = answer_digits(col)
        radix = 3 if (d == 2).any() else 2
        _, codes = np.unique(codes * 3 + d, return_inverse=True)  # relabel (size stays nominal)
        codes = codes.reshape(-1)
        size *= radix
        mi = smoothed_mutual_information(yc, codes, size_a=2, size_b=size, alpha=alpha)
        out.append(mi - prev)
        prev = mi
    return out


# ---------------------------------------------------------------------------
# Beyond the paper: ensel's selector for large pools and the default of `ensel select`
# ---------------------------------------------------------------------------

import ensel.score_mi  # noqa: E402,F401  (registers "score_mi" in SELECTORS)

#: The selector `ensel select` runs unless told otherwise (the paper's stays available as
#: "greedy_mi"); :data:`DEFAULT_REASON` says why.
DEFAULT_SELECTOR = "score_mi"
#: Why the defaults of `ensel select` are what they are (printed and recorded by the CLI).
DEFAULT_REASON = (
    "score_mi + backoff (ensel's own, beyond the paper): the paper's Greedy MI and MAP "
    "count answer patterns of the whole ensemble (2^k cells), which the data cannot fill "
    "beyond about 8 models; score_mi conditions on the binned weighted-vote score instead, "
    "and backoff answers frequent patterns from their counts (as MAP) and rare ones with an "
    "L2 logistic regression on the answers. Measured on the book page 'Beyond the paper: "
    "selection and aggregation for large pools'."
)
