"""The commands that pay in dollars: ``ensel select --budget-usd``, ``ensel frontier``,
``ensel cascade``.

A thin layer over :mod:`ensel.costs` (price tables), :mod:`ensel.budget` (selection within a
dollar budget), :mod:`ensel.cascade` and :mod:`ensel.frontier` (the protocol's splits, one
evaluation loop, :func:`ensel.stats.paired_interval` intervals).

``ensel select DATA --budget-usd B --prices P [--drop-unpriced] [-k K] [--json]``
    Picks models within ``B`` dollars per query (:class:`ensel.budget.BudgetedScoreMI` on all
    the data; ``-k`` caps their number) and reports held-out error and cost per query with
    intervals next to Top-k under the same budget, cheapest-first and the best single model
    within budget. JSON schema ``ensel.select-budget/1``::

        {"schema": "ensel.select-budget/1", "data": [str], "budget_usd": float,
         "prices": str, "dropped_models": [str], "n_items": int, "n_models": int,
         "selected": [{"model": str, "usd_per_query": float}], "cost": float,
         "run": "cost_benefit" | "plain",
         "arms": {name: {"error": float, "error_low": float, "error_high": float,
                         "cost": float, "cost_low": float, "cost_high": float}},
         "comparisons": [{"against": str, "difference": float, "low": float,
                          "high": float, "verdict": str}],
         "evaluation": {...}}

``ensel frontier DATA --prices P [--budgets N] [--json] [-o FIGURE.png|.html]``
    The cost-error frontier (:func:`ensel.frontier.frontier_summary`, schema
    ``ensel.frontier/1``) and its figure, over ``N`` budgets plus the price of the most
    accurate model.

``ensel cascade DATA --prices P [--target-cost B | --target-error E] [--json]``
    Fits :class:`ensel.cascade.Cascade` on each training split and reports the expected cost
    per query and the held-out error with intervals, and how many models were asked
    (schema ``ensel.cascade/1``)::

        {"schema": "ensel.cascade/1", "order": [str], "threshold": float,
         "error": float, "error_low": float, "error_high": float,
         "cost": float, "cost_low": float, "cost_high": float,
         "asked_histogram": {n: fraction}, "evaluation": {...}}

A price table missing a model of the data is an error (exit 2) unless ``--drop-unpriced``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ensel._errors import UsageError
from ensel.protocol import PAPER_PROTOCOL

__all__ = ["add_price_arguments", "add_frontier_arguments", "add_cascade_arguments",
           "prepare", "select_budget_command", "frontier_command", "cascade_command",
           "run_select_budget", "run_cascade", "frontier_figure", "draw_frontier"]


def add_price_arguments(p: Any) -> None:
    """``--prices``, ``--drop-unpriced``."""
    p.add_argument("--prices", default=None, metavar="P",
                   help="price table (CSV model,usd_per_query or per-token columns; YAML); "
                        "'shipped' for ensel's dated list prices; 'tidy' for the data's own "
                        "cost column (mean USD per answer)")
    p.add_argument("--drop-unpriced", action="store_true",
                   help="drop the data's models that have no price (default: error)")


def _common(p: Any) -> None:
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) or a dataset name (ensel datasets list)")
    add_price_arguments(p)
    p.add_argument("--aggregator", default="backoff")
    p.add_argument("--splits", type=int, default=5, help="random 80/20 splits per condition")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-models", type=int, default=20,
                   help="largest number of models of a subset or of the cascade's order")
    p.add_argument("--json", action="store_true")
    p.add_argument("--format", default=None, help="input format (default: detected)")


def add_frontier_arguments(p: Any) -> None:
    """Arguments of ``ensel frontier``."""
    _common(p)
    p.add_argument("--budgets", type=int, default=20, help="number of budgets (geometric grid)")
    p.add_argument("--no-cascade", action="store_true", help="leave the cascade out")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="threads over the splits (-1: one per core); the same output for "
                        "every N")
    p.add_argument("-o", "--output", default=None, help="figure to write (.png or .html)")


def add_cascade_arguments(p: Any) -> None:
    """Arguments of ``ensel cascade``."""
    _common(p)
    p.add_argument("--target-cost", type=float, default=None, help="dollars per query")
    p.add_argument("--target-error", type=float, default=None)
    p.add_argument("--budget-usd", type=float, default=None,
                   help="largest dollars per query of one query")


def prepare(args: Any) -> tuple[list[Any], np.ndarray, list[str], str]:
    """Read the data and the prices; the conditions (priced models only), their prices,
    the dropped models and the price table's name."""
    from ensel.costs import PriceError, prices_from_tidy, read_prices, shipped_prices
    from ensel.datasets import read_data
    from ensel.experiment import condition_data

    if args.prices is None:
        raise PriceError("--prices is required: a price table (CSV or YAML), 'shipped' or "
                         "'tidy' (the data's cost column)")
    df = read_data(args.data[0] if len(args.data) == 1 else list(args.data), format=args.format)
    prices = (shipped_prices() if args.prices == "shipped"
              else prices_from_tidy(df) if args.prices == "tidy"
              else read_prices(args.prices))
    models = sorted(df["model"].astype(str).unique())
    usd, kept, dropped = prices.for_models(models, drop_unpriced=args.drop_unpriced)
    if dropped:
        from ensel._notice import notice

        notice(f"{len(dropped)} unpriced model(s) dropped: {', '.join(dropped)}")
        df = df[df["model"].astype(str).isin(kept)]
    data = condition_data(df, validate=False)
    order = {m: i for i, m in enumerate(kept)}
    usd = np.array([usd[order[m]] for m in data[0].models])
    return data, usd, dropped, str(args.prices)


def _interval(v: np.ndarray, clip: bool = True) -> tuple[float, float, float]:
    from ensel.frontier import _interval as interval

    return interval(v, 0.2, 0.95, clip=(0.0, 1.0) if clip else (0.0, float("inf")))


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
        e = _interval(g["error"].to_numpy())
        c = _interval(g["cost"].to_numpy(), clip=False)
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


def select_budget_command(args: Any) -> int:
    """``ensel select --budget-usd``."""
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


def draw_frontier(ax: Any, doc: dict[str, Any], *, aiq_in_label: bool = True) -> None:
    """Draw one frontier document on ``ax``: each method's mean (cost, error) points and its
    hull, on a log cost axis (the hull is linear in cost, so it is drawn densely)."""
    for i, (name, mdoc) in enumerate(doc["methods"].items()):
        x = [p["cost"] for p in mdoc["points"]]
        y = [p["error"] for p in mdoc["points"]]
        label = f"{name} (AIQ {mdoc['aiq']:.3f})" if aiq_in_label else name
        ax.plot(x, y, "o", ms=3, alpha=0.6, color=f"C{i}")
        h = np.asarray(mdoc["hull"])[1:]  # without the zero-cost guess (log axis)
        if len(h) > 1:
            xs = np.concatenate([np.linspace(a, b, 30) for a, b in zip(h[:-1, 0], h[1:, 0],
                                                                          strict=True)])
            ax.plot(xs, np.interp(xs, h[:, 0], h[:, 1]), "-", color=f"C{i}", label=label)
        else:
            ax.plot(x[:1], y[:1], "-", color=f"C{i}", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("cost per query (USD, log scale)")
    ax.set_ylabel("held-out error")


def frontier_figure(doc: dict[str, Any], path: str | None = None) -> Any:
    """Error against cost per query, one line per method with its hull; saved to ``path``
    (``.png``, or ``.html`` with the PNG embedded) when given."""
    import matplotlib

    if path:  # writing a file (the command line): no display needed
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    draw_frontier(ax, doc)
    ax.legend(fontsize=8)
    fig.tight_layout()
    if path:
        if str(path).endswith(".html"):
            import base64
            import io

            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=120)
            data = base64.b64encode(buf.getvalue()).decode()
            with open(path, "w", encoding="utf-8") as f:
                f.write("<!doctype html><meta charset='utf-8'><title>ensel frontier</title>"
                        f"<img alt='cost-error frontier' src='data:image/png;base64,{data}'>"
                        f"<pre>{json.dumps(doc, indent=1)}</pre>")
        else:
            fig.savefig(path, dpi=120)
        plt.close(fig)
    return fig


def frontier_command(args: Any) -> int:
    """``ensel frontier``."""
    from ensel.frontier import (
        METHODS,
        best_single_price,
        budget_grid,
        frontier_errors,
        frontier_summary,
    )

    if args.output and not str(args.output).endswith((".png", ".html")):
        raise UsageError(f"-o {args.output!r}: the figure must end in .png or .html")
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
    if args.output:
        frontier_figure(doc, args.output)
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
    e = _interval(np.asarray(errs))
    c = _interval(np.asarray(costs), clip=False)
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


def cascade_command(args: Any) -> int:
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
