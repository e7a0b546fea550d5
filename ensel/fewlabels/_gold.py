"""The answers and the gold with gaps of :mod:`ensel.fewlabels`, as one pool of codes (private).

Two views are read, said by the input and never guessed from its values:

* an :class:`ensel.data.OptionMatrix`: option codes ``0..K_i-1`` (``-1`` = abstained); the
  gold is its ``gold`` (``-1`` = none) unless ``y`` is given, as codes or as option labels;
* a binary answer matrix (``{-1, +1}``, ``0`` = abstained, or a DataFrame of them): the gold
  ``y`` in ``{-1, +1}`` with ``0``/``NaN``/``None`` for an item without gold. Internally a
  binary answer is the option code ``1`` for ``+1`` and ``0`` for ``-1``.

``y`` may be a pandas Series indexed by item names (the OptionMatrix's ``items``, the
DataFrame's index): it is aligned by name, a label for an item that is not in the answers
and two different labels for one item are refused naming them. A Series with a default
``RangeIndex`` (and any other array) is read by position.

One check of a gold value, two phrasings: a value passed to a function is a parameter
(``y of choose_with_labels must be ...``, :func:`ensel._validation.constraint_error`); a
value read from a file (``lines``: the file line of each entry of ``y``, ``func`` naming the
file, as ``ensel ... --labels FILE`` does) is a :class:`~ensel._errors.DataError` naming the
file, the line, the column and the value, as the table reader :mod:`ensel.data` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import DataError, EnselError
from ensel._validation import Shown, check_X, constraint_error
from ensel.data import OptionMatrix

__all__: list[str] = []


@dataclass(frozen=True)
class Pool:
    """Answers as option codes and the gold with gaps, one view."""

    A: np.ndarray  # (n, m) int64 codes, -1 = abstained
    gold: np.ndarray  # (n,) int64 codes, -1 = no gold
    n_options: np.ndarray  # (n,) int64: K_i
    binary: bool
    models: list[Any]
    items: list[Any]
    options: list[tuple[str, ...]] | None = None

    @property
    def labelled(self) -> np.ndarray:
        return self.gold >= 0

    def label_of(self, i: int, code: int) -> str:
        """The option ``code`` of item ``i`` as the data name it (binary: ``+1``/``-1``)."""
        if self.options is None:
            return "+1" if code == 1 else "-1"
        return str(self.options[i][code])

    def y_labels(self, codes: np.ndarray) -> np.ndarray:
        """Class codes as the selectors of the view read them (binary: ``-1``/``+1``)."""
        return np.where(codes == 1, 1, -1).astype(np.int8) if self.binary else codes


def read_pool(A: Any, y: Any, func: str, *, lines: Any = None) -> Pool:
    """The pool of ``A`` and ``y`` (see the module text), its items in a canonical order (by
    a hash of their names), so that nothing downstream depends on the order of the rows;
    every refusal names the value (``lines``: ``y`` was read from the file ``func`` names,
    entry ``k`` from its line ``lines[k]``)."""
    pool = _read_pool(A, y, func, lines)
    keys = pd.util.hash_array(np.asarray([str(i) for i in pool.items], dtype=object),
                              categorize=False)
    o = np.argsort(keys, kind="stable")
    return Pool(pool.A[o], pool.gold[o], pool.n_options[o], pool.binary, pool.models,
                [pool.items[i] for i in o],
                None if pool.options is None else [pool.options[i] for i in o])


def _read_pool(A: Any, y: Any, func: str, lines: Any = None) -> Pool:
    if isinstance(A, OptionMatrix):
        codes = np.asarray(A.A, dtype=np.int64)
        k = np.asarray(A.n_options, dtype=np.int64)
        items = list(A.items)
        fast = None if y is None else _numeric(y, len(items), "iu")
        if y is None:
            gold = np.asarray(A.gold, dtype=np.int64)
        elif fast is not None and np.all((fast == -1) | ((fast >= 0) & (fast < k))):
            gold = fast.astype(np.int64)  # integer codes, all valid: no per-item pass
        else:
            gold = _gold(y, items, lambda i, v: _option_code(v, A.options[i]), func, lines)
        return Pool(codes, gold, k, False, list(A.models), items, list(A.options))
    X = check_X(A, name="A")
    n, m = X.shape
    codes = np.where(X == 0, -1, (X > 0).astype(np.int64)).astype(np.int64)
    # tolist: the same names as iterating the index, without a Python step per entry
    models = A.columns.tolist() if isinstance(A, pd.DataFrame) else [f"m{j}" for j in range(m)]
    items = A.index.tolist() if isinstance(A, pd.DataFrame) else list(range(n))
    if y is None:
        raise constraint_error("y", "the gold of each item (+1/-1, 0 or NaN where there is "
                               "none) for binary answers", None, func=func)
    fast = _numeric(y, n, "iuf")
    if fast is not None and np.all(np.isnan(fast) | np.isin(fast, (1.0, -1.0, 0.0))):
        gold = np.where(np.isnan(fast) | (fast == 0), -1, (fast > 0).astype(np.int64))
    else:
        gold = _gold(y, items, lambda i, v: _binary_code(v), func, lines)
    return Pool(codes, gold, np.full(n, 2, dtype=np.int64), True, models, items)


def _numeric(y: Any, n: int, kinds: str) -> np.ndarray | None:
    """``y`` as floats when it is a plain numeric array of ``n`` entries of a dtype kind in
    ``kinds`` (not aligned by item names): the fast path; else ``None``, for the per-item
    reading that names a bad value."""
    if isinstance(y, pd.Series) and not isinstance(y.index, pd.RangeIndex):
        return None
    if not isinstance(y, np.ndarray | pd.Series):
        return None
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] != n or arr.dtype.kind not in kinds:
        return None
    return arr.astype(float)


def _missing(v: Any) -> bool:
    if v is None or (isinstance(v, str) and not v.strip()):
        return True
    try:
        return bool(isinstance(v, float | np.floating) and math.isnan(float(v)))
    except (TypeError, ValueError):
        return False


class _NotGold(EnselError):
    """A value that is not a gold label of its item (``expected``: what would be; ``more``:
    what else to say of the item); :func:`_coded` phrases it for a parameter or a file, so
    it never leaves this module."""

    def __init__(self, expected: str, more: str = "") -> None:
        super().__init__(expected)
        self.expected, self.more = expected, more


def _binary_code(v: Any) -> int:
    if _missing(v):
        return -1
    if isinstance(v, bool | np.bool_):
        return int(bool(v))
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = math.nan
    if f in (1.0, -1.0, 0.0):
        return -1 if f == 0.0 else int(f > 0)
    raise _NotGold("+1, -1, or 0/NaN for an item without gold")


def _option_code(v: Any, options: tuple[str, ...]) -> int:
    if _missing(v):
        return -1
    if isinstance(v, str):
        if v.strip() in options:
            return options.index(v.strip())
    elif isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_):
        if int(v) == -1:
            return -1
        if 0 <= int(v) < len(options):
            return int(v)
    raise _NotGold("the gold option of each item, as its label or its code 0..K-1 (-1, NaN "
                   "or blank where there is none)", f", whose options are {'|'.join(options)}")


def _coded(code: Any, i: int, v: Any, name: Any, k: int, func: str, lines: Any) -> int:
    """``code(i, v)`` of entry ``k`` of ``y`` (item ``name``), a refusal phrased for a
    parameter, or (``lines``) for the file ``func`` names, at its line ``lines[k]``."""
    try:
        return int(code(i, v))
    except _NotGold as bad:
        if lines is None:
            raise constraint_error("y", bad.expected, Shown(
                f"{v!r} for item {name!r}{bad.more}"), func=func) from None
        raise DataError(f"{func}: column 'label' has value {v!r} in line {int(lines[k])} "
                        f"(item {name!r}{bad.more}); expected {bad.expected}") from None


def _gold(y: Any, items: list[Any], code: Any, func: str, lines: Any = None) -> np.ndarray:
    n = len(items)
    if isinstance(y, pd.Series) and not isinstance(y.index, pd.RangeIndex):
        return _gold_by_name(y, items, code, func, lines)
    values = list(y.tolist() if isinstance(y, pd.Series | np.ndarray) else y)
    if len(values) != n:
        raise constraint_error("y", f"one gold entry per item ({n:,} items)",
                               Shown(f"{len(values):,} entries"), func=func)
    return np.array([_coded(code, i, v, items[i], i, func, lines)
                     for i, v in enumerate(values)], dtype=np.int64)


def check_known(names: Any, known: Any, func: str, lines: Any = None) -> None:
    """Refuse gold for an item that is not in the answers (``known``: their names), naming
    the first such item and how many there are (``lines``: at its line of the file ``func``
    names)."""
    stray = [k for k, name in enumerate(names) if name not in known]
    if not stray:
        return
    first = names[stray[0]]
    if lines is None:
        raise DataError(
            f"y of {func}: labels for {len(stray):,} item(s) that are not in the answers, "
            f"e.g. {', '.join(repr(names[k]) for k in stray[:3])} (the answers have "
            f"{len(known):,} items)")
    more = f"; {len(stray) - 1:,} more such items" if len(stray) > 1 else ""
    raise DataError(f"{func}: line {int(lines[stray[0]])} has a label for item {first!r}, "
                    f"which is not in the answers ({len(known):,} items){more}")


def _gold_by_name(y: pd.Series, items: list[Any], code: Any, func: str,
                  lines: Any = None) -> np.ndarray:
    where = {name: i for i, name in enumerate(items)}
    check_known(y.index, where, func, lines)
    gold = np.full(len(items), -1, dtype=np.int64)
    given: dict[Any, tuple[Any, int]] = {}
    for k, (name, v) in enumerate(y.items()):
        i = where[name]
        c = _coded(code, i, v, name, k, func, lines)
        if c < 0:
            continue
        if gold[i] >= 0 and gold[i] != c:
            first, j = given[name]
            if lines is None:
                raise DataError(f"y of {func}: item {name!r} has two different labels, "
                                f"{first!r} and {v!r}; give one gold label per item")
            raise DataError(f"{func}: item {name!r} has two different labels, {first!r} in "
                            f"line {int(lines[j])} and {v!r} in line {int(lines[k])}; give "
                            "one gold label per item")
        gold[i] = c
        given[name] = (v, k)
    return gold
