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
# # Dataset card: MMLU-Pro model outputs (real LLM answers)
#
# The paper's raw LLM answers are not public. The one real dataset this book runs on is the
# per-question output of about thirty LLMs that the authors of **MMLU-Pro** published with their
# benchmark {cite}`wang2024mmlupro`.
# This page says where the files come from, what is in them, how they are turned
# into the paper's binary queries (`ensel.datasets.load("mmlu_pro")`), how accurate each model
# is, and what to keep in mind when reading results computed on them. In short:
# {glue:text}`n_files` files from {glue:text}`n_models_all` model evaluations of
# {glue:text}`n_questions:,` questions ({glue:text}`n_records:,` records); the default view keeps {glue:text}`n_kept:,` questions
# ({glue:text}`n_queries:,` binary queries) answered by {glue:text}`n_models` models.
#
# When the files are neither in a mirror nor in the cache, the book shows a note on how to
# get them (`python -m ensel.datasets fetch mmlu_pro`, or `ENSEL_DATA_MIRROR`) instead of
# this page.

# %% tags=["parameters"]
subset = "ori_mmlu"
models = "default"
seed = 0
null_pred = "abstain"

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from ensel.book import cards
from ensel.book.claims import PageChecks
from ensel.datasets import _fetch
from ensel.datasets import mmlu_pro as mp

checks = PageChecks("mmlu_pro_card")

# %% [markdown]
# ## Provenance
#
# * Upstream: [github.com/TIGER-AI-Lab/MMLU-Pro](https://github.com/TIGER-AI-Lab/MMLU-Pro),
#   license **Apache-2.0** (the repository's `LICENSE`). MMLU-Pro is described in Wang et al.,
#   *MMLU-Pro: A More Robust and Challenging Multi-Task Language Understanding Benchmark*
#   (NeurIPS 2024 Datasets and Benchmarks).
# * Files, pinned by commit and SHA-256 in `data/registry/mmlu_pro.csv`:
#   `eval_results/model_outputs_<model>_5shots.zip` at commit `f418b116…` (29 models, one JSON
#   list per zip) and `eval_results/gpt4o/<category>_result.json` at commit `ff991b5b…`
#   (GPT-4o, one file per category).
# * A file's URL is `https://raw.githubusercontent.com/TIGER-AI-Lab/MMLU-Pro/<commit>/<path>`.
#   `ensel` downloads them once into its data folder (`ENSEL_DATA_DIR`, default: the user
#   cache), checks every SHA-256, and never stores them in this repository; with
#   `ENSEL_DATA_MIRROR` set it reads a local byte-for-byte mirror instead.

# %%
entries = _fetch.read_registry("mmlu_pro")
registry = pd.DataFrame([e.__dict__ for e in entries])
cards.registry_summary(registry)

# %% tags=["remove-cell"]
checks.equal("files in the registry", len(registry), 43)
checks.add("every file has a SHA-256",
           registry["sha256"].str.fullmatch(r"[0-9a-f]{64}").all())
glue("n_files", len(registry), display=False)
glue("example_url", registry["url"].iloc[-1], display=False)

# %% [markdown]
# A file's URL, for example: {glue:text}`example_url`.

# %% [markdown]
# ## What is in the files
#
# Each record has `question_id`, `question`, `options` (up to ten, A-J), `answer` (the gold
# letter) and `answer_index`, `category` (14 categories), `src` (`ori_mmlu-<subject>` for the
# questions taken from the original MMLU; the others come from STEM websites, TheoremQA and
# SciBench), the model's generated text and `pred`: the letter a regular expression extracted
# from the model's 5-shot chain-of-thought answer, or `null` when none could be extracted.
# The table counts, per model file, the records, the original-MMLU records, null preds,
# letters that are not among the question's options, and stray non-record entries.

# %%
raw = mp.raw_predictions("all")
files = cards.file_summary(raw)
files.round(3)

# %% tags=["remove-cell"]
n_questions = raw["question_id"].nunique()
checks.equal("model files", len(files), 30)
checks.equal("distinct questions", n_questions, 12032)
checks.add("largest file holds every question, at most 6810 from MMLU",
           files["records"].max() == 12032 and (files["ori_mmlu"] <= 6810).all())
checks.add("multiple-choice accuracies are probabilities",
           files["mc_accuracy_all"].between(0, 1).all())
glue("n_models_all", len(files), display=False)
glue("n_records", len(raw), display=False)
glue("n_questions", int(n_questions), display=False)

# %% [markdown]
# ## The binary view
#
# The paper turns each multiple-choice question into two binary queries "is the answer
# `<option>`?": a **positive** query with the gold option ($Y=+1$) and a **negative** query
# with one wrong option ($Y=-1$), drawn uniformly among the question's wrong options by a
# generator seeded with `(seed, question_id)`, so every model sees the same pair and the draw
# does not depend on the pool or subset. Here a model answers True ($+1$) iff its `pred` is
# the query's option, else False ($-1$). A null `pred` is an **abstention** (answer $0$) on
# both queries by default (`null_pred="abstain"`; counted as an error in accuracies); with
# `null_pred="false"` it is False on both, which would make such a model right on every
# negative query for saying nothing.
#
# Questions are kept when they are in the chosen subset (default: the original-MMLU ones),
# when every file of the pool gives them the same gold letter, options and text (the answer key
# and a few questions were revised upstream between evaluations), when every model of the pool
# answered them (intersection), and when they have at least two options.

# %%
view = mp.binary_view(subset=subset, models=models, seed=seed,
                      null_pred=null_pred)
tidy, queries = view.tidy, view.queries
cards.binary_counts(view)

# %%
tidy.head(4)

# %% tags=["remove-cell"]
d = view.dropped
checks.equal("kept = in subset − inconsistent − not answered by all − too few options",
             d["kept"], d["in_subset"] - d["inconsistent_across_files"]
             - d["not_answered_by_all"] - d["fewer_than_2_options_or_bad_key"])
checks.add("two binary queries per kept question",
           tidy["item"].nunique() == 2 * d["kept"] == len(queries), value=len(queries))
checks.equal("rows of the tidy table", len(tidy), 2 * d["kept"] * len(view.models))
checks.add("as many Y = +1 as Y = −1 rows",
           (tidy["label"] == 1).sum() == (tidy["label"] == -1).sum())
checks.add("each question has one positive and one negative query",
           (queries.groupby("question_id")["label"].sum() == 0).all())
glue("n_kept", int(d["kept"]), display=False)
glue("n_queries", len(queries), display=False)
glue("n_models", len(view.models), display=False)

# %% [markdown]
# ### The model pool
#
# The default pool (below) mixes providers, a spread of accuracies and several
# within-family pairs, in the spirit of the paper's pools. Sizes and instruct/base come from
# the model names only (`data/mmlu_pro_models.csv`); what a name does not say is left unknown.

# %%
meta = mp.models_table().set_index("model").loc[view.models]
cards.pool_table(meta)

# %% [markdown]
# {glue:text}`n_providers` providers.

# %% tags=["remove-cell"]
glue("n_providers", int(meta["provider"].nunique()), display=False)

# %% [markdown]
# ## Accuracy per model
#
# `mc_accuracy` is the multiple-choice accuracy on the kept questions (pred equals the gold
# letter); `binary_accuracy` is the accuracy over both binary queries. Since a model is wrong
# on the positive query exactly when it misses the gold letter, and wrong on the negative query
# only when it picked that one distractor (or abstained),
#
# $$\begin{aligned}
# \text{binary accuracy} = 1 - \tfrac12\Big(
# &\underbrace{1 - \text{MC accuracy}}_{\text{error on } Y=+1} \\
# &+ \underbrace{P(\text{pred} = \text{distractor}) + P(\text{null})}_{\text{error on } Y=-1}
# \Big),
# \end{aligned}$$
#
# which the page's checks verify model by model.

# %%
summary = mp.model_summary(view)
summary.round(3)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "MMLU-Pro: multiple-choice and binary accuracy per model.", "name": "fig-mmlu-pro-accuracy"}}
fig = cards.accuracy_bars(
    summary, f"MMLU-Pro, subset={subset!r}, {d['kept']} questions")
plt.show()

# %% tags=["remove-cell"]
for col in ["mc_accuracy", "binary_accuracy", "error_pos", "error_neg", "null_rate"]:
    checks.add(f"{col} is a probability", summary[col].between(0, 1).all())
expected_neg = summary["picked_negative"] + (
    summary["null_rate"] if null_pred == "abstain" else 0.0)
direct = (tidy["answer"] == tidy["label"]).groupby(tidy["model"]).mean()
for what, value, target in [
        ("error on Y = +1 is 1 − MC accuracy", summary["error_pos"],
         1 - summary["mc_accuracy"]),
        ("error on Y = −1 is P(distractor) + P(null)", summary["error_neg"], expected_neg),
        ("binary accuracy is 1 − mean of the two errors", summary["binary_accuracy"],
         1 - (summary["error_pos"] + summary["error_neg"]) / 2),
        ("binary accuracy recomputed from the tidy table", direct.loc[summary.index],
         summary["binary_accuracy"])]:
    # np.testing.assert_allclose defaults: rtol 1e-7, atol 0
    ok = np.allclose(np.asarray(value, float), np.asarray(target, float),
                     rtol=1e-7, atol=0)
    checks.add(what, ok, value=float(np.max(np.abs(np.asarray(value, float)
                                                   - np.asarray(target, float)))),
               bound="rtol 1e-7")

# %% [markdown]
# ## Errors depend on the label
#
# The paper's analysis treats a model's error indicator as one Bernoulli variable per model.
# In this binary view it is not the same on both labels: a wrong multiple-choice answer is
# always an error on the positive query, but an error on the negative query only when it
# happens to be the drawn distractor (about one wrong answer in nine with ten options).
# Errors on $Y=+1$ are therefore several times as frequent as errors on $Y=-1$, and a model
# that answers False to everything would already be right on every negative query.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "MMLU-Pro: error rate per model on positive (gold option) and negative (one distractor) queries.", "name": "fig-mmlu-pro-label-errors"}}
fig = cards.error_bars(summary)
plt.show()

# %% [markdown]
# Error on $Y=+1$ divided by error on $Y=-1$, per model:

# %%
ratio = (summary["error_pos"] / summary["error_neg"]).round(1)
ratio.rename("error(+1) / error(-1)").to_frame().T

# %% tags=["remove-cell"]
checks.add("every model errs more often on Y = +1 than on Y = −1",
           (summary["error_pos"] > summary["error_neg"]).all())

# %% [markdown]
# ## Caveats
#
# * **Not the paper's prompt.** These are 5-shot chain-of-thought answers to a
#   multiple-choice question with up to ten options; the paper asked each model a True/False
#   question per option. The binary answers here are *derived* from one multiple-choice pick,
#   so a model's answers to the two queries of a question are tied together (it cannot say True
#   to both).
# * **Label-dependent errors** (previous section): the error on a negative query is much rarer
#   than on a positive one, unlike a symmetric True/False channel.
# * **Abstentions.** A null `pred` means the answer extractor found no letter, not always that
#   the model gave none (some generations state the answer in another format). Rates per model
#   are in the table above; `null_pred="false"` is the alternative treatment.
# * **Revised answer key.** The answer key (and a few questions) changed upstream between the
#   evaluations of different models; the questions on which the files of the pool disagree are
#   dropped (count above) rather than guessing which key a file was scored with.
# * **A different benchmark.** MMLU-Pro has ten options and harder, partly rewritten questions;
#   even its `ori_mmlu` subset is not the paper's MMLU sample of 10 000 binary queries, and the
#   models are not the paper's. Results on this page's data are not comparable number for
#   number with the paper's tables.
# * One evaluation per model: a single condition (`5shot-cot`), no temperatures or repeated
#   runs as in the paper's protocol.

# %% tags=["remove-input"]
checks.report()
