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

import os
import warnings
from pathlib import Path
from types import ModuleType

__all__ = ["data_dir"]

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
        path.mkdir(parents=True, exist_ok=True)
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
