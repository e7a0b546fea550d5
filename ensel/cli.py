"""The ``ensel`` command line: one argparse tree.

``ensel select|evaluate|import ...``  your own models (see :mod:`ensel.practice`)
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
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["main", "build_parser", "version"]

_COMMANDS = ("select", "evaluate", "import", "notebooks", "datasets", "collect")


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


def _command_prog(prog: str) -> str:
    """``ensel select`` for the parser of ``ensel select`` (and of its subcommands)."""
    words = prog.split()
    return " ".join(words[:2]) if len(words) > 1 and words[1] in _COMMANDS else "ensel"


# --------------------------------------------------------------------------- argument types
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
    from ensel.datasets.importers import FORMATS

    p.add_argument("--format", choices=list(FORMATS), default=None,
                   help="input format (default: detected from the file)")


def _add_progress(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help=f"{what} (default: only when stderr is a terminal; never on stdout)")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``ensel`` command tree; with ``command``, the other commands' own arguments are
    left out (so ``ensel select`` does not import the collector's HTTP client)."""
    from ensel.aggregate import AGGREGATORS, DEFAULT_AGGREGATOR
    from ensel.datasets.importers import FORMATS
    from ensel.experiment import N_HALVINGS
    from ensel.select import DEFAULT_SELECTOR, SELECTORS

    seed = _int_at_least(0, "a non-negative integer")
    positive = _int_at_least(1, "a positive integer")
    parser = _Parser(prog="ensel", description="Information-theoretic LLM ensemble "
                     "selection: companion tools.")
    parser.add_argument("--version", action="version", version=f"ensel {version()}")
    sub = parser.add_subparsers(dest="ensel_command", required=True, metavar="COMMAND",
                                parser_class=_Parser)

    p = sub.add_parser("select", help="pick an ensemble of your models, with held-out evidence",
                       description="Pick an ensemble of your models and show held-out "
                       "evidence against Top-k and the best single model.")
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) or a dataset name (ensel datasets list)")
    p.add_argument("-k", required=True, type=_k_arg, help="ensemble size, or 'auto'")
    methods = [*SELECTORS, "exhaustive"]
    p.add_argument("--method", default=None, metavar="METHOD",
                   help=f"one of {', '.join(methods)} (hyphens allowed: greedy-mi, top-k); "
                        f"default {DEFAULT_SELECTOR} (ensel.select.DEFAULT_SELECTOR)")
    p.add_argument("--aggregator", default=None, choices=list(AGGREGATORS),
                   help=f"default {DEFAULT_AGGREGATOR} (ensel.aggregate.DEFAULT_AGGREGATOR)")
    p.add_argument("--condition", default=None, help="use one condition only")
    p.add_argument("--splits", type=_int_at_least(2, "an integer >= 2"), default=None,
                   help="random 80/20 splits per condition (default 20; 10 for large pools)")
    p.add_argument("--max-k", type=positive, default=10, help="largest k tried by -k auto")
    p.add_argument("--halvings", type=_halvings, default=None,
                   help=f"half-sample replicates checking the intervals (default {N_HALVINGS};"
                        " 0: corrected t only)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--jobs", type=positive, default=-1, metavar="N",
                   help="threads for the splits (default: one per core); the output is the "
                        "same for every N")
    p.add_argument("--json", action="store_true", help="JSON output (schema ensel.select/1)")
    _add_progress(p, "a progress bar of the splits on stderr")
    _add_format(p)

    p = sub.add_parser("evaluate", help="the experiments page on your data, as an HTML report",
                       description="Run the book's experiments notebook on DATA and write a "
                       "standalone HTML report and the executed notebook beside it.")
    p.add_argument("data", nargs="+", metavar="DATA")
    p.add_argument("-o", "--output", required=True, help="the HTML report to write")
    p.add_argument("--ks", default=None,
                   help="budgets, e.g. 1-10 or 1,3,5 (default 1..m; beyond 20 models "
                        "1..min(20, log2 n_train))")
    p.add_argument("--splits", type=_int_at_least(2, "an integer >= 2"), default=None,
                   help="random splits per condition (default: chosen by the page, the "
                        "smallest number whose interval is within 20%% of the narrowest "
                        "possible)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--no-exhaustive", action="store_true",
                   help="skip the exhaustive optimum (faster; skipped beyond 15 models)")
    p.add_argument("--jobs", type=positive, default=-1, metavar="N",
                   help="threads for the splits (default: one per core); the report's numbers "
                        "are the same for every N")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    _add_progress(p, "papermill's per-cell progress bar on stderr; --no-progress also "
                     "silences the phase lines")
    _add_format(p)

    p = sub.add_parser("import", help="convert answers to the tidy table",
                       description="Convert your models' answers to the tidy table.")
    p.add_argument("format", choices=[*FORMATS, "auto"], metavar="FORMAT",
                   help=f"one of {', '.join(FORMATS)}, or auto")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("-o", "--output", required=True, help="tidy table to write (.parquet/.csv)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of each question's negative option (multiple choice)")
    p.add_argument("--condition", default=None, help="condition written on every row")
    p.add_argument("--gold", default=None, help="wide: name of the gold column")
    p.add_argument("--item", default=None, help="wide: name of the item column")
    p.add_argument("--options", default=None, help="wide: the option set, e.g. A,B,C,D")
    p.add_argument("--correctness", action="store_true",
                   help="wide, binary task: model columns hold 1/0 = right/wrong")
    p.add_argument("--null-pred", choices=["abstain", "false"], default="abstain",
                   help="a choice that could not be parsed (default: abstain)")

    for name, module, text in (
        ("notebooks", "ensel.book.runner", "execute the book's notebooks (papermill)"),
        ("datasets", "ensel.datasets.__main__", "list, fetch or check datasets"),
        ("collect", "ensel.collect.cli", "regenerate the paper's raw answers from LLM endpoints"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        if command in (None, name):
            import importlib

            importlib.import_module(module).add_arguments(p)
    return parser


def _check_environment() -> None:
    from ensel.practice import UsageError

    for var in ("ENSEL_DATA_DIR", "ENSEL_DATA_MIRROR"):
        value = os.environ.get(var, "").strip()
        if value and os.path.exists(value) and not os.path.isdir(value):
            raise UsageError(f"{var}={value} is a file; it must name a folder")


def _evaluate(args: Any) -> int:
    """``ensel evaluate``: the book's experiments notebook on DATA through the book runner's
    one papermill path (:func:`ensel.book.runner.execute_notebook`), written as a standalone
    HTML report and the executed notebook beside it."""
    import time

    from ensel._io import temporary_paths, write_atomic
    from ensel.book.runner import execute_notebook, require_page_packages
    from ensel.practice import (
        EVALUATE_MAX_K,
        EXHAUSTIVE_LIMIT,
        UsageError,
        _parse_ks,
        _read,
        _wants_progress,
        check_output,
        default_ks,
        to_html,
    )

    require_page_packages("ensel evaluate runs the experiments page and")
    import nbformat

    bar = _wants_progress(args)
    quiet = args.progress is False

    def phase(text: str) -> None:
        if not quiet:
            print(f"ensel evaluate: {text}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    out = Path(args.output).expanduser()
    if out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"-o {args.output}: the report must be an .html file")
    out = check_output(out, inputs=args.data, force=args.force)
    nb_path = check_output(out.with_suffix(".ipynb"), inputs=args.data, force=args.force)
    ks = _parse_ks(args.ks) if args.ks else None
    df = _read(args.data, args.format)
    m = int(df["model"].nunique())
    if ks and ks[-1] > m:
        raise UsageError(f"--ks asks for k={ks[-1]} but the data has {m} model(s)")
    _check_before_the_page(df)
    phase(f"read {', '.join(args.data)}: {len(df):,} answers, {df['item'].nunique():,} items, "
          f"{m} models, {df['condition'].nunique()} condition(s) "
          f"({time.perf_counter() - t0:.1f} s)")
    if ks is None:
        n_min = int(df.groupby("condition", observed=True)["item"].nunique().min())
        ks = default_ks(m, int(n_min * 0.8))
        if ks[-1] == m:
            ks = None  # every budget 1..m: the page also checks the paper's claims
        else:
            print(f"ensel evaluate: {m} models: budgets k = 1..{ks[-1]} (MAP's 2^k pattern "
                  f"table is capped at k <= {EVALUATE_MAX_K} and 2^k <= {int(n_min * 0.8)} "
                  "training items; the claims about budgets up to the full pool are not "
                  "checked; --ks overrides)", file=sys.stderr)
    exhaustive = not args.no_exhaustive and m <= EXHAUSTIVE_LIMIT
    stem = Path(args.data[0]).name.split(".")[0] or "data"
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ensel-evaluate-") as tmp, \
            temporary_paths(Path(tmp)):  # removed on SIGINT/SIGTERM too
        tmpd = Path(tmp)
        data_path = tmpd / f"{stem}.parquet"
        df.to_parquet(data_path, index=False)
        params = {"dataset": str(data_path),
                  "n_splits": None if args.splits is None else int(args.splits),
                  "seed": int(args.seed), "ks": ks, "exhaustive": exhaustive,
                  "n_jobs": args.jobs}
        splits = ("splits chosen by the page" if args.splits is None
                  else f"{args.splits} splits")
        phase(f"executing the experiments page (budgets "
              f"{'1..' + str(m) if ks is None else _budgets(ks)}, {splits}, exhaustive scan "
              f"{'on' if exhaustive else 'off'}); this takes a while")
        t1 = time.perf_counter()
        try:
            executed = execute_notebook("experiments", params, out_dir=tmpd / "out",
                                        keep_failed=nb_path, progress=bar)
        except Exception as exc:  # the runner's NotebookRunError
            raise UsageError(_first_failure(str(exc))) from None
        phase(f"page executed in {time.perf_counter() - t1:.1f} s; writing the report")
        write_atomic(out, lambda t: t.write_text(to_html(executed), encoding="utf-8"),
                     force=args.force)
        write_atomic(nb_path, lambda t: nbformat.write(executed, t), force=args.force)
    print(f"wrote {out} and {nb_path}" + ("" if quiet else
          f" ({time.perf_counter() - t0:.1f} s in all)"), file=sys.stderr)
    return 0


def _check_before_the_page(df: Any) -> None:
    """Refuse, before the page starts, what ``ensel select`` refuses (with its messages):
    too few items or one label class in a condition, every answer blank; and a pool of one
    model, which the experiments page cannot compare."""
    from ensel.experiment import condition_data
    from ensel.practice import UsageError, _check_pool, _pickable

    data, _ = _pickable(condition_data(df, None, validate=False))
    _check_pool(data, None, 1, 0.2)
    if len(data[0].models) < 2:
        raise UsageError(f"the experiments page compares ensembles and needs at least 2 "
                         f"models; the data has 1 ({data[0].models[0]!r}); use ensel select "
                         "for one model's held-out error")


def _first_failure(message: str) -> str:
    """One line for a failed page: its first line, and when that only counts the failed
    checks ("... 2 of 6 checks failed:"), the first of them and how many more.

    >>> msg = ("x failed in cell 4: CheckFailed: x: 2 of 6 checks failed:\\n"
    ...        "  ✗ pairs: 0.03, expected < 0.02\\n  ✗ tv: 0.5, expected < 0.1"
    ...        " (the partly executed notebook is r.ipynb)")
    >>> print(_first_failure(msg))  # doctest: +NORMALIZE_WHITESPACE
    x failed in cell 4: CheckFailed: x: 2 of 6 checks failed: pairs: 0.03, expected < 0.02 (and
    1 more) (the partly executed notebook is r.ipynb)
    """
    kept = ""
    if " (the partly executed notebook is " in message:
        message, _, kept = message.rpartition(" (the partly executed notebook is ")
        kept = " (the partly executed notebook is " + kept
    lines = message.splitlines()
    head = lines[0] if lines else message
    failed = [ln.strip().lstrip("✗").strip() for ln in lines[1:] if ln.strip().startswith("✗")]
    if head.endswith("checks failed:") and failed:
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        return f"{head} {failed[0]}{more}{kept}"
    return head + kept


def _budgets(ks: Sequence[int]) -> str:
    """``1..5`` for a run of budgets, else ``1,3,5``."""
    ks = list(ks)
    if ks == list(range(ks[0], ks[-1] + 1)) and len(ks) > 2:
        return f"{ks[0]}..{ks[-1]}"
    return ",".join(map(str, ks))


def _dispatch(args: argparse.Namespace) -> int:
    from ensel import practice

    _check_environment()
    command = args.ensel_command
    if command == "select":
        return practice.select_command(args)
    if command == "evaluate":
        return _evaluate(args)
    if command == "import":
        return practice.import_command(args)
    if command == "notebooks":
        from ensel.book.runner import run_command

        return run_command(args)
    if command == "datasets":
        from ensel.datasets.__main__ import run_command as datasets_command

        return datasets_command(args)
    from ensel.collect.cli import run_command as collect_command

    return collect_command(args)


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
    import zlib

    import yaml

    from ensel._io import exit_on_signals, quiet_closed_stdout
    from ensel.book.runner import NotebookRunError
    from ensel.datasets._fetch import DataUnavailableError

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(next((a for a in argv if a in _COMMANDS), None))
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
