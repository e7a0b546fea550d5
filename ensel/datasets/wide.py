"""Import a wide answer matrix: one row per item, one column per model, one gold column.

CSV (``.csv``, ``.csv.gz``) or Parquet (``.parquet``, ``.pq``). Columns:

* the **gold** column (``gold``, ``label``, ``target`` or ``correct_answer``; or named with
  ``gold=``);
* optionally an **item** column (``item``, ``id``, ``question_id`` or ``doc_id``; else the
  row number);
* optionally a **condition** column (``condition``);
* every other column is a **model**.

Two kinds of task:

* **multiple choice** (the gold column holds option labels such as ``A``..``J`` or option
  indices ``0..n-1``): each model cell holds the option the model chose, empty = nothing
  parsed. Rows become the paper's two binary queries per item through
  :func:`ensel.datasets.binary.to_binary`. The option set is ``options=`` when given
  (a chosen option outside it is an error) or every value seen in the gold and model
  columns (letters: ``A`` up to the last letter seen; integers: indices ``0`` up to the
  largest seen).
* **natively binary** (the gold column holds only ``True/False``, ``+1/-1``, ``1/0`` or
  ``yes/no``; pass ``options=`` to read a 0/1 gold column as two-option multiple choice
  instead): a model cell holds the model's binary answer in the same encodings (``1`` =
  True, ``0`` = False; in a column that also holds ``-1``, ``0`` = abstained; empty =
  abstained) or, with ``correctness=True``, ``1``/``0`` for right/wrong.

Line numbers in error messages are the CSV file's lines (the header is line 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ensel.datasets.binary import option_label, question_key, to_binary

__all__ = ["GOLD_COLUMNS", "ITEM_COLUMNS", "read_table", "read_wide", "wide_to_tidy"]

GOLD_COLUMNS = ("gold", "label", "target", "correct_answer")
ITEM_COLUMNS = ("item", "id", "question_id", "doc_id")
_BINARY = {"true": 1, "false": -1, "yes": 1, "no": -1, "+1": 1, "1": 1, "-1": -1,
           "t": 1, "f": -1, "0": -1}


class _Err(ValueError):
    pass


def read_table(path: Path) -> tuple[pd.DataFrame, str]:
    """Read a CSV/Parquet file as strings-or-native values; return it and its kind."""
    name = path.name.lower()
    if name.endswith((".csv", ".csv.gz")):
        try:
            df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
        except pd.errors.EmptyDataError:
            raise _Err(f"{path}: the file is empty") from None
        return df, "csv"
    if name.endswith((".parquet", ".pq")):
        return pd.read_parquet(path), "parquet"
    raise _Err(f"{path}: unsupported file type; a wide matrix is a .csv, .csv.gz, .parquet "
               "or .pq file")


def _where(path: Path, kind: str, row: int) -> str:
    return f"{path}, line {row + 2}" if kind == "csv" else f"{path}, row {row}"


def _binary_value(v: object) -> int | None:
    """+1/-1 for a binary encoding, 0 for missing, None when not binary."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return 0
    if isinstance(v, (bool, np.bool_)):
        return 1 if v else -1
    s = str(v).strip().lower()
    if s in ("", "nan", "none", "null"):
        return 0
    if s in ("1.0", "-1.0"):
        s = s[:-2]
    return _BINARY.get(s)


def _pick(columns: Sequence[str], given: str | None, defaults: Sequence[str], what: str,
          path: Path, required: bool) -> str | None:
    if given is not None:
        if given not in columns:
            raise _Err(f"{path}: no {what} column {given!r}; columns are {list(columns)}")
        return given
    for c in columns:
        if str(c).strip().lower() in defaults:
            return c
    if required:
        raise _Err(f"{path}: missing the {what} column: name it one of {list(defaults)} or "
                   f"pass its name; columns are {list(columns)}")
    return None


def wide_to_tidy(df: pd.DataFrame, *, path: Path, kind: str = "csv", gold: str | None = None,
                 item: str | None = None, options: Sequence[object] | None = None,
                 correctness: bool = False, seed: int = 0, null_pred: str = "abstain",
                 condition: str = "all") -> pd.DataFrame:
    """Tidy table from a wide matrix already read into ``df`` (see the module docstring)."""
    if len(df) == 0:
        raise _Err(f"{path}: the file has no rows")
    cols = [str(c) for c in df.columns]
    df = df.set_axis(cols, axis=1)
    gcol = _pick(cols, gold, GOLD_COLUMNS, "gold", path, True)
    icol = _pick(cols, item, ITEM_COLUMNS, "item", path, False)
    ccol = "condition" if "condition" in cols else None
    models = [c for c in cols if c not in (gcol, icol, ccol)]
    if not models:
        raise _Err(f"{path}: no model columns besides {gcol!r}")
    g = df[gcol]
    if g.isna().any():
        row = int(np.argmax(g.isna().to_numpy()))
        raise _Err(f"{_where(path, kind, row)}: the gold column {gcol!r} is empty")
    items = df[icol].astype(str) if icol else pd.Series([str(i) for i in range(len(df))])
    conds = df[ccol].astype(str) if ccol else pd.Series([condition] * len(df))
    dup = pd.DataFrame({"i": items.to_numpy(), "c": conds.to_numpy()}).duplicated().to_numpy()
    if dup.any():
        row = int(np.argmax(dup))
        raise _Err(f"{_where(path, kind, row)}: duplicate item {items.iloc[row]!r}"
                   + (f" in condition {conds.iloc[row]!r}" if ccol else ""))
    gold_bin = [_binary_value(v) for v in g]
    if correctness or (all(b in (1, -1) for b in gold_bin) and options is None):
        return _binary(df, path, kind, gcol, models, items, conds, gold_bin, correctness)
    return _multiple_choice(df, path, kind, gcol, models, items, conds, options, seed,
                            null_pred)


def _binary(df, path, kind, gcol, models, items, conds, gold_bin, correctness) -> pd.DataFrame:
    for row, b in enumerate(gold_bin):
        if b not in (1, -1):
            raise _Err(f"{_where(path, kind, row)}: gold value {df[gcol].iloc[row]!r} is not a "
                       "binary label (True/False, +1/-1, yes/no)")
    y = np.asarray(gold_bin, dtype=np.int8)
    X = np.zeros((len(df), len(models)), dtype=np.int8)
    for j, m in enumerate(models):
        minus_one = any(str(v).strip() in ("-1", "-1.0") for v in df[m].tolist())
        for row, v in enumerate(df[m].tolist()):
            if correctness:
                b = _binary_value(v)
                s = str(v).strip()
                if s in ("1", "1.0", "True", "true"):
                    X[row, j] = y[row]
                elif s in ("0", "0.0", "False", "false"):
                    X[row, j] = -y[row]
                elif b == 0:
                    X[row, j] = 0
                else:
                    raise _Err(f"{_where(path, kind, row)}, column {m!r}: correctness {v!r} is "
                               "not 0 or 1")
            else:
                b = _binary_value(v)
                if b is None:
                    raise _Err(f"{_where(path, kind, row)}, column {m!r}: answer {v!r} is "
                               "not in {-1, 0, +1} (or True/False, empty = abstained)")
                if b == -1 and minus_one and str(v).strip() in ("0", "0.0"):
                    b = 0  # a {-1, 0, +1} column: 0 = abstained
                X[row, j] = b
    return pd.DataFrame({
        "item": np.repeat(items.to_numpy(dtype=object), len(models)),
        "model": np.tile(np.asarray(models, dtype=object), len(df)),
        "condition": np.repeat(conds.to_numpy(dtype=object), len(models)),
        "answer": X.ravel(),
        "label": np.repeat(y, len(models)),
    })


def _norm(v: object) -> str | None:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    s = str(v).strip()
    if s.endswith(".0") and s[:-2].isdigit():
        s = s[:-2]
    return s or None


def _multiple_choice(df, path, kind, gcol, models, items, conds, options, seed,
                     null_pred) -> pd.DataFrame:
    gold = [_norm(v) for v in df[gcol]]
    cells = {m: [_norm(v) for v in df[m]] for m in models}
    if options is not None:
        opts: list[Any] = [_norm(o) for o in options]
        known = set(opts)
        for row, v in enumerate(gold):
            if v not in known:
                raise _Err(f"{_where(path, kind, row)}: gold {v!r} is not one of the options "
                           f"{opts}")
        for m in models:
            for row, v in enumerate(cells[m]):
                if v is not None and v not in known:
                    raise _Err(f"{_where(path, kind, row)}, column {m!r}: answer {v!r} is not "
                               f"one of the options {opts}")
    else:
        seen: set[str] = ({v for v in gold if v is not None}
                          | {v for m in models for v in cells[m] if v is not None})
        if all(s.isdigit() for s in seen):  # indices 0..max
            opts = [str(i) for i in range(max(int(s) for s in seen) + 1)]
        elif all(len(s) == 1 and "A" <= s <= "Z" for s in seen):  # letters A..max
            opts = [chr(c) for c in range(ord("A"), ord(max(seen)) + 1)]
        else:
            opts = sorted(seen)
    if len(opts) < 2:
        raise _Err(f"{path}: a multiple-choice matrix needs at least 2 options; found {opts}")
    index = {o: i for i, o in enumerate(opts)}
    frames = []
    for cond in pd.unique(conds):
        rows = np.flatnonzero(conds.to_numpy() == cond)
        names = [items.iloc[r] for r in rows]
        questions = pd.DataFrame({
            "question_id": range(len(rows)),
            "name": names,
            "seed_key": [question_key(n) for n in names],
            "answer": [option_label(index[gold[r]]) for r in rows],
            "answer_index": [index[gold[r]] for r in rows],
            "n_options": len(opts),
        })
        answers = pd.DataFrame({
            "model": np.repeat(np.asarray(models, dtype=object), len(rows)),
            "question_id": np.tile(np.arange(len(rows)), len(models)),
            "pred": [None if cells[m][r] is None else option_label(index[cells[m][r]])
                     for m in models for r in rows],
        })
        frames.append(to_binary(questions, answers, models=models, seed=seed,
                                null_pred=null_pred, condition=str(cond)).tidy)
    return pd.concat(frames, ignore_index=True)


def read_wide(path: str | Path, **options: object) -> pd.DataFrame:
    """Read a wide matrix file and return the tidy table (options of :func:`wide_to_tidy`)."""
    p = Path(path)
    df, kind = read_table(p)
    return wide_to_tidy(df, path=p, kind=kind, **options)  # type: ignore[arg-type]
