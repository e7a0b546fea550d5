"""The paper's binary view of multiple-choice answers, shared by every multiple-choice source.

Each question with options ``0..n_options-1`` and a gold option becomes two binary queries
"is the answer <option>?":

* a **positive** query with the gold option, label ``Y = +1``;
* a **negative** query with one wrong option, label ``Y = -1``, drawn uniformly among the
  question's wrong options by ``numpy.random.default_rng([seed, question_id])``: the draw
  depends on the question only, so it is the same for every model and does not change when
  the model pool or the subset changes.

A model answers ``+1`` (True) iff the option it chose is the query's option, else ``-1``.
A missing choice (nothing parsed) is an abstention (``0``) on both queries by default, or
``-1`` with ``null_pred="false"``. Queries are named ``<question>:<option label>`` with
option labels ``A, B, C, ...`` (:func:`option_label`).

Used by :mod:`ensel.datasets.mmlu_pro` (published MMLU-Pro outputs) and the importers of
:mod:`ensel.datasets.importers` (lm-evaluation-harness logs, wide matrices, MMLU-Pro-style
files of your own).
"""

from __future__ import annotations

import re
import string
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ensel._errors import DataError

__all__ = [
    "NULL_PRED",
    "BinaryTables",
    "negative_options",
    "option_label",
    "item_seed_key",
    "native_table",
    "question_key",
    "to_binary",
    "to_binary_view",
]

#: Accepted values of ``null_pred``.
NULL_PRED = ("abstain", "false")
_LETTERS = string.ascii_uppercase


def option_label(index: int) -> str:
    """Label of option ``index`` (0-based): ``A..Z``, then the number itself."""
    i = int(index)
    if i < 0:
        from ensel._validation import constraint_error

        raise constraint_error("index", "a non-negative int", i, func="option_label")
    return _LETTERS[i] if i < len(_LETTERS) else str(i)


def question_key(*parts: object) -> int:
    """A stable non-negative integer for a question named by strings/ints (seeds its draw).

    A single non-negative integer is returned unchanged (as MMLU-Pro's question ids); other
    names are hashed with CRC-32 (e.g. ``question_key("mmlu_anatomy", 12)`` =
    ``crc32("mmlu_anatomy") * 2**32 + 12``).
    """
    if len(parts) == 1 and isinstance(parts[0], (int, np.integer)) and int(parts[0]) >= 0:
        return int(parts[0])
    key = 0
    for p in parts:
        if isinstance(p, (int, np.integer)) and int(p) >= 0:
            key = key * (1 << 32) + int(p)
        else:
            key = key * (1 << 32) + zlib.crc32(str(p).encode("utf-8"))
    return key


def negative_options(
    question_ids: np.ndarray | Sequence[int],
    answer_index: np.ndarray | Sequence[int],
    n_options: np.ndarray | Sequence[int],
    *,
    seed: int = 0,
) -> np.ndarray:
    """Index of the wrong option used by each question's negative query.

    Drawn uniformly among the ``n_options - 1`` wrong options by
    ``numpy.random.default_rng([seed, question_id])``, so the draw depends on the question
    (and the seed) only.

    Parameters
    ----------
    question_ids, answer_index, n_options : array-like of int
        Per question: id (non-negative), gold option index, number of options (>= 2).
    seed : int, default=0
        Non-negative seed.

    Returns
    -------
    numpy.ndarray of int
        Option indices, never equal to ``answer_index``.
    """
    from ensel._validation import check_int

    check_int(seed, "seed", low=0)
    qid = np.asarray(question_ids, dtype=object if _big(question_ids) else np.int64)
    gold = np.asarray(answer_index, dtype=np.int64)
    n_opt = np.asarray(n_options, dtype=np.int64)
    if not (qid.shape == gold.shape == n_opt.shape) or qid.ndim != 1:
        raise DataError("question_ids, answer_index and n_options must be 1-D and equally long")
    if any(int(q) < 0 for q in qid.tolist()):
        raise DataError("question_ids must be non-negative")
    if np.any(n_opt < 2):
        raise DataError("every question needs at least 2 options to draw a wrong one")
    if np.any((gold < 0) | (gold >= n_opt)):
        raise DataError("answer_index must lie in [0, n_options)")
    out = np.empty(qid.shape[0], dtype=np.int64)
    for i, (q, g, n) in enumerate(zip(qid.tolist(), gold.tolist(), n_opt.tolist(), strict=True)):
        k = int(np.random.default_rng([int(seed), int(q)]).integers(n - 1))
        out[i] = k + (k >= g)
    return out


def _big(values: object) -> bool:
    """Whether integer ids exceed int64 (hashed keys of :func:`question_key` may)."""
    try:
        return any(int(v) >= 2**63 for v in list(values))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return False


@dataclass
class BinaryTables:
    """Output of :func:`to_binary`.

    Attributes
    ----------
    tidy : pandas.DataFrame
        ``item, model, condition, answer, label`` (answer in {-1, 0, +1}, label in {-1, +1}),
        items in question order (positive query first), models in pool order.
    queries : pandas.DataFrame
        One row per binary query: ``item, question_id, <extra columns>, option, gold, label``.
    predictions : pandas.DataFrame
        One row per (model, question): ``model, question_id, pred, gold, negative,
        n_options``.
    """

    tidy: pd.DataFrame
    queries: pd.DataFrame
    predictions: pd.DataFrame


def to_binary(questions: pd.DataFrame, answers: pd.DataFrame, *, models: Sequence[str],
              seed: int = 0, null_pred: str = "abstain", condition: str = "all",
              extra_columns: Sequence[str] = ()) -> BinaryTables:
    """Turn multiple-choice answers into the paper's binary queries (see the module docstring).

    Parameters
    ----------
    questions : pandas.DataFrame
        One row per question, sorted as the output should be: ``question_id`` (non-negative
        int, unique; seeds the negative option), ``answer`` (gold option label, e.g.
        ``"C"``), ``answer_index`` (gold option index), ``n_options`` (>= 2), optionally
        ``name`` (the query names' prefix; default ``question_id``), ``labels`` (the
        question's option labels, a tuple; default ``A, B, C, ...``), ``seed_key`` (a
        non-negative int seeding the draw instead of ``question_id``, e.g. from
        :func:`question_key`) and the
        ``extra_columns`` to copy into ``queries``.
    answers : pandas.DataFrame
        One row per (model, question): ``model, question_id, pred`` (the chosen option's
        label, or missing when nothing was parsed; a label outside the options is simply
        wrong).
    models : sequence of str
        The pool, in output order.
    seed : int, default=0
    null_pred : {"abstain", "false"}, default="abstain"
    condition : str, default="all"
    extra_columns : sequence of str
        Columns of ``questions`` kept in ``queries`` (MMLU-Pro: ``category, src``).

    Returns
    -------
    BinaryTables
    """
    from ensel._validation import check_option

    check_option(null_pred, "null_pred", NULL_PRED)
    per_q = questions.reset_index(drop=True).copy()
    pool = list(models)
    keys = per_q["seed_key"] if "seed_key" in per_q.columns else per_q["question_id"]
    neg_idx = negative_options(
        keys.tolist(),
        per_q["answer_index"].to_numpy(),
        per_q["n_options"].to_numpy(),
        seed=int(seed),
    )
    if "labels" in per_q.columns:  # the item's own option labels (a native table's)
        per_q["negative"] = [labels[i] for labels, i in zip(per_q["labels"], neg_idx.tolist(),
                                                             strict=True)]
    else:
        per_q["negative"] = [option_label(i) for i in neg_idx]

    # queries: positive then negative per question
    qid = per_q["question_id"].to_numpy()
    pos = pd.DataFrame({"question_id": qid, "option": per_q["answer"].to_numpy(), "label": 1})
    neg = pd.DataFrame({"question_id": qid, "option": per_q["negative"].to_numpy(), "label": -1})
    extra = list(extra_columns)
    queries = (
        pd.concat([pos, neg], ignore_index=True)
        .merge(per_q[["question_id", *extra, "answer"]], on="question_id")
        .rename(columns={"answer": "gold"})
        .sort_values(["question_id", "label"], ascending=[True, False], kind="stable")
        .reset_index(drop=True)
    )
    if "name" in per_q.columns:
        names = queries["question_id"].map(dict(zip(per_q["question_id"], per_q["name"],
                                                    strict=True))).astype(str)
    else:
        names = queries["question_id"].astype(str)
    queries["item"] = names + ":" + queries["option"]
    queries = queries[["item", "question_id", *extra, "option", "gold", "label"]]

    predictions = (
        answers[["model", "question_id", "pred"]]
        .merge(per_q[["question_id", "answer", "negative", "n_options"]], on="question_id")
        .rename(columns={"answer": "gold"})
    )
    predictions["model"] = pd.Categorical(predictions["model"], categories=pool)
    predictions = predictions.sort_values(["model", "question_id"]).reset_index(drop=True)
    predictions["model"] = predictions["model"].astype(str)

    # tidy: every query x every model
    tidy = queries[["item", "question_id", "option", "label"]].merge(
        predictions[["model", "question_id", "pred"]], on="question_id"
    )
    pred = tidy["pred"]
    answer = np.where(pred.to_numpy(dtype=object) == tidy["option"].to_numpy(dtype=object), 1, -1)
    if null_pred == "abstain":
        answer = np.where(pred.isna().to_numpy(), 0, answer)
    tidy = pd.DataFrame(
        {
            "item": tidy["item"].to_numpy(),
            "model": tidy["model"].to_numpy(),
            "condition": condition,
            "answer": answer.astype(np.int8),
            "label": tidy["label"].to_numpy().astype(np.int8),
        }
    )
    order = {m: i for i, m in enumerate(pool)}
    item_order = {it: i for i, it in enumerate(queries["item"])}
    tidy = (
        tidy.assign(_i=tidy["item"].map(item_order), _m=tidy["model"].map(order))
        .sort_values(["_i", "_m"], kind="stable")
        .drop(columns=["_i", "_m"])
        .reset_index(drop=True)
    )
    return BinaryTables(tidy, queries, predictions)


def native_table(questions: pd.DataFrame, answers: pd.DataFrame, *, models: Sequence[str],
                 condition: str = "all") -> pd.DataFrame:
    """The native (multi-class) tidy table of the inputs of :func:`to_binary`.

    One row per (question, model), questions in order, models in ``models`` order:
    ``item`` (``name``, else ``question_id``), ``answer`` (the ``pred`` label, blank when
    missing), ``label`` (the gold label), ``options`` (``labels`` joined by ``|``, else the
    count ``n_options``: letters ``A..``). Not validated (the importers validate it once).
    """
    per_q = questions.reset_index(drop=True)
    names = per_q["name"] if "name" in per_q.columns else per_q["question_id"]
    opts = (per_q["labels"].map("|".join) if "labels" in per_q.columns
            else per_q["n_options"])
    pool = list(models)
    pred = dict(zip(zip(answers["question_id"], answers["model"], strict=True),
                    answers["pred"], strict=True))
    qids = per_q["question_id"].tolist()
    return pd.DataFrame({
        "item": np.repeat(names.to_numpy(dtype=object), len(pool)),
        "model": np.tile(np.asarray(pool, dtype=object), len(qids)),
        "condition": condition,
        "answer": [pred.get((q, m)) for q in qids for m in pool],
        "label": np.repeat(per_q["answer"].to_numpy(dtype=object), len(pool)),
        "options": np.repeat(opts.to_numpy(dtype=object), len(pool)),
    })


_DIGITS = re.compile(r"0|[1-9][0-9]*")
_HEAD_ROW = re.compile(r"(?P<head>.+)/(?P<row>0|[1-9][0-9]*)")


def item_seed_key(item: object) -> int:
    """The key seeding the wrong option of a native item in :func:`to_binary_view`.

    One rule for every table, chosen so that the native views of the real sources convert
    to exactly the queries their loaders draw: a non-negative integer (or its digits, as a
    file holds it: ``"70"``) is its own key (MMLU-Pro's question ids); ``"<name>/<row>"``
    with a row number is ``question_key(name, row)`` (MMLU-Redux's ``subject/row``);
    any other name is ``question_key(name)``.

    Examples
    --------
    >>> item_seed_key(70), item_seed_key("70"), item_seed_key("anatomy/3") == question_key(
    ...     "anatomy", 3)
    (70, 70, True)
    """
    if isinstance(item, (int, np.integer)) and not isinstance(item, bool) and int(item) >= 0:
        return int(item)
    text = str(item)
    if _DIGITS.fullmatch(text):
        return int(text)
    m = _HEAD_ROW.fullmatch(text)
    if m:
        return question_key(m["head"], int(m["row"]))
    return question_key(text)


def to_binary_view(df: pd.DataFrame, *, seed: int = 0, null_pred: str = "abstain",
                   validate: bool = True) -> pd.DataFrame:
    """The paper's binary queries of a multi-class (native) tidy table.

    Each item with a gold label becomes a positive query (its gold option, ``Y = +1``) and a
    negative query (one wrong option drawn by ``numpy.random.default_rng([seed, key])``,
    ``key`` from :func:`item_seed_key`, ``Y = -1``), named ``<item>:<option>``; a model says
    ``+1`` iff its answer is the query's option, a blank answer is ``0`` (or ``-1`` with
    ``null_pred="false"``). This is :func:`to_binary`, fed from the table: the item's own
    option labels, every condition apart (items in order of appearance, models in order of
    appearance). Items without gold cannot become queries (``Y`` is unknown): they are
    dropped, with a notice and a count in ``attrs["dropped"]``. A binary table is returned
    as it is.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy table (:func:`ensel.data.validate_responses`).
    seed : int, default=0
        Seeds each item's wrong option (depends on the item and the seed only).
    null_pred : {"abstain", "false"}, default="abstain"
    validate : bool, default=True
        Validate ``df`` first.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition, answer, label`` with answers in ``{-1, 0, +1}``.

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["q1", "q1"], "model": ["a", "b"], "answer": ["B", "C"],
    ...                    "label": ["B", "B"], "options": ["A|B|C"] * 2})
    >>> b = to_binary_view(df)
    >>> b["item"].tolist(), b["answer"].tolist(), b["label"].tolist()
    (['q1:B', 'q1:B', 'q1:A', 'q1:A'], [1, -1, -1, -1], [1, 1, -1, -1])
    """
    from ensel._notice import notice
    from ensel._validation import check_int, check_option
    from ensel.data import OPTIONS_COLUMN, conditions, is_native, validate_responses

    check_int(seed, "seed", low=0)
    check_option(null_pred, "null_pred", NULL_PRED)
    if validate:
        df = validate_responses(df)
    if not is_native(df):
        return df
    frames = []
    no_gold = 0
    models = list(dict.fromkeys(df["model"].astype(object)))
    for cond in conditions(df):
        sub = df if df["condition"].nunique() == 1 else df[df["condition"] == cond]
        items = pd.unique(sub["item"].astype(object))
        first = sub.drop_duplicates("item")
        gold = dict(zip(first["item"].astype(object), first["label"].astype(object),
                        strict=True))
        sets = dict(zip(first["item"].astype(object),
                        (tuple(str(o).split("|")) for o in first[OPTIONS_COLUMN]), strict=True))
        keep = [it for it in items if gold[it] == gold[it]]  # NaN: no gold
        no_gold += len(items) - len(keep)
        if not keep:
            continue
        qid = {it: i for i, it in enumerate(keep)}
        questions = pd.DataFrame({
            "question_id": np.arange(len(keep)),
            "name": [str(it) for it in keep],
            "seed_key": [item_seed_key(it) for it in keep],
            "answer": [str(gold[it]) for it in keep],
            "answer_index": [sets[it].index(str(gold[it])) for it in keep],
            "n_options": [len(sets[it]) for it in keep],
            "labels": [sets[it] for it in keep],
        })
        rows = sub[sub["item"].astype(object).isin(qid)]
        pred = rows["answer"].astype(object)
        answers = pd.DataFrame({
            "model": rows["model"].astype(object).to_numpy(),
            "question_id": rows["item"].astype(object).map(qid).to_numpy(),
            "pred": [None if p != p else str(p) for p in pred],
        })
        present = set(answers["model"])  # once: not once per model
        pool = [m for m in models if m in present]
        converted = to_binary(questions, answers, models=pool, seed=int(seed),
                              null_pred=null_pred, condition=cond)  # type: ignore[arg-type]
        frames.append(converted.tidy)
    if no_gold:
        notice(f"binary view: dropped {no_gold:,} item(s) without a gold label (a query needs "
               "its label Y)")
    if not frames:
        raise DataError("binary view: no item has a gold label; the paper's queries need one")
    out = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    out.attrs = {"dropped": {"no_gold": no_gold}, "view": "binary"}
    return out
