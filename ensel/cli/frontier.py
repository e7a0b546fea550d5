"""``ensel frontier DATA --prices P [--budgets N] [--json] [-o FIGURE.png|.html [--force]]``.

The cost-error frontier (:func:`ensel.frontier.frontier_summary`, schema
``ensel.frontier/2``) and its figure (:func:`ensel.frontier.frontier_figure`), over ``N``
budgets plus the price of the most accurate model. The prices and the data are read as for
every command that pays in dollars (:mod:`ensel.cli._prices`).
"""

from __future__ import annotations

import json
from typing import Any

from ensel._errors import UsageError
from ensel.cli._prices import add_common_arguments, prepare

__all__ = ["add_arguments", "run_command", "format_frontier"]


def add_arguments(p: Any) -> None:
    """Arguments of ``ensel frontier``."""
    add_common_arguments(p)
    from ensel.cli._args import POSITIVE

    p.add_argument("--budgets", type=POSITIVE, default=20,
                   help="number of budgets (geometric grid)")
    p.add_argument("--no-cascade", action="store_true", help="leave the cascade out")
    p.add_argument("--jobs", type=int, default=-1, metavar="N",
                   help="processes over the splits (default -1: one per core, as ensel "
                        "select); the same output for every N")
    p.add_argument("-o", "--output", default=None,
                   help="figure to write (.png or .html): each method's points and hull, each "
                        "point numbered by its set of models (the key lists them)")
    p.description = (
        "Held-out error against dollars per query for budgeted selection, Top-k under the "
        "budget, cheapest first, the best single model and the cascade, at a grid of budgets. "
        "First the buy list: at each budget, the cheapest choice (any method's, or a model "
        "alone) whose error is as good as the best's by the equivalence rule of ensel.budget "
        "(--margin). Then each method's AIQ: the mean quality 1 - error under its hull over "
        "costs 0 to the largest budget (methods that make the same choices have the same "
        "AIQ, and the text says so). Then the models at every point.")
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
    from ensel.cli.select import table_rows
    from ensel.evidence import model_table
    from ensel.protocol import Protocol

    budgets = budget_grid(usd, args.budgets, max_models=args.max_models,
                          include=[best_single_price(data, usd)])
    methods = [m for m in METHODS if not (args.no_cascade and m == "cascade")]
    # every model alone within the largest budget too: the buy list's candidates
    protocol = Protocol(n_splits=args.splits, seed=args.seed)
    res = frontier_errors(data, usd, budgets, methods=methods, aggregator=args.aggregator,
                          protocol=protocol, max_models=args.max_models, n_jobs=args.jobs,
                          singles=float(max(budgets)), processes=True)
    doc = frontier_summary(res, usd=usd, models=data[0].models, protocol=protocol,
                           aggregator=args.aggregator, dropped=dropped, margin=args.margin,
                           model_table=table_rows(model_table(data, usd)))
    doc = {"schema": doc.pop("schema"), "data": list(args.data), "prices": source, **doc}
    if out is not None:
        from ensel._io import write_atomic

        write_atomic(out, lambda tmp: frontier_figure(doc, tmp), force=args.force)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(format_frontier(doc))
    if args.output:
        print(f"figure: {args.output}")
    return 0


def _names(models: list[str], limit: int = 4) -> str:
    if len(models) == 1:
        return f"{models[0]} alone"
    shown = ", ".join(models[:limit])
    return shown + (f" and {len(models) - limit} more" if len(models) > limit else "")


def format_frontier(doc: dict[str, Any]) -> str:
    """The plain-text report of ``ensel frontier``: the buy list first, then the areas."""
    import textwrap

    from ensel.budget import METHOD_WORDS
    from ensel.cli.select import model_lines

    ev = doc["evaluation"]
    lo, hi = doc["budgets"][0], doc["budgets"][-1]
    lines = textwrap.wrap(
        f"Cost-error frontier over {len(doc['budgets'])} budgets ({lo:.4g}-{hi:.4g} USD per "
        f"query); held-out error over {ev['n_evaluations']} evaluations "
        f"({ev['n_splits']} random 80/20 splits per condition), 95 % intervals "
        "(Nadeau-Bengio corrected for overlapping splits; costs clipped to [cheapest price, "
        "budget]).", 100)
    lines += ["", "Buy list: at each budget, the cheapest choice as good as the best within it"]
    lines += textwrap.wrap("(" + doc["equivalence"]["rule"] + "):", 100,
                           initial_indent="  ", subsequent_indent="  ")
    runs: list[list[dict[str, Any]]] = []  # consecutive budgets with the same choice
    for row in doc["buy_list"]:
        if runs and runs[-1][-1]["choice"] == row["choice"]:
            runs[-1].append(row)
        else:
            runs.append([row])
    for run in runs:
        c = run[0]["choice"]
        at = (f"{run[0]['budget']:.4g}" if len(run) == 1
              else f"{run[0]['budget']:.4g}-{run[-1]['budget']:.4g}")
        what = (f"the cascade {' -> '.join(c['models'])} (asked in this order until sure)"
                if c["method"] == "cascade" else _names(c["models"], len(c["models"])))
        lines += textwrap.wrap(f"budget {at} USD per query: buy {what}", 100,
                               initial_indent="  ", subsequent_indent="      ",
                               break_on_hyphens=False)
        lines.append(f"      error {c['error']:.4f} [{c['error_low']:.4f}, "
                     f"{c['error_high']:.4f}], {c['cost']:.4g} USD per query"
                     + (" on average" if c["method"] == "cascade" else ""))
    chosen = [r for r in doc["buy_list"] if r["choice"]["method"] == "cascade"]
    if "cascade" in doc["methods"]:
        lines.append(f"  cascade: the choice at {len(chosen)} of {len(doc['buy_list'])} budgets"
                     + ("" if chosen else "; elsewhere a static choice is as good for less, so "
                        "the cascade is not recommended"))
    lines += ["", f"Area under each method's hull (AIQ: mean quality 1 - error over costs 0-"
              f"{hi:.4g} USD per query; higher is better):"]
    seen: dict[tuple[Any, ...], str] = {}
    for name, mdoc in doc["methods"].items():
        key = tuple(tuple(p["models"]) for p in mdoc["points"])
        same = seen.get(key)
        seen.setdefault(key, name)
        lines.append(f"  {METHOD_WORDS[name]:<24} {mdoc['aiq']:.4f} [{mdoc['aiq_low']:.4f}, "
                     f"{mdoc['aiq_high']:.4f}]"
                     + (f"  (the same choices as {METHOD_WORDS[same]} at every budget)"
                        if same else ""))
    worse = [r for r in doc["budgeted_vs_topk"] if r["verdict"] == "contradicted"]
    lines.append(f"  budgeted selection worse than Top-k beyond noise at {len(worse)} of "
                 f"{len(doc['budgeted_vs_topk'])} budgets")
    bs = doc.get("best_single")
    if bs:
        lines.append(f"  best single model: {bs['model']} ({bs['usd_per_query']:.4g} USD per "
                     f"query, error {bs['error']:.4f})")
    lines += ["", "Each point's models (picked on most splits), by method:"]
    for name, mdoc in doc["methods"].items():
        lines.append(f"  {METHOD_WORDS[name]}:")
        last = None
        for p in mdoc["points"]:
            if p["models"] == last:
                continue
            last = p["models"]
            lines += textwrap.wrap(f"from {p['budget']:.4g}: {_names(p['models'], 6)} "
                                   f"(error {p['error']:.4f}, {p['cost']:.4g} USD per query)",
                                   100, initial_indent="    ", subsequent_indent="      ",
                                   break_on_hyphens=False)
    if doc.get("model_table"):
        lines += ["", "The models, on all the data:"]
        lines += model_lines(doc["model_table"])
        from ensel.evidence import ERROR_RULE

        lines += textwrap.wrap(ERROR_RULE, 100, initial_indent="  ", subsequent_indent="  ")
    return "\n".join(lines)
