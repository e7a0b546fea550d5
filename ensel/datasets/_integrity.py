"""Verified derived files: atomic writes, a checksum record beside each file, checked reads.

Every file ``ensel`` derives and later reads back (the converted MMLU-Pro tables, the
stand-in tables, the experiment results) is written with :func:`write_parquet`:

1. the table is serialised in memory and written **atomically**: a temporary file in the
   same folder, ``fsync``, then ``os.replace`` (a reader sees the old file or the new one,
   never half of one);
2. then, atomically too, a small JSON *record* beside it, ``<file>.integrity.json``::

       {"format": 1, "file": "<name>", "size": <bytes>, "sha256": "<hex of the bytes>",
        "derived_from": {...inputs, parameters, code version...},
        "derived_from_sha256": "<hex of the canonical JSON of derived_from>"}

:func:`read_parquet` returns the table only when the record is readable, names the file,
was derived from exactly what the caller expects now, and the file's bytes have the recorded
size and SHA-256; the table is parsed from those same verified bytes. Otherwise it says why
in a one-line notice (:func:`ensel._notice.notice`, not a Python warning) and returns
``None``: the caller rebuilds the file from its verified sources. A crash between the two
writes leaves a new file with an old record: a mismatch, hence a rebuild, never a bad load.
A file without any record (written before records existed) is replaced too, with the notice
at level INFO only, so that upgrading ``ensel`` does not print a line on every page.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from ensel._notice import notice

__all__ = [
    "RECORD_SUFFIX",
    "atomic_write_bytes",
    "code_version",
    "read_parquet",
    "read_record",
    "record_path",
    "verify",
    "write_parquet",
]

RECORD_SUFFIX = ".integrity.json"
_FORMAT = 1


def code_version() -> str:
    """The ``ensel`` version, part of every ``derived_from``."""
    from ensel import __version__

    return __version__


def record_path(path: str | os.PathLike[str]) -> Path:
    """The checksum record of ``path`` (``<path>.integrity.json``)."""
    p = Path(path)
    return p.with_name(p.name + RECORD_SUFFIX)


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, fsync, rename)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    try:  # make the rename itself durable (not possible on every platform)
        dfd = os.open(p.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def write_parquet(df: pd.DataFrame, path: str | os.PathLike[str], *,
                  derived_from: dict[str, Any]) -> Path:
    """Write ``df`` as Parquet and its checksum record, both atomically; return ``path``."""
    p = Path(path)
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    data = buf.getvalue()
    atomic_write_bytes(p, data)
    record = {
        "format": _FORMAT,
        "file": p.name,
        "size": len(data),
        "sha256": _digest(data),
        "derived_from": json.loads(_canonical(derived_from)),
        "derived_from_sha256": _digest(_canonical(derived_from).encode()),
    }
    atomic_write_bytes(record_path(p), (json.dumps(record, indent=1, sort_keys=True) + "\n")
                       .encode())
    return p


def read_record(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The checksum record of ``path``, or ``None`` when it is missing or unreadable."""
    try:
        rec = json.loads(record_path(path).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return rec if isinstance(rec, dict) else None


def verify(path: str | os.PathLike[str], *,
           derived_from: dict[str, Any] | None) -> tuple[bytes | None, str]:
    """Check ``path`` against its record; return ``(bytes, "")`` or ``(None, reason)``.

    ``derived_from=None`` skips the derivation check (the content is still verified).
    """
    p = Path(path)
    rec = read_record(p)
    if rec is None:
        if not record_path(p).exists():
            return None, "it has no checksum record (written by an older ensel?)"
        return None, "its checksum record is unreadable"
    try:
        ok_record = (
            rec["format"] == _FORMAT and rec["file"] == p.name
            and isinstance(rec["size"], int) and isinstance(rec["sha256"], str)
            and rec["derived_from_sha256"] == _digest(_canonical(rec["derived_from"]).encode())
        )
    except (KeyError, TypeError):
        ok_record = False
    if not ok_record:
        return None, "its checksum record is damaged"
    if derived_from is not None and (
            rec["derived_from_sha256"] != _digest(_canonical(derived_from).encode())):
        return None, "it was built from other inputs, parameters or code"
    try:
        data = p.read_bytes()
    except OSError as exc:
        return None, f"it cannot be read ({type(exc).__name__})"
    if len(data) != rec["size"]:
        return None, f"it has {len(data)} bytes instead of {rec['size']} (truncated or damaged)"
    if _digest(data) != rec["sha256"]:
        return None, "its SHA-256 does not match its checksum record (damaged)"
    return data, ""


def read_parquet(path: str | os.PathLike[str], *, derived_from: dict[str, Any] | None,
                 what: str = "cache file", action: str = "rebuilding it") -> pd.DataFrame | None:
    """The verified table at ``path``, or ``None`` (after a one-line notice) to rebuild it.

    A file that does not exist returns ``None`` without a notice (an ordinary cache miss).
    """
    p = Path(path)
    if not p.exists() and not record_path(p).exists():
        return None
    if p.exists() and not record_path(p).exists():
        # a file from before checksum records (an older ensel): never used, replaced quietly
        notice(f"{what} {p} is not usable: it has no checksum record (written by an older "
               f"ensel?); {action}", quiet=True)
        return None
    data, reason = verify(p, derived_from=derived_from)
    if data is not None:
        try:
            return pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # verified bytes that do not parse: written by a bad writer
            reason = f"it does not parse as Parquet ({type(exc).__name__})"
    if not p.exists():
        reason = "the file is missing but its checksum record is there"
    notice(f"{what} {p} is not usable: {reason}; {action}")
    return None
