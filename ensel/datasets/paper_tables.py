"""The paper's printed tables, transcribed as data (``data/paper/*.csv``).

The CSV files live in the repository's ``data/paper/`` folder (``ensel`` is installed in
editable mode, so they are found relative to this file: ``<repo>/data/paper``). Set the
environment variable ``ENSEL_PAPER_DIR`` to read them from another folder. The folder's
``README.md`` says which LaTeX table each file comes from and records the transcription
judgements; ``data/paper/transcribe.py`` re-creates the files from ``paper.tex``.

Tables (``load_paper_table(name)``):

====================== ======================================================================
table                  content
====================== ======================================================================
``model_pools``        one row per (dataset, model): accuracy (mean, std over the 6
                       conditions), threshold ``tau``, average latent correlation ``avg_rho``
                       and the model family (Tables 7, 11, 15)
``datasets``           one row per dataset: number of models and queries, the pool tables'
                       "Average" row
``results_map``        test error (mean, std over 30 evaluations) per dataset, ``k`` and
                       selection method, all with MAP aggregation
``results_mv_vs_map``  baselines with majority vote, Greedy MI with MAP
``results_wmv_vs_map`` baselines with log-odds weighted vote, Greedy MI with MAP
``results``            the three results tables stacked (column ``table`` tells them apart)
``selections``         the models Greedy MI and mRMR pick at each ``k`` (one condition)
====================== ======================================================================

Method codes follow :mod:`ensel.select`: ``topk``, ``relevance`` (Term 1), ``mrmr``
(Terms 1+2), ``greedy_mi``; aggregator codes ``map``, ``mv``, ``wmv``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ensel._errors import DataError, UsageError
from ensel.datasets._paths import package_data

__all__ = ["PAPER_TABLES", "DATASETS", "paper_dir", "load_paper_table"]

DATASETS = ("medmcqa", "mmlu", "imdb")
METHODS = ("topk", "relevance", "mrmr", "greedy_mi")
AGGREGATORS = ("map", "mv", "wmv")

_RESULT_COLUMNS = ["dataset", "table", "k", "method", "aggregator", "mean", "std", "bold"]
_COLUMNS: dict[str, list[str]] = {
    "model_pools": ["dataset", "table", "rank", "provider", "model", "family", "accuracy_pct",
                    "accuracy_std_pct", "tau", "avg_rho"],
    "datasets": ["dataset", "table", "n_models", "n_items", "accuracy_pct", "avg_rho"],
    "results_map": _RESULT_COLUMNS,
    "results_mv_vs_map": _RESULT_COLUMNS,
    "results_wmv_vs_map": _RESULT_COLUMNS,
    "selections": ["dataset", "table", "condition", "method", "k", "model", "accuracy_pct"],
}
_RESULT_TABLES = ("results_map", "results_mv_vs_map", "results_wmv_vs_map")
#: Names accepted by :func:`load_paper_table`, with a one-line description.
PAPER_TABLES: dict[str, str] = {
    "model_pools": "per-model accuracy +- std, threshold tau, average rho and family",
    "datasets": "per-dataset number of models and queries, pool averages",
    "results_map": "test error mean +- std per k and selector, MAP aggregation",
    "results_mv_vs_map": "baselines with majority vote vs Greedy MI with MAP",
    "results_wmv_vs_map": "baselines with weighted majority vote vs Greedy MI with MAP",
    "results": "the three results tables stacked (column 'table')",
    "selections": "models picked by Greedy MI and mRMR at each k (one condition)",
}
_INT = {"rank", "k", "n_models", "n_items"}
_FLOAT = {"accuracy_pct", "accuracy_std_pct", "tau", "avg_rho", "mean", "std"}


def paper_dir() -> Path:
    """Folder of the transcribed CSV files (``$ENSEL_PAPER_DIR`` or the shipped ``data/paper``)."""
    env = os.environ.get("ENSEL_PAPER_DIR", "").strip()
    return Path(env).expanduser() if env else package_data("paper")


def _read(name: str) -> pd.DataFrame:
    path = paper_dir() / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(
            f"paper table file {path} not found; the transcribed tables live in the repository's "
            "data/paper/ folder (install ensel from a checkout, or set ENSEL_PAPER_DIR)"
        )
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    expected = _COLUMNS[name]
    if list(df.columns) != expected:
        raise DataError(f"{path.name} has columns {list(df.columns)}; expected {expected}")
    for col in df.columns:
        empty = df[col].str.strip() == ""
        if empty.any():
            row = int(empty.to_numpy().argmax()) + 2
            raise DataError(f"{path.name} column {col!r} is empty in line {row}")
        if col in _INT:
            df[col] = pd.to_numeric(df[col], errors="raise").astype("int64")
        elif col in _FLOAT:
            df[col] = pd.to_numeric(df[col], errors="raise").astype("float64")
        elif col == "bold":
            bad = ~df[col].isin(["true", "false"])
            if bad.any():
                raise DataError(f"{path.name} column 'bold' has value {df[col][bad].iloc[0]!r}; "
                                "expected true/false")
            df[col] = df[col] == "true"
    return df


def _check(name: str, df: pd.DataFrame) -> None:
    unknown = sorted(set(df["dataset"]) - set(DATASETS))
    if unknown:
        raise UsageError(f"{name}: unknown dataset {unknown[0]!r}; expected one of {DATASETS}")
    if name == "model_pools":
        if df.duplicated(["dataset", "model"]).any():
            dup = df[df.duplicated(["dataset", "model"])].iloc[0]
            raise DataError(f"{name}: model {dup['model']!r} listed twice for {dup['dataset']}")
        if not df["accuracy_pct"].between(0, 100).all() or not df["avg_rho"].between(-1, 1).all():
            raise DataError(f"{name}: accuracy_pct must lie in [0, 100] and avg_rho in [-1, 1]")
    if name in _RESULT_TABLES:
        if not (df["mean"].between(0, 1).all() and df["std"].between(0, 1).all()):
            raise DataError(f"{name}: mean and std must be error probabilities in [0, 1]")
        for ds, grp in df.groupby("dataset", sort=False):
            kmax = int(grp["k"].max())
            for method in METHODS:
                ks = sorted(grp.loc[grp["method"] == method, "k"])
                if ks != list(range(1, kmax + 1)):
                    raise DataError(f"{name}: {ds}/{method} has k values {ks}; "
                                    f"expected each of 1..{kmax} once")
        bad = ~df["method"].isin(METHODS) | ~df["aggregator"].isin(AGGREGATORS)
        if bad.any():
            row = df[bad].iloc[0]
            raise DataError(
                f"{name}: unknown method/aggregator {row['method']}/{row['aggregator']}"
            )


def load_paper_table(name: str, *, dataset: str | None = None) -> pd.DataFrame:
    """Load one transcribed paper table as a tidy DataFrame.

    Parameters
    ----------
    name : str
        One of :data:`PAPER_TABLES` (``"model_pools"``, ``"datasets"``, ``"results_map"``,
        ``"results_mv_vs_map"``, ``"results_wmv_vs_map"``, ``"results"``, ``"selections"``).
    dataset : {"medmcqa", "mmlu", "imdb"}, optional
        Keep only this dataset's rows.

    Returns
    -------
    pandas.DataFrame
        The numbers exactly as printed (``accuracy_pct`` in percent, errors as probabilities),
        plus, for ``model_pools`` and ``selections``, derived fractions ``accuracy`` (and
        ``accuracy_std``, ``error_rate`` for ``model_pools``). A fresh copy on every call.

    Raises
    ------
    ValueError
        Unknown table or dataset name, or a malformed file (column, value and row named).
    """
    if name not in PAPER_TABLES:
        raise UsageError(f"unknown paper table {name!r}; expected one of {sorted(PAPER_TABLES)}")
    if dataset is not None and dataset not in DATASETS:
        raise UsageError(f"unknown dataset {dataset!r}; the paper's tables cover {list(DATASETS)}")
    if name == "results":
        df = pd.concat([load_paper_table(t) for t in _RESULT_TABLES], ignore_index=True)
    else:
        df = _checked(name).copy()
    if dataset is not None:
        df = df[df["dataset"] == dataset].reset_index(drop=True)
    return df


#: The checked tables read so far, by file and its size and time: a page asks for the same
#: tables many times (the stand-in pages ~40 times), the file is read and checked once.
_CHECKED: dict[tuple[str, str, int, int], pd.DataFrame] = {}


def _checked(name: str) -> pd.DataFrame:
    """Table ``name`` read and checked, with its derived columns (not to be modified: the
    callers copy it)."""
    path = paper_dir() / f"{name}.csv"
    stat = path.stat() if path.is_file() else None
    key = (name, str(path), stat.st_size, stat.st_mtime_ns) if stat else None
    if key is not None and key in _CHECKED:
        return _CHECKED[key]
    df = _read(name)
    _check(name, df)
    if name in ("model_pools", "selections"):
        df["accuracy"] = df["accuracy_pct"] / 100.0
    if name == "model_pools":
        df["accuracy_std"] = df["accuracy_std_pct"] / 100.0
        df["error_rate"] = 1.0 - df["accuracy"]
    if key is not None:
        _CHECKED[key] = df
    return df
