"""The counting engine shared by the information-based selectors (private).

At each greedy step the counts ``#(X_S pattern, Y, X_j)`` of all candidates come from one
sparse-times-dense product (one-hot of ``2 * code(X_S) + y`` times the 0/1 answer matrix), a
single pass over the ``n x m`` answers, and the entropies are vectorised over candidates
(see :mod:`ensel.select` for the conventions and timings). The gains of the paper's
criteria (``_gain_*``), the tie rule (``_pick``) and the greedy loop (``_greedy_path``) live
here; the selector classes in :mod:`ensel.select._greedy` are a few lines each on top.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ensel._kernels import CountTable, answer_digits, entropy_rows, group_sums, label_bits
from ensel._validation import Shown, constraint_error

#: Scores within this many bits of the best count as tied (lowest index wins).
TIE_TOL = 1e-12

# Memory bound of one block of group counts (cells = groups x columns x 3 digit values).
_MAX_CELLS = 1 << 22
# Number of digit values per answer in the (relabelled) code space: -1, +1, abstained.
_R = 3


class _Prepared:
    """Validated data and the views every criterion needs."""

    #: Digit values per answer in the pattern codes (:class:`_Pattern`).
    base = _R

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
        total = np.bincount(groups, minlength=Gy).astype(float)
        block = max(1, _MAX_CELLS // (3 * Gy))
        for a in range(0, self.m, block):
            b = min(self.m, a + block)
            pos = np.flatnonzero((cols >= a) & (cols < b))
            if pos.size == 0:
                continue
            whole = a == 0 and b == self.m
            B1 = self.B1 if whole else np.ascontiguousarray(self.B1[:, a:b])
            c1 = group_sums(groups, Gy, B1, indptr)  # (Gy, b - a)
            if self.B2 is not None:
                B2 = self.B2 if whole else np.ascontiguousarray(self.B2[:, a:b])
                c2 = group_sums(groups, Gy, B2, indptr)
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
        counts are ``total - c1``; ``c1`` as ``intp``). Only the items of ``pattern.keep``
        are read: the one-hot has no entry in the column of any other item (so the answer
        matrix is read in place, never gathered), and the counts are made in column blocks.
        """
        Gy = 2 * pattern.G
        keep = pattern.keep
        groups = pattern.codes[keep] * 2 + self.y[keep]
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(keep, out=indptr[1:])
        total = np.bincount(groups, minlength=Gy).astype(float)
        block = max(1, _MAX_CELLS // Gy)
        for a in range(0, self.m, block):
            b = min(self.m, a + block)
            pos = np.flatnonzero((cols >= a) & (cols < b))
            if pos.size == 0:
                continue
            B1 = (self.B1 if (a == 0 and b == self.m)
                  else np.ascontiguousarray(self.B1[:, a:b]))
            c1 = group_sums(groups, Gy, B1, indptr)  # (Gy, b - a), exact integers
            yield pos, c1[:, cols[pos] - a].astype(np.intp), total

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

    def __init__(self, n: int, base: int = _R) -> None:
        self.codes = np.zeros(n, dtype=np.int64)
        self.G = 1  # number of distinct relabelled codes
        self.K = 1  # nominal alphabet size (Python int, exact)
        self.base = base  # digit values per answer (3 for binary answers, K + 1 for options)

    def add(self, digits: np.ndarray, radix: int) -> None:
        raw = self.codes * self.base + digits
        present = np.bincount(raw, minlength=self.G * self.base) > 0
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
        for pos, i1, total in P.iter_counts_binary(red, cand):  # i1: integer counts
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


def _greedy_path(P: Any, k: int, gain: Callable[..., np.ndarray],
                 need_errors: bool) -> tuple[list[int], list[float], np.ndarray]:
    """The greedy loop: ``gain(P, xs, es, cand)`` scores the candidates, the best is picked
    (:func:`_pick`) and added to the patterns. ``P`` is a :class:`_Prepared` or has its
    ``n``, ``m``, ``d`` (digits, (m, n)), ``r`` (radices), ``y`` and ``base``
    (:class:`ensel.select._multiclass._OptionData`)."""
    xs, es = _Pattern(P.n, P.base), _Pattern(P.n)
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

