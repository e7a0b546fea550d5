"""The answer store: one SQLite file (WAL), one row per collected answer.

Key: ``(dataset, query_id, model, temperature, run, prompt_hash)``. A row holds the raw reply,
the parsed answer (``NULL`` until a reply arrived; 0 = abstention), finish reason, token usage,
latency, attempts, the last error class, the model and provider the endpoint says answered,
and a timestamp. Each answer is committed as soon as it arrives, so a killed run loses at most
the requests in flight; a completed answer is never overwritten (a rerun only fills rows whose
answer is missing). The store records the prompt-template hashes it holds and refuses answers
from another prompt version unless opened with ``allow_mixed=True``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import EnselError

__all__ = ["COLUMNS", "KEY", "Store", "StoreError", "condition_label"]

KEY = ("dataset", "query_id", "model", "temperature", "run", "prompt_hash")
COLUMNS = (*KEY, "model_id", "label", "answer", "raw_text", "finish_reason", "prompt_tokens",
           "completion_tokens", "latency_s", "attempts", "error_class", "served_model",
           "provider", "created_at")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
  dataset TEXT NOT NULL, query_id TEXT NOT NULL, model TEXT NOT NULL,
  temperature REAL NOT NULL, run INTEGER NOT NULL, prompt_hash TEXT NOT NULL,
  model_id TEXT, label INTEGER NOT NULL, answer INTEGER, raw_text TEXT, finish_reason TEXT,
  prompt_tokens INTEGER, completion_tokens INTEGER, latency_s REAL, attempts INTEGER,
  error_class TEXT, served_model TEXT, provider TEXT, created_at REAL,
  PRIMARY KEY (dataset, query_id, model, temperature, run, prompt_hash)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_UPSERT = (
    f"INSERT INTO answers ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
    "ON CONFLICT DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c not in KEY)
    + " WHERE answers.answer IS NULL"
)


class StoreError(EnselError, RuntimeError):
    """The store cannot be opened or written, or holds answers of another prompt version."""


def condition_label(temperature: float, run: int) -> str:
    """The tidy table's condition, ``t<temperature>-r<run>`` (e.g. ``t0.01-r1``).

    Examples
    --------
    >>> condition_label(0.7, 2)
    't0.7-r2'
    """
    return f"t{temperature:g}-r{run}"


class Store:
    """An open answer store.

    Parameters
    ----------
    path : path-like
        The SQLite file (created when missing).
    prompt_hashes : iterable of str, optional
        Hashes of the templates this run uses; checked against the store's.
    allow_mixed : bool, default=False
        Accept a store that already holds answers of other prompt hashes.
    max_pages : int, optional
        ``PRAGMA max_page_count`` (tests use it to simulate a full disk).

    Raises
    ------
    StoreError
        Unwritable path, not a store, or a prompt-version mismatch.
    """

    def __init__(self, path: str | os.PathLike[str], *, prompt_hashes: Iterable[str] = (),
                 allow_mixed: bool = False, max_pages: int | None = None) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0,
                                       check_same_thread=False)  # used by one thread at a time
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('created_at', ?)",
                             (str(time.time()),))
            self._db.execute("COMMIT")
            if max_pages is not None:
                self._db.execute(f"PRAGMA max_page_count={int(max_pages)}")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the store {self.path} for writing: {exc}") from None
        try:
            self._check_prompts(set(prompt_hashes), allow_mixed)
        except StoreError:
            self.close()
            raise

    # ------------------------------------------------------------------ meta
    def prompt_hashes(self) -> set[str]:
        """Prompt hashes recorded in the store."""
        row = self._db.execute("SELECT value FROM meta WHERE key='prompt_hashes'").fetchone()
        return set(json.loads(row[0])) if row else set()

    def _check_prompts(self, hashes: set[str], allow_mixed: bool) -> None:
        if not hashes:
            return
        held = self.prompt_hashes()
        if held and not hashes <= held and not allow_mixed:
            raise StoreError(
                f"the store {self.path} holds answers of prompt hash(es) {sorted(held)}, this "
                f"run uses {sorted(hashes - held)}: refusing to mix prompt versions (use another "
                "store, or --allow-mixed to keep both)"
            )
        self._write("INSERT OR REPLACE INTO meta VALUES ('prompt_hashes', ?)",
                    (json.dumps(sorted(held | hashes)),))

    # ------------------------------------------------------------------ writes
    def _write(self, sql: str, params: Sequence[Any] = ()) -> None:
        try:
            self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write the store {self.path}: {exc}") from None

    def put(self, row: Mapping[str, Any]) -> None:
        """Insert or complete one answer (committed at once; a completed answer is kept)."""
        self._write(_UPSERT, [row.get(c) for c in COLUMNS])

    def put_many(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Insert several rows in one transaction (all or none)."""
        try:
            self._db.execute("BEGIN")
            self._db.executemany(_UPSERT, ([r.get(c) for c in COLUMNS] for r in rows))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise StoreError(f"cannot write the store {self.path}: {exc}") from None

    # ------------------------------------------------------------------ reads
    def done(self, dataset: str, model: str, temperature: float, run: int,
             prompt_hash: str) -> set[str]:
        """Query ids already answered (answer not NULL) for one (dataset, model, condition)."""
        cur = self._db.execute(
            "SELECT query_id FROM answers WHERE dataset=? AND model=? AND temperature=? AND "
            "run=? AND prompt_hash=? AND answer IS NOT NULL",
            (dataset, model, temperature, run, prompt_hash))
        return {r[0] for r in cur}

    def count(self) -> int:
        """Number of rows (answered or not)."""
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def table(self) -> pd.DataFrame:
        """Every row as a DataFrame (columns :data:`COLUMNS`)."""
        return pd.read_sql_query(f"SELECT {', '.join(COLUMNS)} FROM answers ORDER BY "
                                 + ", ".join(KEY), self._db)

    def status(self, prices: Mapping[str, tuple[float, float]] | None = None) -> pd.DataFrame:
        """Progress per (dataset, model, condition).

        Returns
        -------
        pandas.DataFrame
            ``dataset, model, condition, rows, answered, abstained, failed, abstention_rate,
            attempts, prompt_tokens, completion_tokens, cost_usd`` and ``errors`` (the error
            classes of the unanswered rows, with counts).
        """
        df = pd.read_sql_query(
            "SELECT dataset, model, model_id, temperature, run, COUNT(*) AS rows, "
            "SUM(answer IS NOT NULL) AS answered, SUM(answer = 0) AS abstained, "
            "SUM(answer IS NULL) AS failed, SUM(attempts) AS attempts, "
            "SUM(COALESCE(prompt_tokens, 0)) AS prompt_tokens, "
            "SUM(COALESCE(completion_tokens, 0)) AS completion_tokens "
            "FROM answers GROUP BY dataset, model, model_id, temperature, run "
            "ORDER BY dataset, temperature, run, model", self._db)
        errs = pd.read_sql_query(
            "SELECT dataset, model, temperature, run, error_class, COUNT(*) AS n FROM answers "
            "WHERE answer IS NULL GROUP BY 1, 2, 3, 4, 5", self._db)
        summary: dict[tuple, str] = {}
        for key, g in errs.groupby(["dataset", "model", "temperature", "run"]):
            summary[key] = ", ".join(f"{e}: {n}" for e, n in zip(g.error_class, g.n, strict=True))
        df["errors"] = [summary.get((d, m, t, r), "") for d, m, t, r in
                        zip(df.dataset, df.model, df.temperature, df.run, strict=True)]
        df.insert(2, "condition", [condition_label(t, r) for t, r in
                                   zip(df.temperature, df.run, strict=True)])
        df["abstention_rate"] = df["abstained"] / df["answered"].where(df["answered"] > 0)
        price = prices or {}
        df["cost_usd"] = [
            (pt * price.get(mid, (np.nan, np.nan))[0] + ct * price.get(mid, (np.nan, np.nan))[1])
            / 1e6 for mid, pt, ct in
            zip(df.model_id, df.prompt_tokens, df.completion_tokens, strict=True)]
        return df.drop(columns=["temperature", "run"])

    def export(self, dataset: str | None = None) -> pd.DataFrame:
        """The answered rows as the project's tidy table.

        Returns
        -------
        pandas.DataFrame
            ``item, model, condition, answer, label`` (answer 0 = abstention), ``int8``
            answers and labels; rows sorted by condition, item, model. With several prompt
            hashes in the store, ``condition`` gets the hash appended (``t0.3-r1-<hash>``).
            The collector asks the paper's true/false (or sentiment) queries, so these
            answers are binary by nature: they are the native answers, and no multi-class
            view of them exists (the multiple-choice question behind a query is not asked).

        Raises
        ------
        StoreError
            ``dataset`` is not in the store (the message lists those it holds), or the store
            holds several datasets and none is named.
        """
        if dataset is not None:
            held = [r[0] for r in self._db.execute(
                "SELECT DISTINCT dataset FROM answers ORDER BY dataset")]
            if dataset not in held:
                raise StoreError(f"the store {self.path} holds no dataset {dataset!r}; it holds "
                                 f"{', '.join(map(repr, held)) or 'no answers yet'}")
        where = "answer IS NOT NULL" + (" AND dataset = ?" if dataset else "")
        df = pd.read_sql_query(
            "SELECT dataset, query_id AS item, model, temperature, run, prompt_hash, answer, "
            f"label FROM answers WHERE {where}", self._db,
            params=(dataset,) if dataset else None)
        if df["dataset"].nunique() > 1:
            raise StoreError(f"the store {self.path} holds several datasets "
                             f"({sorted(df['dataset'].unique())}); export one at a time")
        mixed = df["prompt_hash"].nunique() > 1
        df["condition"] = [condition_label(t, r) + (f"-{h}" if mixed else "") for t, r, h in
                           zip(df.temperature, df.run, df.prompt_hash, strict=True)]
        out = df[["item", "model", "condition", "answer", "label"]].astype(
            {"answer": np.int8, "label": np.int8})
        return out.sort_values(["condition", "item", "model"], ignore_index=True)

    def merge(self, others: Iterable[str | os.PathLike[str]], *,
              allow_mixed: bool = False) -> int:
        """Copy the rows of other stores in (answered rows win over unanswered ones).

        Returns
        -------
        int
            Rows in this store afterwards.
        """
        for other in others:
            src = Path(other)
            if not src.is_file():
                raise StoreError(f"no store at {src}")
            try:
                con = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
                row = con.execute("SELECT value FROM meta WHERE key='prompt_hashes'").fetchone()
                rows = con.execute(f"SELECT {', '.join(COLUMNS)} FROM answers").fetchall()
                con.close()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the store {src}: {exc}") from None
            self._check_prompts(set(json.loads(row[0])) if row else set(), allow_mixed)
            self.put_many(dict(zip(COLUMNS, r, strict=True)) for r in rows)
        return self.count()

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite)."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
