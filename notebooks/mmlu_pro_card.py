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
# benchmark. This page says where the files come from, what is in them, how they are turned
# into the paper's binary queries (`ensel.datasets.load("mmlu_pro")`), how accurate each model
# is, and what to keep in mind when reading results computed on them.

# %% tags=["parameters"]
subset = "ori_mmlu"
models = "default"
seed = 0
null_pred = "abstain"

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from ensel.datasets import _fetch
from ensel.datasets import mmlu_pro as mp
from ensel.datasets._paths import data_dir

registry = pd.DataFrame([e.__dict__ for e in _fetch.read_registry("mmlu_pro")])
AVAILABLE = mp.is_available()
print("data available:", AVAILABLE)

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
provenance = (
    registry.assign(
        kind=np.where(registry["path"].str.endswith(".zip"), "model zip", "GPT-4o JSON")
    )
    .groupby(["commit", "kind"])
    .agg(files=("path", "size"), megabytes=("size", lambda s: round(s.sum() / 1e6, 1)))
    .reset_index()
)
display(provenance)
print("example URL:", registry["url"].iloc[-1])
assert len(registry) == 43 and registry["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()

# %% [markdown]
# ## Getting the data
#
# Everything below needs the 43 files (about 130 MB). When they are neither in the mirror nor in
# the cache, this page shows how to get them instead of failing.

# %%
if not AVAILABLE:
    display(
        Markdown(
            "**The MMLU-Pro files are not available on this machine**, so the tables and figures "
            "below are skipped. To get them, either\n\n"
            "* run `python -m ensel.datasets fetch mmlu_pro` (downloads the 43 pinned files "
            "from raw.githubusercontent.com into the data folder, about 130 MB, checking each "
            "SHA-256), or\n"
            "* set `ENSEL_DATA_MIRROR` to a folder laid out as "
            "`<owner>/<repo>/<commit>/<upstream path>` that holds them (the project's CI uses "
            "`../shared/mirror`), or\n"
            "* download the URLs listed in `data/registry/mmlu_pro.csv` by hand into "
            f"`{data_dir('raw', create=False)}`, keeping "
            "the `<owner>/<repo>/<commit>/<path>` layout.\n\n"
            "Then re-run this page."
        )
    )
else:
    print("files found in the", "mirror" if _fetch.mirror_dir() else "cache")

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
if AVAILABLE:
    raw = mp.raw_predictions("all")
    n_opts = raw["n_options"].to_numpy()
    letter_ok = [
        isinstance(p, str) and p in mp.LETTERS[:n] for p, n in zip(raw["pred"], n_opts, strict=True)
    ]
    files = (
        raw.assign(
            ori=raw["src"].str.startswith("ori_mmlu"),
            null=raw["pred"].isna(),
            invalid=raw["pred"].notna() & ~np.asarray(letter_ok),
            correct=raw["pred"] == raw["answer"],
        )
        .groupby("model")
        .agg(
            records=("question_id", "size"),
            ori_mmlu=("ori", "sum"),
            null_pred=("null", "sum"),
            invalid_letter=("invalid", "sum"),
            mc_accuracy_all=("correct", "mean"),
        )
    )
    files["stray_entries"] = pd.Series(raw.attrs["skipped_entries"])
    files = files.sort_values("mc_accuracy_all", ascending=False)
    display(files.round(3))
    n_questions = raw["question_id"].nunique()
    print(f"{len(files)} models, {n_questions} distinct questions, {len(raw)} records")
    assert len(files) == 30 and n_questions == 12032
    assert files["records"].max() == 12032 and (files["ori_mmlu"] <= 6810).all()
    assert files["mc_accuracy_all"].between(0, 1).all()

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
if AVAILABLE:
    view = mp.binary_view(subset=subset, models=models, seed=seed, null_pred=null_pred)
    tidy, queries = view.tidy, view.queries
    counts = pd.Series(
        {
            **{f"questions: {k.replace('_', ' ')}": v for k, v in view.dropped.items()},
            "binary queries": tidy["item"].nunique(),
            "models": len(view.models),
            "rows of the tidy table": len(tidy),
            "abstentions (answer 0)": int((tidy["answer"] == 0).sum()),
        },
        name="count",
    )
    display(counts.to_frame())
    display(tidy.head(4))
    d = view.dropped
    assert (
        d["kept"]
        == d["in_subset"]
        - d["inconsistent_across_files"]
        - d["not_answered_by_all"]
        - d["fewer_than_2_options_or_bad_key"]
    )
    assert tidy["item"].nunique() == 2 * d["kept"] == len(queries)
    assert len(tidy) == 2 * d["kept"] * len(view.models)
    assert (tidy["label"] == 1).sum() == (tidy["label"] == -1).sum()
    assert (queries.groupby("question_id")["label"].sum() == 0).all()

# %% [markdown]
# ### The model pool
#
# The default pool (below) mixes providers, a spread of accuracies and several
# within-family pairs, in the spirit of the paper's pools. Sizes and instruct/base come from
# the model names only (`data/mmlu_pro_models.csv`); what a name does not say is left unknown.

# %%
if AVAILABLE:
    meta = mp.models_table().set_index("model").loc[view.models]
    shown = meta[["display_name", "provider", "family", "params_b", "tuning"]].copy()
    shown["params_b"] = shown["params_b"].map(lambda v: "unknown" if pd.isna(v) else f"{v:g}")
    display(shown.rename(columns={"display_name": "model name", "params_b": "size (B params)"}))
    print("providers:", meta["provider"].nunique())

# %% [markdown]
# ## Accuracy per model
#
# `mc_accuracy` is the multiple-choice accuracy on the kept questions (pred equals the gold
# letter); `binary_accuracy` is the accuracy over both binary queries. Since a model is wrong
# on the positive query exactly when it misses the gold letter, and wrong on the negative query
# only when it picked that one distractor (or abstained),
#
# $$\text{binary accuracy} = 1 - \tfrac12\Big(
# \underbrace{1 - \text{MC accuracy}}_{\text{error on } Y=+1}
# + \underbrace{P(\text{pred} = \text{distractor}) + P(\text{null})}_{\text{error on } Y=-1}
# \Big),$$
#
# which the checks below verify model by model.

# %%
if AVAILABLE:
    summary = mp.model_summary(view)
    display(summary.round(3))
    fig, ax = plt.subplots(figsize=(8, 3.8))
    x = np.arange(len(summary))
    ax.bar(x - 0.2, summary["mc_accuracy"], 0.4, label="multiple choice (pred = gold)")
    ax.bar(x + 0.2, summary["binary_accuracy"], 0.4, label="binary view (both queries)")
    ax.set_xticks(x, summary.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("accuracy")
    ax.set_title(f"MMLU-Pro, subset={subset!r}, {d['kept']} questions")
    ax.legend(fontsize=8, loc="upper center", ncol=2, frameon=False)
    fig.tight_layout()
    plt.show()

    for col in ["mc_accuracy", "binary_accuracy", "error_pos", "error_neg", "null_rate"]:
        assert summary[col].between(0, 1).all(), col
    np.testing.assert_allclose(summary["error_pos"], 1 - summary["mc_accuracy"])
    expected_neg = summary["picked_negative"] + (
        summary["null_rate"] if null_pred == "abstain" else 0.0
    )
    np.testing.assert_allclose(summary["error_neg"], expected_neg)
    np.testing.assert_allclose(
        summary["binary_accuracy"], 1 - (summary["error_pos"] + summary["error_neg"]) / 2
    )
    # recompute the binary accuracy straight from the tidy table
    direct = (tidy["answer"] == tidy["label"]).groupby(tidy["model"]).mean()
    np.testing.assert_allclose(direct.loc[summary.index], summary["binary_accuracy"])

# %% [markdown]
# ## Errors depend on the label
#
# The paper's analysis treats a model's error indicator as one Bernoulli variable per model.
# In this binary view it is not the same on both labels: a wrong multiple-choice answer is
# always an error on the positive query, but an error on the negative query only when it
# happens to be the drawn distractor (about one wrong answer in nine with ten options).
# Errors on $Y=+1$ are therefore several times as frequent as errors on $Y=-1$, and a model
# that answers False to everything would already be right on every negative query.

# %%
if AVAILABLE:
    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.bar(x - 0.2, summary["error_pos"], 0.4, label="error rate on Y = +1 (gold option)")
    ax.bar(x + 0.2, summary["error_neg"], 0.4, label="error rate on Y = -1 (one distractor)")
    ax.set_xticks(x, summary.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("error rate")
    ax.legend(fontsize=8)
    fig.tight_layout()
    plt.show()
    ratio = (summary["error_pos"] / summary["error_neg"]).round(1)
    print("error(+1) / error(-1) per model:", ratio.to_dict())
    assert (summary["error_pos"] > summary["error_neg"]).all()

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
