"""Binary query sets built like the paper's (appendix "Additional Experimental Details").

* **MedMCQA** (dev split): each question gives a positive query with the correct option
  (``label = +1``) and a negative query with one wrong option drawn with a seed
  (``label = -1``). The paper's 8,366 queries are 2 x the 4,183 dev questions.
* **MMLU** (test split): the same construction on ``n_queries / 2`` questions sampled with a
  seed (the paper: 10,000 queries).
* **IMDB** (test split): ``n_queries / 2`` positive and as many negative reviews, sampled
  with a seed (the paper: 5,000 + 5,000 of 25,000).
* **MMLU-Pro, original-MMLU items** (offline: the mirrored MMLU-Pro files): the MMLU
  construction on the questions whose ``src`` starts with ``ori_mmlu``.

The wrong option of question ``i`` is drawn by ``numpy.random.default_rng([seed, i])``
(:func:`ensel.datasets.mmlu_pro.negative_options`): it depends on the question only.

Every builder returns a :class:`pandas.DataFrame` with one row per query: ``query_id``,
``label`` (int8, +-1), ``task`` (the prompt template), and the template's fields
(``question``, ``candidate_answer`` or ``review``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ensel._errors import DataError
from ensel._validation import check_int, check_option, constraint_error
from ensel.collect.sources import fetch_source, source_entry
from ensel.datasets.mmlu_pro import negative_options

__all__ = ["SOURCES", "build_queries", "read_source_file"]

#: Query-set sources and the prompt task they use.
SOURCES: dict[str, str] = {"medmcqa": "true_false", "mmlu": "true_false",
                           "imdb": "sentiment", "mmlu_pro": "true_false"}
_REQUIRED = {
    "medmcqa": ("question", "opa", "opb", "opc", "opd", "cop"),
    "mmlu": ("question", "choices", "answer"),
    "imdb": ("text", "label"),
}


class DatasetFileError(DataError):
    """A source file that cannot be read as its upstream format."""


def read_source_file(source: str, path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an upstream file (Parquet, or JSON lines with the same fields) and check its columns.

    Raises
    ------
    DatasetFileError
        Unreadable file or missing columns (the message names the file and the columns).
    """
    p = Path(path)
    try:
        if p.suffix in (".json", ".jsonl"):
            df = pd.read_json(p, lines=True)
        else:
            df = pd.read_parquet(p)
    except Exception as exc:
        raise DatasetFileError(
            f"cannot read the {source} file {p}: {type(exc).__name__}: {exc}"
        ) from None
    missing = [c for c in _REQUIRED[source] if c not in df.columns]
    if missing:
        raise DatasetFileError(
            f"the {source} file {p} lacks the column(s) {missing} (has {list(df.columns)})"
        )
    if len(df) == 0:
        raise DatasetFileError(f"the {source} file {p} has no rows")
    return df


def _check_n(n: int | None, available: int, source: str) -> int:
    if n is None:
        return available
    if isinstance(n, bool) or not isinstance(n, int) or n < 2 or n % 2:
        raise constraint_error("n_queries", f"an even integer >= 2 (source {source})", n)
    if n > available:
        raise constraint_error("n_queries", f"at most the {available} queries of source {source}",
                               n)
    return n


def _mc_queries(prefix: str, ids: list[str], questions: list[str], options: list[list[str]],
                gold: np.ndarray, *, n: int | None, seed: int, source: str) -> pd.DataFrame:
    n_q = len(questions)
    n = _check_n(n, 2 * n_q, source)
    rows = np.arange(n_q)
    if n < 2 * n_q:
        rows = np.sort(np.random.default_rng(seed).choice(n_q, n // 2, replace=False))
    n_opt = np.array([len(options[i]) for i in rows])
    wrong = negative_options(rows, gold[rows], n_opt, seed=seed)
    out = []
    for i, w in zip(rows.tolist(), wrong.tolist(), strict=True):
        q = str(questions[i]).strip()
        out.append((f"{prefix}{ids[i]}-t", 1, q, str(options[i][int(gold[i])])))
        out.append((f"{prefix}{ids[i]}-f", -1, q, str(options[i][w])))
    df = pd.DataFrame(out, columns=["query_id", "label", "question", "candidate_answer"])
    df.insert(2, "task", "true_false")
    df["label"] = df["label"].astype(np.int8)
    return df


def _medmcqa(df: pd.DataFrame, n: int | None, seed: int, single_only: bool) -> pd.DataFrame:
    if single_only and "choice_type" in df.columns:
        df = df[df["choice_type"] == "single"].reset_index(drop=True)
    gold = df["cop"].to_numpy()
    if not np.isin(gold, [0, 1, 2, 3]).all():
        raise DatasetFileError("medmcqa: cop must be the correct option's index 0..3")
    ids = list(df["id"].astype(str)) if "id" in df.columns else [str(i) for i in range(len(df))]
    options = df[["opa", "opb", "opc", "opd"]].astype(str).to_numpy().tolist()
    return _mc_queries("medmcqa-", ids, list(df["question"]), options, gold,
                       n=n, seed=seed, source="medmcqa")


def _mmlu(df: pd.DataFrame, n: int | None, seed: int) -> pd.DataFrame:
    options = [list(c) for c in df["choices"]]
    gold = df["answer"].to_numpy()
    bad = [i for i, (g, o) in enumerate(zip(gold, options, strict=True))
           if not 0 <= int(g) < len(o) or len(o) < 2]
    if bad:
        raise DatasetFileError(f"mmlu: row {bad[0]} has answer {gold[bad[0]]!r} outside its "
                               "choices (or fewer than 2 choices)")
    ids = [f"{i:05d}" for i in range(len(df))]
    return _mc_queries("mmlu-", ids, list(df["question"]), options, gold,
                       n=n, seed=seed, source="mmlu")


def _imdb(df: pd.DataFrame, n: int | None, seed: int) -> pd.DataFrame:
    labels = df["label"].to_numpy()
    if not np.isin(labels, [0, 1]).all():
        raise DatasetFileError("imdb: label must be 0 (negative) or 1 (positive)")
    pos, neg = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    half = min(len(pos), len(neg))
    n = _check_n(n, 2 * half, "imdb")
    rng = np.random.default_rng(seed)
    rows = np.sort(np.concatenate([rng.choice(pos, n // 2, replace=False),
                                   rng.choice(neg, n // 2, replace=False)]))
    width = len(str(len(df) - 1))
    return pd.DataFrame({
        "query_id": [f"imdb-{i:0{width}d}" for i in rows],
        "label": np.where(labels[rows] == 1, 1, -1).astype(np.int8),
        "task": "sentiment",
        "review": df["text"].astype(str).to_numpy()[rows],
    })


def _mmlu_pro(n: int | None, seed: int) -> pd.DataFrame:
    from ensel.datasets import _fetch
    from ensel.datasets.mmlu_pro import model_entries

    records: dict[int, dict] = {}
    for entry in model_entries()["gpt4o"]:
        with open(_fetch.fetch(entry, progressbar=False), encoding="utf-8") as fh:
            for rec in json.load(fh):
                if isinstance(rec, dict) and str(rec.get("src", "")).startswith("ori_mmlu"):
                    records.setdefault(int(rec["question_id"]), rec)
    qids = sorted(q for q, r in records.items() if len(r["options"]) >= 2)
    recs = [records[q] for q in qids]
    gold = np.array([int(r["answer_index"]) for r in recs])
    return _mc_queries("mmlupro-", [str(q) for q in qids], [r["question"] for r in recs],
                       [list(r["options"]) for r in recs], gold, n=n, seed=seed,
                       source="mmlu_pro")


def build_queries(source: str, *, n_queries: int | None = None, seed: int = 0,
                  path: str | os.PathLike[str] | None = None, single_only: bool = False,
                  registry: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Build a binary query set.

    Parameters
    ----------
    source : {"medmcqa", "mmlu", "imdb", "mmlu_pro"}
    n_queries : int, optional
        Even number of queries to sample (with ``seed``); default all.
    seed : int, default=0
    path : path-like, optional
        A local file in the source's upstream format instead of the registry's download.
    single_only : bool, default=False
        MedMCQA only: keep ``choice_type == "single"`` questions (the paper's count, 8,366 =
        2 x 4,183, is every dev question).
    registry : path-like, optional
        Source registry CSV (default ``data/collect/sources.csv``).

    Returns
    -------
    pandas.DataFrame
        ``query_id, label, task`` and the template fields; labels balanced.
    """
    check_option(source, "source", sorted(SOURCES))
    check_int(seed, "seed", low=0)
    if source == "mmlu_pro":
        return _mmlu_pro(n_queries, seed)
    if path is None:
        path = fetch_source(source_entry(source, registry))
    df = read_source_file(source, path)
    if source == "medmcqa":
        return _medmcqa(df, n_queries, seed, single_only)
    if source == "mmlu":
        return _mmlu(df, n_queries, seed)
    return _imdb(df, n_queries, seed)
