"""Input validation shared by every ``ensel`` module.

Every public function that takes answers ``X`` or labels ``y`` goes through these
helpers, so that a bad input always fails with the same clear message: which
argument, which column or position, which value, and what was expected.

Encoding used everywhere in ``ensel``:

* answers ``X``: ``int8`` array of shape ``(n_items, n_models)`` with values in
  ``{-1, 0, +1}``; ``0`` means the model abstained (no parsable answer);
* labels ``y``: ``int8`` array of shape ``(n_items,)`` with values in ``{-1, +1}``.

What users may pass is read by the one rule of :mod:`ensel._encoding` (the whole table at
once, identically for numpy arrays, DataFrames, CSV and Parquet files).
"""

from __future__ import annotations

import functools
import inspect
import math
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import UsageError

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "StrOptions",
    "VALIDATED",
    "validate_params",
    "as_pm1",
    "check_X",
    "check_y",
    "check_X_y",
    "check_options_X_y",
    "NO_OPTION",
    "check_k",
    "check_random_state",
    "check_copula_parameters",
    "check_distribution",
    "check_errors",
    "check_int",
    "check_option",
    "check_options",
    "check_probabilities",
    "check_real",
    "check_sample_weight",
    "check_subset",
    "constraint_error",
]

def _describe(value: Any) -> str:
    if isinstance(value, (np.ndarray, pd.DataFrame, pd.Series)) and value.size > 8:
        return f"{type(value).__name__} of shape {value.shape}"
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 120 else text[:100] + "..."


def _at_position(pos: tuple[int, ...]) -> str:
    return f"at position {pos}"


def _already_encoded(values: Any) -> np.ndarray | None:
    """An ``int8`` array (or a DataFrame of ``int8`` columns) with values in ``{-1, 0, +1}``:
    the form :func:`check_X` returns, taken as it is. Re-reading it with the table rule would
    turn the ``0`` (abstained) of a slice that happens to hold no ``-1`` into False."""
    if isinstance(values, pd.DataFrame):
        if values.shape[1] == 0 or not all(dt == np.int8 for dt in values.dtypes):
            return None
        arr = values.to_numpy()
    elif isinstance(values, (np.ndarray, pd.Series)) and values.dtype == np.int8:
        arr = np.asarray(values)
    else:
        return None
    # int8 values in {-1, 0, +1} are those in [-1, 1]: two reductions, no temporary array
    # (this runs on every slice every estimator receives)
    return arr if arr.size == 0 or (arr.min() >= -1 and arr.max() <= 1) else None


def _encoded_labels(values: Any) -> np.ndarray | None:
    """An ``int8`` array of labels in ``{-1, +1}``: what the rule reads it as (``+1/-1``),
    without classifying every cell. A copy, like the rule's output."""
    if not (isinstance(values, np.ndarray) and values.dtype == np.int8) or values.size == 0:
        return None
    return values.copy() if bool(((values == 1) | (values == -1)).all()) else None


def _refuse_sparse(values: Any, name: str) -> None:
    """A scipy sparse matrix is not accepted: say so (``np.asarray`` would make it a 0-d
    object array, reported as "shape ()")."""
    # by the type's module, not scipy.sparse.issparse: scipy is imported lazily, and another
    # thread may be importing it right now (a partly initialised module has no issparse)
    if type(values).__module__.startswith("scipy.sparse") and hasattr(values, "toarray"):
        raise InvalidParameterError(
            f"{name} is a scipy sparse matrix ({type(values).__name__} of shape "
            f"{values.shape}), which is not accepted; convert it with {name}.toarray()")


def as_pm1(values: Any, *, name: str, allow_abstain: bool,
           where: Callable[[tuple[int, ...]], str] | None = None,
           report: dict[str, str] | None = None) -> np.ndarray:
    """Normalise answers or labels to ``int8`` in ``{-1, +1}`` (and ``0`` for abstentions).

    An ``int8`` array of answers with values in ``{-1, 0, +1}`` is already in the form this
    function returns (``0`` = abstained) and is taken as it is, so a validated array, or any
    slice of one, is never re-read. Everything else follows the one encoding rule of
    :mod:`ensel._encoding`, applied to the **whole** array: blank /
    ``NaN`` / ``None`` = abstained (answers only); ``True``/``False`` and ``+1``/``-1``;
    ``0`` = abstained when the array also holds ``-1``; ``1``/``0`` = True/False only when the
    array holds nothing but ``0`` and ``1``; ambiguous mixtures (``0``/``1`` with blanks,
    ``True``/``False`` with ``0``) are refused with a message that says how to encode them.

    Parameters
    ----------
    values : array-like or pandas.DataFrame
        The values to convert (any shape; a DataFrame is taken as a whole, column by column
        for the cell types but with one decision for all columns).
    name : str
        Argument name used in error messages.
    allow_abstain : bool
        Whether abstentions are allowed (answers) or not (labels).
    where : callable, optional
        Turns a position tuple into text for messages (default ``"at position (i, j)"``).
    report : dict, optional
        Receives ``report["encoding"]``: the name of the encoding that was applied.

    Returns
    -------
    numpy.ndarray
        ``int8`` array of the same shape.

    Raises
    ------
    ValueError
        Naming the first offending value and its position.
    """
    _refuse_sparse(values, name)
    from ensel import _encoding as enc

    where = where or _at_position
    encoded = _already_encoded(values) if allow_abstain else None
    if encoded is not None:
        if report is not None:
            report["encoding"] = "int8 +1/0/-1 (already encoded)"
        return encoded
    labels = None if allow_abstain else _encoded_labels(values)
    if labels is not None:
        if report is not None:
            report["encoding"] = "+1/-1"
        return labels
    if isinstance(values, pd.DataFrame):
        raw = values.to_numpy(dtype=object)
        kinds = (np.column_stack([enc.classify(values.iloc[:, j]) for j in range(values.shape[1])])
                 if values.shape[1] else np.empty(values.shape, np.int8))
    else:
        raw = np.asarray(values)
        kinds = enc.classify(raw)
    bad = kinds == enc.BAD
    if bad.any():
        pos = tuple(int(i) for i in np.argwhere(bad)[0])
        expected = ("+1/-1, True/False, 1/0 (whole table), or blank (abstained)"
                    if allow_abstain else "+1/-1, 1/0 or True/False")
        raise ValueError(
            f"{name} has value {_describe(raw[pos])} {where(pos)}; expected {expected}"
        )
    if not allow_abstain:
        blank = kinds == enc.BLANK
        if blank.any():
            pos = tuple(int(i) for i in np.argwhere(blank)[0])
            raise ValueError(
                f"{name} is missing (blank, NaN or None) {where(pos)}; expected -1/+1, 1/0 "
                "or True/False (missing labels are not allowed)"
            )
    try:
        out, used = enc.decide(kinds, allow_abstain=allow_abstain)
    except enc._Ambiguous as exc:
        pos = tuple(int(i) for i in np.argwhere(kinds == exc.kind)[0])
        raise ValueError(f"{name} " + exc.reason.format(at=where(pos))) from None
    if report is not None:
        report["encoding"] = used
    if allow_abstain and used.startswith("1/0"):
        enc.notice_zero_one(name)
    return out


def check_X(X: Any, *, name: str = "X", allow_abstain: bool = True) -> np.ndarray:
    """Validate an answer matrix and return it as ``int8`` in ``{-1, 0, +1}``.

    Parameters
    ----------
    X : array-like or pandas.DataFrame of shape (n_items, n_models)
        Model answers. A DataFrame must have unique column names (one per model).
    name : str, default="X"
        Name used in error messages.
    allow_abstain : bool, default=True
        Whether ``0`` (abstained) is allowed.

    Returns
    -------
    numpy.ndarray of shape (n_items, n_models), dtype int8
    """
    _refuse_sparse(X, name)
    if isinstance(X, pd.DataFrame):
        dup = X.columns[X.columns.duplicated()]
        if len(dup):
            raise ValueError(f"{name} has model {dup[0]!r} as a column more than once")
        cols = list(X.columns)

        def where(pos: tuple[int, ...]) -> str:
            return f"in column {cols[pos[1]]!r}, row {pos[0]}"

        # one decision for the whole table, exactly as for the same values in a numpy array
        arr = as_pm1(X, name=name, allow_abstain=allow_abstain, where=where)
    else:
        raw = np.asarray(X)
        if raw.ndim != 2:
            raise constraint_error(name, "2-dimensional (n_items, n_models)",
                                   Shown(f"shape {raw.shape}"))
        arr = as_pm1(raw, name=name, allow_abstain=allow_abstain)
    if arr.ndim != 2:
        raise constraint_error(name, "2-dimensional (n_items, n_models)",
                               Shown(f"shape {arr.shape}"))
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise constraint_error(name, "non-empty (at least one item and one model)",
                               Shown(f"shape {arr.shape}"))
    return arr


def check_y(y: Any, *, name: str = "y", n_items: int | None = None,
            require_both_classes: bool = False) -> np.ndarray:
    """Validate labels and return them as ``int8`` in ``{-1, +1}``.

    Parameters
    ----------
    y : array-like of shape (n_items,)
    name : str, default="y"
    n_items : int, optional
        Expected length (the number of rows of ``X``).
    require_both_classes : bool, default=False
        Raise if only one class is present (methods that estimate class statistics).

    Returns
    -------
    numpy.ndarray of shape (n_items,), dtype int8
    """
    _refuse_sparse(y, name)
    raw = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if raw.ndim != 1:
        raise constraint_error(name, "1-dimensional (n_items,)", Shown(f"shape {raw.shape}"))
    arr = as_pm1(raw, name=name, allow_abstain=False)
    if n_items is not None and arr.shape[0] != n_items:
        raise ValueError(f"{name} has {arr.shape[0]} labels but X has {n_items} rows")
    if require_both_classes:
        present = np.unique(arr)
        if present.size < 2:
            raise constraint_error(
                name, "labels of both classes (-1 and +1): this method estimates class "
                "statistics", Shown(f"only the label {int(present[0]):+d}"))
    return arr


def check_X_y(X: Any, y: Any, *, allow_abstain: bool = True,
              require_both_classes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Validate answers and labels together (shapes must agree)."""
    Xa = check_X(X, allow_abstain=allow_abstain)
    ya = check_y(y, n_items=Xa.shape[0], require_both_classes=require_both_classes)
    return Xa, ya


# --------------------------------------------------------------------------- option labels
#: The code of an abstention (no answer, or no gold) in option codes.
NO_OPTION = -1


def _option_cells(values: Any, name: str, where: Callable[[tuple[int, ...]], str]
                  ) -> tuple[np.ndarray, np.ndarray, str]:
    """``(values, missing, kind)`` of option labels: ``kind`` is ``"int"`` (integer codes,
    ``-1`` and, in a float array, ``NaN`` = missing) or ``"str"`` (``None``, ``NaN`` and
    ``""`` = missing). Anything else (a real number that is not an integer, a label below
    ``-1``, strings mixed with numbers) is refused naming its position."""
    raw = np.asarray(values)
    if raw.dtype.kind == "b":
        return raw.astype(np.int64), np.zeros(raw.shape, dtype=bool), "int"
    if raw.dtype.kind in "iu":
        if raw.size and raw.min() < NO_OPTION:  # one reduction; the position only on error
            pos = tuple(int(i) for i in np.argwhere(raw < NO_OPTION)[0])
            raise constraint_error(name, "option labels: integer codes >= 0 with -1 for no "
                                   "answer, or strings", Shown(f"{raw[pos]} {where(pos)}"))
        return raw, raw == NO_OPTION, "int"
    if raw.dtype.kind == "f":
        missing = np.isnan(raw)
        bad = ~missing & ((raw != np.round(raw)) | (raw < NO_OPTION))
        if bad.any():
            pos = tuple(int(i) for i in np.argwhere(bad)[0])
            raise constraint_error(name, "option labels: integer codes >= 0 with -1 or NaN "
                                   "for no answer, or strings",
                                   Shown(f"{float(raw[pos])!r} {where(pos)}"))
        ints = np.where(missing, NO_OPTION, raw).astype(np.int64)
        return ints, ints == NO_OPTION, "int"
    if raw.dtype.kind in "US":
        text = raw.astype(str)
        return text.astype(object), text == "", "str"
    if raw.dtype.kind != "O":
        raise constraint_error(name, "option labels (integer codes or strings)",
                               Shown(f"dtype {raw.dtype}"))
    flat = raw.ravel()
    missing = np.fromiter((v is None or v is pd.NA or v == "" or
                           (isinstance(v, float) and math.isnan(v)) for v in flat),
                          dtype=bool, count=flat.size).reshape(raw.shape)
    is_str = np.fromiter((isinstance(v, str) for v in flat), dtype=bool,
                         count=flat.size).reshape(raw.shape)
    if (is_str | missing).all():
        return raw, missing, "str"
    is_int = np.fromiter((isinstance(v, (int, np.integer)) and not _is_bool(v) for v in flat),
                         dtype=bool, count=flat.size).reshape(raw.shape)
    if (is_int | missing).all():
        ints = np.where(missing, NO_OPTION, raw).astype(np.int64)
        return _option_cells(ints, name, where)[0], ints == NO_OPTION, "int"
    odd = ~(is_str | missing) if is_str.any() else ~(is_int | missing)
    pos = tuple(int(i) for i in np.argwhere(odd)[0])
    want = ("strings (the other labels are strings)" if is_str.any()
            else "integer codes or strings")
    raise constraint_error(name, f"option labels of one kind: {want}, None/NaN/'' for no answer",
                           Shown(f"{_describe(raw[pos])} {where(pos)}"))


def _int_labels(values: np.ndarray) -> np.ndarray:
    """The distinct integer labels of an array, without sorting it when their range is
    small (one comparison pass per candidate value)."""
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo <= 64:
        return np.array([v for v in range(lo, hi + 1) if (values == v).any()], dtype=np.int64)
    return np.unique(values).astype(np.int64)


def check_options_X_y(X: Any, y: Any = None, *, classes: Any = None, require_y: bool = False
                      ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Validate option-label answers (and gold) and return them as codes into ``classes``.

    Multiple-choice answers: each cell of ``X`` is the option a model chose, as an integer
    code (``0..K-1``, ``-1`` = abstained) or a string label (``None``, ``NaN`` or ``""`` =
    abstained); ``y`` holds gold labels of the same kind, with the same markers for an item
    without gold. This is the K-ary counterpart of :func:`check_X_y` (whose answers are
    ``{-1, 0, +1}``).

    Parameters
    ----------
    X : array-like or pandas.DataFrame of shape (n_items, n_models)
    y : array-like of shape (n_items,), optional
        Gold labels; missing entries are items without gold.
    classes : array-like, optional
        The classes of a fitted estimator: every answer and gold label must be one of them
        (an unknown one is refused naming it and its position). Default: the sorted union
        of the labels in ``X`` and ``y``.
    require_y : bool, default=False
        ``y`` must be given with gold for at least one item.

    Returns
    -------
    A : numpy.ndarray of shape (n_items, n_models), dtype int8 (int32 beyond 127 classes)
        Codes into ``classes``; ``-1`` = abstained.
    yc : numpy.ndarray of shape (n_items,) or None
        Gold codes, ``-1`` where an item has none.
    classes : numpy.ndarray
        Sorted labels (integers, or strings as an object array).

    Examples
    --------
    >>> A, yc, classes = check_options_X_y([["b", "a"], ["c", None]], ["a", ""])
    >>> A.tolist(), yc.tolist(), classes.tolist()
    ([[1, 0], [2, -1]], [0, -1], ['a', 'b', 'c'])
    >>> check_options_X_y([[0, 2]], classes=[0, 1])
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: X must be labels among the classes seen at fit \
([0, 1]); got 2 in column 1, row 0
    """
    _refuse_sparse(X, "X")
    cols: list[Any] | None = None
    if isinstance(X, pd.DataFrame):
        dup = X.columns[X.columns.duplicated()]
        if len(dup):
            raise ValueError(f"X has model {dup[0]!r} as a column more than once")
        cols = list(X.columns)
        textual = any(dt.kind in "OUS" or str(dt) in ("string", "str") for dt in X.dtypes)
        values = X.to_numpy(dtype=object) if textual else X.to_numpy()
    else:
        values = X.to_numpy() if hasattr(X, "to_numpy") else X

    def where_x(pos: tuple[int, ...]) -> str:
        col = repr(cols[pos[1]]) if cols is not None else pos[1]
        return f"in column {col}, row {pos[0]}"

    raw = np.asarray(values)
    if raw.ndim != 2:
        raise constraint_error("X", "2-dimensional (n_items, n_models)",
                               Shown(f"shape {raw.shape}"))
    if raw.shape[0] == 0 or raw.shape[1] == 0:
        raise constraint_error("X", "non-empty (at least one item and one model)",
                               Shown(f"shape {raw.shape}"))
    xv, xmiss, xkind = _option_cells(raw, "X", where_x)
    if classes is None and xmiss.all():
        raise constraint_error("X", "at least one answer (every model abstained on every "
                               "item)", Shown(f"shape {raw.shape}"))
    yv = ymiss = None
    if y is None and require_y:
        raise constraint_error("y", "gold labels (this aggregator is fitted on them)", None)
    if y is not None:
        _refuse_sparse(y, "y")
        yraw = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
        if yraw.ndim != 1:
            raise constraint_error("y", "1-dimensional (n_items,)", Shown(f"shape {yraw.shape}"))
        if yraw.shape[0] != raw.shape[0]:
            raise ValueError(f"y has {yraw.shape[0]} labels but X has {raw.shape[0]} rows")
        yv, ymiss, ykind = _option_cells(yraw, "y", lambda pos: f"at position {pos[0]}")
        if ykind != xkind and not ymiss.all() and not xmiss.all():
            raise constraint_error("y", f"labels of the kind of X's answers ({xkind} labels)",
                                   Shown(f"{ykind} labels"))
        if require_y and ymiss.all():
            raise constraint_error("y", "gold for at least one item (this aggregator is "
                                   "fitted on it)", Shown("no gold at all"))
    if classes is None:
        if xkind == "int":
            labs = np.concatenate([_int_labels(v) for v in (xv, yv) if v is not None])
            cls = np.unique(labs[labs != NO_OPTION])
        else:
            seen = [xv[~xmiss]] + ([yv[~ymiss]] if yv is not None and ymiss is not None
                                   else [])
            pooled = np.concatenate([np.asarray(v, dtype=object) for v in seen])
            cls = np.array(sorted(set(pooled.tolist())), dtype=object)
    else:
        cls = np.asarray(classes)
    code_type = np.int8 if cls.size <= 127 else np.int32

    def encode(v: np.ndarray, miss: np.ndarray, name: str,
               where: Callable[[tuple[int, ...]], str]) -> np.ndarray:
        if (cls.dtype.kind in "iu" and v.dtype.kind in "iu" and v.size
                and np.array_equal(cls, np.arange(cls.size)) and int(v.max()) < cls.size):
            out = v  # codes already: 0..K-1 and -1
        elif cls.dtype.kind in "iu" and v.dtype.kind in "iu":
            hi = max(int(cls.max()), int(v.max(initial=0))) + 2
            lut = np.full(hi, -2, dtype=np.int64)
            lut[cls + 1] = np.arange(cls.size)
            lut[0] = NO_OPTION
            out = lut[v + 1]
        else:
            index = {c: i for i, c in enumerate(cls.tolist())}
            pairs = zip(v.ravel().tolist(), miss.ravel().tolist(), strict=True)
            out = np.fromiter((NO_OPTION if m else index.get(c, -2) for c, m in pairs),
                              dtype=np.int64, count=v.size).reshape(v.shape)
        unknown = out == -2
        if unknown.any():
            pos = tuple(int(i) for i in np.argwhere(unknown)[0])
            shown = cls.tolist()
            listed = shown if len(shown) <= 12 else shown[:12] + ["..."]
            raise constraint_error(name, f"labels among the classes seen at fit ({listed})",
                                   Shown(f"{_describe(v[pos])} {where(pos)}"))
        return out.astype(code_type)

    A = encode(xv, xmiss, "X", where_x)
    yc = (None if yv is None or ymiss is None else
          encode(yv, ymiss, "y", lambda pos: f"at position {pos[0]}"))
    return A, yc, cls


def check_sample_weight(sample_weight: Any, n_items: int, *,
                        func: str | None = None) -> np.ndarray | None:
    """Validate item weights: ``None``, or one finite weight ``>= 0`` per item of ``X``.

    Examples
    --------
    >>> check_sample_weight([1, 2, 1], 3).tolist()
    [1.0, 2.0, 1.0]
    >>> check_sample_weight([1, 2], 3, func="score")
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: sample_weight of score must be one weight \
per item of X (3 weights); got 2 weights
    """
    if sample_weight is None:
        return None
    _refuse_sparse(sample_weight, "sample_weight")
    raw = np.asarray(sample_weight.to_numpy() if isinstance(sample_weight, pd.Series)
                     else sample_weight)
    if raw.ndim != 1:
        raise constraint_error("sample_weight", f"1-dimensional, one weight per item of X "
                               f"({n_items} weights)", Shown(f"shape {raw.shape}"), func=func)
    if raw.shape[0] != n_items:
        raise constraint_error("sample_weight", f"one weight per item of X ({n_items} weights)",
                               Shown(f"{raw.shape[0]} weights"), func=func)
    try:
        w = raw.astype(float)
    except (TypeError, ValueError):
        raise constraint_error("sample_weight", "numbers", Shown(f"dtype {raw.dtype}"),
                               func=func) from None
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        raise constraint_error("sample_weight", "finite weights >= 0",
                               Shown(f"{float(w[bad[0]])!r} at position {int(bad[0])}"), func=func)
    if n_items and not w.sum() > 0:
        raise constraint_error("sample_weight", "weights with a positive sum",
                               Shown("all weights 0"), func=func)
    return w


def check_k(k: Any, n_models: int, *, name: str = "k", func: str | None = None) -> int:
    """Validate a budget ``1 <= k <= n_models`` and return it as ``int``.

    Examples
    --------
    >>> check_k(2, 3)
    2
    >>> check_k(4, 3, func="top_k")
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: k of top_k must be an integer in [1, 3] (at least 1, \
at most the number of models); got 4, which exceeds the number of models m=3
    """
    constraint = f"an integer in [1, {n_models}] (at least 1, at most the number of models)"
    if _is_bool(k) or not isinstance(k, (int, np.integer)):
        raise constraint_error(name, constraint, k, func=func)
    k = int(k)
    if k < 1:
        raise constraint_error(name, constraint, k, func=func)
    if k > n_models:
        raise constraint_error(name, constraint,
                               Shown(f"{k}, which exceeds the number of models m={n_models}"),
                               func=func)
    return k


def check_random_state(seed: int | np.random.Generator | None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from a seed, a Generator, or ``None``."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (int, np.integer)):
        return np.random.default_rng(seed)
    raise constraint_error("random_state", "an int, a numpy Generator or None", seed)


def unique_names(names: Sequence[Any], *, what: str = "model") -> list[Any]:
    """Raise if a name appears twice; return the names as a list."""
    seen: set[Any] = set()
    for nm in names:
        if nm in seen:
            raise ValueError(f"{what} name {nm!r} appears more than once")
        seen.add(nm)
    return list(names)


# --------------------------------------------------------------------------- constraints
# Small constraint helpers with one error format, used by every module instead of private
# copies:  "<param> of <function> must be <constraint>; got <value>".  The function is the
# public ``ensel`` function (or ``Class.method``) that was called; it is found on the stack
# when the caller does not name it, so the helpers can sit behind private functions.


class Shown(str):
    """A description shown as is in an error's ``got ...`` part (not quoted like a value)."""

    def __repr__(self) -> str:
        return str(self)


def _public_caller() -> str | None:
    """The outermost public ``ensel`` function on the stack (what the user called)."""
    frame = sys._getframe(2)
    found = None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("ensel"):
            break  # left the package: the frames above are the user's
        name = frame.f_code.co_name
        owner = frame.f_locals.get("self")
        if module != __name__ and name == "__init__" and owner is not None:
            found = type(owner).__name__  # a constructor: the class is what was called
        elif module != __name__ and not name.startswith("_") and not name.startswith("<"):
            found = f"{type(owner).__name__}.{name}" if owner is not None else name
        frame = frame.f_back  # type: ignore[assignment]
    return found


class InvalidParameterError(UsageError, TypeError):
    """A parameter outside its constraint (a ``ValueError`` and a ``TypeError``, as in
    scikit-learn: a wrong type and a wrong value are caught by either ``except``)."""


def constraint_error(name: str, constraint: str, value: Any, *,
                     func: str | None = None) -> ValueError:
    """The one error of every check: ``<name> of <func> must be <constraint>; got <value>``.

    Examples
    --------
    >>> str(constraint_error("k", "an int in [1, 5]", 0, func="top_k"))
    'k of top_k must be an int in [1, 5]; got 0'
    """
    func = func if func is not None else _public_caller()
    where = f"{name} of {func}" if func else name
    return InvalidParameterError(f"{where} must be {constraint}; got {_describe(value)}")


def _interval(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    left = "(" if low_open or low is None else "["
    right = ")" if high_open or high is None else "]"
    return f"{left}{lo}, {hi}{right}"


def _outside(x: float, low: float | None, high: float | None, low_open: bool,
             high_open: bool) -> bool:
    if low is not None and (x < low or (low_open and x == low)):
        return True
    return high is not None and (x > high or (high_open and x == high))


def check_real(value: Any, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False, what: str | None = None,
               func: str | None = None) -> float:
    """A finite real number in an interval; returns it as ``float``.

    Examples
    --------
    >>> check_real(0.3, "rho", low=0, high=1)
    0.3
    >>> check_real(1.5, "rho", low=0, high=1, func="saturation_floor")
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: rho of saturation_floor must be a real number in \
[0, 1]; got 1.5
    """
    constraint = f"a real number in {_interval(low, high, low_open, high_open)}"
    if what:
        constraint += f" ({what})"
    if isinstance(value, (bool, np.bool_)):
        raise constraint_error(name, constraint, value, func=func)
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise constraint_error(name, constraint, value, func=func) from None
    if not math.isfinite(x) or _outside(x, low, high, low_open, high_open):
        raise constraint_error(name, constraint, x, func=func)
    return x


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None,
              integral_float: bool = False, func: str | None = None) -> int:
    """An integer in ``[low, high]``; returns it as ``int`` (booleans are refused).

    Examples
    --------
    >>> check_int(3, "n_splits", low=1)
    3
    >>> check_int(0, "n_splits", low=1, func="evaluate")
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: n_splits of evaluate must be an int in [1, inf); got 0
    """
    constraint = f"an int in {_interval(low, high, False, False)}"
    if isinstance(value, (bool, np.bool_)):
        raise constraint_error(name, constraint, value, func=func)
    if integral_float and isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)):
        raise constraint_error(name, constraint, value, func=func)
    if _outside(int(value), low, high, False, False):
        raise constraint_error(name, constraint, int(value), func=func)
    return int(value)


def check_probabilities(values: Any, name: str, *, open_interval: bool = False,
                        size: int | None = None, func: str | None = None) -> np.ndarray:
    """A non-empty 1-d array of probabilities (rates) in ``[0, 1]`` or ``(0, 1)``.

    A scalar is read as one value, or broadcast to ``size`` values when ``size`` is given.

    Examples
    --------
    >>> check_probabilities([0.1, 0.3], "eps").tolist()
    [0.1, 0.3]
    >>> check_probabilities([0.1, 1.2], "eps", func="product_error_law")
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: eps[1] of product_error_law must be a probability \
in [0, 1]; got 1.2
    """
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        arr = np.full(size, float(arr)) if size is not None else arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise constraint_error(name, "a non-empty 1-dimensional array", Shown(f"shape {arr.shape}"),
                               func=func)
    if size is not None and arr.shape[0] != size:
        raise constraint_error(name, f"of length {size}", Shown(f"length {arr.shape[0]}"),
                               func=func)
    bad = ~np.isfinite(arr) | ((arr <= 0) | (arr >= 1) if open_interval else (arr < 0) | (arr > 1))
    if bad.any():
        i = int(np.argmax(bad))
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise constraint_error(f"{name}[{i}]", f"a probability in {interval}", float(arr[i]),
                               func=func)
    return arr


def check_distribution(p: Any, name: str, *, tol: float = 1e-6,
                       func: str | None = None) -> np.ndarray:
    """A non-empty 1-d probability distribution (finite, non-negative, sums to 1).

    Examples
    --------
    >>> check_distribution([0.25, 0.75], "p").tolist()
    [0.25, 0.75]
    """
    arr = np.asarray(p, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise constraint_error(name, "a non-empty 1-dimensional array", Shown(f"shape {arr.shape}"),
                               func=func)
    if not np.all(np.isfinite(arr)) or (arr < 0).any():
        i = int(np.argmax(~np.isfinite(arr) | (arr < 0)))
        raise constraint_error(f"{name}[{i}]", "a finite non-negative probability",
                               float(arr[i]), func=func)
    if abs(float(arr.sum()) - 1.0) > tol:
        raise constraint_error(name, "a distribution that sums to 1",
                               Shown(f"a sum of {float(arr.sum()):.6g}"), func=func)
    return arr


def check_option(value: Any, name: str, options: Sequence[Any], *,
                 func: str | None = None) -> Any:
    """One of ``options``.

    Examples
    --------
    >>> check_option("map", "aggregator", ["map", "mv", "wmv"])
    'map'
    """
    if not isinstance(value, Hashable) or value not in options:
        raise constraint_error(name, f"one of {', '.join(map(repr, options))}", value, func=func)
    return value


def check_options(values: Any, name: str, options: Sequence[Any], *,
                  func: str | None = None) -> list[Any]:
    """A non-empty list of values, each one of ``options`` (a string is one value; repeats
    are dropped, the first order kept)."""
    vals = list(dict.fromkeys([values] if isinstance(values, str) else list(values)))
    if not vals:
        raise constraint_error(name, f"a non-empty list of {', '.join(map(repr, options))}",
                               vals, func=func)
    for v in vals:
        check_option(v, name, options, func=func)
    return vals


def check_subset(S: Iterable[Any] | None, m: int, name: str = "S", *,
                 func: str | None = None) -> tuple[int, ...]:
    """Distinct model indices in ``[0, m)`` (``None`` = all ``m`` models).

    Examples
    --------
    >>> check_subset([2, 0], 3)
    (2, 0)
    """
    if S is None:
        return tuple(range(m))
    out: list[int] = []
    for s in S:
        if (isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer))
                or not 0 <= int(s) < m):
            raise constraint_error(name, f"model indices in [0, {m - 1}] (there are only {m} "
                                   "models)", s, func=func)
        out.append(int(s))
    if len(set(out)) != len(out):
        raise constraint_error(name, "distinct model indices (no repeats)", tuple(out), func=func)
    return tuple(out)


def check_errors(E: Any, *, name: str = "E", ndim: int | None = None,
                 func: str | None = None) -> np.ndarray:
    """0/1 error indicators (a matrix, or a vector), returned as ``int8``.

    Examples
    --------
    >>> check_errors([[1, 0], [0, 0]]).dtype
    dtype('int8')
    """
    raw = np.asarray(E.to_numpy() if hasattr(E, "to_numpy") else E)
    if raw.dtype == bool:
        raw = raw.astype(np.int8)
    if raw.dtype.kind not in "iuf":
        raise constraint_error(name, "0/1 error indicators", Shown(f"dtype {raw.dtype}"), func=func)
    if raw.ndim not in (1, 2) or (ndim is not None and raw.ndim != ndim):
        want = f"{ndim}-dimensional" if ndim else "1- or 2-dimensional"
        raise constraint_error(name, want, Shown(f"shape {raw.shape}"), func=func)
    if raw.size == 0 or raw.shape[0] == 0:
        raise constraint_error(name, "non-empty (at least one item)", Shown(f"shape {raw.shape}"),
                               func=func)
    bad = ~((raw == 0) | (raw == 1))
    if bad.any():
        pos = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} has value {raw[pos].item()!r} at position {pos}; expected 0/1 error "
            "indicators (use errors_from(X, y) to build them from answers)"
        )
    return raw.astype(np.int8, copy=False)


def check_copula_parameters(tau: Any, Sigma: Any) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian-copula thresholds ``tau`` (1-d, no NaN) and a matching correlation matrix
    ``Sigma`` (square, finite, symmetric, unit diagonal), as float arrays."""
    t = np.asarray(tau, dtype=float)
    if t.ndim != 1 or t.size == 0:
        raise constraint_error("tau", "a non-empty 1-dimensional array", Shown(f"shape {t.shape}"))
    if np.isnan(t).any():
        raise constraint_error("tau", "free of NaN",
                               Shown(f"NaN at position {int(np.argmax(np.isnan(t)))}"))
    S = np.asarray(Sigma, dtype=float)
    m = t.shape[0]
    if S.shape != (m, m):
        raise constraint_error("Sigma", f"of shape ({m}, {m}) to match tau",
                               Shown(f"shape {S.shape}"))
    if not np.all(np.isfinite(S)):
        raise constraint_error("Sigma", "finite", Shown("a non-finite entry"))
    if not np.allclose(S, S.T, atol=1e-10):
        raise constraint_error("Sigma", "symmetric", Shown("an asymmetric matrix"))
    if not np.allclose(np.diag(S), 1.0, atol=1e-8):
        raise constraint_error("Sigma", "a correlation matrix with unit diagonal",
                               Shown(f"a diagonal of {np.diag(S).tolist()!r}"))
    return t, S


# --------------------------------------------------------------------------- declarations
# Constraints declared on the public functions, checked by one decorator (scikit-learn's
# ``validate_params`` is the model). A parameter satisfies its declaration when it satisfies
# any of the listed constraints; otherwise the one error format names the parameter, the
# function and every accepted form.


class _Constraint:
    """A declared constraint: ``is_satisfied_by(value)`` and its description."""

    def is_satisfied_by(self, value: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def __str__(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


class Interval(_Constraint):
    """A number of a type (``Integral`` or ``Real``) in an interval; ``None`` = unbounded.

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``. Booleans are
    never numbers here; a ``Real`` must be finite.

    Examples
    --------
    >>> str(Interval(Integral, 1, None))
    'an int in [1, inf)'
    >>> Interval(Real, 0, 1, closed="neither").is_satisfied_by(1.0)
    False
    """

    def __init__(self, type_: type, left: float | None, right: float | None, *,
                 closed: str = "both") -> None:
        if type_ not in (Integral, Real, int, float):
            raise TypeError(f"Interval type must be Integral or Real; got {type_!r}")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be both, left, right or neither; got {closed!r}")
        self.type = Integral if type_ in (Integral, int) else Real
        self.left, self.right, self.closed = left, right, closed

    def is_satisfied_by(self, value: Any) -> bool:
        if _is_bool(value) or not isinstance(value, self.type):
            return False
        if self.type is Real and not math.isfinite(float(value)):
            return False
        low_open = self.closed in ("right", "neither")
        high_open = self.closed in ("left", "neither")
        return not _outside(float(value), self.left, self.right, low_open, high_open)

    def __str__(self) -> str:
        low_open = self.closed in ("right", "neither")
        high_open = self.closed in ("left", "neither")
        kind = "an int" if self.type is Integral else "a real number"
        return f"{kind} in {_interval(self.left, self.right, low_open, high_open)}"


class Options(_Constraint):
    """One of a few values of a type (``Options(Integral, {2, 3})``)."""

    def __init__(self, type_: type, options: Iterable[Any]) -> None:
        self.type = type_
        # a registry (mapping) stays live: names registered later are accepted
        self.options = options if isinstance(options, Mapping) else tuple(options)

    def is_satisfied_by(self, value: Any) -> bool:
        if _is_bool(value) and self.type is not bool:
            return False
        return isinstance(value, self.type) and value in self.options

    def __str__(self) -> str:
        return f"one of {', '.join(map(repr, self.options))}"


class StrOptions(Options):
    """One of a few strings.

    Examples
    --------
    >>> str(StrOptions(["map", "mv"]))
    "one of 'map', 'mv'"
    """

    def __init__(self, options: Iterable[str]) -> None:
        super().__init__(str, options)


class HasMethods(_Constraint):
    """An object with the named methods (e.g. an estimator with ``fit`` and ``predict``)."""

    def __init__(self, methods: Sequence[str]) -> None:
        self.methods = tuple(methods)

    def is_satisfied_by(self, value: Any) -> bool:
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self) -> str:
        return f"an object with methods {', '.join(self.methods)}"


class _Simple(_Constraint):
    def __init__(self, text: str, test: Callable[[Any], bool]) -> None:
        self.text, self.test = text, test

    def is_satisfied_by(self, value: Any) -> bool:
        return bool(self.test(value))

    def __str__(self) -> str:
        return self.text


def _array_like(value: Any) -> bool:
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        return False
    if isinstance(value, (np.ndarray, pd.DataFrame, pd.Series, list, tuple, range)):
        return True
    return hasattr(value, "__array__") or (hasattr(value, "__len__")
                                           and hasattr(value, "__getitem__"))


def _instance_of(type_: type) -> _Constraint:
    names = {bool: "a bool", str: "a str", dict: "a dict", pd.DataFrame: "a pandas DataFrame"}
    return _Simple(names.get(type_, f"an instance of {type_.__name__}"),
                   lambda v: isinstance(v, type_) and (type_ is bool or not _is_bool(v)))


#: Shortcuts accepted in a declaration besides constraint objects, types and ``None``.
_NAMED: dict[str, _Constraint] = {
    "array-like": _Simple("an array-like", _array_like),
    "boolean": _Simple("a bool", _is_bool),
    "callable": _Simple("a callable", callable),
    "random_state": _Simple("an int, a numpy Generator",
                            lambda v: isinstance(v, (np.random.Generator, Integral))
                            and not _is_bool(v)),
    "sequence": _Simple("a sequence (list, tuple or array)",
                        lambda v: _array_like(v) and not isinstance(v, pd.DataFrame)),
    "iterable": _Simple("an iterable of ints",
                        lambda v: isinstance(v, Iterable) and not isinstance(v, (str, bytes))),
    "real": _Simple("a real number",
                    lambda v: isinstance(v, Real) and not _is_bool(v)),
}
_NONE = _Simple("None", lambda v: v is None)
# validated in the body of the function with the same message format (content checks
# that need other arguments, e.g. ``k <= n_models``)
_NO_VALIDATION = "no_validation"


def _make_constraint(c: Any) -> _Constraint | None:
    if isinstance(c, _Constraint):
        return c
    if c is None:
        return _NONE
    if isinstance(c, str):
        if c == _NO_VALIDATION:
            return None
        return _NAMED[c]
    if isinstance(c, type):
        return _instance_of(c)
    raise TypeError(f"unknown constraint {c!r}")


def _describe_all(cons: Sequence[_Constraint]) -> str:
    texts = [str(c) for c in cons]
    if len(texts) <= 1:
        return "".join(texts)
    return ", ".join(texts[:-1]) + " or " + texts[-1]


#: Every function and method declared with :func:`validate_params`:
#: ``"module.qualname" -> {parameter: description}`` (tests check that no public name of
#: the library modules is missing).
VALIDATED: dict[str, dict[str, str]] = {}


def _check_declared(params: Mapping[str, Any], declared: Mapping[str, list[_Constraint] | None],
                    where: str) -> None:
    for name, cons in declared.items():
        if cons is None:
            continue
        value = params[name]
        if not any(c.is_satisfied_by(value) for c in cons):
            raise constraint_error(name, _describe_all(cons), value, func=where)


_CLASS_DECLARATIONS: dict[type, dict[str, list[_Constraint] | None]] = {}


def _declare(spec: Mapping[str, Any]) -> dict[str, list[_Constraint] | None]:
    out: dict[str, list[_Constraint] | None] = {}
    for name, cons in spec.items():
        listed = [cons] if isinstance(cons, str) else list(cons)
        made = [_make_constraint(c) for c in listed]
        kept = [c for c in made if c is not None]
        out[name] = None if len(kept) < len(made) else kept
    return out


def _class_declaration(cls: type) -> dict[str, list[_Constraint] | None]:
    """The constructor parameters an estimator class declares in ``_parameter_constraints``
    (checked on ``self`` whenever a decorated method such as ``fit`` is called)."""
    if cls not in _CLASS_DECLARATIONS:
        _CLASS_DECLARATIONS[cls] = _declare(getattr(cls, "_parameter_constraints", {}))
    return _CLASS_DECLARATIONS[cls]


def validate_params(constraints: Mapping[str, list[Any] | str],
                    *, attributes: Mapping[str, list[Any]] | None = None
                    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the accepted values of a function's parameters; check them on every call.

    Each parameter maps to a list of constraints (any one must hold): an :class:`Interval`,
    :class:`StrOptions`, :class:`Options`, :class:`HasMethods`, a type, ``None``, or one of
    ``"array-like"``, ``"boolean"``, ``"callable"``, ``"random_state"``, ``"sequence"``,
    ``"iterable"``, ``"real"``; or the string ``"no_validation"`` for a parameter whose
    content is checked in the body with the same message (its relation to other arguments, e.g.
    ``k <= n_models``). Every parameter of the signature must be declared.
    ``attributes`` declares the constructor parameters of an estimator, checked on
    ``self`` when the decorated method (``fit``) is called; by default they are read from
    the class attribute ``_parameter_constraints`` (the scikit-learn convention).

    A violation raises :class:`InvalidParameterError` (a ``ValueError`` and a
    ``TypeError``): ``<param> of <function> must be <constraint>; got <value>``.

    Examples
    --------
    >>> @validate_params({"k": [Interval(Integral, 1, None)], "how": [StrOptions(["a", "b"])]})
    ... def pick(k, how="a"):
    ...     return k
    >>> pick(2)
    2
    >>> pick(0)
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: k of pick must be an int in [1, inf); got 0
    >>> pick(True, how="c")
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: k of pick must be an int in [1, inf); got True
    """

    declared = _declare(constraints)
    declared_attrs = _declare(attributes or {})

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(func)
        first = next(iter(sig.parameters), "")
        owner_arg = first if first in ("self", "cls") else None  # a method or a classmethod
        names = [p for p in sig.parameters if p != owner_arg]
        missing = sorted(set(names) - set(declared))
        unknown = sorted(set(declared) - set(names))
        if missing or unknown:
            raise TypeError(f"validate_params of {func.__qualname__}: undeclared parameters "
                            f"{missing}, unknown parameters {unknown}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:
                return func(*args, **kwargs)  # Python's own message for a wrong call
            bound.apply_defaults()
            params = bound.arguments
            if owner_arg == "cls":
                where = f"{params['cls'].__name__}.{func.__name__}"
            elif owner_arg == "self":
                cls = type(params["self"])
                owner = cls.__name__
                attrs = declared_attrs or _class_declaration(cls)
                if attrs and func.__name__ != "__init__":  # not set yet in the constructor
                    _check_declared({a: getattr(params["self"], a) for a in attrs}, attrs, owner)
                where = f"{owner}.{func.__name__}" if func.__name__ != "__init__" else owner
            else:
                where = func.__name__
            _check_declared(params, declared, where)
            return func(*args, **kwargs)

        key = f"{func.__module__}.{func.__qualname__}"
        VALIDATED[key] = {**{n: _describe_all(c) if c else "validated in the body"
                             for n, c in declared.items()},
                          **{f"self.{n}": _describe_all(c) if c else "validated in the body"
                             for n, c in declared_attrs.items()}}
        wrapper.__ensel_validated__ = key  # type: ignore[attr-defined]
        return wrapper

    return decorator
