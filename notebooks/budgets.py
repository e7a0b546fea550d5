# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Beyond the paper: budgets in dollars
#
# The paper's budget is $k$ calls per query; users pay per query, and the models of one pool
# differ in price by 10-100x. This page (ensel's own, not the paper's) puts prices on the
# models and asks three questions with the book's protocol (random 80/20 splits, held-out
# error, overlap-corrected 95 % intervals):
#
# * does **selection within a dollar budget** ({class}`ensel.budget.BudgetedScoreMI`:
#   cost-benefit greedy against plain greedy on `score_mi`'s gain, the better of the two, as
#   in Krause & Guestrin's budgeted submodular maximisation) do at least as well as Top-k by
#   accuracy under the same budget?
# * what does the **cost-error frontier** look like for budgeted selection, Top-k under
#   budget, cheapest-first, the best single model within budget and an **adaptive cascade**
#   ({class}`ensel.cascade.Cascade`: models asked one at a time until the posterior of the
#   fitted aggregator clears a threshold tuned for the budget)?
# * does the cascade reach the static ensembles' error at a lower cost?
#
# **Summary.** Over {glue:text}`n_sources` data sets and {glue:text}`n_budget_cmp` budgets,
# budgeted selection is worse than Top-k under the same budget beyond the noise at
# {glue:text}`n_contradicted` budgets and better beyond the noise at {glue:text}`n_holds`.
# The cascade reaches the most accurate static subset's error on
# {glue:text}`cascade_reach_text` evaluations; its cost against the static subset of its own
# error is in the table of the last section.

# %% tags=["parameters"]
seed = 0
real_sources = None  # None: every real source of the book
pool_models = [50, 300, 1000]
pool_items = 4000
n_budgets = 12  # geometric: cheapest model to the 20 priciest together
n_splits = 3  # per condition of a real source
pool_splits = 3
max_models = 20  # largest subset and longest cascade order

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt

from ensel.book.budgets import (
    POOL_PRICE_RULE,
    cascade_table,
    plot_frontiers,
    price_table,
    priced_pool,
    priced_sources,
    reach_table,
    run_frontier,
    verdict_table,
)
from ensel.book.claims import PageChecks
from ensel.book.large_pools import available
from ensel.book.profiles import names
from ensel.book.theory_pages import glue
from ensel.protocol import Protocol
from ensel.stats import CONTRADICTED, HOLDS

checks = PageChecks("budgets")
have, missing = available(names("real") if real_sources is None else real_sources)

# %% [markdown]
# ## Prices
#
# The shipped table ({func}`ensel.costs.shipped_prices`, `data/prices.csv`) gives each
# model of the real sources its provider's list price per million tokens, the date it was
# in force and where it was published; open-weight models get the hosted price of their
# size tier, and models that fit no rule are left out with a notice
# (`data/prices.md`). The cost per query assumes 1,000 input and 300 output tokens for
# every model: it compares the models of one source, it is not anyone's bill.

# %%
price_table().round(6)

# %% [markdown]
# The seeded pools' prices follow one stated rule: {glue:text}`pool_rule`.

# %% tags=["remove-cell"]
glue("pool_rule", POOL_PRICE_RULE, display=False)
sources = priced_sources(have)
sources += [priced_pool(m, pool_items, seed=seed) for m in pool_models]
for s in sources:
    if s.dropped:
        print(f"{s.name}: left out (no price): {', '.join(s.dropped)}")

# %% [markdown]
# ## The frontiers
#
# For each data set, each method at each budget of the grid: the held-out error against the
# mean cost per query, and RouterBench's non-decreasing convex hull (lines).

# %%
docs = {}
for s in sources:
    splits = pool_splits if s.name.startswith("pool") else n_splits
    pr = Protocol(n_splits=splits, seed=seed)
    docs[s.name] = run_frontier(s, n_budgets=n_budgets, protocol=pr,
                                max_models=max_models)

# %% tags=["remove-cell"]
from ensel.book.protocol import mark_synthetic_figures

mark_synthetic_figures("partly" if have else "simulated")  # stamped inside the image

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Held-out error against cost per query (log scale) on each data set: points are the methods at each budget (mean over the splits), lines their non-decreasing convex hull.", "name": "fig-budgets-frontiers"}}
plot_frontiers(docs)
plt.show()

# %% [markdown]
# For each data set, the cost at which each method first reaches the best single model's
# error, the error it reaches at the best single model's cost, and the area under its hull
# (AIQ: mean quality $1 - \text{error}$ over costs from 0 to the largest budget), each with
# its 95 % interval:

# %% tags=["remove-output"]
tables = {name: reach_table(doc) for name, doc in docs.items()}

# %% tags=["remove-input"]
for name, table in tables.items():
    print(name)
    display(table)  # noqa: F821

# %% [markdown]
# ## Budgeted selection against Top-k under the same budget
#
# The paired difference of held-out errors (budgeted minus Top-k) at every budget, by
# verdict; "largest difference" is the budget where budgeted selection did worst.

# %%
verdict_table(docs)

# %% tags=["remove-cell"]
verdicts = [r["verdict"] for d in docs.values() for r in d["budgeted_vs_topk"]]
glue("n_sources", len(docs), display=False)
glue("n_budget_cmp", len(verdicts), display=False)
glue("n_contradicted", verdicts.count(CONTRADICTED), display=False)
glue("n_holds", verdicts.count(HOLDS), display=False)
checks.equal("budgeted selection worse than Top-k under the same budget beyond noise "
             "(budgets, all data sets)", verdicts.count(CONTRADICTED), 0)
for name, doc in docs.items():
    for m, mdoc in doc["methods"].items():
        checks.add(f"{name}: {m}: AIQ interval inside [0, 1] and around its mean",
                   0 <= mdoc["aiq_low"] <= mdoc["aiq"] <= mdoc["aiq_high"] <= 1)
    static = [p for m in ("budgeted", "topk_budget", "cheapest_first", "best_single")
              for p, b in zip(doc["methods"][m]["points"], doc["budgets"], strict=True)
              if p["cost"] > b * (1 + 1e-9)]
    checks.equal(f"{name}: static subsets within their budget", len(static), 0)
    gain = doc["aiq_vs_topk"]["budgeted"]
    checks.add(f"{name}: budgeted selection's AIQ not below Top-k's beyond noise",
               gain["verdict"] != CONTRADICTED, value=f"{gain['difference']:+.4f}")

# %% [markdown]
# ## The cascade against static subsets
#
# At the cascade's most accurate target: its error, its cost per query, and the ratio of
# its cost to the cheapest static (budgeted) subset with at most its error (geometric mean
# over the evaluations where one exists, with its interval), and on how many evaluations it
# reaches the error of the most accurate static subset at all.

# %%
cascade_table(docs)

# %% tags=["remove-cell"]
reach = [(d["cascade_vs_static"]["cascade_reaches_static_best_in"],
          d["cascade_vs_static"]["n_evaluations"]) for d in docs.values()]
glue("cascade_reach_text", f"{sum(r for r, _ in reach)} of {sum(n for _, n in reach)}",
     display=False)
for name, doc in docs.items():
    c = doc["cascade_vs_static"]
    checks.add(f"{name}: the cascade's cost is within the largest budget",
               c["cascade_cost"] <= max(doc["budgets"]) * (1 + 1e-9),
               value=f"{c['cascade_cost']:.3g}")

# %% [markdown]
# Where the ratio is below 1 the cascade buys the static subset's error for less; where it
# is above 1, or the cascade never reaches the most accurate static subset, paying for the
# whole subset on every query is the better deal on that data set.
#
# Real sources not available here: {glue:text}`missing_text` (read from the mirror or the
# download cache: `python -m ensel.datasets fetch <name>`).

# %% tags=["remove-cell"]
glue("missing_text", ", ".join(missing) if missing else "none", display=False)

# %% tags=["remove-input"]
checks.report()
