"""Command line for the datasets: list them, fetch and check the downloadable ones.

Usage (also as ``ensel datasets ...``)::

    python -m ensel.datasets list               # every dataset name load() accepts
    python -m ensel.datasets fetch mmlu_pro     # download (or verify) every pinned file
    python -m ensel.datasets status mmlu_pro    # where each file would be read from

Files come from ``$ENSEL_DATA_MIRROR`` when it is set (read in place, SHA-256 checked),
otherwise they are downloaded once into the data folder (``$ENSEL_DATA_DIR`` or the user
cache). Exit status 1 when a file is unavailable.

``list --json`` and ``status NAME --json`` print one JSON object on stdout (nothing else
goes to stdout)::

    {"schema": "ensel.datasets.list/1",
     "datasets": [{"name": "medmcqa", "kind": "stand-in" | "real", "description": "...",
                   "available": true,      # loads offline now (stand-ins: always)
                   "how": "generated locally" | "available offline" | "<what to run>"}],
     "mirror": "<ENSEL_DATA_MIRROR>" | null}

    {"schema": "ensel.datasets.status/1", "dataset": "mmlu_pro",
     "files": [{"path": "<upstream path>", "sha256": "...", "size": 123,
                "available": true, "location": "<where it is read from>" | null,
                "cache_path": "<where a download goes>"}],
     "available": 3, "total": 3, "mirror": "..." | null, "cache": "<data folder>"}
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ensel._errors import UsageError
from ensel.datasets import _fetch
from ensel.datasets._paths import data_dir

__all__ = ["main", "add_arguments", "run_command", "list_document", "status_document",
           "SCHEMA_LIST", "SCHEMA_STATUS"]

#: Schema names of the ``--json`` documents (see the module docstring).
SCHEMA_LIST = "ensel.datasets.list/1"
SCHEMA_STATUS = "ensel.datasets.status/1"


def status_document(name: str) -> dict[str, Any]:
    """Where each pinned file of dataset ``name`` would be read from (``status --json``).

    Examples
    --------
    >>> doc = status_document("mmlu_pro")
    >>> doc["schema"], doc["total"] == len(doc["files"]) > 0
    ('ensel.datasets.status/1', True)
    """
    files = []
    for entry in _fetch.read_registry(name):
        where = _fetch.locate(entry)
        files.append({"path": entry.path, "sha256": entry.sha256, "size": int(entry.size),
                      "available": where is not None,
                      "location": None if where is None else str(where),
                      "cache_path": str(_fetch.cache_path(entry))})
    mirror = _fetch.mirror_dir()
    return {"schema": SCHEMA_STATUS, "dataset": name, "files": files,
            "available": sum(f["available"] for f in files), "total": len(files),
            "mirror": None if mirror is None else str(mirror),
            "cache": str(data_dir("raw", create=False))}


def _status(name: str, as_json: bool = False) -> int:
    doc = status_document(name)
    if as_json:
        print(json.dumps(doc, indent=2))
    else:
        for f in doc["files"]:
            print(f"{'ok  ' if f['available'] else 'MISS'} {f['path']}  ->  "
                  f"{f['location'] or f['cache_path']}")
        print(f"{doc['available']}/{doc['total']} files available "
              f"(mirror: {doc['mirror'] or 'not set'}; cache: {doc['cache']})")
    return 0 if doc["available"] == doc["total"] else 1


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


def list_document() -> dict[str, Any]:
    """Every dataset name and whether it loads offline (``ensel datasets list --json``).

    Examples
    --------
    >>> doc = list_document()
    >>> doc["schema"], [d["available"] for d in doc["datasets"] if d["name"] == "medmcqa"]
    ('ensel.datasets.list/1', [True])
    """
    from ensel.datasets import DATASETS, available

    mirror = _fetch.mirror_dir()
    rows = []
    for row in available().itertuples(index=False):
        ok = True
        if row.kind == "real":
            ok = DATASETS[row.name].is_available()
            how = ("available offline" if ok
                   else f"not downloaded yet: `ensel datasets fetch {row.name}`"
                   if mirror is None else
                   f"not in the mirror {mirror} (nor the cache); unset {_fetch.MIRROR_ENV} "
                   f"and run `ensel datasets fetch {row.name}`")
        else:
            how = "generated locally"
        rows.append({"name": str(row.name), "kind": str(row.kind),
                     "description": str(row.description), "available": ok, "how": how})
    return {"schema": SCHEMA_LIST, "datasets": rows,
            "mirror": None if mirror is None else str(mirror)}


def _list(as_json: bool = False) -> int:
    doc = list_document()
    if as_json:
        print(json.dumps(doc, indent=2))
        return 0
    width = max(len(d["name"]) for d in doc["datasets"])
    for d in doc["datasets"]:
        print(f"{d['name']:<{width}}  {d['kind']:<8}  {d['description']} [{d['how']}]")
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
    lst = sub.add_parser("list", help="list every dataset name (stand-ins, real data) and "
                                      "whether it is available offline")
    lst.add_argument("--json", action="store_true", help=f"JSON output (schema {SCHEMA_LIST})")
    for command, text in (
        ("fetch", "download (or verify in the mirror) every file of a dataset"),
        ("status", "show where each file of a dataset would be read from"),
    ):
        p = sub.add_parser(command, help=text)
        p.add_argument("name", help="dataset with a download registry, e.g. mmlu_pro")
        if command == "status":
            p.add_argument("--json", action="store_true",
                           help=f"JSON output (schema {SCHEMA_STATUS})")


def run_command(args: argparse.Namespace) -> int:
    """Run ``ensel datasets`` on parsed arguments; an unknown name raises ``ValueError``."""
    if args.command == "list":
        return _list(getattr(args, "json", False))
    try:
        _fetch.read_registry(args.name)
    except ValueError as exc:
        from ensel.datasets import available

        table = available()
        real = [str(n) for n in table[table["kind"] == "real"]["name"]]
        if args.name in set(table["name"]):
            raise UsageError(f"{exc} ({args.name!r} is a paper-calibrated stand-in, generated "
                             f"locally: nothing to download; real datasets: "
                             f"{', '.join(real)})") from None
        from ensel.datasets import unknown_dataset

        raise UsageError(unknown_dataset(args.name, real, files=False)
                         + " (only real datasets are downloaded)") from None
    if args.command == "fetch":
        return _fetch_all(args.name)
    return _status(args.name, getattr(args, "json", False))


if __name__ == "__main__":
    raise SystemExit(main())
