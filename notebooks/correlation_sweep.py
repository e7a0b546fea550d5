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
# A parameterised page: `make book` runs it once per entry of `notebooks/runs.yml` (a weakly
# and a strongly correlated pool). For equal-accuracy models in the one-factor copula it
# simulates ensembles of growing size $m$ and scores majority vote and the plug-in MAP rule
# (fitted on half of the items, scored on the other half), next to the exact error
# (`ensel.theory.ensemble_error`) and the saturation floor
# $\Phi(\Phi^{-1}(1-\alpha)/\sqrt{\rho})$ of {prf:ref}`Theorem 4.4 <theorem_4_4-saturation>`.
#
# **Summary.** At latent correlation $\rho =$ {glue:text}`rho` and accuracy
# $\alpha =$ {glue:text}`accuracy`, majority vote of {glue:text}`m_largest` models errs on
# {glue:text}`mv_largest:.4f` of the test items, against {glue:text}`mv_single:.4f` for one
# model; no ensemble goes below the floor {glue:text}`floor:.4f`.

# %% tags=["parameters"]
rho = 0.3
accuracy = 0.7
sizes = [1, 3, 5, 9, 15, 21]
n_items = 100_000
seed = 0

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ensel.aggregate import MajorityVote, MAPAggregator, heldout_error
from ensel.book.claims import PageChecks
from ensel.book.theory_pages import glue, plot_sweep
from ensel.copula import sample_equicorrelated
from ensel.theory import ensemble_error, saturation_floor

checks = PageChecks("correlation_sweep")

# %% [markdown]
# For each size $m$ we draw {glue:text}`n_items:,.0f` items from the one-factor copula
# (`ensel.copula.sample_equicorrelated`), fit both rules on the first half and score them on
# the second.

# %%
def test_errors(m):
    """Majority vote and plug-in MAP of m models: fit, score on halves."""
    X, y, _ = sample_equicorrelated(accuracy, rho, m, n_items,
                                    random_state=seed + m)
    h = n_items // 2
    mv = MajorityVote(random_state=seed).fit(X[:h], y[:h])
    mp = MAPAggregator().fit(X[:h], y[:h])
    # a tie (an answer pattern unseen in training, for MAP) counts as half an error
    return {"majority": heldout_error(mv, X[h:], y[h:]), "map": heldout_error(mp, X[h:], y[h:])}


# %%
errors = pd.DataFrame({m: test_errors(m) for m in sizes}).T.rename_axis("m")
errors["exact"] = [ensemble_error(accuracy, rho, m, rule="majority")
                   for m in sizes]
errors["floor"] = saturation_floor(accuracy, rho)
errors.round(4)

# %% tags=["remove-cell"]
floor = errors["floor"].iloc[0]
glue("rho", rho, display=False)
glue("n_items", n_items, display=False)
glue("accuracy", accuracy, display=False)
glue("m_largest", sizes[-1], display=False)
glue("mv_largest", errors["majority"].iloc[-1], display=False)
glue("mv_single", errors["majority"].iloc[0], display=False)
glue("floor", floor, display=False)

# %% [markdown]
# The plug-in MAP rule estimates $P(Y \mid X_S)$ pattern by pattern from the training half,
# so it needs the $2^m$ answer patterns to be well populated. In the equicorrelated model the
# exact MAP rule is majority vote ({prf:ref}`the lemma of Theorem 4.4 <theorem_4_4-map-majority>`); once $2^m$
# approaches the number of training items the plug-in table is mostly empty and its error
# climbs back towards $1/2$. The paper's experiments end at the size of its pools (12 or 13
# models), close to where this starts; and it is one reason why selection matters: a few
# well-chosen models are both cheaper and better estimated than many.

# %% tags=["remove-cell"]
from ensel.book.protocol import mark_synthetic_figures

mark_synthetic_figures("simulated")  # stamped inside the image

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Test error against ensemble size: simulated majority vote and plug-in MAP, the exact error (quadrature) and the saturation floor (dotted).", "name": "fig-{output}-error"}}
plot_sweep(errors, floor, rho=rho, accuracy=accuracy)
plt.show()

# %% tags=["remove-cell"]
n_test = n_items - n_items // 2
se = np.sqrt(errors["exact"] * (1 - errors["exact"]) / n_test)
z = np.abs(errors["majority"] - errors["exact"]) / se
checks.add("simulated majority vote within 4 s.e. of the exact error", (z < 4).all(),
           value=z.max(), bound="< 4 s.e.")
# the plug-in table has 2^m cells: it matches the exact MAP error only while they are filled
filled = [m for m in sizes if 2**m <= (n_items // 2) / 50]
gap = (np.abs(errors.loc[filled, "map"] - errors.loc[filled, "exact"])
       - 4 * se[filled] - 0.002)
checks.add("plug-in MAP within 4 s.e. + 0.002 of the exact error while 2^m ≤ n_train/50",
           (gap < 0).all(), value=gap.max(), bound="< 0")
checks.close("Pₑ(1) = 1 − α", errors.loc[1, "exact"], 1 - accuracy, tol=1e-9,
             ref="Thm 4.4")
checks.at_least("exact error minus the floor", errors["exact"] - floor, 0, ref="Thm 4.4")
checks.add("majority vote of the largest ensemble beats one model",
           errors["majority"].iloc[-1] < errors["majority"].iloc[0],
           value=errors["majority"].iloc[-1], bound=f"< {errors['majority'].iloc[0]:.4f}")
low = floor - 4 * np.sqrt(floor * (1 - floor) / n_test)
sim = errors[["majority", "map"]].to_numpy()
checks.add("simulated errors above the floor − 4 s.e.", (sim > low).all(),
           value=sim.min(), bound=f"> {low:.4f}", ref="Thm 4.4")

# %% tags=["remove-input"]
checks.report()
