"""Upstream files of the paper's query sets, fetched through pooch with trust on first use.

The registry ``data/collect/sources.csv`` has the columns of :mod:`ensel.datasets._fetch`
(``owner, repo, commit, path, url, sha256, size``) and ``#`` comment lines. Where a row has
a SHA-256 the file is checked against it; where it has none (nothing could be verified on the
machine that wrote it), the SHA-256 of the first download is recorded in
``<data dir>/collect/tofu.csv`` and any later file that differs is refused.

Where a file comes from, in order: the mirror (``ENSEL_DATA_MIRROR``, laid out
``<owner>/<repo>/<commit>/<path>``), the cache (``<data dir>/raw/...``), a pooch download.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from ensel._errors import DataError
from ensel._validation import constraint_error
from ensel.datasets._fetch import (
    DataUnavailableError,
    RegistryEntry,
    cache_path,
    file_sha256,
    mirror_path,
)
from ensel.datasets._paths import data_dir, import_pooch, package_data

__all__ = ["fetch_source", "read_sources", "source_entry"]

_COLUMNS = ("owner", "repo", "commit", "path", "url", "sha256", "size")


def read_sources(path: str | os.PathLike[str] | None = None) -> dict[str, RegistryEntry]:
    """The source registry, keyed by repository name (``medmcqa``, ``mmlu``, ``imdb``).

    Parameters
    ----------
    path : path-like, optional
        A registry CSV; default the shipped ``data/collect/sources.csv``.

    Examples
    --------
    >>> sorted(read_sources())
    ['imdb', 'medmcqa', 'mmlu']
    """
    p = Path(path) if path is not None else package_data("collect", "sources.csv")
    text = "".join(line for line in p.read_text(encoding="utf-8").splitlines(keepends=True)
                   if not line.lstrip().startswith("#"))
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in _COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise DataError(f"source registry {p} lacks the column(s) {missing}")
    out = {}
    for row in reader:
        out[row["repo"]] = RegistryEntry(
            owner=row["owner"], repo=row["repo"], commit=row["commit"], path=row["path"],
            url=row["url"], sha256=row["sha256"].strip().lower(), size=int(row["size"] or 0))
    return out


def source_entry(name: str, registry: str | os.PathLike[str] | None = None) -> RegistryEntry:
    """The registry row of source ``name``; ``ValueError`` naming the valid ones otherwise."""
    sources = read_sources(registry)
    if name not in sources:
        raise constraint_error("name", f"a query source, one of {sorted(sources)}", name)
    return sources[name]


def _tofu_path() -> Path:
    return data_dir("collect") / "tofu.csv"


def _tofu_read() -> dict[str, str]:
    path = _tofu_path()
    if not path.is_file():
        return {}
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["url"]: row["sha256"] for row in csv.DictReader(fh)}


def _tofu_record(url: str, sha: str) -> None:
    path = _tofu_path()
    new = not path.is_file()
    with open(path, "a", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        if new:
            writer.writerow(["url", "sha256"])
        writer.writerow([url, sha])


def _check(path: Path, entry: RegistryEntry, *, downloaded: bool) -> Path:
    actual = file_sha256(path)
    expected = entry.sha256 or _tofu_read().get(entry.url, "")
    if expected and actual != expected:
        if downloaded:
            path.unlink()
        how = "the registry" if entry.sha256 else f"the first download (recorded in {_tofu_path()})"
        raise DataUnavailableError(
            f"{entry.name!r} from {entry.url} has SHA-256 {actual}, but {how} had {expected}: "
            "the upstream file changed or is corrupt; refusing to use it. Delete the record "
            "to trust the new file."
        )
    if not expected:
        _tofu_record(entry.url, actual)
    return path


def fetch_source(entry: RegistryEntry, *, progressbar: bool = False) -> Path:
    """A local, checked copy of a source file (mirror, cache or download).

    Raises
    ------
    DataUnavailableError
        No mirror copy, the download failed, or the file differs from the pinned or
        first-seen SHA-256.
    """
    mirror = mirror_path(entry)
    if mirror is not None and mirror.is_file():
        return _check(mirror, entry, downloaded=False)
    target = cache_path(entry)
    if target.is_file():
        return _check(target, entry, downloaded=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        import_pooch().retrieve(entry.url, known_hash=None, fname=target.name,
                                path=target.parent, progressbar=progressbar)
    except Exception as exc:
        raise DataUnavailableError(
            f"could not download {entry.name!r} from {entry.url}: {type(exc).__name__}: {exc}. "
            f"Download it by hand and save it as {target}."
        ) from exc
    return _check(target, entry, downloaded=True)
