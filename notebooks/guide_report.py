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
# # The report: which models to use, on one page
#
# `ensel report DATA -o report.html` writes the answer to "which of my models should I
# use?" as one offline HTML page to share: first the recommendation (the models, how to
# combine them, and their held-out error against the best single model, all the models and
# no model), with prices what it costs and what to buy at each budget, then the evidence.
# This page writes it for the seeded stand-in of {doc}`guide_your_answers`.

# %% tags=["parameters"]
n_models = 9
n_items = 600
seed = 0

# %% tags=["remove-cell"]
import json

from IPython.display import HTML, display

from ensel._html import esc, unrendered_markup
from ensel.book.claims import PageChecks
from ensel.book.guide import ensel, example, workdir
from ensel.book.theory_pages import glue

checks = PageChecks("guide_report")
work = workdir()
answers, prices = example(n_models, n_items, seed=seed)
answers.to_parquet("answers.parquet", index=False)
prices.to_csv("prices.csv", index=False)

# %% [markdown]
# ## Without prices
#
# The command prints its recommendation in one line and writes the page and, beside it,
# every number of the page as JSON (`report.json`, schema `ensel.report/1`):

# %%
ensel("ensel report answers.parquet -o report.html")

# %% tags=["remove-cell"]
doc = json.loads((work / "report.json").read_text(encoding="utf-8"))
rec = doc["recommendation"]
glue("rec_models", ", ".join(rec["models"]), display=False)
glue("rec_error", f"{rec['error']:.3f} [{rec['low']:.3f}, {rec['high']:.3f}]", display=False)
glue("all_error", f"{doc['all_models']['error']:.3f}", display=False)
glue("n_report_models", doc["n_models"], display=False)
page = (work / "report.html").read_text(encoding="utf-8")
checks.add("the report's page shows no unrendered markup", unrendered_markup(page) == [])
checks.add("the recommendation comes before the evidence",
           0 <= page.find("The evidence") and page.find(rec["models"][0]) < page.find(
               "The evidence"))
checks.add("the recommended error lies in its interval",
           rec["low"] <= rec["error"] <= rec["high"])

# %% [markdown]
# Here the report recommends {glue:text}`rec_models` (held-out error
# {glue:text}`rec_error`; all {glue:text}`n_report_models` models together:
# {glue:text}`all_error`). Its first screen, as the page shows it:

# %% tags=["remove-input"]
start = page.find('<div class="answer">')
first_screen = page[start:page.find("</div>", start) + len("</div>")]
display(HTML(first_screen))

# %% tags=["remove-cell"]
checks.add("the first screen is one block with the recommendation",
           start >= 0 and first_screen.count("<div") == 1 and rec["models"][0] in first_screen)

# %% [markdown]
# ## With prices
#
# With `--prices` (the price table of {doc}`guide_budgets`) the first line says what to buy:
# the buy list's choice at its largest budget, the cheapest choice whose held-out error is as
# good as the most accurate one's, by the rule of {func}`ensel.budget.cheapest_as_good`; the
# cost-blind recommendation follows as the reference, with what it costs per query. The buy
# list comes next: that choice at each budget.

# %%
ensel("ensel report answers.parquet --prices prices.csv -o priced.html")

# %% tags=["remove-cell"]
priced = json.loads((work / "priced.json").read_text(encoding="utf-8"))
checks.add("with prices the report has a buy list", bool(priced["buy_list"]))
checks.add("with prices the first line is what the buy list buys at its largest budget",
           priced["purchase"]["models"] == priced["buy_list"][-1]["choice"]["models"]
           and '<p class="lead">' + esc(priced["purchase"]["headline"])
           in (work / "priced.html").read_text(encoding="utf-8"))
checks.add("every buy costs at most its budget",
           all(r["choice"]["cost"] <= r["budget"] * (1 + 1e-9) for r in priced["buy_list"]))
checks.add("the priced page shows no unrendered markup",
           unrendered_markup((work / "priced.html").read_text(encoding="utf-8")) == [])

# %% [markdown]
# The evidence below the first screen: the selection path (the nested error at each number
# of models), each model's accuracy, coverage (the share of questions it answered) and
# accuracy when it answered, and with prices the cost-error frontier. `ensel evaluate DATA
# -o paper.html` runs the paper's protocol instead (the {doc}`experiments page
# <experiments-medmcqa>` on your data).

# %% tags=["remove-input"]
checks.report()
