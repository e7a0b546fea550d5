"""``ensel select DATA -k K|auto [--method M] [--aggregator A] [--json]``.

Parses the arguments and prints the document of :func:`ensel.evidence.run_select` (schema
``ensel.select/2``, described in :mod:`ensel.evidence`) or its plain-text summary, whose
first line says which view of the answers was read (``VIEW_LINES``): a multi-class
table (option labels) as it is, with the K-ary selectors and aggregators; ``--binary`` gives
the paper's view. Where gold is missing for some items or all (either view),
:func:`ensel.evidence.select_with_gaps`: with some gold the few-label estimate
(:func:`ensel.fewlabels.choose_with_labels`: how many labels, what the unlabelled items
added, whether the labels decide, how many more they need, ``ensel label-next``), with none
the label-free picks without an error figure. ``--labels FILE`` adds gold from a separate
CSV (columns ``item``, ``label``; ``ensel.cli._labels``, the reader of ``ensel
label-next``) to the table's own before that path runs; the document's ``gold`` then has
``source``: ``{"labels_file": str, "from": "table" | "file" | "both", "n_table": int,
"n_file": int, "n_both": int, "words": str}`` (items with gold in each; ``words``: the
line the text prints).

``ensel select DATA --budget-usd B --prices P [--drop-unpriced] [--margin E] [-k K] [--json]``
    The buy list at one budget (:func:`run_select_budget`): the cheapest choice within ``B``
    dollars per query whose held-out error is as good as the best's by the equivalence rule
    of :mod:`ensel.budget` (candidates: budgeted selection, Top-k under the budget,
    cheapest first and the best single model at every budget up to ``B``, and every model
    alone within ``B``; ``-k`` caps the number of models), deployed on all the data
    (:func:`ensel.evidence.budget_evidence`, the library's evidence path); the cheaper
    choice it did not take is named with the reason. Then the held-out error and cost of
    each method at ``B`` with intervals (costs clipped to ``[cheapest price, B]``) and the
    abstention-aware table of the models named. JSON schema ``ensel.select-budget/2``
    (``/1`` had ``selected`` = budgeted selection's pick, now ``budgeted``; ``/2`` adds the
    recommendation, the best choice, the rule and the model table)::

        {"schema": "ensel.select-budget/2", "data": [str], "budget_usd": float,
         "prices": str, "dropped_models": [str], "n_items": int, "n_models": int,
         "aggregator": str,
         "selected": [{"model": str, "usd_per_query": float, "accuracy": float,
                       "coverage": float, "accuracy_answered": float | null}],
         "cost": float,
         "recommendation": {"method": str, "at_budget": float, "error": float,
                            "error_low": float, "error_high": float, "cost": float,
                            "cost_low": float, "cost_high": float, "models": [str],
                            "in_splits": int, "n_evaluations": int,
                            "deployed_models": [str],
                            "test_against_best": {"difference": float, "se": float,
                                                  "low": float, "high": float,
                                                  "as_good": bool},
                            "why_not_cheaper": str | null},
         "best": {...candidate as in recommendation, without the last three keys},
         "equivalence": {"margin": float, "rule": str, "n_candidates": int,
                         "candidate_budgets": [float]},
         "budgeted": {"selected": [str], "cost": float},
         "arms": {name: {"error": float, "error_low": float, "error_high": float,
                         "cost": float, "cost_low": float, "cost_high": float}},
         "comparisons": [{"against": str, "difference": float, "low": float,
                          "high": float, "verdict": str}],
         "model_table": [{...as in selected}], "error_rule": str,
         "evaluation": {...}}

    ``recommendation.models`` are the models the method picked on most splits
    (``in_splits`` of ``n_evaluations``); ``deployed_models`` what it picks on all the data.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from ensel._io import UsageError
from ensel.cli._args import (
    POSITIVE,
    SEED,
    _add_format,
    _add_progress,
    _detected,
    _halvings,
    _int_at_least,
    _k_arg,
    _wants_progress,
)
from ensel.cli._prices import add_price_arguments, prepare
from ensel.protocol import PAPER_PROTOCOL, Protocol

__all__ = ["HELP", "add_arguments", "format_select", "format_select_budget", "run_command",
           "run_select_budget", "select_budget_command", "table_rows",
           "model_lines"]

HELP = "pick an ensemble of your models, with held-out evidence"
DESCRIPTION = ("Pick an ensemble of your models and show held-out evidence against Top-k and "
               "the best single model.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel select``."""
    from ensel.aggregate import (
        AGGREGATORS,
        DEFAULT_AGGREGATOR,
        DEFAULT_MULTICLASS_AGGREGATOR,
        LABEL_FREE_AGGREGATOR,
        MULTICLASS_AGGREGATORS,
    )
    from ensel.protocol import N_HALVINGS
    from ensel.select import DEFAULT_MULTICLASS_SELECTOR, DEFAULT_SELECTOR, SELECTORS

    seed, positive = SEED, POSITIVE
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) or a dataset name (ensel datasets list)")
    p.add_argument("-k", default=None, type=_k_arg,
                   help="ensemble size, or 'auto' (required unless --budget-usd)")
    p.add_argument("--budget-usd", type=float, default=None, metavar="B",
                   help="the most you will pay per query, in dollars (a hard cap: every "
                        "model of the set is asked on every query, so the set's prices add "
                        "up to at most B); recommends the cheapest choice within B as good as "
                        "the best (--margin); instead of (or with) -k; needs --prices. "
                        "(ensel cascade --target-cost is an average instead: it asks models "
                        "one by one and spends B per query on average)")
    methods = [*SELECTORS, "exhaustive"]
    p.add_argument("--method", default=None, metavar="METHOD",
                   help=f"one of {', '.join(methods)} (hyphens allowed: greedy-mi, top-k); "
                        f"default {DEFAULT_SELECTOR} (ensel.select.DEFAULT_SELECTOR); on "
                        f"multi-class answers {DEFAULT_MULTICLASS_SELECTOR}")
    p.add_argument("--aggregator", default=None,
                   choices=[*AGGREGATORS, *MULTICLASS_AGGREGATORS], type=str.lower,
                   help=f"default {DEFAULT_AGGREGATOR} (ensel.aggregate.DEFAULT_AGGREGATOR); "
                        f"on multi-class answers one of {', '.join(MULTICLASS_AGGREGATORS)}, "
                        f"default {DEFAULT_MULTICLASS_AGGREGATOR}, or {LABEL_FREE_AGGREGATOR} "
                        "when gold is missing for some items")
    p.add_argument("--condition", default=None, help="use one condition only")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help="gold in a separate CSV (columns item,label; blank = none), added to "
                        "DATA's own gold; a label that contradicts it is refused")
    p.add_argument("--splits", type=_int_at_least(2, "an integer >= 2"), default=None,
                   help="random 80/20 splits per condition (default 20; 10 for large pools)")
    p.add_argument("--max-k", type=positive, default=None,
                   help="largest k tried by -k auto (default 10)")
    p.add_argument("--halvings", type=_halvings, default=None,
                   help=f"half-sample replicates checking the intervals (default {N_HALVINGS};"
                        " 0: corrected t only)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--jobs", type=positive, default=None, metavar="N",
                   help="threads for the splits (default: one per core); the output is the "
                        "same for every N")
    p.add_argument("--json", action="store_true", help="JSON output (schema ensel.select/2)")
    _add_progress(p, "a progress bar of the splits on stderr")
    _add_format(p)
    add_price_arguments(p)


def run_command(args: Any) -> int:
    """``ensel select`` on parsed arguments (see :mod:`ensel.cli`)."""
    from ensel import evidence
    from ensel.aggregate import AGGREGATORS
    from ensel.cli._labels import check_labels_option, read_with_labels

    check_labels_option(args)
    if args.budget_usd is not None:
        if args.aggregator is not None and args.aggregator not in AGGREGATORS:
            raise UsageError(f"--aggregator {args.aggregator} reads multi-class answers; "
                             "--budget-usd reads the paper's binary view and takes "
                             f"{', '.join(AGGREGATORS)}")
        return select_budget_command(args)
    if args.margin is not None:
        raise UsageError("--margin applies to --budget-usd only (the buy list's equivalence "
                         "rule)")
    if args.k is None:
        raise UsageError("-k is required (or --budget-usd with --prices)")
    args.max_k = 10 if args.max_k is None else args.max_k
    args.jobs = -1 if args.jobs is None else args.jobs

    df, source = read_with_labels(args, "select")
    try:
        doc = evidence.run_select(df, k=args.k, method=args.method, aggregator=args.aggregator,
                         condition=args.condition, n_splits=args.splits, seed=args.seed,
                         max_k=args.max_k, halvings=args.halvings, validated=True,
                         progress=_wants_progress(args),
                         n_jobs=args.jobs)
    except ValueError as exc:
        raise UsageError(f"{', '.join(args.data)}: {exc}") from None
    doc = {"schema": doc.pop("schema"), "data": list(args.data),
           "format": args.format or _detected(args.data), **doc}
    if source is not None:  # --labels: where the gold came from
        doc["gold"] = {**(doc.get("gold") or {}), "source": source}
    if doc["evaluation"] is None:  # gold with gaps: the label-next command on this data
        blank, here = (json.dumps(evidence.LABEL_NEXT)[1:-1], json.dumps(
            evidence.LABEL_NEXT.replace("DATA", " ".join(args.data)))[1:-1])
        doc = json.loads(json.dumps(doc).replace(blank, here))
    print(json.dumps(doc, indent=2) if args.json else format_select(doc, binary=args.binary))
    return 0


#: The first line of ``ensel select``'s text: which view of the answers it read.
VIEW_LINES = {
    "native": "view: native (multi-class answers as they are, option labels; K-ary selectors "
              "and aggregators; --binary gives the paper's yes/no view)",
    "binary": "view: binary (yes/no answers, the paper's view)",
    "--binary": "view: binary (--binary: the paper's yes/no view; a multiple-choice question "
                "became two queries, its gold option and one wrong option drawn with seed 0)",
}


def _view_line(doc: dict[str, Any], binary: bool) -> str:
    return VIEW_LINES["--binary" if binary and doc["view"] == "binary" else doc["view"]]


def format_select(doc: dict[str, Any], *, binary: bool = False) -> str:
    """The plain-text report of ``ensel select`` (``binary``: ``--binary`` was given)."""
    import textwrap

    from ensel.aggregate import aggregator_name
    from ensel.evidence import ERROR_RULE, NATIVE_ERROR_RULE

    ev = doc["evaluation"]
    gold = doc.get("gold") or {}
    few = doc.get("few_labels")
    rule = NATIVE_ERROR_RULE if doc.get("view") == "native" else ERROR_RULE
    lines = textwrap.wrap(_view_line(doc, binary), 100, subsequent_indent="  ")
    if gold.get("source"):
        lines += textwrap.wrap(gold["source"]["words"], 100, subsequent_indent="  ",
                               break_on_hyphens=False)
    if gold.get("n_with_gold", 0) < gold.get("n_items", 0):
        lines.append(f"gold: {gold['n_with_gold']:,} of {gold['n_items']:,} items; aggregator "
                     f"fitted {gold['aggregator_fit']}")
        lines += [w for n in gold["notes"]
                  for w in textwrap.wrap(n, 100, initial_indent="  ", subsequent_indent="    ")]
    lines += [
        f"{doc['n_models']} models, {doc['n_items']} items, condition(s) "
        f"{', '.join(doc['conditions'])}",
        f"method {doc['method']}, aggregator {doc['aggregator']}"
        + ("" if aggregator_name(doc["aggregator"]) == doc["aggregator"] else
           f" ({aggregator_name(doc['aggregator'])})") + f", k = {doc['k']}"
        + ("" if doc["k_mode"] != "auto" else
           " (the size with the lowest estimated error, ensel.fewlabels.choose_with_labels)"
           if few else " (chosen by nested cross-validation, one-standard-error rule)"),
    ]
    if doc.get("defaults"):
        why = [d for d in doc["defaults"] if d.startswith("why: ")]
        lines.append("defaults: " + "; ".join(d for d in doc["defaults"] if d not in why))
        lines += [textwrap.fill(d, width=100, subsequent_indent="  ") for d in why]
    if doc.get("dropped_models"):
        lines.append(f"dropped (no answer): {', '.join(doc['dropped_models'][:10])}"
                     + (" ..." if len(doc["dropped_models"]) > 10 else ""))
    if ev is None:
        lines.append(f"accuracy below on the {few['n_labels']:,} items with gold; gains "
                     "against the gold and the label-free model's most probable option "
                     "elsewhere" if few else "accuracy and gains below are estimates from the "
                     "label-free posterior (no gold)")
    lines += ["", f"{'rank':>4}  {'model':<40} {'accuracy':>8}  {'gain (bits)':>11}"
              "  coverage  acc. when answered"]
    for s in doc["selected"]:
        name = s["model"] if len(s["model"]) <= 40 else s["model"][:37] + "..."
        when = "-" if s["accuracy_answered"] is None else f"{s['accuracy_answered']:.4f}"
        lines.append(f"{s['rank']:>4}  {name:<40} {s['accuracy']:>8.4f}  {s['gain_bits']:>11.4f}"
                     f"  {s['coverage']:>8.1%}  {when:>18}")
    lines += textwrap.wrap(rule, 100, initial_indent="  ", subsequent_indent="  ")
    if ev is None:
        return "\n".join([*lines, "", *textwrap.wrap(doc["message"], 100)])
    halves = (f", differences checked on {ev['n_halvings']} halvings" if ev["n_halvings"]
              else "")
    lines += [
        "",
        f"held-out error over {ev['n_evaluations']} random "
        f"{1 - ev['test_fraction']:.0%}/{ev['test_fraction']:.0%} splits "
        f"({ev['confidence']:.0%} intervals, corrected for overlapping splits{halves}):",
    ]
    labels = {"selected": "chosen ensemble", "top_k": "top-k ensemble",
              "best_single": "best single model"}
    for name, arm in ev["arms"].items():
        if name == "top_k" and doc["method"] == "topk":
            continue
        lines.append(f"  {labels[name]:<18} {arm['error']:.4f}  "
                     f"[{arm['low']:.4f}, {arm['high']:.4f}]")
    lines.append("paired differences (chosen minus other; negative = chosen is better):")
    for c in ev["comparisons"]:
        lines.append(f"  vs {labels[c['against']]:<18} {c['difference']:+.4f}  "
                     f"[{c['low']:+.4f}, {c['high']:+.4f}]  {c['verdict']}")
    if doc["auto"]:
        ks = doc["auto"]["k_per_split"]
        counts = ", ".join(f"k={v}: {ks.count(v)}" for v in sorted(set(ks)))
        lines += textwrap.wrap(
            f"how k was chosen: the one-standard-error rule (the smallest k whose inner "
            f"cross-validated error is within one standard error of the best) picked, inside "
            f"each of the {len(ks)} outer splits, {counts}; the same rule on all the data "
            f"picked k = {doc['auto']['k_all_data']}; the deployed k = {doc['k']} is the "
            "smaller of that and the median of the per-split choices, so it never uses more "
            "models than most splits chose.", 100)
    lines += ["", doc["message"]]
    return "\n".join(lines)


def run_select_budget(data: list[Any], usd: np.ndarray, budget: float, *, k: int | None,
                      aggregator: str = "backoff", protocol: Protocol = PAPER_PROTOCOL,
                      max_models: int = 20, margin: float | None = None) -> dict[str, Any]:
    """The ``ensel.select-budget/2`` document (without ``data``, ``prices``):
    :func:`ensel.evidence.budget_evidence` on the protocol's splits, the budget named as
    the command's option in a refusal.

    ``selected`` is the recommendation: the cheapest choice within the budget whose held-out
    error is as good as the best's (:func:`ensel.budget.cheapest_as_good`; candidates: the
    choices of budgeted selection, Top-k under the budget, cheapest first and the best
    single model at every budget of :func:`ensel.evidence.budget_candidates`, and every
    model alone within the budget), deployed on all the data. ``budgeted`` is what
    budgeted selection picks at the budget itself.
    """
    from ensel.costs import check_budget
    from ensel.evidence import budget_evidence

    check_budget(budget, usd, name="--budget-usd")
    return budget_evidence(data, usd, budget, k=k, aggregator=aggregator, protocol=protocol,
                           max_models=max_models, margin=margin)


def _g(x: float) -> str:
    """A dollar amount with 4 significant digits."""
    return f"{x:.4g}"


def format_select_budget(doc: dict[str, Any]) -> str:
    """The plain-text report of ``ensel select --budget-usd``."""
    import textwrap

    from ensel.budget import METHOD_WORDS

    rec, ev = doc["recommendation"], doc["evaluation"]
    names = rec["deployed_models"]
    what = f"{names[0]} alone" if len(names) == 1 else ", ".join(names)
    lines = [*textwrap.wrap(f"Buy, within {_g(doc['budget_usd'])} USD per query: {what}", 100,
                            break_on_hyphens=False,
                            subsequent_indent="  "),
             f"  {_g(doc['cost'])} USD per query; held-out error {rec['error']:.4f} "
             f"[{rec['error_low']:.4f}, {rec['error_high']:.4f}] "
             + ("(one model, no ensemble)" if len(names) == 1 else
                f"({METHOD_WORDS[rec['method']]}'s pick within {_g(rec['at_budget'])} USD per "
                "query)")]
    best = doc["best"]
    if best != {k: v for k, v in rec.items() if k in best}:
        t = rec["test_against_best"]
        lines.append(textwrap.fill(
            f"the lowest mean error within the budget, {', '.join(best['models'])} "
            f"({METHOD_WORDS[best['method']]}), is {best['error']:.4f} at "
            f"{_g(best['cost'])} USD per query; the choice above errs {t['difference']:+.4f} "
            f"[{t['low']:+.4f}, {t['high']:+.4f}] more, within the rule below, for less", 100,
            initial_indent="  ", subsequent_indent="    "))
    if rec["why_not_cheaper"]:
        lines.append(textwrap.fill(rec["why_not_cheaper"], 100, initial_indent="  ",
                                   subsequent_indent="    "))
    bud = doc["budgeted"]
    if bud["selected"] != names:
        lines.append(textwrap.fill(
            f"(budgeted selection alone would pick {', '.join(bud['selected'])} at "
            f"{_g(bud['cost'])} USD per query)", 100, initial_indent="  ",
            subsequent_indent="    "))
    lines.append(textwrap.fill("rule: " + doc["equivalence"]["rule"] + f", among "
                               f"{doc['equivalence']['n_candidates']} candidate choices within "
                               "the budget", 100, initial_indent="  ", subsequent_indent="    "))
    lines += [""] + textwrap.wrap(
        f"held-out error and cost over {ev['n_evaluations']} evaluations "
        f"({ev['n_splits']} random 80/20 splits per condition; 95 % intervals, "
        "Nadeau-Bengio corrected for overlapping splits; cost intervals "
        f"{doc['evaluation']['cost_interval']}: no choice costs more or less):", 100)
    for name, a in doc["arms"].items():
        lines.append(f"  {METHOD_WORDS[name]:<26} error {a['error']:.4f} [{a['error_low']:.4f}, "
                     f"{a['error_high']:.4f}]  cost {_g(a['cost'])} [{_g(a['cost_low'])}, "
                     f"{_g(a['cost_high'])}] USD per query")
    lines.append("paired differences, budgeted selection minus the other (negative = "
                 "budgeted is better):")
    for c in doc["comparisons"]:
        lines.append(f"  vs {METHOD_WORDS[c['against']]:<23} {c['difference']:+.4f} "
                     f"[{c['low']:+.4f}, {c['high']:+.4f}] ({c['verdict']})")
    lines += ["", "the models above, on all the data:"]
    lines += model_lines(doc["model_table"])
    lines.append(textwrap.fill(doc["error_rule"], 100, initial_indent="  ",
                               subsequent_indent="  "))
    return "\n".join(lines)


def table_rows(table: Any, cols: Any = None) -> list[dict[str, Any]]:
    """Rows of :func:`ensel.evidence.model_table` as JSON values (``cols``: these rows
    only), ``accuracy_answered`` ``None`` for a model that never answered."""
    from ensel.evidence import _price_rows

    return _price_rows(table, cols)


def model_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Text lines of rows of :func:`table_rows`."""
    import pandas as pd

    from ensel.evidence import format_model_table

    t = pd.DataFrame(rows)[["model", "accuracy", "coverage", "accuracy_answered",
                            "usd_per_query"]].astype({"accuracy_answered": float})
    return format_model_table(t)


def refuse_unused_in_budget_mode(args: Any) -> None:
    """``--budget-usd`` picks with budgeted selection (:mod:`ensel.budget`): an option it does
    not use is refused by name rather than ignored (an unknown ``--method`` included)."""
    if args.method is not None:
        from ensel.select import SELECTORS

        known = [*SELECTORS, "exhaustive"]
        name = args.method.lower().replace("-", "_")
        what = "is not used" if name in known else "is not a method, and no method is used"
        raise UsageError(f"--method {args.method} {what} with --budget-usd: budgeted selection "
                         "(ensel.budget) picks the models within the budget; leave --method "
                         "out, or give -k without --budget-usd")
    unused = [opt for opt, value in (("--max-k", args.max_k), ("--halvings", args.halvings),
                                     ("--jobs", args.jobs)) if value is not None]
    if unused:
        raise UsageError(f"{unused[0]} is not used with --budget-usd (budgeted selection "
                         "evaluates one budget; -k caps the number of models); leave it out")


def select_budget_command(args: Any) -> int:
    """``ensel select --budget-usd``."""
    refuse_unused_in_budget_mode(args)
    data, usd, dropped, source = prepare(args)
    doc = run_select_budget(data, usd, args.budget_usd, k=args.k if args.k != "auto" else None,
                            aggregator=args.aggregator or "backoff",
                            protocol=PAPER_PROTOCOL.replace(n_splits=args.splits,
                                                            seed=args.seed),
                            margin=args.margin)
    doc = {"schema": "ensel.select-budget/2", "data": list(args.data), "prices": source,
           "dropped_models": dropped, **doc}
    print(json.dumps(doc, indent=2) if args.json else format_select_budget(doc))
    return 0
