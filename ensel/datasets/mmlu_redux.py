"""HELM's MMLU answers of 10 frontier models, graded with the MMLU-Redux gold, as binary queries.

Source: `aryopg/mmlu-redux <https://github.com/aryopg/mmlu-redux>`_ (CC-BY-4.0), files pinned
by commit and SHA-256 in ``data/registry/mmlu_redux.csv`` (57 MMLU subjects, two files each):

* ``outputs/original_helm_combined/<subject>.csv``: HELM's 5-shot answers on the whole MMLU
  test set; columns ``question, choices`` (a Python list literal of 4 options) and one column
  per model holding the letter it chose (``A``..``D``, sometimes with a leading space) or the
  first word of an answer HELM could not parse (``To``, ``The``, empty, ...);
* ``mmlu_redux/mmlu_<subject>.csv``: the MMLU-Redux re-annotation of 100 questions of the
  subject; columns ``question, choices, answer`` (the gold option's index, 0..3),
  ``error_type`` (``ok`` marks a gold the annotators verified; otherwise ``wrong_groundtruth``,
  ``bad_question_clarity``, ``multiple_correct_answers``, ...), ``correct_answer``, ``source``,
  ``potential_reason``. The upstream files differ in separator (``,`` or ``;``), column order,
  spelling of the error types (``OK``, ``Ok``, ``Wrong Groundtruth``, ...) and encoding
  (one file is Windows-1252); they are read by column name, with the separator taken from the
  header line, the encoding from a strict UTF-8 attempt, and the error types normalised
  (lower case, spaces and underscores alike).

HELM's files have no gold answer; the gold comes from MMLU-Redux. Which questions are kept
-------------------------------------------------------------------------------------------
1. a MMLU-Redux question is matched to the HELM row of its subject with the same question text
   **and** the same options (whitespace normalised). Matching on the text alone would be wrong:
   some questions share their text, and MMLU-Redux rewrote or reordered the options of a few,
   so its gold index would point at a different HELM option;
2. a MMLU-Redux question annotated twice with different annotations is dropped (the same
   annotation twice is kept once; ``annotated_twice_same`` counts the extra copies);
3. only questions whose gold is verified (``error_type`` ``ok``, the default ``keep="ok"``);
   ``keep="all"`` keeps every matched question with MMLU's original gold, as HELM graded it.

The counts at each step are in ``df.attrs["dropped"]`` (the table's ``attrs`` hold JSON values
only, so it saves to Parquet); the per-question table and the letters each model chose are in
the :class:`ReduxView` of :func:`binary_view`.

Binary view: the paper's conversion (:mod:`ensel.datasets.binary`): a positive query with the
gold option (``Y = +1``) and a negative query with one wrong option drawn by a generator seeded
with ``(seed, subject, question)``. A model says True iff the letter it chose is the query's
option. An answer that is not a single letter (HELM could not parse one) is an **abstention**
(answer ``0`` on both queries; ``null_pred="false"`` makes it ``-1``); a letter beyond ``D``
(it happens once) is simply a wrong letter. Queries are named ``<subject>/<row>:<option>``,
``row`` being the question's 0-based row in the MMLU-Redux file.

Models: all 10 HELM columns, named as in the files; the family of a model is its provider (the
prefix before ``_``: ``openai`` has three models, ``google`` three). Two columns,
``writer_palmyra-x-v3`` and ``google_text-unicorn@001``, give the same letter on almost every
question; both are kept on purpose: a selector that picks both pays twice for one signal, the
situation the paper's conditional mutual information is meant to avoid.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import DataError, UsageError
from ensel.datasets import _fetch, _integrity
from ensel.datasets._paths import data_dir
from ensel.datasets.binary import NULL_PRED, question_key, to_binary

__all__ = [
    "CONDITION",
    "KEEP",
    "VIEWS",
    "ReduxView",
    "binary_view",
    "convert",
    "convert_view",
    "family",
    "is_available",
    "load",
    "subject_files",
    "upstream_accuracy",
]

NAME = "mmlu_redux"
CONDITION = "helm-5shot"
#: Accepted values of ``keep``.
KEEP = ("ok", "all")
#: Accepted values of ``view``: the paper's binary queries, or the letters as chosen.
VIEWS = ("binary", "native")
_HELM_RE = re.compile(r"^outputs/original_helm_combined/(?P<subject>[a-z_]+)\.csv$")
_REDUX_RE = re.compile(r"^mmlu_redux/mmlu_(?P<subject>[a-z_]+)\.csv$")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class ReduxView:
    """The tidy table of :func:`load` and the tables it is made from.

    Attributes
    ----------
    tidy : pandas.DataFrame
        ``item, model, condition, answer, label``; ``attrs`` holds ``dropped`` and ``options``
        (JSON values).
    questions : pandas.DataFrame
        One row per kept question: ``subject, row, gold, error, name``.
    predictions : pandas.DataFrame
        One row per (model, question): the letter chosen (``model, question_id, pred, gold,
        negative, n_options``).
    dropped : dict
        The questions counted at each step (as in ``tidy.attrs["dropped"]``).
    options : dict
        The options the view was made with (as in ``tidy.attrs["options"]``).
    """

    tidy: pd.DataFrame
    questions: pd.DataFrame
    predictions: pd.DataFrame
    dropped: dict[str, int]
    options: dict[str, Any]


def family(model: str) -> str:
    """The family of a HELM model column: its provider, the prefix before ``_``.

    Examples
    --------
    >>> family("openai_gpt-4o-2024-05-13")
    'openai'
    """
    return str(model).split("_", 1)[0]


def subject_files() -> dict[str, tuple[_fetch.RegistryEntry, _fetch.RegistryEntry]]:
    """Registry entries per subject: ``{subject: (HELM answers, MMLU-Redux annotation)}``."""
    helm: dict[str, _fetch.RegistryEntry] = {}
    redux: dict[str, _fetch.RegistryEntry] = {}
    for entry in _fetch.read_registry(NAME):
        m_h, m_r = _HELM_RE.match(entry.path), _REDUX_RE.match(entry.path)
        if m_h:
            helm[m_h["subject"]] = entry
        elif m_r:
            redux[m_r["subject"]] = entry
        else:
            raise DataError(f"registry {NAME!r}: unrecognised file {entry.path!r}")
    if set(helm) != set(redux):
        raise DataError(f"registry {NAME!r}: subjects without both files: "
                        f"{sorted(set(helm) ^ set(redux))}")
    return {s: (helm[s], redux[s]) for s in sorted(helm)}


# --------------------------------------------------------------------------- reading
def _read_csv(path: str | Path) -> pd.DataFrame:
    """An upstream CSV as strings: UTF-8 (else Windows-1252), separator from the header."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252")
    header = text.split("\n", 1)[0]
    sep = ";" if header.count(";") > header.count(",") else ","
    df = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False,
                     quoting=csv.QUOTE_MINIMAL)
    missing = [c for c in ("question", "choices") if c not in df.columns]
    if missing:
        raise DataError(f"{path}: expected the columns 'question' and 'choices'; "
                        f"missing {missing} (columns: {list(df.columns)})")
    return df


def _norm_text(text: str) -> str:
    return " ".join(str(text).split())


def _norm_choices(choices: str, where: str) -> tuple[str, ...]:
    try:
        parsed = ast.literal_eval(choices)
    except (ValueError, SyntaxError) as exc:
        raise DataError(f"{where}: choices must be a Python list literal; got "
                        f"{choices[:60]!r}") from exc
    if not isinstance(parsed, list | tuple) or len(parsed) < 2:
        raise DataError(f"{where}: choices must list at least 2 options; got {choices[:60]!r}")
    return tuple(_norm_text(c) for c in parsed)


def _norm_error(value: str) -> str:
    return "_".join(str(value).replace("_", " ").lower().split())


def _letter(value: str) -> str | None:
    """The chosen letter, or ``None`` when the cell is not a single capital letter."""
    v = str(value).strip()
    return v if len(v) == 1 and v in _LETTERS else None


def _subject_questions(subject: str, helm_path: str | Path, redux_path: str | Path,
                       counts: dict[str, int]) -> tuple[pd.DataFrame, list[str]]:
    helm = _read_csv(helm_path)
    models = [c for c in helm.columns if c not in ("question", "choices")]
    redux = _read_csv(redux_path)
    for col in ("answer", "error_type"):
        if col not in redux.columns:
            raise DataError(f"{redux_path}: expected a column {col!r}; columns: "
                            f"{list(redux.columns)}")
    parsed: dict[str, tuple[str, ...]] = {}  # a question's options come in both files

    def choices(c: str, where: str) -> tuple[str, ...]:
        if c not in parsed:  # a bad literal raises here, naming its file and row
            parsed[c] = _norm_choices(c, where)
        return parsed[c]

    helm["key_q"] = helm["question"].map(_norm_text)
    helm["key_c"] = [choices(c, f"{helm_path} row {i + 2}")
                     for i, c in enumerate(helm["choices"])]
    redux["key_q"] = redux["question"].map(_norm_text)
    redux["key_c"] = [choices(c, f"{redux_path} row {i + 2}")
                      for i, c in enumerate(redux["choices"])]
    redux["row"] = np.arange(len(redux))
    redux["error"] = redux["error_type"].map(_norm_error)
    bad = ~redux["answer"].str.strip().str.fullmatch(r"\d+")
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"{redux_path} row {i + 2}: answer must be an option index (0, 1, ...); "
                        f"got {redux['answer'].iloc[i]!r}")
    redux["answer_index"] = redux["answer"].astype(int)
    counts["annotated"] += len(redux)
    # 2. the same question annotated twice: one row if the annotations agree, none otherwise
    keys = ["key_q", "key_c"]
    agree = redux.groupby(keys)[["answer_index", "error"]].transform("nunique").max(axis=1) == 1
    conflicting = ~agree
    counts["annotated_twice_differently"] += int(conflicting.sum())
    redux = redux[agree]
    n_agree = len(redux)
    redux = redux.drop_duplicates(keys, keep="first")
    counts["annotated_twice_same"] += n_agree - len(redux)
    # 1. match on question text and options (HELM has each (text, options) once)
    helm = helm.drop_duplicates(keys, keep=False)
    merged = redux.merge(helm[[*keys, *models]], on=keys, how="inner")
    counts["not_in_helm"] += len(redux) - len(merged)
    # 3. verified gold only
    merged["n_options"] = merged["key_c"].map(len)
    out_of_range = merged["answer_index"] >= merged["n_options"]
    if out_of_range.any():
        row = int(merged.loc[out_of_range, "row"].iloc[0])
        raise DataError(f"{redux_path} row {row + 2}: answer index is beyond the options")
    merged["subject"] = subject
    return merged, models


def _check_options(seed: object, null_pred: object, keep: object) -> None:
    if keep not in KEEP:
        raise UsageError(f"keep of mmlu_redux.load must be one of {KEEP}; got {keep!r}")
    if null_pred not in NULL_PRED:
        raise UsageError(f"null_pred of mmlu_redux.load must be one of {NULL_PRED}; "
                         f"got {null_pred!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UsageError(f"seed of mmlu_redux.load must be a non-negative integer; got {seed!r}")


def convert(files: Mapping[str, tuple[str | Path, str | Path]], *, seed: int = 0,
            null_pred: str = "abstain", keep: str = "ok",
            condition: str = CONDITION, view: str = "binary") -> pd.DataFrame:
    """Convert upstream files (HELM answers + MMLU-Redux annotation per subject) to the tidy table.

    Parameters
    ----------
    files : mapping
        ``{subject: (helm_csv_path, redux_csv_path)}`` in the upstream formats.
    seed, null_pred, keep, condition, view
        As in :func:`load`.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition, answer, label``; ``attrs["dropped"]`` counts the questions at
        each step and ``attrs["options"]`` holds the options (JSON values only); the
        per-question table and the letters chosen are in :func:`convert_view`'s view.
    """
    from ensel._validation import check_option

    check_option(view, "view", VIEWS)
    made = convert_view(files, seed=seed, null_pred=null_pred, keep=keep, condition=condition)
    return _native(made) if view == "native" else made.tidy


def convert_view(files: Mapping[str, tuple[str | Path, str | Path]], *, seed: int = 0,
                 null_pred: str = "abstain", keep: str = "ok",
                 condition: str = CONDITION, subjects: Sequence[str] | None = None
                 ) -> ReduxView:
    """:func:`convert`, with the tables the tidy table is made from (a :class:`ReduxView`);
    ``subjects`` is only recorded in the options (``None``: all)."""
    _check_options(seed, null_pred, keep)
    counts = {"annotated": 0, "annotated_twice_differently": 0, "annotated_twice_same": 0,
              "not_in_helm": 0,
              "gold_not_verified": 0, "kept": 0}
    frames, pool = [], None
    for subject in sorted(files):
        helm_path, redux_path = files[subject]
        q, models = _subject_questions(subject, helm_path, redux_path, counts)
        if pool is None:
            pool = models
        elif models != pool:
            raise DataError(f"{helm_path}: model columns {models} differ from those of the "
                            f"other subjects {pool}")
        frames.append(q)
    if not frames or pool is None:
        raise UsageError("files of mmlu_redux.convert must name at least one subject")
    merged = pd.concat(frames, ignore_index=True)
    if keep == "ok":
        verified = merged["error"] == "ok"
        counts["gold_not_verified"] = int((~verified).sum())
        merged = merged[verified]
    merged = merged.sort_values(["subject", "row"]).reset_index(drop=True)
    counts["kept"] = len(merged)
    if merged.empty:
        raise DataError("no MMLU-Redux question matched a HELM answer row")
    questions = pd.DataFrame({
        "question_id": np.arange(len(merged)),
        "name": merged["subject"] + "/" + merged["row"].astype(str),
        "seed_key": [question_key(s, int(r)) for s, r in zip(merged["subject"], merged["row"],
                                                             strict=True)],
        "answer": merged["answer_index"].map(lambda i: _LETTERS[i]),
        "answer_index": merged["answer_index"],
        "n_options": merged["n_options"],
        "subject": merged["subject"],
    })
    answers = pd.DataFrame({
        "model": np.repeat(pool, len(merged)),
        "question_id": np.tile(questions["question_id"].to_numpy(), len(pool)),
        "pred": [_letter(v) for m in pool for v in merged[m]],
    })
    tables = to_binary(questions, answers, models=pool, seed=int(seed), null_pred=null_pred,
                       condition=condition, extra_columns=("subject",))
    options = {"seed": int(seed), "null_pred": null_pred, "keep": keep, "condition": condition,
               "subjects": None if subjects is None else list(subjects)}
    dropped = {k: int(v) for k, v in counts.items()}
    tidy = tables.tidy
    tidy.attrs = {"dropped": dict(dropped), "options": dict(options)}
    return ReduxView(tidy, merged[["subject", "row", "answer_index", "error"]].assign(
        name=questions["name"]).rename(columns={"answer_index": "gold"}).reset_index(drop=True),
        tables.predictions, dropped, options)


def _native(view: ReduxView) -> pd.DataFrame:
    """The letters as HELM's models chose them, one row per (question, model), from the
    tables the binary view is made from (``view.predictions``: the letter or blank)."""
    from ensel.data import validate_responses

    pr = view.predictions
    pool = list(dict.fromkeys(pr["model"]))
    n_q, n_m = len(view.questions), len(pool)
    # predictions are model-major in pool order, question_id 0..n_q-1: item-major rows
    order = np.arange(n_q * n_m).reshape(n_m, n_q).T.ravel()
    pred = pr["pred"].to_numpy(dtype=object)[order]
    n_opt = pr["n_options"].to_numpy()[order]
    inside = np.array([isinstance(p, str) and p in _LETTERS[:n] for p, n in zip(pred, n_opt,
                                                                          strict=True)])
    outside = np.array([isinstance(p, str) for p in pred]) & ~inside
    df = pd.DataFrame({
        "item": np.repeat(view.questions["name"].to_numpy(dtype=object), n_m),
        "model": np.tile(np.asarray(pool, dtype=object), n_q),
        "condition": view.options["condition"],
        "answer": np.where(inside, pred, None),
        "label": pr["gold"].to_numpy(dtype=object)[order],
        "options": n_opt,
        "subject": np.repeat(view.questions["subject"].to_numpy(dtype=object), n_m),
    })
    out = validate_responses(df)
    out.attrs = {"dropped": dict(view.dropped), "view": "native",
                 "outside_options": {m: int(outside.reshape(n_q, n_m)[:, j].sum())
                                     for j, m in enumerate(pool)},
                 "options": {k: v for k, v in view.options.items()
                             if k not in ("seed", "null_pred")}}
    return out


def load(*, seed: int = 0, null_pred: str = "abstain", keep: str = "ok",
         subjects: Sequence[str] | None = None, condition: str = CONDITION,
         view: str = "binary") -> pd.DataFrame:
    """HELM's MMLU answers with the MMLU-Redux gold, as the paper's binary queries.

    Parameters
    ----------
    seed : int, default=0
        Seeds each question's wrong option (depends on the subject and question only).
    null_pred : {"abstain", "false"}, default="abstain"
        An answer that is not a letter becomes ``0`` (abstention) or ``-1`` on both queries.
    keep : {"ok", "all"}, default="ok"
        Only questions whose gold MMLU-Redux verified (``ok``), or every matched question.
    subjects : list of str, optional
        MMLU subjects (default: all 57).
    condition : str, default="helm-5shot"
        Value of the ``condition`` column (one condition).
    view : {"binary", "native"}, default="binary"
        ``"native"``: the letters themselves, one row per (question, model): ``item``
        ``<subject>/<row>``, ``answer`` the letter chosen (blank when HELM parsed none, and
        for a letter beyond the options, counted in ``attrs["outside_options"]``), ``label``
        the gold letter, ``options`` 4; ``seed`` and ``null_pred`` do not apply. Its
        :func:`ensel.datasets.binary.to_binary_view` draws the same queries as the binary
        view.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition, answer, label``; see :func:`convert` for ``attrs``.

    Raises
    ------
    ValueError
        Bad options or an unknown subject.
    ensel.datasets._fetch.DataUnavailableError
        The files are neither in the mirror/cache nor downloadable.
    """
    from ensel._validation import check_option

    check_option(view, "view", VIEWS)
    made = binary_view(seed=seed, null_pred=null_pred, keep=keep, subjects=subjects,
                       condition=condition)
    if view == "native":
        return _native(made)
    tidy = made.tidy.copy()
    tidy.attrs = {"dropped": dict(made.dropped), "options": dict(made.options)}
    return tidy


def binary_view(*, seed: int = 0, null_pred: str = "abstain", keep: str = "ok",
                subjects: Sequence[str] | None = None, condition: str = CONDITION) -> ReduxView:
    """The :class:`ReduxView` of :func:`load` with the same options: the tidy table, the
    per-question table and the letters each model chose (the last two views made in this
    process are kept, so a page that loaded the table gets its view without reading the files
    again; treat them as read-only).

    Parameters
    ----------
    seed, null_pred, keep, subjects, condition
        As in :func:`load` (``subjects`` as stored in ``df.attrs["options"]``).
    """
    _check_options(seed, null_pred, keep)  # before the cache, which needs hashable options
    chosen = None if subjects is None else (
        (subjects,) if isinstance(subjects, str) else tuple(subjects))
    return _view(int(seed), null_pred, keep, chosen, str(condition))


@lru_cache(maxsize=2)
def _view(seed: int, null_pred: str, keep: str, subjects: tuple[str, ...] | None,
          condition: str) -> ReduxView:
    pairs = subject_files()
    if subjects is not None:
        chosen = [subjects] if isinstance(subjects, str) else list(subjects)
        unknown = [s for s in chosen if s not in pairs]
        if unknown or not chosen:
            raise UsageError(f"subjects of mmlu_redux.load must be MMLU subjects from "
                             f"{sorted(pairs)}; got {unknown or chosen!r}")
        pairs = {s: pairs[s] for s in chosen}
    options = {"seed": seed, "null_pred": null_pred, "keep": keep, "condition": condition,
               "subjects": None if subjects is None else list(subjects)}
    derived = {"kind": "mmlu_redux view", "version": _VIEW_VERSION,
               "code": _integrity.code_version(), "options": options,
               "inputs": [{"path": e.path, "commit": e.commit, "sha256": e.sha256}
                          for pair in pairs.values() for e in pair]}
    key = hashlib.sha256(json.dumps(derived, sort_keys=True).encode()).hexdigest()[:16]
    paths = {part: data_dir(NAME) / f"view-{key}-{part}.parquet" for part in _VIEW_PARTS}
    cached = {part: _integrity.read_parquet(path, derived_from=derived,
                                            action="rebuilding it from the verified raw files")
              for part, path in paths.items()}
    tidy, questions, predictions = (cached[part] for part in _VIEW_PARTS)
    if tidy is not None and questions is not None and predictions is not None:
        dropped = {str(k): int(v) for k, v in json.loads(tidy.attrs["dropped"]).items()}
        tidy.attrs = {"dropped": dict(dropped), "options": dict(options)}
        return ReduxView(tidy, questions, predictions, dropped, options)
    files = {s: (_fetch.fetch(h), _fetch.fetch(r)) for s, (h, r) in pairs.items()}
    view = convert_view(files, seed=seed, null_pred=null_pred, keep=keep, condition=condition,
                        subjects=subjects)
    for part, df in (("tidy", view.tidy), ("questions", view.questions),
                     ("predictions", view.predictions)):
        out = df.copy()
        out.attrs = {"dropped": json.dumps(view.dropped)} if part == "tidy" else {}
        _integrity.write_parquet(out, paths[part], derived_from=derived)
    return view


#: The parts of a :class:`ReduxView` kept as Parquet in the data folder, keyed by the
#: options and the registry's checksums of the 114 files: every page that loads the source
#: after the first reads them instead of parsing the files again (2 CPU-s).
_VIEW_PARTS = ("tidy", "questions", "predictions")
_VIEW_VERSION = "1"  # bump when the view's tables change


def is_available() -> bool:
    """Whether every file is in the mirror or the cache (the network is never probed)."""
    try:
        return _fetch.is_available(NAME)
    except ValueError:
        return False


def upstream_accuracy(df: pd.DataFrame) -> pd.Series:
    """Each model's accuracy on the positive queries (True iff it chose the gold letter).

    On this source it equals the multiple-choice accuracy of the HELM letters graded with the
    MMLU-Redux gold (an abstention counts as wrong).
    """
    pos = df[df["label"] == 1]
    return (pos["answer"] == 1).groupby(pos["model"], sort=False).mean()
