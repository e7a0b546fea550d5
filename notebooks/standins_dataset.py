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
# # Dataset card: one paper-calibrated stand-in
#
# How one stand-in is calibrated to the paper's model-pool table, checked step by step. The
# book runs this page once per stand-in (`notebooks/runs.yml`); the generative model, the
# sizes, the persistence across conditions and the notes on the paper's tables are on the
# {doc}`overview page <standins_card>`. What the paper says about this dataset's
# correlations: {glue:md}`paper_note`

# %% tags=["parameters"]
dataset = "medmcqa"  # a stand-in of data/datasets.yml
seed = 0  # stand-in seed: accuracy draws, labels, latent errors
n_items = None  # binary queries per stand-in (None: as in the paper)
recovery_condition = "t0.7-r1"  # condition the copula is re-fitted on
n_reps = 60  # copula samples giving the Monte Carlo spread
z_max = 4.5  # largest allowed |estimate - target| / MC std

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
from IPython.display import Markdown
from myst_nb import glue

from ensel.book import cards, profiles, protocol
from ensel.book.claims import PageChecks
from ensel.datasets import standins

protocol.mark_synthetic_figures()  # stamps every figure of this page
checks = PageChecks(f"standins_card-{dataset}")
prof = profiles.profile(dataset)
checks.add("the dataset is a paper-calibrated stand-in", profiles.is_standin(dataset),
           value=dataset)
checks.add("the recovery condition is one of the stand-ins' conditions",
           recovery_condition in standins.CONDITIONS, value=recovery_condition)
glue("paper_note", Markdown(prof["standin_note"]), display=False)
glue("paper_table", prof["paper_table"], display=False)
glue("z_max", z_max, display=False)

# %% [markdown]
# (tab-{output}-fit)=
# ## Fitted correlation model
#
# Pool of the paper's {glue:text}`paper_table`. Family loading
# $g$ = {glue:text}`fit_g:.3f` ($g^2$ = {glue:text}`fit_g2:.3f` extra correlation within
# a family). Mean within-family $\rho_{ij}$ = {glue:text}`fit_within:.3f` (range
# {glue:text}`fit_within_lo:.2f`–{glue:text}`fit_within_hi:.2f`), mean cross-family
# {glue:text}`fit_across:.3f` (range
# {glue:text}`fit_across_lo:.2f`–{glue:text}`fit_across_hi:.2f`);
# {glue:text}`fit_overlap`. Residuals of the per-model averages: max $|\cdot|$ =
# {glue:text}`fit_max_res:.4f` ({glue:text}`fit_worst`), RMS {glue:text}`fit_rms:.4f`,
# allowed {glue:text}`fit_tol:.4f` (0.4 units of the printed precision), so every fitted
# average rounds to the printed one (column *fitted, as printed*).

# %%
fit = cards.fit_table(dataset)
fit

# %% tags=["remove-cell"]
cards.check_fit(checks, dataset, fit)
cards.glue_values("fit", cards.fit_facts(dataset))

# %% [markdown]
# The table reports error correlations pooled over both labels. Under the class-asymmetric
# default the two labels' thresholds add correlation, so the latent $\Sigma$ is calibrated
# pair by pair until the pooled correlations are the fitted ones above. Distance from the
# table: the largest per-model gap $|\text{pooled } \bar\rho_j - \text{printed}|$ is
# {glue:text}`gap_ca:.4f` calibrated ({glue:text}`gap_raw:.4f` uncalibrated, mean signed
# difference {glue:text}`gap_raw_mean:+.3f`), checked against the label-invariant fit's own
# gap, {glue:text}`gap_tol:.4f`.

# %%
gap = cards.pooled_gap(dataset)
gap.round(5)

# %% tags=["remove-cell"]
raw = gap.loc["class-asymmetric, uncalibrated"]
cards.glue_values("gap", {  # numpy scalars as Python numbers for {glue:text}
    "ca": gap.loc["class-asymmetric", "max |pooled - paper|"],
    "raw": raw["max |pooled - paper|"], "raw_mean": raw["mean (pooled - paper)"],
    "tol": gap.attrs["tolerance"]})

# %% [markdown]
# The models that are the only one of their vendor: their printed average is a mean of
# cross-family correlations.

# %%
singles = cards.single_vendor_models(dataset)
singles

# %% tags=["remove-cell"]
cards.check_prose_range(checks, dataset, singles)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The stand-in's latent correlation Σ, models grouped by family (white squares: family blocks); the paper's fitted matrices are paper Figures 22–24.", "name": "fig-{output}-sigma"}}
fig = cards.family_heatmap(dataset)
plt.show()

# %% tags=["remove-cell"]
checks.add(f"{prof['label']}: correlation matrix in the paper's model order",
           fig.attrs["same_order"])

# %% [markdown]
# ## Recovery check
#
# A circular check by design: the copula is re-fitted to data the same copula generated, so
# it tests the sampler and the fit, not the paper's model. Condition
# {glue:text}`rec_condition`, the {glue:text}`rec_n:,` positive queries ($Y = +1$): within
# one label the errors follow the copula exactly, with that label's thresholds; pooled over
# both labels, the class-asymmetric thresholds add correlation the copula does not have.
# `ensel.copula.fit_gaussian_copula` on the generated errors gives a mean off-diagonal
# correlation of {glue:text}`rec_mean_hat:.4f` against {glue:text}`rec_mean_sigma:.4f` in
# $\Sigma$ (z = {glue:text}`rec_z_mean:.2f`); the largest entrywise difference is
# {glue:text}`rec_max_diff:.4f`. Re-fitting {glue:text}`rec_n_reps` independent samples of
# the same copula at the same size gives the Monte Carlo standard deviations: the largest
# |z| is {glue:text}`rec_z_pairs:.2f` over the {glue:text}`rec_n_pairs` pairs,
# {glue:text}`rec_z_avg:.2f` over the per-model averages and {glue:text}`rec_z_tau:.2f`
# over the thresholds (allowed: {glue:text}`rec_z_bound:.2f`, the $|z| \le$
# {glue:text}`z_max` rule with each standard deviation estimated from
# {glue:text}`rec_n_reps` samples, read off Student's $t$).

# %%
df = standins.load(dataset, seed=seed, n_items=n_items)
rec = cards.recovery(dataset, df, condition=recovery_condition,
                     seed=seed, n_reps=n_reps)
rec

# %% tags=["remove-cell"]
cards.check_recovery(checks, dataset, rec, z_max)
cards.glue_values("rec", {**rec.attrs, "condition": recovery_condition,
                          "n_reps": n_reps,
                          "z_bound": cards.estimated_spread_bound(z_max, n_reps)})

# %% [markdown]
# ## Accuracies
#
# Per-condition accuracies drawn around the paper's mean $\pm$ std: largest
# |z| = {glue:text}`acc_z_draw:.2f` over {glue:text}`acc_n_draws` draws. Accuracy in the
# generated data ({glue:text}`acc_n:,` queries) against the drawn target, in binomial
# standard errors: largest |z| = {glue:text}`acc_z_data:.2f` (allowed: {glue:text}`z_max`).
# Columns `t…` are the drawn accuracies per condition.

# %%
acc = cards.accuracy_table(dataset, df, seed=seed)
acc

# %% tags=["remove-cell"]
cards.check_accuracy(checks, dataset, acc, z_max)
cards.glue_values("acc", acc.attrs)

# %% tags=["remove-input"]
checks.report()
