"""Checksum-pinned access to upstream data files: a local mirror, the cache, or a download.

Every file ``ensel`` downloads is listed in a *registry*, a CSV file under ``data/registry/``
with one row per file: ``owner, repo, commit, path, url, sha256, size``. Files are pinned by
commit and by SHA-256, so what a notebook reads is byte for byte what the registry names.

Where a file comes from, in order:

1. a **mirror** folder, when the environment variable ``ENSEL_DATA_MIRROR`` is set. It is laid
   out like ``<mirror>/<owner>/<repo>/<commit>/<upstream path>``; the file is read in place
   (never copied) after its SHA-256 is checked. A file the mirror lacks is taken from the
   cache when a verified copy is there (with a one-line notice); the network is never used
   while a mirror is set;
2. the **cache** (:func:`ensel.datasets._paths.data_dir`, ``ENSEL_DATA_DIR`` overrides it), at
   ``<cache>/raw/<owner>/<repo>/<commit>/<upstream path>``;
3. a **download** of the pinned URL with :mod:`pooch` (progress bar, SHA-256 check). Pooch writes
   to a temporary file beside the target and moves it into place only once the hash matches, so
   an interrupted or corrupt download never leaves a partial file in the cache.

Anything that goes wrong raises :class:`DataUnavailableError` (a :class:`RuntimeError`) whose
message names the file and says how to get it by hand.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ensel._errors import DataError, DataUnavailableError, UsageError
from ensel._notice import notice
from ensel.datasets._paths import data_dir, import_pooch, package_data

__all__ = [
    "MIRROR_ENV",
    "DataUnavailableError",
    "RegistryEntry",
    "cache_path",
    "fetch",
    "fetch_all",
    "file_sha256",
    "is_available",
    "locate",
    "mirror_dir",
    "mirror_path",
    "read_registry",
    "registry_path",
    "registry_sha256",
]

MIRROR_ENV = "ENSEL_DATA_MIRROR"

_REGISTRY_COLUMNS = ("owner", "repo", "commit", "path", "url", "sha256", "size")


@dataclass(frozen=True)
class RegistryEntry:
    """One pinned upstream file.

    Attributes
    ----------
    owner, repo : str
        GitHub owner and repository (``"TIGER-AI-Lab"``, ``"MMLU-Pro"``).
    commit : str
        The 40-hex commit the file is pinned to.
    path : str
        The file's path inside the repository at that commit (may contain spaces).
    url : str
        Download URL (raw GitHub URL pinned by commit, spaces URL-encoded).
    sha256 : str
        Expected SHA-256 of the file's bytes (lower-case hex).
    size : int
        Expected size in bytes.
    """

    owner: str
    repo: str
    commit: str
    path: str
    url: str
    sha256: str
    size: int

    @property
    def relpath(self) -> Path:
        """``<owner>/<repo>/<commit>/<path>``: the layout of both the mirror and the cache."""
        return Path(self.owner, self.repo, self.commit, *self.path.split("/"))

    @property
    def name(self) -> str:
        """The file's base name."""
        return self.path.rsplit("/", 1)[-1]


def registry_path(name: str) -> Path:
    """Path of the registry CSV of dataset ``name`` (``data/registry/<name>.csv``).

    Parameters
    ----------
    name : str
        Dataset name, e.g. ``"mmlu_pro"``.

    Returns
    -------
    pathlib.Path
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name) or ".." in name:
        raise UsageError(f"no download registry for dataset {name!r}: a dataset name is a plain "
                         "word such as 'mmlu_pro'")
    path = package_data("registry", f"{name}.csv")
    if not path.is_file():
        raise UsageError(f"no download registry for dataset {name!r}: expected the file {path}")
    return path


def read_registry(registry: str | os.PathLike[str]) -> list[RegistryEntry]:
    """Read a registry CSV.

    Parameters
    ----------
    registry : str or path-like
        A dataset name (``"mmlu_pro"``, looked up with :func:`registry_path`) or a CSV path.

    Returns
    -------
    list of RegistryEntry
        In file order.
    """
    path = Path(registry)
    if not path.suffix:
        path = registry_path(str(registry))
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in _REGISTRY_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise DataError(f"registry {path} lacks the column(s) {missing}")
        entries = [
            _safe_entry(
                RegistryEntry(
                    owner=row["owner"],
                    repo=row["repo"],
                    commit=row["commit"],
                    path=row["path"],
                    url=row["url"],
                    sha256=row["sha256"].lower(),
                    size=int(row["size"]),
                ),
                f"registry {path} line {line}",
            )
            for line, row in enumerate(reader, start=2)
        ]
    if not entries:
        raise DataError(f"registry {path} lists no files")
    return entries


def _safe_entry(entry: RegistryEntry, where: str) -> RegistryEntry:
    """Refuse a registry row whose file would land outside the mirror or cache folder."""
    for field_name in ("owner", "repo", "commit"):
        value = getattr(entry, field_name)
        if not value or value in (".", "..") or any(c in value for c in "/\\:\0"):
            raise DataError(
                f"{where}: {field_name} {value!r} is not a plain folder name; registry files "
                "must stay below <cache>/raw/<owner>/<repo>/<commit>/"
            )
    parts = entry.path.split("/")
    if (not entry.path or entry.path.startswith("/") or "\\" in entry.path or "\0" in entry.path
            or ":" in parts[0] or any(p in ("", ".", "..") for p in parts)):
        raise DataError(
            f"{where}: path {entry.path!r} leaves the cache folder (absolute, '..', '.' or "
            "empty segments are refused); registry paths are relative upstream paths such as "
            "'eval_results/x.json'"
        )
    return entry


def _inside(base: Path, path: Path) -> Path:
    """``path``, after checking that it lies below ``base`` (lexically: a mirror may be a
    farm of symbolic links, which is fine; what is refused is a path naming another place)."""
    if not Path(os.path.normpath(path)).is_relative_to(os.path.normpath(base)):
        raise DataError(f"{path} lies outside {base}; refusing to read or write it")
    return path


def registry_sha256(registry: str | os.PathLike[str]) -> str:
    """SHA-256 of a registry file's bytes (used to key caches of converted data)."""
    path = Path(registry)
    if not path.suffix:
        path = registry_path(str(registry))
    return file_sha256(path)


def file_sha256(path: str | os.PathLike[str], *, chunk_size: int = 1 << 20) -> str:
    """SHA-256 (lower-case hex) of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def mirror_dir() -> Path | None:
    """The mirror folder from ``ENSEL_DATA_MIRROR``, or ``None`` when it is unset or empty."""
    value = os.environ.get(MIRROR_ENV, "").strip()
    return Path(value).expanduser().resolve() if value else None


def mirror_path(entry: RegistryEntry) -> Path | None:
    """Where ``entry`` would be in the mirror (``None`` when no mirror is configured)."""
    mirror = mirror_dir()
    return None if mirror is None else _inside(mirror, mirror / _safe_entry(entry, "entry")
                                               .relpath)


def cache_path(entry: RegistryEntry) -> Path:
    """Where ``entry`` is (or will be) stored in the download cache."""
    base = data_dir("raw", create=False)
    return _inside(base, base / _safe_entry(entry, "entry").relpath)


def _how_to_get(entry: RegistryEntry) -> str:
    return (
        "To get the data, either set the environment variable "
        f"{MIRROR_ENV} to a folder laid out as <owner>/<repo>/<commit>/<upstream path> "
        f"that holds this file, or download\n  {entry.url}\n"
        f"by hand and save it as\n  {cache_path(entry)}\n"
        f"(expected SHA-256 {entry.sha256}, {entry.size} bytes). "
        "`python -m ensel.datasets fetch <dataset>` downloads every file of a dataset."
    )


def _resolve(entry: RegistryEntry | tuple[str | os.PathLike[str], str]) -> RegistryEntry:
    if isinstance(entry, RegistryEntry):
        return entry
    if isinstance(entry, tuple) and len(entry) == 2:
        registry, path = entry
        matches = [e for e in read_registry(registry) if e.path == path]
        if not matches:
            raise DataError(f"registry {registry!r} has no file with path {path!r}")
        return matches[0]
    raise DataError(
        f"entry must be a RegistryEntry or a (registry, path) tuple, got {type(entry).__name__}"
    )


def locate(entry: RegistryEntry | tuple[str | os.PathLike[str], str]) -> Path | None:
    """Where ``entry`` can be read without the network, or ``None``.

    Follows :func:`fetch`: the mirror's file when the mirror (if configured) holds one, else
    the cache's; a file counts when it has the registry's size (the SHA-256 is checked by
    :func:`fetch`). A mirror file of the wrong size is not replaced by the cache (``fetch``
    refuses it too).
    """
    entry = _resolve(entry)
    mirror = mirror_path(entry)
    candidate = mirror if mirror is not None and mirror.is_file() else cache_path(entry)
    if candidate.is_file() and candidate.stat().st_size == entry.size:
        return candidate
    return None


def is_available(entries: RegistryEntry | Iterable[RegistryEntry] | str) -> bool:
    """Whether the file(s) can be read without the network (mirror or cache).

    Parameters
    ----------
    entries : RegistryEntry, iterable of RegistryEntry, or str
        One entry, several, or a dataset name (all of its registry).

    Returns
    -------
    bool
        ``True`` when every file is in the mirror or the cache with the expected size.
        The network is never probed.
    """
    if isinstance(entries, str):
        entries = read_registry(entries)
    elif isinstance(entries, RegistryEntry):
        entries = [entries]
    return all(locate(e) is not None for e in entries)


def _verified(path: Path, entry: RegistryEntry, where: str) -> Path:
    actual = file_sha256(path)
    if actual != entry.sha256:
        raise DataUnavailableError(
            f"checksum mismatch for {entry.name!r} in the {where} at {path}: "
            f"expected SHA-256 {entry.sha256}, got {actual}. The file is corrupt or a "
            "different version; replace it with the pinned one. " + _how_to_get(entry)
        )
    return path


def fetch(
    entry: RegistryEntry | tuple[str | os.PathLike[str], str],
    *,
    progressbar: bool = True,
    downloader: Callable[..., object] | None = None,
) -> Path:
    """Return a local, SHA-256-verified path of a pinned file.

    Parameters
    ----------
    entry : RegistryEntry or (registry, path)
        The file: a registry entry, or a registry (dataset name or CSV path) and the file's
        upstream path.
    progressbar : bool, default=True
        Show a tqdm progress bar while downloading.
    downloader : callable, optional
        A pooch downloader ``downloader(url, output_file, pooch)``; default: pooch's HTTP one.
        Tests use it to simulate failures.

    Returns
    -------
    pathlib.Path
        The mirror file (read in place) when ``ENSEL_DATA_MIRROR`` is set, else the cached file
        (downloaded first when needed).

    Raises
    ------
    DataUnavailableError
        The mirror lacks the file or holds a different one, or the download failed (network
        error, interruption, checksum mismatch). No partial file is left in the cache.
    """
    entry = _resolve(entry)
    mirror = mirror_path(entry)
    target = cache_path(entry)
    if mirror is not None:
        if mirror.is_file():
            return _verified(mirror, entry, "mirror")
        if target.is_file() and target.stat().st_size == entry.size:
            try:
                _verified(target, entry, "cache")
            except DataUnavailableError:
                pass
            else:
                notice(f"the mirror {mirror_dir()} has no {entry.relpath.as_posix()}; "
                       f"using the verified copy in the cache {target}")
                return target
        root = mirror_dir()
        state = ("; that folder does not exist" if root is None or not root.exists()
                 else "; that folder is empty" if root.is_dir() and not any(root.iterdir())
                 else "")
        raise DataUnavailableError(
            f"{MIRROR_ENV} is set to {root}, but the mirror has no file {mirror}{state} "
            f"(expected {entry.relpath.as_posix()} below it), and the cache has no verified "
            f"copy. Unset {MIRROR_ENV} to download instead. " + _how_to_get(entry)
        )

    if target.is_file() and target.stat().st_size == entry.size:
        try:
            return _verified(target, entry, "cache")
        except DataUnavailableError:
            target.unlink()  # a stale or damaged cached copy: download a fresh one
    pooch = import_pooch()  # lazy: importing ensel never touches pooch/requests

    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        path = pooch.retrieve(
            entry.url,
            known_hash=f"sha256:{entry.sha256}",
            fname=target.name,
            path=target.parent,
            progressbar=progressbar,
            downloader=downloader,
        )
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # network errors, checksum mismatches, interrupted streams
        if target.exists() and file_sha256(target) != entry.sha256:
            target.unlink()
        raise DataUnavailableError(
            f"could not download {entry.name!r} from {entry.url}: "
            f"{type(exc).__name__}: {exc}. " + _how_to_get(entry)
        ) from exc
    return Path(path)


def fetch_all(registry: str | os.PathLike[str], *, progressbar: bool = True) -> list[Path]:
    """Fetch every file of a registry (see :func:`fetch`); returns the paths in registry order."""
    return [fetch(e, progressbar=progressbar) for e in read_registry(registry)]
