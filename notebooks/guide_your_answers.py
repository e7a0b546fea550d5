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
# # Your answers: the tidy table
#
# Every command and every page of `ensel` reads one table (CSV or Parquet), one row per
# answer of one model to one question whose right answer you know:
#
# | column | meaning |
# |---|---|
# | `item` | the question's id (a binary True/False question) |
# | `model` | the model's name |
# | `condition` | e.g. temperature and run (`all` if the column is left out) |
# | `answer` | the model's answer (encoding below) |
# | `label` | the right answer: `+1`/`-1`, `1`/`0` or `True`/`False`, never missing |
#
# This page works in a scratch folder on a seeded stand-in for your answers
# ({func}`ensel.book.guide.example`: a small pool of models in families that share their
# mistakes, a few answers left blank), so every command below runs as written.

# %% tags=["parameters"]
n_models = 9
n_items = 600
seed = 0

# %% tags=["remove-cell"]
from ensel.book.claims import PageChecks
from ensel.book.guide import ensel, example, workdir
from ensel.book.theory_pages import glue
from ensel.data import DataError, to_wide
from ensel.datasets import load

checks = PageChecks("guide_your_answers")
work = workdir()

# %%
answers, prices = example(n_models, n_items, seed=seed)
answers.to_csv("answers.csv", index=False)
answers.head(4)

# %% [markdown]
# ## How answers are read
#
# One encoding rule, the same for CSV, Parquet, pandas and numpy inputs whatever the
# column's type, decided on all answers of the table together (never column by column):
#
# | answer cell | read as |
# |---|---|
# | blank, `NaN`, `None`, `NA` | abstained (`0`) |
# | `True` / `False` (any case), `+1` / `-1` | True / False |
# | `0` in a table that also holds `-1` | abstained (the `+1/0/-1` form `ensel` writes) |
# | `1` / `0` when the whole table holds only `0` and `1` | True / False, said in a notice |
# | anything else, or an ambiguous mix (`1`/`0` with blanks, `True`/`False` with `0`) | refused, saying how to encode it |
#
# {func}`ensel.datasets.load` reads a file by this rule, validates it and records what it
# applied:

# %%
df = load("answers.csv")
df.attrs["encoding"]

# %% tags=["remove-cell"]
X, y = to_wide(df)
glue("n_answers", f"{len(df):,}", display=False)
glue("n_models", X.shape[1], display=False)
glue("n_items", X.shape[0], display=False)
glue("n_abstained", f"{int((df['answer'] == 0).sum()):,}", display=False)
checks.equal("one row per answer read", len(df), len(answers))
checks.equal("blank answers read as abstentions", int((df["answer"] == 0).sum()),
             int(answers["answer"].isna().sum()))

# %% [markdown]
# The table holds {glue:text}`n_answers` answers of {glue:text}`n_models` models to
# {glue:text}`n_items` questions; {glue:text}`n_abstained` blank answers were read as
# abstentions. In Python the encoded form is `int8` in `{-1, 0, +1}`, `0` an abstention
# ({func}`ensel.data.to_wide` gives the items x models matrix). `item`, `model` and
# `condition` are text (`01` and `1` are two items); what a file holds decides how it is
# read, not its name. Several files (`ensel.data.read_responses([a, b])`, or several paths
# given to a command) are one table: an answer given twice, or an item with two labels, is
# refused naming both places.
#
# ## Bad input is refused in one line
#
# A value outside the rule stops every command with exit code 2 and one line naming the
# file, the line (the header is line 1; Parquet rows are counted from 0) and what was
# expected, never a traceback:

# %%
bad = answers.copy()
bad.loc[7, "answer"] = "maybe"
bad.to_csv("bad.csv", index=False)
ensel("ensel select bad.csv -k 2", expect=2)

# %% tags=["remove-cell"]
try:
    load("bad.csv")
    message = ""
except DataError as exc:
    message = str(exc)
checks.add("the refusal names the file, the line (header = line 1) and the value",
           "bad.csv" in message and f"line {7 + 2}" in message and "'maybe'" in message)

# %% [markdown]
# ## Answers in other shapes
#
# `ensel import FORMAT PATH... -o table.parquet` converts to the tidy table:
# lm-evaluation-harness `--log_samples` files (`lm-eval`; the chosen option is the argmax
# of the per-option log-likelihoods), a **wide** matrix (`wide`: one row per item, one
# column per model, a `gold` column; multiple-choice options or True/False), MMLU-Pro's
# per-question outputs (`mmlu-pro`), or a tidy table (`tidy`). Multiple-choice answers
# become binary questions by one shared conversion ({mod}`ensel.datasets.binary`). A wide
# table, for instance:

# %%
wide = answers.pivot(index="item", columns="model", values="answer")
wide["gold"] = answers.groupby("item")["label"].first()
wide.reset_index().to_csv("wide.csv", index=False)
ensel("ensel import wide wide.csv -o from_wide.parquet")

# %% tags=["remove-cell"]
Xw, yw = to_wide(load("from_wide.parquet"))
checks.add("the wide table imports to the same answers",
           Xw.equals(X) and yw.equals(y))

# %% [markdown]
# Outputs (`-o`) never replace an input or an existing file without `--force`. The next
# page picks the models to ensemble from this table: {doc}`guide_select`.

# %% tags=["remove-input"]
checks.report()
