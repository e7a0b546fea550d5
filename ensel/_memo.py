"""Results remembered by content (private): the one key and the one bounded store of the
library's memos.

A memo answers a computation made again on the same content with the first one's result,
bit for bit: the pick paths of nested selectors (:mod:`ensel._picks`), the last Dawid-Skene
fits (:mod:`ensel.aggregate._dawid_skene`) and the last few-labels analyses
(:mod:`ensel.fewlabels._choose`). Each keys its entries with :func:`content_key` and keeps
them in a :class:`Recent`.

Examples
--------
>>> import numpy as np
>>> a = np.arange(6).reshape(2, 3)
>>> content_key("fit", a) == content_key("fit", a.copy())
True
>>> content_key("fit", a) == content_key("fit", a.astype(np.int32))  # dtype counts
False
>>> seen = Recent(2)
>>> seen.put("x", 1); seen.put("y", 2); seen.put("z", 3)
>>> seen.get("x"), seen.get("z")
(None, 3)
"""

from __future__ import annotations

import hashlib
from typing import Generic, TypeVar

import numpy as np

__all__ = ["Recent", "content_key"]

V = TypeVar("V")


def content_key(*parts: object) -> str:
    """A SHA-256 (hex) of ``parts``: an array by its dtype, shape and bytes, ``None`` as
    such, anything else by its ``repr``; each part is closed, so no two sequences of parts
    run together into the same bytes."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            a = np.ascontiguousarray(part)
            h.update(f"array {a.dtype.str} {a.shape}\0".encode())
            h.update(a.tobytes())
        elif part is None:
            h.update(b"none\0")
        else:
            text = part if isinstance(part, str) else repr(part)
            h.update(f"{type(part).__name__} {len(text)}\0{text}".encode())
    return h.hexdigest()


class Recent(Generic[V]):
    """At most ``size`` values by key; when full, the oldest one added goes first.

    Threads may race on a full store (two drop the same oldest entry, or one too many
    stays): harmless, a memo only saves work.
    """

    def __init__(self, size: int) -> None:
        self.size = int(size)
        self._values: dict[str, V] = {}

    def get(self, key: str) -> V | None:
        """The value kept under ``key``, else ``None``."""
        return self._values.get(key)

    def put(self, key: str, value: V) -> None:
        """Keep ``value`` under ``key`` (the oldest entry goes when the store is full)."""
        if key not in self._values and len(self._values) >= self.size:
            self._values.pop(next(iter(self._values), ""), None)
        self._values[key] = value

    def clear(self) -> None:
        """Forget every value."""
        self._values.clear()

    def __len__(self) -> int:
        return len(self._values)
