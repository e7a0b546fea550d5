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
# # Ensemble size at one correlation level
#
# A parameterised page: `make book` runs it once per entry of `notebooks/runs.yml`
# (here for a weakly and a strongly correlated pool), each run with its own latent correlation
# `rho`. For equal-accuracy models in the one-factor copula it simulates ensembles of growing
# size $m$ and measures the error of majority vote and of the plug-in MAP rule (fitted on half
# of the items, scored on the other half), next to the exact error of the ensemble
# (`ensel.theory.ensemble_error`, deterministic quadrature) and the saturation floor
# $\Phi(\Phi^{-1}(1-\alpha)/\sqrt{\rho})$ of Theorem 4.3.

# %% tags=["parameters"]
rho = 0.3
accuracy = 0.7
sizes = [1, 3, 5, 9, 15, 21]
n_items = 100_000
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ensel.aggregate import MajorityVote, MAPAggregator
from ensel.copula import sample_equicorrelated
from ensel.theory import ensemble_error, saturation_floor

print(f"latent correlation rho = {rho}, accuracy = {accuracy}, {n_items:,} items per size")
floor = saturation_floor(accuracy, rho)

rows = []
for m in sizes:
    X, y, _ = sample_equicorrelated(accuracy, rho, m, n_items, random_state=seed + m)
    half = n_items // 2
    mv = MajorityVote(random_state=seed).fit(X[:half], y[:half])
    mp = MAPAggregator().fit(X[:half], y[:half])
    rows.append({
        "m": m,
        "majority": float(np.mean(mv.predict(X[half:]) != y[half:])),
        "map": float(np.mean(mp.predict(X[half:]) != y[half:])),
        "exact": ensemble_error(accuracy, rho, m, rule="majority"),
    })
errors = pd.DataFrame(rows).set_index("m")
errors["floor"] = floor
errors.round(4)

# %%
# %% [markdown]
# The plug-in MAP rule estimates $P(Y \mid X_S)$ pattern by pattern from the training half, so
# it needs the $2^m$ answer patterns to be well populated. In the equicorrelated model the exact
# MAP rule is majority vote (Theorem 4.3's proof); once $2^m$ approaches the number of training
# items the plug-in table is mostly empty and its error climbs back towards $1/2$. This is why
# the paper's experiments stop at $k \le 13$, and why selection matters: a few well-chosen
# models are both cheaper and better estimated than many.

# %%
fig, ax = plt.subplots(figsize=(7.5, 3.5))
ax.plot(errors.index, errors["majority"], marker="o", label="majority vote")
ax.plot(errors.index, errors["map"], marker="s", ls="--", label="plug-in MAP")
ax.plot(errors.index, errors["exact"], color="k", lw=1, label="exact (quadrature)")
ax.axhline(floor, color="k", lw=1, ls=":", label="saturation floor")
ax.set_xlabel("ensemble size m")
ax.set_ylabel("test error")
ax.set_title(f"ρ = {rho}, α = {accuracy}")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
fig.tight_layout()
plt.show()

# %%
# checks: the simulated errors agree with the exact ones within Monte Carlo error; larger
# ensembles help but never beat the floor
se = np.sqrt(errors["exact"] * (1 - errors["exact"]) / (n_items - n_items // 2))
assert (np.abs(errors["majority"] - errors["exact"]) < 4 * se).all(), errors
# the plug-in MAP table has 2^m cells: it matches the exact MAP error (= majority vote here)
# only while the training items fill them
n_train = n_items // 2
filled = [m for m in sizes if 2**m <= n_train / 50]
assert (np.abs(errors.loc[filled, "map"] - errors.loc[filled, "exact"])
        < 4 * se[filled] + 0.002).all(), errors
assert abs(errors.loc[1, "exact"] - (1 - accuracy)) < 1e-9
assert (errors["exact"] >= floor).all()
assert errors["majority"].iloc[-1] < errors["majority"].iloc[0]
tolerance = 4 * np.sqrt(floor * (1 - floor) / (n_items // 2))
assert (errors["majority"] > floor - tolerance).all(), errors
assert (errors["map"] > floor - tolerance).all(), errors
