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
# size $m$ and measures the error of majority vote and of the plug-in MAP rule, next to the
# saturation floor $\Phi(\Phi^{-1}(1-\alpha)/\sqrt{\rho})$ of Theorem 4.3.

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
from scipy.stats import norm

from ensel.aggregate import MajorityVote, MAPAggregator
from ensel.copula import sample_equicorrelated

print(f"latent correlation rho = {rho}, accuracy = {accuracy}, {n_items:,} items per size")
floor = float(norm.cdf(norm.ppf(1 - accuracy) / np.sqrt(rho))) if rho > 0 else 0.0

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
    })
errors = pd.DataFrame(rows).set_index("m")
errors["floor"] = floor
errors.round(4)

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.5))
ax.plot(errors.index, errors["majority"], marker="o", label="majority vote")
ax.plot(errors.index, errors["map"], marker="s", ls="--", label="plug-in MAP")
ax.axhline(floor, color="k", lw=1, ls=":", label="saturation floor")
ax.set_xlabel("ensemble size m")
ax.set_ylabel("test error")
ax.set_title(f"ρ = {rho}, α = {accuracy}")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# checks: a single model errs at rate 1 - accuracy; larger ensembles help but stay above the floor
se = np.sqrt(accuracy * (1 - accuracy) / (n_items // 2))
assert abs(errors.loc[1, "majority"] - (1 - accuracy)) < 4 * se, errors.loc[1]
assert errors["majority"].iloc[-1] < errors["majority"].iloc[0]
tolerance = 4 * np.sqrt(floor * (1 - floor) / (n_items // 2))
assert (errors["majority"] > floor - tolerance).all(), errors
assert (errors["map"] > floor - tolerance).all(), errors
