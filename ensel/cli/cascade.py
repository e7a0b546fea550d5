"""``ensel cascade DATA --prices P [--target-cost B | --target-error E] [--json]``.

Fits :class:`ensel.cascade.Cascade` on each training split and reports the expected cost
per query and the held-out error with intervals, how many models were asked, the static
ensemble of the same order, and whether the cascade is recommended: only where it is the
cheapest choice as good as the best (:func:`ensel.budget.cheapest_as_good`) among the
choices that cost at most as much (every model alone and its own order asked in full);
a dearer choice of lower error is named beside it (schema ``ensel.cascade/2``;
``/1`` lacked ``split_order_lengths``, ``static_order``, ``recommendation`` and
``target_missed``, and its cost interval was not clipped)::

    {"schema": "ensel.cascade/2", "order": [str], "usd_per_query": [float],
     "threshold": float,
     "error": float, "error_low": float, "error_high": float,
     "cost": float, "cost_low": float, "cost_high": float,
     "asked_histogram": {n: fraction}, "split_order_lengths": [int],
     "static_order": {"error": float, "cost": float},
     "recommendation": {"recommended": bool, "verdict": str, "choice": str,
                        "why_not_cheaper": str | null, "rule": str, "margin": float,
                        "n_candidates": int, "dearer_but_better": str | null},
     "target_missed": str | null, "evaluation": {...}}

``asked_histogram`` counts the models asked on the held-out queries by the cascade refitted
on each split's training part; those orders can be longer or shorter than ``order`` (fitted
on all the data): ``split_order_lengths`` gives them, and the text says so.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ensel._errors import UsageError
from ensel.cli._prices import add_common_arguments, prepare
from ensel.protocol import PAPER_PROTOCOL, Protocol

__all__ = ["add_arguments", "run_command", "run_cascade", "format_cascade"]


def add_arguments(p: Any) -> None:
    """Arguments of ``ensel cascade``."""
    add_common_arguments(p, cascade_only=True)
    p.add_argument("--target-cost", type=float, default=None, metavar="B",
                   help="dollars per query on average: the threshold is the most accurate "
                        "one whose expected cost (on cross-fitted training posteriors) is "
                        "within B; a query may cost more, the mean does not")
    p.add_argument("--target-error", type=float, default=None, metavar="E",
                   help="held-out error to reach: the cheapest threshold whose cross-fitted "
                        "training error is at most E (the most accurate one when none is); "
                        "a miss on the held-out splits is said in one line")
    p.add_argument("--budget-usd", type=float, default=None, metavar="B",
                   help="the most one query may cost, in dollars (a hard cap: the order is "
                        "cut where its running cost passes B), unlike --target-cost's mean")
    p.description = (
        "Ask models one at a time, cheapest-informative first, and stop once the answers so "
        "far are sure enough: the threshold is the posterior probability of the leading "
        "label (0.5-1) at which the cascade stops asking; 1 asks the whole order, 0.5 asks "
        "one model. The cascade is recommended only where it is the cheapest choice as good "
        "as the best (the equivalence rule of ensel.budget) against every model alone and "
        "the static ensemble of its order.")


def run_cascade(data: list[Any], usd: np.ndarray, *, target_cost: float | None = None,
                target_error: float | None = None, budget: float | None = None,
                aggregator: str = "backoff", protocol: Protocol = PAPER_PROTOCOL,
                max_models: int = 20, margin: float | None = None) -> dict[str, Any]:
    """The ``ensel.cascade/2`` document (without ``data``, ``prices``), on the splits of
    ``protocol`` (its ``n_splits``, ``test_fraction`` and ``seed``)."""
    from ensel.budget import mean_interval
    from ensel.cascade import Cascade
    from ensel.costs import check_budget, within
    from ensel.experiment import split_indices

    if target_cost is not None:
        check_budget(target_cost, usd, name="--target-cost")
    if budget is not None:
        check_budget(budget, usd, name="--budget-usd")
    if target_error is not None and not 0 <= target_error <= 1:
        raise UsageError(f"--target-error must be in [0, 1]; got {target_error!r}")
    errs, costs, asked_all, static_errs, static_costs, lengths = [], [], [], [], [], []
    firsts: list[float] = []
    seed, test_fraction = protocol.seed, protocol.test_fraction
    for d in data:
        for s in range(protocol.n_splits):
            tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=seed,
                                   test_fraction=test_fraction, item_ids=d.items)
            cas = Cascade(costs=usd, budget=budget, target_cost=target_cost,
                          target_error=target_error, max_models=max_models,
                          aggregator=aggregator, random_state=seed).fit(d.X[tr], d.y[tr])
            pred, asked = cas.predict_with_cost(d.X[te])
            run = np.concatenate([[0.0], np.cumsum(usd[cas.order_])])
            errs.append(float(np.mean(pred != d.y[te])))
            costs.append(float(run[asked].mean()))
            asked_all.append(asked)
            lengths.append(len(cas.order_))
            # the static ensemble of the same order: every model asked on every query
            full = cas.aggregators_[-1].predict(d.X[te][:, cas.order_])
            static_errs.append(float(np.mean(np.asarray(full) != d.y[te])))
            static_costs.append(float(run[-1]))
            firsts.append(float(run[1]))
    X = np.concatenate([d.X for d in data])
    y = np.concatenate([d.y for d in data])
    full = Cascade(costs=usd, budget=budget, target_cost=target_cost, target_error=target_error,
                   max_models=max_models, aggregator=aggregator, random_state=seed).fit(X, y)
    from ensel.budget import (
        EQUIVALENCE_MARGIN,
        EQUIVALENCE_RULE,
        cheapest_as_good,
        single_model_errors,
        why_not_cheaper,
    )

    e = mean_interval(np.asarray(errs), test_fraction, 0.95, clip=(0.0, 1.0))
    # the cascade pays at least its first model and at most its whole order (the budget)
    c = mean_interval(np.asarray(costs), test_fraction, 0.95,
                      clip=(float(min(firsts)), float(max(static_costs))))
    a = np.concatenate(asked_all)
    hist = {str(int(v)): float(np.mean(a == v)) for v in np.unique(a)}
    delta = EQUIVALENCE_MARGIN if margin is None else float(margin)
    # the cascade against every model alone within its largest cost and its static order
    singles = single_model_errors(data, usd, max(static_costs), aggregator=aggregator,
                                  protocol=protocol)
    cands: list[dict[str, Any]] = [
             {"name": "the cascade", "errors": np.asarray(errs), "cost": c[0]},
             {"name": "the static ensemble of its order (every model asked)",
              "errors": np.asarray(static_errs), "cost": float(np.mean(static_costs))}]
    for model, g in singles.groupby("selected", sort=False):
        cands.append({"name": f"{model} alone", "errors": g["error"].to_numpy(),
                      "cost": float(g["cost"].iloc[0])})
    # the cascade is worth it only if no choice costing at most as much is as good for less
    dearer = [cd for cd in cands[1:] if not within(cd["cost"], c[0])]
    cands = [cands[0], *[cd for cd in cands[1:] if cd not in dearer]]
    found = cheapest_as_good(cands, margin=delta)
    names = [cd["name"] for cd in cands]
    ch = cands[found["choice"]]
    recommended = found["choice"] == 0
    better = min(dearer, key=lambda cd: float(np.mean(cd["errors"])), default=None)
    more = None
    if better is not None and float(np.mean(better["errors"])) < e[0]:
        more = (f"for a lower error, pay more: {better['name']} errs "
                f"{float(np.mean(better['errors'])):.4f} at {better['cost']:.4g} USD per query")
    if recommended:
        verdict = "recommended: the cheapest choice as good as the best"
        why = why_not_cheaper(found, names, margin=delta)
    else:
        t = found["tests"][found["choice"]]
        verdict = (f"not recommended: {ch['name']} is as good for less ({ch['cost']:.4g} "
                   f"USD per query, error {float(np.mean(ch['errors'])):.4f}, "
                   f"{t['difference']:+.4f} against the best at most the cascade's cost)")
        why = None
    missed = None
    if target_error is not None and e[0] > target_error + 1e-12:
        missed = (f"the target error {target_error:g} is missed on held-out queries: "
                  f"{e[0]:.4f} [{e[1]:.4f}, {e[2]:.4f}] (the threshold is tuned on the "
                  "training part, the most accurate one when none reaches the target)")
    return {"order": [data[0].models[j] for j in full.order_],
            "usd_per_query": [float(usd[j]) for j in full.order_],
            "threshold": float(full.threshold_),
            "error": e[0], "error_low": e[1], "error_high": e[2],
            "cost": c[0], "cost_low": c[1], "cost_high": c[2],
            "asked_histogram": hist,
            "split_order_lengths": lengths,
            "static_order": {"error": float(np.mean(static_errs)),
                             "cost": float(np.mean(static_costs))},
            "recommendation": {"recommended": bool(recommended), "verdict": verdict,
                               "choice": ch["name"], "why_not_cheaper": why,
                               "rule": EQUIVALENCE_RULE.format(margin=delta),
                               "margin": delta, "n_candidates": len(cands),
                               "dearer_but_better": more},
            "target_missed": missed,
            "evaluation": {"n_splits": protocol.n_splits, "n_evaluations": len(errs),
                           "test_fraction": test_fraction, "seed": seed, "confidence": 0.95,
                           "interval": "nadeau-bengio corrected resampled t",
                           "cost_interval": "clipped to [the first model's price, the cost of the "
                                            "whole order]"}}


def run_command(args: Any) -> int:
    """``ensel cascade``."""
    if args.target_cost is not None and args.target_error is not None:
        raise UsageError("give --target-cost or --target-error, not both")
    data, usd, dropped, source = prepare(args)
    doc = run_cascade(data, usd, target_cost=args.target_cost, target_error=args.target_error,
                      budget=args.budget_usd, aggregator=args.aggregator,
                      protocol=Protocol(n_splits=args.splits, seed=args.seed),
                      max_models=args.max_models, margin=args.margin)
    doc = {"schema": "ensel.cascade/2", "data": list(args.data), "prices": source,
           "dropped_models": dropped, **doc}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(format_cascade(doc))
    return 0


def format_cascade(doc: dict[str, Any]) -> str:
    """The plain-text report of ``ensel cascade``."""
    import textwrap

    ev, rec = doc["evaluation"], doc["recommendation"]
    wrap: dict[str, Any] = {"width": 100, "initial_indent": "  ", "subsequent_indent": "    "}
    lines = textwrap.wrap(f"Cascade order: {' -> '.join(doc['order'])}", 100,
                          subsequent_indent="  ", break_on_hyphens=False)
    lines += textwrap.wrap(
        f"threshold {doc['threshold']:.3g}: it stops asking once the leading label's "
        "posterior probability reaches this (0.5: after one model; 1: the whole order)",
        **wrap)
    lines += textwrap.wrap(
        f"held-out error {doc['error']:.4f} [{doc['error_low']:.4f}, {doc['error_high']:.4f}]; "
        f"cost {doc['cost']:.4g} [{doc['cost_low']:.4g}, {doc['cost_high']:.4g}] USD per query "
        f"over {ev['n_evaluations']} evaluations ({ev['n_splits']} random 80/20 splits per "
        "condition; 95 % intervals, Nadeau-Bengio corrected for overlapping splits; costs "
        "clipped to [the first model's price, the whole order's cost])", **wrap)
    if doc.get("target_missed"):
        lines += textwrap.wrap("warning: " + doc["target_missed"], **wrap)
    lens = sorted(set(doc["split_order_lengths"]))
    span = (f"{lens[0]}" if len(lens) == 1 else f"{lens[0]}-{lens[-1]}")
    lines += textwrap.wrap(
        "models asked on held-out queries: " + ", ".join(
            f"{k}: {v:.1%}" for k, v in doc["asked_histogram"].items())
        + f" (the cascade refitted on each split's training part, whose orders have {span} "
          f"models; the order above, {len(doc['order'])} models, is the one fitted on all "
          "the data)", **wrap)
    so = doc["static_order"]
    lines += textwrap.wrap(f"asking every model of the order instead: error {so['error']:.4f}"
                           f" at {so['cost']:.4g} USD per query", **wrap)
    lines += textwrap.wrap(rec["verdict"], **wrap)
    if rec.get("why_not_cheaper"):
        lines += textwrap.wrap(rec["why_not_cheaper"], **wrap)
    if rec.get("dearer_but_better"):
        lines += textwrap.wrap(rec["dearer_but_better"], **wrap)
    lines += textwrap.wrap(f"rule: {rec['rule']}, among {rec['n_candidates']} choices costing "
                           "at most the cascade (of: the cascade, its static order, every "
                           "model alone)", **wrap)
    return "\n".join(lines)
