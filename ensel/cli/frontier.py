"""``ensel frontier DATA --prices P [--budgets N] [--json] [-o FIGURE.png|.html [--force]]``.

The cost-error frontier (:func:`ensel.frontier.frontier_summary`, schema
``ensel.frontier/1``) and its figure (:func:`ensel.frontier.frontier_figure`), over ``N``
budgets plus the price of the most accurate model. The prices and the data are read as for
every command that pays in dollars (:mod:`ensel.cli._prices`).
"""

from __future__ import annotations

import json
from typing import Any

from ensel._errors import UsageError
from ensel.cli._prices import add_common_arguments, prepare

__all__ = ["add_arguments", "run_command"]


def add_arguments(p: Any) -> None:
    """Arguments of ``ensel frontier``."""
    add_common_arguments(p)
    from ensel.cli._args import POSITIVE

    p.add_argument("--budgets", type=POSITIVE, default=20,
                   help="number of budgets (geometric grid)")
    p.add_argument("--no-cascade", action="store_true", help="leave the cascade out")
    p.add_argument("--jobs", type=int, default=-1, metavar="N",
                   help="threads over the splits (default -1: one per core, as ensel "
                        "select); the same output for every N")
    p.add_argument("-o", "--output", default=None, help="figure to write (.png or .html)")
    p.add_argument("--force", action="store_true", help="overwrite an existing figure")


def run_command(args: Any) -> int:
    """``ensel frontier``."""
    from ensel.frontier import (
        METHODS,
        best_single_price,
        budget_grid,
        frontier_errors,
        frontier_figure,
        frontier_summary,
    )

    out = None
    if args.output:  # before any work: the same checks as every command's -o
        from ensel._io import check_output
        from ensel.book.runner._config import require_page_packages

        if not str(args.output).endswith((".png", ".html")):
            raise UsageError(f"-o {args.output!r}: the figure must end in .png or .html")
        require_page_packages(f"-o {args.output}: drawing the figure", ("matplotlib",))
        out = check_output(args.output, inputs=args.data, force=args.force)
    data, usd, dropped, source = prepare(args)
    budgets = budget_grid(usd, args.budgets, max_models=args.max_models,
                          include=[best_single_price(data, usd)])
    methods = [m for m in METHODS if not (args.no_cascade and m == "cascade")]
    res = frontier_errors(data, usd, budgets, methods=methods, aggregator=args.aggregator,
                          n_splits=args.splits, seed=args.seed, max_models=args.max_models,
                          n_jobs=args.jobs)
    doc = frontier_summary(res, usd=usd, models=data[0].models, seed=args.seed,
                           aggregator=args.aggregator, dropped=dropped)
    doc = {"schema": doc.pop("schema"), "data": list(args.data), "prices": source, **doc}
    if out is not None:
        from ensel._io import write_atomic

        write_atomic(out, lambda tmp: frontier_figure(doc, tmp), force=args.force)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"Cost-error frontier over {len(doc['budgets'])} budgets "
          f"({doc['budgets'][0]:.3g}-{doc['budgets'][-1]:.3g} USD per query):")
    for name, mdoc in doc["methods"].items():
        print(f"  {name:15s} AIQ {mdoc['aiq']:.4f} [{mdoc['aiq_low']:.4f}, "
              f"{mdoc['aiq_high']:.4f}]")
    worse = [r for r in doc["budgeted_vs_topk"] if r["verdict"] == "contradicted"]
    print(f"  budgeted selection worse than Top-k beyond noise at {len(worse)} of "
          f"{len(doc['budgeted_vs_topk'])} budgets")
    if args.output:
        print(f"  figure: {args.output}")
    return 0
