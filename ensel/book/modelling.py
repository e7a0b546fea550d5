"""Page support for "Does the copula model hold on real LLM answers? (MMLU-Pro)".

Figures, derived tables and the numbers each section's finding quotes (returned as dicts for
``glue``), and the verdict table with its thresholds. The statistics themselves come from
:mod:`ensel.diagnostics`; only the page imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ensel._errors import UsageError
from ensel.book.tables import counted

__all__ = [
    "fmt_p",
    "data_facts",
    "higher_order_table",
    "higher_order_figure",
    "higher_order_facts",
    "uniform_distractor",
    "label_table",
    "label_figure",
    "label_facts",
    "path_figure",
    "path_facts",
    "eq9_cost",
    "eq9_facts",
    "per_label_figure",
    "per_label_facts",
    "copula_curves",
    "subset_curves",
    "saturation_table",
    "saturation_figure",
    "saturation_facts",
    "verdict_table",
    "verdict_facts",
    "SourceView",
    "source_view",
    "label_intro",
]


def fmt_p(log10_p: float) -> str:
    """A p-value from its log10, readable even where the float underflows."""
    return f"{10 ** log10_p:.2g}" if log10_p > -300 else f"1e{log10_p:.0f}"


def _md(text: str) -> Any:
    """Markdown text for ``{glue:md}``."""
    from IPython.display import Markdown

    return Markdown(text)


def _py(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in d.items()}


def data_facts(E: pd.DataFrame, X: np.ndarray, question: np.ndarray) -> dict[str, Any]:
    abstain = (X == 0).mean(axis=0)
    return _py({"m": X.shape[1], "questions": len(np.unique(question)), "n": X.shape[0],
                "acc_lo": 1 - E.mean().max(), "acc_hi": 1 - E.mean().min(),
                "abst_lo": abstain.min(), "abst_hi": abstain.max()})


# ------------------------------------------------------------------ 1. higher-order fit
def higher_order_table(hof: Any) -> pd.DataFrame:
    """Distances of the copula and of independence to the data, with the reference levels."""
    return pd.DataFrame({
        "total variation, #errors": [hof.tv_copula, hof.tv_independent,
                                     float(hof.reference_tv.mean()),
                                     float(np.quantile(hof.reference_tv, 0.95))],
        "mean |error|, triples": [hof.triple_mae_copula, hof.triple_mae_independent,
                                  float(hof.reference_triple_mae.mean()),
                                  float(np.quantile(hof.reference_triple_mae, 0.95))],
    }, index=["Gaussian copula", "independent errors", "reference: mean",
              "reference: 95% quantile"])


def higher_order_figure(hof: Any) -> Figure:
    cnt, tri = hof.counts, hof.triples
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.8))
    k_ax = cnt["n_errors"].to_numpy()
    ax0.bar(k_ax, cnt["empirical"], color="#bbbbbb", label="data")
    ax0.plot(k_ax, cnt["copula"], "o-", color="#1f77b4", label="Gaussian copula")
    ax0.plot(k_ax, np.maximum(cnt["independent"], 1e-7), "s--", color="#ff7f0e",
             label="independent errors")
    ax0.set_yscale("log")
    ax0.set_ylim(1e-5, 1)
    ax0.set_xlabel("number of models wrong on the same query")
    ax0.set_ylabel("fraction of queries")
    ax0.legend(fontsize=8)
    ax0.grid(alpha=0.3)
    ax1.scatter(tri["empirical"], tri["independent"], s=8, color="#ff7f0e", alpha=0.6,
                label="independent errors")
    ax1.scatter(tri["empirical"], tri["copula"], s=8, color="#1f77b4", alpha=0.7,
                label="Gaussian copula")
    hi = float(tri[["empirical", "copula", "independent"]].to_numpy().max()) * 1.05
    ax1.plot([0, hi], [0, hi], "k--", linewidth=1, label="y = x")
    ax1.set_xlabel(r"data $P(E_i, E_j, E_l)$")
    ax1.set_ylabel(r"model $P(E_i, E_j, E_l)$")
    ax1.set_title(f"all {len(tri)} triples", fontsize=9)
    ax1.legend(fontsize=8)
    ax1.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def higher_order_facts(hof: Any, m: int) -> dict[str, Any]:
    cnt = hof.counts
    ref_tv95 = float(np.quantile(hof.reference_tv, 0.95))
    ref_mae95 = float(np.quantile(hof.reference_triple_mae, 0.95))
    worst = cnt.loc[cnt["z"].abs().idxmax()]
    top = cnt.loc[cnt["n_errors"] == m].iloc[0]
    ratio_tv = hof.tv_independent / hof.tv_copula
    ratio_mae = hof.triple_mae_independent / hof.triple_mae_copula
    return _py({
        "far": "far better" if ratio_tv >= 5 and ratio_mae >= 5 else "better",
        "tv_cop": hof.tv_copula, "tv_ind": hof.tv_independent, "ratio_tv": ratio_tv,
        "n_triples": len(hof.triples), "mae_cop": hof.triple_mae_copula,
        "mae_ind": hof.triple_mae_independent, "ratio_mae": ratio_mae,
        "none_ind": cnt["independent"].iloc[0], "none_emp": cnt["empirical"].iloc[0],
        "m": m, "top_ind": top["independent"], "top_emp": top["empirical"],
        "top_cop": top["copula"], "top_z": top["z"],
        "within": _md("But the copula is **not**" if hof.tv_copula > ref_tv95
                      else "The copula is"),
        "tv_over_ref": hof.tv_copula / ref_tv95, "ref_tv95": ref_tv95,
        "mae_over_ref": hof.triple_mae_copula / ref_mae95, "ref_mae95": ref_mae95,
        "big_z": ", ".join(str(k) for k in cnt.loc[cnt["z"].abs() > 3, "n_errors"].tolist()),
        "worst_k": int(worst["n_errors"]), "worst_emp": worst["empirical"],
        "worst_cop": worst["copula"], "worst_z": worst["z"]})


# ---------------------------------------------------------------- 2. label dependence
def uniform_distractor(predictions: pd.DataFrame) -> pd.Series:
    """Per model: the negative-query error rate if wrong picks were uniform over the
    distractors (:func:`ensel.diagnostics.expected_negative_error_rate`)."""
    from ensel.diagnostics import expected_negative_error_rate

    return pd.Series({
        mdl: expected_negative_error_rate(g["pred"].notna() & (g["pred"] != g["gold"]),
                                          g["pred"].isna(), g["n_options"])
        for mdl, g in predictions.groupby("model", sort=False)})


def label_table(lab: pd.DataFrame) -> pd.DataFrame:
    shown = lab[["error_pos", "error_neg", "uniform distractor", "difference", "ci_low",
                 "ci_high", "chi2", "mi_error_label", "neg_without_pos"]].copy()
    shown["p-value"] = lab["log10_p"].map(fmt_p)
    return shown.rename(columns={"error_pos": "P(E|Y=+1)", "error_neg": "P(E|Y=-1)",
                                 "mi_error_label": "I(E;Y) bits",
                                 "neg_without_pos": "neg. without pos."}).round(4)


def label_figure(lab: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    ax.scatter(lab["error_pos"], lab["error_neg"], color="#1f77b4", label="data", zorder=3)
    ax.scatter(lab["error_pos"], lab["uniform distractor"], marker="x", color="#d62728",
               label="uniform-distractor prediction", zorder=3)
    ax.plot([0, 1], [0, 1], "k--", linewidth=1, label="label invariance")
    ax.set_xlim(0, 0.8)
    ax.set_ylim(0, 0.8)
    ax.set_xlabel(r"$P(E_j \mid Y=+1)$")
    ax.set_ylabel(r"$P(E_j \mid Y=-1)$")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def label_facts(lab: pd.DataFrame, m: int) -> dict[str, Any]:
    unif_gap = float((lab["error_neg"] - lab["uniform distractor"]).abs().max())
    return _py({
        "diff_lo": lab["difference"].min(), "diff_hi": lab["difference"].max(),
        "n_sig": int((lab["log10_p"] < np.log10(0.05 / m)).sum()), "m": m,
        "p_max": fmt_p(float(lab["log10_p"].max())),
        "mi_lo": lab["mi_error_label"].min(), "mi_hi": lab["mi_error_label"].max(),
        "unif_gap": unif_gap,
        "unif_end": (": the dependence is the arithmetic of the conversion, not a "
                     "peculiarity of the models." if unif_gap < 0.02 else "."),
        "max_diff": float(lab["difference"].abs().max())})


def path_figure(path: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 3.6))
    steps = path["step"].to_numpy()
    ax.plot(steps, path["three_term"], "o-", label="Eq. (10): three terms")
    ax.plot(steps, path["delta"], "s-", label=r"$\Delta(j\mid S) = I(Y;X_j\mid X_S)$")
    ax.plot(steps, path["correction"], "^-", label=r"$\Lambda_j(S)$")
    ax.axhline(0, color="k", linewidth=0.8)
    ax.set_xlabel("Greedy MI step (model added)")
    ax.set_ylabel("bits")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def path_facts(path: pd.DataFrame, m: int) -> dict[str, Any]:
    later = path[path["step"] >= 2]
    delta_max = float(later["delta"].max())
    return _py({
        "m": m, "lam_lo": later["correction"].min(), "lam_hi": later["correction"].max(),
        "delta_lo": later["delta"].min(), "delta_hi": delta_max,
        "lam_ratio": float(later["correction"].abs().max()) / delta_max,
        "lam_share": float((later["correction"].abs()
                                  / later["three_term"].abs()).median()),
        "last_three": later["three_term"].iloc[-1], "last_delta": later["delta"].iloc[-1]})


def eq9_cost(cmp_curves: pd.DataFrame, n_splits: int) -> pd.DataFrame:
    """Per k: mean held-out MAP error of both greedy rules, their paired difference
    (Eq. (10) minus full), its standard error and on how many splits they pick the same set."""
    wide = cmp_curves.pivot_table(index=["split", "k"], columns="selector", values="error")
    same = cmp_curves.pivot_table(index=["split", "k"], columns="selector",
                                  values="selected", aggfunc="first")
    wide["diff"] = wide["three_term"] - wide["greedy_mi"]
    wide["same set"] = [set(a.split("|")) == set(b.split("|"))
                        for a, b in zip(same["three_term"], same["greedy_mi"], strict=True)]
    per_k = wide.groupby("k").agg(greedy_mi=("greedy_mi", "mean"),
                                  three_term=("three_term", "mean"),
                                  diff=("diff", "mean"), diff_std=("diff", "std"),
                                  same_set=("same set", "sum"))
    per_k["diff_se"] = per_k["diff_std"].fillna(0) / np.sqrt(n_splits)
    return per_k


def eq9_facts(per_k: pd.DataFrame, n_splits: int, m: int) -> dict[str, Any]:
    differ = per_k[per_k["same_set"] < n_splits]
    worst_k = int(per_k["diff"].idxmax())
    max_cost = float(per_k["diff"].max())
    return _py({
        "n_differ": len(differ), "m": m, "k_lo": int(differ.index.min()),
        "k_hi": int(differ.index.max()), "n_always": int((differ["same_set"] == 0).sum()),
        "n_worse": int((differ["diff"] > 0).sum()),
        "n_sig_worse": int((differ["diff"] > 2 * differ["diff_se"]).sum()),
        "max_cost": max_cost, "worst_k": worst_k,
        "worst_three": per_k.loc[worst_k, "three_term"],
        "worst_full": per_k.loc[worst_k, "greedy_mi"],
        "mean_cost": float(per_k["diff"].mean()), "max_cost_pct": 100 * max_cost})


# ----------------------------------------------------------------- 3. per-label copula
def per_label_figure(plc: Any) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    for ax, lab_value in zip(axes, (1, -1), strict=True):
        c = plc.counts[plc.counts["label"] == lab_value]
        ax.bar(c["n_errors"], c["empirical"], color="#bbbbbb", label="data")
        ax.plot(c["n_errors"], c["pooled"], "o-", color="#1f77b4", label="pooled copula")
        ax.plot(c["n_errors"], c["per_label"], "s-", color="#2ca02c",
                label="per-label copula")
        ax.set_yscale("log")
        ax.set_ylim(1e-4, 1)
        ax.set_title(f"queries with Y = {lab_value:+d}", fontsize=9)
        ax.set_xlabel("number of models wrong")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("fraction of queries")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def per_label_facts(plc: Any, m: int) -> dict[str, Any]:
    s = plc.summary
    neg = plc.counts[plc.counts["label"] == -1].set_index("n_errors")
    neg_worst = int((neg["empirical"] - neg["per_label"]).abs().idxmax())
    return _py({
        "tv_pool_pos": s.loc[1, "tv_pooled"], "tv_pool_neg": s.loc[-1, "tv_pooled"],
        "pair_pool": s["pair_mae_pooled"].mean(),
        "tv_pl_pos": s.loc[1, "tv_per_label"], "tv_pl_neg": s.loc[-1, "tv_per_label"],
        "improve": float((s["tv_pooled"] / s["tv_per_label"]).min()),
        "ref_pos": s.loc[1, "reference_tv"], "ref_neg": s.loc[-1, "reference_tv"],
        "tri_pos": s.loc[1, "triple_mae_per_label"],
        "tri_neg": s.loc[-1, "triple_mae_per_label"], "tri_pool": s["triple_mae_pooled"].mean(),
        "well": "well" if float(s["tv_per_label"].max()) <= 0.1 else "only roughly",
        "rel_pos": s.loc[1, "tv_per_label"] / s.loc[1, "reference_tv"],
        "rel_neg": s.loc[-1, "tv_per_label"] / s.loc[-1, "reference_tv"],
        "mix": plc.tv_overall_mixture, "pooled": plc.tv_overall_pooled,
        "mix_explains": _md(
            "This also explains much of the pooled misfit of Section 1"
            if plc.tv_overall_mixture < plc.tv_overall_pooled else
            "This does **not** explain the pooled misfit of Section 1 on this source"),
        "neg_worst": neg_worst, "neg_worst_emp": neg.loc[neg_worst, "empirical"],
        "neg_worst_pl": neg.loc[neg_worst, "per_label"], "m": m,
        "tail_emp": neg.loc[m, "empirical"], "tail_pl": neg.loc[m, "per_label"]})


# ---------------------------------------------------------------------- 4. saturation
def copula_curves(plc: Any, orders: Mapping[str, Any], *, n_train: int, n_test: int,
                  n_reps: int, seed: int) -> dict[str, pd.Series]:
    """Mean held-out error along the given orders on data simulated from the pooled
    (seed + 2) and the per-label (seed + 3) copula."""
    from ensel.diagnostics import copula_heldout_curves

    sims = {
        "pooled copula": copula_heldout_curves(
            plc.pooled, orders, n_train=n_train, n_test=n_test, n_reps=n_reps,
            random_state=seed + 2),
        "per-label copula": copula_heldout_curves(
            plc.per_label, orders, n_train=n_train, n_test=n_test, n_reps=n_reps,
            random_state=seed + 3),
    }
    return {k: v.groupby(["selector", "aggregator", "k"])["error"].mean()
            for k, v in sims.items()}


def subset_curves(copula: Any, orders: Mapping[str, Any], ks: list[int]
                  ) -> dict[str, pd.DataFrame]:
    """The one-factor prediction with the accuracy and correlation of each order's first
    ``k`` models."""
    from ensel.diagnostics import one_factor_curves, subset_one_factor

    out = {}
    for sel_name, order in orders.items():
        sub = subset_one_factor(copula.error_rates_, copula.Sigma_, order)
        out[sel_name] = one_factor_curves(sub["accuracy"], sub["rho"], ks)
    return out


def _real(summ: pd.DataFrame, sel_name: str, agg: str) -> pd.Series:
    r = summ[(summ["selector"] == sel_name) & (summ["aggregator"] == agg)]
    return r.set_index("k")["mean"]


def saturation_table(summ: pd.DataFrame, pool_curve: pd.DataFrame,
                     sub_curves: Mapping[str, pd.DataFrame],
                     sim_mean: Mapping[str, pd.Series], m: int) -> pd.DataFrame:
    """Per order and aggregator: the real best error, its k, the error at k = m and the
    largest gap of each prediction to the real curve."""
    rows = []
    for sel_name in ("topk", "greedy_mi"):
        for agg, rule in (("map", "map"), ("mv", "majority")):
            real = _real(summ, sel_name, agg)
            pool_pred = pool_curve[pool_curve["rule"] == rule].set_index("k")["error"]
            sub_pred = sub_curves[sel_name]
            sub_pred = sub_pred[sub_pred["rule"] == rule].set_index("k")["error"]
            rows.append({
                "order": sel_name, "aggregator": agg,
                "real best": float(real.min()), "k best": int(real.idxmin()),
                f"real k={m}": float(real[m]),
                "one-factor pool, max |gap|": float((real - pool_pred).abs().max()),
                "one-factor subset, max |gap|": float((real - sub_pred).abs().max()),
                "pooled copula, max |gap|": float(
                    (real - sim_mean["pooled copula"].loc[(sel_name, agg)]).abs().max()),
                "per-label copula, max |gap|": float(
                    (real - sim_mean["per-label copula"].loc[(sel_name, agg)]).abs().max()),
            })
    return pd.DataFrame(rows).set_index(["order", "aggregator"])


def saturation_figure(summ: pd.DataFrame, pool_curve: pd.DataFrame,
                      sub_curves: Mapping[str, pd.DataFrame],
                      sim_mean: Mapping[str, pd.Series], floor: float) -> Figure:
    titles = {"topk": "Top-k order", "greedy_mi": "Greedy MI order"}
    fig, axes = plt.subplots(2, 2, figsize=(10.5, 7.2), sharey=True)
    for r, sel_name in enumerate(("topk", "greedy_mi")):
        for c, agg in enumerate(("map", "mv")):
            ax = axes[r][c]
            rule = "map" if agg == "map" else "majority"
            real = summ[(summ["selector"] == sel_name) & (summ["aggregator"] == agg)]
            ax.plot(real["k"], real["mean"], "o-", color="k", label="real (held-out)")
            ax.fill_between(real["k"], real["mean"] - real["std"],
                            real["mean"] + real["std"], color="k", alpha=0.15)
            pc = pool_curve[pool_curve["rule"] == rule]
            ax.plot(pc["k"], pc["error"], "--", color="#ff7f0e", label="one-factor, pool")
            sc = sub_curves[sel_name]
            sc = sc[sc["rule"] == rule]
            ax.plot(sc["k"], sc["error"], ":", color="#ff7f0e", label="one-factor, subset")
            ax.axhline(floor, color="#d62728", linewidth=1,
                       label=f"floor Φ(Φ⁻¹(1−α)/√ρ) = {floor:.3f}")
            for lbl, color in (("pooled copula", "#1f77b4"), ("per-label copula", "#2ca02c")):
                sm = sim_mean[lbl].loc[(sel_name, agg)]
                ax.plot(sm.index, sm.to_numpy(), "s-", markersize=3, color=color, label=lbl)
            ax.set_title(f"{titles[sel_name]}, "
                         f"{'MAP' if agg == 'map' else 'majority vote'}", fontsize=9)
            ax.set_xlabel("k")
            ax.grid(alpha=0.3)
        axes[r][0].set_ylabel("error")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def saturation_facts(summ: pd.DataFrame, pool_curve: pd.DataFrame, sat: pd.DataFrame,
                     sim_mean: Mapping[str, pd.Series], one: Any, m: int,
                     abstain_first: float) -> dict[str, Any]:
    pm = pool_curve.pivot(index="k", columns="rule", values="error")
    map_g, mv_t = _real(summ, "greedy_mi", "map"), _real(summ, "topk", "mv")
    map_t = _real(summ, "topk", "map")
    half = (m + 1) // 2
    pl_gap = sim_mean["per-label copula"].loc[("greedy_mi", "map")] - map_g
    po_map = sim_mean["pooled copula"].loc[("greedy_mi", "map")]
    return _py({
        "alpha": one.accuracy, "rho": one.rho, "pm_1": pm["map"].iloc[0],
        "pm_m": pm["map"].iloc[-1], "m": m, "floor": one.floor,
        "vs_floor": "far below" if map_g.min() < one.floor - 0.05 else "near",
        "best": map_g.min(), "k_best": int(map_g.idxmin()), "map_g_m": map_g[m],
        "po_lo": po_map.min(), "po_hi": po_map.max(),
        "gap_pool": sat["one-factor pool, max |gap|"].max(),
        "gap_sub": sat["one-factor subset, max |gap|"].max(),
        "gap_po": sat["pooled copula, max |gap|"].max(),
        "gap_pl": sat["per-label copula, max |gap|"].max(),
        "map_t_m": map_t[m], "mv_t_m": mv_t[m], "mv_t_1": mv_t[1],
        "mv_off": mv_t[m] - pm["majority"].iloc[-1], "map_off": map_t[m] - pm["map"].iloc[-1],
        "half": half, "late_gain": float(map_g[half] - map_g[half:].min()),
        "rise": float(map_g[m] - map_g.min()),
        "pl_k": int(pl_gap.abs().idxmax()), "pl_max": pl_gap.abs().max(),
        "pl_1": pl_gap[1], "abst_half": abstain_first / 2})


# ------------------------------------------------------------------------- 5. verdict
def verdict_table(hof: Any, plc: Any, sat: pd.DataFrame, facts: Mapping[str, Any]
                  ) -> pd.DataFrame:
    """Each modelling assumption, its statistic and two thresholds fixed in advance, graded
    by :func:`ensel.book.claims.grade`. ``facts`` holds ``max_diff`` (label), ``lam_ratio``
    (path), ``max_cost`` and ``n_sig_worse`` (Eq. (10)), ``half``, ``late_gain``, ``best``
    and ``floor`` (saturation)."""
    from ensel.book.claims import grade

    ref_tv95 = float(np.quantile(hof.reference_tv, 0.95))
    ref_mae95 = float(np.quantile(hof.reference_triple_mae, 0.95))
    s = plc.summary
    half = facts["half"]
    # on a small source (a few hundred queries per label) twice the reference exceeds 0.1:
    # "partly" is then never stricter than "holds"
    ref2 = 2 * float(s["reference_tv"].max())
    partly_tv = max(0.1, ref2)
    rows = [
        ("Gaussian copula reproduces the number of simultaneous errors (pooled)",
         "TV(data, copula)", hof.tv_copula, ref_tv95, 0.25 * hof.tv_independent,
         f"holds ≤ 95% reference {ref_tv95:.3f}; partly ≤ ¼ TV of independence "
         f"({0.25 * hof.tv_independent:.3f})"),
        ("Gaussian copula reproduces triple joint errors (pooled)",
         "mean |P(Ei,Ej,El) data − copula|", hof.triple_mae_copula, ref_mae95,
         0.25 * hof.triple_mae_independent,
         f"holds ≤ 95% reference {ref_mae95:.4f}; partly ≤ ¼ of independence "
         f"({0.25 * hof.triple_mae_independent:.4f})"),
        ("Errors are independent of the label, (E1..Em) ⊥ Y",
         "max_j |P(Ej|Y=+1) − P(Ej|Y=−1)|", facts["max_diff"], 0.02, 0.05,
         "holds ≤ 0.02; partly ≤ 0.05"),
        ("Λj(S) ≈ 0 along the Greedy MI path",
         "max |Λ| / max Δ (steps ≥ 2, plug-in)", facts["lam_ratio"], 0.1, 0.5,
         "holds ≤ 0.1; partly ≤ 0.5"),
        ("Dropping Λ (Eq. (10) greedy) costs little held-out error against the full CMI greedy",
         "max_k held-out MAP error(Eq. 10) − error(full)", facts["max_cost"], 0.005, 0.015,
         "holds ≤ 0.005; partly ≤ 0.015"),
        ("Eq. (10) greedy is never worse than the full CMI greedy beyond noise",
         "budgets where Eq. (10) is worse by > 2 paired s.e.", facts["n_sig_worse"], 0, 1,
         "holds = 0; partly ≤ 1"),
        ("One (pooled) copula describes each label's errors",
         "max_y TV(data | y, pooled copula)", float(s["tv_pooled"].max()),
         ref2, partly_tv, f"holds ≤ 2× per-label reference ({ref2:.3f}); "
         f"partly ≤ {partly_tv:.3g}"),
        ("A per-label copula describes each label's errors (beyond the paper)",
         "max_y TV(data | y, per-label copula)", float(s["tv_per_label"].max()),
         ref2, partly_tv, f"holds ≤ 2× per-label reference ({ref2:.3f}); "
         f"partly ≤ {partly_tv:.3g}"),
        ("Held-out error saturates in k",
         f"MAP error gain from k={half} to the best k ≥ {half} (Greedy MI)",
         facts["late_gain"], 0.005, 0.015, "holds ≤ 0.005; partly ≤ 0.015"),
        ("Saturation floor at the one-factor prediction Φ(Φ⁻¹(1−α)/√ρ)",
         "|best real MAP error − floor|", abs(facts["best"] - facts["floor"]), 0.02, 0.05,
         "holds ≤ 0.02; partly ≤ 0.05"),
        ("One-factor summary describes the real MAP curve",
         "max over orders, k of |real − one-factor (subset)|, MAP",
         float(sat.xs("map", level="aggregator")["one-factor subset, max |gap|"].max()),
         0.02, 0.05, "holds ≤ 0.02; partly ≤ 0.05"),
        ("One-factor summary describes the real majority-vote curve",
         "max over orders, k of |real − one-factor (subset)|, MV",
         float(sat.xs("mv", level="aggregator")["one-factor subset, max |gap|"].max()),
         0.02, 0.05, "holds ≤ 0.02; partly ≤ 0.05"),
        ("A per-label copula predicts the real error curves (beyond the paper)",
         "max over orders, rules, k of |real − per-label copula|",
         float(sat["per-label copula, max |gap|"].max()), 0.02, 0.05,
         "holds ≤ 0.02; partly ≤ 0.05"),
    ]
    return pd.DataFrame([
        {"assumption / claim": a, "statistic": st, "value": round(v, 4), "thresholds": th,
         "verdict": grade(v, h, p)}
        for a, st, v, h, p, th in rows]).set_index("assumption / claim")


def verdict_facts(verdict: pd.DataFrame) -> dict[str, Any]:
    counts = verdict["verdict"].value_counts()

    def which(v: str) -> str:
        items = [f"*{a}*" for a in verdict.index[verdict["verdict"] == v]]
        return "; ".join(items) if items else "none"

    return {"n": len(verdict), "holds": counted(int(counts.get("holds", 0)), "holds", "hold"),
            "partly": counted(int(counts.get("partly", 0)), "holds partly", "hold partly"),
            "not": counted(int(counts.get("does not hold", 0)), "does not", "do not"),
            "which_holds": _md(which("holds")), "which_partly": _md(which("partly")),
            "which_not": _md(which("does not hold"))}


# ------------------------------------------------------------------- the page's source
class SourceView:
    """The modelling page's data on one real source (one condition).

    Attributes: ``Xw, yw`` (wide answers and labels of ``condition``), ``question`` (the
    question each query comes from, for bootstraps that resample whole questions; a natively
    binary query is its own question), ``predictions`` (multiple-choice picks per model and
    question, for the uniform-distractor prediction; ``None`` for natively binary data),
    ``multiple_choice``, ``condition``, ``conditions`` (all of the source's) and
    ``description`` (one Markdown sentence for the page).
    """

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


def _letters_chosen(dataset: str, df: pd.DataFrame) -> pd.DataFrame | None:
    """The options each model chose on a loaded multiple-choice source: the ``predictions`` of
    the ``binary_view`` of its loader's module, made with the options its table records
    (``df.attrs["options"]``); ``None`` when the module has none."""
    import importlib

    from ensel.datasets import DATASETS

    module = importlib.import_module(DATASETS[dataset].loader.partition(":")[0])
    view = getattr(module, "binary_view", None)
    return None if view is None else view(**df.attrs.get("options", {})).predictions


def source_view(dataset: str, df: pd.DataFrame, condition: str | None = None) -> SourceView:
    """Wide answers of one condition of a real source, with its question structure.

    ``condition=None`` takes the source's first condition. The source's profile
    (``data/datasets.yml``) says whether its queries come from multiple-choice questions.
    """
    from ensel.book.profiles import profile
    from ensel.data import to_wide

    prof = profile(dataset)
    conditions = [str(c) for c in pd.unique(df["condition"].astype(str))]
    cond = conditions[0] if condition is None else str(condition)
    if cond not in conditions:
        raise UsageError(f"condition of modelling.source_view must be one of {conditions}; "
                         f"got {condition!r}")
    Xw, yw = to_wide(df, cond, validate=False)
    mc = prof.get("queries") == "multiple-choice"
    predictions = None
    if dataset == "mmlu_pro":
        from ensel.datasets import mmlu_pro

        view = mmlu_pro.binary_view(**{k: v for k, v in df.attrs.get("options", {}).items()
                                       if k in ("subset", "models", "seed", "null_pred")})
        question = view.queries.set_index("item").loc[Xw.index, "question_id"].to_numpy()
        predictions = view.predictions
    elif mc:
        question = np.array([str(i).rsplit(":", 1)[0] for i in Xw.index])
        predictions = _letters_chosen(dataset, df)
    else:
        question = np.asarray(Xw.index.astype(str))
    others = [c for c in conditions if c != cond]
    description = (
        f"**{prof['label']}** ({prof['licence']}): {prof['models']}; {prof['conversion']}. "
        f"Items: {prof['items']}."
        + (f" This run uses the condition `{cond}` (the source also has "
           + ", ".join(f"`{c}`" for c in others) + "; the experiments page uses all)."
           if others else ""))
    return SourceView(Xw=Xw, yw=yw, question=question, predictions=predictions,
                      multiple_choice=mc, condition=cond, conditions=conditions,
                      description=description)


def label_intro(multiple_choice: bool) -> str:
    """Why the errors may depend on the label, for a multiple-choice or a natively binary
    source (Markdown, no math)."""
    if multiple_choice:
        return (
            "The binary conversion breaks it by design. On the **positive** query (\"is the "
            "answer *gold*?\") a model errs whenever its multiple-choice pick is wrong. On the "
            "**negative** query (\"is the answer *d*?\", d one random distractor) it errs only "
            "if it picked **that particular** distractor. Most wrong picks land on another "
            "distractor, and the model then correctly answers False, so the error given "
            "Y = −1 should be far below the error given Y = +1. If wrong picks were uniform "
            "over the distractors, it would be the abstention rate plus the wrong-pick rate "
            "over (number of options − 1), averaged over questions (column `uniform "
            "distractor`). An abstention is an error on both queries. Moreover, a model that "
            "is right on the positive query picked the gold option, so it is also right on "
            "the negative one: an error on the negative query implies an error on the "
            "positive query of the same question (column `neg. without pos.` counts "
            "violations).")
    return (
        "These queries are natively binary (which of two outputs is better), so nothing in "
        "the conversion ties the error to the label; a judge that prefers the first (or the "
        "longer, or the more fluent) output errs more often on one label than on the other. "
        "The columns `uniform distractor` and `neg. without pos.` concern multiple-choice "
        "conversions and are empty here.")
