"""``ensel report DATA [--prices P] -o report.html``: which of your models to use.

The recommendation of ``ensel select -k auto`` with its defaults, against the best single
model and all the models; with prices the buy list and the cost-error frontier; then the
evidence (selection path, per-model accuracy, coverage and accuracy when answered). Built
by :func:`ensel.report.build_report` and written as one self-contained offline HTML page by
:func:`ensel.report.report_html`, with every number as JSON beside it (``report.json``,
schema ``ensel.report/1``). Prices and data are read as for every command that pays in
dollars (:mod:`ensel.cli._prices`). Without prices a multi-class table is read as it is
(option labels, as ``ensel select`` reads it; ``--binary`` gives the paper's view), and the
page's first screen says which view was read, and why (``--binary``, or ``--prices``: the buy
list reads the binary view), and on how many items with gold its errors rest. Where gold is
missing for some items or all (either view, no prices), the report runs the label-free path
of ``ensel select`` itself (:func:`ensel.evidence.select_with_gaps`) and says in one sentence
what that means for its intervals.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from ensel._io import UsageError
from ensel.cli._args import (
    POSITIVE,
    SEED,
    _add_format,
    _add_progress,
    _wants_progress,
)
from ensel.cli._labels import check_labels_option, read_with_labels
from ensel.cli._prices import add_price_arguments, prepare

__all__ = ["add_arguments", "run_command"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel report``."""
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) or a dataset name (ensel datasets list)")
    p.add_argument("-o", "--output", required=True,
                   help="the HTML report to write (its numbers go to the same name .json)")
    p.add_argument("--budgets", type=POSITIVE, default=8,
                   help="budgets of the buy list with --prices (a geometric grid, plus the "
                        "best single model's price)")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--jobs", type=POSITIVE, default=-1, metavar="N",
                   help="threads for the splits (default: one per core); the report is the "
                        "same for every N")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help="gold in a separate CSV (columns item,label; blank = none), added to "
                        "DATA's own gold (without prices); a label that contradicts it is "
                        "refused")
    p.add_argument("--json", action="store_true",
                   help="print the report's JSON document (schema ensel.report/1) on stdout "
                        "instead of its headline")
    _add_progress(p, "a progress bar of the splits on stderr")
    _add_format(p)
    add_price_arguments(p)


def run_command(args: Any) -> int:
    """``ensel report`` on parsed arguments."""
    from ensel.book.runner._config import require_page_packages
    from ensel.cli._args import _html_output
    from ensel.report import build_report, report_html

    out, side = _html_output(args, ".json")
    require_page_packages(f"-o {args.output}: drawing the report's figures", ("matplotlib",))
    check_labels_option(args)
    priced = args.prices is not None or args.prices_from_store is not None
    gold_source = None
    if priced:
        data, usd, dropped, source = prepare(args)
    else:
        if args.drop_unpriced or args.store_config is not None:
            raise UsageError("--drop-unpriced and --store-config apply to prices: give "
                             "--prices or --prices-from-store too")
        data, gold_source = read_with_labels(args, "report")
        usd, dropped, source = None, [], None
    reason = ("--binary: a multiple-choice question became two queries, its gold option and "
              "one wrong option" if args.binary else
              "--prices: the buy list reads the paper's binary view, in which a "
              "multiple-choice question becomes two queries (its gold option and one wrong "
              "option) and yes/no answers stay as they are" if priced else None)
    rep = build_report(data, source=args.data, usd=usd, prices=source, dropped=dropped,
                       seed=args.seed, n_budgets=args.budgets, n_jobs=args.jobs,
                       progress=_wants_progress(args), view_reason=reason)
    if gold_source is not None:  # --labels: where the gold came from
        rep.select["gold"] = {**(rep.select.get("gold") or {}), "source": gold_source}
    command = shlex.join(["ensel", "report", *sys.argv[2:]] if sys.argv[1:2] == ["report"]
                         else ["ensel", "report", *args.data, "-o", str(args.output)])
    html = report_html(rep, json_link=side.name, command=command)
    from ensel._io import write_atomic

    out.parent.mkdir(parents=True, exist_ok=True)
    doc = json.dumps(rep.to_dict(), indent=1, default=_plain)
    write_atomic(side, lambda t: t.write_text(doc, encoding="utf-8"), force=args.force)
    write_atomic(out, lambda t: t.write_text(html, encoding="utf-8"), force=args.force)
    r = rep.purchase or rep.recommendation  # with prices, what to buy comes first
    print(doc if args.json else r["headline"])
    what = ("no error figure (no gold)" if r["error"] is None else
            f"{'held-out' if rep.select['evaluation'] else 'estimated'} error "
            f"{r['error']:.3f} [{r['low']:.3f}, {r['high']:.3f}]")
    if gold_source is not None:
        print(gold_source["words"], file=sys.stderr)
    print(f"{what}; wrote {out} and {side.name}", file=sys.stderr)
    return 0


def _plain(value: Any) -> Any:
    """numpy scalars in the JSON document as plain numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
