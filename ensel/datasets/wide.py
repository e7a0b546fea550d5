"""Import a wide answer matrix: one row per item, one column per model, one gold column.

CSV (``.csv``, ``.csv.gz``) or Parquet (``.parquet``, ``.pq``). Columns:

* the **gold** column (``gold``, ``label``, ``target`` or ``correct_answer``; or named with
  ``gold=``; two such columns are refused unless one is named);
* optionally an **item** column (``item``, ``id``, ``question_id`` or ``doc_id``; else the
  row number);
* optionally a **condition** column (``condition``);
* a saved row index (``Unnamed: 0`` or an unnamed column, as ``DataFrame.to_csv`` writes
  it) is dropped with a notice;
* every other column is a **model**.

Two kinds of task:

* **multiple choice** (the gold column holds option labels such as ``A``..``J`` or option
  indices ``0..n-1``): each model cell holds the option the model chose, empty = nothing
  parsed. Rows become the paper's two binary queries per item through
  :func:`ensel.datasets.binary.to_binary`, or, with ``view="native"``, stay one row per
  (item, model) with the labels themselves and an ``options`` column (the option set).
  The option set is ``options=`` when given (a chosen option outside it is an error) or
  every value seen in the gold and model columns (letters: ``A`` up to the last letter
  seen, matched case-insensitively so that ``a`` is ``A``; integers: indices ``0`` up to
  the largest seen).
* **natively binary** (the gold column holds only ``True/False``, ``+1/-1``, ``1/0`` or
  ``yes/no``; pass ``options=`` to read a 0/1 gold column as two-option multiple choice
  instead): a model cell holds the model's binary answer, read by the one encoding rule of
  :mod:`ensel._encoding` decided on the **whole matrix** (all model columns together, never
  column by column; ``yes``/``no`` are read as ``True``/``False``): ``1``/``0`` is
  True/False only when the whole matrix holds nothing but ``0`` and ``1``, ``0`` is
  abstained in a matrix that also holds ``-1``, and the ambiguous mixtures (``1``/``0`` with
  blanks, ``True``/``False`` with ``0``) are refused. With ``correctness=True`` a cell holds
  ``1``/``True`` for right, ``0``/``False`` for wrong, blank for no answer.

The file is read by its content (gzip, Parquet or text, whatever its name); the item column
is kept as text (``01`` and ``1`` are two items). Line numbers in error messages are the CSV
file's lines (the header is line 1); Parquet rows are counted from 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ensel import _encoding as enc
from ensel._errors import DataError
from ensel._files import csv_names, refuse_kind, sniff
from ensel.datasets.binary import item_seed_key, option_label, to_binary

__all__ = ["GOLD_COLUMNS", "ITEM_COLUMNS", "read_table", "read_wide", "wide_to_tidy"]

GOLD_COLUMNS = ("gold", "label", "target", "correct_answer")
ITEM_COLUMNS = ("item", "id", "question_id", "doc_id")
_YES_NO = {"yes": "True", "no": "False"}
#: The header pandas gives a saved row index (``df.to_csv()`` without ``index=False``).
_INDEX_COLUMN = re.compile(r"Unnamed: \d+|")

_Err = DataError


def read_table(path: Path) -> tuple[pd.DataFrame, str]:
    """Read a CSV/Parquet file (by its content) as text, or native Parquet values; return it
    and its kind (``"csv"`` or ``"parquet"``)."""
    kind = sniff(path)
    if kind == "parquet":
        try:
            return pd.read_parquet(path), "parquet"
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise _Err(f"{path}: cannot read as Parquet ({type(exc).__name__}); is it a "
                       "complete Parquet file?") from None
    refuse_kind(kind, str(path))
    gz = kind == "gzip"
    csv_names(path, str(path), gz)  # separator and repeated names, said on line 1
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""],
                         compression="gzip" if gz else None, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise _Err(f"{path}: the file is empty") from None
    except UnicodeDecodeError:
        raise _Err(f"{path}: not UTF-8 text; save it as UTF-8") from None
    except pd.errors.ParserError as exc:
        raise _Err(f"{path}: not a readable CSV file ({str(exc).strip()[:100]})") from None
    except (OSError, EOFError) as exc:
        raise _Err(f"{path}: cannot read the compressed data ({exc}); is the .gz file "
                   "complete?") from None
    return df, "csv"


def _where(path: Path, kind: str, row: int) -> str:
    return f"{path}, line {row + 2}" if kind == "csv" else f"{path}, row {row}"


def _text(v: object) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _kinds(col: pd.Series) -> np.ndarray:
    """Cell kinds of the one encoding rule (``yes``/``no`` read as ``True``/``False``)."""
    if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
        col = col.map(lambda v: _YES_NO.get(v.strip().lower(), v) if isinstance(v, str) else v)
    if col.dtype == np.int8:  # a file's int8 column is read by the rule, as any other
        col = col.astype(np.int16)
    return enc.classify(col)


def _pick(columns: Sequence[str], given: str | None, defaults: Sequence[str], what: str,
          path: Path, required: bool) -> str | None:
    if given is not None:
        if given not in columns:
            raise _Err(f"{path}: no {what} column {given!r}; columns are {list(columns)}")
        return given
    found = [c for c in columns if str(c).strip().lower() in defaults]
    if len(found) > 1 and what == "gold":  # 'label' and 'gold': neither is read as a model
        raise _Err(f"{path}: {len(found)} columns could be the {what} column "
                   f"({', '.join(map(repr, found))}); keep one, or name it with --{what}")
    if found:
        return found[0]
    if required:
        raise _Err(f"{path}: missing the {what} column: name it one of {list(defaults)} or "
                   f"pass its name; columns are {list(columns)}")
    return None


def wide_to_tidy(df: pd.DataFrame, *, path: Path, kind: str = "csv", gold: str | None = None,
                 item: str | None = None, options: Sequence[object] | None = None,
                 correctness: bool = False, seed: int = 0, null_pred: str = "abstain",
                 condition: str = "all", view: str = "binary") -> pd.DataFrame:
    """Tidy table from a wide matrix already read into ``df`` (see the module docstring)."""
    return _wide_to_tidy(df, path=path, kind=kind, gold=gold, item=item, options=options,
                         correctness=correctness, seed=seed, null_pred=null_pred,
                         condition=condition, view=view)[0]


def _wide_to_tidy(df: pd.DataFrame, *, path: Path, kind: str = "csv", gold: str | None = None,
                  item: str | None = None, options: Sequence[object] | None = None,
                  correctness: bool = False, seed: int = 0, null_pred: str = "abstain",
                  condition: str = "all", view: str = "binary") -> tuple[pd.DataFrame, np.ndarray]:
    """The tidy table and, per tidy row, the number of the line (row) it comes from."""
    if len(df) == 0:
        raise _Err(f"{path}: the file has no rows")
    cols = [str(c) for c in df.columns]
    df = df.set_axis(cols, axis=1)
    index_cols = [c for c in cols if _INDEX_COLUMN.fullmatch(c) and c not in (gold, item)]
    if index_cols:
        from ensel._notice import notice

        notice(f"{path}: column {index_cols[0]!r} is a saved row index (pandas' to_csv), not a "
               "model: dropped" if len(index_cols) == 1 else
               f"{path}: columns {index_cols} are saved row indices, not models: dropped")
        df = df.drop(columns=index_cols)
        cols = [c for c in cols if c not in index_cols]
    gcol = _pick(cols, gold, GOLD_COLUMNS, "gold", path, True)
    icol = _pick(cols, item, ITEM_COLUMNS, "item", path, False)
    if icol is not None and icol == gcol:
        raise _Err(f"{path}: the gold and the item column are both {gcol!r}; one column "
                   "cannot be both (name the other with --gold or --item)")
    ccol = "condition" if "condition" in cols else None
    models = [c for c in cols if c not in (gcol, icol, ccol)]
    if not models:
        raise _Err(f"{path}: no model columns besides {gcol!r}")
    g = df[gcol]
    if g.isna().any():
        row = int(np.argmax(g.isna().to_numpy()))
        raise _Err(f"{_where(path, kind, row)}: the gold column {gcol!r} is empty")
    if icol:
        if df[icol].isna().any():
            row = int(np.argmax(df[icol].isna().to_numpy()))
            raise _Err(f"{_where(path, kind, row)}: the item column {icol!r} is empty")
        items = df[icol].map(_text).reset_index(drop=True)
    else:
        items = pd.Series([str(i) for i in range(len(df))])
    conds = (df[ccol].map(_text).reset_index(drop=True) if ccol
             else pd.Series([condition] * len(df)))
    keys = pd.DataFrame({"i": items.to_numpy(), "c": conds.to_numpy()})
    dup = keys.duplicated().to_numpy()
    if dup.any():
        row = int(np.argmax(dup))
        first = int(np.flatnonzero((keys["i"] == keys["i"].iloc[row])
                                   & (keys["c"] == keys["c"].iloc[row]))[0])
        line = (lambda r: f"line {r + 2}") if kind == "csv" else (lambda r: f"row {r}")
        raise _Err(f"{path}: duplicate item {items.iloc[row]!r}"
                   + (f" in condition {conds.iloc[row]!r}" if ccol else "")
                   + f" ({line(first)} and {line(row)})")
    numbers = np.arange(len(df)) + (2 if kind == "csv" else 0)
    gold_kinds = _kinds(g)
    binary = not np.isin(gold_kinds, (enc.BAD, enc.BLANK)).any()
    if correctness or (binary and options is None):
        out = _binary(df, path, kind, gcol, models, items, conds, correctness)
        return out, np.repeat(numbers, len(models))
    out = _multiple_choice(df, path, kind, gcol, models, items, conds, options, seed,
                           null_pred, view)
    line_of = dict(zip(zip(items, conds, strict=True), numbers, strict=True))
    names = (out["item"].astype(str) if view == "native"
             else out["item"].astype(str).str.rsplit(":", n=1).str[0])
    back = [line_of[(n, c)] for n, c in zip(names, out["condition"].astype(str), strict=True)]
    return out, np.asarray(back, dtype=np.int64)


def _binary(df, path, kind, gcol, models, items, conds, correctness) -> pd.DataFrame:
    gold = df[gcol].reset_index(drop=True)
    kinds = _kinds(gold)
    bad = np.isin(kinds, (enc.BAD, enc.BLANK))
    if bad.any():
        row = int(np.argmax(bad))
        raise _Err(f"{_where(path, kind, row)}: gold value {gold.iloc[row]!r} is not a binary "
                   "label (True/False, +1/-1, 1/0, yes/no)")
    try:
        y, _ = enc.decide(kinds, allow_abstain=False)
    except enc._Ambiguous as exc:
        row = int(np.argmax(kinds == exc.kind))
        raise _Err(f"{path}: gold column {gcol!r} " + exc.reason.format(
            at=f"in {_where(path, kind, row).split(', ', 1)[1]}")) from None
    cells = np.column_stack([_kinds(df[m].reset_index(drop=True)) for m in models])

    def at(row: int, j: int) -> str:
        return f"{_where(path, kind, row)}, column {models[j]!r}"

    if correctness:
        right = np.isin(cells, (enc.ONE, enc.TRUE))
        wrong = np.isin(cells, (enc.ZERO, enc.FALSE))
        bad = ~(right | wrong | (cells == enc.BLANK))
        if bad.any():
            row, j = (int(v) for v in np.argwhere(bad)[0])
            raise _Err(f"{at(row, j)}: correctness {df[models[j]].iloc[row]!r} is not 0 or 1 "
                       "(1/True = right, 0/False = wrong, blank = no answer)")
        X = np.where(right, y[:, None], np.where(wrong, -y[:, None], 0)).astype(np.int8)
    else:
        bad = cells == enc.BAD
        if bad.any():
            row, j = (int(v) for v in np.argwhere(bad)[0])
            raise _Err(f"{at(row, j)}: answer {df[models[j]].iloc[row]!r} is not in "
                       "{-1, 0, +1} (or True/False, yes/no, empty = abstained)")
        try:
            X, used = enc.decide(cells, allow_abstain=True)
        except enc._Ambiguous as exc:
            row, j = (int(v) for v in np.argwhere(cells == exc.kind)[0])
            raise _Err(f"{path}: the answers " + exc.reason.format(
                at=f"in {at(row, j).split(', ', 1)[1]}") + " (one rule for the whole "
                "matrix)") from None
        if used.startswith("1/0"):
            from ensel._notice import notice

            notice(f"{path}: " + enc.zero_one_text("the answers"))
    X = np.asarray(X, dtype=np.int8)
    return pd.DataFrame({
        "item": np.repeat(items.to_numpy(dtype=object), len(models)),
        "model": np.tile(np.asarray(models, dtype=object), len(df)),
        "condition": np.repeat(conds.to_numpy(dtype=object), len(models)),
        "answer": X.ravel(),
        "label": np.repeat(y.astype(np.int8), len(models)),
    })


def _norm(v: object) -> str | None:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    s = str(v).strip()
    if s.endswith(".0") and s[:-2].isdigit():
        s = s[:-2]
    if len(s) == 1 and "a" <= s <= "z":  # option letters are matched case-insensitively
        s = s.upper()
    return s or None


def _is_lower_letter(v: object) -> bool:
    return isinstance(v, str) and len(v.strip()) == 1 and "a" <= v.strip() <= "z"


def _multiple_choice(df, path, kind, gcol, models, items, conds, options, seed,
                     null_pred, view="binary") -> pd.DataFrame:
    gold = [_norm(v) for v in df[gcol]]
    cells = {m: [_norm(v) for v in df[m]] for m in models}
    lower = sum(_is_lower_letter(v) for col in (gcol, *models) for v in df[col])
    if lower:
        from ensel._notice import notice

        notice(f"{path}: read {lower:,} lower-case option letter(s) as capitals (a = A), as "
               "this format does; a tidy table refuses them")
    if options is not None:
        opts: list[Any] = [_norm(o) for o in options]
        if None in opts or not opts:  # an empty --options, or an empty one between commas
            raise _Err(f"options {list(options)}: "
                       + (f"option {opts.index(None) + 1} is empty" if opts else "no option")
                       + "; give the option set, e.g. A,B,C,D")
        twice = next((o for i, o in enumerate(opts) if o in opts[:i]), None)
        if twice is not None:  # its queries would be asked twice, one of them always false
            raise _Err(f"options {list(options)}: {twice!r} is given twice; give each option "
                       "once")
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
    if view == "native":  # the labels themselves, one row per (item, model), file order
        n = len(df)
        return pd.DataFrame({
            "item": np.repeat(items.to_numpy(dtype=object), len(models)),
            "model": np.tile(np.asarray(models, dtype=object), n),
            "condition": np.repeat(conds.to_numpy(dtype=object), len(models)),
            "answer": [cells[m][r] for r in range(n) for m in models],
            "label": np.repeat(np.asarray(gold, dtype=object), len(models)),
            "options": "|".join(opts),
        })
    frames = []
    for cond in pd.unique(conds):
        rows = np.flatnonzero(conds.to_numpy() == cond)
        names = [items.iloc[r] for r in rows]
        questions = pd.DataFrame({
            "question_id": range(len(rows)),
            "name": names,
            "seed_key": [item_seed_key(n) for n in names],
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


def _read_wide(path: str | Path, **options: object) -> tuple[pd.DataFrame, str, np.ndarray]:
    """:func:`read_wide` plus how rows are numbered and each tidy row's line (row) number."""
    p = Path(path)
    df, kind = read_table(p)
    out, numbers = _wide_to_tidy(df, path=p, kind=kind, **options)  # type: ignore[arg-type]
    return out, "line" if kind == "csv" else "row", numbers


def read_wide(path: str | Path, **options: object) -> pd.DataFrame:
    """Read a wide matrix file and return the tidy table (options of :func:`wide_to_tidy`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "w.csv"
    >>> _ = p.write_text("id,gold,m1,m2\\n01,1,1,0\\n1,0,0,0\\n")
    >>> df = read_wide(p)
    >>> df["item"].tolist(), df["answer"].tolist()
    (['01', '01', '1', '1'], [1, -1, -1, -1])
    """
    return _read_wide(path, **options)[0]
