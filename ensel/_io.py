"""Low-level helpers of the commands and the book runner: the usage error, the repository,
and output protection (one place, so every writer refuses the same things).

Nothing here imports a command module or the book layer; :mod:`ensel.cli`,
:mod:`ensel.book.runner` and :mod:`ensel.collect.cli` import from here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

__all__ = ["NotebookRunError", "UsageError", "book_folders", "check_output", "repository_root"]


class UsageError(ValueError):
    """Bad input or arguments: reported as one line, exit code 2."""


class NotebookRunError(RuntimeError):
    """A notebook failed to execute, or printed a warning."""


def repository_root() -> Path | None:
    """The repository holding the book (``$ENSEL_REPO_ROOT``, else the first folder from the
    current one upwards, then this package's parent, that holds ``notebooks/runs.yml``), or
    ``None`` (an installed package used elsewhere)."""
    env = os.environ.get("ENSEL_REPO_ROOT")
    if env:
        return Path(env).resolve()
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parents[1]):
        if (base / "notebooks" / "runs.yml").is_file():
            return base
    return None


def book_folders() -> list[Path]:
    """The folders no command may write into: the repository's ``book``, ``_build`` and
    ``notebooks`` (and ``$ENSEL_RESULTS_DIR``)."""
    roots = {r for r in (repository_root(), Path(__file__).resolve().parents[1])
             if r is not None and (r / "notebooks" / "runs.yml").is_file()}
    out = [r / sub for r in sorted(roots) for sub in ("book", "_build", "notebooks")]
    if os.environ.get("ENSEL_RESULTS_DIR", "").strip():
        out.append(Path(os.environ["ENSEL_RESULTS_DIR"]).expanduser())
    return [f.resolve() for f in out]


def check_output(path: str | Path, *, inputs: Sequence[str | Path] = (),
                 force: bool = False, option: str = "-o") -> Path:
    """The resolved output path, or :class:`UsageError` when writing it would replace an
    input, an existing file without ``force``, or land in the book's folders."""
    out = Path(path).expanduser().resolve()
    for folder in book_folders():
        if out == folder or folder in out.parents:
            raise UsageError(f"{option} {path}: refusing to write into {folder} (the book's "
                             "folders); choose another output path")
    for i in inputs:
        try:
            same = Path(i).exists() and out.exists() and os.path.samefile(out, i)
        except OSError:
            same = False
        if same or out == Path(i).expanduser().resolve():
            raise UsageError(f"{option} {path}: is also an input; write to another file")
    if out.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a file name")
    if out.exists() and not force:
        raise UsageError(f"{option} {path}: the file exists; pass --force to overwrite it")
    return out
