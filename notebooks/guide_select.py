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
# # Which models to ensemble: `ensel select`
#
# `ensel select DATA -k K` picks `K` models and says, with held-out evidence, whether their
# ensemble beats the `K` most accurate models (Top-k) and the best single model;
# `-k auto` also chooses `K`. This page runs it on the seeded stand-in of
# {doc}`guide_your_answers` ({func}`ensel.book.guide.example`).

# %% tags=["parameters"]
n_models = 9
n_items = 600
seed = 0

# %% tags=["remove-cell"]
from IPython.display import Markdown

from ensel.aggregate import DEFAULT_AGGREGATOR
from ensel.book.claims import PageChecks
from ensel.book.guide import ensel, ensel_json, example, workdir
from ensel.book.theory_pages import glue
from ensel.select import DEFAULT_SELECTOR

checks = PageChecks("guide_select")
work = workdir()
answers, _ = example(n_models, n_items, seed=seed)
answers.to_parquet("answers.parquet", index=False)

# %%
ensel("ensel select answers.parquet -k auto")

# %% tags=["remove-cell"]
doc = ensel_json("ensel select answers.parquet -k auto --json")
arms = doc["evaluation"]["arms"]
glue("k_deployed", doc["k"], display=False)
glue("err_selected", f"{arms['selected']['error']:.3f}", display=False)
glue("err_single", f"{arms['best_single']['error']:.3f}", display=False)
glue("n_splits", doc["evaluation"]["n_splits"], display=False)
glue("n_halvings", doc["evaluation"]["n_halvings"], display=False)
tf = doc["evaluation"]["test_fraction"]
glue("split", f"{1 - tf:.0%}/{tf:.0%}", display=False)
glue("confidence", f"{doc['evaluation']['confidence']:.0%}", display=False)
glue("default_selector", Markdown(f"`{DEFAULT_SELECTOR}`"), display=False)  # code names
glue("default_aggregator", Markdown(f"`{DEFAULT_AGGREGATOR}`"), display=False)
checks.equal("one pick per deployed model", len(doc["selected"]), doc["k"])
checks.add("the chosen ensemble's error lies in its interval",
           arms["selected"]["low"] <= arms["selected"]["error"] <= arms["selected"]["high"])
checks.add("the deployed k is at most --max-k", 1 <= doc["k"] <= doc["auto"]["max_k"])

# %% [markdown]
# ## Reading the output
#
# * **The view**, on the first line: here yes/no answers. A multiple-choice table (option
#   labels) is read as it is, with the K-ary selectors and aggregators of
#   {data}`ensel.select.MULTICLASS_SPECS` and {data}`ensel.aggregate.MULTICLASS_SPECS`;
#   where gold is missing for some items or all (either view),
#   {func}`ensel.evidence.select_with_gaps` estimates the error from the labels and the
#   unlabelled items, says whether the labels decide and how many more they need (or, with
#   no gold, why there is no error), and names `ensel label-next`. `--binary` gives the
#   paper's yes/no view.
# * **The picks**, in order, with each model's accuracy and the information it adds to the
#   models before it (in bits). Here `-k auto` deployed {glue:text}`k_deployed` models.
# * **Held-out error** of the chosen ensemble, of Top-k at the same size and of the best
#   single model, over {glue:text}`n_splits` random {glue:text}`split` splits of the items
#   (the paper's protocol, {func}`ensel.experiment.evaluate`), with
#   {glue:text}`confidence` intervals: here
#   {glue:text}`err_selected` for the ensemble against {glue:text}`err_single` for the best
#   single model.
# * **Paired differences** (chosen minus other, on the same splits) with a verdict:
#   *holds* (the ensemble is better beyond the noise), *within noise* (the data cannot
#   tell) or *contradicted*. The intervals are corrected for the overlap of the splits and
#   checked against the same protocol run on both halves of {glue:text}`n_halvings` random
#   halvings of the items ({mod}`ensel.stats`).
# * **`-k auto`** chooses `K` by nested cross-validation with the one-standard-error rule
#   ({func}`ensel.experiment.one_se_k`: the smallest `K` within one corrected standard error
#   of the best): the line "k chosen inside the outer splits" counts the choice made inside
#   each split (so the reported errors are those of the whole procedure, choice included);
#   "on all the data" is the same rule on the whole table, and "deployed" is that choice
#   capped at the median of the nested choices. When the answer is one model, the output
#   says so.
#
# ## The defaults, beyond the paper
#
# The defaults are `ensel`'s own selector {glue:md}`default_selector` and aggregator
# {glue:md}`default_aggregator` ({data}`ensel.select.DEFAULT_SELECTOR`,
# {data}`ensel.aggregate.DEFAULT_AGGREGATOR`, the reason in
# {data}`ensel.select.DEFAULT_REASON`): the paper's Greedy MI and MAP rule count the answer
# patterns of the whole ensemble, which a few thousand items cannot fill beyond a handful
# of models. The page {doc}`large_pools` measures both against the paper's algorithms on
# every data set of the book. The paper's algorithms stay available by name:

# %%
ensel("ensel select answers.parquet -k 3"
      " --method greedy_mi --aggregator map")

# %% [markdown]
# ## Options
#
# * `--method` is any selector of {data}`ensel.select.SELECTORS` (`topk`, `relevance`,
#   `mrmr`, `greedy_mi`, `three_term`, `score_mi`, ...; `greedy-mi` and `top-k` also work)
#   or `exhaustive` (every subset, for small pools); `--aggregator` any of `map`, `mv`,
#   `wmv`, `logistic`, `backoff`.
# * `--condition C` uses one condition only (default: all, stacked); `--splits`,
#   `--halvings` and `--seed` set the protocol (large pools get fewer splits by default, said
#   in the output); `--jobs N` the threads (the same numbers for every `N`).
# * `--json` prints one document, schema `ensel.select/2` (documented in
#   {mod}`ensel.evidence`); the numbers are those of the library on the same data and seed,
#   whatever the order of the table's rows.
# * `--budget-usd B --prices P` selects within a budget in dollars: {doc}`guide_budgets`.
#
# ## The same in Python
#
# The selectors and aggregators are estimators with scikit-learn's interface (`fit`,
# `predict`, usable in a `Pipeline` or `GridSearchCV`, without scikit-learn being a
# dependency), on the items x models matrix:

# %%
from ensel.aggregate import MAPAggregator
from ensel.data import to_wide
from ensel.select import GreedyMI

X, y = to_wide(answers)
cut = int(0.8 * len(y))  # fit on the first 80 % of the items
Xfit, yfit = X.iloc[:cut], y.iloc[:cut]
Xout, yout = X.iloc[cut:], y.iloc[cut:]
picks = list(GreedyMI(k=3).fit(Xfit, yfit).selected_names_)
rule = MAPAggregator().fit(Xfit[picks], yfit)
print(picks, "accuracy", round(rule.score(Xout[picks], yout), 3))

# %% [markdown]
# The paper's whole protocol on a table is {func}`ensel.experiment.evaluate` (every
# selector, aggregator and `k` on repeated splits), and
# {func}`ensel.experiment.paired_differences` compares two arms with the intervals above.

# %% tags=["remove-cell"]
checks.equal("GreedyMI picks 3 distinct models", len(set(picks)), 3)

# %% tags=["remove-input"]
checks.report()
