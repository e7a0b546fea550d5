"""Input validation shared by every ``ensel`` module.

Every public function that takes answers ``X`` or labels ``y`` goes through these
helpers, so that a bad input always fails with the same clear message: which
argument, which column or position, which value, and what was expected.

Encoding used everywhere in ``ensel``:

* answers ``X``: ``int8`` array of shape ``(n_items, n_models)`` with values in
  ``{-1, 0, +1}``; ``0`` means the model abstained (no parsable answer);
* labels ``y``: ``int8`` array of shape ``(n_items,)`` with values in ``{-1, +1}``.

What users may pass is read by the one rule of :mod:`ensel._encoding` (the whole table at
once, identically for numpy arrays, DataFrames, CSV and Parquet files).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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

def _describe(value: Any) -> str:
    return repr(value.item() if isinstance(value, np.generic) else value)


def _at_position(pos: tuple[int, ...]) -> str:
    return f"at position {pos}"


def as_pm1(values: Any, *, name: str, allow_abstain: bool,
           where: Callable[[tuple[int, ...]], str] | None = None,
           report: dict[str, str] | None = None) -> np.ndarray:
    """Normalise answers or labels to ``int8`` in ``{-1, +1}`` (and ``0`` for abstentions).

    Applies the one encoding rule of :mod:`ensel._encoding` to the **whole** array: blank /
    ``NaN`` / ``None`` = abstained (answers only); ``True``/``False`` and ``+1``/``-1``;
    ``0`` = abstained when the array also holds ``-1``; ``1``/``0`` = True/False only when the
    array holds nothing but ``0`` and ``1``; ambiguous mixtures (``0``/``1`` with blanks,
    ``True``/``False`` with ``0``) are refused with a message that says how to encode them.

    Parameters
    ----------
    values : array-like or pandas.DataFrame
        The values to convert (any shape; a DataFrame is taken as a whole, column by column
        for the cell types but with one decision for all columns).
    name : str
        Argument name used in error messages.
    allow_abstain : bool
        Whether abstentions are allowed (answers) or not (labels).
    where : callable, optional
        Turns a position tuple into text for messages (default ``"at position (i, j)"``).
    report : dict, optional
        Receives ``report["encoding"]``: the name of the encoding that was applied.

    Returns
    -------
    numpy.ndarray
        ``int8`` array of the same shape.

    Raises
    ------
    ValueError
        Naming the first offending value and its position.
    """
    from ensel import _encoding as enc

    where = where or _at_position
    if isinstance(values, pd.DataFrame):
        raw = values.to_numpy(dtype=object)
        kinds = (np.column_stack([enc.classify(values.iloc[:, j]) for j in range(values.shape[1])])
                 if values.shape[1] else np.empty(values.shape, np.int8))
    else:
        raw = np.asarray(values)
        kinds = enc.classify(raw)
    bad = kinds == enc.BAD
    if bad.any():
        pos = tuple(int(i) for i in np.argwhere(bad)[0])
        expected = ("+1/-1, True/False, 1/0 (whole table), or blank (abstained)"
                    if allow_abstain else "+1/-1, 1/0 or True/False")
        raise ValueError(
            f"{name} has value {_describe(raw[pos])} {where(pos)}; expected {expected}"
        )
    if not allow_abstain:
        blank = kinds == enc.BLANK
        if blank.any():
            pos = tuple(int(i) for i in np.argwhere(blank)[0])
            raise ValueError(
                f"{name} is missing (blank, NaN or None) {where(pos)}; expected -1/+1, 1/0 "
                "or True/False (missing labels are not allowed)"
            )
    try:
        out, used = enc.decide(kinds, allow_abstain=allow_abstain)
    except enc._Ambiguous as exc:
        pos = tuple(int(i) for i in np.argwhere(kinds == exc.kind)[0])
        raise ValueError(f"{name} " + exc.reason.format(at=where(pos))) from None
    if report is not None:
        report["encoding"] = used
    if allow_abstain and used.startswith("1/0"):
        enc.notice_zero_one(name)
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

        def where(pos: tuple[int, ...]) -> str:
            return f"in column {cols[pos[1]]!r}, row {pos[0]}"

        # one decision for the whole table, exactly as for the same values in a numpy array
        arr = as_pm1(X, name=name, allow_abstain=allow_abstain, where=where)
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
