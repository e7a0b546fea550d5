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

The named datasets are declared in ``data/datasets.yml`` (:data:`DATASETS`, ``ensel datasets
list``); a loaded table's ``attrs`` hold JSON values only, so it saves to Parquet as it is.

Data folder: ``$ENSEL_DATA_DIR`` or the user cache (:func:`ensel.datasets._paths.data_dir`).
The paper's printed tables are in :mod:`ensel.datasets.paper_tables`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pandas as pd

from ensel._errors import ConfigError, DataError, UsageError
from ensel._files import is_table_name
from ensel.datasets import standins as _standins

__all__ = ["DATASETS", "VIEWS", "DatasetSpec", "available", "load", "model_info", "read_data",
           "read_specs", "register_dataset", "unregister_dataset"]


@dataclass(frozen=True)
class DatasetSpec:
    """What ensel knows about one named dataset: its entry of ``data/datasets.yml``
    (``spec_from_entry``), or a spec registered at run time.

    Everything that lists datasets reads :data:`DATASETS`: :func:`load` and :func:`available`
    (``ensel datasets list``), the book's per-dataset runs (:func:`ensel.book.runner.load_runs`
    adds a run of each page in ``pages`` that ``notebooks/runs.yml`` does not list), the
    reproduction report's sources and the tests' parametrisation over the real datasets.

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
        The notebooks run once per dataset that run on it (``notebooks/runs.yml`` lists or
        templates these runs; ``tests/datasets/test_declared_once.py`` checks them).
    registry : str or None
        The download registry (``data/registry/<registry>.csv``: path, size, SHA-256 of each
        upstream file), for a real dataset that is downloaded; ``None`` otherwise.
    family : str or None
        ``"module:function"`` mapping a model name to its family (real datasets).
    upstream : str or None
        The upstream repository (``owner/name``) whose files the registry lists, as the data
        mirror (``$ENSEL_DATA_MIRROR``) holds them.
    available : str or None
        ``"module:function"`` saying (without the network) whether the data can be read here;
        ``None``: always (generated or local data).
    profile_data : mapping or None
        The profile (label, conversion, licence, ...): the dataset's entry of its datasets
        file, or given by a dataset registered at run time; see ``profile``.
    """

    name: str
    kind: str
    description: str
    loader: str
    pages: tuple[str, ...] = ("standins_dataset", "experiments")
    registry: str | None = None
    family: str | None = None
    upstream: str | None = None
    available: str | None = None
    profile_data: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def load(self, **options: Any) -> pd.DataFrame:
        """The tidy table, from ``loader`` with ``options``."""
        fn = _resolve(self.loader)
        return fn(self.name, **options) if self.kind == "stand-in" else fn(**options)

    @property
    def profile(self) -> dict[str, Any]:
        """What the book says about the dataset: ``profile_data``, else its entry of
        ``data/datasets.yml`` (empty when it has none)."""
        if self.profile_data is not None:
            return dict(self.profile_data)
        return dict(_profile_file().get(self.name) or {})

    def family_of(self, model: str) -> str | None:
        """The family of ``model`` by the ``family`` function (``None`` without one)."""
        return None if self.family is None else str(_resolve(self.family)(model))

    def is_available(self) -> bool:
        """Whether the data can be read here without the network (``available``)."""
        return True if self.available is None else bool(_resolve(self.available)())


def _resolve(target: str) -> Any:
    """The object named by ``"module:attribute"``."""
    import importlib

    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _profile_file() -> dict[str, dict[str, Any]]:
    """``data/datasets.yml``'s entries, name -> profile (read once)."""
    from ensel.datasets._paths import declarations

    return declarations()


_DOWNLOADED = "(downloaded, SHA-256 checked)"
_FIELDS = ("loader", "registry", "family", "upstream", "available")


def spec_from_entry(name: str, entry: Mapping[str, Any]) -> DatasetSpec:
    """The :class:`DatasetSpec` of one entry of a datasets file (``data/datasets.yml``; its
    header lists the keys): a stand-in is loaded by :func:`ensel.datasets.standins.load`; a
    real dataset with an ``upstream`` defaults to the module ``ensel.datasets.<name>``
    (``load``, ``is_available``, ``family``) and the registry ``data/registry/<name>.csv``;
    any of them may be given (``null``: none). The entry is also its profile."""
    kind = entry.get("kind")
    defaults: dict[str, Any] = {}
    if kind == "stand-in":
        defaults = {"loader": "ensel.datasets.standins:load"}
    elif entry.get("upstream"):
        module = f"ensel.datasets.{name}"
        defaults = {"loader": f"{module}:load", "available": f"{module}:is_available",
                    "family": f"{module}:family", "registry": name}
    fields = {k: entry.get(k, defaults.get(k)) for k in _FIELDS}
    extra = {"pages": tuple(map(str, entry["pages"]))} if "pages" in entry else {}
    registry = fields["registry"]
    description = str(entry.get("description") or "")
    return DatasetSpec(name, str(kind), f"{description} {_DOWNLOADED}" if registry else description,
                       str(fields["loader"] or ""), **extra, registry=registry,
                       family=fields["family"], upstream=fields["upstream"],
                       available=fields["available"], profile_data=dict(entry))


def read_specs(path: str | os.PathLike[str] | None = None) -> list[DatasetSpec]:
    """The datasets declared in a datasets file (default ``data/datasets.yml``, from which
    :data:`DATASETS` is made), in file order.

    Raises
    ------
    ConfigError
        An entry without a description, kind or loader (the message names file and entry).

    Examples
    --------
    >>> [s.name for s in read_specs()] == list(DATASETS)
    True
    """
    from ensel.datasets._paths import declarations, package_data

    specs = [spec_from_entry(n, e) for n, e in declarations(path).items()]
    for spec in specs:
        problem = _problem(spec)
        if problem:
            raise ConfigError(f"{path or package_data('datasets.yml')}: {problem}")
    return specs


def _problem(spec: DatasetSpec) -> str | None:
    """What is wrong with a declaration (``None``: nothing)."""
    if spec.kind not in ("stand-in", "real"):
        return f"dataset {spec.name!r}: kind must be 'stand-in' or 'real', got {spec.kind!r}"
    if not spec.description:
        return f"dataset {spec.name!r}: needs a one-line description"
    for what in ("loader", "family", "available"):
        target = getattr(spec, what)
        if (target is not None or what == "loader") and ":" not in str(target or ""):
            return f"dataset {spec.name!r}: {what} must be 'module:function', got {target!r}"
    return None


def register_dataset(spec: DatasetSpec) -> DatasetSpec:
    """Declare one more named dataset (a plug-in, or a test's toy dataset).

    It is then loaded by :func:`load`, listed by ``ensel datasets list``, run by the book's
    per-dataset pages (``DatasetSpec.pages``) and reported by the reproduction report.

    Raises
    ------
    ValueError
        The name is already declared, or the kind or loader is malformed.
    """
    if spec.name in DATASETS:
        raise UsageError(f"dataset {spec.name!r} is already declared")
    problem = _problem(spec)
    if problem:
        raise UsageError(problem)
    DATASETS[spec.name] = spec
    _DESCRIPTIONS[spec.name] = (spec.kind, spec.description)
    return spec


#: Every named dataset, name -> :class:`DatasetSpec`: the entries of ``data/datasets.yml``
#: (:func:`read_specs`), in its order; add one with :func:`register_dataset`.
DATASETS: dict[str, DatasetSpec] = {}
# name -> (kind, description), read by the importers and the command line
_DESCRIPTIONS: dict[str, tuple[str, str]] = {}
for _spec in read_specs():
    register_dataset(_spec)


def unregister_dataset(name: str) -> None:
    """Remove a dataset added by :func:`register_dataset` (tests clean up with it)."""
    DATASETS.pop(name, None)
    _DESCRIPTIONS.pop(name, None)


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
    return is_table_name(name) or os.sep in name or "/" in name


def unknown_dataset(name: str, known: list[str] | None = None, *, files: bool = True) -> str:
    """The one message for a dataset name that is not known (with the closest known name)."""
    import difflib

    known = list(_DESCRIPTIONS) if known is None else known
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    tail = " (or the path of an existing data file)" if files else ""
    return f"unknown dataset {name!r}{hint}; known: {', '.join(known)}{tail}"


#: The views :func:`load` gives: the paper's binary queries, or the answers as they are.
VIEWS = ("binary", "native")


def load(name: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *,
         format: str | None = None, view: str = "binary", **options: Any) -> pd.DataFrame:
    """Load a dataset as a tidy table ``item, model, condition, answer, label``.

    Parameters
    ----------
    name : str or path
        ``"medmcqa"``, ``"mmlu"``, ``"imdb"`` (stand-ins; options ``seed=0``,
        ``n_items=None``, ``cache=True``, ``variant="class-asymmetric"``,
        ``family_scale=1``, see :func:`ensel.datasets.standins.load`),
        ``"mmlu_pro"``, ``"mmlu_redux"``, ``"llmbar"`` (options of the ``load`` function of
        :mod:`ensel.datasets.mmlu_pro`, :mod:`~ensel.datasets.mmlu_redux` and
        :mod:`~ensel.datasets.llmbar`), the path of a
        CSV/Parquet tidy table (option ``validate=True``), or the path(s) of files in one
        of the importer formats (:data:`ensel.datasets.importers.FORMATS`).
    format : str, optional
        Read the file(s) in this importer format (``"tidy"``, ``"wide"``, ``"lm-eval"``,
        ``"mmlu-pro"``; options of :func:`ensel.datasets.importers.read`). Without it a
        ``.csv``/``.parquet`` path is a tidy table and other files are detected.
    view : {"binary", "native"}, default="binary"
        ``"binary"`` (what the book's pages that follow the paper read): multiple-choice
        answers as the paper's binary queries (:func:`ensel.datasets.binary.to_binary_view`;
        the real sources' own loaders draw the same queries). ``"native"``: the answers as
        they are, option labels with an ``options`` column per item
        (:func:`ensel.data.is_native`): ``mmlu_pro`` and ``mmlu_redux`` give the letters,
        ``llmbar`` the better output's number (``"1"``/``"2"``); the stand-ins and binary
        tables are binary by nature and come back unchanged.
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
    from ensel._validation import check_option

    check_option(view, "view", VIEWS)
    if isinstance(name, str) and name in DATASETS and format is None:
        spec = DATASETS[name]
        if view == "native" and spec.kind == "real":
            import inspect

            if "view" not in inspect.signature(_resolve(spec.loader)).parameters:
                raise UsageError(f"dataset {name!r} has no native view (its loader "
                                 f"{spec.loader} takes no view); load it with view='binary'")
            return spec.load(view="native", **options)
        return spec.load(**options)  # stand-ins: binary by nature
    several = isinstance(name, (list, tuple))
    # one path unless a list or tuple (with no format, anything else fails in Path() as before)
    one = cast("str | os.PathLike[str]", name)
    if format is not None or several or (
            Path(one).is_file() and not is_table_name(one)):
        from ensel.datasets.importers import read

        paths = list(name) if isinstance(name, (list, tuple)) else name
        return read(paths, format=format, view=view, **options)
    if _looks_like_path(one) or Path(one).exists():
        from ensel.data import read_responses

        df = read_responses(name, **options)
        if options.get("validate", True):
            _require_two_models(df, str(name))
            if view == "binary":
                from ensel.datasets.binary import to_binary_view

                df = to_binary_view(df, validate=False)
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


def read_data(data: str | Path | Sequence[str | Path], *, format: str | None = None,
              view: str | None = None, **options: Any) -> pd.DataFrame:
    """A dataset name of :func:`load` or input file(s) (see
    :func:`ensel.datasets.importers.read`).

    ``view`` as in :func:`ensel.datasets.importers.read` (a name: ``None`` is ``"binary"``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("item,model,answer,label\\n1,a,1,1\\n1,b,-1,1\\n")
    >>> read_data(p)["model"].tolist()
    ['a', 'b']
    """
    from ensel.datasets.importers import read

    # '-' goes to read(), which says that standard input is not read
    if isinstance(data, str) and data != "-" and format is None and not Path(data).exists():
        if data in _DESCRIPTIONS:
            return load(data, view=view or "binary")
        if not Path(data).suffix and "/" not in data and "\\" not in data:  # a name, no file
            raise DataError(f"{unknown_dataset(data)}; no file {data!r} exists in {Path.cwd()}")
    return read(data, format=format, view=view, **options)
