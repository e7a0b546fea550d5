"""Entropies and mutual information: exact (on probability tables) and smoothed (from counts).

Two families of functions live here.

*Estimators from samples* (what the selectors use):

* :func:`smoothed_mutual_information` is the paper's Algorithm "Smoothed Mutual
  Information Estimation" (Appendix "Implementation Details"), exactly: add-``alpha``
  counts on each marginal (denominators ``N + alpha*K_A`` and ``N + alpha*K_B``) and on
  the joint (``N + alpha*K_A*K_B``), entropies in bits, ``I = max(H(A)+H(B)-H(A,B), 0)``.
* :func:`smoothed_conditional_mutual_information` applies the chain rule
  ``I(A;B|C) = I(A;(B,C)) - I(A;C)`` with each term from the smoothed estimator. This is
  how :func:`ensel.select.greedy_mi` scores a candidate: ``I(Y; X_j | X_S) =
  I(Y; (X_j, X_S)) - I(Y; X_S)`` with the pattern alphabet of ``X_S``.
* :func:`pattern_codes` turns the answers of several models into one integer code per
  item (the index of the answer pattern, as in the paper's Algorithm "MAP Aggregation").

*Exact quantities on a joint probability table* (what the theory pages use): a numpy
array with one axis per variable, e.g. shape ``(2, 2, 2)`` for ``(Y, X_1, X_2)``:
:func:`entropy_table`, :func:`mutual_information_table`,
:func:`conditional_mutual_information_table`, and the terms of the paper's
Theorem 4.3 / Eq. (10) in :func:`decomposition_terms_exact` (and their plug-in
counterpart :func:`decomposition_terms` from samples).

All information quantities are in bits unless a ``base`` says otherwise, and scalars are
returned as plain Python floats.

Why one module of this size: the smoothed estimators on counts and the exact quantities on
probability tables sit side by side, so each estimator has its population counterpart here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._kernels import answer_digits, entropy_rows, label_bits
from ensel._validation import (
    Interval,
    Options,
    Shown,
    check_int,
    check_real,
    check_X_y,
    constraint_error,
    validate_params,
)

__all__ = [
    "DecompositionTerms",
    "conditional_mutual_information_table",
    "decomposition_terms",
    "decomposition_terms_exact",
    "entropy",
    "entropy_from_counts",
    "entropy_table",
    "error_indicator_table",
    "mutual_information_table",
    "pattern_codes",
    "smoothed_conditional_mutual_information",
    "smoothed_entropy",
    "smoothed_mutual_information",
]

#: Largest alphabet a pattern code may have (codes are int64).
MAX_PATTERN_SIZE = 2**62

#: Declared constraints of the public functions (checked by ``validate_params``).
_ARR = ["array-like"]
_SIZE = [Interval(Integral, 1, None)]
_ALPHA = [Interval(Real, 0, None, closed="neither")]
_BASE = [Interval(Real, 0, None, closed="neither")]  # and not 1, checked in the body
_INDEX = [Interval(Integral, 0, None)]
_AXES = [Interval(Integral, 0, None), "iterable"]

#: Tolerance on ``sum(p) == 1`` for probability tables.
_SUM_TOL = 1e-9


# ---------------------------------------------------------------------------
# Pattern codes
# ---------------------------------------------------------------------------

@validate_params({"X": _ARR, "columns": ["iterable", None],
                  "base": [Options(Integral, (2, 3)), None]})
def pattern_codes(X: Any, columns: Sequence[int] | None = None, *,
                  base: int | None = None) -> tuple[np.ndarray, int]:
    """Integer code of each row's answer pattern on the given columns.

    Following the paper's Algorithm "MAP Aggregation",
    ``idx(x_S) = sum_j (x_j + 1)/2 * 2^(j-1)`` (here 0-based: the ``t``-th listed column is
    digit ``t``, least significant first). Each answer is mapped to a digit
    ``-1 -> 0``, ``+1 -> 1`` and, when abstentions are coded, ``0 (abstained) -> 2``; so a
    pattern without abstentions has the same digits in base 2 and base 3.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
        Answers in ``{-1, +1}`` or ``{-1, 0, +1}`` (anything :func:`ensel._validation.check_X`
        accepts).
    columns : sequence of int, optional
        Column indices, in digit order (the first listed column is the least significant
        digit). Default: all columns in order. An empty sequence gives the constant code 0
        with alphabet size 1.
    base : {None, 2, 3}, default=None
        ``2`` for ``{-1, +1}`` answers, ``3`` when abstentions (``0``) must be coded.
        ``None`` picks 2 if the selected columns contain no ``0`` and 3 otherwise. Pass it
        explicitly when codes of two matrices (train/test) must be comparable.

    Returns
    -------
    codes : numpy.ndarray of shape (n_items,), dtype int64
        Values in ``[0, size)``.
    size : int
        Size of the pattern alphabet, ``base ** len(columns)``.

    Raises
    ------
    ValueError
        For invalid answers, out-of-range or repeated columns, a base other than 2/3,
        ``base=2`` with abstentions present, or an alphabet larger than ``2**62``.
    """
    from ensel._validation import check_X

    Xa = check_X(X)
    m = Xa.shape[1]
    cols = _check_columns(columns, m)
    sub = Xa[:, cols]
    has_abstain = bool((sub == 0).any())
    if base is None:
        base = 3 if has_abstain else 2
    if isinstance(base, bool) or base not in (2, 3):
        raise constraint_error("base", "2 or 3 (or None to infer it)", base)
    if base == 2 and has_abstain:
        j = int(np.argwhere(sub == 0)[0][1])
        raise constraint_error("base", f"3 or None, since column {cols[j]} of X contains an "
                               "abstention (0) that base 2 cannot code", base)
    size = int(base) ** len(cols)
    if size > MAX_PATTERN_SIZE:
        raise constraint_error("columns", "few enough for an alphabet of at most 2**62 "
                               "patterns (int64 codes)",
                               Shown(f"{len(cols)} columns ({base}**{len(cols)} patterns)"))
    codes = np.zeros(Xa.shape[0], dtype=np.int64)
    weight = 1
    for t in range(len(cols)):
        codes += answer_digits(sub[:, t]) * weight
        weight *= int(base)
    return codes, size


def _check_columns(columns: Sequence[int] | None, m: int, *, name: str = "columns") -> list[int]:
    if columns is None:
        return list(range(m))
    cols = []
    for c in columns:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise constraint_error(name, f"column indices (ints in [0, {m - 1}])", c)
        c = int(c)
        if not 0 <= c < m:
            raise constraint_error(name, f"column indices in [0, {m - 1}] (X has {m} columns)",
                                   c)
        cols.append(c)
    if len(set(cols)) != len(cols):
        dup = next(c for c in cols if cols.count(c) > 1)
        raise constraint_error(name, "distinct column indices",
                               Shown(f"column {dup} more than once"))
    return cols


# ---------------------------------------------------------------------------
# Entropies
# ---------------------------------------------------------------------------

def _check_base(base: float) -> float:
    b = float(base)
    if not np.isfinite(b) or b <= 0 or b == 1:
        raise constraint_error("base", "a positive number other than 1", base)
    return b


def _check_prob(p: Any, name: str = "p") -> np.ndarray:
    arr = np.asarray(p, dtype=float)
    if arr.size == 0:
        raise constraint_error(name, "a non-empty probability table", Shown("an empty array"))
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise constraint_error(name, "a table of finite probabilities",
                               Shown(f"{float(arr[bad])!r} at position {bad}"))
    if (arr < 0).any():
        pos = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise constraint_error(name, "a table of non-negative probabilities",
                               Shown(f"{float(arr[pos])!r} at position {pos}"))
    total = float(arr.sum())
    if abs(total - 1.0) > _SUM_TOL:
        raise constraint_error(name, "a probability table that sums to 1",
                               Shown(f"a sum of {total!r}"))
    return arr


def _plogp_sum(p: np.ndarray, axis: Any = None) -> np.ndarray:
    """``sum p*log2(p)`` with ``0 log 0 = 0`` (natural array ops, no warnings)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=axis)


@validate_params({"p": _ARR, "base": _BASE})
def entropy(p: Any, *, base: float = 2.0) -> float:
    """Shannon entropy of a probability vector or table (``0 log 0 = 0``).

    Parameters
    ----------
    p : array-like
        Probabilities (any shape: a table is treated as the joint law of its cells);
        non-negative and summing to 1 (within 1e-9).
    base : float, default=2.0
        Logarithm base (2 gives bits, ``e`` nats).

    Returns
    -------
    float

    Examples
    --------
    >>> entropy([0.5, 0.5])
    1.0
    """
    b = _check_base(base)
    arr = _check_prob(p)
    h = -float(_plogp_sum(arr.ravel()))
    return float(_clip0(h) / np.log2(b))


@validate_params({"counts": _ARR, "alpha": [Interval(Real, 0, None)],
                  "size": [Interval(Real, 1, None), None], "base": _BASE})
def entropy_from_counts(counts: Any, *, alpha: float = 0.0, size: int | float | None = None,
                        base: float = 2.0) -> float:
    """Entropy of the (optionally add-``alpha`` smoothed) empirical law of counts.

    With ``alpha = 0`` this is the plug-in entropy of ``counts / counts.sum()``. With
    ``alpha > 0`` each of ``size`` cells gets ``alpha`` pseudo-counts:
    ``P(c) = (n_c + alpha) / (N + alpha * size)``, as in the paper's Algorithm "Smoothed
    Mutual Information Estimation". Cells not listed in ``counts`` (when ``size`` is larger
    than ``counts.size``) have count 0; ``size`` may be astronomically large (e.g.
    ``2**100``): the empty cells are summed in closed form.

    Parameters
    ----------
    counts : array-like of non-negative integers
        Counts of the listed cells (any shape; flattened).
    alpha : float, default=0.0
        Pseudo-count per cell (``>= 0``).
    size : int or float, optional
        Alphabet size (number of cells), at least ``counts.size``. Default ``counts.size``.
    base : float, default=2.0
        Logarithm base.

    Returns
    -------
    float
    """
    b = _check_base(base)
    c = np.asarray(counts, dtype=float).ravel()
    if c.size == 0:
        raise constraint_error("counts", "non-empty (at least one cell)", Shown("no cells"))
    if not np.all(np.isfinite(c)) or (c < 0).any():
        i = int(np.argmax(~np.isfinite(c) | (c < 0)))
        raise constraint_error("counts", "finite and non-negative",
                               Shown(f"{c[i]!r} at position {i}"))
    a = float(alpha)
    if not np.isfinite(a) or a < 0:
        raise constraint_error("alpha", "a real number in [0, inf)", alpha)
    K = float(c.size) if size is None else float(size)
    if K < c.size:
        raise constraint_error("size", f"at least the number of counted cells ({c.size})", size)
    N = float(c.sum())
    if N + a * K <= 0:
        raise constraint_error("counts", "not all 0 when alpha is 0 (the empirical law is "
                               "undefined)", Shown("a total of 0"))
    h = entropy_rows(c[c > 0][None, :], np.array([K]), N, a)[0]
    return float(h / np.log2(b))


@validate_params({"a": _ARR, "size": _SIZE, "alpha": _ALPHA})
def smoothed_entropy(a: Any, *, size: int, alpha: float = 1.0) -> float:
    """Add-``alpha`` smoothed entropy (bits) of integer codes ``a`` in ``[0, size)``.

    ``P(a) = (n_a + alpha) / (N + alpha * size)``, the marginal step of the paper's
    Algorithm "Smoothed Mutual Information Estimation".
    """
    codes = _check_codes(a, "a")
    K = check_int(size, "size", low=1)
    al = check_real(alpha, "alpha", low=0, low_open=True, what="the Laplace pseudo-count")
    _check_range(codes, K, "a", "size")
    counts = _sparse_counts(codes, K)
    return float(entropy_rows(counts[None, :], np.array([float(K)]),
                                        float(codes.size), al)[0])


def _sparse_counts(codes: np.ndarray, K: int) -> np.ndarray:
    """Counts of the occupied cells (order irrelevant); dense bincount when K is small."""
    if K <= max(4 * codes.size, 1 << 16):
        return np.bincount(codes, minlength=int(K)).astype(float)
    _, counts = np.unique(codes, return_counts=True)
    return counts.astype(float)


def _clip0(x: float) -> float:
    return max(float(x), 0.0)


# ---------------------------------------------------------------------------
# Smoothed mutual information (the paper's algorithm)
# ---------------------------------------------------------------------------

def _check_codes(a: Any, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise constraint_error(name, "1-dimensional (n_samples,)", Shown(f"shape {arr.shape}"))
    if arr.size == 0:
        raise constraint_error(name, "non-empty (at least one sample)", Shown("an empty array"))
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            bad = arr[~(np.isfinite(arr) & (arr == np.round(arr)))][0]
            raise constraint_error(name, "integer codes", bad)
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        raise constraint_error(name, "integer codes", Shown(f"dtype {arr.dtype}"))
    return arr.astype(np.int64, copy=False)


def _check_range(codes: np.ndarray, size: int, name: str, size_name: str) -> None:
    lo, hi = int(codes.min()), int(codes.max())
    if lo < 0 or hi >= size:
        bad = lo if lo < 0 else hi
        pos = int(np.argmax(codes == bad))
        raise constraint_error(name, f"codes in [0, {size}) ({size_name}={size})",
                               Shown(f"code {bad} at position {pos}"))


@validate_params({"a": _ARR, "b": _ARR, "size_a": _SIZE, "size_b": _SIZE,
                  "alpha": _ALPHA})
def smoothed_mutual_information(a: Any, b: Any, *, size_a: int, size_b: int,
                                alpha: float = 1.0) -> float:
    """Smoothed mutual information ``I(A; B)`` in bits (the paper's Algorithm, exactly).

    With ``N`` samples, ``K_A = size_a`` and ``K_B = size_b``::

        P(a)    = (n_a  + alpha) / (N + alpha * K_A)
        P(b)    = (n_b  + alpha) / (N + alpha * K_B)
        P(a, b) = (n_ab + alpha) / (N + alpha * K_A * K_B)
        I(A; B) = max(H(A) + H(B) - H(A, B), 0)        (entropies in bits)

    The smoothing makes every estimated probability positive. Unlike the plug-in estimator
    the result depends on the declared alphabet sizes, not only on the observed values.

    Parameters
    ----------
    a, b : array-like of int, shape (n_samples,)
        Integer codes in ``[0, size_a)`` and ``[0, size_b)`` (see :func:`pattern_codes`).
    size_a, size_b : int
        Alphabet sizes ``K_A``, ``K_B`` (``>= 1``). Large alphabets (e.g. ``2**40``
        answer patterns) are fine: empty cells are summed in closed form.
    alpha : float, default=1.0
        Laplace pseudo-count (``> 0``); ``1.0`` is add-one smoothing as in the paper.

    Returns
    -------
    float
        The estimate in bits, ``>= 0``.

    Examples
    --------
    >>> round(smoothed_mutual_information([0, 0, 1, 1], [0, 0, 1, 1], size_a=2, size_b=2), 6)
    0.188722
    """
    ac = _check_codes(a, "a")
    bc = _check_codes(b, "b")
    if ac.shape != bc.shape:
        raise constraint_error("b", f"of the same length as a ({ac.size})",
                               Shown(f"length {bc.size}"))
    Ka = check_int(size_a, "size_a", low=1)
    Kb = check_int(size_b, "size_b", low=1)
    al = check_real(alpha, "alpha", low=0, low_open=True, what="the Laplace pseudo-count")
    _check_range(ac, Ka, "a", "size_a")
    _check_range(bc, Kb, "b", "size_b")
    return _smoothed_mi_codes(ac, bc, Ka, Kb, al)


def _smoothed_mi_codes(a: np.ndarray, b: np.ndarray, Ka: int, Kb: int, alpha: float) -> float:
    """Unchecked core of :func:`smoothed_mutual_information`."""
    N = float(a.size)
    Kab = Ka * Kb
    if Kab <= max(4 * a.size, 1 << 16):
        joint = np.bincount(a * Kb + b, minlength=Kab).reshape(Ka, Kb).astype(float)
        ca, cb, cab = joint.sum(axis=1), joint.sum(axis=0), joint.ravel()
    else:
        ca = _sparse_counts(a, Ka)
        cb = _sparse_counts(b, Kb)
        if Kab <= MAX_PATTERN_SIZE:
            cab = _sparse_counts(a * Kb + b, Kab)
        else:  # relabel to avoid overflow of a * Kb + b
            _, ia = np.unique(a, return_inverse=True)
            _, ib = np.unique(b, return_inverse=True)
            nb = int(ib.max()) + 1
            cab = _sparse_counts(ia.astype(np.int64) * nb + ib, int(ia.max() + 1) * nb)
    h = entropy_rows
    ha = h(ca[None, :], np.array([float(Ka)]), N, alpha)[0]
    hb = h(cb[None, :], np.array([float(Kb)]), N, alpha)[0]
    hab = h(cab[None, :], np.array([float(Ka) * float(Kb)]), N, alpha)[0]
    return _clip0(ha + hb - hab)


@validate_params({"a": _ARR, "b": _ARR, "c": _ARR, "size_a": _SIZE,
                  "size_b": _SIZE, "size_c": _SIZE, "alpha": _ALPHA})
def smoothed_conditional_mutual_information(a: Any, b: Any, c: Any, *, size_a: int,
                                            size_b: int, size_c: int,
                                            alpha: float = 1.0) -> float:
    """Smoothed conditional mutual information ``I(A; B | C)`` by the chain rule.

    ``I(A; B | C) = I(A; (B, C)) - I(A; C)``, each term from
    :func:`smoothed_mutual_information` with the pair ``(B, C)`` coded as
    ``c * size_b + b`` over the alphabet ``size_b * size_c``. This is exactly how
    :func:`ensel.select.greedy_mi` scores candidate ``j`` given the selected set ``S``
    (``A = Y``, ``B = X_j``, ``C = X_S``). Because each term is smoothed and clipped at 0
    separately, the difference can be slightly negative on small samples; it is returned
    as is (not clipped).

    Parameters
    ----------
    a, b, c : array-like of int, shape (n_samples,)
        Integer codes in ``[0, size_a)``, ``[0, size_b)``, ``[0, size_c)``.
    size_a, size_b, size_c : int
        Alphabet sizes.
    alpha : float, default=1.0
        Laplace pseudo-count.

    Returns
    -------
    float
    """
    ac, bc, cc = _check_codes(a, "a"), _check_codes(b, "b"), _check_codes(c, "c")
    if not ac.shape == bc.shape == cc.shape:
        raise constraint_error("b, c", f"of the same length as a ({ac.size})",
                               Shown(f"lengths {bc.size} and {cc.size}"))
    Ka, Kb, Kc = (check_int(size_a, "size_a", low=1), check_int(size_b, "size_b", low=1),
                  check_int(size_c, "size_c", low=1))
    al = check_real(alpha, "alpha", low=0, low_open=True, what="the Laplace pseudo-count")
    _check_range(ac, Ka, "a", "size_a")
    _check_range(bc, Kb, "b", "size_b")
    _check_range(cc, Kc, "c", "size_c")
    return _smoothed_cmi_codes(ac, bc, cc, Ka, Kb, Kc, al)


def _smoothed_cmi_codes(a: np.ndarray, b: np.ndarray, c: np.ndarray, Ka: int, Kb: int,
                        Kc: int, alpha: float) -> float:
    if Kb * Kc <= MAX_PATTERN_SIZE:
        bc = c * Kb + b
    else:  # relabel observed (b, c) pairs; the nominal alphabet stays Kb*Kc
        raise constraint_error("size_c", f"at most 2**62 / size_b = {MAX_PATTERN_SIZE // Kb} "
                               "(the pair alphabet is coded in int64)", Kc)
    return (_smoothed_mi_codes(a, bc, Ka, Kb * Kc, alpha)
            - _smoothed_mi_codes(a, c, Ka, Kc, alpha))


# ---------------------------------------------------------------------------
# Exact quantities on joint probability tables
# ---------------------------------------------------------------------------

def _norm_axes(axes: int | Iterable[int], ndim: int, name: str) -> tuple[int, ...]:
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, (bool, np.bool_)):
        axes = (int(axes),)
    out = []
    for ax in axes:  # type: ignore[union-attr]
        if isinstance(ax, (bool, np.bool_)) or not isinstance(ax, (int, np.integer)):
            raise constraint_error(name, f"integer axes in [0, {ndim - 1}]", ax)
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise constraint_error(name, f"axes in [0, {ndim - 1}] (the table has {ndim} axes)",
                                   ax)
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise constraint_error(name, "distinct axes", tuple(out))
    return tuple(sorted(out))


def _marginal(p: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    drop = tuple(ax for ax in range(p.ndim) if ax not in axes)
    return p.sum(axis=drop, keepdims=True)


def _disjoint(**groups: tuple[int, ...]) -> None:
    names = list(groups)
    for i, ni in enumerate(names):
        for nj in names[i + 1:]:
            common = set(groups[ni]) & set(groups[nj])
            if common:
                raise constraint_error(nj, f"axes disjoint from {ni}",
                                       Shown(f"axis {min(common)} in both"))


@validate_params({"p": _ARR, "axes": [*_AXES, None]})
def entropy_table(p: Any, axes: int | Iterable[int] | None = None) -> float:
    """Exact joint entropy (bits) of the variables on ``axes`` of a probability table.

    Parameters
    ----------
    p : array-like
        Joint probability table, one axis per variable (non-negative, sums to 1).
    axes : int or iterable of int, optional
        The variables whose joint entropy is wanted. Default: all axes. An empty
        iterable gives 0.

    Returns
    -------
    float
    """
    arr = _check_prob(p)
    ax = tuple(range(arr.ndim)) if axes is None else _norm_axes(axes, arr.ndim, "axes")
    if not ax:
        return 0.0
    return _clip0(-float(_plogp_sum(_marginal(arr, ax))))


@validate_params({"p": _ARR, "axes_a": _AXES, "axes_b": _AXES})
def mutual_information_table(p: Any, axes_a: int | Iterable[int],
                             axes_b: int | Iterable[int]) -> float:
    """Exact mutual information ``I(A; B)`` (bits) on a joint probability table.

    Computed as ``sum p(a,b) log2[p(a,b) / (p(a) p(b))]`` (more accurate than the entropy
    difference near independence), and clipped at 0 against rounding. A product table gives
    exactly 0 whenever the floating-point ratio is exactly 1 (e.g. dyadic probabilities).

    Parameters
    ----------
    p : array-like
        Joint probability table, one axis per variable.
    axes_a, axes_b : int or iterable of int
        Disjoint groups of axes forming ``A`` and ``B``. An empty group gives 0.

    Returns
    -------
    float
    """
    arr = _check_prob(p)
    a = _norm_axes(axes_a, arr.ndim, "axes_a")
    b = _norm_axes(axes_b, arr.ndim, "axes_b")
    _disjoint(axes_a=a, axes_b=b)
    return _cmi(arr, a, b, ())


@validate_params({"p": _ARR, "axes_a": _AXES, "axes_b": _AXES, "axes_c": _AXES})
def conditional_mutual_information_table(p: Any, axes_a: int | Iterable[int],
                                         axes_b: int | Iterable[int],
                                         axes_c: int | Iterable[int]) -> float:
    """Exact conditional mutual information ``I(A; B | C)`` (bits) on a probability table.

    ``sum p(a,b,c) log2[p(a,b,c) p(c) / (p(a,c) p(b,c))]``, clipped at 0 against rounding.
    With ``axes_c`` empty it equals :func:`mutual_information_table`.
    """
    arr = _check_prob(p)
    a = _norm_axes(axes_a, arr.ndim, "axes_a")
    b = _norm_axes(axes_b, arr.ndim, "axes_b")
    c = _norm_axes(axes_c, arr.ndim, "axes_c")
    _disjoint(axes_a=a, axes_b=b, axes_c=c)
    return _cmi(arr, a, b, c)


def _cmi(p: np.ndarray, a: tuple[int, ...], b: tuple[int, ...], c: tuple[int, ...]) -> float:
    if not a or not b:
        return 0.0
    pabc = _marginal(p, a + b + c)
    pac = _marginal(p, a + c)
    pbc = _marginal(p, b + c)
    pc = _marginal(p, c) if c else np.ones((1,) * p.ndim)
    # sum of logs, not log of products: the products of tiny masses underflow to 0
    # (every marginal is >= pabc, so the logs are finite wherever pabc > 0)
    pos = pabc > 0
    pabc, pac, pbc, pc = np.broadcast_arrays(pabc, pac, pbc, pc)
    pabc, pac, pbc, pc = pabc[pos], pac[pos], pbc[pos], pc[pos]
    terms = pabc * (np.log2(pabc) + np.log2(pc) - np.log2(pac) - np.log2(pbc))
    return _clip0(float(terms.sum()))


# ---------------------------------------------------------------------------
# Theorem 4.3 / Eq. (10): the decomposition of the marginal gain
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class DecompositionTerms:
    """The terms of the paper's Theorem 4.3 for candidate ``j`` and selected set ``S``.

    ``delta = relevance - redundancy + error_correlation + correction`` holds exactly for
    the exact quantities (:func:`decomposition_terms_exact`) and only approximately for
    smoothed estimates (:func:`decomposition_terms`).

    Attributes
    ----------
    relevance : float
        ``I(Y; X_j)`` (Term 1, "accuracy").
    redundancy : float
        ``I(X_j; X_S)`` (Term 2, enters with a minus sign).
    error_correlation : float
        ``I(E_j; E_S)`` (Term 3).
    correction : float
        ``Lambda_j(S) = I(E_j; Y | E_S) - I(E_j; Y)`` (label-dependence correction).
    delta : float
        ``Delta(j | S) = I(Y; X_j | X_S)``, the marginal information gain.
    """

    relevance: float
    redundancy: float
    error_correlation: float
    correction: float
    delta: float

    @property
    def three_term(self) -> float:
        """Eq. (10): ``relevance - redundancy + error_correlation`` (``Lambda`` dropped)."""
        return self.relevance - self.redundancy + self.error_correlation

    @property
    def four_term(self) -> float:
        """Right-hand side of Theorem 4.3: ``three_term + correction``."""
        return self.three_term + self.correction


@validate_params({"p": _ARR})
def error_indicator_table(p: Any) -> np.ndarray:
    """Joint law of ``(Y, E_1, ..., E_m)`` from the joint law of ``(Y, X_1, ..., X_m)``.

    Index 0 of every axis of ``p`` is the answer ``-1`` and index 1 is ``+1``; in the result
    axis 0 is still ``Y`` and index ``e`` of axis ``j`` is ``E_j = e`` with
    ``E_j = 1(X_j != Y)``. Given ``Y`` the map ``X -> E`` is a bijection (the paper's
    ``X_j = Y (-1)^{E_j}``): for ``Y = -1`` the table is unchanged, for ``Y = +1`` every
    model axis is flipped.

    Parameters
    ----------
    p : array-like of shape (2, 2, ..., 2)
        Joint probability table of ``(Y, X_1, ..., X_m)``.

    Returns
    -------
    numpy.ndarray of the same shape
    """
    arr = _check_binary_table(p)
    out = arr.copy()
    flip = tuple(range(arr.ndim - 1))  # model axes of arr[1]
    out[1] = np.flip(arr[1], axis=flip) if flip else arr[1]
    return out


def _check_binary_table(p: Any) -> np.ndarray:
    arr = _check_prob(p)
    if arr.ndim < 2 or any(s != 2 for s in arr.shape):
        raise constraint_error("p", "the joint law of (Y, X_1, ..., X_m) with shape (2, 2, ..., "
                               "2) (at least 2 axes, index 0 = -1, index 1 = +1)",
                               Shown(f"shape {arr.shape}"))
    return arr


def _check_j_S(j: Any, S: Iterable[int], m: int) -> tuple[int, tuple[int, ...]]:
    jj = _check_columns([j], m, name="j")[0]
    SS = tuple(_check_columns(list(S), m, name="S"))
    if jj in SS:
        raise constraint_error("j", f"a model not in S={SS} (the candidate)", jj)
    return jj, SS


@validate_params({"p": _ARR, "j": _INDEX, "S": ["iterable"]})
def decomposition_terms_exact(p: Any, j: int, S: Iterable[int]) -> DecompositionTerms:
    """Exact terms of Theorem 4.3 on the joint law of ``(Y, X_1, ..., X_m)``.

    Parameters
    ----------
    p : array-like of shape (2,) * (m + 1)
        Joint probability table; axis 0 is ``Y``, axis ``1 + i`` is model ``i``
        (0-based model index); index 0 = answer ``-1``, index 1 = ``+1``.
    j : int
        Candidate model (0-based).
    S : iterable of int
        Selected models (0-based, not containing ``j``; may be empty).

    Returns
    -------
    DecompositionTerms
        With ``delta == relevance - redundancy + error_correlation + correction`` up to
        rounding (Theorem 4.3).
    """
    arr = _check_binary_table(p)
    m = arr.ndim - 1
    jj, SS = _check_j_S(j, S, m)
    pe = error_indicator_table(arr)
    ax_j = (1 + jj,)
    ax_S = tuple(1 + s for s in SS)
    rel = _cmi(arr, (0,), ax_j, ())
    red = _cmi(arr, ax_j, ax_S, ())
    err = _cmi(pe, ax_j, ax_S, ())
    lam = _cmi(pe, ax_j, (0,), ax_S) - _cmi(pe, ax_j, (0,), ())
    delta = _cmi(arr, (0,), ax_j, ax_S)
    return DecompositionTerms(relevance=rel, redundancy=red, error_correlation=err,
                              correction=lam, delta=delta)


def _radix(col: np.ndarray) -> int:
    return 3 if bool((col == 0).any()) else 2


def _joint_codes(D: np.ndarray, radices: Sequence[int]) -> tuple[np.ndarray, int]:
    """Mixed-radix code of the columns of a digit matrix (column 0 least significant)."""
    codes = np.zeros(D.shape[0], dtype=np.int64)
    w = 1
    for t, r in enumerate(radices):
        codes += D[:, t].astype(np.int64) * w
        w *= int(r)
        if w > MAX_PATTERN_SIZE:
            raise constraint_error("S", "few enough models for at most 2**62 patterns",
                                   Shown(f"{len(radices)} models"))
    return codes, w


@validate_params({"X": _ARR, "y": _ARR, "j": _INDEX, "S": ["iterable"], "alpha": _ALPHA})
def decomposition_terms(X: Any, y: Any, j: int, S: Iterable[int], *,
                        alpha: float = 1.0) -> DecompositionTerms:
    """Smoothed estimates of the terms of Theorem 4.3 from answers and labels.

    Every mutual information is :func:`smoothed_mutual_information`; conditional ones use
    the chain rule (:func:`smoothed_conditional_mutual_information`). The alphabet of
    ``X_i`` is ``{-1, +1}`` (size 2), or ``{-1, 0, +1}`` (size 3) when column ``i``
    contains an abstention; ``X_S`` has the product alphabet (``2^|S|`` without
    abstentions) and ``E_S`` has ``2^|S|`` (an abstention counts as an error). The identity
    of Theorem 4.3 does not hold exactly for smoothed estimates (nor, with abstentions,
    for the exact laws, since ``X_j -> E_j`` is then not a bijection given ``Y``).

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
    y : array-like of shape (n_items,)
    j : int
        Candidate model (column index).
    S : iterable of int
        Selected models (column indices, not containing ``j``).
    alpha : float, default=1.0
        Laplace pseudo-count.

    Returns
    -------
    DecompositionTerms
    """
    Xa, ya = check_X_y(X, y)
    al = check_real(alpha, "alpha", low=0, low_open=True, what="the Laplace pseudo-count")
    jj, SS = _check_j_S(j, S, Xa.shape[1])
    yc = label_bits(ya)
    dX = answer_digits(Xa[:, [jj, *SS]])
    rX = [_radix(Xa[:, c]) for c in (jj, *SS)]
    xj, Kxj = dX[:, 0], rX[0]
    xS, KxS = _joint_codes(dX[:, 1:], rX[1:])
    E = (Xa[:, [jj, *SS]] != ya[:, None]).astype(np.int64)
    ej = E[:, 0]
    eS, KeS = _joint_codes(E[:, 1:], [2] * len(SS))
    mi = _smoothed_mi_codes
    rel = mi(yc, xj, 2, Kxj, al)
    red = mi(xj, xS, Kxj, KxS, al)
    err = mi(ej, eS, 2, KeS, al)
    lam = _smoothed_cmi_codes(ej, yc, eS, 2, 2, KeS, al) - mi(ej, yc, 2, 2, al)
    delta = _smoothed_cmi_codes(yc, xj, xS, 2, Kxj, KxS, al)
    return DecompositionTerms(relevance=rel, redundancy=red, error_correlation=err,
                              correction=lam, delta=delta)
