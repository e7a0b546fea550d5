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
# # Collecting answers: `ensel collect`
#
# The paper's answers were never published; `ensel collect` regenerates them, or collects
# your own, from any OpenAI-compatible endpoint (OpenRouter, OpenAI, a local vLLM or Ollama
# server). A run is described by one YAML file: the endpoint, the query sets, the models,
# temperatures and runs, rate limits, a cost cap and dated prices. The paper's full run
# ships with the package under the name `paper` (`data/collect/paper.yml`; any other
# configuration is given by its path).
#
# ## What a run would take, before paying for it
#
# `ensel collect estimate` is a dry run: no network, no key, tokens from character counts.

# %% tags=["remove-cell"]
from ensel.book.claims import PageChecks
from ensel.book.guide import ensel_json, ensel_output, workdir
from ensel.book.theory_pages import glue

checks = PageChecks("guide_collect")
work = workdir()

# %%
table = ensel_output("ensel collect estimate paper")
print(table.splitlines()[-1])  # above it: one row per dataset and model

# %% tags=["remove-cell"]
est = ensel_json("ensel collect estimate paper --json")
rows = est["rows"]
glue("n_rows", len(rows), display=False)
glue("n_requests", f"{sum(r['requests'] for r in rows):,}", display=False)
glue("n_datasets", len({r["dataset"] for r in rows}), display=False)
checks.equal("the text table has one line per dataset and model, a header and a total",
             len(table.strip().splitlines()), len(rows) + 2)
checks.add("the total line gives the summed requests",
           f"{sum(r['requests'] for r in rows):,} requests" in table.splitlines()[-1])

# %% [markdown]
# The paper's run is {glue:text}`n_requests` requests over {glue:text}`n_datasets` query
# sets ({glue:text}`n_rows` rows of dataset and model in the table the command prints;
# `--json` gives it as a document). The prices in the file are dated: check them before a
# paid run.
#
# ## Collecting, resuming, exporting
#
# With a key in the environment (never stored), the run is resumable: answers go to a
# SQLite store one by one, so a killed run loses nothing and never repeats a completed
# request.
#
# ```bash
# export OPENROUTER_API_KEY=...
# ensel collect run paper                    # rerun after any interruption
# ensel collect status paper-answers.sqlite --config paper
# ensel collect export paper-answers.sqlite --dataset mmlu -o mmlu.parquet
# ensel select mmlu.parquet -k auto
# ```
#
# `--shard i/n` splits a run across machines and `ensel collect merge` combines their
# stores. The page {doc}`regenerate_data` runs these steps end to end without a network:
# `ensel collect simulate CONFIG` serves a simulated pool of models on 127.0.0.1 (with
# injected faults), and the page collects from it, interrupts and resumes the run, exports
# the tidy table and checks that the answers have the pool's accuracies and correlations.
#
# The store also measures each answer's tokens, which can price the models for budgets:
# `ensel select answers.parquet --budget-usd B --prices-from-store paper-answers.sqlite`
# ({doc}`guide_budgets`).

# %% tags=["remove-input"]
checks.report()
