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
# # Dataset card: a real source of LLM answers
#
# Where the files of this source come from, every choice made to turn them into the paper's
# binary queries (`ensel.datasets.load`), how accurate each model is, which models answer
# alike, and what to keep in mind when reading results computed on it. The book runs this
# page once per real source (`notebooks/runs.yml`); the description comes from the source's
# profile in `data/datasets.yml`. The sources are MMLU-Redux {cite}`gema2024mmluredux`, which
# grades HELM's {cite}`liang2023helm` answers to MMLU {cite}`hendrycks2021mmlu`, and LLMBar
# {cite}`zeng2024llmbar`. In short: {glue:text}`n_items:,` binary queries per
# condition, {glue:text}`n_conditions` condition(s), {glue:text}`n_models` models in
# {glue:text}`n_families` families.
#
# When the files are neither in a mirror nor in the cache, the book shows a note on how to
# get them (`python -m ensel.datasets fetch <name>`, or `ENSEL_DATA_MIRROR`) instead of
# this page.

# %% tags=["parameters"]
dataset = "mmlu_redux"  # mmlu_redux|llmbar

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, Markdown, display
from myst_nb import glue

from ensel import datasets
from ensel.book import cards, profiles, tables
from ensel.book.claims import PageChecks

checks = PageChecks(f"realdata_card-{dataset}")
prof = profiles.profile(dataset)
glue("provenance", Markdown(cards.provenance_markdown(dataset)), display=False)

# %% [markdown]
# ## Provenance
#
# {glue:md}`provenance`

# %%
registry = cards.source_registry(dataset)

# %% tags=["hide-input"]
display(HTML(tables.to_html(registry, index=False, caption="Pinned files")))

# %% tags=["remove-cell"]
checks.add("the registry pins files by a 40-hex commit",
           registry["commit"].str.fullmatch(r"[0-9a-f]{40}").all(), value=int(
               registry["files"].sum()))

# %% [markdown]
# ## Every choice of the conversion

# %% tags=["remove-input"]
display(Markdown("\n".join(f"* {c}" for c in prof["choices"])))

# %% [markdown]
# ## The binary view

# %%
df = datasets.load(dataset)
counts = cards.source_counts(df)

# %% tags=["hide-input"]
display(HTML(tables.to_html(
    counts.to_frame(),
    caption="Questions at each step" if "dropped" in df.attrs else "Records per subset")))
display(HTML(tables.to_html(df.head(4), index=False, caption="The tidy table (first rows)")))

# %% tags=["remove-cell"]
n_cond = df["condition"].nunique()
per_cond = df.groupby("condition")["item"].nunique()
checks.add("every condition has the same items", per_cond.nunique() == 1,
           value=int(per_cond.iloc[0]))
checks.add("one answer per (item, model, condition)",
           not df.duplicated(["item", "model", "condition"]).any())
checks.add("answers in {−1, 0, +1}, labels in {−1, +1}",
           set(df["answer"].unique()) <= {-1, 0, 1} and set(df["label"].unique()) == {-1, 1})
if "dropped" in df.attrs:
    d = df.attrs["dropped"]
    checks.equal("kept = annotated − duplicates − unmatched − unverified", d["kept"],
                 d["annotated"] - d["annotated_twice_differently"] - d["annotated_twice_same"]
                 - d["not_in_helm"] - d["gold_not_verified"])
    checks.equal("two binary queries per kept question", int(per_cond.iloc[0]), 2 * d["kept"])
else:
    checks.equal("one query per record", int(per_cond.iloc[0]),
                 int(sum(df.attrs["records"].values())))
glue("n_items", int(per_cond.iloc[0]), display=False)
glue("n_conditions", int(n_cond), display=False)

# %% [markdown]
# ## Models and families

# %%
fam = cards.model_families(dataset, list(dict.fromkeys(df["model"])))

# %% tags=["hide-input"]
display(HTML(tables.to_html(fam.reset_index().groupby("family")["model"].agg(", ".join)
                            .to_frame("models"), caption=f"Families: {prof['families']}")))

# %% tags=["remove-cell"]
glue("n_models", len(fam), display=False)
glue("n_families", int(fam["family"].nunique()), display=False)

# %% [markdown]
# ## Accuracy per model
#
# Accuracy over all binary queries of each condition (an abstention counts as an error),
# the abstention rate, the accuracy on the queries a model answered, and the error on each
# label. The dotted line is chance.

# %%
acc = cards.source_accuracy(df)

# %% tags=["hide-input"]
display(HTML(tables.to_html(tables.format_numbers(acc.unstack("condition"), 3),
                            small=True, caption=f"{prof['label']}: accuracy per model")))

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Accuracy per model and condition on the binary queries; dotted: chance.", "name": "fig-{output}-accuracy"}}
fig = cards.source_accuracy_bars(acc, f"{prof['label']}: accuracy per model")
plt.show()

# %% tags=["remove-cell"]
for col in acc.columns:  # NaN only where a model never answered
    checks.add(f"{col} is a probability", acc[col].dropna().between(0, 1).all())
checks.add("accuracy when answered is NaN only where a model never answered",
           acc["accuracy when answered"].isna().equals(acc["abstained"] == 1))
direct = (df["answer"] == df["label"]).groupby([df["model"], df["condition"]]).mean()
checks.add("accuracy recomputed from the tidy table, answer by answer",
           np.allclose(acc["accuracy"].sort_index(), direct.sort_index(), rtol=1e-12))

# %% [markdown]
# ## Who answers alike
#
# The model pairs that give the same answer most often. A pair near 1 carries one signal
# twice: the paper's argument is that a selector should not pay for it twice.

# %%
alike = cards.agreement_pairs(df)

# %% tags=["hide-input"]
display(HTML(tables.to_html(tables.format_numbers(alike, 4), index=False,
                            caption="Most similar model pairs (share of identical answers)")))

# %% tags=["remove-cell"]
checks.add("agreement shares are probabilities", alike["same answer"].between(0, 1).all())
checks.add("no two models answer identically everywhere", (alike["same answer"] < 1).all(),
           value=float(alike["same answer"].max()))

# %% [markdown]
# ## Caveats

# %% tags=["remove-input"]
display(Markdown("\n".join(f"* {c}" for c in prof["caveats"])))

# %% tags=["remove-input"]
checks.report()
