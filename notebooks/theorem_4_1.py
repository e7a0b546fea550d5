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
# # Top-k under independence (Theorem 4.1)
#
# Section 4.1 of the paper treats the control case in which the $m$ models make
# *independent* errors: each model is a binary symmetric channel (BSC) from the label $Y$ to
# its answer $X_j$. The theorem says that the $k$ most accurate models are then both the
# mutual-information-optimal and the error-optimal subset of size $k$. This page states the
# theorem and the tools of its proof (Appendix A), then checks every claim *exactly* (no
# sampling): for each subset $S$ the joint law of $(Y, \mathbf X_S)$ is a table of
# $2^{|S|+1}$ probabilities, from which $I(Y; \mathbf X_S)$ and the MAP (Bayes) error
# $\mathbb P_e(S) = \sum_{\mathbf x} \min_y \mathbb P(Y=y, \mathbf X_S=\mathbf x)$ follow.
#
# **Summary.** The two inequalities of Theorem 4.1 hold on all {glue:text}`n_instances`
# (pool, $k$, prior) instances tried ({glue:text}`n_subsets` subsets compared with the top-$k$
# set), also for non-uniform priors (Remark A.6). Two parts of the appendix are
# **wrong as stated** and are corrected below: Remark A.5 claims a *strict* inequality for
# every other subset, which holds for the mutual information but **not for the MAP
# error** — Example A.1 itself is a counterexample ($\mathbb P_e(\{1,2\}) =
# \mathbb P_e(\{1,3\}) =$ {glue:text}`ex_err_12:.1f`); and the mutual-information inequality
# is not strict either when a model is perfect ($\epsilon_1 = 0$). Hence "the error-optimal
# subset $S^\star$ coincides with $H_k$" must read "$H_k$ is *an* error-optimal subset".
# Remark 4.2 is **false** as well: Top-k also fails under independence when a model's error
# rate depends on the class ({ref}`below <thm41-asymmetric>`: exact MAP error
# {glue:text}`asym_err_top:.4f` for the two most accurate models against
# {glue:text}`asym_err_best:.4f` for another pair).

# %% [markdown]
# ## Definitions and statements
#
# Numbering follows the compiled paper: the proof of Theorem 4.1 is Appendix A, where
# definitions, lemmas and remarks share one counter (Definition A.1, ..., Remark A.6) and
# examples have their own (Example A.1). Indices are 1-based as in the paper; the code below
# uses 0-based model indices.
#
# ```{prf:definition} Definition A.1 of the paper: Binary Symmetric Channel
# :label: theorem-4-1-def-bsc
# :nonumber:
#
# A binary symmetric channel (BSC) with crossover (error) probability
# $\epsilon \in [0, 1]$ flips each input symbol independently with probability $\epsilon$:
# for input $Y \in \{+1, -1\}$ the output is $X = Y \cdot Z$ with $Z = +1$ with probability
# $1 - \epsilon$ and $Z = -1$ with probability $\epsilon$, so that
# $\mathbb P(X \neq Y) = \epsilon$.
# ```
#
# ```{prf:definition} Definition A.2 of the paper: Stochastic Degradation
# :label: theorem-4-1-def-degradation
# :nonumber:
#
# A channel $\mathcal C'$ is a *stochastically degraded* version of a channel $\mathcal C$
# if there is an intermediate channel $\mathcal C''$ such that the cascade
# $\mathcal C \to \mathcal C''$ is statistically equivalent to $\mathcal C'$: the output of
# $\mathcal C'$ can be obtained by further corrupting the output of $\mathcal C$ through an
# independent noise process.
# ```
#
# ```{prf:lemma} Lemma A.3 of the paper: BSC Degradation
# :label: theorem-4-1-lem-bsc-degradation
# :nonumber:
#
# Let $\mathcal C_1$ and $\mathcal C_2$ be BSCs with error rates
# $\epsilon_1 \le \epsilon_2 < 1/2$. Then $\mathcal C_2$ is a stochastically degraded
# version of $\mathcal C_1$: it is the cascade of $\mathcal C_1$ with an independent BSC of
# crossover probability
#
# $$\delta = \frac{\epsilon_2 - \epsilon_1}{1 - 2\epsilon_1}.$$
# ```
#
# ```{prf:proof}
# With $Z_1 = Y N_1$, $\mathbb P(N_1 = -1) = \epsilon_1$, and $Z_2 = Z_1 N_2$,
# $\mathbb P(N_2 = -1) = \delta$, the cascade errs when exactly one of $N_1, N_2$ is $-1$:
# $\mathbb P(Z_2 \neq Y) = (1-\epsilon_1)\delta + \epsilon_1(1-\delta)
# = \epsilon_1 + \delta(1 - 2\epsilon_1)$. Setting this to $\epsilon_2$ gives $\delta$,
# and $\epsilon_1 \le \epsilon_2 < 1/2$ gives $\delta \in [0, 1/2)$.
# ```
#
# ```{prf:definition} Definition A.4 of the paper: Top-$k$ Ensemble
# :label: theorem-4-1-def-topk
# :nonumber:
#
# Given $m$ channels indexed by increasing error rates
# $\epsilon_1 \le \epsilon_2 \le \dots \le \epsilon_m$, the *top-$k$ ensemble* is
# $H_k = \{1, 2, \dots, k\}$, the $k$ channels with the smallest error rates.
# ```
#
# ```{prf:theorem} Theorem 4.1 of the paper: Alignment of Error and Mutual Information
# :label: theorem-4-1-thm-alignment
# :nonumber:
#
# Consider an ensemble of independent BSCs where channel $j$ has error rate
# $\epsilon_j < 1/2$, indexed so that $\epsilon_1 \le \epsilon_2 \le \dots \le \epsilon_m$,
# and let $H_k = \{1, \dots, k\}$. Let
# $S^{MI}_k \in \arg\max_{|S| = k} I(Y; \mathbf X_S)$. For any subset $S \subseteq [m]$
# with $|S| = k$,
#
# $$I(Y; \mathbf X_{H_k}) \ge I(Y; \mathbf X_S), \qquad
# \mathbb P_e(H_k) \le \mathbb P_e(S).$$
#
# Consequently, when the channels are independent, the error-optimal subset $S^\star$ and
# the mutual-information-optimal subset $S^{MI}_k$ coincide with $H_k$.
# ```
#
# ```{prf:proof}
# (Sketch of the paper's argument.) Pair every $j \in S$ with some $\pi(j) \in H_k$ such
# that $\epsilon_{\pi(j)} \le \epsilon_j$ (identity on $S \cap H_k$, any bijection
# $S \setminus H_k \to H_k \setminus S$ otherwise). Passing $X_{\pi(j)}$ through an
# independent BSC($\delta_j$) of {prf:ref}`Lemma A.3 <theorem-4-1-lem-bsc-degradation>`
# gives $\widetilde{\mathbf X}_S$ with the law of $\mathbf X_S$ jointly with $Y$, and the
# Markov chain $Y \to \mathbf X_{H_k} \to \widetilde{\mathbf X}_S$. The data-processing inequality
# gives the first inequality; any rule based on $\mathbf X_S$ can be simulated from
# $\mathbf X_{H_k}$, which gives the second.
# ```
#
# ```{prf:remark} Remark A.5 of the paper: Tightness of the Bound
# :label: theorem-4-1-rem-tightness
# :nonumber:
#
# *As stated in the paper:* the inequalities of Theorem 4.1 become equalities whenever $S$
# consists of $k$ channels with the smallest error rates (ties allowed). For any other
# subset $S \neq H_k$, at least one component must be strictly degraded ($\delta_j > 0$ for
# some $j$), leading to a strict inequality.
#
# *Checked below:* true for the mutual information when $0 < \epsilon_j < 1/2$; **false
# for the MAP error** (Example A.1 is a counterexample) and false for the mutual
# information when some $\epsilon_j = 0$.
# ```
#
# ```{prf:remark} Remark A.6 of the paper: Extension to Non-Uniform Priors
# :label: theorem-4-1-rem-prior
# :nonumber:
#
# The proof relies only on the Markov chain structure and the data-processing inequality,
# which hold regardless of the prior on $Y$. Thus Theorem 4.1 extends to any prior
# $\mathbb P(Y = 1) = p \in (0, 1)$.
#
# *Checked below:* true (both inequalities hold for every prior tried); the conditions of the
# theorem ($\epsilon_j < 1/2$, symmetric channels) are all it needs.
# ```
#
# ```{prf:example} Example A.1 of the paper: Stochastic Degradation Illustration
# :label: theorem-4-1-ex-degradation
# :nonumber:
#
# Three independent models with $\epsilon_1 = 0.1$ (expert), $\epsilon_2 = 0.2$ (average),
# $\epsilon_3 = 0.4$ (novice), budget $k = 2$: $H_2 = \{1, 2\}$; compare with
# $S = \{1, 3\}$. The pairing is $\pi(1) = 1$ ($\delta_1 = 0$) and $\pi(3) = 2$ with
# $\delta_3 = (0.4 - 0.2)/(1 - 0.4) = 1/3$: multiplying $X_2$ by an independent sign $N$
# with $\mathbb P(N = -1) = 1/3$ gives a copy of $X_3$, hence the Markov chain
# $Y \to \mathbf X_{H_2} \to \mathbf X_S$ and, by the data-processing inequality,
# $I(Y; \mathbf X_{H_2}) \ge I(Y; \mathbf X_S)$ and $\mathbb P_e(H_2) \le \mathbb P_e(S)$.
# ```

# %% tags=["parameters"]
seed = 0
ms = [3, 4, 5, 6, 7]  # pool sizes
pools_per_m = 8  # random pools per pool size (every k in 1..m-1 checked)
eps_low, eps_high = 0.02, 0.48  # error rates uniform on this interval
priors = [0.05, 0.2, 0.5, 0.8, 0.95]  # P(Y is +1), Remark A.6
n_mc = 200_000  # Monte Carlo draws for Example A.1
asym_pools = 1000  # random class-asymmetric pools per (m, k)
asym_shapes = [[4, 2], [6, 3]]  # (m, k) of the random pools
asym_low, asym_high = 0.05, 0.45  # eps+ and eps- uniform on this interval

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ensel.book.claims import PageChecks
from ensel.book.theory_pages import dominance_summary, glue, plot_example_a1
from ensel.theory import (
    asymmetric_joint_law,
    asymmetric_regret_study,
    asymmetric_top_k_regret,
    bsc_degradation_delta,
    flip_rate_table,
    independent_joint_law,
    sample_degradation_chain,
    subset_table,
    top_k_dominance,
)

checks = PageChecks("theorem_4_1")
TOL = 1e-12  # numerical tolerance of the exact computations
# the parameters as the prose shows them
glue("priors", ", ".join(f"{p:g}" for p in priors), display=False)
glue("asym_shapes", " and ".join(f"({m}, {k})" for m, k in asym_shapes), display=False)
glue("asym_interval", f"[{asym_low:g}, {asym_high:g}]", display=False)
glue("seed", seed, display=False)

# %% [markdown]
# ## Exhaustive search on random pools
#
# For every pool (error rates drawn uniformly, so all distinct with probability one), every
# budget $k$ and every prior $\mathbb P(Y = +1)$ in {glue:text}`priors`, we enumerate all
# $\binom{m}{k}$ subsets and compare them with the top-$k$ set $H_k$
# (`ensel.theory.top_k_dominance`). Per instance the MI gap
# is $\min_{S \neq H_k} [I(Y;\mathbf X_{H_k}) - I(Y;\mathbf X_S)]$ and the error gap is
# $\min_{S \neq H_k} [\mathbb P_e(S) - \mathbb P_e(H_k)]$; Theorem 4.1 says both are
# $\ge 0$.

# %%
rng = np.random.default_rng(seed)
pools = [rng.uniform(eps_low, eps_high, size=m)
         for m in ms for _ in range(pools_per_m)]
results = pd.DataFrame(
    [{"pool": i, "m": eps.size, "k": k, "prior": prior,
      **top_k_dominance(eps, k, prior=prior, tol=TOL)}
     for i, eps in enumerate(pools)
     for k in range(1, eps.size) for prior in priors])

# %% [markdown]
# By prior and pool size $m$: the number of instances and of subsets compared, the smallest
# MI and error gaps, and the number of instances in which some subset $S \neq H_k$ *ties*
# with $H_k$ (within $10^{-12}$) on the error or on the MI.

# %%
dominance_summary(results)

# %% tags=["remove-cell"]
checks.at_least("MI gap min over S ≠ H_k of I(Y;X_H) − I(Y;X_S), every instance",
                results["mi_gap"], -TOL, ref="Thm 4.1")
checks.at_least("error gap min over S ≠ H_k of Pₑ(S) − Pₑ(H_k), every instance",
                results["error_gap"], -TOL, ref="Thm 4.1, Rem. A.6")
glue("n_instances", len(results), display=False)
glue("n_subsets", int(results["n_other"].sum()), display=False)

# %% [markdown]
# ## Strictness (Remark A.5)
#
# All error rates are distinct and lie in $(0, 1/2)$, so Remark A.5 predicts a strict
# inequality against every other subset, for both criteria.
#
# * **Mutual information: strict, as claimed.** The smallest gap over all instances is
#   positive, so $S^{MI}_k = H_k$ is the *unique* maximiser.
# * **MAP error: not strict — Remark A.5 is false here.** Under the uniform prior
#   {glue:text}`n_tie` of {glue:text}`n_uniform` instances have another subset with exactly
#   the error of $H_k$ (up to {glue:text}`max_argmin` error-optimal subsets in one instance).
#   The simplest case is $k = 2$: the MAP rule of two independent BSCs follows the better
#   model when they disagree, so $\mathbb P_e(\{i, j\}) = \min(\epsilon_i, \epsilon_j)$ and
#   *every* pair containing the best model ties with $H_2$. More generally the MAP error
#   does not change when the added model can never overturn the others' decision (its
#   log-odds weight is too small). The argument in the paper shows $\widetilde{\mathbf X}_S$
#   is strictly degraded, but a strictly degraded observation can still yield the same
#   *minimum* error.
#
# The corrected statement, checked on this page: for $0 < \epsilon_j < 1/2$ all distinct,
# $I(Y; \mathbf X_S) < I(Y; \mathbf X_{H_k})$ for every $S \neq H_k$, while
# $\mathbb P_e(S) \ge \mathbb P_e(H_k)$ can hold with equality; $H_k$ is always an
# error-optimal subset but not always the only one.

# %%
uniform = results[results["prior"] == 0.5]
# instances where another subset ties with H_k on the MAP error
n_tie = int((uniform["n_error_ties"] > 0).sum())

# %% tags=["remove-cell"]
checks.add("MI gap > 1e-12 on every instance (strict)", (results["mi_gap"] > TOL).all(),
           value=results["mi_gap"].min(), bound="> 1e-12", ref="Rem. A.5")
checks.equal("instances with more than one MI-optimal subset",
             int((results["n_mi_argmax"] != 1).sum()), 0, ref="Rem. A.5")
checks.at_least("uniform prior: instances with an error tie (strictness fails)", n_tie, 1,
                ref="Rem. A.5 (false)")
k2 = uniform.loc[uniform["k"] == 2, "n_error_ties"]
checks.add("every k = 2 instance has an error tie", (k2 > 0).all(), value=int((k2 > 0).sum()),
           bound=f"= {len(k2)}")
glue("n_tie", n_tie, display=False)
glue("n_uniform", len(uniform), display=False)
glue("max_argmin", int(uniform["n_error_argmin"].max()), display=False)

# %% [markdown]
# A second, separate failure of strictness: the theorem allows $\epsilon_j = 0$. With a
# perfect model, every subset containing it has $I(Y; \mathbf X_S) = H(Y) = 1$ bit and zero
# error, so the mutual information ties too.

# %%
perfect = subset_table(independent_joint_law([0.0, 0.1, 0.2, 0.3]), 2)
perfect

# %% tags=["remove-cell"]
with_best = perfect[perfect["subset"].map(lambda S: 0 in S)]
checks.add("with a perfect model: I = 1 bit and Pₑ = 0 for every S ∋ it",
           np.allclose(with_best["mi"], 1.0, atol=TOL)
           and np.allclose(with_best["map_error"], 0.0),
           value=(with_best["mi"] - 1).abs().max(), bound="np.allclose", ref="Rem. A.5")
checks.equal("subsets containing the perfect model (H_2 ties with two others)",
             len(with_best), 3)

# %% [markdown]
# ## Non-uniform priors (Remark A.6)
#
# The exhaustive check above already ran for $\mathbb P(Y = +1) =$ {glue:text}`priors`: the
# two inequalities hold for every prior, as Remark A.6 says (the coupling only changes the
# channel, not the prior). How often another subset ties with $H_k$ on the error depends on
# the prior (instances with an error tie, by prior: {glue:text}`ties_by_prior`), with no
# steady trend in the skew; the mutual information never ties.

# %%
by_prior = results.groupby("prior").agg(
    instances=("k", "size"),
    with_error_tie=("n_error_ties", lambda s: int((s > 0).sum())),
    min_mi_gap=("mi_gap", "min"),
)
by_prior

# %% tags=["remove-cell"]
checks.equal("instances with an MI tie, every prior", int(results["n_mi_ties"].sum()), 0,
             ref="Rem. A.6")
glue("ties_by_prior", "; ".join(f"{p:g}: {n}" for p, n in by_prior["with_error_tie"].items()),
     display=False)

# %% [markdown]
# In the extreme, when no model can overturn the prior, the MAP rule always answers the
# majority class and every subset has the same error $\min(p, 1 - p)$, while the mutual
# information still ranks the subsets strictly:

# %%
skewed = subset_table(independent_joint_law([0.1, 0.2, 0.3], prior=0.95), 1)
skewed

# %% tags=["remove-cell"]
checks.close("prior 0.95: every single model has Pₑ = min(p, 1 − p)", skewed["map_error"],
             0.05, tol=TOL + 1e-5 * 0.05, ref="Rem. A.6")
checks.add("prior 0.95: MI still strictly ordered by accuracy",
           (np.diff(skewed["mi"]) < 0).all(), value=np.diff(skewed["mi"]).max(), bound="< 0")

# %% [markdown]
# ## Example A.1, exactly and by simulation
#
# First the exact numbers: Lemma A.3's $\delta_3 =$ {glue:text}`delta:.12f`, and
# $I(Y;\mathbf X_S)$ and $\mathbb P_e(S)$
# for the three subsets of size 2. The mutual information ranks $H_2 = \{1,2\}$ strictly
# first, but **the MAP error of $S = \{1,3\}$ equals that of $H_2$** (the MAP rule of either
# pair just follows the expert), so the example's "$\mathbb P_e(H_2) \le \mathbb P_e(S)$"
# holds with equality, a concrete counterexample to the strictness claimed in Remark A.5.

# %%
eps_example = np.array([0.1, 0.2, 0.4])
delta = bsc_degradation_delta(eps_example[1], eps_example[2])
example = subset_table(independent_joint_law(eps_example), 2)
example["subset (paper)"] = example["subset"].map(
    lambda S: "{" + ",".join(str(j + 1) for j in S) + "}")
example = example.set_index("subset (paper)")[["mi", "map_error"]]
example

# %% tags=["remove-cell"]
checks.close("δ₃ = 1/3", delta, 1 / 3, tol=1e-15, ref="Ex. A.1")
mi_ex = example["mi"]
checks.add("I(Y; X_{1,2}) > I(Y; X_{1,3}) > I(Y; X_{2,3})",
           mi_ex["{1,2}"] > mi_ex["{1,3}"] > mi_ex["{2,3}"],
           value=mi_ex["{1,2}"] - mi_ex["{1,3}"], bound="> 0", ref="Ex. A.1")
checks.close("Pₑ({1,2}) = 0.1", example.loc["{1,2}", "map_error"], 0.1, tol=TOL,
             ref="Ex. A.1")
checks.close("Pₑ({1,3}) = Pₑ({1,2}) (tie)", example.loc["{1,3}", "map_error"],
             example.loc["{1,2}", "map_error"], tol=TOL, ref="Rem. A.5 (false)")
glue("ex_err_12", example.loc["{1,2}", "map_error"], display=False)
glue("delta", delta, display=False)

# %% [markdown]
# Now the Markov chain $Y \to X_2 \to \widetilde X_3$ of the example, simulated: $X_2$ is
# $Y$ through a BSC(0.2) and $\widetilde X_3$ is $X_2$ through an independent BSC(1/3). Two
# things must hold within Monte Carlo error (4 binomial standard errors):
#
# 1. $\widetilde X_3$ errs with probability $\epsilon_3 = 0.4$ (here
#    {glue:text}`err_weak:.4f`, standard error {glue:text}`se_weak:.4f`), and the pair
#    $(Y, \widetilde X_3)$ has the law of $(Y, X_3)$;
# 2. $\widetilde X_3$ is conditionally independent of $Y$ given $X_2$: the flip rate
#    $\mathbb P(\widetilde X_3 \neq X_2 \mid Y = y, X_2 = s)$ is $\delta = 1/3$ in all four
#    cells $(y, s)$, whatever $Y$ is.

# %%
draws = sample_degradation_chain(eps_example[1], delta, n_mc,
                                 random_state=seed)
err_weak = float((draws["x_weak"] != draws["y"]).mean())
emp_pair = pd.crosstab(draws["y"], draws["x_weak"], normalize=True)
emp_pair = emp_pair.to_numpy()
flips = flip_rate_table(draws)
flip_se = np.sqrt(delta * (1 - delta) / flips["n"])
flips["z"] = (flips["flip_rate"] - delta) / flip_se
flips

# %% tags=["remove-cell"]
se_weak = float(np.sqrt(0.4 * 0.6 / n_mc))
checks.add("error of the degraded copy of X₃ within 4 s.e. of 0.4",
           abs(err_weak - eps_example[2]) < 4 * se_weak, value=err_weak,
           bound=f"0.4 ± {4 * se_weak:.4f}", ref="Ex. A.1")
exact_pair = independent_joint_law([eps_example[2]])
z_pair = np.abs(emp_pair - exact_pair) / np.sqrt(exact_pair * (1 - exact_pair) / n_mc)
checks.add("law of (Y, X̃₃) = law of (Y, X₃), every cell within 4 s.e.", (z_pair < 4).all(),
           value=z_pair.max(), bound="< 4 s.e.", ref="Ex. A.1")
checks.add("flip rate δ in all four cells (Y, X₂) within 4 s.e. (Markov chain)",
           (flips["z"].abs() < 4).all(), value=flips["z"].abs().max(), bound="< 4 s.e.",
           ref="Lemma A.3")
glue("err_weak", err_weak, display=False)
glue("se_weak", se_weak, display=False)

# %% tags=["remove-cell"]
from ensel.book.protocol import mark_synthetic_figures

mark_synthetic_figures("simulated")  # stamped inside the image

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Example A.1. Left: mutual information (bars) and MAP error (red) of the three pairs; $\\{1,3\\}$ ties with $H_2 = \\{1,2\\}$ on the error. Right: simulated flip rates $P(\\widetilde X_3 \\neq X_2 \\mid Y, X_2)$ with $\\pm 4$ standard errors, against $\\delta = 1/3$.", "name": "fig-thm41-example"}}
plot_example_a1(example, flips, delta)
plt.show()

# %% [markdown]
# (thm41-asymmetric)=
# ## Beyond the theorem: class-dependent errors (Remark 4.2)
#
# Remark 4.2 of the paper says that Top-k's failure in practice is "purely a consequence of
# the correlation structure". Theorem 4.1 needs more than independence: each model
# must be a binary *symmetric* channel, wrong as often on $Y = +1$ queries as on $Y = -1$
# ones. Independent models whose error rates depend on the class, $\epsilon^{+}_j \neq
# \epsilon^{-}_j$, are not BSCs, and Top-k by accuracy can lose without any correlation. The
# paper's own binary conversion produces such errors (a positive query is answered correctly
# only when the model picked the right option, a negative one whenever it did not pick that
# wrong option); {doc}`mmlu_pro_modelling` measures the asymmetry on real answers. The remark
# is therefore **false** as stated.
#
# Four independent models, balanced labels, $k = 2$ (models numbered from 1):

# %%
eps_pos = [0.060, 0.181, 0.092, 0.118]  # error rate on Y = +1 queries
eps_neg = [0.338, 0.126, 0.218, 0.441]  # error rate on Y = -1 queries
example_asym = asymmetric_top_k_regret(eps_pos, eps_neg, 2)
pairs = subset_table(asymmetric_joint_law(eps_pos, eps_neg), 2)
pairs["models"] = [f"{{{i + 1}, {j + 1}}}" for i, j in pairs["subset"]]
pairs[["models", "mi", "map_error"]].round(4)

# %% tags=["remove-cell"]
top_pair = tuple(j + 1 for j in example_asym["top_k"])
best_pair = tuple(j + 1 for j in example_asym["best"])
checks.equal("the two most accurate models (1-based)", top_pair, (2, 3), ref="Rem. 4.2")
checks.close("exact MAP error of the Top-2 pair {2, 3}, to 4 decimals", example_asym["error_top"],
             0.1419, tol=5e-5, ref="Rem. 4.2 (false)")
checks.close("exact MAP error of the pair {1, 3}, to 4 decimals", example_asym["error_best"],
             0.1101, tol=5e-5, ref="Rem. 4.2 (false)")
checks.equal("the best pair is {1, 3}", best_pair, (1, 3), ref="Rem. 4.2 (false)")
mi_pair = pairs.loc[pairs["mi"].idxmax(), "subset"]
checks.add("the MI-optimal pair is not the error-optimal pair", mi_pair != example_asym["best"],
           value=str(tuple(j + 1 for j in mi_pair)), ref="Thm 4.1 (needs symmetry)")
glue("asym_mi_pair", "{" + ", ".join(str(j + 1) for j in mi_pair) + "}", display=False)
acc = example_asym["accuracy"]
glue("asym_acc_top", ", ".join(f"{acc[j]:.4f}" for j in example_asym["top_k"]), display=False)
glue("asym_err_top", example_asym["error_top"], display=False)
glue("asym_err_best", example_asym["error_best"], display=False)
glue("asym_regret", example_asym["regret"], display=False)

# %% [markdown]
# Models 2 and 3 are the most accurate (accuracies {glue:text}`asym_acc_top`), and the
# exact MAP error of the pair is {glue:text}`asym_err_top:.4f`; the pair $\{1, 3\}$ reaches
# {glue:text}`asym_err_best:.4f`, {glue:text}`asym_regret:.4f` lower. The alignment of
# information and error breaks too: the pair with the most information about $Y$ is
# {glue:text}`asym_mi_pair`, not the error-optimal one. Model 1 is nearly
# always right on positives and model 3 fairly reliable on negatives: their errors
# complement each other by class, which the accuracy averages away.
#
# How common is this? For each $(m, k)$ of {glue:text}`asym_shapes`, {glue:text}`asym_n` random pools
# draw every $\epsilon^{+}_j$ and $\epsilon^{-}_j$ independently and uniformly on
# {glue:text}`asym_interval` (seed {glue:text}`seed`); the MAP errors of Top-k and of every other
# $k$-subset are computed exactly (`ensel.theory.asymmetric_regret_study`). The control draws
# one rate per model ($\epsilon^{-} = \epsilon^{+}$, Theorem 4.1's setting).

# %%
study = pd.concat(
    [asymmetric_regret_study(asym_pools, m, k, low=asym_low, high=asym_high,
                             symmetric=sym, random_state=seed)
     .assign(m=m, k=k, symmetric=sym)
     for m, k in asym_shapes for sym in (False, True)])
asym_summary = study.groupby(["symmetric", "m", "k"]).agg(
    pools=("regret", "size"),
    top_k_loses=("regret", lambda r: float((r > 1e-12).mean())),
    loses_by_over_001=("regret", lambda r: float((r > 0.01).mean())),
    largest_loss=("regret", "max"))
asym_summary

# %% tags=["remove-cell"]
asym = asym_summary.loc[False]
checks.at_most("symmetric control: Top-k's largest loss (Theorem 4.1)",
               asym_summary.loc[True, "largest_loss"], 1e-12, ref="Thm 4.1")
checks.at_least("class-asymmetric pools where Top-k loses by > 0.01",
                int((study.loc[~study["symmetric"], "regret"] > 0.01).sum()), 1,
                ref="Rem. 4.2 (false)")
glue("asym_n", asym_pools, display=False)
glue("asym_share", "; ".join(f"{v:.1%} for m = {m}, k = {k}"
                             for (m, k), v in asym["loses_by_over_001"].items()), display=False)
glue("asym_share_any", "; ".join(f"{v:.1%}" for v in asym["top_k_loses"]), display=False)
glue("asym_max", asym["largest_loss"].max(), display=False)

# %% [markdown]
# Top-k loses by more than $0.01$ in MAP error on {glue:text}`asym_share` of the
# class-asymmetric pools (it loses at all on {glue:text}`asym_share_any`; the largest loss
# is {glue:text}`asym_max:.4f`), and never in the symmetric control. Correlation is one
# reason Top-k fails; class-dependent error rates are another, present even under
# independence. The {doc}`corrections` page lists this with the book's other corrections.

# %% [markdown]
# ## What this page establishes
#
# * {prf:ref}`Theorem 4.1 <theorem-4-1-thm-alignment>` holds exactly on every random pool,
#   budget and prior tried: $H_k$ maximises $I(Y;\mathbf X_S)$ and minimises $\mathbb P_e(S)$.
# * Remark A.5 is only half right: with $0 < \epsilon_j < 1/2$ the mutual information is
#   strictly maximised by $H_k$, but the MAP error frequently ties (every $k = 2$ instance,
#   and Example A.1 itself). The error-optimal subset is therefore not unique in general;
#   "$S^\star$ coincides with $H_k$" should read "$H_k$ is error-optimal". With a perfect
#   model ($\epsilon_1 = 0$) the mutual information ties as well.
# * Remark A.6 is correct: nothing in the argument depends on the prior.
# * Remark 4.2 is false: independent models with class-dependent error rates are not
#   symmetric channels, and Top-k loses to another subset (exactly {glue:text}`asym_err_top:.4f`
#   against {glue:text}`asym_err_best:.4f` in the example; by more than 0.01 on
#   {glue:text}`asym_share` of random asymmetric pools).
# * Example A.1's degradation $\delta = 1/3$ reproduces $\epsilon_3 = 0.4$ and the
#   Markov chain $Y \to X_2 \to \widetilde X_3$ in simulation.

# %% tags=["remove-input"]
checks.report()
