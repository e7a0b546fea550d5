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
# # System model: correlated LLM errors as a Gaussian copula
#
# Section 3 of the paper models $m$ LLMs answering a binary query with true label
# $Y \in \{-1, +1\}$ (balanced). Model $j$ answers $X_j \in \{-1,+1\}$ and errs when
# $E_j = \mathbb{1}(X_j \neq Y)$, so that $X_j = Y \cdot (-1)^{E_j}$.
# The errors are dependent: a latent Gaussian vector $\mathbf Z \sim \mathcal N(\mathbf 0, \Sigma)$
# with unit diagonal decides them by thresholding,
#
# $$E_j = \mathbb{1}(Z_j < \tau_j), \qquad \tau_j = \Phi^{-1}(\epsilon_j),$$
#
# so each model keeps its own error rate $\epsilon_j$ while $\Sigma$ carries the dependence.
# With one common correlation $\rho$ the copula is a one-factor model,
#
# $$Z_j = \sqrt{\rho}\, U + \sqrt{1-\rho}\, \xi_j, \qquad U, \xi_j \sim \mathcal N(0,1)
# \text{ independent},$$
#
# the form behind the saturation theorem. This page simulates the one-factor model with
# `ensel.copula.sample_equicorrelated` and checks, within Monte Carlo error, that the sample
# has the accuracies, pairwise error correlations and error-count moments the model prescribes.

# %% tags=["parameters"]
accuracies = [0.6, 0.75, 0.9]
rhos = [0.0, 0.3, 0.7]
m = 10
n_items = 200_000
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ensel.copula import sample_equicorrelated
from ensel.montecarlo import compare_one_factor

samples = {}
rows = []
for i, alpha in enumerate(accuracies):
    for j, rho in enumerate(rhos):
        X, y, E = sample_equicorrelated(alpha, rho, m, n_items, random_state=seed + 100 * i + j)
        samples[alpha, rho] = E
        table = compare_one_factor(E, alpha, rho)
        table.insert(0, "rho", rho)
        table.insert(0, "accuracy", alpha)
        rows.append(table)
checks = pd.concat(rows, ignore_index=True)

# %% [markdown]
# ## Simulated versus nominal statistics
#
# For every $(\alpha, \rho)$: the error rate $1-\alpha$ (averaged over the $m$ models), the
# joint error rate $\Phi_2(\tau, \tau; \rho)$ and the error correlation
# $(\Phi_2(\tau,\tau;\rho) - \epsilon^2)/(\epsilon(1-\epsilon))$ (averaged over pairs), and the
# mean and variance of the number of models wrong on the same item,
# $K = \sum_j E_j$: $\mathbb E K = m\epsilon$ and
# $\operatorname{Var} K = m\epsilon(1-\epsilon) + m(m-1)(\Phi_2(\tau,\tau;\rho) - \epsilon^2)$.
# Standard errors are batch means over 20 batches of items; `z` is the standardised difference.

# %%
pivot = checks.pivot_table(index=["accuracy", "rho"], columns="statistic",
                           values=["nominal", "simulated"]).round(4)
pivot

# %%
print(f"largest |z| over {len(checks)} checks: {checks['z'].abs().max():.2f}")
bad = checks[checks["z"].abs() > 4]
assert bad.empty, f"simulated statistics outside 4 standard errors:\n{bad}"
# the error correlation rises with rho, and is zero (within error) when rho = 0
for alpha in accuracies:
    corr = checks[(checks.accuracy == alpha) & (checks.statistic == "error_correlation")]
    assert np.all(np.diff(corr["simulated"].to_numpy()) > 0), corr
    zero = corr[corr.rho == 0.0].iloc[0]
    assert abs(zero.simulated) < 4 * zero.std_error, zero

# %% [markdown]
# ## How many models are wrong at once
#
# Correlation does not change how often each model errs, only *with whom*. With $\rho = 0$ the
# number of simultaneous errors is binomial; as $\rho$ grows, mass moves to the extremes:
# many items that every model answers correctly and a heavy tail of items that most models get
# wrong together. Those shared errors are what no aggregation rule can undo (Theorem 4.3).

# %%
fig, axes = plt.subplots(1, len(accuracies), figsize=(4.2 * len(accuracies), 3.4),
                         sharey=True)
for ax, alpha in zip(np.atleast_1d(axes), accuracies, strict=True):
    for rho in rhos:
        K = samples[alpha, rho].sum(axis=1)
        freq = np.bincount(K, minlength=m + 1) / len(K)
        ax.plot(np.arange(m + 1), freq, marker="o", ms=3, label=f"ρ = {rho}")
    ax.set_title(f"accuracy α = {alpha}")
    ax.set_xlabel(f"number of models wrong (of m = {m})")
    ax.set_yscale("log")
np.atleast_1d(axes)[0].set_ylabel("fraction of items")
np.atleast_1d(axes)[-1].legend()
fig.tight_layout()
plt.show()

# %%
# the probability that a majority of the m models is wrong grows with rho at fixed accuracy
for alpha in accuracies:
    tails = [np.mean(samples[alpha, rho].sum(axis=1) > m / 2) for rho in rhos]
    print(f"accuracy {alpha}: P(more than half wrong) = "
          + ", ".join(f"{t:.4f} (rho={r})" for t, r in zip(tails, rhos, strict=True)))
    assert tails[-1] > tails[0], (alpha, tails)
