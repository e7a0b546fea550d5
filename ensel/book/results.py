"""Where the experiments pages keep their results, for the reproduction report (book layer).

Each experiments run saves its :func:`ensel.experiment.evaluate` table with
:func:`save_results`; the reproduction report reads every dataset's table back with
:func:`load_results`. The folder is ``$ENSEL_RESULTS_DIR`` (the runner sets it to
``book/_generated/results``) or ``./results``. Every results file carries a checksum record
(:mod:`ensel.datasets._integrity`) and is checked before use.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ensel._errors import EnselError, UsageError
from ensel.experiment import validate_results

__all__ = ["ResultsDamagedError", "load_results", "results_dir", "results_path", "save_results"]


def results_dir() -> Path:
    """``$ENSEL_RESULTS_DIR`` if set, else ``./results`` (not created here)."""
    env = os.environ.get("ENSEL_RESULTS_DIR", "").strip()
    return Path(env).expanduser() if env else Path.cwd() / "results"


def _dataset_key(dataset: str | os.PathLike[str]) -> str:
    name = str(dataset)
    if not name.strip():
        raise UsageError("dataset name must be a non-empty string")
    p = Path(name)
    if p.suffix.lower() in (".csv", ".parquet", ".pq") or os.sep in name:
        name = p.stem  # a user's file: key by its stem
    key = "".join(c if (c.isalnum() or c in "-_.") else "_" for c in name)
    return key.strip(".") or "results"


#: What a results file holds: the evaluation itself, its half-sample replicates
#: (:func:`ensel.experiment.half_sample_errors`), and what the experiments page concluded
#: from them, saved beside it so that the reproduction report reads them instead of
#: recomputing: the claims' verdicts (:func:`ensel.book.claims.verdicts`), the paired
#: differences Greedy MI - Top-k per k and the copula fit per condition.
KINDS = {"results": "", "halves": ".halves", "verdicts": ".verdicts", "paired": ".paired",
         "copula": ".copula"}
_EVALUATIONS = ("results", "halves")


def results_path(dataset: str | os.PathLike[str], kind: str = "results") -> Path:
    """Where :func:`save_results` writes a dataset's results (``<results_dir>/<name>.parquet``;
    ``kind="halves"``: ``<name>.halves.parquet``)."""
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {sorted(KINDS)}; got {kind!r}")
    return results_dir() / f"{_dataset_key(dataset)}{KINDS[kind]}.parquet"



def _results_derivation(results: pd.DataFrame, dataset: str | os.PathLike[str]) -> dict:
    from ensel.datasets._integrity import code_version

    provenance = results.attrs.get("provenance", {})
    return {"kind": "experiment results", "dataset": str(dataset),
            "key": _dataset_key(dataset), "code": code_version(),
            "provenance": provenance if isinstance(provenance, dict) else str(provenance)}


class ResultsDamagedError(EnselError, RuntimeError):
    """A saved results file failed its checksum check (or cannot be read)."""


def save_results(results: pd.DataFrame, dataset: str | os.PathLike[str],
                 kind: str = "results") -> Path:
    """Write results as Parquet with a checksum record, both atomically; return the path.

    ``kind`` is one of :data:`KINDS`; the evaluations (``results``, ``halves``) are validated
    first (:func:`ensel.experiment.validate_results`), the page's conclusions are tables as
    the page computed them.

    The record (``<path>.integrity.json``, see :mod:`ensel.datasets._integrity`) holds the
    file's SHA-256 and what the results were derived from (dataset, ``ensel`` version and
    ``results.attrs["provenance"]`` when present); :func:`load_results` checks it.
    """
    from ensel.datasets import _integrity

    path = results_path(dataset, kind)
    if kind in _EVALUATIONS:
        validate_results(results)
    return _integrity.write_parquet(results, path,
                                    derived_from=_results_derivation(results, dataset))


def load_results(dataset: str | os.PathLike[str], *,
                 regenerate: Callable[[], pd.DataFrame] | None = None,
                 kind: str = "results") -> pd.DataFrame:
    """Read the results :func:`save_results` wrote for ``dataset``, after checking them.

    Parameters
    ----------
    dataset : str or path
        The name the results were saved under.
    kind : {"results", "halves", "verdicts", "paired", "copula"}, default="results"
        The evaluation, its half-sample replicates, or a conclusion of the page
        (:data:`KINDS`).
    regenerate : callable, optional
        Called (no arguments) to recompute the results when the saved file is damaged,
        truncated or has no checksum record; its output is saved and returned, after a
        one-line notice. Without it such a file raises :class:`ResultsDamagedError`.

    Raises
    ------
    FileNotFoundError
        Naming the expected path (run the experiments notebook for that dataset first).
    ResultsDamagedError
        The file does not match its checksum record (and no ``regenerate`` was given).
    """
    from ensel.datasets import _integrity

    path = results_path(dataset, kind)
    if not path.is_file():
        raise FileNotFoundError(
            f"no saved results for {dataset!r} at {path}; run the experiments notebook with "
            f"dataset={str(dataset)!r} first (ENSEL_RESULTS_DIR selects the folder)"
        )
    data, reason = _integrity.verify(path, derived_from=None)
    record = _integrity.read_record(path)
    if data is not None and record is not None:
        try:
            df = pd.read_parquet(io.BytesIO(data))
            df.attrs["provenance"] = record.get("derived_from", {})
            return df
        except Exception as exc:  # any parse failure means "not usable"
            reason = f"it does not parse as Parquet ({type(exc).__name__})"
    if regenerate is not None:
        from ensel._notice import notice

        notice(f"results file {path} is not usable: {reason}; recomputing it",
               quiet=record is None and not _integrity.record_path(path).exists())
        fresh = regenerate()
        save_results(fresh, dataset, kind)
        return fresh
    raise ResultsDamagedError(
        f"results file {path} is not usable: {reason}. It was not loaded; rerun the "
        f"experiments notebook with dataset={str(dataset)!r} to recompute it"
    )
