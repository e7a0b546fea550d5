"""Page support for the model and theory pages: figures and table layouts (book layer).

One section per page (``system_model``, ``correlation_sweep``, ``theorem_4_1``,
``theorem_4_3``, ``theorem_4_4``, ``theorem_d_1``, ``theorem_e_1``). The pages keep the
computations visible; what lives here is how a result is drawn or laid out, and loops that
are bookkeeping rather than mathematics. Every figure function takes data and returns the
Figure; nothing here draws random numbers of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = [
    "glue",
    "ONE_FACTOR_HEADERS",
    "TERM_HEADERS",
    "bsc_table",
    "dominance_summary",
    "entropy_form_deviation",
    "no_negative_zero",
    "one_factor_table",
    "plot_bsc_capacity",
    "plot_decomposition_terms",
    "plot_error_counts",
    "plot_example_a1",
    "plot_floor_heatmap",
    "plot_greedy_vs_optimum",
    "plot_mrmr_vs_delta",
    "plot_pattern_likelihood",
    "plot_price_curves",
    "plot_price_errors",
    "plot_saturation_curves",
    "plot_sweep",
    "plot_vote_vs_map",
    "saturation_summary",
    "short_terms",
]


def glue(name: str, value: Any, display: bool = False) -> None:
    """:func:`myst_nb.glue` for numbers in prose: numpy scalars are glued as Python numbers.

    ``{glue:text}`` formats the glued ``text/plain``; under NumPy 2 a ``numpy.float64``
    prints as ``np.float64(0.3)``, which a format spec such as ``:.4f`` cannot read.
    """
    from myst_nb import glue as _glue

    _glue(name, value.item() if isinstance(value, np.generic) else value, display=display)


def no_negative_zero(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``0.0`` to the float columns, which turns ``-0.0`` into ``0.0`` in printed tables."""
    return df.apply(lambda c: c + 0.0 if c.dtype.kind == "f" else c)


# --- correlation_sweep -------------------------------------------------------------------


def plot_sweep(errors: pd.DataFrame, floor: float, *, rho: float, accuracy: float) -> Figure:
    """Test error against ensemble size: majority vote, plug-in MAP, exact error, floor."""
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
    return fig


# --- theorem_4_4 -------------------------------------------------------------------------


def saturation_summary(curve_df: pd.DataFrame, m_max: int) -> pd.DataFrame:
    """Per ``(alpha, rho)`` curve: error at ``m = 1`` and ``m_max``, floor, gap, ``m`` x gap."""
    def one(g: pd.DataFrame) -> pd.Series:
        gap = g["error"].iloc[-1] - g["floor"].iloc[0]
        return pd.Series({"Pₑ(1)": g["error"].iloc[0], f"Pₑ({m_max})": g["error"].iloc[-1],
                          "floor": g["floor"].iloc[0], "gap": gap, f"gap × {m_max}": gap * m_max})
    return (curve_df.groupby(["alpha", "rho"], sort=False).apply(one, include_groups=False)
            .reset_index())


def plot_saturation_curves(curve_df: pd.DataFrame) -> Figure:
    """Exact MAP error against odd ``m`` (log axis), the floor of each curve dashed."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for (alpha, rho), g in curve_df.groupby(["alpha", "rho"], sort=False):
        (line,) = ax.plot(g["m"], g["error"], marker=".",
                          label=rf"$\alpha={alpha}, \rho={rho}$")
        ax.axhline(g["floor"].iloc[0], ls="--", color=line.get_color(), lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("ensemble size $m$ (odd)")
    ax.set_ylabel(r"exact $\mathbb{P}_e(m)$ of MAP")
    ax.set_title("MAP error saturates at the floor (dashed)")
    ax.legend(fontsize=8)
    return fig


def plot_floor_heatmap(floor_grid: pd.DataFrame) -> Figure:
    """Heatmap of the saturation floor (rows: ``rho``, columns: ``alpha``), values printed."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    im = ax.imshow(floor_grid.to_numpy(), origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(floor_grid.shape[1]), [f"{a:g}" for a in floor_grid.columns])
    ax.set_yticks(range(floor_grid.shape[0]), [f"{r:g}" for r in floor_grid.index])
    for i in range(floor_grid.shape[0]):
        for j in range(floor_grid.shape[1]):
            v = floor_grid.iat[i, j]
            ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=6,
                    color="white" if v < 0.25 else "black")
    ax.set_xlabel(r"accuracy $\alpha$")
    ax.set_ylabel(r"correlation $\rho$")
    ax.set_title(r"saturation floor $\Phi(\Phi^{-1}(1-\alpha)/\sqrt{\rho})$")
    fig.colorbar(im, ax=ax, label="asymptotic error")
    return fig


def plot_pattern_likelihood(q: Mapping[tuple[float, float], np.ndarray], m: int) -> Figure:
    """``q_k`` against ``k`` (log scale), one line per ``(alpha, rho)``."""
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for (alpha, rho), qk in q.items():
        ax.semilogy(np.arange(m + 1), qk, marker="o", ms=3,
                    label=rf"$\alpha={alpha}, \rho={rho}$")
    ax.set_xlabel("number of wrong models $k$")
    ax.set_ylabel("$q_k$ = likelihood of one pattern")
    ax.set_title(f"pattern likelihood for m = {m}: not monotone in k")
    ax.legend(fontsize=8)
    return fig


# --- theorem_e_1 -------------------------------------------------------------------------


def plot_vote_vs_map(corr: pd.DataFrame) -> Figure:
    """Exact errors of MAP and the log-odds vote, and the mass where they disagree, vs rho."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.3))
    for pool, g in corr.groupby("pool"):
        axes[0].plot(g["rho"], g["map_error"], "o-", label=f"MAP, {pool}")
        axes[0].plot(g["rho"], g["vote_error"], "s--", label=f"log-odds vote, {pool}")
        axes[1].plot(g["rho"], g["disagreement_mass"], "o-", label=pool)
    axes[0].set_xlabel(r"latent error correlation $\rho$")
    axes[0].set_ylabel("exact error probability")
    axes[0].legend(fontsize=7)
    axes[1].set_xlabel(r"latent error correlation $\rho$")
    axes[1].set_ylabel("P(patterns where vote ≠ MAP)")
    axes[1].legend(fontsize=7)
    fig.suptitle("Log-odds weighted vote vs exact MAP under correlated errors")
    fig.tight_layout()
    return fig


# --- theorem_4_1 -------------------------------------------------------------------------


def dominance_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Top-k dominance instances grouped by prior and pool size: counts, smallest gaps, ties.

    Gaps of order 1e-17 are floating-point rounding of exact ties: the gaps are rounded to 12
    decimals (and ``-0.0`` shown as ``0.0``).
    """
    summary = results.groupby(["prior", "m"]).agg(
        instances=("k", "size"),
        subsets_compared=("n_other", "sum"),
        min_mi_gap=("mi_gap", "min"),
        min_error_gap=("error_gap", "min"),
        instances_with_error_tie=("n_error_ties", lambda s: int((s > 0).sum())),
        instances_with_mi_tie=("n_mi_ties", lambda s: int((s > 0).sum())),
    )
    return no_negative_zero(summary.round(12)).rename(
        columns={"subsets_compared": "subsets", "min_mi_gap": "min MI gap",
                 "min_error_gap": "min error gap", "instances_with_error_tie": "error ties",
                 "instances_with_mi_tie": "MI ties"})


def plot_example_a1(example: pd.DataFrame, flips: pd.DataFrame, delta: float) -> Figure:
    """Example A.1: MI and MAP error of the pairs; simulated conditional flip rates."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    example[["mi"]].plot.bar(ax=axes[0], legend=False, color="tab:blue", rot=0)
    axes[0].set_ylabel(r"$I(Y; \mathbf{X}_S)$ [bits]")
    axes[0].set_title("Example A.1: mutual information")
    ax2 = axes[0].twinx()
    ax2.plot(range(len(example)), example["map_error"], "o--", color="tab:red")
    ax2.set_ylabel("MAP error", color="tab:red")
    ax2.set_ylim(0, 0.25)
    labels = [f"$Y={y:+d}$\n$X_2={s:+d}$"
              for y, s in zip(flips["y"], flips["x_strong"], strict=True)]
    axes[1].errorbar(range(len(flips)), flips["flip_rate"], yerr=4 * flips["std_error"],
                     fmt="o")
    axes[1].axhline(delta, color="grey", ls=":", label=r"$\delta = 1/3$")
    axes[1].set_xticks(range(len(flips)), labels, fontsize=9)
    axes[1].set_ylabel(r"$P(\widetilde{X}_3 \neq X_2 \mid Y, X_2)$")
    axes[1].set_title("Conditional flip rates (±4 s.e.)")
    axes[1].legend()
    fig.tight_layout()
    return fig


# --- theorem_4_3 -------------------------------------------------------------------------


#: Compact headers for the terms of Theorem 4.3 (``ensel.theory.decomposition_table``).
TERM_HEADERS = {"relevance": "I(Y;Xⱼ)", "redundancy": "I(Xⱼ;Xₛ)",
                "error_correlation": "I(Eⱼ;Eₛ)", "correction": "Λ", "delta": "Δ",
                "three_term": "Eq. (10)", "mrmr": "mRMR", "error_label": "I(Eⱼ;Y)",
                "residual": "residual"}


def short_terms(table: pd.DataFrame) -> pd.DataFrame:
    """The table with the decomposition terms under compact headers (``I(Y;Xⱼ)``, ``Λ``,
    ``Δ``, ...), so that it fits the page without scrolling."""
    return table.rename(columns=TERM_HEADERS)


def plot_decomposition_terms(terms: pd.DataFrame) -> Figure:
    """Bars of relevance, minus redundancy and plus error correlation per candidate; stars:
    their sum ``delta``."""
    fig, ax = plt.subplots(figsize=(8, 3.2))
    parts = pd.DataFrame({r"relevance $I(Y;X_j)$": terms["relevance"],
                          r"$-$ redundancy $I(X_j;\mathbf{X}_S)$": -terms["redundancy"],
                          r"$+$ error corr. $I(E_j;E_S)$": terms["error_correlation"]})
    parts.plot.bar(ax=ax, rot=0, width=0.8)
    ax.plot(range(len(terms)), terms["delta"], "k*", ms=12, label=r"$\Delta(j \mid S)$ = sum")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel(r"candidate $j$ ($S = \{0\}$)")
    ax.set_ylabel("bits")
    ax.set_title("Theorem 4.3 terms, worked copula example")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    return fig


def plot_mrmr_vs_delta(cands: pd.DataFrame, tries: int) -> Figure:
    """mRMR score against the conditional MI for every candidate; disagreements circled."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    sc = ax.scatter(cands["mrmr"], cands["delta"], c=cands["error_correlation"],
                    cmap="viridis", s=14)
    dis = cands[cands["disagree"]]
    ax.scatter(dis["mrmr"], dis["delta"], facecolors="none", edgecolors="red", s=60,
               label="pools where the picks differ")
    lims = [cands["mrmr"].min(), cands["delta"].max()]
    ax.plot(lims, lims, ":", color="grey", lw=1, label=r"$\Delta$ = mRMR score")
    fig.colorbar(sc, ax=ax, label=r"$I(E_j; E_S)$ [bits]")
    ax.set_xlabel(r"mRMR score $I(Y;X_j) - I(X_j;\mathbf{X}_S)$")
    ax.set_ylabel(r"$\Delta(j \mid S) = I(Y; X_j \mid \mathbf{X}_S)$")
    ax.set_title(f"{len(cands)} candidates, {tries} random pools")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


# --- theorem_d_1 -------------------------------------------------------------------------


def entropy_form_deviation(model: Any, m: int) -> float:
    """Largest deviation, over the non-empty subsets ``S`` of ``range(m)``, in the entropy
    form of the proof of Theorem D.1, computed with plain entropies of the joint table of
    ``(D, Y, X_S)`` (``ensel.info.entropy_table``):

    * ``H(X_S | Y, D) = sum_j H(X_j | Y, D)`` (conditional independence), and
    * ``F(S) = H(X_S | D) - sum_j H(X_j | Y, D)``.

    ``model`` is an ``ensel.theory.LatentDifficultyModel``.
    """
    from ensel.info import entropy_table

    worst = 0.0
    for mask in range(1, 1 << m):
        S = tuple(j for j in range(m) if mask >> j & 1)
        p = model.joint(S)  # axes: D, Y, X_S
        xs = tuple(range(2, p.ndim))
        h_xs_given_d = entropy_table(p, (0,) + xs) - entropy_table(p, (0,))
        modular = sum(entropy_table(p, (0, 1, 2 + t)) - entropy_table(p, (0, 1))
                      for t in range(len(S)))
        joint_cond = entropy_table(p, (0, 1) + xs) - entropy_table(p, (0, 1))
        worst = max(worst, abs(joint_cond - modular),
                    abs(model.difficulty_aware_information(S) - (h_xs_given_d - modular)))
    return worst


def plot_greedy_vs_optimum(gr: pd.DataFrame, k: int, bound: float) -> Figure:
    """Greedy value against the exhaustive optimum at budget ``k``, with ``y = x`` and
    ``y = bound * x``."""
    fig, ax = plt.subplots(figsize=(4.8, 4.2))
    at_k = gr[gr["k"] == k]
    ax.scatter(at_k["optimum"], at_k["greedy"], s=14, label=f"instances, k = {k}")
    lim = np.array([0, at_k["optimum"].max() * 1.05])
    ax.plot(lim, lim, "k-", lw=1, label="greedy = optimum")
    ax.plot(lim, bound * lim, "k--", lw=1, label=r"$(1-1/e)\times$ optimum")
    ax.set_xlabel(r"exhaustive optimum of $F(S)$ (bits)")
    ax.set_ylabel(r"greedy value of $F(S)$ (bits)")
    ax.set_title("greedy vs exhaustive, difficulty-aware MI")
    ax.legend(fontsize=8)
    return fig


def plot_price_curves(of_df: pd.DataFrame, rand_curves: Sequence[Sequence[float]], *,
                      alpha: float, rho: float) -> Figure:
    """Left: ``F(S)``, ``I(Y; X_S)`` and the price along the one-factor path; right: the
    price on random latent-difficulty models."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    ax = axes[0]
    for col, style, label in [("F(S)", "-", r"$F(S) = I(Y; \mathbf{X}_S \mid D)$"),
                              ("I(Y;X_S)", "-", r"$I(Y; \mathbf{X}_S)$"),
                              ("price", "--", r"price $I(Y; D \mid \mathbf{X}_S)$")]:
        ax.plot(of_df["|S|"], of_df[col], style, marker="o", ms=3, label=label)
    ax.set_xlabel("$|S|$")
    ax.set_ylabel("bits")
    ax.set_title(rf"one-factor copula, $\alpha={alpha}$, $\rho={rho}$")
    ax.legend(fontsize=8)
    ax = axes[1]
    for i, c in enumerate(rand_curves):
        ax.plot(range(len(c)), c, marker=".", label=f"random instance {i}")
    ax.set_xlabel("$|S|$ (models added in greedy order of $F$)")
    ax.set_ylabel(r"price of difficulty $I(Y; D \mid \mathbf{X}_S)$ (bits)")
    ax.set_title("random latent-difficulty models")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_price_errors(of_df: pd.DataFrame, floor: float) -> Figure:
    """Bayes error from ``X_S``, oracle error from ``(X_S, D)`` and the saturation floor."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.plot(of_df["|S|"], of_df["error from X_S"], marker="o", ms=3,
            label=r"Bayes error from $X_S$")
    ax.plot(of_df["|S|"], of_df["error from (X_S, D)"], marker="o", ms=3,
            label=r"oracle error from $(X_S, D)$")
    ax.axhline(floor, ls="--", color="k", lw=1, label="Theorem 4.4 floor")
    ax.set_xlabel("$|S|$")
    ax.set_ylabel("error probability")
    ax.legend(fontsize=8)
    return fig


# --- system_model ------------------------------------------------------------------------


def plot_error_counts(samples: Mapping[tuple[float, float], np.ndarray],
                      accuracies: Sequence[float], rhos: Sequence[float], m: int,
                      n_items: int) -> Figure:
    """Distribution of the number of wrong models: simulated (solid, from the 0/1 error
    samples keyed by ``(accuracy, rho)``) and the exact law (dashed), one panel per
    accuracy, stacked so that each is shown at full width."""
    from ensel.theory import error_count_distribution

    fig, axes = plt.subplots(len(accuracies), 1, figsize=(7.5, 3.3 * len(accuracies)),
                             sharex=True, sharey=True, squeeze=False)
    axes = axes[:, 0]
    for ax, alpha in zip(axes, accuracies, strict=True):
        for rho in rhos:
            K = samples[alpha, rho].sum(axis=1)
            freq = np.bincount(K, minlength=m + 1) / len(K)
            (line,) = ax.plot(np.arange(m + 1), freq, marker="o", ms=3, label=f"ρ = {rho}")
            ax.plot(np.arange(m + 1), error_count_distribution(alpha, rho, m), ls="--",
                    lw=1, color=line.get_color())
        ax.set_title(f"accuracy α = {alpha}  (solid: simulated, dashed: exact law)",
                     fontsize=12)
        ax.set_ylabel("fraction of items", fontsize=11)
        ax.set_yscale("log")
        ax.tick_params(labelsize=10)
        ax.legend(fontsize=10, loc="lower left")
    axes[-1].set_xlabel(f"number of models wrong (of m = {m})", fontsize=11)
    axes[-1].set_xticks(np.arange(m + 1))
    axes[0].set_ylim(0.3 / n_items, 1.0)  # shared y axis; the exact law can be tinier
    fig.tight_layout()
    return fig


#: Short headers of the one-factor statistics (``ensel.book.simulation.compare_one_factor``).
ONE_FACTOR_HEADERS = {"error_rate": "ε", "joint_error_rate": "Φ₂(τ,τ;ρ)",
                      "error_correlation": "error corr.", "errors_mean": "E K",
                      "errors_var": "Var K"}


def one_factor_table(stats: pd.DataFrame) -> pd.DataFrame:
    """Nominal and simulated one-factor statistics on alternate rows, one column per
    statistic (narrow enough for the page), rounded to 4 decimals."""
    wide = stats.pivot_table(index=["accuracy", "rho"], columns="statistic",
                             values=["nominal", "simulated"]).round(4)
    table = wide.stack(level=0, future_stack=True).rename_axis(
        index=["accuracy", "rho", ""], columns=None)
    return table[list(ONE_FACTOR_HEADERS)].rename(columns=ONE_FACTOR_HEADERS)


def bsc_table(bsc: pd.DataFrame) -> pd.DataFrame:
    """The BSC view of a pool, rounded, with readable headers (``-0.0`` shown as ``0.0``)."""
    return (bsc.set_index("model").round(5).add(0.0)
            .rename(columns={"crossover eps": "crossover ε",
                             "capacity 1 - h(eps)": "capacity 1 − h(ε)",
                             "exact I(Y; X_j)": "exact I(Y; X) of the model"}))


def plot_bsc_capacity(bsc: pd.DataFrame, pool: str) -> Figure:
    """The BSC capacity curve ``1 - h(eps)`` with each model's exact ``I(Y; X_j)``."""
    from ensel.theory import bsc_capacity

    eps_line = np.linspace(0, 1, 401)
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.plot(eps_line, bsc_capacity(eps_line), "k-", lw=1, label="$1 - h(\\epsilon)$")
    ax.scatter(bsc["crossover eps"], bsc["exact I(Y; X_j)"], color="C3", zorder=3,
               label=f"exact $I(Y; X_j)$, {pool} pool")
    ax.set_xlabel(r"crossover probability $\epsilon_j$ (error rate)")
    ax.set_ylabel("bits")
    ax.set_title("each model as a BSC: relevance = capacity")
    ax.legend(fontsize=8)
    return fig
