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
``label``     the ground truth of the query, ``+1`` or ``-1`` (no missing values)
============= =====================================================================

Accepted encodings: the one rule of :mod:`ensel._encoding`, applied to all answers of the
table at once (and to the labels): blank/``NaN``/``None`` = abstained (``0``, answers only);
``True``/``False`` and ``+1``/``-1``; ``0`` = abstained in a table that also holds ``-1``;
``1``/``0`` = True/False only when the whole column holds nothing but ``0`` and ``1`` (no
blank), which :func:`validate_responses` states in a one-line notice and in
``df.attrs["encoding"]``; ambiguous mixtures (``1``/``0`` with blanks, ``True``/``False``
with ``0``) are refused with a message that says how to encode them.

Rules: one label per (condition, item), no duplicate (condition, item, model) rows.
Wide form (:func:`to_wide`): for one condition, ``X`` is an items x models ``int8`` matrix
and ``y`` the labels; a model with no row for an item counts as abstained there (``0``).
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ensel._encoding import zero_one_text
from ensel._notice import notice
from ensel._validation import as_pm1, check_X, check_y, unique_names

__all__ = [
    "COLUMNS",
    "DEFAULT_CONDITION",
    "Responses",
    "conditions",
    "read_responses",
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


def _first_row(mask: np.ndarray | pd.Series, df: pd.DataFrame) -> Any:
    """Index label of the first True position of ``mask``."""
    pos = int(np.argmax(np.asarray(mask)))
    return df.index[pos]


def _row_of_frame(i: int) -> str:
    return f"row {i}"


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
        ``label`` as ``int8`` (answers in ``{-1, 0, +1}``, labels in ``{-1, +1}``),
        a fresh ``RangeIndex``.

    Raises
    ------
    ValueError
        A required column is missing; ``item``/``model``/``condition`` has a missing value;
        an answer or label has a value outside the accepted encodings (or a label is
        missing); an item has two different labels within a condition; a
        (condition, item, model) triple appears twice. The message names the column,
        the row and the value.

    Notes
    -----
    ``df.attrs["encoding"]`` of the result names the encoding the rule applied to the
    answers and to the labels (e.g. ``{"answer": "+1/-1 with blanks = abstained",
    "label": "True/False"}``); a ``1``/``0`` answer column is also announced in a one-line
    notice (logger ``"ensel"``).
    """
    return _validate(df, default_condition=default_condition, row=_row_of_frame)


def _validate(df: pd.DataFrame, *, default_condition: Hashable,
              row: Any, source: str = "responses") -> pd.DataFrame:
    """:func:`validate_responses` with ``row(i)`` naming data row ``i`` in messages."""
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"responses must be a pandas DataFrame; got {type(df).__name__}")
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(
            f"responses are missing the column {missing[0]!r}; a tidy table needs the columns "
            f"{', '.join(COLUMNS)} ('condition' is optional); got {list(map(str, df.columns))}"
        )
    out = df.copy()
    if "condition" not in out.columns:
        out["condition"] = default_condition
    out = out.reset_index(drop=True)
    if len(out) == 0:
        raise ValueError("responses have no rows")
    for col in ("item", "model", "condition"):
        na = out[col].isna().to_numpy()
        if na.any():
            raise ValueError(f"column {col!r} has a missing value in {row(_first_row(na, out))}")
    encoding: dict[str, str] = {}
    for col, abstain in (("answer", True), ("label", False)):
        values = out[col]
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        report: dict[str, str] = {}
        out[col] = as_pm1(values, name=f"column {col!r}", allow_abstain=abstain,
                          where=lambda pos: f"in {row(pos[0])}", report=report)
        encoding[col] = report["encoding"]
    if encoding["answer"].startswith("1/0"):
        notice(f"{source}: " + zero_one_text("the answers"))
    keys = ["condition", "item", "model"]
    dup = out.duplicated(keys).to_numpy()
    if dup.any():
        first = out.iloc[int(np.argmax(dup))]
        raise ValueError(
            f"duplicate answer: condition {_py(first['condition'])!r}, "
            f"item {_py(first['item'])!r}, "
            f"model {_py(first['model'])!r} appears more than once "
            f"({row(int(np.argmax(dup)))})"
        )
    n_labels = out.groupby(["condition", "item"], sort=False, observed=True)["label"].nunique()
    bad = n_labels[n_labels > 1]
    if len(bad):
        cond, item = bad.index[0]
        raise ValueError(
            f"item {_py(item)!r} has conflicting labels (+1 and -1) in condition {_py(cond)!r}; "
            "each (condition, item) needs exactly one label"
        )
    extras = [c for c in out.columns if c not in COLUMNS]
    out = out[list(COLUMNS) + extras]
    out.attrs = {**df.attrs, "encoding": encoding}
    return out


def conditions(df: pd.DataFrame) -> list[Hashable]:
    """Conditions of a tidy table, in order of first appearance (categorical: category order).

    A table without a ``condition`` column has the single condition ``"all"``.
    """
    if "condition" not in df.columns:
        return [DEFAULT_CONDITION]
    col = df["condition"]
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = set(col.unique())
        return [c for c in col.cat.categories if c in present]
    return list(pd.unique(col))


def _select_condition(df: pd.DataFrame, condition: Hashable | None) -> tuple[pd.DataFrame, Any]:
    conds = conditions(df)
    if condition is None:
        if len(conds) != 1:
            raise ValueError(
                f"the table has {len(conds)} conditions {conds}; pass condition=... to pick one"
            )
        condition = conds[0]
    if "condition" not in df.columns:
        if condition != DEFAULT_CONDITION:
            raise ValueError(f"unknown condition {condition!r}; the table has {conds}")
        return df, condition
    if condition not in conds:
        raise ValueError(f"unknown condition {condition!r}; the table has {conds}")
    return df[df["condition"] == condition], condition


def _ordered_unique(col: pd.Series) -> list[Any]:
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = set(col.unique())
        return [c for c in col.cat.categories if c in present]
    return list(pd.unique(col))


def to_wide(df: pd.DataFrame, condition: Hashable | None = None, *,
            validate: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """Answer matrix and labels of one condition.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy table (see :func:`validate_responses`).
    condition : hashable, optional
        Which condition; may be omitted when the table has exactly one.
    validate : bool, default=True
        Validate ``df`` first (set ``False`` for a table that already went through
        :func:`validate_responses`, e.g. from :func:`ensel.datasets.load`).

    Returns
    -------
    X : pandas.DataFrame of shape (n_items, n_models), dtype int8
        Index ``item`` (order of first appearance, or category order), columns ``model``
        (same rule). A model without an answer for an item gets ``0`` (abstained) there;
        models with no answer at all in the condition do not appear.
    y : pandas.Series of shape (n_items,), dtype int8
        Labels, same index as ``X``, named ``label``.
    """
    if validate:
        df = validate_responses(df)
    sub, _ = _select_condition(df, condition)
    items = _ordered_unique(sub["item"])
    models = _ordered_unique(sub["model"])
    item_pos = pd.Index(items).get_indexer(sub["item"])
    model_pos = pd.Index(models).get_indexer(sub["model"])
    X = np.zeros((len(items), len(models)), dtype=np.int8)
    X[item_pos, model_pos] = sub["answer"].to_numpy(dtype=np.int8)
    y = np.zeros(len(items), dtype=np.int8)
    y[item_pos] = sub["label"].to_numpy(dtype=np.int8)
    index = pd.Index(items, name="item")
    Xdf = pd.DataFrame(X, index=index, columns=pd.Index(models, name="model"))
    return Xdf, pd.Series(y, index=index, name="label")


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
        raise ValueError(f"items has {len(items)} names but X has {n} rows")
    if len(models) != m:
        raise ValueError(f"models has {len(models)} names but X has {m} columns")
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


def read_responses(path: str | os.PathLike[str], *, validate: bool = True) -> pd.DataFrame:
    """Read a tidy answer table from CSV (``.csv``, ``.csv.gz``) or Parquet (``.parquet``, ``.pq``).

    Parameters
    ----------
    path : str or pathlib.Path
        A relative path is taken from the current working directory (the caller's folder).
    validate : bool, default=True
        Run :func:`validate_responses` on the result. Messages about a CSV file name its
        lines as a text editor shows them (the header is line 1, data row ``i`` is line
        ``i + 2``); about a Parquet file, its rows counted from 0.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    IsADirectoryError
        ``path`` is a folder.
    ValueError
        Unsupported suffix, a ``.csv`` file that is not UTF-8 text (or is compressed), or a
        table that fails validation.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        raise IsADirectoryError(
            f"responses path {str(path)!r} is a directory, not a file; give the path of a "
            ".csv, .csv.gz, .parquet or .pq file inside it"
        )
    name = p.name.lower()
    if name.endswith((".csv", ".csv.gz")):
        kind = "csv"
    elif name.endswith((".parquet", ".pq")):
        kind = "parquet"
    else:
        raise ValueError(
            f"cannot read {str(path)!r}: unsupported file type; expected a .csv, .csv.gz, "
            ".parquet or .pq file"
        )
    if not p.is_file():
        where = "" if p.is_absolute() else f" (relative to the current folder {Path.cwd()})"
        raise FileNotFoundError(f"responses file {str(p)!r} does not exist{where}")
    if kind == "csv":
        df = _read_csv(p, str(path))

        def row(i: int) -> str:
            return f"line {i + 2} of {p.name}"
    else:
        try:
            df = pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise ValueError(
                f"cannot read {str(path)!r} as Parquet ({type(exc).__name__}: {exc}); "
                "is it a complete Parquet file?"
            ) from None

        def row(i: int) -> str:
            return f"row {i} of {p.name}"
    if not validate:
        return df
    return _validate(df, default_condition=DEFAULT_CONDITION, row=row, source=p.name)


def _read_csv(p: Path, shown: str) -> pd.DataFrame:
    """Read a CSV file, saying plainly when it is compressed or not UTF-8."""
    with open(p, "rb") as fh:
        head = fh.read(4)
    gz = head[:2] == b"\x1f\x8b"
    if gz and not p.name.lower().endswith(".gz"):
        raise ValueError(
            f"{shown!r} is gzip-compressed but named .csv; rename it to .csv.gz "
            "(or decompress it)"
        )
    if head[:2] == b"PK" or head == b"PAR1":
        raise ValueError(
            f"{shown!r} is not a text CSV file (it looks like a "
            f"{'zip' if head[:2] == b'PK' else 'Parquet'} file); save the table as UTF-8 CSV "
            "or give it the matching suffix"
        )
    try:
        return pd.read_csv(p, dtype={"model": str, "condition": str}, encoding="utf-8",
                           compression="gzip" if gz else "infer")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{shown!r} is not UTF-8 text (byte {exc.start} cannot be decoded); save it as "
            "UTF-8, or if it is compressed, name it .csv.gz"
        ) from None


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
