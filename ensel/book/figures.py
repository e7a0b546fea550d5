"""Figures of the experiments section. Every function takes data and returns the Figure.

* :func:`error_vs_k` -- test error vs ensemble size, mean ± std shaded, one line per selector
  (the paper's Figures 4-5 and per-condition panels);
* :func:`error_vs_k_panels` -- one axes per condition (the appendix 6-panel figures) or per
  aggregator;
* :func:`copula_validation` -- pairwise joint errors (model vs empirical, ``y = x``) and the
  distribution of the number of simultaneous errors (paper Figure 3);
* :func:`correlation_heatmap`, :func:`paired_differences_plot`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ensel.book.tables import _SpecField, column_label

__all__ = [
    "SELECTOR_STYLE",
    "error_vs_k",
    "error_vs_k_panels",
    "copula_validation",
    "correlation_heatmap",
    "paired_differences_plot",
    "claims_forest",
    "pooled_forest",
]

#: Colour and marker per selector, shared by every figure (the registry's specs,
#: :data:`ensel.select.SPECS`, and the two exhaustive subsets of ``evaluate``).
SELECTOR_STYLE: Mapping[str, Mapping[str, Any]] = _SpecField("style", {
    "exhaustive": {"color": "#555555", "marker": "", "linestyle": "--"},
    "exhaustive_mi": {"color": "#9467bd", "marker": "x", "linestyle": ":"},
})


def _curves(summary: pd.DataFrame, lines: Sequence[tuple[str, str]], ax: Any,
            shade: bool = True) -> None:
    for sel, agg in lines:
        c = summary[(summary["selector"] == sel) & (summary["aggregator"] == agg)].sort_values("k")
        if c.empty:
            raise ValueError(f"summary has no rows for selector {sel!r} with aggregator {agg!r}")
        st = dict(SELECTOR_STYLE.get(sel, {}))
        ls = st.pop("linestyle", "-")
        ax.plot(c["k"], c["mean"], label=column_label(sel, agg), linestyle=ls, markersize=4,
                **st)
        if shade:
            ax.fill_between(c["k"], c["mean"] - c["std"], c["mean"] + c["std"],
                            color=st.get("color"), alpha=0.12, linewidth=0)
    ax.set_xlabel("ensemble size $k$")
    ax.set_ylabel("test error")
    ks = sorted(set(summary["k"]))
    if ks:
        ax.set_xticks(ks)
    ax.grid(alpha=0.3)


def _lines(selectors: Sequence[str] | Mapping[str, str], aggregator: str
           ) -> list[tuple[str, str]]:
    if isinstance(selectors, Mapping):
        return [(s, a) for s, a in selectors.items()]
    return [(s, aggregator) for s in selectors]


def error_vs_k(summary: pd.DataFrame, *,
               selectors: Sequence[str] | Mapping[str, str] = ("topk", "relevance", "mrmr",
                                                               "greedy_mi"),
               aggregator: str = "map", title: str | None = None, shade: bool = True,
               ax: Any = None) -> Figure:
    """Test error vs ``k``: mean line and ± std band per selector.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`ensel.experiment.summarise` output (``selector, aggregator, k, mean, std``).
    selectors : sequence of str or mapping selector -> aggregator
        Lines to draw; a mapping mixes aggregators (e.g. baselines with MV, Greedy MI with MAP).
    aggregator : str, default="map"
        Aggregator of every line when ``selectors`` is a sequence.
    title : str, optional
    shade : bool, default=True
    ax : matplotlib Axes, optional
        Draw into this axes (its figure is returned).
    """
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 3.8))
    else:
        fig = ax.figure
    _curves(summary, _lines(selectors, aggregator), ax, shade)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def error_vs_k_panels(summary: pd.DataFrame, *, panel: str = "condition",
                      selectors: Sequence[str] | Mapping[str, str] = ("topk", "relevance", "mrmr",
                                                                      "greedy_mi"),
                      aggregator: str = "map", ncols: int = 3, suptitle: str | None = None,
                      shade: bool = True) -> Figure:
    """One axes per value of ``panel`` (``"condition"`` for the appendix figures, or
    ``"aggregator"`` to compare MAP / MV / W-MV side by side).

    With ``panel="condition"``, ``summary`` must be grouped by condition
    (``summarise(results, by=("condition",))``).
    """
    if panel not in summary.columns:
        raise ValueError(f"summary has no column {panel!r}; for per-condition panels use "
                         "summarise(results, by=('condition',))")
    values = list(pd.unique(summary[panel]))
    if panel == "aggregator" and isinstance(selectors, Mapping):
        raise ValueError("with panel='aggregator' pass selectors as a sequence")
    n = len(values)
    ncols = max(1, min(ncols, n))
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows), sharey=True,
                             squeeze=False)
    for ax, v in zip(axes.flat, values, strict=False):
        sub = summary[summary[panel] == v]
        agg = v if panel == "aggregator" else aggregator
        _curves(sub, _lines(selectors, agg), ax, shade)
        ax.set_title(str(v) if panel != "aggregator" else str(v).upper(), fontsize=10)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8,
               bbox_to_anchor=(0.5, 0.0))
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def copula_validation(pairs: pd.DataFrame, simultaneous: pd.DataFrame, *,
                      title: str | None = None, axes: Sequence[Any] | None = None) -> Figure:
    """The paper's two copula diagnostics side by side.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``empirical`` and ``model`` (or ``sampled``): joint error probability of every
        model pair (:attr:`ensel.copula.CopulaDiagnostics.pairs`).
    simultaneous : pandas.DataFrame
        Columns ``n_errors, empirical, copula``
        (:attr:`ensel.copula.CopulaDiagnostics.simultaneous`).
    """
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    else:
        fig = axes[0].figure
    ax0, ax1 = axes[0], axes[1]
    ycol = "model" if "model" in pairs.columns else "sampled"
    ax0.scatter(pairs["empirical"], pairs[ycol], s=14, alpha=0.8, color="#1f77b4")
    if "sampled" in pairs.columns and ycol == "model":
        ax0.scatter(pairs["empirical"], pairs["sampled"], s=8, alpha=0.5, color="#ff7f0e",
                    marker="x", label="copula sample")
    lo = float(min(pairs["empirical"].min(), pairs[ycol].min()))
    hi = float(max(pairs["empirical"].max(), pairs[ycol].max()))
    pad = 0.05 * (hi - lo + 1e-9)
    ax0.plot([lo - pad, hi + pad], [lo - pad, hi + pad], "k--", linewidth=1, label="y = x")
    ax0.set_xlabel(r"empirical $P(E_i \cap E_j)$")
    ax0.set_ylabel(r"copula $P(E_i \cap E_j)$")
    ax0.legend(fontsize=8)
    ax0.grid(alpha=0.3)
    x = simultaneous["n_errors"].to_numpy()
    ax1.bar(x - 0.2, simultaneous["empirical"], width=0.4, label="empirical", color="#1f77b4")
    ax1.bar(x + 0.2, simultaneous["copula"], width=0.4, label="copula", color="#ff7f0e")
    ax1.set_xlabel("number of models wrong on the same item")
    ax1.set_ylabel("fraction of items")
    ax1.set_xticks(x)
    ax1.legend(fontsize=8)
    ax1.grid(alpha=0.3, axis="y")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def correlation_heatmap(sigma: np.ndarray, names: Sequence[str], *, title: str | None = None,
                        annotate: bool = True) -> Figure:
    """Heatmap of a (condition-averaged) copula correlation matrix.

    Up to 16 models the cells carry their values; the figure grows with the pool up to
    about 11 x 10 inches, and beyond 40 models only some names label the axes (a
    1,000-model pool drew a 550-inch figure for 100 s)."""
    import seaborn as sns

    S = np.asarray(sigma, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] != len(names):
        raise ValueError(f"sigma must be square with one row per name; got shape {S.shape} "
                         f"and {len(names)} names")
    m = len(names)
    fig, ax = plt.subplots(figsize=(min(0.55 * m + 2.5, 11.0), min(0.5 * m + 1.8, 10.0)))
    labels: Any = True if m <= 40 else "auto"
    sns.heatmap(pd.DataFrame(S, index=names, columns=names), ax=ax, vmin=0, vmax=1,
                cmap="viridis", annot=annotate and m <= 16, fmt=".2f",
                annot_kws={"fontsize": 7}, square=True, cbar_kws={"shrink": 0.7},
                xticklabels=labels, yticklabels=labels)
    ax.tick_params(labelsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def paired_differences_plot(diffs: pd.DataFrame, *, label: str = "Greedy MI − Top-k (MAP)",
                            bootstrap: bool = False, ax: Any = None) -> Figure:
    """Mean paired difference per ``k`` with its confidence interval and a zero line
    (from :func:`ensel.experiment.paired_differences`)."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 3.2))
    else:
        fig = ax.figure
    lo, hi = ("boot_low", "boot_high") if bootstrap else ("ci_low", "ci_high")
    k = diffs["k"].to_numpy()
    mean = diffs["mean_diff"].to_numpy()
    err = np.vstack([mean - diffs[lo].to_numpy(), diffs[hi].to_numpy() - mean])
    ax.errorbar(k, mean, yerr=err, fmt="o", color=SELECTOR_STYLE["greedy_mi"]["color"],
                capsize=3, label=label)
    ax.axhline(0.0, color="k", linewidth=1)
    ax.set_xlabel("ensemble size $k$")
    ax.set_ylabel("paired error difference")
    ax.set_xticks(k)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig




_VERDICT_COLOR = {"holds": "#1a7f37", "within noise": "#9a6700", "contradicted": "#b42318"}


def claims_forest(effects: pd.DataFrame, *, dataset_label: Any = str) -> Figure:
    """Forest plot of the claims' headline effects (from :func:`ensel.book.claims.
    effects_table`): one row per (dataset, claim), ours as a filled dot with its 95 %
    interval coloured by verdict (for a claim about every budget: the least clear budget,
    which decides the verdict), the paper's own (from its mean ± std) as a hollow
    square; negative supports the claim."""
    e = effects.reset_index(drop=True)
    n = len(e)
    fig, ax = plt.subplots(figsize=(7.2, 0.24 * n + 1.4))
    y = np.arange(n)[::-1].astype(float)
    for yi, r in zip(y, e.itertuples(), strict=True):
        if np.isfinite(r.paper_effect):
            ax.errorbar(r.paper_effect, yi - 0.22, xerr=[[r.paper_effect - r.paper_low],
                                                        [r.paper_high - r.paper_effect]],
                        fmt="s", mfc="white", color="#777777", ms=4, capsize=2, lw=1)
        if np.isfinite(r.effect):
            c = _VERDICT_COLOR.get(str(r.verdict), "#000000")
            ax.errorbar(r.effect, yi + 0.1, xerr=[[r.effect - r.effect_low],
                                                 [r.effect_high - r.effect]],
                        fmt="o", color=c, ms=4, capsize=2, lw=1.2)
    ax.axvline(0.0, color="k", lw=1)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{dataset_label(r.dataset)} · {r.id}" for r in e.itertuples()],
                       fontsize=7)
    ax.set_ylim(-0.8, n - 0.2)
    ax.set_xlabel("effect (difference of errors or accuracies; negative supports the claim)")
    handles = [plt.Line2D([], [], color=c, marker="o", ls="", label=f"ours: {v}")
               for v, c in _VERDICT_COLOR.items()]
    handles.append(plt.Line2D([], [], color="#777777", marker="s", mfc="white", ls="",
                              label="paper (from its mean ± std)"))
    ax.legend(handles=handles, fontsize=7, loc="lower center", ncol=2,
              bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def pooled_forest(pooled: pd.DataFrame, *, dataset_label: Any = str) -> Figure:
    """One forest plot across the real sources (from :func:`ensel.book.protocol.
    pool_claims`): per claim, each source's effect with its 95 % interval (dot, coloured by
    verdict; hollow when it was not pooled) and the random-effects pooled estimate
    (diamond); negative supports the claim."""
    e = pooled.reset_index(drop=True)
    n = len(e)
    if n == 0:
        fig, ax = plt.subplots(figsize=(7.2, 1.2))
        ax.text(0.5, 0.5, "No real source has results in this build: nothing to pool.\n"
                "Fetch the data (python -m ensel.datasets fetch <name>) and rebuild.",
                ha="center", va="center", fontsize=9)
        ax.set_axis_off()
        return fig
    fig, ax = plt.subplots(figsize=(7.2, 0.3 * n + 1.5))
    y = np.arange(n)[::-1].astype(float)
    labels = []
    for yi, r in zip(y, e.itertuples(), strict=True):
        c = _VERDICT_COLOR.get(str(r.verdict), "#000000")
        is_pooled = r.dataset == "pooled"
        ax.errorbar(r.effect, yi, xerr=[[r.effect - r.effect_low], [r.effect_high - r.effect]],
                    fmt="D" if is_pooled else "o", color=c, ms=7 if is_pooled else 4,
                    mfc=c if (is_pooled or r.pooled) else "white", capsize=2,
                    lw=2 if is_pooled else 1.2)
        labels.append(f"{r.id} · pooled" if is_pooled else f"{r.id} · {dataset_label(r.dataset)}")
        if is_pooled and yi > 0:
            ax.axhline(yi - 0.5, color="#cccccc", lw=0.8)
    ax.axvline(0.0, color="k", lw=1)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_ylim(-0.8, n - 0.2)
    ax.set_xlabel("effect (difference of test errors; negative supports the claim)")
    handles = [plt.Line2D([], [], color=c, marker="o", ls="", label=v)
               for v, c in _VERDICT_COLOR.items()]
    handles.append(plt.Line2D([], [], color="#444444", marker="D", ls="",
                              label="pooled (random effects)"))
    ax.legend(handles=handles, fontsize=7, loc="lower center", ncol=4,
              bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
