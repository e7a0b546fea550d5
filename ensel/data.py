"""Answers and labels: the tidy table, its validation, and wide matrices.

Every dataset ``ensel`` works with -- the paper-calibrated stand-ins, MMLU-Pro, or your own
model outputs -- is a **tidy table** with one row per (condition, item, model) answer:

============= =====================================================================
column        meaning
============= =====================================================================
``item``      query identifier (any hashable: int or str)
``model``     model name
``condition`` experimental condition, e.g. ``"t0.7-r1"`` (temperature 0.7, run 1).
              Optional: when the column is absent every row gets the single
              condition ``"all"`` (:data:`DEFAULT_CONDITION`).
``answer``    the model's binary answer: ``+1`` (True / positive), ``-1`` (False /
              negative), ``0`` = abstained (no parsable answer)
``label``     the ground truth of the query, ``+1`` or ``-1``; blank = no gold for this
              item (read as ``0``; :func:`require_gold` refuses it where every item
              needs gold, ``ensel select``/``report``/``label-next`` take the gaps)
============= =====================================================================

Accepted encodings: the one rule of :mod:`ensel._encoding`, applied to all answers of the
table at once (and to the labels): blank/``NaN``/``None`` = abstained (``0``, answers only);
``True``/``False`` and ``+1``/``-1``; ``0`` = abstained in a table that also holds ``-1``;
``1``/``0`` = True/False only when the whole column holds nothing but ``0`` and ``1`` (no
blank), which :func:`validate_responses` states in a one-line notice and in
``df.attrs["encoding"]``; ambiguous mixtures (``1``/``0`` with blanks, ``True``/``False``
with ``0``) are refused with a message that says how to encode them.

Rules: one label per (condition, item) (blank on every row of an item, or the same label on
every row), no duplicate (condition, item, model) rows, at least
one answer that is not blank. Wide form (:func:`to_wide`): for one condition, ``X`` is an
items x models ``int8`` matrix and ``y`` the labels; a model with no row for an item counts as
abstained there (``0``).

Multi-class tables (answers as they are)
----------------------------------------
A table is **multi-class** (:func:`is_native`) when it has an ``options`` column, or when
its answers hold option labels (text that is neither a binary value nor a number: ``C``,
``yes``) and so do its gold labels (or every gold label is blank: a table without gold).
Option labels that are numbers (``0..3``) need the ``options`` column:

============= =====================================================================
``answer``    the option the model chose, as its label (text); blank/``NaN``/``None``
              (the blanks of :mod:`ensel._encoding`) = abstained
``label``     the gold option's label; blank = no gold for this item (label-free
              aggregation may still use the item; the binary view drops it)
``options``   optional: the item's option set, labels joined by ``|`` (``A|B|C|D``)
              or a count ``K`` meaning the letters ``A..`` (2 to 26 options). Without
              it the set is inferred per item from the labels its answers and gold
              use: capital letters ``A`` up to the last one seen, digits ``0`` up to the
              largest, other labels as seen; an item whose labels are a single one is
              refused (give its options)
============= =====================================================================

Rules, each refused with a message naming the item (and the model, for an answer), the
file and line and the condition: every answer and gold label is one of its item's options;
one option set per item in every row and condition; one gold label per (condition, item);
2 to 26 options; labels are case-sensitive text, and two labels of the table that differ
only in case (``b`` and ``B``) are refused rather than normalised (which one is meant is a
guess; a table written all in lower case is fine). Surrounding white space is stripped.
Validation returns ``answer`` and ``label`` as categoricals of labels (missing = blank) and
``options`` as the canonical ``A|B|C|D`` text; :func:`answer_matrix` gives the estimators'
codes and :func:`ensel.datasets.binary.to_binary_view` the paper's binary queries.
:func:`to_wide` reads binary tables only.

Files (:func:`read_responses`) are recognised by their content, not their name (gzip, Parquet,
zip, JSON or text), read with pyarrow into dictionary-encoded columns, and validated on integer
codes: ``item``, ``model`` and ``condition`` are kept as text (``01`` and ``1`` are two items)
and come back as pandas categoricals; the answer rule is decided once on the whole table,
whatever the column's type in the file (an ``int8`` 0/1 column in Parquet is read exactly as
the same column in CSV). Every problem raises :class:`DataError` (a ``ValueError``) naming the
file, the line (CSV: the header is line 1) or row (Parquet: counted from 0) and the column.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ensel import _encoding as enc
from ensel._encoding import zero_one_text
from ensel._errors import DataError
from ensel._files import (  # noqa: F401  (sniff and the two file errors are ensel.data's names too)
    DirectoryGivenError,
    MissingFileError,
    as_text,
    check_table_file,
    line_counter,
    read_table,
    refuse_kind,
    refuse_link_loop,
    sniff,
)
from ensel._notice import notice
from ensel._validation import check_X, check_y, unique_names, validate_params

__all__ = [
    "COLUMNS",
    "DEFAULT_CONDITION",
    "OPTIONS_COLUMN",
    "DataError",
    "OptionMatrix",
    "Responses",
    "answer_matrix",
    "conditions",
    "require_gold",
    "is_native",
    "read_responses",
    "sniff",
    "to_long",
    "to_wide",
    "validate_responses",
]

#: Column order of the tidy table.
COLUMNS = ("item", "model", "condition", "answer", "label")
#: Condition given to every row of a table without a ``condition`` column.
DEFAULT_CONDITION = "all"
_REQUIRED = ("item", "model", "answer", "label")


def _py(value: Any) -> Any:
    """Plain Python scalar for messages (``np.int64(3)`` -> ``3``)."""
    return value.item() if isinstance(value, np.generic) else value


# --------------------------------------------------------------------------- where rows are
@dataclass
class _Part:
    """Rows ``start..`` of a table come from one file (or an in-memory table: ``name=None``)."""

    start: int
    name: str | None
    unit: str = "row"  # "line" (CSV, JSON lines), "row" (Parquet, frames), "record"
    first: int = 0  # number of the part's first row: 2 for CSV (the header is line 1)
    numbers: np.ndarray | None = None  # explicit number per row (wide, lm-eval, MMLU-Pro)
    lines: Callable[[int], int] | None = None  # CSV: the line where data row j starts


class _Origin:
    """Names data row ``i`` of a (possibly concatenated) table: ``"line 5 of a.csv"``."""

    def __init__(self, parts: Sequence[_Part]) -> None:
        self.parts = list(parts)
        self._starts = np.array([p.start for p in self.parts], dtype=np.int64)

    def __call__(self, i: int) -> str:
        k = int(np.searchsorted(self._starts, i, side="right") - 1)
        part = self.parts[max(k, 0)]
        j = int(i) - part.start
        if part.numbers is not None:
            number = int(part.numbers[j])
        elif part.lines is not None:
            number = part.lines(j)
        else:
            number = part.first + j
        return f"{part.unit} {number}" + (f" of {part.name}" if part.name else "")

    def source(self) -> str:
        names = list(dict.fromkeys(p.name for p in self.parts if p.name))
        return ", ".join(names) if names else "responses"


_FRAME = _Origin([_Part(0, None)])


# --------------------------------------------------------------------------- validation
def validate_responses(df: pd.DataFrame, *,
                       default_condition: Hashable = DEFAULT_CONDITION) -> pd.DataFrame:
    """Check a tidy answer table and return a normalised copy (the input is never modified).

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``item, model, answer, label`` and optionally ``condition`` (see the module
        docstring); extra columns are kept, after the five standard ones.
    default_condition : hashable, default="all"
        Condition given to every row when ``df`` has no ``condition`` column.

    Returns
    -------
    pandas.DataFrame
        Columns ``item, model, condition, answer, label`` (+ extras), ``answer`` and
        ``label`` as ``int8`` (answers in ``{-1, 0, +1}``, labels in ``{-1, +1}``, ``0``
        where an item has no gold),
        a fresh ``RangeIndex``. ``item``, ``model`` and ``condition`` keep their type.

    A multi-class table (option labels, see the module docstring) comes back with
    ``answer`` and ``label`` as categoricals of labels and an ``options`` column.

    Raises
    ------
    DataError
        A required column is missing; ``item``/``model``/``condition`` has a missing value;
        an answer or label has a value outside the accepted encodings; every answer is
        blank; an item has two different labels (or a label and a blank) within a
        condition; a (condition, item, model) triple appears twice; two model names differ
        only in case or surrounding white space. The message names the column, the rows and
        the value.

    Notes
    -----
    ``df.attrs["encoding"]`` of the result names the encoding the rule applied to the
    answers and to the labels (e.g. ``{"answer": "+1/-1 with blanks = abstained",
    "label": "True/False"}``); a ``1``/``0`` answer column is also announced in a one-line
    notice (logger ``"ensel"``). An ``int8`` answer column with values in ``{-1, 0, +1}``
    is the encoded form ``ensel`` itself returns and is taken as it is (``0`` =
    abstained); files are always read by the rule (:func:`read_responses`).

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["q1", "q1", "q2", "q2"], "model": ["a", "b"] * 2,
    ...                    "answer": ["True", "", "False", "True"], "label": [1, 1, -1, -1]})
    >>> validate_responses(df)["answer"].tolist()
    [1, 0, -1, 1]
    """
    return _validate(df, default_condition=default_condition, origin=_FRAME)


def _codes(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (``-1`` = missing) and the distinct values, in category/appearance order
    (small integer and boolean columns: the value range, without hashing)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.array.codes, col.array.categories
    arr = None if isinstance(col.dtype, pd.api.extensions.ExtensionDtype) else col.to_numpy()
    if arr is not None and arr.size and arr.dtype == bool:
        return arr.view(np.uint8), pd.Index([False, True], dtype=object)
    if arr is not None and arr.dtype == np.int8:  # codes = the bytes themselves, no copy
        return arr.view(np.uint8), pd.Index(np.arange(256, dtype=np.uint8).view(np.int8))
    if arr is not None and arr.size and arr.dtype.kind in "iu" and arr.dtype.itemsize <= 2:
        lo, hi = int(arr.min()), int(arr.max())
        return arr.astype(np.int32) - lo, pd.Index(np.arange(lo, hi + 1))
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    return codes, pd.Index(uniques)


def _rows_of(codes: np.ndarray, wanted: np.ndarray, missing: bool) -> np.ndarray:
    """Rows whose code is in ``wanted`` (or missing, code ``-1``)."""
    mask = np.isin(codes, wanted)
    return mask | (codes < 0) if missing else mask


def _blank_text(uniques: pd.Index) -> np.ndarray:
    """Which distinct values are empty (or white-space) text."""
    if pd.api.types.is_string_dtype(uniques.dtype) and uniques.dtype != object:
        return np.asarray(uniques.str.strip() == "", dtype=bool)
    return np.array([isinstance(u, str) and not u.strip() for u in uniques], dtype=bool)


def _shown(value: Any) -> str:
    """A bad cell as the file shows it: a number written as text unquoted, else its repr."""
    value = _py(value)
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return repr(value)
        return value.strip()
    return repr(value)


def _expected(abstain: bool) -> str:
    return ("+1/-1, True/False, 1/0 (whole table), or blank (abstained)" if abstain
            else "+1/-1, 1/0 or True/False")


def _encode(col: pd.Series, name: str, *, abstain: bool, origin: _Origin,
            trust_int8: bool, blank_ok: bool = False) -> tuple[np.ndarray, str]:
    """One decision of the encoding rule on a whole column, made on its distinct values (the
    kinds present), then one gather of their values (``blank_ok``, labels: a blank is
    ``0``, no gold, and the rule is decided on the other values)."""
    raw = col.to_numpy() if not isinstance(col.dtype, pd.api.extensions.ExtensionDtype) else None
    if trust_int8 and raw is not None and raw.dtype == np.int8 and raw.size \
            and raw.min() >= -1 and raw.max() <= 1 and (abstain or not (raw == 0).any()):
        return raw.copy(), "int8 +1/0/-1 (already encoded)" if abstain else "+1/-1"
    if trust_int8 and blank_ok and raw is not None and raw.dtype == np.int8 and raw.size \
            and raw.min() == -1 and raw.max() <= 1:  # our own labels, 0 = no gold
        # (with a -1 present: an int8 column of only 0 and 1 is read by the rule, 0 = False)
        return raw.copy(), "int8 +1/-1, 0 = no gold (already encoded)"
    if raw is not None and raw.dtype == np.int8 and raw.size:
        return _encode_int8(raw, col, name, abstain=abstain, origin=origin)
    codes, uniques = _codes(col)
    ukinds = enc.classify(np.asarray(uniques, dtype=object)) if len(uniques) else \
        np.empty(0, np.int8)
    kinds = np.append(ukinds, np.int8(enc.BLANK))  # indexed by code; code -1 -> blank
    present = _present(codes, len(uniques))

    def first(kind: int) -> int:
        wanted = np.flatnonzero(ukinds == kind)
        return int(np.argmax(_rows_of(codes, wanted, kind == enc.BLANK)))

    if (kinds[present] == enc.BAD).any():
        pos = first(enc.BAD)
        hint = ("; a multi-class table holds option labels in both 'answer' and 'label', or "
                "has an 'options' column" if _is_word(_py(col.iloc[pos])) else "")
        raise DataError(f"column {name!r} has value {_shown(col.iloc[pos])} in {origin(pos)}; "
                        f"expected {_expected(abstain)}{hint}")
    if not abstain and blank_ok and (kinds[present] == enc.BLANK).any():
        return _encode_gaps(kinds, present, codes, name, origin, first)
    if not abstain and (kinds[present] == enc.BLANK).any():
        pos = first(enc.BLANK)
        raise DataError(f"column {name!r} is missing (blank, NaN or None) in "
                        f"{origin(pos)}; expected -1/+1, 1/0 or True/False (missing "
                        "labels are not allowed)")
    try:
        values, used = enc.decide(kinds[present], allow_abstain=abstain)
    except enc._Ambiguous as exc:
        pos = first(exc.kind)
        raise DataError(f"column {name!r} " + exc.reason.format(at=f"in {origin(pos)}")
                        ) from None
    table = np.zeros(len(kinds), dtype=np.int8)
    table[present] = values
    if raw is not None and raw.dtype == np.int8 and \
            (table[:-1][present[:-1]] == np.asarray(uniques)[present[:-1]]).all():
        return raw.copy(), used  # every value is already its own code (e.g. +1/0/-1)
    return _gather(table, codes), used


def _encode_gaps(kinds: np.ndarray, present: np.ndarray, codes: np.ndarray, name: str,
                 origin: _Origin, first: Callable[[int], int]) -> tuple[np.ndarray, str]:
    """:func:`_encode` of a label column with blanks (no gold): ``0`` there, the rule decided
    on the labels given."""
    given = present & (kinds != enc.BLANK)
    table = np.zeros(len(kinds), dtype=np.int8)
    used = "every label blank (no gold)"
    if given.any():
        try:
            values, used = enc.decide(kinds[given], allow_abstain=False)
        except enc._Ambiguous as exc:
            raise DataError(f"column {name!r} " + exc.reason.format(
                at=f"in {origin(first(exc.kind))}")) from None
        table[given] = values
        used += " with blanks = no gold"
    return _gather(table, codes), used


_STEP = 1 << 20  # rows per chunk of the passes over a table: small temporaries, no page faults


def _chunks(n: int) -> list[slice]:
    return [slice(s, min(s + _STEP, n)) for s in range(0, n, _STEP)]


def _encode_int8(raw: np.ndarray, col: pd.Series, name: str, *, abstain: bool,
                 origin: _Origin) -> tuple[np.ndarray, str]:
    """:func:`_encode` of an int8 column (a file's 0/1, +1/-1 ...): the values present are
    found by a few comparison passes (no missing value exists in int8)."""
    lo, hi = int(raw.min()), int(raw.max())
    if hi - lo <= 8:
        values = [v for v in range(lo, hi + 1) if v in (lo, hi) or bool((raw == v).any())]
    else:
        seen = np.zeros(256, dtype=bool)
        seen[raw.view(np.uint8)] = True
        values = sorted(int(v) for v in np.flatnonzero(seen).astype(np.uint8).view(np.int8))
    kinds = enc.classify(np.array(values, dtype=np.int64))

    def first(kind: int) -> int:
        v = values[int(np.argmax(kinds == kind))]
        return int(np.argmax(raw == v))

    if (kinds == enc.BAD).any():
        pos = first(enc.BAD)
        raise DataError(f"column {name!r} has value {_shown(col.iloc[pos])} in {origin(pos)}; "
                        f"expected {_expected(abstain)}")
    try:
        decided, used = enc.decide(kinds, allow_abstain=abstain)
    except enc._Ambiguous as exc:
        pos = first(exc.kind)
        raise DataError(f"column {name!r} " + exc.reason.format(at=f"in {origin(pos)}")
                        ) from None
    if all(int(d) == v for d, v in zip(decided, values, strict=True)):
        return raw.copy(), used  # every value is its own code (+1/0/-1, +1/-1)
    table = np.zeros(256, dtype=np.int8)
    table[np.array(values, dtype=np.int8).view(np.uint8)] = decided
    return _gather(table, raw.view(np.uint8)), used


def _present(codes: np.ndarray, n: int) -> np.ndarray:
    """Which of the ``n`` codes occur, plus (last entry) whether code ``-1`` (missing) does:
    one boolean scatter (numpy casts the index in small buffers, no temporary array)."""
    seen = np.zeros(n + 1, dtype=bool)
    seen[codes] = True  # code -1 lands on the last entry
    return seen


def _gather(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``table[codes]`` chunk by chunk (code ``-1`` = the table's last entry)."""
    out = np.empty(codes.size, dtype=table.dtype)
    for sl in _chunks(codes.size):
        out[sl] = table[codes[sl]]
    return out


def _first_repeat(key: np.ndarray, size: int) -> tuple[int, int] | None:
    """Rows ``(first, second)`` of the earliest repeated value of ``key`` (in ``[0, size)``)."""
    n = key.size
    if size <= 4 * n + (1 << 22):  # dense: counting
        counts = np.bincount(key, minlength=size)
        if counts.max(initial=0) < 2:
            return None
        rows = np.flatnonzero(counts[key] > 1)
    else:  # sparse keys: hashing
        dup = pd.Series(key).duplicated(keep=False).to_numpy()
        if not dup.any():
            return None
        rows = np.flatnonzero(dup)
    sub = key[rows]
    second = rows[int(np.argmax(pd.Series(sub).duplicated().to_numpy()))]
    first = rows[int(np.argmax(sub == key[second]))]
    return int(first), int(second)


def _missing_column(df: pd.DataFrame, origin: _Origin) -> None:
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        src = origin.source()
        what = "responses are" if src == "responses" else f"{src}: the table is"
        raise DataError(
            f"{what} missing the column {missing[0]!r}; a tidy table needs the columns "
            f"{', '.join(COLUMNS)} ('condition' is optional); got {list(map(str, df.columns))}"
        )


def _one_spelling_per_model(names: pd.Index, codes: np.ndarray, origin: _Origin) -> None:
    """Refuse two model names that differ only in case or surrounding white space (``m1``
    and ``m1 ``, ``GPT-4`` and ``gpt-4``): they would become two models, each answering part
    of the items, without a word."""
    if len(names) < 2:
        return
    groups: dict[str, list[int]] = {}
    for code, name in enumerate(names):
        if isinstance(name, str):  # 1 and "1" in a frame are two names, not two spellings
            groups.setdefault(name.strip().lower(), []).append(code)
    for group in groups.values():
        if len(group) < 2:
            continue
        # (first row, code) of the spellings rows use: a categorical column can keep
        # categories no row uses (after a filter)
        used = sorted((int(np.argmax(hit)), k) for k, hit in ((k, codes == k) for k in group)
                      if hit.any())
        if len(used) > 1:
            (a, first), (b, second) = used[:2]
            raise DataError(
                f"column 'model' has {_py(names[first])!r} ({origin(a)}) and "
                f"{_py(names[second])!r} ({origin(b)}), which differ only in case or "
                "surrounding white space; give each model one spelling")


def _check_cost(col: pd.Series, origin: _Origin) -> None:
    """The optional ``cost`` column (dollars of each answer, :func:`ensel.costs.prices_from_tidy`):
    blank, or a finite number ``>= 0``; a negative or infinite cost would be averaged into a
    price that looks right."""
    cost = pd.to_numeric(col, errors="coerce")
    bad = (cost.isna() & col.notna()) | (cost < 0) | np.isinf(cost)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"column 'cost' has value {_shown(col.iloc[i])} in {origin(i)}; "
                        "expected dollars of the answer: a finite number >= 0 (or blank)")


def _validate(df: pd.DataFrame, *, default_condition: Hashable, origin: _Origin,
              from_file: bool = False, encoded: bool | None = None) -> pd.DataFrame:
    """:func:`validate_responses` naming rows with ``origin``. ``from_file``: names as text
    categoricals; ``encoded`` (default ``not from_file``): an int8 answer column in
    {-1, 0, +1} is taken as encoded (a file's own column never is: the rule reads it)."""
    encoded = (not from_file) if encoded is None else encoded
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"df of validate_responses must be a pandas DataFrame; got "
                        f"{type(df).__name__}")
    _missing_column(df, origin)
    n = len(df)
    src = origin.source()
    if n == 0:
        raise DataError(f"{src}: the table has no rows")
    codes: dict[str, np.ndarray] = {}
    names: dict[str, pd.Index] = {}
    for col in ("item", "model", "condition"):
        if col not in df.columns:
            codes[col], names[col] = np.zeros(n, np.int8), pd.Index([default_condition])
            continue
        c, u = _codes(df[col])
        blank = _blank_text(u)
        if (c.size and int(c.min()) < 0) or blank.any():
            missing = (c < 0) | np.append(blank, False)[c]
            if missing.any():
                raise DataError(f"column {col!r} has a missing value in "
                                f"{origin(int(np.argmax(missing)))}")
        codes[col], names[col] = c, u
    _one_spelling_per_model(names["model"], codes["model"], origin)
    native = _wants_native(df)
    if native:  # option labels: one label code per row, -1 = blank
        answer, label_text, options, label = _native(
            df, np.asarray(codes["item"]), np.asarray(codes["model"]),
            np.asarray(codes["condition"]), names, origin)
        enc_answer, enc_label = _NATIVE_ENCODING["answer"], _NATIVE_ENCODING["label"]
    else:
        answer, enc_answer = _encode(df["answer"], "answer", abstain=True, origin=origin,
                                     trust_int8=encoded)
        # a blank gold label (``0``) = no gold for the item, as in a multi-class table
        label, enc_label = _encode(df["label"], "label", abstain=False, origin=origin,
                                   trust_int8=encoded, blank_ok=True)
    if "cost" in df.columns:
        _check_cost(df["cost"], origin)
    if not (answer.codes >= 0).any() if native else not answer.any():
        raise DataError(f"{src}: every answer is blank (abstained) in all {n:,} rows; there "
                        "is nothing to learn from (is the answer column the right one?)")
    n_i, n_m, n_c = (len(names[c]) for c in ("item", "model", "condition"))
    ic, mc, cc = codes["item"], codes["model"], codes["condition"]
    wide: type[np.signedinteger] = np.int32 if n_c * n_i * n_m < 2**31 else np.int64

    def qkey(sl: slice) -> np.ndarray:  # (condition, item) of rows sl
        q = ic[sl].astype(wide)
        if n_c > 1:
            q += cc[sl].astype(wide) * n_i
        return q

    def key(sl: slice) -> np.ndarray:  # (condition, item, model) of rows sl
        k = qkey(sl) * n_m
        k += mc[sl]
        return k

    def where(b: int) -> str:
        return (f"condition {_py(names['condition'][cc[b]])!r}, item "
                f"{_py(names['item'][ic[b]])!r}")

    everything = slice(0, n)
    size = n_c * n_i * n_m
    dense = size <= 4 * n + (1 << 22)
    if dense:  # one scatter says whether any (condition, item, model) repeats
        seen = np.zeros(size, dtype=bool)
        for sl in _chunks(n):
            seen[key(sl)] = True
        repeats = int(np.count_nonzero(seen)) != n
        del seen
    rep = _first_repeat(key(everything), size) if not dense or repeats else None
    if rep is not None:
        a, b = rep
        raise DataError(
            f"duplicate answer: {where(b)}, model {_py(names['model'][mc[b]])!r} appears more "
            f"than once ({origin(a)} and {origin(b)})"
        )
    rows = np.empty(0, np.int64)
    if n_c * n_i <= 4 * n + (1 << 22):
        one = np.zeros(n_c * n_i, label.dtype)
        for sl in _chunks(n):
            one[qkey(sl)] = label[sl]  # one of each (condition, item)'s labels
        for sl in _chunks(n):
            rows = sl.start + np.flatnonzero(one[qkey(sl)] != label[sl])
            if rows.size:
                break
    else:
        q = qkey(everything)
        nl = pd.DataFrame({"k": q, "l": label}).groupby("k")["l"].transform("nunique")
        rows = np.flatnonzero(nl.to_numpy() > 1)
    if rows.size:
        a = int(rows[0])
        q = qkey(everything)
        b = int(np.flatnonzero((q == q[a]) & (label != label[a]))[0])
        a, b = min(a, b), max(a, b)
        if native:
            def gold(i: int) -> str:
                return "blank" if label[i] < 0 else repr(label_text.categories[label[i]])
            raise DataError(
                f"item {_py(names['item'][ic[a]])!r} has two gold labels in condition "
                f"{_py(names['condition'][cc[a]])!r}: {gold(a)} in {origin(a)}, {gold(b)} in "
                f"{origin(b)}; each (condition, item) needs one gold label (the same on "
                "every row, or blank on every row)")
        def said(i: int) -> str:
            return "blank" if label[i] == 0 else f"{int(label[i]):+d}"
        raise DataError(
            f"item {_py(names['item'][ic[a]])!r} has conflicting labels ({said(a)} and "
            f"{said(b)}) in condition {_py(names['condition'][cc[a]])!r}: {said(a)} in "
            f"{origin(a)}, {said(b)} in {origin(b)}; each (condition, item) needs exactly one "
            "label (the same on every row, or blank on every row)"
        )
    if enc_answer.startswith("1/0"):
        notice(f"{src}: " + zero_one_text("the answers"))
    out: dict[str, Any] = {}
    for col in ("item", "model", "condition"):
        if from_file:
            text = as_text(names[col], col, src)
            given = df[col] if col in df.columns else None
            if given is not None and isinstance(given.dtype, pd.CategoricalDtype) \
                    and text is names[col]:
                out[col] = given.array  # already text categories, no missing value
            else:
                out[col] = pd.Categorical.from_codes(codes[col], categories=text)
        elif col in df.columns:
            out[col] = df[col].to_numpy(copy=True) if not isinstance(
                df[col].dtype, pd.api.extensions.ExtensionDtype) else df[col].array.copy()
        else:
            out[col] = np.full(n, default_condition, dtype=object)
    out["answer"] = answer
    out["label"] = label_text if native else label
    if native:
        out[OPTIONS_COLUMN] = options
    for extra in df.columns:
        if extra not in COLUMNS and extra != OPTIONS_COLUMN:
            out[extra] = df[extra].to_numpy(copy=True) if not isinstance(
                df[extra].dtype, pd.api.extensions.ExtensionDtype) else df[extra].array.copy()
    result = pd.DataFrame(out, copy=False)  # the arrays are this function's own
    attrs = {} if from_file else dict(df.attrs)
    result.attrs = {**attrs, "encoding": {"answer": enc_answer, "label": enc_label}}
    return result


# --------------------------------------------------------------------------- multi-class (native)
#: The per-item option set column of a multi-class table.
OPTIONS_COLUMN = "options"
#: Fewest and most options an item may have.
MIN_OPTIONS, MAX_OPTIONS = 2, 26
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NATIVE_ENCODING = {"answer": "option labels (blank = abstained)",
                    "label": "option labels (blank = no gold)"}


def is_native(df: pd.DataFrame) -> bool:
    """Whether a validated tidy table holds multi-class answers (option labels).

    :func:`validate_responses` gives every multi-class table an ``options`` column (the
    item's option set, ``"A|B|C|D"``); a binary table (answers in ``{-1, 0, +1}``) has none.

    Examples
    --------
    >>> df = validate_responses(pd.DataFrame({"item": [1, 1], "model": ["a", "b"],
    ...     "answer": ["A", "C"], "label": ["C", "C"], "options": [4, 4]}))
    >>> is_native(df), df["options"].tolist()
    (True, ['A|B|C|D', 'A|B|C|D'])
    """
    return OPTIONS_COLUMN in df.columns


def _wants_native(df: pd.DataFrame) -> bool:
    """A table is multi-class when it has an ``options`` column, or when an answer is text the
    binary rule cannot read (a letter, a word; not a number such as ``5``) and so is a gold
    label, or every gold label is blank (no gold at all): a binary table with a typo in one
    column (``Ture``) keeps its binary message."""
    if OPTIONS_COLUMN in df.columns:
        return True
    return _has_word(df["answer"]) and (_has_word(df["label"]) or _all_blank(df["label"]))


def _all_blank(col: pd.Series) -> bool:
    codes, uniques = _codes(col)
    present = _present(codes, len(uniques))
    blank = np.append(_blank_text(uniques), True)  # code -1: missing
    return bool(present.any() and blank[present].all())


def _has_word(col: pd.Series) -> bool:
    """Whether a column holds text that is neither a binary value nor a number."""
    codes, uniques = _codes(col)
    if not len(uniques):
        return False
    kinds = enc.classify(np.asarray(uniques, dtype=object))
    present = _present(codes, len(uniques))[:-1]
    return any(_is_word(u) for u in np.asarray(uniques, dtype=object)[present & (kinds == enc.BAD)])


def _is_word(value: Any) -> bool:
    """Text that is not a number (an option label such as ``C`` or ``yes``)."""
    if not isinstance(value, str):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


def _label_text(value: Any) -> str | None:
    """An option label as text (``None``: blank, i.e. abstained or no gold)."""
    value = _py(value)
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return None if text.lower() in enc.ABSTAIN_STRINGS else text


def _label_codes(col: pd.Series) -> tuple[np.ndarray, list[str | None]]:
    """Codes of a column's distinct values and each as an option label (``None`` = blank)."""
    codes, uniques = _codes(col)
    return np.asarray(codes), [_label_text(u) for u in uniques]


def _parse_options(value: Any, shown: str) -> tuple[str, ...] | None:
    """An ``options`` cell: a count ``K`` (the letters ``A..``) or labels joined by ``|``."""
    text = _label_text(value)
    if text is None:
        return None
    if text.isdigit():
        k = int(text)
        if not MIN_OPTIONS <= k <= MAX_OPTIONS:
            raise DataError(f"{shown}: {k} options; an item needs {MIN_OPTIONS} to "
                            f"{MAX_OPTIONS} options (a count K means the letters A..)"
                            if k != 1 else f"{shown}: an item with one option (1) asks "
                            "nothing; give its option set, 2 to 26 options")
        return tuple(_LETTERS[:k])
    labels = tuple(s.strip() for s in text.split("|"))
    if len(labels) == 1:
        raise DataError(f"{shown}: an item with one option ({labels[0]!r}) asks nothing; give "
                        "its option set as labels joined by '|' (e.g. 'A|B|C|D') or as a "
                        "count (4)")
    if "" in labels:
        raise DataError(f"{shown}: option {labels.index('') + 1} of {text!r} is empty; give "
                        "the labels joined by '|', e.g. 'A|B|C|D'")
    twice = next((o for i, o in enumerate(labels) if o in labels[:i]), None)
    if twice is not None:
        raise DataError(f"{shown}: option {twice!r} is given twice in {text!r}")
    if len(labels) > MAX_OPTIONS:
        raise DataError(f"{shown}: {len(labels)} options; an item needs {MIN_OPTIONS} to "
                        f"{MAX_OPTIONS} options")
    return labels


def _first_rows(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``key`` and the first row holding each."""
    uniq, first = np.unique(key, return_index=True)
    return uniq, first


def _native(df: pd.DataFrame, ic: np.ndarray, mc: np.ndarray, cc: np.ndarray,
            names: dict[str, pd.Index], origin: _Origin
            ) -> tuple[pd.Categorical, pd.Categorical, pd.Categorical, np.ndarray]:
    """Validate the option labels of a multi-class table: answers, gold and the option set
    of every item. Returns ``answer``, ``label`` and ``options`` (categoricals of text; a
    blank is missing) and the label codes (``-1`` = no gold) for the one-gold check."""
    n_items = len(names["item"])
    a_codes, a_text = _label_codes(df["answer"])
    g_codes, g_text = _label_codes(df["label"])

    def item(i: int) -> str:
        return repr(_py(names["item"][ic[i]]))

    def model(i: int) -> str:
        return repr(_py(names["model"][mc[i]]))

    def cond(i: int) -> str:
        return repr(_py(names["condition"][cc[i]]))

    # the option set of each item: given (one per item, whatever the condition) or inferred
    sets: list[tuple[str, ...] | None] = [None] * n_items
    given = np.zeros(n_items, dtype=bool)
    if OPTIONS_COLUMN in df.columns:
        o_codes, o_uniques = _codes(df[OPTIONS_COLUMN])
        o_codes = np.asarray(o_codes)
        parsed: list[tuple[str, ...] | None] = []
        for k, u in enumerate(o_uniques):
            rows = np.flatnonzero(o_codes == k)
            parsed.append(_parse_options(u, f"column 'options' in {origin(int(rows[0]))}")
                          if rows.size else None)
        # option set -> one code, so 4 and 'A|B|C|D' are the same set
        canon: dict[tuple[str, ...], int] = {}
        set_code = np.array([canon.setdefault(p, len(canon)) if p is not None else -1
                             for p in parsed] + [-1], dtype=np.int64)[o_codes]
        has = set_code >= 0
        pair = ic[has].astype(np.int64) * (len(canon) + 1) + set_code[has]
        uniq, first = _first_rows(pair)
        rows_has = np.flatnonzero(has)
        first = rows_has[first]
        owner = uniq // (len(canon) + 1)
        if owner.size > 1 and (np.diff(owner) == 0).any():
            j = int(np.flatnonzero(np.diff(owner) == 0)[0])
            a, b = sorted((int(first[j]), int(first[j + 1])))
            sa, sb = parsed[o_codes[a]], parsed[o_codes[b]]
            raise DataError(
                f"item {item(a)} has two option sets: {'|'.join(sa or ())!r} in {origin(a)} "
                f"(condition {cond(a)}) and {'|'.join(sb or ())!r} in {origin(b)} (condition "
                f"{cond(b)}); an item has one option set in every condition and row")
        for i_code, row in zip(owner.tolist(), first.tolist(), strict=True):
            sets[i_code] = parsed[o_codes[row]]
            given[i_code] = True
    # labels that differ only in case: refused (option labels are case-sensitive text)
    seen_text = {t for t in (*a_text, *g_text) if t is not None}
    for s in sets:
        if s is not None:
            seen_text.update(s)
    folded: dict[str, str] = {}
    for t in sorted(seen_text):
        other = folded.setdefault(t.casefold(), t)
        if other != t:
            _case_clash(other, t, df, a_codes, a_text, g_codes, g_text, sets, ic, origin,
                        item, model)
    # infer missing sets from the labels seen for the item (answers and gold)
    if not given.all():
        rows_missing = ~given[ic]
        letters = all(len(t) == 1 and t in _LETTERS for t in seen_text)
        digits = all(t.isdigit() and (t == "0" or not t.startswith("0")) for t in seen_text)
        for codes, text in ((a_codes, a_text), (g_codes, g_text)):
            c = np.where(rows_missing, codes, -1)
            ok = c >= 0
            pair = np.unique(ic[ok].astype(np.int64) * (len(text) + 1) + c[ok])
            for p in pair.tolist():
                i_code, t = divmod(p, len(text) + 1)
                if text[t] is None:
                    continue
                s = sets[i_code]
                sets[i_code] = (*(s or ()), text[t]) if s is None or text[t] not in s else s
        for i_code in np.flatnonzero(~given).tolist():
            seen = sets[i_code] or ()
            if letters and seen:
                s = tuple(_LETTERS[:_LETTERS.index(max(seen)) + 1])
            elif digits and seen:
                s = tuple(str(v) for v in range(max(int(t) for t in seen) + 1))
            else:
                s = tuple(sorted(seen))
            if len(s) < MIN_OPTIONS:
                row = int(np.argmax(ic == i_code))
                raise DataError(
                    f"item {item(row)} has one option ({s[0]!r}, the only label its answers "
                    f"and gold use; {origin(row)}) and the table has no options for it: give "
                    "its option set in an 'options' column (labels joined by '|', e.g. "
                    "'A|B|C|D', or a count such as 4)" if s else
                    f"item {item(row)} has no answer and no gold ({origin(row)}); give its "
                    "option set in an 'options' column")
            if len(s) > MAX_OPTIONS:
                row = int(np.argmax(ic == i_code))
                raise DataError(f"item {item(row)} has {len(s)} distinct labels ({origin(row)}); "
                                f"an item needs {MIN_OPTIONS} to {MAX_OPTIONS} options")
            sets[i_code] = s
    # every answer and gold label is one of its item's options
    vocab = pd.Index(list(dict.fromkeys(t for s in sets if s is not None for t in s)),
                     dtype=object)
    set_codes = pd.Series(["|".join(s) if s is not None else "" for s in sets]).factorize()
    set_of_item, set_text = np.asarray(set_codes[0]), list(set_codes[1])
    lookup = _OptionLookup([tuple(t.split("|")) for t in set_text], vocab)

    def recode(codes: np.ndarray, text: list[str | None], what: str) -> np.ndarray:
        table = np.asarray(vocab.get_indexer(pd.Index(text, dtype=object)), dtype=np.int64)
        table = np.append(np.where(pd.isna(pd.Index(text, dtype=object)), -1,
                                   np.where(table < 0, -2, table)), -1)
        v = table[codes]
        given_rows = v != -1
        ok = lookup.place(set_of_item[ic], v) >= 0
        bad = given_rows & ~ok
        if bad.any():
            i = int(np.argmax(bad))
            t = text[codes[i]]
            s = sets[ic[i]] or ()
            who = f"of model {model(i)} " if what == "answer" else ""
            hint = ""
            match = [o for o in s if o.casefold() == str(t).casefold()]
            if match:
                hint = (f"; option labels are case-sensitive: write {match[0]!r} (ensel does "
                        "not change the case of a label)")
            raise DataError(
                f"{'answer' if what == 'answer' else 'gold label'} {t!r} {who}on item "
                f"{item(i)} (condition {cond(i)}, {origin(i)}) is not one of the item's "
                f"options {'|'.join(s)!r}{hint}")
        return v

    a_v = recode(a_codes, a_text, "answer")
    g_v = recode(g_codes, g_text, "gold")
    options = pd.Categorical.from_codes(set_of_item[ic], categories=pd.Index(set_text,
                                                                             dtype=object))
    return (pd.Categorical.from_codes(a_v, categories=vocab),
            pd.Categorical.from_codes(g_v, categories=vocab), options, g_v)


class _OptionLookup:
    """The place of a label in an option set, for many (set, label) pairs at once: one
    sorted key per (set, label) of the sets (no sets x labels table: free-text labels would
    make it huge)."""

    def __init__(self, sets: Sequence[tuple[str, ...]], labels: pd.Index) -> None:
        self.width = len(labels) + 1
        keys, places = [], []
        for k, s in enumerate(sets):
            codes = labels.get_indexer(pd.Index(s, dtype=object))
            keys.append(k * self.width + codes)
            places.append(np.arange(len(s)))
        key = np.concatenate(keys) if keys else np.empty(0, np.int64)
        order = np.argsort(key, kind="stable")
        self.keys = key[order].astype(np.int64)
        self.places = (np.concatenate(places) if places else np.empty(0, np.int64))[order]

    def place(self, set_codes: np.ndarray, label_codes: np.ndarray) -> np.ndarray:
        """``int16`` place of each label in its set; ``-1``: blank or not in the set."""
        out = np.full(len(label_codes), -1, dtype=np.int16)
        given = label_codes >= 0
        if not given.any() or not self.keys.size:
            return out
        key = set_codes[given].astype(np.int64) * self.width + label_codes[given]
        at = np.minimum(np.searchsorted(self.keys, key), self.keys.size - 1)
        found = self.keys[at] == key
        out[np.flatnonzero(given)[found]] = self.places[at[found]]
        return out


def _case_clash(first: str, second: str, df: pd.DataFrame, a_codes, a_text, g_codes, g_text,
                sets, ic, origin: _Origin, item, model) -> None:
    """Refuse two labels that differ only in case (``b`` and ``B``), naming a row of each."""
    def row_of(label: str) -> str:
        for codes, text, what in ((a_codes, a_text, "answer"), (g_codes, g_text, "gold")):
            hits = [k for k, t in enumerate(text) if t == label]
            if hits:
                i = int(np.argmax(np.isin(codes, hits)))
                who = f" of model {model(i)}" if what == "answer" else ""
                return f"{what}{who} on item {item(i)}, {origin(i)}"
        i_code = next(k for k, s in enumerate(sets) if s is not None and label in s)
        return f"the options of item {item(int(np.argmax(ic == i_code)))}"

    raise DataError(
        f"option labels {first!r} ({row_of(first)}) and {second!r} ({row_of(second)}) differ "
        "only in case; labels are case-sensitive text, so they would be two options: write "
        "every label in one case (ensel refuses rather than guess which one is meant)")


# --------------------------------------------------------------------------- wide form
def conditions(df: pd.DataFrame) -> list[Hashable]:
    """Conditions of a tidy table, in order of first appearance (categorical: category order).

    A table without a ``condition`` column has the single condition ``"all"``.

    Examples
    --------
    >>> conditions(pd.DataFrame({"condition": ["t1", "t0", "t1"]}))
    ['t1', 't0']
    """
    if "condition" not in df.columns:
        return [DEFAULT_CONDITION]
    col = df["condition"]
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = _present(col.array.codes, len(col.array.categories))[:-1]
        return list(col.array.categories[present])
    return list(pd.unique(col))


def _condition_rows(df: pd.DataFrame, condition: Hashable | None) -> np.ndarray | None:
    """Boolean mask of the condition's rows (``None``: every row)."""
    conds = conditions(df)
    if condition is None:
        if len(conds) != 1:
            raise DataError(
                f"the table has {len(conds)} conditions {conds}; pass condition=... to pick one"
            )
        condition = conds[0]
    if condition not in conds:
        raise DataError(f"unknown condition {condition!r}; the table has {conds}")
    if "condition" not in df.columns or len(conds) == 1:
        return None
    col = df["condition"]
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.array.codes == col.array.categories.get_loc(condition)
    return (col == condition).to_numpy()


def _present_codes(col: pd.Series, rows: np.ndarray | None) -> tuple[np.ndarray, pd.Index]:
    """Codes ``0..k-1`` of the values present in ``rows`` and those values (category or
    appearance order)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.array.codes
        if rows is not None:
            codes = codes[rows]
        present = _present(codes, len(col.array.categories))[:-1]
        if present.all():
            return codes, col.array.categories
        new = np.cumsum(present, dtype=np.int64) - 1
        return new[codes], col.array.categories[present]
    values = col.to_numpy() if rows is None else col.to_numpy()[rows]
    codes, uniques = pd.factorize(values)
    return codes, pd.Index(uniques)


def _canonical(names: pd.Index) -> np.ndarray:
    """Positions that sort ``names`` (by value; by text when the values do not compare)."""
    try:
        return np.asarray(names.argsort(kind="stable"))
    except TypeError:
        return np.argsort(np.asarray([str(v) for v in names]), kind="stable")


def _sorted_codes(ic: np.ndarray, items: pd.Index, mc: np.ndarray, models: pd.Index
                  ) -> tuple[np.ndarray, pd.Index, np.ndarray, pd.Index]:
    """Item and model codes renumbered so that names come in their canonical order."""
    out = []
    for codes, names in ((ic, items), (mc, models)):
        order = _canonical(names)
        inverse = np.empty(len(order), dtype=np.int64)
        inverse[order] = np.arange(len(order))
        out += [inverse[codes], names[order]]
    return out[0], out[1], out[2], out[3]


def to_wide(df: pd.DataFrame, condition: Hashable | None = None, *,
            validate: bool = True, sort: bool = False,
            gaps: bool = False) -> tuple[pd.DataFrame, pd.Series]:
    """Answer matrix and labels of one condition.

    Works on integer codes (categorical columns as :func:`read_responses` returns them, or
    factorized) and one numpy scatter into an ``int8`` matrix.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy table (see :func:`validate_responses`).
    condition : hashable, optional
        Which condition; may be omitted when the table has exactly one.
    validate : bool, default=True
        Validate ``df`` first (set ``False`` for a table that already went through
        :func:`validate_responses`, e.g. from :func:`ensel.datasets.load`).
    sort : bool, default=False
        Order items and models by their names (a canonical order, the same whatever the
        order of the table's rows) instead of the order below.
    gaps : bool, default=False
        Accept items without gold (label ``0``); by default they are refused
        (:func:`require_gold`).

    Returns
    -------
    X : pandas.DataFrame of shape (n_items, n_models), dtype int8
        Index ``item`` (order of first appearance, or category order), columns ``model``
        (same rule). A model without an answer for an item gets ``0`` (abstained) there;
        models with no answer at all in the condition do not appear.
    y : pandas.Series of shape (n_items,), dtype int8
        Labels, same index as ``X``, named ``label`` (``0``: no gold, with ``gaps``).

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["q2", "q2", "q1"], "model": ["b", "a", "a"],
    ...                    "answer": [1, -1, 1], "label": [1, 1, -1]})
    >>> X, y = to_wide(df, sort=True)
    >>> X.to_numpy().tolist(), list(X.columns), y.tolist()
    ([[1, 0], [-1, 1]], ['a', 'b'], [-1, 1])
    """
    if validate:
        df = validate_responses(df)
    _not_native(df, "to_wide")
    if not gaps:
        require_gold(df, "to_wide")
    rows = _condition_rows(df, condition)
    ic, items = _present_codes(df["item"], rows)
    mc, models = _present_codes(df["model"], rows)
    if sort:
        ic, items, mc, models = _sorted_codes(ic, items, mc, models)
    answer = df["answer"].to_numpy()
    label = df["label"].to_numpy()
    if rows is not None:
        answer, label = answer[rows], label[rows]
    X = np.zeros((len(items), len(models)), dtype=np.int8)
    y = np.zeros(len(items), dtype=np.int8)
    flat_X = X.reshape(-1)
    wide: type[np.signedinteger] = np.int64 if X.size >= 2**31 else np.int32
    for sl in _chunks(len(ic)):  # flat scatters, chunk by chunk (small temporaries)
        flat = ic[sl].astype(wide) * len(models)
        flat += mc[sl]
        flat_X[flat] = answer[sl]
        y[ic[sl]] = label[sl]
    index = pd.Index(items, name="item")
    Xdf = pd.DataFrame(X, index=index, columns=pd.Index(models, name="model"), copy=False)
    return Xdf, pd.Series(y, index=index, name="label")


@dataclass(frozen=True)
class OptionMatrix:
    """One condition of a multi-class table as codes (:func:`answer_matrix`).

    Attributes
    ----------
    A : numpy.ndarray of shape (n_items, n_models), dtype int16
        ``A[i, j]`` is the position of model ``j``'s answer in item ``i``'s options
        (``0..K_i-1``); ``-1`` = abstained (a blank answer, or no row for the cell).
    gold : numpy.ndarray of shape (n_items,), dtype int16
        Position of the gold label in the item's options; ``-1`` = no gold.
    options : list of tuple of str
        The option labels of each item, in code order.
    items, models : list
        Row and column names of ``A``.
    condition : hashable
        The condition the answers come from.
    """

    A: np.ndarray
    gold: np.ndarray
    options: list[tuple[str, ...]]
    items: list[Any]
    models: list[Any]
    condition: Hashable = DEFAULT_CONDITION

    @property
    def n_options(self) -> np.ndarray:
        """``K_i``, the number of options of each item (``int16``): what the multiple-choice
        aggregators take as ``n_options`` (e.g. ``DawidSkene().fit(m.A, n_options=
        m.n_options)``), so that no item is given an option it does not have."""
        return np.array([len(o) for o in self.options], dtype=np.int16)

    @property
    def option_mask(self) -> np.ndarray:
        """Which codes each item offers: bool (n_items, max K_i), ``[i, c]`` is ``c < K_i``.

        Examples
        --------
        >>> m = OptionMatrix(np.array([[0], [2]], np.int16), np.array([1, 2], np.int16),
        ...                  [("A", "B"), ("A", "B", "C")], ["q1", "q2"], ["a"])
        >>> m.option_mask.tolist()
        [[True, True, False], [True, True, True]]
        """
        k = self.n_options
        return np.arange(int(k.max()) if k.size else 0)[None, :] < k[:, None]

    def model_summary(self) -> pd.DataFrame:
        """Per model: ``n_items``, ``accuracy`` (the answer is the gold; an abstention is
        wrong), ``coverage`` (share answered) and ``accuracy_answered`` (accuracy over the
        answered items), on the items with gold (all items for ``coverage``).

        Examples
        --------
        >>> m = OptionMatrix(np.array([[0, -1], [1, 1]], np.int16), np.array([0, 0], np.int16),
        ...                  [("A", "B")] * 2, ["q1", "q2"], ["a", "b"])
        >>> m.model_summary()["accuracy"].tolist()
        [0.5, 0.0]
        """
        has = self.gold >= 0
        A = self.A[has]
        right = (A == self.gold[has, None]).sum(axis=0)
        answered = (A >= 0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return pd.DataFrame({
                "n_items": np.full(len(self.models), int(has.sum())),
                "accuracy": right / max(int(has.sum()), 1),
                "coverage": (self.A >= 0).mean(axis=0),
                "accuracy_answered": np.where(answered > 0, right / np.maximum(answered, 1),
                                              np.nan),
            }, index=pd.Index(self.models, name="model"))

    def to_frame(self) -> pd.DataFrame:
        """The multi-class tidy table of these codes (the inverse of :func:`answer_matrix`):
        one row per (item, model) cell, item-major, blanks for ``-1``, validated.

        Examples
        --------
        >>> m = OptionMatrix(np.array([[1, -1]], np.int16), np.array([1], np.int16),
        ...                  [("yes", "no")], ["q1"], ["a", "b"])
        >>> answer_matrix(m.to_frame()).A.tolist()
        [[1, -1]]
        """
        A = np.asarray(self.A)
        gold = np.asarray(self.gold)
        n, m = A.shape
        if gold.shape != (n,) or len(self.options) != n or len(self.items) != n \
                or len(self.models) != m:
            raise DataError(f"OptionMatrix: A is {n} x {m}, but gold has {gold.shape[0]} "
                            f"entries, options {len(self.options)}, items {len(self.items)} "
                            f"and models {len(self.models)}")
        k = np.array([len(o) for o in self.options])
        bad = (A < -1) | (A >= k[:, None])
        if bad.any() or ((gold < -1) | (gold >= k)).any():
            i = int(np.argwhere(bad)[0][0]) if bad.any() else int(np.argmax(
                (gold < -1) | (gold >= k)))
            raise DataError(f"OptionMatrix: item {self.items[i]!r} has a code outside "
                            f"-1..{k[i] - 1} (its {k[i]} options)")
        labels = self.labels().to_numpy(dtype=object)
        gold_text = [o[g] if g >= 0 else None for o, g in zip(self.options, gold.tolist(),
                                                            strict=True)]
        return validate_responses(pd.DataFrame({
            "item": np.repeat(np.asarray(self.items, dtype=object), m),
            "model": np.tile(np.asarray(self.models, dtype=object), n),
            "condition": [self.condition] * (n * m),
            "answer": labels.ravel(),
            "label": np.repeat(np.asarray(gold_text, dtype=object), m),
            OPTIONS_COLUMN: np.repeat(np.asarray(["|".join(o) for o in self.options],
                                                 dtype=object), m),
        }))

    def labels(self) -> pd.DataFrame:
        """``A`` as option labels (``None`` = abstained), items x models."""
        out = np.full(self.A.shape, None, dtype=object)
        for i, opts in enumerate(self.options):
            row = self.A[i]
            ok = row >= 0
            out[i, ok] = np.asarray(opts, dtype=object)[row[ok]]
        return pd.DataFrame(out, index=pd.Index(self.items, name="item"),
                            columns=pd.Index(self.models, name="model"))


@validate_params({"df": [pd.DataFrame], "what": [str]})
def require_gold(df: pd.DataFrame, what: str) -> None:
    """Refuse a validated binary table whose gold has gaps where ``what`` needs gold for
    every item (a blank label reads as ``0``, :func:`validate_responses`).

    The one check of the binary readers' consumers: the held-out protocol, the frontier and
    the cascade score every item against its gold; ``ensel select``, ``ensel report`` and
    ``ensel label-next`` take the gaps (:func:`ensel.evidence.select_with_gaps`). A
    multi-class table is not checked (its consumers skip the items without gold).

    Raises
    ------
    DataError
        Naming how many (condition, item) pairs lack gold, the first of them, and the
        commands that take gaps.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 2], "model": ["a", "a"], "answer": [1, -1],
    ...                    "label": [1, ""]})
    >>> try:
    ...     require_gold(validate_responses(df), "the test")
    ... except DataError as exc:
    ...     print(str(exc)[:63])
    gold is blank for 1 of 2 items (first: item 2, condition 'all')
    """
    if is_native(df):
        return
    label = df["label"].to_numpy()
    blank = label == 0
    if not blank.any():
        return
    first = int(np.argmax(blank))
    cond = df["condition"].to_numpy() if "condition" in df.columns else None
    key = df["item"].astype(str) + "\x00" + (df["condition"].astype(str) if cond is not None
                                              else "")
    n_blank = int(key[blank].nunique())
    n_all = int(key.nunique())
    where = (f"item {_py(df['item'].iloc[first])!r}, condition "
             f"{_py(cond[first]) if cond is not None else DEFAULT_CONDITION!r}")
    raise DataError(f"gold is blank for {n_blank:,} of {n_all:,} items (first: {where}); "
                    f"{what} needs gold for every item (ensel select, ensel report without prices "
                    "and ensel label-next take gold with gaps)")


def _not_native(df: pd.DataFrame, what: str) -> None:
    if is_native(df):
        raise DataError(
            f"{what} reads the binary view (answers +1/-1), and this table holds multi-class "
            "answers (option labels, an 'options' column): use ensel.data.answer_matrix for "
            "its codes, or ensel.datasets.binary.to_binary_view for the paper's binary queries "
            "(the command line's --binary)")


def answer_matrix(df: pd.DataFrame, condition: Hashable | None = None, *,
                  validate: bool = True, sort: bool = False) -> OptionMatrix:
    """Codes of the answers and gold of one condition of a multi-class table.

    The estimators' input for multi-class answers: ``A`` (items x models, ``int16`` codes
    ``0..K_i-1`` of each item's options, ``-1`` = abstained), ``gold`` (``int16``, ``-1`` =
    missing) and the option labels of every item.

    Parameters
    ----------
    df : pandas.DataFrame
        A multi-class tidy table (:func:`is_native`), e.g. from
        ``ensel.datasets.load(name, view="native")`` or :func:`read_responses`.
    condition : hashable, optional
        Which condition; may be omitted when the table has exactly one.
    validate : bool, default=True
        Validate ``df`` first (``False`` for a table that already went through
        :func:`validate_responses`).
    sort : bool, default=False
        Items and models by name instead of first appearance (as :func:`to_wide`).

    Returns
    -------
    OptionMatrix

    Raises
    ------
    DataError
        A binary table (no option labels; :func:`to_wide` reads it), or the errors of
        :func:`validate_responses`.

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["q1", "q1", "q2", "q2"], "model": ["a", "b"] * 2,
    ...                    "answer": ["B", "", "A", "C"], "label": ["B", "B", "C", "C"],
    ...                    "options": ["A|B|C"] * 4})
    >>> m = answer_matrix(df)
    >>> m.A.tolist(), m.gold.tolist(), m.options[0]
    ([[1, -1], [0, 2]], [1, 2], ('A', 'B', 'C'))
    """
    if validate:
        df = validate_responses(df)
    if not is_native(df):
        raise DataError("answer_matrix reads a multi-class table (option labels and an "
                        "'options' column); this one is binary (answers +1/-1): use to_wide")
    rows = _condition_rows(df, condition)
    if condition is None:
        condition = conditions(df)[0]
    ic, items = _present_codes(df["item"], rows)
    mc, models = _present_codes(df["model"], rows)
    if sort:
        ic, items, mc, models = _sorted_codes(ic, items, mc, models)
    ans, gold, opts = (pd.Categorical(df[c]) for c in ("answer", "label", OPTIONS_COLUMN))
    a, g, o = (np.asarray(c.codes) for c in (ans, gold, opts))
    if rows is not None:
        a, g, o = a[rows], g[rows], o[rows]
    sets = [tuple(str(s).split("|")) for s in opts.categories]
    A = np.full((len(items), len(models)), -1, dtype=np.int16)
    A[ic, mc] = _OptionLookup(sets, pd.Index(ans.categories, dtype=object)).place(o, a)
    y = np.full(len(items), -1, dtype=np.int16)
    y[ic] = _OptionLookup(sets, pd.Index(gold.categories, dtype=object)).place(o, g)
    set_of = np.zeros(len(items), dtype=np.int64)
    set_of[ic] = o
    return OptionMatrix(A, y, [sets[k] for k in set_of.tolist()], list(items), list(models),
                        condition)


def to_long(X: Any, y: Any, *, condition: Hashable = DEFAULT_CONDITION,
            items: Sequence[Hashable] | None = None,
            models: Sequence[Hashable] | None = None) -> pd.DataFrame:
    """Tidy table from an answer matrix and labels (the inverse of :func:`to_wide`).

    Parameters
    ----------
    X : array-like or pandas.DataFrame of shape (n_items, n_models)
        Answers, read by the one encoding rule like every input (``{-1, 0, +1}`` with
        ``0`` = abstained as produced by :func:`to_wide`; a matrix holding only ``0`` and
        ``1`` is True/False). A DataFrame's index and columns give the item and model names.
    y : array-like or pandas.Series of shape (n_items,)
        Labels in ``{-1, +1}``.
    condition : hashable, default="all"
        Condition written on every row.
    items, models : sequence, optional
        Names; default: the DataFrame's index/columns, else ``0..n_items-1`` and
        ``"m0", "m1", ...``.

    Returns
    -------
    pandas.DataFrame
        Columns ``item, model, condition, answer, label``, one row per (item, model) cell
        (abstentions included as ``answer = 0``), item-major order.

    Examples
    --------
    >>> to_long([[1, -1]], [1])["model"].tolist()
    ['m0', 'm1']
    """
    Xa = _answers_matrix(X)
    ya = check_y(y, n_items=Xa.shape[0])
    n, m = Xa.shape
    if items is None:
        items = list(X.index) if isinstance(X, pd.DataFrame) else list(range(n))
    if models is None:
        models = list(X.columns) if isinstance(X, pd.DataFrame) else [f"m{j}" for j in range(m)]
    items = unique_names(list(items), what="item")
    models = unique_names(list(models), what="model")
    if len(items) != n:
        raise DataError(f"items has {len(items)} names but X has {n} rows")
    if len(models) != m:
        raise DataError(f"models has {len(models)} names but X has {m} columns")
    return pd.DataFrame({
        "item": np.repeat(np.asarray(items, dtype=object), m),
        "model": np.tile(np.asarray(models, dtype=object), n),
        "condition": [condition] * (n * m),
        "answer": Xa.ravel(),
        "label": np.repeat(ya, m),
    })


def _answers_matrix(X: Any) -> np.ndarray:
    """``X`` as int8 in {-1, 0, +1}, read by the one encoding rule (:mod:`ensel._encoding`)."""
    return check_X(X)


# --------------------------------------------------------------------------- files
def read_responses(path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *,
                   validate: bool = True) -> pd.DataFrame:
    """Read a tidy answer table from CSV or Parquet files (one, or several into one table).

    The content decides how a file is read (:func:`sniff`): a gzip-compressed or Parquet
    file named ``.csv`` is read as what it is. Columns ``item``, ``model`` and
    ``condition`` are read as text into pandas categoricals (integer codes: a 20-million-row
    table takes about 150 MB); the answer rule is decided once on the answers of all files.

    Parameters
    ----------
    path : str or pathlib.Path, or a sequence of them
        ``.csv``, ``.csv.gz``, ``.parquet`` or ``.pq`` files. A relative path is taken from
        the current working directory (the caller's folder). Several files are one table: a
        (condition, item, model) answer in two files is refused naming both places.
    validate : bool, default=True
        Run the checks of :func:`validate_responses`. Messages about a CSV file name its
        lines as a text editor shows them (the header is line 1, data row ``i`` is line
        ``i + 2``); about a Parquet file, its rows counted from 0.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition`` (categorical, text), ``answer, label`` (``int8``) and
        any extra columns; ``attrs["encoding"]`` as for :func:`validate_responses`.

    Raises
    ------
    DataError
        Naming the file (and line or row, and column): unsupported suffix, a folder
        (``DirectoryGivenError``), a missing file (``MissingFileError``), an empty,
        truncated or non-UTF-8 file, a zip/JSON file, a separator other than ``,``, or a
        table that fails validation.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "answers.csv"
    >>> _ = p.write_text("item,model,answer,label\\n01,a,True,1\\n1,a,,-1\\n01,b,False,1\\n")
    >>> df = read_responses(p)
    >>> df["item"].tolist(), df["answer"].tolist()
    (['01', '1', '01'], [1, 0, -1])
    """
    given = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not given:
        raise DataError("no input file given")
    frames: list[pd.DataFrame] = []
    parts: list[_Part] = []
    start = 0
    for item in given:
        p, shown = check_table_file(item)
        df, unit, first = read_table(p, shown, COLUMNS)
        if validate:
            _missing_column(df, _Origin([_Part(0, shown)]))
        lines = line_counter(p, sniff(p) == "gzip") if unit == "line" else None
        parts.append(_Part(start, shown, unit, first, lines=lines))
        frames.append(df)
        start += len(df)
    raw = frames[0] if len(frames) == 1 else _concat(frames)
    if not validate:
        return raw
    return _validate(raw, default_condition=DEFAULT_CONDITION, origin=_Origin(parts),
                     from_file=True)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One table from several files' tables (categoricals unioned, first file's order)."""
    from pandas.api.types import union_categoricals

    frames = [f if "condition" in f.columns else f.assign(
        condition=pd.Categorical([DEFAULT_CONDITION] * len(f))) for f in frames]
    columns = list(dict.fromkeys(c for f in frames for c in f.columns))
    out: dict[str, Any] = {}
    for col in columns:
        parts = [f[col] if col in f.columns else pd.Series([None] * len(f), dtype=object)
                 for f in frames]
        if all(isinstance(s.dtype, pd.CategoricalDtype) for s in parts):
            try:
                out[col] = union_categoricals([s.array for s in parts], ignore_order=True)
                continue
            except TypeError:
                pass
        out[col] = pd.concat([s.astype(object) if isinstance(s.dtype, pd.CategoricalDtype)
                              else s for s in parts], ignore_index=True).to_numpy()
    return pd.DataFrame(out)


@dataclass(frozen=True)
class Responses:
    """One condition's answers in wide form.

    Attributes
    ----------
    X : numpy.ndarray of shape (n_items, n_models), dtype int8
        Answers in ``{-1, 0, +1}``.
    y : numpy.ndarray of shape (n_items,), dtype int8
        Labels in ``{-1, +1}``.
    models : list
        Column names of ``X``.
    items : list
        Row names of ``X``.
    condition : hashable
        The condition the answers come from.
    """

    X: np.ndarray
    y: np.ndarray
    models: list[Any]
    items: list[Any]
    condition: Hashable = DEFAULT_CONDITION

    @classmethod
    def from_frame(cls, df: pd.DataFrame, condition: Hashable | None = None, *,
                   validate: bool = True) -> Responses:
        """Build from a tidy table (see :func:`to_wide`)."""
        sub_conds = conditions(df)
        if condition is None and len(sub_conds) == 1:
            condition = sub_conds[0]
        X, y = to_wide(df, condition, validate=validate)
        return cls(X.to_numpy(), y.to_numpy(), list(X.columns), list(X.index), condition)

    @property
    def n_items(self) -> int:
        """Number of items (rows of ``X``)."""
        return int(self.X.shape[0])

    @property
    def n_models(self) -> int:
        """Number of models (columns of ``X``)."""
        return int(self.X.shape[1])

    def to_frame(self) -> pd.DataFrame:
        """The tidy table of this condition (see :func:`to_long`)."""
        return to_long(self.X, self.y, condition=self.condition, items=self.items,
                       models=self.models)
