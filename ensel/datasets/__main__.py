"""Command line for the datasets: list them, fetch and check the downloadable ones.

Usage (also as ``ensel datasets ...``)::

    python -m ensel.datasets list               # every dataset name load() accepts
    python -m ensel.datasets fetch mmlu_pro     # download (or verify) every pinned file
    python -m ensel.datasets status mmlu_pro    # where each file would be read from

Files come from ``$ENSEL_DATA_MIRROR`` when it is set (read in place, SHA-256 checked),
otherwise they are downloaded once into the data folder (``$ENSEL_DATA_DIR`` or the user
cache). Exit status 1 when a file is unavailable.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ensel.datasets import _fetch
from ensel.datasets._paths import data_dir


def _status(name: str) -> int:
    entries = _fetch.read_registry(name)
    missing = 0
    for entry in entries:
        where = _fetch.locate(entry)
        if where is None:
            missing += 1
        print(
            f"{'ok  ' if where else 'MISS'} {entry.path}  ->  {where or _fetch.cache_path(entry)}"
        )
    mirror = _fetch.mirror_dir() or "not set"
    cache = data_dir("raw", create=False)
    print(
        f"{len(entries) - missing}/{len(entries)} files available "
        f"(mirror: {mirror}; cache: {cache})"
    )
    return 0 if missing == 0 else 1


def _fetch_all(name: str) -> int:
    entries = _fetch.read_registry(name)
    try:
        for i, entry in enumerate(entries, 1):
            path = _fetch.fetch(entry, progressbar=True)
            print(f"[{i}/{len(entries)}] {entry.path}: {path}")
    except _fetch.DataUnavailableError as exc:
        print(f"ensel datasets: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    print(f"all {len(entries)} files of {name!r} are available and verified (SHA-256)")
    return 0


def _list() -> int:
    from ensel.datasets import available

    table = available()
    width = max(map(len, table["name"]))
    for row in table.itertuples(index=False):
        if row.kind == "real":
            mirror = _fetch.mirror_dir()
            where = ("available offline" if _fetch.is_available(row.name)
                     else f"not downloaded yet: `ensel datasets fetch {row.name}`"
                     if mirror is None else
                     f"not in the mirror {mirror} (nor the cache); unset {_fetch.MIRROR_ENV} "
                     f"and run `ensel datasets fetch {row.name}`")
        else:
            where = "generated locally"
        print(f"{row.name:<{width}}  {row.kind:<8}  {row.description} [{where}]")
    print("or the path of your own tidy table (.csv, .csv.gz, .parquet, .pq)")
    return 0


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m ensel.datasets") -> int:
    """Entry point of ``python -m ensel.datasets`` (``ensel datasets`` is the same command in
    :mod:`ensel.cli`'s tree)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_command(args)
    except ValueError as exc:
        parser.error(str(exc))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel datasets`` (``list``, ``fetch``, ``status``)."""
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list every dataset name (stand-ins, real data) and whether "
                                "it is available offline")
    for command, text in (
        ("fetch", "download (or verify in the mirror) every file of a dataset"),
        ("status", "show where each file of a dataset would be read from"),
    ):
        p = sub.add_parser(command, help=text)
        p.add_argument("name", help="dataset with a download registry, e.g. mmlu_pro")


def run_command(args: argparse.Namespace) -> int:
    """Run ``ensel datasets`` on parsed arguments; an unknown name raises ``ValueError``."""
    if args.command == "list":
        return _list()
    try:
        _fetch.read_registry(args.name)
    except ValueError as exc:
        from ensel.datasets import available

        table = available()
        real = [str(n) for n in table[table["kind"] == "real"]["name"]]
        if args.name in set(table["name"]):
            raise ValueError(f"{exc} ({args.name!r} is a paper-calibrated stand-in, generated "
                             f"locally: nothing to download; real datasets: "
                             f"{', '.join(real)})") from None
        from ensel.datasets import unknown_dataset

        raise ValueError(unknown_dataset(args.name, real, files=False)
                         + " (only real datasets are downloaded)") from None
    return _fetch_all(args.name) if args.command == "fetch" else _status(args.name)


if __name__ == "__main__":
    raise SystemExit(main())
