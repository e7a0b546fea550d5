"""Where ``ensel`` keeps generated and downloaded data (one function, used everywhere).

The data folder is, in order of precedence:

1. the environment variable ``ENSEL_DATA_DIR`` when it is set and non-empty;
2. the operating system's user cache folder for ``ensel`` (``pooch.os_cache("ensel")``:
   ``~/.cache/ensel`` on Linux, ``~/Library/Caches/ensel`` on macOS,
   ``%LOCALAPPDATA%\\ensel\\Cache`` on Windows).

Both the paper-calibrated stand-ins (Parquet caches) and the MMLU-Pro downloads live
below this folder, each in its own sub-folder.
"""

from __future__ import annotations

import importlib
import os
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["data_dir", "declarations", "package_data"]

ENV_VAR = "ENSEL_DATA_DIR"


def data_dir(*parts: str, create: bool = True) -> Path:
    """Return the ``ensel`` data folder, or a sub-folder of it.

    Parameters
    ----------
    *parts : str
        Optional sub-folder names joined below the data folder (``data_dir("standins")``).
    create : bool, default=True
        Create the folder (and its parents) when it does not exist.

    Returns
    -------
    pathlib.Path
        Absolute path of the folder.
    """
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        base = Path(env).expanduser()
    else:
        base = Path(import_pooch().os_cache("ensel"))
    path = base.joinpath(*parts).resolve()
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            from ensel.data import DataError

            where = f"{ENV_VAR}={env!r}" if env else f"the cache folder {str(base)!r}"
            why = ("a file is in the way" if isinstance(exc, (FileExistsError,
                                                              NotADirectoryError))
                   else exc.strerror or type(exc).__name__)
            raise DataError(f"cannot use {where} as the data folder: cannot create "
                            f"{str(path)!r} ({why}); point {ENV_VAR} at a folder you can "
                            "write to") from None
    return path


def import_pooch() -> ModuleType:
    """Import pooch without tqdm's notebook warning.

    pooch imports ``tqdm.auto``, which inside a Jupyter kernel without ipywidgets warns
    ("IProgress not found"); the book's notebooks must print no warnings, and text progress
    bars are what we want anyway.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        import pooch
    return pooch


def package_data(*parts: str) -> Path:
    """Path of a file or folder shipped with ``ensel`` (the repository's top-level ``data/``).

    The files live in ``data/`` at the top of the repository, where readers look for them;
    the build backend ships that folder inside the wheel as the package ``ensel._data``
    (``pyproject.toml``), and this function finds it through the import system. In a
    source checkout installed in editable mode, ``ensel._data`` is not importable and the
    checkout's ``data/`` folder is used directly.

    Parameters
    ----------
    *parts : str
        Path components below ``data/`` (``package_data("paper", "datasets.csv")``);
        ``package_data("notebooks", ...)`` is the repository's top-level ``notebooks/``
        folder (the pages' jupytext sources and ``runs.yml``, shipped in the wheel as
        ``ensel._data.notebooks``).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> package_data("registry", "mmlu_pro.csv").name
    'mmlu_pro.csv'
    >>> package_data("notebooks", "experiments.py").is_file()
    True
    """
    try:
        # a namespace package (data/ has no __init__.py): its one folder on the path
        root = Path(next(iter(importlib.import_module("ensel._data").__path__)))
    except ModuleNotFoundError:
        root = Path(__file__).resolve().parents[2] / "data"
        if parts[:1] == ("notebooks",):  # top-level notebooks/, ensel._data.notebooks in a wheel
            root = root.parent
    return root.joinpath(*parts)


def declarations(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """The entries of a datasets file, name -> entry (declaration and profile), in file order:
    ``data/datasets.yml`` (read once) unless ``path`` names another file of that layout.

    Examples
    --------
    >>> declarations()["llmbar"]["kind"]
    'real'
    """
    if path is None:
        return _shipped_declarations()
    return _read_declarations(Path(path))


@cache
def _shipped_declarations() -> dict[str, dict[str, Any]]:
    return _read_declarations(package_data("datasets.yml"))


def _read_declarations(path: Path) -> dict[str, dict[str, Any]]:
    import yaml

    from ensel._errors import ConfigError

    with open(path, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    entries = doc.get("datasets") if isinstance(doc, dict) else None
    if not isinstance(entries, dict) or not all(isinstance(e, dict) for e in entries.values()):
        raise ConfigError(f"{path}: expected a top-level 'datasets:' mapping of name -> entry")
    return {str(name): dict(entry) for name, entry in entries.items()}
