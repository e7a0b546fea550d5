"""``ensel evaluate DATA -o report.html``: the book's experiments page on your data.

The page runs through the book runner's one papermill path
(:func:`ensel.book.runner.execute_notebook`), imported only when the command runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ensel._io import UsageError
from ensel.cli._args import (
    POSITIVE,
    SEED,
    _add_format,
    _add_progress,
    _int_at_least,
    _read,
    _wants_progress,
)

__all__ = ["EVALUATE_MAX_K", "HELP", "add_arguments", "default_ks", "run_command", "to_html"]

HELP = "the experiments page on your data, as an HTML report"
DESCRIPTION = ("Run the book's experiments notebook on DATA and write a standalone HTML report "
               "and the executed notebook beside it.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel evaluate``."""
    seed, positive = SEED, POSITIVE
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


def run_command(args: Any) -> int:
    """``ensel evaluate``: the book's experiments notebook on DATA through the book runner's
    one papermill path (:func:`ensel.book.runner.execute_notebook`), written as a standalone
    HTML report and the executed notebook beside it."""
    import time

    from ensel._io import temporary_paths, write_atomic
    from ensel.book.runner._config import require_page_packages
    from ensel.cli._args import _html_output

    require_page_packages("ensel evaluate runs the experiments page and")  # find_spec only:
    # nbformat, papermill and matplotlib are imported after the checks below, so a refusal
    # costs reading the data, not starting the notebook machinery

    bar = _wants_progress(args)
    quiet = args.progress is False

    def phase(text: str) -> None:
        if not quiet:
            print(f"ensel evaluate: {text}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    out, nb_path = _html_output(args, ".ipynb")
    ks = _parse_ks(args.ks) if args.ks else None
    # the arguments are checked: now pandas is imported
    df = _read(args.data, args.format, binary=args.binary)
    from ensel.evidence import EXHAUSTIVE_LIMIT

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
    import nbformat

    from ensel.book.runner import execute_notebook
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
        write_atomic(out, lambda t: t.write_text(to_html(executed, nb_path.name),
                                                 encoding="utf-8"),
                     force=args.force)
        write_atomic(nb_path, lambda t: nbformat.write(executed, t), force=args.force)
    print(f"wrote {out} and {nb_path}" + ("" if quiet else
          f" ({time.perf_counter() - t0:.1f} s in all)"), file=sys.stderr)
    return 0


def _check_before_the_page(df: Any) -> None:
    """Refuse, before the page starts, what ``ensel select`` refuses (with its messages):
    too few items or one label class in a condition, every answer blank; and a pool of one
    model, which the experiments page cannot compare."""
    from ensel.evidence import _check_pool, _pickable
    from ensel.experiment import condition_data

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


def _parse_ks(text: str) -> list[int]:
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                out.update(range(a, b + 1))
            elif part:
                out.add(int(part))
        except ValueError:
            raise UsageError(f"--ks must be budgets like 1-10 or 1,3,5; got {text!r}") from None
    if not out or min(out) < 1:
        raise UsageError(f"--ks must be positive budgets like 1-10 or 1,3,5; got {text!r}")
    return sorted(out)


#: Largest budget ``ensel evaluate`` evaluates by default: MAP's table has ``2^k`` answer
#: patterns, meaningful only while it is small beside the training items.
EVALUATE_MAX_K = 20


def default_ks(m: int, n_train: int) -> list[int]:
    """The budgets ``ensel evaluate`` uses without ``--ks``: every ``k`` in ``1..m`` for a pool
    of at most 20 models; beyond, ``1..min(20, log2(n_train))`` (MAP's table has ``2^k``
    answer patterns: past 20 it no longer fits in memory, past ``log2(n_train)`` most
    patterns hold no training item).

    Examples
    --------
    >>> default_ks(5, 1000)
    [1, 2, 3, 4, 5]
    >>> default_ks(1000, 8000)[-1]
    12
    """
    if int(m) <= EVALUATE_MAX_K:
        return list(range(1, int(m) + 1))
    k_n = max(1, max(int(n_train), 2).bit_length() - 1)  # floor(log2 n_train)
    return list(range(1, min(EVALUATE_MAX_K, k_n) + 1))


def to_html(nb: Any, notebook_link: str | None = None) -> str:
    """An executed notebook as one standalone, offline HTML page (``ensel evaluate``): the
    one rendering path of the reports (:func:`ensel._html.notebook_html`: no code, glued
    numbers, roles and formulas resolved, figures with their captions as ``alt`` text), with
    a link to the executed notebook ``notebook_link`` for its code."""
    from ensel._html import notebook_html
    from ensel.book.runner import source_root

    bib = source_root() / "book" / "references.bib"
    return notebook_html(nb, notebook_link=notebook_link,
                         bibliography=bib.read_text(encoding="utf-8") if bib.is_file()
                         else None)
