"""The ``ensel`` command line: one argparse tree.

``ensel report DATA [--prices P] -o report.html``  which of your models to use, as one
    offline HTML page (:mod:`ensel.cli.report`, built by :mod:`ensel.report`)
``ensel select|evaluate|import ...``  your own models (:mod:`ensel.cli.select`,
    :mod:`ensel.cli.evaluate`, :mod:`ensel.cli.importer`; the evidence: :mod:`ensel.evidence`)
``ensel frontier|cascade ...`` and ``ensel select --budget-usd``  budgets in dollars
    (:mod:`ensel.cli.frontier`, :mod:`ensel.cli.cascade`, :mod:`ensel.cli.select`; prices
    and data read by :mod:`ensel.cli._prices`)
``ensel label-next DATA -n 10``  which items to label next when few have gold
    (:mod:`ensel.cli.label_next`, on :mod:`ensel.fewlabels`)
``ensel notebooks ...``  execute the book's notebooks (see :mod:`ensel.book.runner`)
``ensel datasets ...``   list or fetch datasets (see :mod:`ensel.datasets`)
``ensel collect ...``    regenerate the paper's raw answers (see :mod:`ensel.collect.cli`)
``ensel --version``      the installed version (package metadata)

Also ``python -m ensel``. Every bad input ends in exit code 2 and one line
``ensel <command>: error: <what, where, what was expected>`` on stderr, never a traceback:
argument errors (argparse), and the errors of the files, formats, data and library raised
while a command runs (filesystem, compression, encodings, YAML, ``ValueError``/``TypeError``
of the library's validation) are turned into that line at this one boundary.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["COMMANDS", "main", "build_parser", "version"]

#: Every command: name -> (module with ``add_arguments(parser)`` and ``run_command(args)``,
#: help, description). A module is imported only for its own command.
COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "report": ("ensel.cli.report", "which of your models to use: a one-page HTML report",
               "Recommend the models to use (and with --prices what to buy) and show the "
               "held-out evidence, as one self-contained offline HTML page (and its numbers "
               "as JSON beside it)."),
    "select": ("ensel.cli.select", "pick an ensemble of your models, with held-out evidence",
               "Pick an ensemble of your models and show held-out evidence against Top-k and "
               "the best single model."),
    "evaluate": ("ensel.cli.evaluate", "the experiments page on your data, as an HTML report",
                 "Run the book's experiments notebook on DATA and write a standalone HTML "
                 "report and the executed notebook beside it."),
    "import": ("ensel.cli.importer", "convert answers to the tidy table",
               "Convert your models' answers to the tidy table."),
    "notebooks": ("ensel.book.runner._cli", "execute the book's notebooks (papermill)", None),
    "datasets": ("ensel.datasets.__main__", "list, fetch or check datasets", None),
    "collect": ("ensel.collect.cli", "regenerate the paper's raw answers from LLM endpoints",
                None),
    "frontier": ("ensel.cli.frontier", "the cost-error frontier of your models (needs prices)",
                 "Sweep dollar budgets: held-out error against cost per query for budgeted "
                 "selection, Top-k, single models and the cascade."),
    "cascade": ("ensel.cli.cascade", "an adaptive cascade: ask models until the answer is sure",
                "Fit an adaptive cascade and report its expected cost and held-out error."),
    "label-next": ("ensel.cli.label_next", "which unlabelled items to label next",
                   "Rank the items without gold by how much their gold answer would help "
                   "decide the choice of ensemble (or by the models' disagreement, or at "
                   "random), with the reason per item."),
}
_COMMANDS = tuple(COMMANDS)


def version() -> str:
    """The installed version of ``ensel`` (package metadata).

    Examples
    --------
    >>> version() == __import__("importlib.metadata").metadata.version("ensel")
    True
    """
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("ensel")
    except PackageNotFoundError:  # a source checkout that was never installed
        return "unknown (not installed)"


class _Parser(argparse.ArgumentParser):
    """argparse with one error line: ``ensel <command>: error: <option> <message>``."""

    def error(self, message: str) -> NoReturn:
        message = re.sub(r"^argument ([^:]+): (must |is |expected )", r"\1 \2", message)
        self.print_usage(sys.stderr)
        prog = _command_prog(self.prog)
        self.exit(2, f"{prog}: error: {' '.join(message.split())}\n")


class _Version(argparse.Action):
    """``--version``: the version read from the package metadata only when asked (reading it
    scans the installed distributions, a cost every other command would pay)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        print(f"ensel {version()}")  # on stdout, as argparse's own version action
        parser.exit(0)


def _command_prog(prog: str) -> str:
    """``ensel select`` for the parser of ``ensel select`` (and of its subcommands)."""
    words = prog.split()
    return " ".join(words[:2]) if len(words) > 1 and words[1] in _COMMANDS else "ensel"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``ensel`` command tree; with ``command``, the other commands' own arguments are
    left out (so ``ensel select`` does not import the collector's HTTP client), and with
    ``command=""`` every command's (``ensel --help`` lists the commands only)."""
    import importlib

    parser = _Parser(prog="ensel", description="Information-theoretic LLM ensemble "
                     "selection: companion tools.")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the installed version and exit")
    sub = parser.add_subparsers(dest="ensel_command", required=True, metavar="COMMAND",
                                parser_class=_Parser)
    for name, (module, text, description) in COMMANDS.items():
        p = sub.add_parser(name, help=text, description=description or text)
        if command in (None, name):
            importlib.import_module(module).add_arguments(p)
    return parser


def _check_environment() -> None:
    from ensel._io import UsageError

    for var in ("ENSEL_DATA_DIR", "ENSEL_DATA_MIRROR"):
        value = os.environ.get(var, "").strip()
        if value and os.path.exists(value) and not os.path.isdir(value):
            raise UsageError(f"{var}={value} is a file; it must name a folder")


def _dispatch(args: argparse.Namespace) -> int:
    import importlib

    _check_environment()
    return int(importlib.import_module(COMMANDS[args.ensel_command][0]).run_command(args))


def _message(exc: BaseException, inputs: Sequence[str] = ()) -> str:
    """One line for an error raised while a command runs (``inputs``: the command's input
    files, named when the error itself does not say which file it is about)."""

    text = _bare_message(exc)
    named = any(str(i) in text or os.path.basename(str(i)) in text for i in inputs)
    if inputs and not named and not text.startswith("-"):  # "-o x: ..." is about an option
        text = f"{', '.join(map(str, inputs))}: {text}"
    return text


def _bare_message(exc: BaseException) -> str:
    import zlib

    if isinstance(exc, UnicodeDecodeError):
        where = getattr(exc, "filename", None)
        return (f"{where + ': ' if where else ''}the file is not UTF-8 text (byte "
                f"{exc.start}: {exc.reason}); give a UTF-8 CSV, a Parquet file or --format")
    if isinstance(exc, (EOFError, zlib.error)):
        return f"a compressed file is truncated or damaged ({exc})"
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror.lower()}"
    text = str(exc).strip() or type(exc).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[:3]) if len(lines) > 1 and len(" ".join(lines[:3])) < 300 \
        else lines[0]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ensel`` console script and of ``python -m ensel``."""
    if argv is None:  # the program itself, which ends when this returns
        try:
            return _main(sys.argv[1:])
        finally:
            _skip_the_last_collection()
    return _main(argv)


def _skip_the_last_collection() -> None:
    """Freeze what is alive as the program ends, so that the interpreter's last pass of the
    garbage collector skips it: that pass walks the million objects of pandas, pyarrow and
    numpy and costs about 0.2 s at every exit (a refusal included). Every file was closed and
    every temporary folder removed by then (``with`` blocks and ``exit_on_signals``); only the
    program calls this, never a caller of :func:`main` inside its own process."""
    import gc

    gc.freeze()


def _main(argv: Sequence[str]) -> int:
    import zlib

    import yaml

    from ensel._errors import DataUnavailableError  # not ensel.datasets: pandas, scipy
    from ensel._io import NotebookRunError, exit_on_signals, quiet_closed_stdout

    argv = list(argv)
    # no command named (ensel, ensel --help, --version, a misspelt command): no command's own
    # arguments can apply, so none of their modules (pandas, numpy, scipy) is imported
    parser = build_parser(next((a for a in argv if a in _COMMANDS), ""))
    if not argv or argv in (["-h"], ["--help"]):
        parser.print_help()
        return 0
    try:
        args, extra = parser.parse_known_args(argv)
    except SystemExit as exc:  # --help and --version exit 0 as argparse does
        if exc.code in (0, None):
            raise
        return int(exc.code) if isinstance(exc.code, int) else 2
    prog = f"ensel {args.ensel_command}"
    if extra:  # unknown options after a command: that command's prefix, not "ensel"
        print(f"{prog}: error: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return 2
    inputs = [*(getattr(args, "data", None) or ()), *(getattr(args, "paths", None) or ())]
    try:
        with exit_on_signals(prog):
            return _dispatch(args)
    except (ValueError, TypeError, KeyError, OSError, EOFError, zlib.error, yaml.YAMLError,
            DataUnavailableError, NotebookRunError) as exc:
        if isinstance(exc, BrokenPipeError):  # output piped into e.g. `head`: stop quietly
            return quiet_closed_stdout()
        print(f"{prog}: error: {_message(exc, inputs)}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else (0 if exc.code is None else 2)


if __name__ == "__main__":
    sys.exit(main())
