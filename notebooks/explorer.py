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
# # Explorer: accuracy, correlation and ensemble size
#
# Move the sliders to choose the accuracy $\alpha$ of every model, their latent correlation
# $\rho$ and the ensemble size $m$: the plot shows the exact error of MAP (line) and of
# majority vote (circles) for $m$ equicorrelated models of the one-factor Gaussian-copula
# model, and the floor $\Phi\big(\Phi^{-1}(1-\alpha)/\sqrt{\rho}\big)$ that no ensemble size
# gets below (the saturation theorem, Theorem 4.4 of the paper). Every value was computed
# exactly (`ensel.theory.ensemble_error`, `ensel.theory.saturation_floor`) when the book was
# built, on a grid of {glue:text}`n_points:,` points; the page draws them in your browser
# without any network access. For odd $m$ the two rules have the same error, so the circles
# sit on the line.

# %% tags=["parameters"]
alphas = [0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
rhos = [0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
m_max = 51  # odd ensemble sizes 1, 3, ..., m_max
start = {"alpha": 0.7, "rho": 0.3, "m": 15}

# %% tags=["remove-cell"]
import numpy as np
from IPython.display import HTML, display

from ensel.book.claims import PageChecks
from ensel.book.explorer import explorer_grid, explorer_html
from ensel.book.theory_pages import glue

checks = PageChecks("explorer")

# %%
grid = explorer_grid(alphas, rhos, range(1, m_max + 1, 2))

# %% tags=["remove-input"]
display(HTML(explorer_html(grid, **start)))

# %% tags=["remove-cell"]
glue("n_points", len(grid), display=False)
first = grid[grid["m"] == 1]
checks.close("Pₑ(1) = 1 − α for both rules", first[["map", "majority"]].to_numpy(),
             np.c_[1 - first["alpha"], 1 - first["alpha"]], tol=1e-9, ref="Thm 4.4")
checks.close("MAP = majority vote for odd m", grid["map"], grid["majority"], tol=1e-9,
             ref="Thm 4.4")
checks.add("Pₑ(m) above the floor", (grid["map"] > grid["floor"]).all(),
           value=float((grid["map"] - grid["floor"]).min()), bound="> 0", ref="Thm 4.4")
steps = grid.sort_values(["alpha", "rho", "m"]).groupby(["alpha", "rho"])["map"].diff()
checks.add("Pₑ(m) decreasing in odd m", (steps.dropna() < 0).all(),
           value=float(steps.max()), bound="< 0", ref="Thm 4.4")

# %% tags=["remove-input"]
checks.report()
