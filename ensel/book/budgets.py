"""Page support of "Beyond the paper: budgets in dollars" (``notebooks/budgets.py``).

The library does the work (:mod:`ensel.costs`, :mod:`ensel.budget`, :mod:`ensel.cascade`,
:mod:`ensel.frontier`); this module loads the page's data sets with their prices, states the
seeded pools' price rule and turns frontier documents into the page's tables and figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ensel.protocol import Protocol

__all__ = ["PricedSource", "priced_sources", "pool_prices", "priced_pool", "run_frontier",
           "reach_table", "cascade_table", "verdict_table", "price_table", "plot_frontiers",
           "POOL_PRICE_RULE"]

#: The stated rule of the seeded pools' prices (see :func:`pool_prices`).
POOL_PRICE_RULE = ("log10(USD per query) = −4 + 2 (a − a₀) / (a₁ − a₀) + N(0, 0.3²), where a is "
                   "the model's true accuracy and a₀, a₁ the lowest and highest accuracy of its "
                   "pool: the most accurate models cost about 100x the least accurate, with a "
                   "spread of about 2x at equal accuracy")


@dataclass
class PricedSource:
    """One data set of the page: its conditions (priced models only) and prices."""

    name: str
    data: list[Any] = field(repr=False)
    usd: np.ndarray = field(repr=False)
    dropped: list[str]


def pool_prices(accuracy: Any, *, random_state: int = 0) -> np.ndarray:
    """Prices of a seeded pool by :data:`POOL_PRICE_RULE`."""
    a = np.asarray(accuracy, dtype=float)
    span = max(float(a.max() - a.min()), 1e-12)
    rng = np.random.default_rng(random_state)
    return 10.0 ** (-4.0 + 2.0 * (a - a.min()) / span + rng.normal(0.0, 0.3, a.size))


def priced_pool(m: int, n: int, *, seed: int = 0) -> PricedSource:
    """A seeded family pool of ``m`` models (seed ``seed + m``) with prices by the rule."""
    from ensel.experiment import ConditionData
    from ensel.pools import family_pool

    pool = family_pool(m, n, random_state=seed + m)
    names = [f"model{j:04d}" for j in range(m)]
    d = ConditionData("all", pool.X, pool.y, names, np.arange(n))
    return PricedSource(f"pool of {m}", [d], pool_prices(pool.accuracy,
                                                         random_state=seed + m), [])


def priced_sources(names: Sequence[str]) -> list[PricedSource]:
    """The real sources ``names`` with the shipped prices (unpriced models dropped)."""
    from ensel.costs import shipped_prices
    from ensel.datasets import load
    from ensel.experiment import condition_data

    prices = shipped_prices()
    out = []
    for name in names:
        df = load(name)
        models = sorted(df["model"].astype(str).unique())
        _, kept, dropped = prices.for_models(models, drop_unpriced=True)
        data = condition_data(df[df["model"].astype(str).isin(kept)], validate=False)
        usd, _, _ = prices.for_models(data[0].models)
        out.append(PricedSource(name, data, usd, dropped))
    return out


def run_frontier(src: PricedSource, *, n_budgets: int, protocol: Protocol, max_models: int,
                 methods: Sequence[str] | None = None,
                 n_jobs: int | None = None) -> dict[str, Any]:
    """The frontier document of one source (:func:`ensel.frontier.frontier_summary`) on the
    splits of ``protocol``."""
    from ensel.frontier import (
        METHODS,
        best_single_price,
        budget_grid,
        frontier_errors,
        frontier_summary,
    )

    budgets = budget_grid(src.usd, n_budgets, max_models=max_models,
                          include=[best_single_price(src.data, src.usd)])
    res = frontier_errors(src.data, src.usd, budgets, methods=methods or METHODS,
                          protocol=protocol, max_models=max_models, n_jobs=n_jobs)
    return frontier_summary(res, usd=src.usd, models=src.data[0].models, protocol=protocol,
                            dropped=src.dropped)


def price_table() -> pd.DataFrame:
    """The shipped prices: model, provider, USD per query, list prices, date, rule."""
    from ensel.costs import shipped_prices

    p = shipped_prices()
    t = p.table.reset_index()
    t["usd_per_query"] = p.usd_per_query.to_numpy()
    return t[["model", "provider", "usd_per_m_input", "usd_per_m_output", "usd_per_query",
              "price_date", "rule"]]


def _fmt(v: Any, lo: Any, hi: Any, spec: str) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "not reached"
    return f"{v:{spec}} [{lo:{spec}}, {hi:{spec}}]"


def reach_table(doc: dict[str, Any]) -> pd.DataFrame:
    """Per method: the cost at which it first reaches the best single model's error, and the
    error it reaches at the best single model's cost, each with its interval."""
    rows = []
    for name, r in doc["reach"].items():
        rows.append({"method": name,
                     "USD/query to reach best single's error":
                         _fmt(r["cost_to_best_single_error"], r["low"], r["high"], ".2e"),
                     "reached in": f"{r['reached_in']}/{r['n_evaluations']}",
                     "error at best single's cost":
                         _fmt(r["error_at_best_single_cost"], r["low_e"], r["high_e"], ".4f"),
                     "AIQ": _fmt(doc["methods"][name]["aiq"], doc["methods"][name]["aiq_low"],
                                 doc["methods"][name]["aiq_high"], ".4f")})
    return pd.DataFrame(rows).set_index("method")


def cascade_table(docs: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Per source: the cascade's most accurate target against the static subsets."""
    rows = []
    for name, doc in docs.items():
        c = doc["cascade_vs_static"]
        if c is None:
            continue
        rows.append({"data": name,
                     "cascade error": _fmt(c["cascade_error"], c["cascade_error_low"],
                                           c["cascade_error_high"], ".4f"),
                     "cascade USD/query": f"{c['cascade_cost']:.2e}",
                     "cost ratio vs static of same error":
                         _fmt(c["ratio"], c["low"], c["high"], ".2f"),
                     "matched": f"{c['matched_in']}/{c['n_evaluations']}",
                     "best static error": f"{c['static_best_error']:.4f}",
                     "cascade reaches it": f"{c['cascade_reaches_static_best_in']}/"
                                           f"{c['n_evaluations']}"})
    return pd.DataFrame(rows).set_index("data") if rows else pd.DataFrame()


def verdict_table(docs: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Per source: budgeted selection minus Top-k under the same budget, by verdict."""
    rows = []
    for name, doc in docs.items():
        v = pd.Series([r["verdict"] for r in doc["budgeted_vs_topk"]])
        worst = max(doc["budgeted_vs_topk"], key=lambda r: r["difference"])
        rows.append({"data": name, "budgets": len(v),
                     "better (holds)": int((v == "holds").sum()),
                     "within noise": int((v == "within noise").sum()),
                     "worse (contradicted)": int((v == "contradicted").sum()),
                     "largest difference": f"{worst['difference']:+.4f} "
                                           f"[{worst['low']:+.4f}, {worst['high']:+.4f}]"})
    return pd.DataFrame(rows).set_index("data")


def plot_frontiers(docs: dict[str, dict[str, Any]]) -> Any:
    """One panel per source: mean error against mean cost per query with each method's hull."""
    from ensel.book.figures import small_multiples
    from ensel.frontier import draw_frontier

    def draw(ax: Any, name: str) -> None:
        draw_frontier(ax, docs[name], aiq_in_label=False)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("USD per query (log)")
        ax.set_ylabel("")

    return small_multiples(docs, draw, max_cols=3, panel=(4.2, 3.4), ylabel="held-out error")
