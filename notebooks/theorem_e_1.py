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
# # Log-odds weights (Theorem E.1)
#
# The paper's weighted majority vote (Algorithm W-MV, Appendix E) weighs model $j$ by the
# log-odds of its accuracy, $w_j = \log(p_j / (1 - p_j))$ {cite}`nitzan1982optimal`,
# and Theorem E.1 says this is the
# error-minimising rule when the models are independent. This page checks the theorem
# exactly, on every one of the $2^k$ answer patterns, makes its hidden conditions explicit,
# and measures how far the weighted vote falls from the exact MAP rule once errors are
# correlated (the Gaussian-copula model of the paper).
#
# **Summary.** The theorem holds under the conditions its proof uses: errors conditionally
# independent given $Y$, a **uniform prior** and **class-symmetric** errors
# ($\mathbb P(H_i \neq Y \mid Y = +1) = \mathbb P(H_i \neq Y \mid Y = -1)$): on
# {glue:text}`ind_pools` random pools ({glue:text}`ind_patterns` answer patterns) the vote
# and the MAP rule never disagree. The statement mentions only "independence" and the
# accuracy $p_i$; without the two other conditions it is **false** (counterexamples below,
# with the corrected rule: a bias term and class-conditional weights). Under correlated
# errors the weighted vote is no longer the MAP rule: at $\rho =$ {glue:text}`rho_last` its
# excess error is {glue:text}`excess_equi:.4f` on the equicorrelated pool and
# {glue:text}`excess_family:.4f` on the one-family pool.

# %% [markdown]
# ## Statement
#
# ```{prf:theorem} Theorem E.1 of the paper: Optimality of Log-Odds Weights
# :label: theorem-e-1-thm-logodds
# :nonumber:
#
# Consider a binary classification problem with true label $Y \in \{-1, +1\}$ and an
# ensemble of $M$ independent classifiers. Let $H_i$ be the output of classifier $i$, with
# accuracy $\mathbb P(H_i = Y) = p_i$. Under the assumption of independence, the decision
# rule that minimises the probability of error is the weighted majority vote
#
# $$\hat Y = \operatorname{sign}\Big(\sum_{i=1}^M w_i H_i\Big), \qquad
# w_i = \log\frac{p_i}{1 - p_i}.$$
# ```
#
# ```{prf:proof}
# (The paper's argument.) The MAP rule answers $+1$ when
# $\mathbb P(Y = +1 \mid \mathbf H) > \mathbb P(Y = -1 \mid \mathbf H)$. *Assuming a uniform
# prior*, this compares likelihoods; *by conditional independence given $Y$* the
# log-likelihood ratio is a sum over classifiers; and *taking
# $\mathbb P(H_i = +1 \mid Y = +1) = \mathbb P(H_i = -1 \mid Y = -1) = p_i$* each term is
# $H_i \log(p_i / (1 - p_i))$. The three italicised steps are the conditions under which
# the statement holds.
# ```
#
# ```{prf:remark} Added in this book: corrected statement of Theorem E.1
# :label: theorem-e-1-rem-corrected
# :nonumber:
#
# Let the classifiers be conditionally independent given $Y$, with class-conditional error
# rates $\epsilon_i^{+} = \mathbb P(H_i \neq Y \mid Y = +1)$ and
# $\epsilon_i^{-} = \mathbb P(H_i \neq Y \mid Y = -1)$ in $(0, 1)$, and prior
# $\pi = \mathbb P(Y = +1)$. The MAP rule is the affine vote
# $\operatorname{sign}(b + \sum_i w_i H_i)$ with
#
# $$\begin{aligned}
# w_i &= \tfrac12\Big[\log\tfrac{1 - \epsilon_i^{+}}{\epsilon_i^{-}}
#        + \log\tfrac{1 - \epsilon_i^{-}}{\epsilon_i^{+}}\Big], \\
# b &= \log\tfrac{\pi}{1 - \pi} + \tfrac12 \sum_i \Big[\log\tfrac{1 - \epsilon_i^{+}}{\epsilon_i^{-}}
#        - \log\tfrac{1 - \epsilon_i^{-}}{\epsilon_i^{+}}\Big].
# \end{aligned}$$
#
# For $\pi = 1/2$ and $\epsilon_i^{+} = \epsilon_i^{-} = 1 - p_i$ this is $b = 0$,
# $w_i = \log(p_i/(1-p_i))$: Theorem E.1. (When $b + \sum_i w_i H_i = 0$ the posterior is
# tied and both answers are optimal.)
# ```

# %% tags=["parameters"]
seed = 0
ks = [1, 2, 3, 4, 5, 6, 8, 10]  # pool sizes for the independence check
pools_per_k = 5
rhos = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
eps_equi = [0.15, 0.2, 0.25, 0.3, 0.35]  # the equicorrelated pool
eps_family = [0.2, 0.22, 0.24]  # a correlated family ...
eps_outsiders = [0.15, 0.3]  # ... plus two independent models
n_sample = 200_000  # items per train / test split for the aggregator check
rho_sample = 0.6

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.special import ndtri

from ensel.aggregate import MAPAggregator, WeightedMajorityVote, heldout_error
from ensel.book.claims import PageChecks
from ensel.book.theory_pages import glue, plot_vote_vs_map
from ensel.copula import sample
from ensel.theory import (
    affine_vote_decisions,
    compare_weighted_vote_with_map,
    copula_joint_law,
    error_pattern_law,
    independent_joint_law,
    independent_map_rule,
    joint_law_from_error_laws,
    log_odds_weights,
    map_decisions,
    product_error_law,
    weighted_vote_decisions,
)

checks = PageChecks("theorem_e_1")
TOL = 1e-12
# the parameters as the prose shows them
for key, rates in (("eps_equi", eps_equi), ("eps_family", eps_family),
                   ("eps_outsiders", eps_outsiders)):
    glue(key, ", ".join(f"{e:g}" for e in rates), display=False)
glue("n_sample", n_sample, display=False)
glue("rho_sample", rho_sample, display=False)

# %% [markdown]
# ## Independence: the weighted vote is the MAP rule on every pattern
#
# Random pools of $k$ conditionally independent, class-symmetric models with balanced
# labels. Error rates are drawn from $(0.02, 0.98)$, so some models are worse than chance and
# get a negative weight (their vote is flipped), which the theorem covers too. For each pool
# we compare the weighted-vote decision with the exact MAP decision on all $2^k$ answer
# patterns (ties go to $+1$ in both rules).

# %%
rng = np.random.default_rng(seed)
rows = []
for k in ks:
    for i in range(pools_per_k):
        eps = rng.uniform(0.02, 0.98, size=k)
        w = log_odds_weights(1 - eps)  # from the accuracies 1 - eps
        c = compare_weighted_vote_with_map(independent_joint_law(eps),
                                           weights=w)
        rows.append({"k": k, "pool": i, "patterns": c.n_patterns,
                     "disagree": c.n_disagree, "map_error": c.map_error,
                     "vote_error": c.weighted_vote_error,
                     "error_gap": c.excess_error})
independent = pd.DataFrame(rows)

# %%
independent.groupby("k").agg(
    pools=("pool", "size"), patterns_each=("patterns", "first"),
    total_disagreements=("disagree", "sum"),
    max_abs_error_gap=("error_gap", lambda s: s.abs().max()))

# %% tags=["remove-cell"]
checks.equal("patterns where the log-odds vote ≠ MAP (independent pools)",
             int(independent["disagree"].sum()), 0, ref="Thm E.1")
checks.add("vote error = MAP error (np.allclose, atol 1e-12)",
           np.allclose(independent["vote_error"], independent["map_error"], atol=TOL),
           value=(independent["vote_error"] - independent["map_error"]).abs().max(),
           bound="np.allclose", ref="Thm E.1")
glue("ind_pools", len(independent), display=False)
glue("ind_patterns", int(independent["patterns"].sum()), display=False)

# %% [markdown]
# A pool with exact ties: four models of equal accuracy. Patterns with two right and two
# wrong answers have $V = 0$ and a tied posterior; both rules answer $+1$ there, and the
# error is the same.

# %%
c_tie = compare_weighted_vote_with_map(independent_joint_law([0.3] * 4))
c_tie.n_disagree, c_tie.map_error, c_tie.weighted_vote_error

# %% tags=["remove-cell"]
checks.add("tied pool: no disagreement, equal errors",
           c_tie.n_disagree == 0 and abs(c_tie.map_error - c_tie.weighted_vote_error) < TOL,
           value=abs(c_tie.map_error - c_tie.weighted_vote_error), bound="< 1e-12",
           ref="Thm E.1")

# %% [markdown]
# ## The conditions the statement leaves out
#
# **Non-uniform prior.** Three independent symmetric models with error rate $0.3$ and
# $\mathbb P(Y = +1) = 0.8$. On a pattern with two answers $-1$ and one $+1$ the log-odds
# vote is $V = -\log(7/3) \approx -0.85 < 0$, but the posterior log-odds are
# $\log 4 - \log(7/3) \approx 0.54 > 0$: the MAP rule answers $+1$. The vote ignores the
# prior.
#
# **Class-dependent errors.** Two conditionally independent models, balanced labels. Model
# 0 almost never misses a positive ($\epsilon_0^{+} = 0.02$) but answers $+1$ on 45 % of
# the negatives ($\epsilon_0^{-} = 0.45$), so its accuracy is $p_0 = 0.765$; model 1 is
# symmetric with error $0.2$ ($p_1 = 0.8$). When model 0 answers $-1$ and model 1 answers
# $+1$, the vote follows model 1 ($\log(0.8/0.2) > \log(0.765/0.235)$), but a $-1$ from
# model 0 is very strong evidence for $Y = -1$ (likelihood ratio $0.02/0.55$), which the
# MAP rule follows. The overall accuracy $p_i$ does not carry that information.
#
# In both cases the weighted vote with $w_i = \log(p_i/(1-p_i))$, $p_i = \mathbb P(H_i = Y)$,
# disagrees with the MAP rule on some patterns and has a strictly larger error, while the
# affine rule of the corrected statement coincides with the MAP rule on every pattern. The
# table gives the exact errors of the three rules, the number and probability of the
# patterns where the log-odds vote differs from MAP, and where the affine rule does.

# %%
# error rates given Y = +1 and given Y = -1, prior P(Y = +1)
cases = {
    "prior 0.8, symmetric": (np.full(3, 0.3), np.full(3, 0.3), 0.8),
    "prior 0.5, class-dependent":
        (np.array([0.02, 0.2]), np.array([0.45, 0.2]), 0.5),
}

# %%
rows = {}
for name, (eps_pos, eps_neg, prior) in cases.items():
    joint = joint_law_from_error_laws(product_error_law(eps_neg),
                                      product_error_law(eps_pos), prior)
    plain = compare_weighted_vote_with_map(joint)  # log-odds of P(H_i = Y)
    w, b = independent_map_rule(eps_pos, eps_neg, prior)
    affine = affine_vote_decisions(w, b)  # the corrected rule
    n_affine_off = int((affine != map_decisions(joint)).sum())
    rows[name] = {"MAP": plain.map_error,
                  "log-odds vote": plain.weighted_vote_error,
                  "patterns ≠": plain.n_disagree,
                  "mass ≠": plain.disagreement_mass,
                  "affine rule": np.where(affine == 1, *joint).sum(),
                  "affine ≠ MAP": n_affine_off}

# %%
conditions = pd.DataFrame.from_dict(rows, orient="index")
conditions = conditions.rename_axis("case")
conditions.round(4)

# %% tags=["remove-cell"]
checks.at_least("patterns where the log-odds vote ≠ MAP (both cases)",
                conditions["patterns ≠"], 1, ref="Thm E.1 (as stated)")
excess_cases = conditions["log-odds vote"] - conditions["MAP"]
checks.add("log-odds vote error > MAP error + 1e-3 (both cases)", (excess_cases > 1e-3).all(),
           value=excess_cases.min(), bound="> 0.001", ref="Thm E.1 (as stated)")
checks.equal("patterns where the affine rule ≠ MAP", int(conditions["affine ≠ MAP"].sum()),
             0, ref="corrected statement")
checks.add("affine rule error = MAP error (np.allclose, atol 1e-12)",
           np.allclose(conditions["affine rule"], conditions["MAP"], atol=TOL),
           value=(conditions["affine rule"] - conditions["MAP"]).abs().max(),
           bound="np.allclose", ref="corrected statement")

# %% [markdown]
# ## Correlated errors: how far the weighted vote falls from the MAP rule
#
# Two Gaussian-copula pools (balanced labels, errors independent of $Y$), with the exact
# joint law of $(Y, \mathbf X)$ for each latent correlation $\rho$ on a grid:
#
# * **equicorrelated**: five models with error rates {glue:text}`eps_equi`, all pairs at
#   $\rho$;
# * **one family**: three models with error rates {glue:text}`eps_family` correlated at
#   $\rho$ among themselves, plus two models (error rates {glue:text}`eps_outsiders`)
#   independent of everything.

# %%
def family_law(rho):
    """Joint law of (Y, X): three correlated at rho, two independent."""
    k = len(eps_family)
    Sigma = np.full((k, k), rho) + (1 - rho) * np.eye(k)
    law = np.multiply.outer(error_pattern_law(ndtri(eps_family), Sigma),
                            product_error_law(eps_outsiders))
    return joint_law_from_error_laws(law, law)


# %% [markdown]
# For each pool and $\rho$ we compute the exact MAP error, the exact error of the log-odds
# vote (weights from the true marginal accuracies), and the probability mass of the answer
# patterns on which the two rules disagree.

# %%
m = len(eps_equi)
rows = []
for rho in rhos:
    Sigma = np.full((m, m), rho) + (1 - rho) * np.eye(m)
    pools = {"equicorrelated": copula_joint_law(ndtri(eps_equi), Sigma),
             "one family": family_law(rho)}
    for pool, joint in pools.items():
        c = compare_weighted_vote_with_map(joint)
        rows.append({"pool": pool, "rho": rho, "map_error": c.map_error,
                     "vote_error": c.weighted_vote_error,
                     "excess": c.excess_error, "n_disagree": c.n_disagree,
                     "disagreement_mass": c.disagreement_mass})
corr = pd.DataFrame(rows)

# %%
corr.pivot(index="rho", columns="pool",
           values=["map_error", "vote_error", "disagreement_mass"]).round(4)

# %% tags=["remove-cell"]
from ensel.book.protocol import mark_synthetic_figures

mark_synthetic_figures("exact")  # stamped inside the image

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Exact error of the MAP rule and of the log-odds weighted vote (left), and the probability of the answer patterns where they disagree (right), against the latent error correlation $\\rho$.", "name": "fig-thme1-correlated"}}
plot_vote_vs_map(corr)
plt.show()

# %% tags=["remove-cell"]
checks.at_least("excess error of the vote over MAP (MAP never beaten)", corr["excess"], -TOL)
at0 = corr[corr["rho"] == 0]
checks.add("ρ = 0: no disagreement and |excess| < 1e-9",
           (at0["n_disagree"] == 0).all() and (at0["excess"].abs() < 1e-9).all(),
           value=at0["excess"].abs().max(), bound="< 1e-9", ref="Thm E.1")
pos = corr.loc[corr["rho"] > 0, "excess"]
checks.add("ρ > 0: the vote's excess error is positive", (pos > 0).all(),
           value=pos.min(), bound="> 0")
last = corr[corr["rho"] == rhos[-1]].set_index("pool")["excess"]
glue("rho_last", rhos[-1], display=False)
glue("excess_equi", last["equicorrelated"], display=False)
glue("excess_family", last["one family"], display=False)

# %% [markdown]
# With independent errors the curves meet. As $\rho$ grows the weighted vote keeps counting
# correlated models as separate evidence, while the MAP rule discounts them. In the family
# pool, for example, when the three family members agree against both outsiders the vote
# follows the family, while the MAP rule sides with the outsiders from $\rho = 0.4$ on
# (checked on this page). The MAP error even *decreases* at large $\rho$ in the
# equicorrelated pool with unequal error rates: nearly comonotone errors make the pattern of
# disagreements itself informative, which only the MAP rule exploits.

# %% tags=["remove-cell"]
# pattern (family -1,-1,-1; outsiders +1,+1) is index (0, 0, 0, 1, 1) of the (2,)*5 tables
sides = [(map_decisions(family_law(r))[0, 0, 0, 1, 1],
          weighted_vote_decisions(compare_weighted_vote_with_map(family_law(r)).weights)
          [0, 0, 0, 1, 1]) for r in rhos if r >= 0.4]
checks.add("family (−1,−1,−1) vs outsiders (+1,+1), ρ ≥ 0.4: MAP +1, vote −1",
           all(a == 1 and b == -1 for a, b in sides), value=len(sides),
           bound="all ρ ≥ 0.4")

# %% [markdown]
# ## The library's aggregators on samples
#
# Finally the data-driven versions used in the experiments: `MAPAggregator` (Algorithm
# MAP, add-one counts per pattern) and `WeightedMajorityVote` (Algorithm W-MV, accuracies
# estimated on the training split), fitted on {glue:text}`n_sample:,` items drawn from the
# family pool at $\rho =$ {glue:text}`rho_sample` and scored on as many fresh items. Their test errors must match the
# exact errors above within Monte Carlo error (4 standard errors).

# %%
tau_all = ndtri(np.r_[eps_family, eps_outsiders])
k = len(eps_family)
Sigma_s = np.eye(len(tau_all))
Sigma_s[:k, :k] = np.full((k, k), rho_sample) + (1 - rho_sample) * np.eye(k)
X_tr, y_tr, _ = sample(tau_all, Sigma_s, n_sample, random_state=seed)
X_te, y_te, _ = sample(tau_all, Sigma_s, n_sample, random_state=seed + 1)

# %%
exact = compare_weighted_vote_with_map(family_law(rho_sample))
rules = {"MAP": MAPAggregator(), "log-odds vote": WeightedMajorityVote()}
test = [heldout_error(rule.fit(X_tr, y_tr), X_te, y_te)
        for rule in rules.values()]
empirical = pd.DataFrame(
    {"exact": [exact.map_error, exact.weighted_vote_error],
     "test error": test},
    index=pd.Index(list(rules), name="rule"))
p_exact = empirical["exact"]
empirical["std error"] = np.sqrt(p_exact * (1 - p_exact) / n_sample)
empirical.round(4)

# %% tags=["remove-cell"]
z = (empirical["test error"] - empirical["exact"]).abs() / empirical["std error"]
checks.add("plug-in aggregators within 4 s.e. of the exact errors", (z < 4).all(),
           value=z.max(), bound="< 4 s.e.")

# %% [markdown]
# ## What this page establishes
#
# * {prf:ref}`Theorem E.1 <theorem-e-1-thm-logodds>` holds exactly, pattern by pattern, for
#   conditionally independent class-symmetric models with balanced labels (including
#   models worse than chance, which get negative weights, and exact ties).
# * As stated, without a uniform prior and class-symmetric errors, it is false; the MAP rule
#   is then the affine vote of
#   {prf:ref}`the corrected statement <theorem-e-1-rem-corrected>`, verified on every
#   pattern.
# * Under correlated errors the log-odds vote is not the MAP rule; its excess error grows
#   with the correlation on both pools, and the library's plug-in aggregators reproduce the
#   exact errors on samples.

# %% tags=["remove-input"]
checks.report()
