"""The one answer/label encoding rule of ``ensel`` (used by every reader and every check).

The same rule applies to a CSV file, a Parquet file, a pandas DataFrame and a numpy array,
and it looks at the **whole table at once** (all answer columns together, never one column
at a time), so the same answers give the same values whatever holds them:

==========================================  ===============================================
a cell holding                              means
==========================================  ===============================================
blank, ``NaN``, ``None``, ``NA``,           abstained (``0``); answers only, a label may
``"nan"``/``"none"``/``"null"``/``"abstain"``  never be missing
``True`` / ``False`` (any case)             ``+1`` / ``-1``
``+1`` / ``-1``                             ``+1`` / ``-1``
``0`` in a table that also holds ``-1``     abstained (``0``; the ``{-1, 0, +1}`` form
                                            that :func:`ensel.data.to_wide` produces)
``1`` / ``0`` in a table holding only       ``+1`` / ``-1`` (True/False), said in a notice
``0`` and ``1`` (no blank, no ``-1``)
==========================================  ===============================================

Everything else is refused with a message that says how to encode it, in particular the
ambiguous mixtures: ``0``/``1`` together with blanks (is ``0`` False or abstained?) and
``True``/``False`` together with ``0`` (same question). Labels follow the same rule without
abstentions: ``{-1, +1}``, ``{0, 1}``, booleans or True/False strings.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import EnselError

__all__ = ["Encoding", "classify", "decide", "ABSTAIN_STRINGS"]

logger = logging.getLogger("ensel")

#: Strings read as "no answer" (after stripping and lower-casing).
ABSTAIN_STRINGS = frozenset({"", "nan", "none", "null", "na", "n/a", "<na>", "abstain"})

# cell kinds
BLANK, ONE, MINUS, ZERO, TRUE, FALSE, BAD = range(7)
_VALUE = np.array([0, 1, -1, 0, 1, -1, 0], dtype=np.int8)  # value of each kind, ZERO decided later
_STRINGS = {"true": TRUE, "false": FALSE, "1": ONE, "+1": ONE, "1.0": ONE, "+1.0": ONE,
            "-1": MINUS, "-1.0": MINUS, "0": ZERO, "0.0": ZERO, "-0": ZERO, "+0": ZERO}
_NUMBERS = {1.0: ONE, -1.0: MINUS, 0.0: ZERO}

HOW_TO = ("encode answers as +1/-1 (or True/False) and leave a cell blank for an "
          "abstention; 1/0 is read as True/False only when the whole table holds nothing "
          "but 0 and 1")


class Encoding(str):
    """Name of the encoding a table was read with (a ``str``: ``"+1/-1"``, ``"1/0"`` ...)."""


def _kind_of(v: Any) -> int:
    if isinstance(v, (bool, np.bool_)):
        return TRUE if v else FALSE
    if v is None or v is pd.NA or v is pd.NaT:
        return BLANK
    if isinstance(v, (int, float, np.integer, np.floating)):
        f = float(v)
        if f != f:
            return BLANK
        return _NUMBERS.get(f, BAD)
    if isinstance(v, (str, bytes)):
        s = (v.decode("utf-8", "replace") if isinstance(v, bytes) else v).strip().lower()
        if s in ABSTAIN_STRINGS:
            return BLANK
        return _STRINGS.get(s, BAD)
    return BAD


def classify(values: Any) -> np.ndarray:
    """Kind code of every cell (same shape as ``values``); vectorised for typed arrays."""
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.to_numpy(dtype=object) if isinstance(
            values.dtype, pd.api.extensions.ExtensionDtype) else values.to_numpy()
    arr = np.asarray(values)
    if arr.dtype == bool:
        return np.where(arr, TRUE, FALSE).astype(np.int8)
    if arr.dtype.kind in "iuf":
        f = arr.astype(np.float64, copy=False)
        out = np.full(arr.shape, BAD, dtype=np.int8)
        out[f == 1] = ONE
        out[f == -1] = MINUS
        out[f == 0] = ZERO
        out[np.isnan(f)] = BLANK
        return out
    flat = arr.ravel()
    out = np.empty(flat.shape, dtype=np.int8)
    if flat.size and pd.api.types.infer_dtype(flat, skipna=True) == "string":
        na = pd.isna(flat)
        s = pd.Series(flat[~na], dtype=object).str.strip().str.lower()
        codes, uniques = pd.factorize(s)
        kinds = np.array([BLANK if u in ABSTAIN_STRINGS else _STRINGS.get(u, BAD)
                          for u in uniques], dtype=np.int8)
        out[na] = BLANK
        out[~na] = kinds[codes] if len(kinds) else np.empty(0, np.int8)
    else:
        cache: dict[tuple[type, Any], int] = {}
        for i, v in enumerate(flat):
            try:
                key = (type(v), v)
                k = cache.get(key)
                if k is None:
                    k = cache[key] = _kind_of(v)
            except TypeError:  # unhashable
                k = _kind_of(v)
            out[i] = k
    return out.reshape(arr.shape)


def decide(kinds: np.ndarray, *, allow_abstain: bool) -> tuple[np.ndarray, str]:
    """Apply the rule to the kind codes of a whole table.

    Returns the ``int8`` values and the name of the encoding used; raises
    :class:`ValueError` with a bare reason (no position; the caller adds it) when the table is
    ambiguous. Cells of kind ``BAD`` must have been reported by the caller before.
    """
    present = np.bincount(kinds.ravel(), minlength=7) > 0
    has = {k: bool(present[k]) for k in range(7)}
    out = _VALUE[kinds]
    if has[ZERO]:
        if has[TRUE] or has[FALSE]:
            raise _Ambiguous(
                ZERO, "mixes True/False with 0 (first 0 {at}), so 0 could mean False or "
                "abstained; " + HOW_TO)
        if has[MINUS]:
            if not allow_abstain:
                raise _Ambiguous(ZERO, "has value 0 {at} but also -1: a label must be -1 or +1 "
                                       "(or 0/1 without any -1); 0 = abstained is allowed for "
                                       "answers only")
            return out, "+1/0/-1 (0 = abstained)"
        if has[BLANK] and allow_abstain:
            raise _Ambiguous(
                BLANK, "uses 1/0 and has a blank cell {at}, so 0 could mean False or abstained; "
                + HOW_TO)
        out = np.where(kinds == ONE, 1, -1).astype(np.int8)
        if has[BLANK]:
            out[kinds == BLANK] = 0
        return out, "1/0 (read as True/False)"
    if has[TRUE] or has[FALSE]:
        return out, "True/False" + (" with blanks = abstained" if has[BLANK] else "")
    return out, "+1/-1" + (" with blanks = abstained" if has[BLANK] else "")


class _Ambiguous(EnselError):
    def __init__(self, kind: int, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def zero_one_text(what: str) -> str:
    """The sentence saying that a ``{0, 1}`` table was read as False/True."""
    return f"{what} hold only 0 and 1 (no blank, no -1): read 1 as True (+1), 0 as False (-1)"


def notice_zero_one(what: str) -> None:
    """Log (level INFO) that a ``{0, 1}`` array was read as False/True."""
    logger.info("ensel: %s", zero_one_text(what))
