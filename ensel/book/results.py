"""Where the experiments pages keep their results, for the reproduction report (book layer).

Each experiments run saves its :func:`ensel.experiment.evaluate` table with
:func:`save_results`; the reproduction report reads every dataset's table back with
:func:`load_results`. The folder is ``$ENSEL_RESULTS_DIR`` (the runner sets it to
``book/_generated/results``) or ``./results``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd

from ensel.experiment import validate_results

__all__ = ["load_results", "results_dir", "results_path", "save_results"]


def results_dir() -> Path:
    """``$ENSEL_RESULTS_DIR`` if set, else ``./results`` (not created here)."""
    env = os.environ.get("ENSEL_RESULTS_DIR", "").strip()
    return Path(env).expanduser() if env else Path.cwd() / "results"


def _dataset_key(dataset: str | os.PathLike[str]) -> str:
    name = str(dataset)
    if not name.strip():
        raise ValueError("dataset name must be a non-empty string")
    p = Path(name)
    if p.suffix.lower() in (".csv", ".parquet", ".pq") or os.sep in name:
        name = p.stem  # a user's file: key by its stem
    key = "".join(c if (c.isalnum() or c in "-_.") else "_" for c in name)
    return key.strip(".") or "results"


def results_path(dataset: str | os.PathLike[str]) -> Path:
    """Where :func:`save_results` writes a dataset's results (``<results_dir>/<name>.parquet``)."""
    return results_dir() / f"{_dataset_key(dataset)}.parquet"


def save_results(results: pd.DataFrame, dataset: str | os.PathLike[str]) -> Path:
    """Write results as Parquet atomically (temporary file + rename); return the path."""
    validate_results(results)
    path = results_path(dataset)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".parquet.tmp", dir=path.parent)
    os.close(fd)
    try:
        results.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def load_results(dataset: str | os.PathLike[str]) -> pd.DataFrame:
    """Read the results :func:`save_results` wrote for ``dataset``.

    Raises
    ------
    FileNotFoundError
        Naming the expected path (run the experiments notebook for that dataset first).
    """
    path = results_path(dataset)
    if not path.is_file():
        raise FileNotFoundError(
            f"no saved results for {dataset!r} at {path}; run the experiments notebook with "
            f"dataset={str(dataset)!r} first (ENSEL_RESULTS_DIR selects the folder)"
        )
    return pd.read_parquet(path)
