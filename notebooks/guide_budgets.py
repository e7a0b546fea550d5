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
# # Budgets in dollars: `select --budget-usd`, `frontier`, `cascade`
#
# Models of one pool differ in price by orders of magnitude, and `k` calls per query is
# not what you pay. Give each model a price per query and `ensel` selects within a budget
# in dollars, draws the cost-error frontier, or fits a cascade that asks the cheap models
# first. This page runs the three commands on the seeded stand-in of
# {doc}`guide_your_answers`, whose prices follow one stated rule:
# {glue:text}`price_rule`.

# %% tags=["parameters"]
n_models = 9
n_items = 600
seed = 0

# %% tags=["remove-cell"]
from ensel.book.budgets import POOL_PRICE_RULE
from ensel.book.claims import PageChecks
from ensel.book.guide import ensel, ensel_json, example, workdir
from ensel.book.theory_pages import glue

checks = PageChecks("guide_budgets")
work = workdir()
glue("price_rule", POOL_PRICE_RULE, display=False)
answers, prices = example(n_models, n_items, seed=seed)
answers.to_parquet("answers.parquet", index=False)

# %% [markdown]
# ## Prices
#
# A price table is a CSV with the columns `model,usd_per_query`, or per-token prices with
# token counts, or YAML ({mod}`ensel.costs`); `--prices shipped` takes the dated list
# prices of the book's real sources (`data/prices.csv`), `--prices tidy` a `cost` column of
# the answers table, and `--prices-from-store answers.sqlite` the tokens your own
# `ensel collect` run measured ({doc}`guide_collect`).

# %%
prices.to_csv("prices.csv", index=False)
prices

# %% tags=["remove-cell"]
budget = round(2 * float(prices["usd_per_query"].median()), 6)
glue("budget", f"{budget:.4f}", display=False)

# %% [markdown]
# ## Selection within a budget
#
# `--budget-usd B` answers "what should I buy for at most `B` per query?" (`-k` caps the
# number of models as well). It compares every choice within the budget (budgeted
# selection, Top-k within the budget, the cheapest models first and the best single model,
# each at every budget up to `B`, and every model alone) on the same held-out splits and
# recommends the cheapest one whose error is as good as the best's: at most one standard
# error of their paired difference, or half a point of error (`--margin`), above it
# ({func}`ensel.budget.cheapest_as_good`). A cheaper choice it does not take is named, with
# why; a dearer set is recommended only when it buys a lower error beyond the noise. The
# output then lists each method's held-out error and cost with intervals, and each named
# model's accuracy, coverage (the share of questions it answered) and accuracy when it
# answered. Here the budget is twice the median model's price, {glue:text}`budget` USD per
# query:

# %%
ensel(f"ensel select answers.parquet --budget-usd {budget}"
      " --prices prices.csv")

# %% [markdown]
# ## The cost-error frontier
#
# `ensel frontier` sweeps a grid of budgets, from the cheapest model to the priciest
# models together. It prints the buy list first (at each budget, the cheapest choice as
# good as the best, by the same rule), then each method's non-decreasing convex hull of
# error against cost and the area under it (AIQ: the mean quality `1 - error` over costs
# from 0 to the largest budget), then the models at every point. `-o frontier.png` (or
# `.html`) draws the figure, each point numbered by its set of models, `--json` gives the
# document (schema `ensel.frontier/2`):

# %%
ensel("ensel frontier answers.parquet --prices prices.csv"
      " -o frontier.png")

# %% tags=["remove-cell"]
front = ensel_json("ensel frontier answers.parquet --prices prices.csv --json")
glue("n_budgets", len(front["budgets"]), display=False)
within = [p["cost"] <= b * (1 + 1e-9)
          for m in ("budgeted", "topk_budget", "best_single")
          for p, b in zip(front["methods"][m]["points"], front["budgets"], strict=True)]
checks.add("the static subsets of the frontier stay within their budgets", all(within))
checks.add("the figure was written", (work / "frontier.png").is_file())
checks.add("every buy costs at most the best choice within its budget",
           all(r["choice"]["cost"] <= min(r["best"]["cost"], r["budget"]) * (1 + 1e-9)
               for r in front["buy_list"]))

# %% [markdown]
# The frontier above spans {glue:text}`n_budgets` budgets. The page
# {doc}`budgets` runs the same sweep on the book's real sources with the shipped prices
# and on seeded pools of up to a thousand models.
#
# ## A cascade
#
# `ensel cascade` asks the models one at a time, cheapest first, and stops as soon as the
# fitted aggregator's posterior clears a threshold tuned on the training part of each
# split, for a target cost per query (`--target-cost`), a target error (`--target-error`)
# or a budget for the worst query (`--budget-usd`). It says whether to use it: only where
# no choice that costs at most as much (a model alone, or its own models all asked) is as
# good for less:

# %%
ensel("ensel cascade answers.parquet --prices prices.csv"
      f" --target-cost {budget}")

# %% [markdown]
# In Python, {class}`ensel.cascade.Cascade` is the cascade,
# {class}`ensel.budget.BudgetedScoreMI` the selector within a budget and
# {func}`ensel.frontier.frontier_errors` the sweep. A model without a price, a price that
# is zero, negative or not a number, or a budget below the cheapest model is refused in
# one line naming the model, the row or the option (`--drop-unpriced` leaves unpriced
# models out, with a notice).

# %% tags=["remove-input"]
checks.report()
