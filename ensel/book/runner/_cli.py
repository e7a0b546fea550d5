"""Execute the book's notebooks with papermill, one run per entry of ``notebooks/runs.yml``.

The command ``ensel notebooks`` (also ``python -m ensel.book.runner``): ``list``, ``run``,
``all`` and ``toc``; its usage and the ``list --json`` schema are in :mod:`ensel.book.runner`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ensel._errors import ConfigError
from ensel._io import NotebookRunError, exit_on_signals
from ensel.book.runner._config import (
    NotebookRun,
    _parse_params,
    _resolve_paths,
    adhoc_run,
    check_dataset_parameters,
    check_parameter_names,
    check_parameter_values,
    find_runs,
    load_runs,
    repo_root,
    require_page_packages,
    source_root,
    toc_problems,
    write_toc,
)
from ensel.book.runner._schedule import _execute_all


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (see the module docstring); ``ensel notebooks`` is the same
    command in :mod:`ensel.cli`'s tree."""
    parser = argparse.ArgumentParser(prog="ensel notebooks", description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        with exit_on_signals("ensel notebooks"):
            return run_command(args)
    except NotebookRunError as exc:
        print(f"ensel notebooks: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2


#: Schema name of ``ensel notebooks list --json`` (see the module docstring).
SCHEMA_LIST = "ensel.notebooks.list/1"


def list_document(runs: Sequence[NotebookRun], config: Path) -> dict[str, Any]:
    """The JSON document of ``ensel notebooks list --json`` (schema :data:`SCHEMA_LIST`).

    Examples
    --------
    >>> cfg = source_root() / "notebooks" / "runs.yml"
    >>> doc = list_document(load_runs(cfg), cfg)
    >>> doc["schema"], doc["runs"][0]["notebook"] == load_runs(cfg)[0].notebook
    ('ensel.notebooks.list/1', True)
    """
    from ensel._io import repository_root

    return {"schema": SCHEMA_LIST, "config": str(config),
            "checkout": repository_root() is not None,
            "runs": [{"notebook": r.notebook, "output": r.output, "title": r.title,
                      "parameters": r.parameters, "test_parameters": r.test_parameters,
                      "needs": list(r.needs), "produces": list(r.products()),
                      "requires_data": list(r.requires_data)} for r in runs]}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel notebooks`` (``list``, ``run``, ``all``, ``toc``)."""
    sub = parser.add_subparsers(dest="cmd", required=True)
    lst = sub.add_parser("list", help="list the runs of runs.yml (from the repository, or "
                                      "the copy shipped with the package)")
    lst.add_argument("--json", action="store_true",
                     help=f"JSON output (schema {SCHEMA_LIST}; see the module docstring)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out-dir", default=None,
                        help="where executed notebooks go (default: book/_generated)")
    common.add_argument("--test", action="store_true", help="merge in test_parameters")
    common.add_argument("-p", "--param", action="append", default=[],
                        help="override a parameter: name=value (YAML value)")
    common.add_argument("--allow-warnings", action="store_true",
                        help="do not fail on warnings printed by a notebook")
    common.add_argument("--keep-going", action="store_true", help="run the rest after a failure")
    common.add_argument("--force", action="store_true",
                        help="re-execute every run, even those whose inputs did not change")
    common.add_argument("-j", "--jobs", type=int, default=None,
                        help="runs executed in parallel (default: min(2, number of cores))")
    run_p = sub.add_parser("run", parents=[common], help="execute the runs of one notebook")
    run_p.add_argument("notebook")
    run_p.add_argument("--output", default=None, help="only the run with this output name")
    sub.add_parser("all", parents=[common], help="execute every run in order")
    toc = sub.add_parser("toc", help="write the per-dataset pages of _toc.yml from the datasets "
                                     "declared in data/datasets.yml (make book does it)")
    toc.add_argument("--check", action="store_true",
                     help="only say whether _toc.yml is current (exit 1 when it is not)")


def _toc_command(runs: Sequence[NotebookRun], toc: Path, *, check: bool) -> int:
    """``ensel notebooks toc``: write (or ``check``) the per-dataset entries of ``toc``."""
    try:
        stale = write_toc(runs, toc, check=check)
    except ConfigError as exc:
        raise NotebookRunError(str(exc)) from None
    if stale:
        print(f"{toc.name}: the pages of the declared datasets are out of date (run: ensel "
              "notebooks toc)" if check else f"{toc.name}: wrote the pages of the declared "
              "datasets (data/datasets.yml)")
    problems = toc_problems(runs, toc) if not (check and stale) else []
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if (check and stale) or problems else 0


def run_command(args: argparse.Namespace) -> int:
    """Run ``ensel notebooks`` on parsed arguments; bad input raises
    :class:`NotebookRunError` (one line)."""
    if args.cmd == "list":
        config = source_root() / "notebooks" / "runs.yml"
        runs = load_runs(config)
        if getattr(args, "json", False):
            print(json.dumps(list_document(runs, config), indent=2, default=str))
            return 0
        for r in runs:
            print(f"{r.notebook:<24} {r.output:<32} {r.parameters}  test: {r.test_parameters}")
        return 0
    runs = load_runs(repo_root() / "notebooks" / "runs.yml")
    if args.cmd == "toc":
        return _toc_command(runs, repo_root() / "_toc.yml", check=args.check)
    require_page_packages(f"ensel notebooks {args.cmd}")
    explicit_out_dir = args.out_dir is not None
    if args.out_dir is None:
        args.out_dir = str(repo_root() / "book" / "_generated")
    if args.cmd == "run":
        try:
            chosen = find_runs(runs, args.notebook, args.output)
        except ValueError as exc:
            raise NotebookRunError(str(exc)) from None
        if args.param:
            overrides = _resolve_paths(_parse_params(args.param))
            check_parameter_names(chosen[0], overrides, repo_root())
            check_parameter_values(chosen[0], overrides, repo_root())  # before the kernel
            run, is_adhoc = adhoc_run(chosen[0], overrides, runs)
            check_dataset_parameters(run, run.effective_parameters(test=args.test))
            args.param = []
            chosen = [run]
            if is_adhoc and not explicit_out_dir:
                args.out_dir = str(repo_root() / "_build" / "adhoc")
                print(f"ad-hoc run (parameters not listed in notebooks/runs.yml): writing "
                      f"{Path(args.out_dir) / (run.output + '.ipynb')}; the book's pages and "
                      "results are not touched", flush=True)
        return _execute_all(chosen, args, runs)
    return _execute_all(runs, args, runs)
