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
CSV/Parquet, the columns; :func:`read` reads one or several files;
:func:`ensel.datasets.read_data` also accepts the names of
:func:`ensel.datasets.load` (``medmcqa``, ``mmlu``, ``imdb``, ``mmlu_pro``). Every problem
raises :class:`ensel.data.DataError` (a ``ValueError``) naming the file, the line or column,
and what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import DataError
from ensel._files import FORMATS as _FORMATS
from ensel._files import (
    DirectoryGivenError,
    MissingFileError,
    csv_names,
    is_samples_name,
    is_table_name,
    one_json_member,
    refuse_kind,
    refuse_link_loop,
    sniff,
)
from ensel._notice import notice

__all__ = ["FORMATS", "detect", "read", "read_mmlu_pro_files"]

#: Accepted formats and one line on each. The dict lives in :mod:`ensel._files`, which the
#: command line reads to parse ``--format`` without importing pandas.
FORMATS: dict[str, str] = _FORMATS


def _check_paths(paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str]
                 ) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        path = Path(p).expanduser()
        refuse_link_loop(path)
        if path.is_dir():
            raise DirectoryGivenError(
                f"{path} is a directory; pass the data file(s) in it (e.g. "
                "DIR/*/samples_*.jsonl for lm-evaluation-harness logs)")
        if not path.exists():
            if str(p) == "-":  # a table's format is judged from its bytes, lines of a file
                raise MissingFileError("'-' (standard input) is not read: save the answers to "
                                       "a file and give its path")
            raise MissingFileError(f"{path}: no such file")
        if path.stat().st_size == 0:
            raise DataError(f"{path}: the file is empty")
        out.append(path)
    if not out:
        raise DataError("no input file given")
    seen: dict[Path, Path] = {}
    for path in out:
        key = path.resolve()
        if key in seen:
            raise DataError(f"{path}: the same file is given twice ({seen[key]} and {path})")
        seen[key] = path
    return out


def _table_columns(path: Path) -> list[str]:
    """Column names of a CSV/Parquet file, read by its content."""
    kind = sniff(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            return [str(c) for c in pq.read_schema(path).names]
        except Exception as exc:  # pyarrow raises several types for a bad file
            raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
    refuse_kind(kind, str(path), "; name the format with --format")
    return csv_names(path, str(path), kind == "gzip")


def detect(paths: Sequence[str | Path]) -> str:
    """The format of the input files (one of :data:`FORMATS`).

    Tables (``.csv``, ``.csv.gz``, ``.parquet``, ``.pq``, read by their content) with a
    ``model`` or an ``answer`` column are tidy, other tables wide; ``samples_*.jsonl`` are
    lm-evaluation-harness logs; ``.json``/``.zip`` files are MMLU-Pro outputs.

    Raises
    ------
    DataError
        A directory, a missing or empty file, a mix of formats, or an unknown one.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("item,model,label\\n1,a,1\\n")
    >>> detect([p])
    'tidy'
    """
    found = []
    for path in _check_paths(paths):
        name = path.name.lower()
        if is_samples_name(name):
            found.append("lm-eval")
        elif name.endswith((".json", ".zip")):
            found.append("mmlu-pro")
        elif is_table_name(name):
            cols = {c.strip().lower() for c in _table_columns(path)}
            # a wide matrix has one column per model: a 'model' or 'answer' column is tidy
            # (validation then names the column it lacks)
            found.append("tidy" if cols & {"model", "answer"} else "wide")
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
    from ensel.data import read_responses

    return read_responses(paths)


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
    """The JSON list of a file or of the one JSON member of a zip (by content, not name)."""
    try:
        if sniff(path) == "zip":
            with zipfile.ZipFile(path) as zf:
                data = json.loads(one_json_member(zf, str(path)))
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, zipfile.BadZipFile, UnicodeDecodeError, EOFError,
            OSError) as exc:
        raise DataError(f"{path}: not a JSON list of MMLU-Pro records ({exc})") from None
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of records, got {type(data).__name__}")
    return data


def _whole(value: Any, what: str, where: str) -> int:
    """An integer field of a record: an int, an integral float or a digit string."""
    if isinstance(value, bool):
        raise DataError(f"{where}: {what} {value!r} is not an integer")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise DataError(f"{where}: {what} {value!r} is not an integer")


def read_mmlu_pro_files(paths: Sequence[str | Path], *, seed: int = 0,
                        null_pred: str = "abstain", condition: str = "all",
                        view: str = "binary") -> pd.DataFrame:
    """Tidy binary table from MMLU-Pro-style per-question outputs, one file (or more) per model.

    The model is named by the file (``model_outputs_<model>_5shots.zip`` -> ``<model>``;
    ``<category>_result.json`` -> its folder). Records need ``question_id, options, answer,
    answer_index, pred`` (``question_id`` and ``answer_index`` integers); entries that are
    not records are skipped (as upstream files have a few). A question given twice for one
    model (in one file or two) is refused naming both records. Questions whose gold letter
    (``answer``, when given) contradicts ``answer_index``, whose key differs between files, or
    that not every model answered, are dropped (as :func:`ensel.datasets.mmlu_pro.load`
    drops them); what was skipped or dropped is said in one notice and counted in
    ``attrs["dropped"]``. ``view="native"`` keeps the letters (items ``question_id``, an
    ``options`` column with each question's option count).
    """
    from ensel.datasets.binary import native_table, option_label, to_binary

    rows = []
    models: list[str] = []
    first: dict[tuple[str, int], tuple[Path, int]] = {}
    skipped = lower = 0
    for path in _check_paths(paths):
        model = _mmlu_pro_model(path)
        if model not in models:
            models.append(model)
        records = _mmlu_pro_records(path)
        if not any(isinstance(rec, dict) and "question_id" in rec for rec in records):
            raise DataError(f"{path}: no MMLU-Pro record in the file ({len(records)} "
                            "entries, none with a question_id)")
        for i, rec in enumerate(records):
            if not isinstance(rec, dict) or "question_id" not in rec:
                skipped += 1
                continue
            where = f"{path}, record {i}"
            missing = [k for k in ("options", "answer_index", "pred") if k not in rec]
            if missing:
                raise DataError(f"{where} (question_id {rec['question_id']}) lacks {missing}")
            qid = _whole(rec["question_id"], "question_id", where)
            if qid < 0:
                raise DataError(f"{where}: question_id {qid} is negative; MMLU-Pro numbers its "
                                "questions from 0")
            gold = _whole(rec["answer_index"], "answer_index", where)
            if not isinstance(rec["options"], list):
                raise DataError(f"{where}: options must be a list; got "
                                f"{type(rec['options']).__name__}")
            n = len(rec["options"])
            if not 0 <= gold < n:
                raise DataError(f"{where} (question_id {qid}): answer_index {gold} is outside "
                                f"its {n} options")
            if (model, qid) in first:
                fpath, fi = first[(model, qid)]
                raise DataError(f"{where}: question_id {qid} of model {model!r} is given twice "
                                f"(record {fi} of {fpath} and record {i} of {path})")
            first[(model, qid)] = (path, i)
            pred = None if rec["pred"] is None else str(rec["pred"]).strip()
            lower += pred is not None and len(pred) == 1 and "a" <= pred <= "z"
            pred = None if pred is None else pred.upper()
            if pred is not None and not (len(pred) == 1 and "A" <= pred < chr(ord("A") + n)):
                raise DataError(f"{where} (question_id {qid}): pred {rec['pred']!r} is not one "
                                f"of the option letters A-{chr(ord('A') + n - 1)} (any case) "
                                "or null")
            letter = rec.get("answer")  # the gold letter, when the record has one
            bad_key = isinstance(letter, str) and letter.strip().upper() != chr(ord("A") + gold)
            rows.append((model, qid, gold, n, pred, bad_key))
    if not rows:
        raise DataError("no MMLU-Pro record found in the input files")
    if lower:
        notice(f"mmlu-pro import: read {lower:,} lower-case pred letter(s) as capitals (a = A), "
               "as this format does; a tidy table refuses them")
    raw = pd.DataFrame(rows, columns=["model", "question_id", "answer_index", "n_options",
                                      "pred", "bad_key"])
    # a gold letter that contradicts answer_index: which one is the key is unknown
    bad_keys = set(raw.loc[raw["bad_key"], "question_id"])
    key = raw.groupby("question_id")[["answer_index", "n_options"]].nunique()
    inconsistent = set(key.index[(key > 1).any(axis=1)]) - bad_keys
    counts = raw.groupby("question_id")["model"].nunique()
    partial = set(counts.index[counts < len(models)]) - inconsistent - bad_keys
    raw = raw[~raw["question_id"].isin(inconsistent | partial | bad_keys)].drop(columns="bad_key")
    per_q = raw.drop_duplicates("question_id").sort_values("question_id")
    few = set(per_q.loc[per_q["n_options"] < 2, "question_id"])
    per_q = per_q[per_q["n_options"] >= 2].reset_index(drop=True)
    dropped = {"letter_contradicts_index": len(bad_keys),
               "inconsistent_across_files": len(inconsistent),
               "not_answered_by_all": len(partial), "fewer_than_2_options": len(few),
               "skipped_entries": skipped}
    _say_dropped("mmlu-pro import", int(counts.size), "questions", dropped)
    if per_q.empty:
        raise DataError(f"{paths[0] if len(paths) == 1 else 'the input files'}: no question is "
                        "answered by every model with the same answer key")
    per_q["answer"] = [option_label(i) for i in per_q["answer_index"]]
    if view == "native":
        kept = per_q[["question_id", "answer", "answer_index", "n_options"]]
        tidy = native_table(kept, raw[raw["question_id"].isin(per_q["question_id"])],
                            models=models, condition=condition)
        tidy.attrs = {"dropped": dropped}
        return tidy
    tables = to_binary(per_q[["question_id", "answer", "answer_index", "n_options"]],
                       raw[raw["question_id"].isin(per_q["question_id"])], models=models,
                       seed=seed, null_pred=null_pred, condition=condition)
    tidy = tables.tidy
    tidy.attrs = {"dropped": dropped}
    return tidy


_WHY = {
    "letter_contradicts_index": "whose gold letter (answer) contradicts answer_index",
    "inconsistent_across_files": "with an answer key that differs between files",
    "not_answered_by_all": "not answered by every model",
    "fewer_than_2_options": "with fewer than 2 options",
    "skipped_entries": "entries that are not records skipped",
}


def _say_dropped(what: str, total: int, unit: str, dropped: dict[str, int]) -> None:
    """The one notice of everything an import dropped, with counts and why."""
    parts = [f"{n:,} {_WHY.get(k, k.replace('_', ' '))}" for k, n in dropped.items()
             if n and k != "skipped_entries"]
    skipped = dropped.get("skipped_entries", 0)
    if not parts and not skipped:
        return
    text = f"{what}: dropped {sum(n for k, n in dropped.items() if k != 'skipped_entries'):,}" \
        f" of {total:,} {unit} ({'; '.join(parts)})" if parts else f"{what}:"
    if skipped:
        text += f"{';' if parts else ''} {skipped:,} {_WHY['skipped_entries']}"
    notice(text)


def read(paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str], *,
         format: str | None = None, view: str | None = None, **options: Any) -> pd.DataFrame:
    """Read input files of one format into a validated tidy table.

    Parameters
    ----------
    paths : path or sequence of paths
        Several files are one table: an answer given twice (in one file or across files) is
        refused naming both places.
    format : str, optional
        One of :data:`FORMATS`; detected by :func:`detect` when omitted.
    view : {None, "binary", "native"}, default=None
        ``"native"``: multiple-choice sources keep their answers (option labels and an
        ``options`` column, :func:`ensel.data.is_native`). ``"binary"``: the paper's binary
        queries, a native tidy file converted by
        :func:`ensel.datasets.binary.to_binary_view`. ``None``: a tidy file as it is stored,
        the multiple-choice formats as binary queries (what they always gave).
    **options
        For multiple-choice sources: ``seed`` (negative option draw), ``null_pred``,
        ``condition``; for ``wide``: also ``gold``, ``item``, ``options``, ``correctness``.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition`` (categorical text), ``answer, label`` (``int8``),
        validated; ``attrs["dropped"]`` counts what an import dropped (said in one notice).

    Raises
    ------
    DataError
        Naming the file, the line/row/record and the column.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "w.csv"
    >>> _ = p.write_text("item,gold,gpt,llama\\nq1,True,True,False\\nq2,False,,False\\n")
    >>> read(p)["answer"].tolist()
    [1, -1, 0, -1]
    """
    from ensel._validation import check_option
    from ensel.data import _Origin, _Part, _validate

    check_option(view, "view", (None, "binary", "native"))
    files = _check_paths([paths] if isinstance(paths, (str, os.PathLike)) else list(paths))
    fmt = format or detect(files)
    if fmt not in FORMATS:
        from ensel._validation import constraint_error

        raise DataError(str(constraint_error("format", f"one of {', '.join(map(repr, FORMATS))}",
                                             fmt, func="read")))
    # seed/null_pred/condition concern multiple-choice conversions: nothing to do for tidy
    mc = {"seed", "null_pred", "condition"}
    takes = {"tidy": set(), "wide": mc | {"gold", "item", "options", "correctness"},
             "lm-eval": mc, "mmlu-pro": mc}[fmt]
    extra = sorted(set(options) - takes - mc)
    if extra:
        raise DataError(f"option(s) {extra} do not apply to the {fmt} format"
                        + (f"; it takes {sorted(takes)}" if takes else ""))
    if fmt == "tidy":
        df = _tidy(files)
        if view == "binary":
            from ensel.datasets.binary import to_binary_view

            df = to_binary_view(df, validate=False)
        return df
    if view == "native":
        options["view"] = "native"
    try:
        if fmt == "wide":
            from ensel.datasets.wide import _read_wide

            frames, parts, start = [], [], 0
            for p in files:
                df, unit, numbers = _read_wide(p, **options)
                parts.append(_Part(start, str(p), unit, 0, numbers))
                frames.append(df)
                start += len(df)
            df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
            origin = _Origin(parts)
        elif fmt == "lm-eval":
            from ensel.datasets.lm_eval import read_lm_eval

            df = read_lm_eval(files, **options)
            origin = _Origin([_Part(0, "the imported table")])
        else:
            df = read_mmlu_pro_files(files, **options)
            origin = _Origin([_Part(0, "the imported table")])
    except TypeError as exc:  # an option the format does not take
        raise DataError(f"{fmt}: {exc}") from None
    attrs = dict(df.attrs)
    out = _validate(df, default_condition="all", origin=origin, from_file=True, encoded=True)
    out.attrs = {**attrs, **out.attrs}
    return out
