"""Argument types and options shared by the commands' parsers, and reading their inputs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported when the data are read, not to parse arguments
    import pandas as pd


def _k_arg(value: str) -> int | str:
    if value == "auto":
        return value
    try:
        k = int(value)
    except ValueError:
        k = 0
    if k < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer or 'auto'; got {value!r}")
    return k


def _int_at_least(low: int, what: str) -> Any:
    def parse(value: str) -> int:
        try:
            v = int(value)
        except ValueError:
            v = low - 1
        if v < low:
            raise argparse.ArgumentTypeError(f"must be {what}; got {value}")
        return v

    parse.__name__ = what
    return parse


def _halvings(value: str) -> int:
    try:
        v = int(value)
    except ValueError:
        v = -1
    if v < 0 or v == 1:
        raise argparse.ArgumentTypeError(f"must be 0 or an integer >= 2; got {value}")
    return v


def _add_format(p: argparse.ArgumentParser) -> None:
    """``--format`` and ``--binary``, the options of every command that reads answers."""
    from ensel._files import FORMATS

    p.add_argument("--format", choices=list(FORMATS), default=None,
                   help="input format (default: detected from the file)")
    p.add_argument("--binary", action="store_true",
                   help="read multi-class answers (option labels) as the paper's binary "
                        "queries: per question the gold option and one wrong option drawn "
                        "with seed 0 (binary tables are read as they are)")


def _add_progress(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help=f"{what} (default: only when stderr is a terminal; never on stdout)")


def _html_output(args: Any, beside: str) -> tuple[Path, Path]:
    """``-o``/``--force`` of a command that writes an HTML report with a file beside it
    (``beside``: that file's suffix, ``.json`` or ``.ipynb``): both paths checked before any
    work, the report's suffix by this and both by :func:`ensel._io.check_output` (not an
    input, not an existing file without ``--force``, not in the book's folders)."""
    from ensel._io import UsageError, check_output

    out = Path(args.output).expanduser()
    if out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"-o {args.output}: the report must be an .html file")
    out = check_output(out, inputs=args.data, force=args.force)
    return out, check_output(out.with_suffix(beside), inputs=args.data, force=args.force)


#: ``--seed`` and positive counts.
SEED = _int_at_least(0, "a non-negative integer")
POSITIVE = _int_at_least(1, "a positive integer")


def _read(data: Sequence[str], fmt: str | None, *, binary: bool = False,
          native: bool = False, why: str = "this command reads the paper's binary view",
          **options: Any) -> pd.DataFrame:
    """The answers of a command: binary, or multi-class converted with ``--binary``.

    ``native`` (``ensel select`` and ``ensel report`` without prices): the answers as they
    are, a dataset name and a multiple-choice file in its native view (option labels) too;
    otherwise a multi-class table without ``--binary`` is refused (the command estimates on
    binary answers; ``why`` says so in the message). :func:`ensel.data.is_native` of the
    result says which view was read.
    """
    from ensel.data import DataError, is_native
    from ensel.datasets import read_data

    view = "binary" if binary else "native" if native else None
    df = read_data(data[0] if len(data) == 1 else list(data), format=fmt, view=view, **options)
    if native or not is_native(df):
        return df
    shown = data[0] if len(data) == 1 else f"{data[0]} (and {len(data) - 1} more)"
    n_items = df["item"].nunique()
    raise DataError(
        f"{shown}: the answers are multi-class (option labels, {n_items:,} items with "
        f"their option sets); {why}: pass --binary "
        "to turn each question into a query for its gold option and one for a wrong "
        "option drawn with seed 0 (ensel.datasets.binary.to_binary_view)")


def _detected(data: Sequence[str]) -> str:
    from ensel.datasets import _DESCRIPTIONS
    from ensel.datasets.importers import detect

    if len(data) == 1 and data[0] in _DESCRIPTIONS and not Path(data[0]).exists():
        return "dataset"
    return detect(list(data))


def _wants_progress(args: Any) -> bool:
    """``--progress``/``--no-progress``, else whether stderr is a terminal (so logs and pipes
    get no bar)."""
    flag = getattr(args, "progress", None)
    if flag is not None:
        return bool(flag)
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
