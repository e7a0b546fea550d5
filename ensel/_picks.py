"""The pick paths of nested selectors, remembered by content (private).

A nested selector (:attr:`ensel.select.SelectorSpec.nested`) fitted at budget ``K`` on a
training part picks, as its first ``k`` models, exactly what it picks fitted at ``k``: the
evaluation loop (:func:`ensel.experiment.heldout_errors`) fits it once at its largest budget
and reads prefixes. The same training part is often evaluated more than once: by several
calls of one page (a gold and a label-free run of the same selector) and by several pages
of the book (the experiments pages and the large-pool page run Top-k and Greedy MI on the
same seeded splits of the same data). :func:`nested_path` fits once per distinct content
and budget-or-more and returns the same picks, bit for bit, as a new fit.

Two layers, both keyed by a SHA-256 of the training answers and labels (shape, dtype and
bytes), the selector registry and the selector's name (``ensel._memo.content_key``):

* in this process, a bounded store (``ensel._memo.Recent``);
* on disk, when ``$ENSEL_PICKS_DIR`` names a folder (the book's runner sets it to
  ``<out_dir>/.cache/picks/<digest>`` for every kernel, with ``$ENSEL_PICKS_KEY`` the digest
  of ensel's sources and data, so a change of the code never reads an old path, and removes
  the other versions' folders when a build starts): one small ``.npy`` per key, written
  by :func:`ensel._io.write_atomic` without its lock (every writer of a key writes the same
  bytes), so parallel runs share it safely. ``make book FORCE=1`` empties it first.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ensel._memo import Recent, content_key

#: Environment variables of the disk layer (set by :mod:`ensel.book.runner` for a build).
DIR_VARIABLE = "ENSEL_PICKS_DIR"
KEY_VARIABLE = "ENSEL_PICKS_KEY"
#: Paths kept in this process (a path is a few integers; the oldest go first).
_MEMORY: Recent[np.ndarray] = Recent(50_000)


def _folder() -> Path | None:
    where = os.environ.get(DIR_VARIABLE, "").strip()
    return Path(where) if where else None


def _read(key: str) -> np.ndarray | None:
    found = _MEMORY.get(key)
    if found is not None:
        return found
    folder = _folder()
    if folder is None:
        return None
    try:
        found = np.load(folder / f"{key}.npy", allow_pickle=False)
    except (OSError, ValueError):  # absent, or half-written by a run that was stopped
        return None
    _MEMORY.put(key, found)
    return found


def _write(key: str, value: np.ndarray) -> None:
    _MEMORY.put(key, value)
    folder = _folder()
    if folder is None:
        return
    from ensel._io import write_atomic

    # every writer of a key writes the same bytes: no lock, the last rename wins
    try:
        write_atomic(folder / f"{key}.npy", lambda tmp: np.save(tmp, value, allow_pickle=False),
                     lock=False)
    except OSError:  # a read-only or full disk costs a later run a fit, nothing else
        pass


def nested_path(registry: str, selector: str, X: np.ndarray, y: np.ndarray, budget: int,
                fit: Callable[[int], list[int]]) -> list[int]:
    """The picks of ``selector`` (nested) fitted at ``budget`` on ``(X, y)``: remembered
    ones when a fit at ``budget`` or more on the same content was made (its first picks),
    else ``fit(budget)`` (remembered with its budget).

    Stored as ``[budget, pick, pick, ...]``; a fit may return fewer picks than its budget.
    """
    key = content_key(os.environ.get(KEY_VARIABLE, ""), registry, selector, X, y)
    found = _read(key)
    if found is not None and int(found[0]) >= budget:
        return [int(j) for j in found[1:budget + 1]]
    path = [int(j) for j in fit(budget)]
    _write(key, np.asarray([budget, *path], dtype=np.int64))
    return path


def prune(folder: Path, keep: str | None) -> None:
    """Remove the subfolders of ``folder`` (one per version of the code, see
    ``ensel.book.runner._execute.picks_dir``) but ``keep`` (``None``: all of them; a
    forced build starts cold), so old versions' paths do not pile up."""
    import shutil

    if folder.is_dir():
        for sub in folder.iterdir():
            if sub.name == keep:
                continue
            if sub.is_dir():
                shutil.rmtree(sub, ignore_errors=True)
            else:
                sub.unlink(missing_ok=True)
