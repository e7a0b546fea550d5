"""``ensel cascade DATA --prices P [--target-cost B | --target-error E] [--json]``.

Fits :class:`ensel.cascade.Cascade` on each training split and reports the expected cost
per query and the held-out error with intervals, and how many models were asked (schema
``ensel.cascade/1``)::

    {"schema": "ensel.cascade/1", "order": [str], "threshold": float,
     "error": float, "error_low": float, "error_high": float,
     "cost": float, "cost_low": float, "cost_high": float,
     "asked_histogram": {n: fraction}, "evaluation": {...}}
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ensel._errors import UsageError
from ensel.cli._prices import add_common_arguments, interval, prepare
from ensel.protocol import PAPER_PROTOCOL

__all__ = ["add_arguments", "run_command", "run_cascade"]


def add_arguments(p: Any) -> None:
    """Arguments of ``ensel cascade``."""
    add_common_arguments(p, cascade_only=True)
    p.add_argument("--target-cost", type=float, default=None, help="dollars per query")
    p.add_argument("--target-error", type=float, default=None)
    p.add_argument("--budget-usd", type=float, default=None,
                   help="largest dollars per query of one query")


def run_cascade(data: list[Any], usd: np.ndarray, *, target_cost: float | None = None,
                target_error: float | None = None, budget: float | None = None,
                aggregator: str = "backoff", n_splits: int = PAPER_PROTOCOL.n_splits, seed: int = 0,
                max_models: int = 20) -> dict[str, Any]:
    """The ``ensel.cascade/1`` document (without ``data``, ``prices``)."""
    from ensel.cascade import Cascade
    from ensel.costs import check_budget
    from ensel.experiment import split_indices

    if target_cost is not None:
        check_budget(target_cost, usd, name="--target-cost")
    if budget is not None:
        check_budget(budget, usd, name="--budget-usd")
    if target_error is not None and not 0 <= target_error <= 1:
        raise UsageError(f"--target-error must be in [0, 1]; got {target_error!r}")
    errs, costs, asked_all = [], [], []
    for d in data:
        for s in range(n_splits):
            tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=seed,
                                   item_ids=d.items)
            cas = Cascade(costs=usd, budget=budget, target_cost=target_cost,
                          target_error=target_error, max_models=max_models,
                          aggregator=aggregator, random_state=seed).fit(d.X[tr], d.y[tr])
            pred, asked = cas.predict_with_cost(d.X[te])
            run = np.concatenate([[0.0], np.cumsum(usd[cas.order_])])
            errs.append(float(np.mean(pred != d.y[te])))
            costs.append(float(run[asked].mean()))
            asked_all.append(asked)
    X = np.concatenate([d.X for d in data])
    y = np.concatenate([d.y for d in data])
    full = Cascade(costs=usd, budget=budget, target_cost=target_cost, target_error=target_error,
                   max_models=max_models, aggregator=aggregator, random_state=seed).fit(X, y)
    e = interval(np.asarray(errs))
    c = interval(np.asarray(costs), clip=False)
    a = np.concatenate(asked_all)
    hist = {str(int(v)): float(np.mean(a == v)) for v in np.unique(a)}
    return {"order": [data[0].models[j] for j in full.order_],
            "usd_per_query": [float(usd[j]) for j in full.order_],
            "threshold": float(full.threshold_),
            "error": e[0], "error_low": e[1], "error_high": e[2],
            "cost": c[0], "cost_low": c[1], "cost_high": c[2],
            "asked_histogram": hist,
            "evaluation": {"n_splits": n_splits, "n_evaluations": len(errs),
                           "test_fraction": 0.2, "seed": seed, "confidence": 0.95}}


def run_command(args: Any) -> int:
    """``ensel cascade``."""
    if args.target_cost is not None and args.target_error is not None:
        raise UsageError("give --target-cost or --target-error, not both")
    data, usd, dropped, source = prepare(args)
    doc = run_cascade(data, usd, target_cost=args.target_cost, target_error=args.target_error,
                      budget=args.budget_usd, aggregator=args.aggregator,
                      n_splits=args.splits, seed=args.seed, max_models=args.max_models)
    doc = {"schema": "ensel.cascade/1", "data": list(args.data), "prices": source,
           "dropped_models": dropped, **doc}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"Cascade order: {' -> '.join(doc['order'])} (threshold {doc['threshold']:.3g})")
    print(f"  held-out error {doc['error']:.4f} [{doc['error_low']:.4f}, "
          f"{doc['error_high']:.4f}]; cost {doc['cost']:.6g} [{doc['cost_low']:.6g}, "
          f"{doc['cost_high']:.6g}] USD per query")
    print("  models asked: " + ", ".join(f"{k}: {v:.1%}"
                                         for k, v in doc["asked_histogram"].items()))
    return 0
