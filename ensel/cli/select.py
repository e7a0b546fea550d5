"""``ensel select DATA -k K|auto [--method M] [--aggregator A] [--json]``.

Parses the arguments and prints the document of :func:`ensel.evidence.run_select` (schema
``ensel.select/1``, described in :mod:`ensel.evidence`) or its plain-text summary.

``ensel select DATA --budget-usd B --prices P [--drop-unpriced] [-k K] [--json]``
    Picks models within ``B`` dollars per query (:class:`ensel.budget.BudgetedScoreMI` on all
    the data; ``-k`` caps their number) and reports held-out error and cost per query with
    intervals next to Top-k under the same budget, cheapest-first and the best single model
    within budget (:func:`run_select_budget`). JSON schema ``ensel.select-budget/1``::

        {"schema": "ensel.select-budget/1", "data": [str], "budget_usd": float,
         "prices": str, "dropped_models": [str], "n_items": int, "n_models": int,
         "selected": [{"model": str, "usd_per_query": float}], "cost": float,
         "run": "cost_benefit" | "plain",
         "arms": {name: {"error": float, "error_low": float, "error_high": float,
                         "cost": float, "cost_low": float, "cost_high": float}},
         "comparisons": [{"against": str, "difference": float, "low": float,
                          "high": float, "verdict": str}],
         "evaluation": {...}}
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
    _read,
    _wants_progress,
)
from ensel.cli._prices import add_price_arguments, interval, prepare
from ensel.protocol import PAPER_PROTOCOL

__all__ = ["HELP", "add_arguments", "format_select", "run_command", "run_select_budget",
           "select_budget_command"]

HELP = "pick an ensemble of your models, with held-out evidence"
DESCRIPTION = ("Pick an ensemble of your models and show held-out evidence against Top-k and "
               "the best single model.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel select``."""
    from ensel.aggregate import AGGREGATORS, DEFAULT_AGGREGATOR
    from ensel.protocol import N_HALVINGS
    from ensel.select import DEFAULT_SELECTOR, SELECTORS

    seed, positive = SEED, POSITIVE
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) or a dataset name (ensel datasets list)")
    p.add_argument("-k", default=None, type=_k_arg,
                   help="ensemble size, or 'auto' (required unless --budget-usd)")
    p.add_argument("--budget-usd", type=float, default=None, metavar="B",
                   help="dollars per query instead of (or with) -k; needs --prices "
                        "(see ensel.costs)")
    methods = [*SELECTORS, "exhaustive"]
    p.add_argument("--method", default=None, metavar="METHOD",
                   help=f"one of {', '.join(methods)} (hyphens allowed: greedy-mi, top-k); "
                        f"default {DEFAULT_SELECTOR} (ensel.select.DEFAULT_SELECTOR)")
    p.add_argument("--aggregator", default=None, choices=list(AGGREGATORS), type=str.lower,
                   help=f"default {DEFAULT_AGGREGATOR} (ensel.aggregate.DEFAULT_AGGREGATOR)")
    p.add_argument("--condition", default=None, help="use one condition only")
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
    p.add_argument("--json", action="store_true", help="JSON output (schema ensel.select/1)")
    _add_progress(p, "a progress bar of the splits on stderr")
    _add_format(p)
    add_price_arguments(p)


def run_command(args: Any) -> int:
    """``ensel select`` on parsed arguments (see :mod:`ensel.cli`)."""
    from ensel import evidence

    if args.budget_usd is not None:
        return select_budget_command(args)
    if args.k is None:
        raise UsageError("-k is required (or --budget-usd with --prices)")
    args.max_k = 10 if args.max_k is None else args.max_k
    args.jobs = -1 if args.jobs is None else args.jobs

    df = _read(args.data, args.format)
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
    print(json.dumps(doc, indent=2) if args.json else format_select(doc))
    return 0


def format_select(doc: dict[str, Any]) -> str:
    """The plain-text report of ``ensel select``."""
    ev = doc["evaluation"]
    lines = [
        f"{doc['n_models']} models, {doc['n_items']} items, condition(s) "
        f"{', '.join(doc['conditions'])}",
        f"method {doc['method']}, aggregator {doc['aggregator']}, k = {doc['k']}"
        + (" (chosen by nested cross-validation, one-standard-error rule)"
           if doc["k_mode"] == "auto" else ""),
    ]
    if doc.get("defaults"):
        import textwrap

        why = [d for d in doc["defaults"] if d.startswith("why: ")]
        lines.append("defaults: " + "; ".join(d for d in doc["defaults"] if d not in why))
        lines += [textwrap.fill(d, width=100, subsequent_indent="  ") for d in why]
    if doc.get("dropped_models"):
        lines.append(f"dropped (no answer): {', '.join(doc['dropped_models'][:10])}"
                     + (" ..." if len(doc["dropped_models"]) > 10 else ""))
    lines += ["", f"{'rank':>4}  {'model':<40} {'accuracy':>8}  {'gain (bits)':>11}"]
    for s in doc["selected"]:
        name = s["model"] if len(s["model"]) <= 40 else s["model"][:37] + "..."
        lines.append(f"{s['rank']:>4}  {name:<40} {s['accuracy']:>8.4f}  {s['gain_bits']:>11.4f}")
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
        lines.append(f"k chosen inside the {len(ks)} outer splits: {counts}; on all the "
                     f"data: {doc['auto']['k_all_data']}; deployed: {doc['k']}")
    lines += ["", doc["message"]]
    return "\n".join(lines)


def run_select_budget(data: list[Any], usd: np.ndarray, budget: float, *, k: int | None,
                      aggregator: str = "backoff", n_splits: int = PAPER_PROTOCOL.n_splits,
                      seed: int = 0,
                      max_models: int = 20) -> dict[str, Any]:
    """The ``ensel.select-budget/1`` document (without ``data``, ``prices``)."""
    from ensel.budget import BudgetedScoreMI
    from ensel.costs import check_budget
    from ensel.frontier import _diff, frontier_errors

    b = check_budget(budget, usd, name="--budget-usd")
    m = len(data[0].models)
    cap = min(m, max_models if k is None else int(k))
    res = frontier_errors(data, usd, [b], methods=("budgeted", "topk_budget",
                                                   "cheapest_first", "best_single"),
                          aggregator=aggregator, n_splits=n_splits, seed=seed,
                          max_models=cap)
    res = res[res["method"] != "none"].sort_values(["method", "condition", "split"])
    arms = {}
    for name, g in res.groupby("method", sort=False):
        e = interval(g["error"].to_numpy())
        c = interval(g["cost"].to_numpy(), clip=False)
        arms[str(name)] = {"error": e[0], "error_low": e[1], "error_high": e[2],
                           "cost": c[0], "cost_low": c[1], "cost_high": c[2]}
    a = res[res["method"] == "budgeted"]["error"].to_numpy()
    comparisons = []
    for other in ("topk_budget", "cheapest_first", "best_single"):
        o = res[res["method"] == other]["error"].to_numpy()
        comparisons.append({"against": other, **_diff(a - o, 0.2, 0.95)})
    X = np.concatenate([d.X for d in data])
    y = np.concatenate([d.y for d in data])
    sel = BudgetedScoreMI(cap, budget=b, costs=usd).fit(X, y)
    models = data[0].models
    return {"budget_usd": b, "n_items": int(sum(len(d.y) for d in data)), "n_models": m,
            "aggregator": aggregator,
            "selected": [{"model": models[j], "usd_per_query": float(usd[j])}
                         for j in sel.selected_],
            "cost": sel.cost_, "run": sel.run_, "arms": arms, "comparisons": comparisons,
            "evaluation": {"n_splits": n_splits, "n_evaluations": int(len(a)),
                           "test_fraction": 0.2, "seed": seed, "confidence": 0.95}}


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
                            n_splits=args.splits or 5, seed=args.seed)
    doc = {"schema": "ensel.select-budget/1", "data": list(args.data), "prices": source,
           "dropped_models": dropped, **doc}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"Within {doc['budget_usd']:.6g} USD per query: "
          f"{', '.join(s['model'] for s in doc['selected'])} "
          f"({doc['cost']:.6g} USD per query; {doc['run'].replace('_', '-')} greedy)")
    for name, a in doc["arms"].items():
        print(f"  {name:15s} error {a['error']:.4f} [{a['error_low']:.4f}, {a['error_high']:.4f}]"
              f"  cost {a['cost']:.6g} [{a['cost_low']:.6g}, {a['cost_high']:.6g}] USD/query")
    for c in doc["comparisons"]:
        print(f"  vs {c['against']:15s} {c['difference']:+.4f} [{c['low']:+.4f}, "
              f"{c['high']:+.4f}] ({c['verdict']})")
    return 0
