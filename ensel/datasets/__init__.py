"""Datasets: paper-calibrated stand-ins, real MMLU-Pro outputs, or your own tidy table.

:func:`load` is the single entry point; every dataset comes back as the tidy table of
:mod:`ensel.data` (``item, model, condition, answer, label``).

==============  ===========================================================================
name            what
==============  ===========================================================================
``medmcqa``     paper-calibrated stand-in (:mod:`ensel.datasets.standins`)
``mmlu``        paper-calibrated stand-in
``imdb``        paper-calibrated stand-in
``mmlu_pro``    real public LLM outputs (:mod:`ensel.datasets.mmlu_pro`, downloaded and
                SHA-256 checked, or read from ``$ENSEL_DATA_MIRROR``)
``mmlu_redux``  real: HELM's MMLU answers of 10 models, MMLU-Redux verified gold
                (:mod:`ensel.datasets.mmlu_redux`, downloaded like ``mmlu_pro``)
``llmbar``      real: LLMBar's judges x prompting strategies, natively binary
                (:mod:`ensel.datasets.llmbar`, downloaded like ``mmlu_pro``)
a file path     your own tidy table, ``.csv``/``.csv.gz``/``.parquet``/``.pq``
                (validated with :func:`ensel.data.validate_responses`)
==============  ===========================================================================

Data folder: ``$ENSEL_DATA_DIR`` or the user cache (:func:`ensel.datasets._paths.data_dir`).
The paper's printed tables are in :mod:`ensel.datasets.paper_tables`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ensel._errors import DataError, UsageError
from ensel.datasets import standins as _standins

__all__ = ["DATASETS", "DatasetSpec", "available", "load", "model_info"]


@dataclass(frozen=True)
class DatasetSpec:
    """What ensel knows about one named dataset: the one declaration of it.

    Parameters
    ----------
    name : str
        The name :func:`load` accepts (``ensel datasets list``, ``ensel select NAME``).
    kind : str
        ``"stand-in"`` (simulated, calibrated to the paper) or ``"real"`` (downloaded).
    description : str
        One line for ``ensel datasets list``.
    loader : str
        ``"module:function"`` returning the tidy table; a stand-in's loader takes its
        name first.
    pages : tuple of str
        The notebooks run once per dataset that run on it (``notebooks/runs.yml`` is checked
        against this by ``tests/datasets/test_declared_once.py``).
    """

    name: str
    kind: str
    description: str
    loader: str
    pages: tuple[str, ...] = ("standins_dataset", "experiments")

    def load(self, **options: Any) -> pd.DataFrame:
        """The tidy table, from :attr:`loader` with ``options``."""
        import importlib

        module, _, func = self.loader.partition(":")
        fn = getattr(importlib.import_module(module), func)
        return fn(self.name, **options) if self.kind == "stand-in" else fn(**options)


_DOWNLOADED = "(downloaded, SHA-256 checked)"
_REAL_PAGES = ("realdata_card", "experiments", "mmlu_pro_modelling")

#: Every named dataset, name -> :class:`DatasetSpec`.
DATASETS: dict[str, DatasetSpec] = {s.name: s for s in (
    *(DatasetSpec(name, "stand-in", desc, "ensel.datasets.standins:load")
      for name, desc in _standins.NAMES.items()),
    DatasetSpec("mmlu_pro", "real", "MMLU-Pro published per-question LLM outputs as binary "
                f"queries {_DOWNLOADED}", "ensel.datasets.mmlu_pro:load",
                ("experiments", "mmlu_pro_modelling")),
    DatasetSpec("mmlu_redux", "real", "HELM's 5-shot MMLU answers of 10 models graded with the "
                f"MMLU-Redux verified gold, as binary queries {_DOWNLOADED}",
                "ensel.datasets.mmlu_redux:load", _REAL_PAGES),
    DatasetSpec("llmbar", "real", "LLMBar: 6 LLM judges x 3 prompting strategies choosing the "
                f"better output, natively binary {_DOWNLOADED}", "ensel.datasets.llmbar:load",
                _REAL_PAGES),
)}

# name -> (kind, description), read by the importers and the command line
_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    name: (spec.kind, spec.description) for name, spec in DATASETS.items()}
_FILE_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


def available() -> pd.DataFrame:
    """Dataset names accepted by :func:`load`.

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``kind`` (``stand-in`` or ``real``) and ``description``.
    """
    return pd.DataFrame(
        [(name, kind, desc) for name, (kind, desc) in _DESCRIPTIONS.items()],
        columns=["name", "kind", "description"],
    )


def _looks_like_path(name: str | os.PathLike[str]) -> bool:
    if isinstance(name, os.PathLike):
        return True
    return name.lower().endswith(_FILE_SUFFIXES) or os.sep in name or "/" in name


def unknown_dataset(name: str, known: list[str] | None = None, *, files: bool = True) -> str:
    """The one message for a dataset name that is not known (with the closest known name)."""
    import difflib

    known = list(_DESCRIPTIONS) if known is None else known
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    tail = " (or the path of an existing data file)" if files else ""
    return f"unknown dataset {name!r}{hint}; known: {', '.join(known)}{tail}"


def load(name: str | os.PathLike[str], **options: Any) -> pd.DataFrame:
    """Load a dataset as a tidy table ``item, model, condition, answer, label``.

    Parameters
    ----------
    name : str or path
        ``"medmcqa"``, ``"mmlu"``, ``"imdb"`` (stand-ins; options ``seed=0``,
        ``n_items=None``, ``cache=True``, see :func:`ensel.datasets.standins.load`),
        ``"mmlu_pro"``, ``"mmlu_redux"``, ``"llmbar"`` (options of the ``load`` function of
        :mod:`ensel.datasets.mmlu_pro`, :mod:`~ensel.datasets.mmlu_redux` and
        :mod:`~ensel.datasets.llmbar`), or the path of a
        CSV/Parquet tidy table (option ``validate=True``).
    **options
        Passed to the loader.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        Unknown name (the message lists the valid ones) or invalid options/table.
    FileNotFoundError
        A path that does not exist (a relative path is taken from the current folder).
    IsADirectoryError
        A path that is a folder.

    Examples
    --------
    >>> df = load("imdb", n_items=100, cache=False)
    >>> list(df.columns)
    ['item', 'model', 'condition', 'answer', 'label']
    >>> df["model"].nunique(), df["condition"].nunique()
    (12, 6)
    """
    if isinstance(name, str) and name in DATASETS:
        return DATASETS[name].load(**options)
    if isinstance(name, (str, os.PathLike)) and (_looks_like_path(name) or Path(name).exists()):
        from ensel.data import read_responses

        df = read_responses(name, **options)
        if options.get("validate", True):
            _require_two_models(df, str(name))
        return df
    raise UsageError(unknown_dataset(str(name)))


def _require_two_models(df: pd.DataFrame, shown: str) -> None:
    """A dataset for ensemble selection needs at least 2 models in every condition."""
    per_condition = df.groupby("condition", sort=False, observed=True)["model"].nunique()
    few = per_condition[per_condition < 2]
    if len(few):
        cond = few.index[0]
        models = sorted(map(str, df.loc[df["condition"] == cond, "model"].unique()))
        where = "" if len(per_condition) == 1 else f" (condition {cond!r})"
        raise DataError(
            f"{shown!r} needs at least 2 models to select an ensemble from; it has "
            f"{len(models)}{where}: {', '.join(map(repr, models))}"
        )


def model_info(name: str) -> pd.DataFrame:
    """Model pool of a stand-in (paper table + family + fitted loading).

    See :func:`ensel.datasets.standins.model_info`.
    """
    if name not in _standins.NAMES:
        raise UsageError(
            f"model_info is available for the stand-ins {sorted(_standins.NAMES)}; got {name!r}"
        )
    return _standins.model_info(name)
