"""MMLU-Pro's published per-question model outputs, turned into the paper's binary queries.

Source: `TIGER-AI-Lab/MMLU-Pro <https://github.com/TIGER-AI-Lab/MMLU-Pro>`_ (Apache-2.0),
files pinned by commit and SHA-256 in ``data/registry/mmlu_pro.csv``:

* commit ``f418b116``: ``eval_results/model_outputs_<model>_5shots.zip``, 29 models, each a zip
  holding one JSON list of records;
* commit ``ff991b5b``: ``eval_results/gpt4o/<category>_result.json``, GPT-4o, one JSON list per
  category (14 files).

A record has ``question_id``, ``question``, ``options`` (up to 10), ``answer`` (the gold letter),
``answer_index``, ``category`` (14 MMLU-Pro categories), ``src`` (``ori_mmlu-<subject>`` marks
the questions taken from the original MMLU; others come from STEM websites, TheoremQA,
SciBench) and ``pred`` (the letter parsed from the model's 5-shot chain-of-thought answer, or
``null`` when no letter could be parsed). Some files also hold stray non-record entries (the
DeepSeek-Coder-V2 list contains category names and ``"total"`` strings); they are skipped.

Binary view (the paper's conversion of a multiple-choice question; the code is shared with
every multiple-choice importer in :mod:`ensel.datasets.binary`)
----------------------------------------------------------------------
Each question gives two queries, "is the answer <option>?":

* a **positive** query with the gold option, label ``Y = +1``;
* a **negative** query with one wrong option, label ``Y = -1``. The wrong option is drawn
  uniformly among the question's wrong options by a generator seeded with
  ``(seed, question_id)``: the draw depends on the question only, so it is the same for every
  model, and does not change when the subset or the model pool changes.

A model answers ``+1`` (True) iff its ``pred`` equals the query's option, else ``-1``. A letter
outside the question's options (a parsing artefact, rare) is simply a wrong letter.
A ``null`` pred (no answer parsed) is, by default, an **abstention** (answer ``0``) on both
queries: the model committed to nothing, and mapping it to "False" would make it right on every
negative query, rewarding unparsable output and making its errors even more label-dependent.
``null_pred="false"`` maps it to ``-1`` on both queries instead (for methods that need answers
in {-1, +1}).

Which questions are kept
------------------------
1. the chosen ``subset`` (default: the original-MMLU questions);
2. questions whose gold letter, options and question text agree across the files of the chosen
   pool (the answer key and a few questions were revised upstream between evaluations; the
   newer files, e.g. Gemini 1.5 002, Jamba 1.5, Llama 3.1, carry the revised key);
3. questions answered by **every** model of the pool (intersection; DeepSeek-Coder-V2's file
   misses about 1 700 questions, the Gemini files a few);
4. questions with at least two options (a negative query needs a wrong option).

The counts dropped at each step are in :attr:`MMLUProView.dropped` and in ``df.attrs``.

Why one module of this size: reading the upstream files (zips, per-category JSON), the
binary conversion and the cache belong to one source and change together.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ensel._errors import DataError, UsageError
from ensel._files import one_json_member, sniff
from ensel.datasets import _fetch, _integrity
from ensel.datasets._paths import data_dir, package_data
from ensel.datasets.binary import negative_options, to_binary

__all__ = [
    "CONDITION",
    "DEFAULT_POOL",
    "LETTERS",
    "MMLUProView",
    "available_models",
    "binary_view",
    "is_available",
    "load",
    "model_entries",
    "model_summary",
    "models_table",
    "native",
    "negative_options",
    "raw_predictions",
    "subset_names",
]

NAME = "mmlu_pro"
CONDITION = "5shot-cot"
LETTERS = "ABCDEFGHIJ"

#: The default pool: 13 models from 9 providers, MC accuracies on the original-MMLU items
#: from about 0.28 to 0.72, with within-family pairs (Gemini Pro/Flash, Llama 3.1 70B/8B,
#: Qwen1.5 72B/7B, Mixtral/Mistral).
DEFAULT_POOL: tuple[str, ...] = (
    "gpt4o",
    "gemini-1.5-pro-002",
    "gemini-1.5-flash-002",
    "Meta-Llama-3_1-70B-Instruct",
    "Meta-Llama-3_1-8B-Instruct",
    "jamba-1.5-large",
    "Qwen1.5-72B-Chat",
    "Qwen1.5-7B-Chat",
    "Yi-34B",
    "Phi-3-mini-4k-instruct",
    "Mixtral-8x7B-Instruct-v0.1",
    "Mistral-7B-Instruct-v0.2",
    "c4ai-command-r-v01",
)

_ZIP_RE = re.compile(r"^eval_results/model_outputs_(?P<model>.+)_5shots\.zip$")
_GPT4O_RE = re.compile(r"^eval_results/gpt4o/(?P<category>.+)_result\.json$")
_NULL_PRED = ("abstain", "false")
_RAW_VERSION = "1"  # bump when the parsed-table layout changes
_VIEW_VERSION = "1"  # bump when the binary conversion changes


# --------------------------------------------------------------------------- registry / models
def model_entries() -> dict[str, list[_fetch.RegistryEntry]]:
    """Registry entries per model id (``"gpt4o"`` has one file per category).

    Returns
    -------
    dict
        ``{model id: [RegistryEntry, ...]}`` in registry order.
    """
    out: dict[str, list[_fetch.RegistryEntry]] = {}
    for entry in _fetch.read_registry(NAME):
        m = _ZIP_RE.match(entry.path)
        if m:
            out.setdefault(m["model"], []).append(entry)
        elif _GPT4O_RE.match(entry.path):
            out.setdefault("gpt4o", []).append(entry)
        else:
            raise DataError(f"registry {NAME!r}: unrecognised file {entry.path!r}")
    return out


def available_models() -> list[str]:
    """All model ids of the registry, sorted case-insensitively."""
    return sorted(model_entries(), key=str.lower)


def models_table() -> pd.DataFrame:
    """Model metadata (``data/mmlu_pro_models.csv``), one row per model id.

    Columns: ``model, display_name, provider, family, params_b`` (billions, from the name;
    missing when the name does not say), ``tuning`` (``instruct``/``base``/``unknown``, from
    the name), ``version, release, source, source_note``.
    """
    return pd.read_csv(package_data("mmlu_pro_models.csv"), dtype={"version": str})


def _resolve_models(models: str | Sequence[str]) -> list[str]:
    known = available_models()
    if isinstance(models, str):
        if models == "default":
            return list(DEFAULT_POOL)
        if models == "all":
            return known
        models = [models]
    chosen = list(models)
    if not chosen:
        raise UsageError("models must name at least one model, got an empty list")
    unknown = [m for m in chosen if m not in known]
    if unknown:
        raise DataError(
            f"unknown MMLU-Pro model(s) {unknown}; use 'default', 'all' or ids from {known}"
        )
    if len(set(chosen)) != len(chosen):
        raise UsageError(f"models contains duplicates: {chosen}")
    return chosen


# --------------------------------------------------------------------------- parsing
def _records(entry: _fetch.RegistryEntry, path: Path) -> list:
    if sniff(path) == "zip":
        with zipfile.ZipFile(path) as zf:
            data = json.loads(one_json_member(zf, entry.name))
    else:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    if not isinstance(data, list):
        raise DataError(
            f"{entry.name}: expected a JSON list of records, got {type(data).__name__}"
        )
    return data


def _signature(question: str, options: Sequence[str]) -> str:
    text = "\x1e".join([question, *map(str, options)])
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def _parse_model(model: str, entries: Sequence[_fetch.RegistryEntry]) -> tuple[pd.DataFrame, int]:
    rows = []
    skipped = 0
    for entry in entries:
        path = _fetch.fetch(entry)
        for rec in _records(entry, path):
            if not isinstance(rec, dict) or "question_id" not in rec:
                skipped += 1
                continue
            options = rec["options"]
            pred = rec.get("pred")
            rows.append(
                (
                    model,
                    int(rec["question_id"]),
                    str(rec["category"]),
                    str(rec["src"]),
                    str(rec["answer"]),
                    int(rec["answer_index"]),
                    len(options),
                    _signature(str(rec["question"]), options),
                    None if pred is None else str(pred),
                )
            )
    cols = [
        "model",
        "question_id",
        "category",
        "src",
        "answer",
        "answer_index",
        "n_options",
        "signature",
        "pred",
    ]
    return pd.DataFrame(rows, columns=cols), skipped


def _atomic_write_parquet(df: pd.DataFrame, path: Path, derived_from: dict) -> None:
    """Atomic write plus checksum record (see :mod:`ensel.datasets._integrity`)."""
    _integrity.write_parquet(df, path, derived_from=derived_from)


def _raw_derivation(model: str, entries: Sequence[_fetch.RegistryEntry]) -> dict:
    return {"kind": "mmlu_pro raw table", "model": model, "version": _RAW_VERSION,
            "code": _integrity.code_version(),
            "inputs": [{"path": e.path, "commit": e.commit, "sha256": e.sha256} for e in entries]}


def _cache_dir() -> Path:
    return data_dir(NAME)


def raw_predictions(models: str | Sequence[str] = "all", *, cache: bool = True) -> pd.DataFrame:
    """The parsed records, one row per (model, question), as published.

    Parameters
    ----------
    models : "all", "default", str or list of str, default="all"
        Which models' files to parse.
    cache : bool, default=True
        Keep each model's parsed table as Parquet in the data folder (keyed by the file's
        SHA-256), so later calls skip the zip/JSON parsing. The table is written atomically
        with a checksum record and verified before use; a damaged or stale one is rebuilt
        from the verified raw files with a one-line notice (:mod:`ensel.datasets._integrity`).

    Returns
    -------
    pandas.DataFrame
        Columns ``model, question_id, category, src, answer, answer_index, n_options,
        signature`` (hash of question text and options), ``pred`` (letter or missing).
        ``attrs["skipped_entries"]`` counts non-record entries skipped per model.
    """
    chosen = _resolve_models(models)
    entries = model_entries()
    frames = []
    skipped: dict[str, int] = {}
    for model in chosen:
        key = hashlib.sha256(
            "|".join([_RAW_VERSION, *(e.sha256 for e in entries[model])]).encode()
        ).hexdigest()[:16]
        path = _cache_dir() / f"raw-{model}-{key}.parquet"
        derived = _raw_derivation(model, entries[model])
        df = None
        if cache:
            df = _integrity.read_parquet(path, derived_from=derived,
                                         action="rebuilding it from the verified raw files")
        if df is not None:
            n_skip = int(df.attrs.get("skipped_entries", 0))
        else:
            df, n_skip = _parse_model(model, entries[model])
            df.attrs["skipped_entries"] = n_skip
            if cache:
                _atomic_write_parquet(df, path, derived)
        df = df.drop_duplicates(["model", "question_id"], keep="first")
        frames.append(df)
        skipped[model] = n_skip
    raw = pd.concat(frames, ignore_index=True)
    raw.attrs = {"skipped_entries": skipped}
    return raw


# --------------------------------------------------------------------------- subsets
def subset_names() -> dict[str, str]:
    """The named subsets accepted by ``subset`` (besides category/subject lists)."""
    return {
        "ori_mmlu": "questions taken from the original MMLU (src starts with 'ori_mmlu')",
        "all": "every MMLU-Pro question",
        "health": "the 'health' category (anatomy, clinical knowledge, college/professional "
        "medicine, medical genetics, nutrition, virology, human aging; all from the original "
        "MMLU): the part closest to MEDMCQA",
    }


def _subset_mask(questions: pd.DataFrame, subset: str | Sequence[str]) -> pd.Series:
    src = questions["src"]
    if isinstance(subset, str):
        if subset == "ori_mmlu":
            return src.str.startswith("ori_mmlu")
        if subset == "all":
            return pd.Series(True, index=questions.index)
        if subset == "health":
            return questions["category"] == "health"
        subset = [subset]
    wanted = list(subset)
    if not wanted:
        raise UsageError("subset must name at least one category or subject, got an empty list")
    categories = set(questions["category"])
    sources = set(src)
    mask = pd.Series(False, index=questions.index)
    unknown = []
    for name in wanted:
        if name in categories:
            mask |= questions["category"] == name
        elif name in sources:
            mask |= src == name
        elif f"ori_mmlu-{name}" in sources:
            mask |= src == f"ori_mmlu-{name}"
        else:
            unknown.append(name)
    if unknown:
        raise DataError(
            f"unknown subset name(s) {unknown}: use 'ori_mmlu', 'all', 'health', a category "
            f"({sorted(categories)}), an MMLU subject (e.g. 'anatomy') or a src value"
        )
    return mask


# --------------------------------------------------------------------------- conversion
@dataclass
class MMLUProView:
    """The binary view of MMLU-Pro for one model pool and subset.

    Attributes
    ----------
    tidy : pandas.DataFrame
        ``item, model, condition, answer, label`` (answer in {-1, 0, +1}, label in {-1, +1}).
    queries : pandas.DataFrame
        One row per binary query: ``item, question_id, category, src, option, gold, label``.
    predictions : pandas.DataFrame
        One row per (model, kept question):
        ``model, question_id, pred, gold, negative, n_options``.
    models : list of str
        The pool, in order.
    dropped : dict
        Questions dropped at each filtering step (see the module docstring).
    options : dict
        The options the view was built with.
    """

    tidy: pd.DataFrame
    queries: pd.DataFrame
    predictions: pd.DataFrame
    models: list[str]
    dropped: dict[str, int]
    options: dict = field(default_factory=dict)


def _check_options(subset, null_pred, seed) -> None:
    from ensel._validation import check_int, check_option

    check_option(null_pred, "null_pred", _NULL_PRED)
    check_int(seed, "seed", low=0)
    if not isinstance(subset, str) and not all(isinstance(s, str) for s in subset):
        raise UsageError(f"subset must be a string or a list of strings, got {subset!r}")


def _view_options(subset: str | Sequence[str], pool: list[str], seed: int, null_pred: str,
                  condition: str) -> dict[str, object]:
    """The options of a binary view as JSON values: its ``attrs`` and its cache key."""
    return {"subset": subset if isinstance(subset, str) else list(subset), "models": pool,
            "seed": int(seed), "null_pred": null_pred, "condition": condition}


def binary_view(
    *,
    subset: str | Sequence[str] = "ori_mmlu",
    models: str | Sequence[str] = "default",
    seed: int = 0,
    null_pred: str = "abstain",
    condition: str = CONDITION,
    cache: bool = True,
) -> MMLUProView:
    """Build the binary view (tidy table plus per-query and per-prediction details).

    Parameters are those of :func:`load`. Returns an :class:`MMLUProView`.
    """
    _check_options(subset, null_pred, seed)
    pool = _resolve_models(models)
    per_q, raw, dropped = _kept(subset, pool, cache)
    tables = to_binary(per_q, raw, models=pool, seed=int(seed), null_pred=null_pred,
                       condition=condition, extra_columns=("category", "src"))
    tidy, queries, predictions = tables.tidy, tables.queries, tables.predictions
    opts = _view_options(subset, pool, seed, null_pred, condition)
    tidy.attrs = {"dropped": dict(dropped), "options": opts}
    return MMLUProView(tidy, queries, predictions, pool, dropped, opts)


def _kept(subset: str | Sequence[str], pool: list[str], cache: bool
          ) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """The questions kept (one row each, by ``question_id``), the pool's records of them and
    the counts dropped at each step (see the module docstring)."""
    raw = raw_predictions(pool, cache=cache)
    dropped: dict[str, int] = {}

    # 1. subset (on the union of the pool's questions; category/src are stable across files)
    questions = raw.drop_duplicates("question_id")[["question_id", "category", "src"]]
    in_subset = set(questions.loc[_subset_mask(questions, subset), "question_id"])
    raw = raw[raw["question_id"].isin(in_subset)]
    dropped["in_subset"] = len(in_subset)

    # 2. the same gold letter, options and question text in every file of the pool
    key = raw.groupby("question_id")[["answer", "answer_index", "signature"]].nunique()
    inconsistent = key.index[(key > 1).any(axis=1)]
    raw = raw[~raw["question_id"].isin(inconsistent)]
    dropped["inconsistent_across_files"] = len(inconsistent)

    # 3. answered by every model of the pool
    counts = raw.groupby("question_id")["model"].nunique()
    partial = counts.index[counts < len(pool)]
    raw = raw[~raw["question_id"].isin(partial)]
    dropped["not_answered_by_all"] = len(partial)

    # 4. a wrong option must exist; the gold letter must match the gold index
    per_q = raw.drop_duplicates("question_id").sort_values("question_id")
    bad_gold = per_q["answer"] != per_q["answer_index"].map(lambda i: LETTERS[i] if i < 10 else "")
    too_few = per_q["n_options"] < 2
    drop4 = set(per_q.loc[too_few | bad_gold, "question_id"])
    dropped["fewer_than_2_options_or_bad_key"] = len(drop4)
    per_q = per_q[~per_q["question_id"].isin(drop4)].reset_index(drop=True)
    raw = raw[~raw["question_id"].isin(drop4)]
    dropped["kept"] = len(per_q)
    if per_q.empty:
        raise UsageError(f"no question left for subset={subset!r} and models={pool}")
    return per_q, raw, dropped


def native(*, subset: str | Sequence[str] = "ori_mmlu", models: str | Sequence[str] = "default",
           condition: str = CONDITION, cache: bool = True) -> pd.DataFrame:
    """MMLU-Pro's answers as they are: one row per (question, model), the letters themselves.

    The questions kept are those of the binary view (same ``subset``, ``models`` and steps).
    ``item`` is the ``question_id`` (an integer), ``answer`` the letter the model chose
    (blank when none was parsed, and when the letter lies beyond the question's options, a
    parsing artefact that names no option: counted per model in
    ``attrs["outside_options"]``; the binary view reads those as wrong on both queries),
    ``label`` the gold letter and ``options`` the question's option count (``A..``).

    Returns
    -------
    pandas.DataFrame
        A validated multi-class tidy table (:func:`ensel.data.is_native`), items by
        ``question_id``, models in pool order, plus ``category`` and ``src``.
    """
    from ensel.data import validate_responses

    _check_options(subset, "abstain", 0)
    pool = _resolve_models(models)
    per_q, raw, dropped = _kept(subset, pool, cache)
    order = {m: i for i, m in enumerate(pool)}
    rows = (raw[["model", "question_id", "pred"]]
            .merge(per_q[["question_id", "answer", "n_options", "category", "src"]],
                   on="question_id")
            .assign(_m=lambda d: d["model"].map(order))
            .sort_values(["question_id", "_m"], kind="stable").reset_index(drop=True))
    inside = [p is not None and p == p and p in LETTERS[:n]
              for p, n in zip(rows["pred"], rows["n_options"], strict=True)]
    outside = rows["pred"].notna() & ~pd.Series(inside)
    df = pd.DataFrame({
        "item": rows["question_id"].to_numpy(),
        "model": rows["model"].to_numpy(),
        "condition": condition,
        "answer": rows["pred"].where(inside, None).to_numpy(dtype=object),
        "label": rows["answer"].to_numpy(),
        "options": rows["n_options"].to_numpy(),
        "category": rows["category"].to_numpy(),
        "src": rows["src"].to_numpy(),
    })
    out = validate_responses(df)
    out.attrs = {"dropped": dict(dropped), "view": "native",
                 "outside_options": {m: int(outside[rows["model"] == m].sum()) for m in pool},
                 "options": {"subset": subset if isinstance(subset, str) else list(subset),
                             "models": pool, "condition": condition}}
    return out


def _view_key(opts: dict) -> str:
    payload = json.dumps(
        {**opts, "version": _VIEW_VERSION, "registry": _fetch.registry_sha256(NAME)},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:20]


def load(
    *,
    subset: str | Sequence[str] = "ori_mmlu",
    models: str | Sequence[str] = "default",
    seed: int = 0,
    null_pred: str = "abstain",
    condition: str = CONDITION,
    cache: bool = True,
    view: str = "binary",
) -> pd.DataFrame:
    """MMLU-Pro as the paper's binary queries, as a tidy table.

    Parameters
    ----------
    subset : str or list of str, default="ori_mmlu"
        ``"ori_mmlu"`` (questions from the original MMLU), ``"all"``, ``"health"`` (the health
        category, closest to MEDMCQA), or a list of categories (``"biology"``), MMLU subjects
        (``"anatomy"``) or ``src`` values.
    models : "default", "all", or list of str, default="default"
        The model pool: :data:`DEFAULT_POOL` (13 models, 9 providers), every model of the
        registry (30, incl. GPT-4o), or model ids as in the file names.
    seed : int, default=0
        Seeds the choice of each question's wrong option (depends on the question only).
    null_pred : {"abstain", "false"}, default="abstain"
        A null ``pred`` becomes answer ``0`` (abstention) or ``-1`` on both queries.
    condition : str, default="5shot-cot"
        Value of the ``condition`` column (one condition: 5-shot chain-of-thought).
    cache : bool, default=True
        Read/write the converted table as Parquet in the data folder, keyed by the options and
        the registry's SHA-256 (atomic write, checksum record, verified before use; a
        damaged or stale file is rebuilt from the verified raw files), so a rerun is fast.
    view : {"binary", "native"}, default="binary"
        ``"native"``: the letters as the models chose them (:func:`native`; ``seed`` and
        ``null_pred`` do not apply). Its :func:`ensel.datasets.binary.to_binary_view` draws
        the same queries as this binary view; only a letter beyond a question's options
        differs (wrong on both queries here, blank in the native view).

    Returns
    -------
    pandas.DataFrame
        Columns ``item, model, condition, answer, label``; two rows per (question, model).
        ``attrs["dropped"]`` holds the questions dropped per filtering step.

    Raises
    ------
    ValueError
        Unknown subset or model names, a bad seed or ``null_pred``.
    ensel.datasets._fetch.DataUnavailableError
        The raw files are neither in the mirror/cache nor downloadable.
    """
    _check_options(subset, null_pred, seed)
    from ensel._validation import check_option

    check_option(view, "view", ("binary", "native"))
    if view == "native":
        return native(subset=subset, models=models, condition=condition, cache=cache)
    pool = _resolve_models(models)
    opts = _view_options(subset, pool, seed, null_pred, condition)
    path = _cache_dir() / f"binary-{_view_key(opts)}.parquet"
    derived = {"kind": "mmlu_pro binary view", "options": opts, "version": _VIEW_VERSION,
               "registry": _fetch.registry_sha256(NAME), "code": _integrity.code_version()}
    df = None
    if cache:
        df = _integrity.read_parquet(path, derived_from=derived,
                                     action="rebuilding it from the verified raw files")
    if df is not None:
        df.attrs = {"dropped": json.loads(df.attrs.get("dropped_json", "{}")), "options": opts}
        return df
    made = binary_view(
        subset=subset, models=pool, seed=seed, null_pred=null_pred, condition=condition, cache=cache
    )
    df = made.tidy
    if cache:
        to_write = df.copy()
        to_write.attrs = {"dropped_json": json.dumps(made.dropped)}
        _atomic_write_parquet(to_write, path, derived)
    return df


def is_available() -> bool:
    """Whether every raw file is in the mirror or the cache (the network is never probed)."""
    try:
        return _fetch.is_available(NAME)
    except ValueError:
        return False


# --------------------------------------------------------------------------- summaries
def model_summary(view: MMLUProView) -> pd.DataFrame:
    """Per-model accuracy in the multiple-choice and the binary view, and per-label errors.

    Returns
    -------
    pandas.DataFrame
        Indexed by model (pool order): ``n_questions, mc_accuracy`` (pred == gold),
        ``null_rate`` (no letter parsed), ``invalid_rate`` (a letter beyond the options),
        ``picked_negative`` (pred == the negative query's option), ``binary_accuracy``
        (answer == label over both queries; an abstention counts as an error),
        ``error_pos`` and ``error_neg`` (error rates on Y=+1 and Y=-1 queries).
    """
    pr = view.predictions
    pr = pr.assign(
        correct=pr["pred"] == pr["gold"],
        null=pr["pred"].isna(),
        picked_negative=pr["pred"] == pr["negative"],
        invalid=[
            p is not None and p == p and p not in LETTERS[:n]
            for p, n in zip(pr["pred"], pr["n_options"], strict=True)
        ],
    )
    g = pr.groupby("model", sort=False)
    out = pd.DataFrame(
        {
            "n_questions": g.size(),
            "mc_accuracy": g["correct"].mean(),
            "null_rate": g["null"].mean(),
            "invalid_rate": g["invalid"].mean(),
            "picked_negative": g["picked_negative"].mean(),
        }
    )
    t = view.tidy.assign(err=view.tidy["answer"] != view.tidy["label"])
    tg = t.groupby(["model", "label"], sort=False)["err"].mean().unstack("label")
    out["error_pos"] = tg[1]
    out["error_neg"] = tg[-1]
    out["binary_accuracy"] = 1.0 - t.groupby("model", sort=False)["err"].mean()
    return out.loc[view.models]
