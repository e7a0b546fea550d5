"""Input validation shared by every ``ensel`` module.

Every public function that takes answers ``X`` or labels ``y`` goes through these
helpers, so that a bad input always fails with the same clear message: which
argument, which column or position, which value, and what was expected.

Encoding used everywhere in ``ensel``:

* answers ``X``: ``int8`` array of shape ``(n_items, n_models)`` with values in
  ``{-1, 0, +1}``; ``0`` means the model abstained (no parsable answer);
* labels ``y``: ``int8`` array of shape ``(n_items,)`` with values in ``{-1, +1}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "as_pm1",
    "check_X",
    "check_y",
    "check_X_y",
    "check_k",
    "check_random_state",
]

_ABSTAIN_STRINGS = {"", "none", "null", "nan", "abstain"}


def _describe(value: Any) -> str:
    return repr(value.item() if isinstance(value, np.generic) else value)


def as_pm1(values: Any, *, name: str, allow_abstain: bool) -> np.ndarray:
    """Normalise binary values to ``int8`` in ``{-1, +1}`` (and ``0`` for abstentions).

    Accepted encodings: ``{-1, +1}``; ``{0, 1}`` (0 -> -1); booleans; the strings
    ``"True"``/``"False"`` in any case. With ``allow_abstain=True`` the value ``0`` in a
    ``{-1, 0, +1}`` array, ``None``/``NaN`` and empty strings are abstentions (``0``).

    Parameters
    ----------
    values : array-like
        The values to convert (any shape).
    name : str
        Argument name used in error messages.
    allow_abstain : bool
        Whether abstentions are allowed (answers) or not (labels).

    Returns
    -------
    numpy.ndarray
        ``int8`` array of the same shape.

    Raises
    ------
    ValueError
        Naming the first offending value and its position.
    """
    arr = np.asarray(values)
    if arr.dtype == bool:
        return np.where(arr, 1, -1).astype(np.int8)
    if arr.dtype.kind in "iuf":
        if arr.dtype.kind == "f":
            nan = np.isnan(arr)
            if nan.any():
                if not allow_abstain:
                    pos = tuple(int(i) for i in np.argwhere(nan)[0])
                    raise ValueError(
                        f"{name} contains NaN at position {pos}; expected values in {{-1, +1}} "
                        "(missing labels are not allowed)"
                    )
                arr = np.where(nan, 0, arr)
        uniq = np.unique(arr)
        if np.all(np.isin(uniq, (-1, 1))):
            return arr.astype(np.int8)
        if np.all(np.isin(uniq, (-1, 0, 1))) and np.isin(-1, uniq):
            if not allow_abstain:
                pos = tuple(int(i) for i in np.argwhere(arr == 0)[0])
                raise ValueError(
                    f"{name} has value 0 at position {pos} but also -1: mixed {{-1, 0, +1}} "
                    "values are only allowed for answers (0 = abstained), not here"
                )
            return arr.astype(np.int8)
        if np.all(np.isin(uniq, (0, 1))):
            return np.where(arr == 1, 1, -1).astype(np.int8)
        bad = uniq[~np.isin(uniq, (-1, 0, 1))][0]
        pos = tuple(int(i) for i in np.argwhere(arr == bad)[0])
        expected = "{-1, 0, +1}" if allow_abstain else "{-1, +1} or {0, 1}"
        raise ValueError(
            f"{name} has value {_describe(bad)} at position {pos}; expected {expected}, "
            "booleans, or the strings True/False"
        )
    # object / string arrays: map element-wise
    out = np.empty(arr.shape, dtype=np.int8)
    for pos, v in np.ndenumerate(arr):
        if isinstance(v, (bool, np.bool_)):
            out[pos] = 1 if v else -1
            continue
        if v is None or (isinstance(v, float) and np.isnan(v)):
            if allow_abstain:
                out[pos] = 0
                continue
            raise ValueError(f"{name} is missing (None/NaN) at position {pos}; expected -1 or +1")
        if isinstance(v, (int, np.integer, float, np.floating)) and v in (-1, 1):
            out[pos] = int(v)
            continue
        s = str(v).strip().lower()
        if s in ("true", "+1", "1"):
            out[pos] = 1
        elif s in ("false", "-1"):
            out[pos] = -1
        elif allow_abstain and s in _ABSTAIN_STRINGS | {"0"}:
            out[pos] = 0
        else:
            expected = ("True/False, +1/-1 or empty (abstained)" if allow_abstain
                        else "True/False or +1/-1")
            raise ValueError(f"{name} has value {v!r} at position {pos}; expected {expected}")
    return out


def check_X(X: Any, *, name: str = "X", allow_abstain: bool = True) -> np.ndarray:
    """Validate an answer matrix and return it as ``int8`` in ``{-1, 0, +1}``.

    Parameters
    ----------
    X : array-like or pandas.DataFrame of shape (n_items, n_models)
        Model answers. A DataFrame must have unique column names (one per model).
    name : str, default="X"
        Name used in error messages.
    allow_abstain : bool, default=True
        Whether ``0`` (abstained) is allowed.

    Returns
    -------
    numpy.ndarray of shape (n_items, n_models), dtype int8
    """
    if isinstance(X, pd.DataFrame):
        dup = X.columns[X.columns.duplicated()]
        if len(dup):
            raise ValueError(f"{name} has model {dup[0]!r} as a column more than once")
        cols = list(X.columns)
        converted = []
        for col in cols:
            try:
                converted.append(as_pm1(X[col].to_numpy(), name=f"{name} column {col!r}",
                                        allow_abstain=allow_abstain))
            except ValueError as exc:
                raise ValueError(str(exc)) from None
        arr = np.column_stack(converted) if converted else np.empty((len(X), 0), np.int8)
    else:
        raw = np.asarray(X)
        if raw.ndim != 2:
            raise ValueError(
                f"{name} must be 2-dimensional (n_items, n_models); got shape {raw.shape}"
            )
        arr = as_pm1(raw, name=name, allow_abstain=allow_abstain)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional (n_items, n_models); got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one item and one model; got shape {arr.shape}")
    return arr


def check_y(y: Any, *, name: str = "y", n_items: int | None = None,
            require_both_classes: bool = False) -> np.ndarray:
    """Validate labels and return them as ``int8`` in ``{-1, +1}``.

    Parameters
    ----------
    y : array-like of shape (n_items,)
    name : str, default="y"
    n_items : int, optional
        Expected length (the number of rows of ``X``).
    require_both_classes : bool, default=False
        Raise if only one class is present (methods that estimate class statistics).

    Returns
    -------
    numpy.ndarray of shape (n_items,), dtype int8
    """
    raw = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if raw.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional (n_items,); got shape {raw.shape}")
    arr = as_pm1(raw, name=name, allow_abstain=False)
    if n_items is not None and arr.shape[0] != n_items:
        raise ValueError(f"{name} has {arr.shape[0]} labels but X has {n_items} rows")
    if require_both_classes:
        present = np.unique(arr)
        if present.size < 2:
            raise ValueError(
                f"{name} contains only the label {int(present[0]):+d}; this method needs both "
                "classes (-1 and +1) to estimate its statistics"
            )
    return arr


def check_X_y(X: Any, y: Any, *, allow_abstain: bool = True,
              require_both_classes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Validate answers and labels together (shapes must agree)."""
    Xa = check_X(X, allow_abstain=allow_abstain)
    ya = check_y(y, n_items=Xa.shape[0], require_both_classes=require_both_classes)
    return Xa, ya


def check_k(k: Any, n_models: int, *, name: str = "k") -> int:
    """Validate a budget ``1 <= k <= n_models`` and return it as ``int``."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"{name} must be an integer; got {k!r}")
    k = int(k)
    if k < 1:
        raise ValueError(f"{name} must be at least 1; got {k}")
    if k > n_models:
        raise ValueError(f"{name}={k} exceeds the number of models m={n_models}")
    return k


def check_random_state(seed: int | np.random.Generator | None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from a seed, a Generator, or ``None``."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (int, np.integer)):
        return np.random.default_rng(seed)
    raise ValueError(f"random_state must be an int, a numpy Generator or None; got {seed!r}")


def unique_names(names: Sequence[Any], *, what: str = "model") -> list[Any]:
    """Raise if a name appears twice; return the names as a list."""
    seen: set[Any] = set()
    for nm in names:
        if nm in seen:
            raise ValueError(f"{what} name {nm!r} appears more than once")
        seen.add(nm)
    return list(names)
