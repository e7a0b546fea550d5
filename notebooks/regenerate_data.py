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
# # Regenerating the paper's data
#
# The paper's figures rest on about 2.1 million answers of 12-13 LLMs (3 temperatures $\times$
# 2 runs) collected through OpenRouter; those answers were never published. `ensel collect`
# regenerates them: the paper's query sets, the paper's prompts verbatim, a resumable store,
# and export to the tidy table every page of this book reads. This page shows the whole path
# without a network or a key: it collects real query texts (the original-MMLU questions inside
# MMLU-Pro) from a **simulated model pool** -- a loopback chat-completions server whose models
# answer with the accuracies and correlations of the paper-calibrated MMLU pool -- with faults
# injected, interrupts and resumes the run, and runs the paper's protocol on what it collected.

# %% tags=["parameters"]
n_queries = 600  # binary queries (MMLU-Pro's original-MMLU items; half true, half false)
models = ["GPT-4.1", "Qwen3-235b", "Gemini-2.5-flash", "LLaMA-3.1-8b"]  # of the MMLU pool
fault_rate = 0.01  # per request and per kind: 429, 500, 502, 503, drop, malformed, off-format
seed = 0

# %% tags=["remove-cell"]
import dataclasses
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display
from myst_nb import glue

from ensel import collect, experiment
from ensel.collect import testing
from ensel.copula import fit_gaussian_copula
from ensel.data import to_wide
from ensel.datasets import _fetch, standins
from ensel.datasets._paths import package_data

checks: list[tuple[str, bool]] = []
work = Path(tempfile.mkdtemp(prefix="ensel-regenerate-"))
# the original-MMLU questions of MMLU-Pro; without those files, made-up MMLU-format questions
source = "mmlu_pro" if _fetch.is_available("mmlu_pro") else "mmlu"
config = testing.demo_config(work, models=models, n_queries=n_queries, source=source, seed=seed)

# %% [markdown]
# ## What the paper's full run would take
#
# The shipped configuration `data/collect/paper.yml` lists the paper's models per dataset
# (our mapping of their names to OpenRouter ids), the three temperatures, two runs, and dated
# list prices. The estimate is a dry run: no network, tokens from character counts.

# %%
paper = collect.estimate(collect.load_config(package_data("collect", "paper.yml")))
paper.groupby("dataset")[["requests", "prompt_tokens", "cost_usd"]].sum().round(0)

# %% tags=["remove-cell"]
a = paper.attrs
glue("paper_requests", f"{a['total_requests']:,}", display=False)
glue("paper_cost", f"{a['total_cost_usd']:,.0f}", display=False)
glue("paper_hours", f"{a['hours']:.0f}", display=False)
glue("prices_as_of", str(a["prices_as_of"]), display=False)
checks.append(("the paper's run is 2 x 4,183 + 2 x 10,000 queries x models x 6 conditions",
               a["total_requests"] == (8366 * 12 + 10000 * 13 + 10000 * 12) * 6))

# %% [markdown]
# In total {glue:text}`paper_requests` requests, about \${glue:text}`paper_cost` at the prices of
# {glue:text}`prices_as_of` (check them before a paid run), about {glue:text}`paper_hours` hours at the
# configured rate of 600 requests per minute per model.
#
# ## A collection from the simulated pool, interrupted and resumed
#
# The simulated server injects every fault the collector must survive. The run below has a
# cost cap that stops it part-way (as a SIGKILL or a lost connection would); the second call
# asks only for the answers the store does not have.

# %%
cfg = collect.load_config(config)
cap = 0.3 * collect.estimate(cfg).attrs["total_cost_usd"]  # stops the run about 30 % in
queries = collect.load_queries(cfg)
faults = collect.Faults(**{k: fault_rate for k in ("rate_429", "rate_500", "rate_502",
                                                   "rate_503", "drop", "malformed", "off_format")})
server = collect.SimulatorServer(collect.SimulatedPool.from_config(cfg, queries), faults).start()
cfg = dataclasses.replace(cfg, base_url=server.base_url, cost_cap_usd=cap)
first = collect.collect(cfg, queries=queries, raise_on_stop=False)
resumed = collect.collect(dataclasses.replace(cfg, cost_cap_usd=None), queries=queries)
server.stop()

# %% tags=["hide-input"]
retries = first.retries + resumed.retries
display(Markdown(
    f"The first run stopped at the cost cap with part of the answers stored; the resumed run "
    f"asked only for the missing ones. Retried failures, both runs: "
    f"{', '.join(f'{k} {v}' for k, v in sorted(retries.items()))}."))
with collect.Store(cfg.store) as store:
    status = store.status(cfg.prices)
    table = store.table()
status[["model", "condition", "rows", "answered", "abstained", "failed", "attempts",
        "cost_usd"]]

# %% tags=["remove-cell"]
n_keys = n_queries * len(models)
checks += [
    ("the cost cap stopped the first run part-way", first.stopped is not None
     and 0 < first.completed < n_keys),
    ("the resumed run asked only for the missing answers",
     resumed.pending == n_keys - first.completed),
    ("one row per key, every key answered", len(table) == n_keys
     and table["answer"].notna().all()),
    ("faults were injected and retried", sum((first.retries + resumed.retries).values()) > 0),
    ("off-format replies are abstentions with the raw text kept",
     set(table.loc[table["answer"] == 0, "raw_text"]) <= {"I cannot tell."}),
]

# %% [markdown]
# ## The collected table, the protocol, and the pool it came from
#
# Export gives the tidy table (`item, model, condition, answer, label`); the experiments page
# runs on it unchanged (`make run NB=experiments DATASET=answers.parquet`). Here the protocol
# runs on it directly, and the Gaussian copula fitted to the collected errors is compared with
# the pool the simulator drew them from.

# %%
with collect.Store(cfg.store) as store:
    df = store.export()
df.to_parquet(work / "answers.parquet", index=False)
results = experiment.evaluate(df, n_splits=3, seed=seed, aggregators=("map",))
X, y = to_wide(df)
tau, Sigma_fit = fit_gaussian_copula((X.to_numpy() != y.to_numpy()[:, None]).astype(int))

# %% tags=["hide-input"] mystnb={"image": {"alt": "Left: test error (MAP) against ensemble size k for each selector on the collected answers. Right: each pair's correlation fitted from the collected answers against the simulated pool's correlation, with the diagonal."}}
spec = standins.spec("mmlu", variant="label-invariant")  # what collect.simulate samples
idx = [spec.models.index(m) for m in X.columns]
Sigma_pool = np.asarray(spec.Sigma)[np.ix_(idx, idx)]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
mean = results.groupby(["selector", "k"])["error"].mean().unstack(0)
mean.plot(ax=ax1, marker="o")
ax1.set(xlabel="ensemble size k", ylabel="test error (MAP)", title="Protocol on collected data")
iu = np.triu_indices(len(idx), 1)
ax2.scatter(Sigma_pool[iu], Sigma_fit[iu])
ax2.plot([0, 1], [0, 1], "k--", lw=1)
ax2.set(xlabel="pool correlation", ylabel="fitted from collected answers",
        title="Copula recovered")
fig.tight_layout()

# %% tags=["remove-cell"]
n = len(y)
acc = (X.to_numpy() == y.to_numpy()[:, None]).mean(axis=0)
acc_tol = 4 * np.sqrt(0.25 / n)
rho_tol = 4 / np.sqrt(n)
checks += [
    ("export reads as the tidy table", list(df.columns) == ["item", "model", "condition",
                                                            "answer", "label"]),
    ("accuracies match the pool's", bool(np.all(np.abs(acc - spec.accuracy[idx]) < acc_tol))),
    ("fitted copula recovers the pool's correlations",
     bool(np.max(np.abs(Sigma_fit[iu] - Sigma_pool[iu])) < rho_tol)),
    ("the protocol ran for every selector", set(results["selector"])
     >= {"topk", "relevance", "mrmr", "greedy_mi"}),
]

# %% [markdown]
# ## Running the real collection
#
# With a key (it is read from the environment only, never written anywhere):
#
# ```bash
# # requests, tokens, cost and time of the paper's full run
# ensel collect estimate data/collect/paper.yml
# # the key (or the variable that endpoint.api_key_env names)
# export OPENROUTER_API_KEY=...
# # rerun after any interruption: it resumes
# ensel collect run data/collect/paper.yml
# # one of 4 machines
# ensel collect run data/collect/paper.yml --shard 1/4 --store shard1.sqlite
# ensel collect merge paper-answers.sqlite shard*.sqlite
# ensel collect status paper-answers.sqlite --config data/collect/paper.yml
# ensel collect export paper-answers.sqlite --dataset mmlu -o mmlu.parquet
# make run NB=experiments DATASET=mmlu.parquet
# ```
#
# A 401/402/403 (bad key, no credit) stops the run at once; 429/5xx, timeouts and malformed
# replies are retried with backoff (honouring `Retry-After`); a model the endpoint does not
# know (404) is skipped. `ensel collect simulate CONFIG` serves the simulated pool used above.

# %% tags=["remove-input"]
failed = [name for name, ok in checks if not ok]
if failed:
    raise AssertionError(f"{len(failed)} of {len(checks)} checks failed: {failed}")
print(f"Checks on this page: {len(checks)}, all passed")
