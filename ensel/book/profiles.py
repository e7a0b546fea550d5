"""Dataset profiles: what the book says about each dataset, from one data file.

``data/datasets.yml`` holds one profile per dataset (label, stand-in or real, the paper's
table, the selection condition, models, families, conditions, conversion, items, licence,
url, card page); a dataset registered at run time (:func:`ensel.datasets.register_dataset`)
may bring its own. :func:`profile` is the one reader; the pages and the book layer ask it
instead of testing dataset names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["is_real", "is_standin", "label", "names", "profile"]


def _profiles() -> dict[str, dict[str, Any]]:
    """Every profile: ``data/datasets.yml``'s, then those of datasets registered at run time
    with their own (:attr:`ensel.datasets.DatasetSpec.profile`)."""
    from ensel.datasets import DATASETS, _profile_file

    out = dict(_profile_file())
    for name, spec in DATASETS.items():
        if name not in out and spec.profile:
            out[name] = spec.profile
    return out


def names(kind: str | None = None) -> list[str]:
    """Dataset names with a profile (of one ``kind``: ``"stand-in"`` or ``"real"``).

    Examples
    --------
    >>> names("stand-in")
    ['medmcqa', 'mmlu', 'imdb']
    """
    return [n for n, p in _profiles().items() if kind is None or p["kind"] == kind]


def profile(name: Any) -> dict[str, Any]:
    """The profile of dataset ``name``; a user's file gets ``{"label": <file name>, "kind":
    "user"}``.

    Examples
    --------
    >>> profile("llmbar")["licence"]
    'MIT'
    >>> profile("answers/my_table.csv")["label"]
    'my_table.csv'
    """
    p = _profiles().get(str(name))
    if p is None:
        return {"label": Path(str(name)).name, "kind": "user"}
    return dict(p)


def label(name: Any) -> str:
    """Display name (``"MMLU-Redux"``; a user's file: its name)."""
    return str(profile(name)["label"])


def is_standin(name: Any) -> bool:
    """Whether ``name`` is a paper-calibrated stand-in."""
    return profile(name)["kind"] == "stand-in"


def is_real(name: Any) -> bool:
    """Whether ``name`` is a source of real published LLM answers."""
    return profile(name)["kind"] == "real"
