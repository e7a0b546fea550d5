"""Read your models' answers, in the formats people already have, as the tidy table.

==============  ============================================================================
format          what
==============  ============================================================================
``tidy``        the tidy table of :mod:`ensel.data` (``item, model, [condition,] answer,
                label``), CSV or Parquet
``wide``        one row per item, one column per model, one gold column, CSV or Parquet
                (:mod:`ensel.datasets.wide`)
``lm-eval``     lm-evaluation-harness ``--log_samples`` files ``samples_*.jsonl`` of several
                models (:mod:`ensel.datasets.lm_eval`)
``mmlu-pro``    MMLU-Pro's per-question outputs: a JSON list of records (``question_id,
                options, answer, answer_index, pred``), or a zip holding one, per model
==============  ============================================================================

Multiple-choice sources become the paper's binary queries through the one conversion of
:mod:`ensel.datasets.binary`. :func:`detect` guesses the format from the file names and, for
CSV/Parquet, the columns; :func:`read` reads one or several files; :func:`read_data` also
accepts the names of :func:`ensel.datasets.load` (``medmcqa``, ``mmlu``, ``imdb``,
``mmlu_pro``). Every problem raises :class:`DataError` (a ``ValueError``) naming the file,
the line or column, and what is wrong.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["FORMATS", "DataError", "detect", "read", "read_data", "read_mmlu_pro_files"]

#: Accepted formats and one line on each.
FORMATS: dict[str, str] = {
    "tidy": "tidy table: item, model, [condition,] answer, label (CSV/Parquet)",
    "wide": "one row per item, one column per model, one gold column (CSV/Parquet)",
    "lm-eval": "lm-evaluation-harness --log_samples samples_*.jsonl (several models)",
    "mmlu-pro": "MMLU-Pro per-question outputs (JSON list of records, or a zip of one)",
}
_TABLE_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


class DataError(ValueError):
    """Bad input data: the message names the file, the line/row or column and the problem."""


def _check_paths(paths: Sequence[str | Path]) -> list[Path]:
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out = []
    for p in paths:
        path = Path(p).expanduser()
        if path.is_dir():
            raise DataError(f"{path} is a directory; pass the data file(s) in it "
                            "(e.g. DIR/*/samples_*.jsonl for lm-evaluation-harness logs)")
        if not path.exists():
            raise DataError(f"{path}: no such file")
        if path.stat().st_size == 0:
            raise DataError(f"{path}: the file is empty")
        out.append(path)
    if not out:
        raise DataError("no input file given")
    return out


def _table_columns(path: Path) -> list[str]:
    if path.name.lower().endswith((".parquet", ".pq")):
        import pyarrow.parquet as pq

        try:
            return [str(c) for c in pq.read_schema(path).names]
        except Exception as exc:  # pyarrow raises several types for a bad file
            raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
    try:
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty") from None
    except (UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise DataError(f"{path}: not a readable CSV file ({exc})") from None


def detect(paths: Sequence[str | Path]) -> str:
    """The format of the input files (one of :data:`FORMATS`).

    Raises
    ------
    DataError
        A directory, a missing or empty file, a mix of formats, or an unknown one.
    """
    found = []
    for path in _check_paths(paths):
        name = path.name.lower()
        if name.startswith("samples_") and name.endswith(".jsonl"):
            found.append("lm-eval")
        elif name.endswith((".json", ".zip")):
            found.append("mmlu-pro")
        elif name.endswith(_TABLE_SUFFIXES):
            cols = {c.strip().lower() for c in _table_columns(path)}
            # a table with model and answer columns is tidy (validation names what it lacks)
            found.append("tidy" if {"model", "answer"} <= cols else "wide")
        else:
            raise DataError(
                f"{path}: unknown format; expected one of {', '.join(FORMATS)} "
                "(.csv/.parquet tables, samples_*.jsonl, .json/.zip MMLU-Pro outputs), or "
                "name it with --format"
            )
    if len(set(found)) > 1:
        raise DataError(f"the input files mix formats {sorted(set(found))}; import them apart")
    return found[0]


def _tidy(paths: list[Path]) -> pd.DataFrame:
    from ensel.data import read_responses, validate_responses

    frames = []
    for path in paths:
        kind = "parquet" if path.name.lower().endswith((".parquet", ".pq")) else "csv"
        try:
            raw = read_responses(path, validate=False)  # the encodings of ensel.data
        except pd.errors.EmptyDataError:
            raise DataError(f"{path}: the file is empty") from None
        try:
            df = validate_responses(raw)
        except ValueError as exc:
            msg = str(exc)
            m = re.search(r"\(?row (\d+)\)?", msg)
            if m and kind == "csv":
                msg = msg.replace(m.group(0), f"line {int(m.group(1)) + 2}")
            raise DataError(f"{path}: {msg}") from None
        frames.append(df)
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


_MODEL_FILE_RE = re.compile(r"^model_outputs_(?P<model>.+?)(_\d+shots?)?$")


def _mmlu_pro_model(path: Path) -> str:
    stem = path.name
    for suffix in (".json", ".zip"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    m = _MODEL_FILE_RE.match(stem)
    if m:
        return m["model"]
    if stem.endswith("_result"):  # <category>_result.json in a folder named after the model
        return path.parent.name
    return stem


def _mmlu_pro_records(path: Path) -> list[Any]:
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                members = [n for n in zf.namelist() if n.endswith(".json")]
                if len(members) != 1:
                    raise DataError(f"{path}: expected one JSON file in the zip, found {members}")
                data = json.loads(zf.read(members[0]))
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not a JSON list of MMLU-Pro records ({exc})") from None
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of records, got {type(data).__name__}")
    return data


def read_mmlu_pro_files(paths: Sequence[str | Path], *, seed: int = 0,
                        null_pred: str = "abstain", condition: str = "all") -> pd.DataFrame:
    """Tidy binary table from MMLU-Pro-style per-question outputs, one file (or more) per model.

    The model is named by the file (``model_outputs_<model>_5shots.zip`` -> ``<model>``;
    ``<category>_result.json`` -> its folder). Records need ``question_id, options, answer,
    answer_index, pred``; entries that are not records are skipped (as upstream files have a
    few). Questions whose key differs between files, or that not every model answered, are
    dropped (counts in ``attrs["dropped"]``).
    """
    from ensel.datasets.binary import option_label, to_binary

    rows = []
    models: list[str] = []
    for path in _check_paths(paths):
        model = _mmlu_pro_model(path)
        if model not in models:
            models.append(model)
        for i, rec in enumerate(_mmlu_pro_records(path)):
            if not isinstance(rec, dict) or "question_id" not in rec:
                continue
            missing = [k for k in ("options", "answer_index", "pred") if k not in rec]
            if missing:
                raise DataError(f"{path}: record {i} (question_id {rec['question_id']}) lacks "
                                f"{missing}")
            try:
                qid, gold, n = int(rec["question_id"]), int(rec["answer_index"]), len(
                    rec["options"])
            except (TypeError, ValueError):
                raise DataError(f"{path}: record {i} has a non-integer question_id or "
                                "answer_index") from None
            if not 0 <= gold < n:
                raise DataError(f"{path}: record {i} (question_id {qid}): answer_index {gold} "
                                f"is outside its {n} options")
            pred = rec["pred"]
            rows.append((model, qid, gold, n, None if pred is None else str(pred)))
    if not rows:
        raise DataError("no MMLU-Pro record found in the input files")
    raw = pd.DataFrame(rows, columns=["model", "question_id", "answer_index", "n_options",
                                      "pred"]).drop_duplicates(["model", "question_id"])
    key = raw.groupby("question_id")[["answer_index", "n_options"]].nunique()
    inconsistent = key.index[(key > 1).any(axis=1)]
    counts = raw.groupby("question_id")["model"].nunique()
    partial = counts.index[counts < len(models)]
    drop = set(inconsistent) | set(partial)
    raw = raw[~raw["question_id"].isin(drop)]
    per_q = raw.drop_duplicates("question_id").sort_values("question_id")
    per_q = per_q[per_q["n_options"] >= 2].reset_index(drop=True)
    if per_q.empty:
        raise DataError("no question is answered by every model with the same answer key")
    per_q["answer"] = [option_label(i) for i in per_q["answer_index"]]
    tables = to_binary(per_q[["question_id", "answer", "answer_index", "n_options"]],
                       raw[raw["question_id"].isin(per_q["question_id"])], models=models,
                       seed=seed, null_pred=null_pred, condition=condition)
    tidy = tables.tidy
    tidy.attrs = {"dropped": {"inconsistent_across_files": len(inconsistent),
                              "not_answered_by_all": len(set(partial) - set(inconsistent))}}
    return tidy


def read(paths: Sequence[str | Path] | str | Path, *, format: str | None = None,
         **options: Any) -> pd.DataFrame:
    """Read input files of one format into a validated tidy table.

    Parameters
    ----------
    paths : path or sequence of paths
    format : str, optional
        One of :data:`FORMATS`; detected by :func:`detect` when omitted.
    **options
        For multiple-choice sources: ``seed`` (negative option draw), ``null_pred``,
        ``condition``; for ``wide``: also ``gold``, ``item``, ``options``, ``correctness``.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition, answer, label`` (validated).

    Raises
    ------
    DataError
    """
    from ensel.data import validate_responses

    files = _check_paths([paths] if isinstance(paths, (str, Path)) else list(paths))
    fmt = format or detect(files)
    if fmt not in FORMATS:
        raise DataError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    try:
        if fmt == "tidy":
            return _tidy(files)
        if fmt == "wide":
            from ensel.datasets.wide import read_wide

            frames = [read_wide(p, **options) for p in files]
            df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        elif fmt == "lm-eval":
            from ensel.datasets.lm_eval import read_lm_eval

            df = read_lm_eval(files, **options)
        else:
            df = read_mmlu_pro_files(files, **options)
    except DataError:
        raise
    except (ValueError, KeyError, OSError) as exc:
        raise DataError(str(exc) if str(exc).startswith(str(files[0])) or "line" in str(exc)
                        else f"{files[0]}: {exc}") from None
    attrs = dict(df.attrs)
    try:
        out = validate_responses(df)
    except ValueError as exc:
        raise DataError(f"{files[0]}: {exc}") from None
    out.attrs = attrs
    return out


def read_data(data: str | Path | Sequence[str | Path], *, format: str | None = None,
              **options: Any) -> pd.DataFrame:
    """A dataset name of :func:`ensel.datasets.load` or input file(s) (see :func:`read`)."""
    from ensel.datasets import _DESCRIPTIONS, load

    if isinstance(data, str) and format is None and data in _DESCRIPTIONS \
            and not Path(data).exists():
        return load(data)
    return read(data, format=format, **options)
