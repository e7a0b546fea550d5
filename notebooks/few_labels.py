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
# # Beyond the paper: a handful of labels
#
# A team deploying LLMs on its own task has the models' answers on thousands of its queries
# and gold answers for a few it checked by hand. This page (ensel's own, not the paper's)
# measures {func}`ensel.fewlabels.choose_with_labels`, which chooses the ensemble from both
# (the label-free Dawid-Skene model anchored by the gold it has, the selector on gold and
# imputed labels, a prediction-powered error with an interval), and
# {func}`ensel.fewlabels.label_next`, which says which items to label next.
#
# On each data set and seeded repeat the items are split by their ids into a *labelling
# pool* of at most {glue:text}`labelling_pool:,.0f` items, whose gold is hidden, and a
# *held-out* part with its full gold, on which everything is scored. Gold is revealed for
# $N$ pool items at random, by `label_next`'s `"decisive"` order (after
# {glue:text}`first_random` random labels: it needs one) or by its label-free
# `"disagreement"` order. With those $N$ labels we compare the few-label choice with the
# full-label choice (every pool item's gold), the best single model by accuracy on the same
# $N$ labels, Dawid-Skene over all models anchored by them
# ({class}`ensel.aggregate.DawidSkene`, the crowd-kit model) and the plurality vote.
#
# **Summary.** The first $N$ from which the few-label choice (labels at random) is within
# noise of the full-label choice: {glue:text}`reach_random_text`. The `"decisive"` order
# gets there with fewer labels than random on {glue:text}`n_fewer_real` of
# {glue:text}`n_real` real sources ({glue:text}`fewer_text`). The stated 95 % intervals
# cover the held-out error in {glue:text}`cov_random:.1%` (se {glue:text}`cov_random_se:.1%`)
# of {glue:text}`n_cov_random` choices with random labels ({glue:text}`cov_random_verdict`
# the nominal rate) and in
# {glue:text}`cov_all:.0%` of {glue:text}`n_cov_all` over all three orders
# ({glue:text}`cov_all_verdict` it).

# %% tags=["parameters"]
seed = 0
real_sources = None  # None: every real source of the book
pool_models = 20  # models of each seeded pool
pool_items = 3000  # items of each seeded pool
labelling_pool = 600  # items whose gold is hidden, per repeat
n_labels = [0, 10, 20, 50, 100, 200]
n_repeats = 8
n_draws = 100  # choose_with_labels' bootstrap draws (default 200)
max_batch = 50  # most labels label_next picks before the next call

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt

from ensel.book.claims import PageChecks
from ensel.book.few_labels import (
    FIRST_RANDOM,
    calibration_table,
    coverage,
    coverage_verdict,
    page_sources,
    plot_curves,
    reach_table,
    run_all,
    versus_random,
)
from ensel.book.profiles import label
from ensel.book.theory_pages import glue
from ensel.fewlabels import TOLERANCE

checks = PageChecks("few_labels")
glue("labelling_pool", labelling_pool, display=False)
glue("first_random", FIRST_RANDOM, display=False)
glue("tolerance", TOLERANCE, display=False)

# %% [markdown]
# ## The experiment
#
# The real sources: MMLU-Pro and MMLU-Redux read natively (each question's options,
# {func}`ensel.data.answer_matrix`), LLMBar's judges as binary answers; the seeded pools
# ({mod}`ensel.pools`) have families of five models that share their mistakes. Each of
# {glue:text}`n_repeats` repeats draws a fresh labelling pool.

# %%
sources, missing = page_sources(real_sources, pool_models=pool_models,
                                pool_items=pool_items, seed=seed)
results = run_all(sources, grid=n_labels, n_repeats=n_repeats,
                  pool_items=labelling_pool, n_draws=n_draws,
                  max_batch=max_batch, seed=seed)

# %% tags=["remove-cell"]
from ensel.book.protocol import mark_synthetic_figures

mark_synthetic_figures("partly" if len(sources) > 2 else "simulated")  # stamped inside the image
glue("n_repeats", n_repeats, display=False)
glue("n_draws", n_draws, display=False)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Held-out error against the number N of gold labels (labels at random; mean and 95 % interval over the repeats): the few-label choice, the best single model and Dawid-Skene with the same N labels; the few-label choice with labels in label_next's decisive and disagreement orders (thin); the full-label choice (grey band) and the plurality vote of all models (grey line). choose_with_labels needs one label, so its curve starts at N = 10.", "name": "fig-few-labels-curves"}}
plot_curves(results)
plt.show()

# %% [markdown]
# ## How many labels, and which
#
# For each data set and label order: the first $N$ from which the few-label choice's
# excess error over the full-label choice (paired by repeat, 95 % interval) is never above
# {glue:text}`tolerance` (the library's tolerance of equivalent choices) beyond noise, and
# whether `"decisive"` gets there with fewer labels than random:

# %%
vs = versus_random(results)
vs

# %% tags=["remove-cell"]
reach = reach_table(results).set_index(["data", "strategy"])
real = [s.name for s in sources if s.kind == "real"]
show = {s.name: label(s.name) if s.kind == "real" else s.name for s in sources}
fewer = [d for d in real if vs.loc[d, "decisive vs random"] == "fewer"]
not_fewer = [f"{show[d]} ({vs.loc[d, 'decisive vs random']})" for d in real
             if d not in fewer]
glue("n_real", len(real), display=False)
glue("n_fewer_real", len(fewer), display=False)
glue("fewer_text", "; ".join(
    ([f"fewer on {', '.join(show[d] for d in fewer)}"] if fewer else [])
    + ([f"not on {', '.join(not_fewer)}"] if not_fewer else [])) or "no real source here",
    display=False)
glue("not_fewer_text", ", ".join(not_fewer) if not_fewer else "nowhere", display=False)


top = max(n for n in n_labels if n)
rnd = reach.xs("random", level="strategy")["N within noise"]
glue("reach_random_text", "; ".join(
    f"{show[d]}: not by N = {top}" if n != n else f"{show[d]}: N = {int(n)}"
    for d, n in rnd.items()), display=False)
last = reach.xs("random", level="strategy")["excess error there"]
glue("excess_text", "; ".join(f"{show[d]}: {e}" for d, e in last.items()),
     display=False)

# %% [markdown]
# The excess error at that $N$ with random labels (mean [95 % interval]):
# {glue:text}`excess_text`. Where `"decisive"` does not need fewer labels than random, the
# table says so; on the real sources that is {glue:text}`not_fewer_text`.

# %% [markdown]
# ## Are the stated intervals honest?
#
# `choose_with_labels` states a 95 % interval for its choice's error (here from
# {glue:text}`n_draws` draws), prediction-powered: valid when the labels are a random
# sample. Across the repeats and $N$, the share of choices whose interval for an error
# measured on the held-out part (`interval_on`, which adds that part's own sampling noise)
# contains it; "(below)"/"(above)": the nominal 95 % is outside the share's 95 % interval:

# %%
calibration_table(results)

# %% tags=["remove-cell"]
cov_r, n_r = coverage(results, "random")
cov_a, n_a = coverage(results)
glue("cov_random", cov_r, display=False)
glue("n_cov_random", n_r, display=False)
glue("cov_random_se", (cov_r * (1 - cov_r) / n_r) ** 0.5, display=False)
glue("cov_all", cov_a, display=False)
glue("n_cov_all", n_a, display=False)
glue("cov_random_verdict", coverage_verdict(results, "random"), display=False)
glue("cov_all_verdict", coverage_verdict(results), display=False)
few = results[results["arm"] == "few"]
checks.equal("few-label choices whose interval does not contain their stated error",
             int(((few["low"] > few["stated"]) | (few["stated"] > few["high"])).sum()), 0)
checks.at_most("held-out errors outside [0, 1]",
               int(((results["error"] < 0) | (results["error"] > 1)).sum()), 0)
for name, g in few.groupby("data"):
    w = g.assign(width=g["high"] - g["low"]).groupby("n_labels")["width"].mean()
    checks.at_most(f"{name}: mean interval width at N = {w.index[-1]} minus at "
                   f"N = {w.index[0]} (intervals narrow as labels grow)",
                   float(w.iloc[-1] - w.iloc[0]), 0.0)

# %% [markdown]
# Real sources not available here: {glue:text}`missing_text` (read from the mirror or the
# download cache: `python -m ensel.datasets fetch <name>`).

# %% tags=["remove-cell"]
glue("missing_text", ", ".join(missing) if missing else "none", display=False)

# %% tags=["remove-input"]
checks.report()
