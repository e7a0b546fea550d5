"""Figures of the experiments section. Every function takes data and returns the Figure.

* :func:`error_vs_k` -- test error vs ensemble size, mean ± std shaded, one line per selector
  (the paper's Figures 4-5 and per-condition panels);
* :func:`error_vs_k_panels` -- one axes per condition (the appendix 6-panel figures) or per
  aggregator;
* :func:`copula_validation` -- pairwise joint errors (model vs empirical, ``y = x``) and the
  distribution of the number of simultaneous errors (paper Figure 4);
* :func:`correlation_heatmap`, :func:`paired_differences_plot`.

Every figure a page shows also offers the data it plots: :func:`figure_data` reads them back
from the drawn artists (lines, points, bands, error bars, bars, heatmap cells), and
:func:`install_figure_data` (called in every page's kernel by the runner) attaches them, as
CSV under the MIME type :data:`FIGURE_DATA_MIME`, to every figure the page displays. The
runner writes each one next to the page and puts a "Reproduce this" box under the figure.
It also makes the PNG of a figure from one drawing of the figure's own canvas, cropped to
the drawing (``ensel._html.cropped_png``), where the inline backend's ``bbox_inches="tight"``
draws it three times (a layout pass, the tight box, the picture on a canvas of the new
size): the same picture, within a pixel of the same size, for a third less CPU.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ensel._errors import UsageError
from ensel.book.tables import _SpecField, column_label

__all__ = [
    "FIGURE_DATA_MIME",
    "FIGURE_DATA_MAX_ROWS",
    "figure_data",
    "install_figure_data",
    "SELECTOR_STYLE",
    "error_vs_k",
    "error_vs_k_panels",
    "copula_validation",
    "correlation_heatmap",
    "families_of",
    "LINE_OFFSET",
    "paired_differences_plot",
    "claims_forest",
    "pooled_forest",
    "budget_differences",
    "budget_differences_caption",
    "as_image",
    "small_multiples",
]

#: MIME type of the plotted data (CSV) attached to every displayed figure.
FIGURE_DATA_MIME = "application/vnd.ensel.figure-data+csv"
#: The ``gid`` of the stamp :func:`ensel.book.protocol.stamp_synthetic` writes into a figure;
#: :func:`figure_data` reports it as one row of kind ``stamp``.
STAMP_GID = "ensel-stamp"

_DATA_COLUMNS = ["panel", "series", "kind", "x", "y", "x_end", "y_end", "row", "column",
                 "value"]


def _panel_name(ax: Any, index: int) -> str:
    title = ax.get_title() or ax.get_title(loc="left") or ax.get_ylabel()
    return f"{index + 1}: {title}" if title else str(index + 1)


def _tick_labels(labels: Sequence[Any], n: int) -> list[str]:
    names = [t.get_text() for t in labels]
    return names if len(names) == n and all(names) else [str(i) for i in range(n)]


def figure_data(fig: Figure) -> pd.DataFrame:
    """The data a matplotlib figure plots, read back from its artists, one row per point.

    Columns: ``panel`` (axes number and title), ``series`` (the artist's legend label, or its
    kind and number), ``kind`` (``line``, ``points``, ``area`` (vertices of a band),
    ``segment`` (error bars: from ``x, y`` to ``x_end, y_end``), ``bar`` (centre ``x`` and
    height ``y``), ``cell`` (heatmaps: ``row``, ``column``, ``value``), ``stamp`` (what the
    figure shows, e.g. ``synthetic (stand-in)``, in ``series``; panel ``figure``)) and the
    coordinates; unused columns are empty. Colour bars are left out.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([1, 2], [0.3, 0.2], label="MAP")
    >>> figure_data(fig)[["series", "kind", "x", "y"]].values.tolist()
    [['MAP', 'line', 1.0, 0.3], ['MAP', 'line', 2.0, 0.2]]
    >>> plt.close(fig)
    """
    from matplotlib.collections import LineCollection, PolyCollection, QuadMesh
    from matplotlib.image import AxesImage
    from matplotlib.patches import Rectangle

    rows: list[dict[str, Any]] = []
    axes = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    for i, ax in enumerate(axes):
        panel = _panel_name(ax, i)

        def add(series: str, kind: str, panel: str = panel, **cols: Any) -> None:
            rows.append({"panel": panel, "series": series, "kind": kind, **cols})

        def name(artist: Any, kind: str, n: int) -> str:
            label = str(artist.get_label() or "")
            return label if label and not label.startswith("_") else f"{kind} {n}"

        for n, line in enumerate(ax.lines):
            x, y = (np.asarray(v, dtype=float).ravel() for v in line.get_data())
            if len(x) != len(y):
                continue
            s = name(line, "line", n)
            for xi, yi in zip(x, y, strict=True):
                add(s, "line", x=xi, y=yi)
        for n, coll in enumerate(ax.collections):
            s = name(coll, type(coll).__name__.lower(), n)
            if isinstance(coll, QuadMesh):
                values = np.asarray(coll.get_array(), dtype=float)
                if values.ndim == 1:
                    side = int(round(np.sqrt(values.size)))
                    values = values.reshape(side, -1) if side * side == values.size else \
                        values.reshape(1, -1)
                r_names = _tick_labels(ax.get_yticklabels(), values.shape[0])
                c_names = _tick_labels(ax.get_xticklabels(), values.shape[1])
                for r in range(values.shape[0]):
                    for c in range(values.shape[1]):
                        add(s, "cell", row=r_names[r], column=c_names[c], value=values[r, c])
            elif isinstance(coll, LineCollection):
                for seg in coll.get_segments():
                    if len(seg) >= 2:
                        add(s, "segment", x=seg[0][0], y=seg[0][1], x_end=seg[-1][0],
                            y_end=seg[-1][1])
            elif isinstance(coll, PolyCollection):
                for path in coll.get_paths():
                    for xi, yi in path.vertices:
                        add(s, "area", x=xi, y=yi)
            else:  # scatter points (PathCollection), with their colour values if any
                offsets = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
                arr = coll.get_array()
                values = (np.asarray(arr, dtype=float).ravel() if arr is not None
                          else np.full(len(offsets), np.nan))
                if len(values) != len(offsets):
                    values = np.full(len(offsets), np.nan)
                for (xi, yi), v in zip(offsets, values, strict=True):
                    add(s, "points", x=xi, y=yi, value=v)
        for n, container in enumerate(ax.containers):
            from matplotlib.container import BarContainer

            if isinstance(container, BarContainer):
                s = name(container, "bars", n)
                for patch in container.patches:
                    add(s, "bar", x=patch.get_x() + patch.get_width() / 2,
                        y=patch.get_height())
        in_bars = {id(p) for c in ax.containers for p in getattr(c, "patches", [])}
        loose = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_fill()
                 and id(p) not in in_bars]  # outlines (family blocks) are not data
        for patch in loose:
            add(name(patch, "rectangle", 0), "bar", x=patch.get_x() + patch.get_width() / 2,
                y=patch.get_height())
        for n, image in enumerate(ax.images):
            if isinstance(image, AxesImage):
                values = np.asarray(image.get_array(), dtype=float)
                if values.ndim == 2:
                    s = name(image, "image", n)
                    for r in range(values.shape[0]):
                        for c in range(values.shape[1]):
                            add(s, "cell", row=str(r), column=str(c), value=values[r, c])
    for text in fig.texts:  # what the figure shows, said inside the image (not data)
        if text.get_gid() == STAMP_GID:
            rows.append({"panel": "figure", "series": text.get_text(), "kind": "stamp"})
    return pd.DataFrame(rows, columns=_DATA_COLUMNS)


#: Largest figure (in plotted points or cells) that gets its data attached as CSV: beyond it
#: (the correlation heatmap of ``ensel evaluate`` on 1,000 models has a million cells) the
#: CSV would cost seconds per figure and megabytes per page, so the figure goes without.
FIGURE_DATA_MAX_ROWS = 200_000


def _plotted_size(fig: Figure) -> int:
    """About how many rows :func:`figure_data` would return, counted without building them."""
    n = 0
    for ax in fig.axes:
        n += sum(len(np.ravel(line.get_xdata())) for line in ax.lines)
        for coll in ax.collections:
            arr = coll.get_array()
            n += max(len(coll.get_offsets()), 0 if arr is None else int(np.size(arr)))
        n += sum(int(np.size(im.get_array())) for im in ax.images)
        n += len(ax.patches)
    return n


def install_figure_data(shell: Any = None) -> bool:
    """Attach :func:`figure_data` as CSV (:data:`FIGURE_DATA_MIME`) to every matplotlib
    figure the IPython ``shell`` (default: the running one) displays, and make its PNG from
    one drawing (``ensel._html.cropped_png``). Returns False outside IPython. The runner
    calls it when each page's kernel starts."""
    from IPython.core.formatters import BaseFormatter
    from traitlets import ObjectName, Unicode

    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:
        return False

    class FigureDataFormatter(BaseFormatter):  # type: ignore[misc]
        # matched in __call__, not registered with for_type: enabling the inline backend
        # removes every formatter's entry for Figure
        format_type = Unicode(FIGURE_DATA_MIME)
        print_method = ObjectName("_repr_figure_data_csv_")
        _return_type = str

        def __call__(self, obj: Any) -> str | None:
            if not self.enabled or not isinstance(obj, Figure):
                return None
            if _plotted_size(obj) > FIGURE_DATA_MAX_ROWS:
                return None  # e.g. the heatmap of 1,000 models: no CSV rather than 1 M rows
            return figure_data(obj).to_csv(index=False)

    display = shell.display_formatter
    formatter = FigureDataFormatter(parent=display)
    display.formatters[FIGURE_DATA_MIME] = formatter
    if FIGURE_DATA_MIME not in display.active_types:
        display.active_types = [*display.active_types, FIGURE_DATA_MIME]
    _install_cropped_png(display)
    return True


def _tight_png_pad(printer: Any) -> float | None:
    """The ``pad_inches`` of ``printer`` when it is the inline backend's PNG printer of a
    figure with ``bbox_inches="tight"`` (IPython's ``print_figure`` with no other option),
    else None."""
    import functools

    from IPython.core.pylabtools import print_figure

    if not (isinstance(printer, functools.partial) and printer.func is print_figure
            and not printer.args):
        return None
    kw = dict(printer.keywords)
    if (kw.pop("fmt", None) != "png" or kw.pop("base64", False) is not True
            or kw.pop("bbox_inches", "tight") != "tight"):
        return None
    pad = kw.pop("pad_inches", None)
    if kw:
        return None
    return float(plt.rcParams["savefig.pad_inches"] if pad in (None, "layout") else pad)


def _install_cropped_png(display: Any) -> None:
    """Make the PNG of every figure the inline backend shows with ``ensel._html.cropped_png``
    (matched in ``__call__``, like the figure data: the backend re-registers its printer
    whenever it is enabled; its own path stays for whatever it declines)."""
    from binascii import b2a_base64

    from IPython.core.formatters import PNGFormatter, catch_format_error

    from ensel._html import cropped_png

    current = display.formatters.get("image/png")
    if current is None or type(current).__name__ == "CroppedPNGFormatter":
        return

    class CroppedPNGFormatter(type(current)):  # type: ignore[misc]
        @catch_format_error
        def __call__(self, obj: Any) -> Any:
            if self.enabled and isinstance(obj, Figure) and (obj.axes or obj.lines):
                pad = _tight_png_pad(self.type_printers.get(Figure))
                png = None if pad is None else cropped_png(obj, pad)
                if png is not None:
                    return b2a_base64(png, newline=False).decode("ascii")
            return super().__call__(obj)

    if not isinstance(current, PNGFormatter):
        return
    formatter = CroppedPNGFormatter(parent=display)
    for name in ("type_printers", "deferred_printers", "singleton_printers"):
        setattr(formatter, name, getattr(current, name))
    display.formatters["image/png"] = formatter


#: Colour and marker per selector, shared by every figure (the registry's specs,
#: :data:`ensel.select.SPECS`, and the two exhaustive subsets of ``evaluate``).
SELECTOR_STYLE: Mapping[str, Mapping[str, Any]] = _SpecField("style", {
    "exhaustive": {"color": "#555555", "marker": "", "linestyle": "--"},
    "exhaustive_mi": {"color": "#9467bd", "marker": "x", "linestyle": ":"},
    "exhaustive_nested": {"color": "#8c564b", "marker": "+", "linestyle": "-."},
})


#: Horizontal offset between the lines of one axes, as a fraction of a unit of ``k``: lines
#: that coincide (Top-k and Term 1 pick the same models whenever relevance is monotone in
#: accuracy) stay visible side by side instead of one hiding the other.
LINE_OFFSET = 0.07


def _curves(summary: pd.DataFrame, lines: Sequence[tuple[str, str]], ax: Any,
            shade: bool = True) -> None:
    for n, (sel, agg) in enumerate(lines):
        c = summary[(summary["selector"] == sel) & (summary["aggregator"] == agg)].sort_values("k")
        if c.empty:
            raise UsageError(f"summary has no rows for selector {sel!r} with aggregator {agg!r}")
        st = dict(SELECTOR_STYLE.get(sel, {}))
        ls = st.pop("linestyle", "-")
        dx = (n - (len(lines) - 1) / 2) * LINE_OFFSET
        ax.plot(c["k"] + dx, c["mean"], label=column_label(sel, agg), linestyle=ls,
                markersize=5, markerfacecolor="none", markeredgewidth=1.3, linewidth=1.4,
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
        fig, ax = plt.subplots(figsize=(7.6, 3.8))
    else:
        fig = ax.figure
    _curves(summary, _lines(selectors, aggregator), ax, shade)
    if title:
        ax.set_title(title)
    # outside the data, right of the axes: the legend never covers a curve
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def error_vs_k_panels(summary: pd.DataFrame, *, panel: str = "condition",
                      selectors: Sequence[str] | Mapping[str, str] = ("topk", "relevance", "mrmr",
                                                                      "greedy_mi"),
                      aggregator: str = "map", ncols: int = 2, suptitle: str | None = None,
                      shade: bool = True) -> Figure:
    """One axes per value of ``panel`` (``"condition"`` for the appendix figures, or
    ``"aggregator"`` to compare MAP / MV / W-MV side by side).

    With ``panel="condition"``, ``summary`` must be grouped by condition
    (``summarise(results, by=("condition",))``).
    """
    if panel not in summary.columns:
        raise UsageError(f"summary has no column {panel!r}; for per-condition panels use "
                         "summarise(results, by=('condition',))")
    values = list(pd.unique(summary[panel]))
    if panel == "aggregator" and isinstance(selectors, Mapping):
        raise UsageError("with panel='aggregator' pass selectors as a sequence")
    n = len(values)
    ncols = max(1, min(ncols, n))
    nrows = int(np.ceil(n / ncols))
    # panels at most ~4.4 inches wide, so that at the page's width (about 800 px) their
    # 10-11 pt labels stay readable on a 1280 px screen
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.0 * nrows), sharey=True,
                             squeeze=False)
    for ax, v in zip(axes.flat, values, strict=False):
        sub = summary[summary[panel] == v]
        agg = v if panel == "aggregator" else aggregator
        _curves(sub, _lines(selectors, agg), ax, shade)
        ax.set_title(str(v) if panel != "aggregator" else str(v).upper(), fontsize=12)
        ax.tick_params(labelsize=10)
        ax.xaxis.label.set_size(11)
        ax.yaxis.label.set_size(11)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    legend_rows = int(np.ceil(len(labels) / 3))
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 3), fontsize=10,
               bbox_to_anchor=(0.5, 0.0), frameon=False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=13)
    fig.tight_layout(rect=(0, 0.035 * legend_rows * 3 / nrows, 1, 1))
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


def families_of(dataset: str, models: Sequence[str]) -> list[str] | None:
    """The family of each model of a named dataset (a stand-in's pool table, or the real
    loader's ``family`` function); None for a dataset without families (a user's table)."""

    try:
        from ensel.datasets import standins

        s = standins.spec(dataset)
        fam = dict(zip(s.models, s.families, strict=True))
        return [fam[m] for m in models] if all(m in fam for m in models) else None
    except (KeyError, ValueError, TypeError):
        pass
    from ensel.datasets import DATASETS

    spec = DATASETS.get(str(dataset))
    if spec is None or spec.family is None:
        return None
    return [str(spec.family_of(m)) for m in models]


def correlation_heatmap(sigma: np.ndarray, names: Sequence[str], *, title: str | None = None,
                        annotate: bool = True,
                        families: Sequence[str] | None = None) -> Figure:
    """Heatmap of a (condition-averaged) copula correlation matrix.

    With ``families`` (one per name) the models are ordered by family (families in order of
    first appearance, models in their given order within a family) and the family blocks are
    outlined, so the within-family correlations show as squares on the diagonal.

    Up to 16 models the cells carry their values; the figure grows with the pool up to
    about 11 x 10 inches, and beyond 40 models only some names label the axes (a
    1,000-model pool drew a 550-inch figure for 100 s)."""
    import seaborn as sns
    from matplotlib.patches import Rectangle

    S = np.asarray(sigma, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] != len(names):
        raise UsageError(f"sigma must be square with one row per name; got shape {S.shape} "
                         f"and {len(names)} names")
    blocks: list[int] = []
    if families is not None:
        if len(families) != len(names):
            raise UsageError(f"families must have one entry per name; got {len(families)} "
                             f"for {len(names)} names")
        first = {f: i for i, f in reversed(list(enumerate(families)))}
        order = sorted(range(len(names)), key=lambda j: (first[families[j]], j))
        S = S[np.ix_(order, order)]
        names = [f"{names[j]} [{families[j]}]" for j in order]
        fams = [families[j] for j in order]
        blocks = [sum(1 for _ in g) for _, g in itertools.groupby(fams)]
    m = len(names)
    fig, ax = plt.subplots(figsize=(min(0.55 * m + 2.5, 11.0), min(0.5 * m + 1.8, 10.0)))
    labels: Any = True if m <= 40 else "auto"
    sns.heatmap(pd.DataFrame(S, index=names, columns=names), ax=ax, vmin=0, vmax=1,
                cmap="viridis", annot=annotate and m <= 16, fmt=".2f",
                annot_kws={"fontsize": 7}, square=True, cbar_kws={"shrink": 0.7},
                xticklabels=labels, yticklabels=labels)
    start = 0
    for size in blocks:
        if size > 1:
            ax.add_patch(Rectangle((start, start), size, size, fill=False, edgecolor="white",
                                   linewidth=1.6))
        start += size
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


def _panels(groups: list[tuple[str, pd.DataFrame]], row_height: float, extra: float
            ) -> tuple[Figure, list[Any]]:
    """One axes per group, stacked, each as tall as its rows and with its own x scale."""
    heights = [max(len(g), 1) + 1.2 for _, g in groups]
    fig, axes = plt.subplots(len(groups), 1, squeeze=False,
                             figsize=(7.2, row_height * sum(heights) + extra),
                             gridspec_kw={"height_ratios": heights})
    return fig, list(axes.flat)


def small_multiples(names: Sequence[str], draw: Any, *, max_cols: int,
                    panel: tuple[float, float], ylabel: str) -> Figure:
    """One panel per name, at most ``max_cols`` to a row, drawn by ``draw(ax, name)``; unused
    panels are hidden, and the first panel carries the y label and the legend."""
    names = list(names)
    cols = min(max_cols, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(panel[0] * cols, panel[1] * rows),
                             squeeze=False)
    for ax, name in zip(axes.ravel(), names, strict=False):
        draw(ax, name)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    axes[0, 0].set_ylabel(ylabel)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def claims_forest(effects: pd.DataFrame, *, dataset_label: Any = str,
                  panel: str = "effect_type") -> Figure:
    """Forest plot of the claims' headline effects (from :func:`ensel.book.claims.
    effects_table`): one row per (dataset, claim), ours as a filled dot with its 95 %
    interval coloured by verdict (for a claim about every budget: the least clear budget,
    which decides the verdict), the paper's own (from its mean ± std) as a hollow
    square; negative supports the claim.

    When ``effects`` has the column ``panel`` (default ``effect_type``: e.g. "difference of
    test errors", "difference of accuracies"), each type gets its own panel and x scale, so
    effects of different kinds are never read on one axis."""
    e = effects.reset_index(drop=True)
    groups = ([(str(k), g.reset_index(drop=True)) for k, g in e.groupby(panel, sort=False)]
              if panel in e.columns else [("", e)])
    fig, axes = _panels(groups, 0.24, 1.0)
    for (kind, g), ax in zip(groups, axes, strict=True):
        n = len(g)
        y = np.arange(n)[::-1].astype(float)
        for yi, r in zip(y, g.itertuples(), strict=True):
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
        ax.set_yticklabels([f"{dataset_label(r.dataset)} · {r.id}" for r in g.itertuples()],
                           fontsize=7)
        ax.set_ylim(-0.8, n - 0.2)
        ax.set_xlabel(f"{kind or 'effect (difference of errors or accuracies)'}; negative "
                      "supports the claim", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    handles = [plt.Line2D([], [], color=c, marker="o", ls="", label=f"ours: {v}")
               for v, c in _VERDICT_COLOR.items()]
    handles.append(plt.Line2D([], [], color="#777777", marker="s", mfc="white", ls="",
                              label="paper (from its mean ± std)"))
    axes[0].legend(handles=handles, fontsize=7, loc="lower center", ncol=2,
                   bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def pooled_forest(pooled: pd.DataFrame, *, dataset_label: Any = str) -> Figure:
    """Forest plots across the real sources (from :func:`ensel.meta.
    pool_claims`), one panel per claim with its own x scale (a source with large effects
    does not squash the others): each source's effect with its 95 % interval (dot, coloured
    by verdict; hollow when it was not pooled) and the random-effects pooled estimate
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
    groups = [(str(k), g.reset_index(drop=True)) for k, g in e.groupby("id", sort=False)]
    fig, axes = _panels(groups, 0.3, 1.0)
    for (claim, g), ax in zip(groups, axes, strict=True):
        y = np.arange(len(g))[::-1].astype(float)
        labels = []
        for yi, r in zip(y, g.itertuples(), strict=True):
            c = _VERDICT_COLOR.get(str(r.verdict), "#000000")
            is_pooled = r.dataset == "pooled"
            ax.errorbar(r.effect, yi, xerr=[[r.effect - r.effect_low],
                                            [r.effect_high - r.effect]],
                        fmt="D" if is_pooled else "o", color=c, ms=7 if is_pooled else 4,
                        mfc=c if (is_pooled or r.pooled) else "white", capsize=2,
                        lw=2 if is_pooled else 1.2)
            labels.append("pooled" if is_pooled else str(dataset_label(r.dataset)))
        ax.axvline(0.0, color="k", lw=1)
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=7)
        ax.set_ylim(-0.8, len(g) - 0.2)
        ax.set_title(claim, fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    axes[-1].set_xlabel("effect (difference of test errors; negative supports the claim)")
    handles = [plt.Line2D([], [], color=c, marker="o", ls="", label=v)
               for v, c in _VERDICT_COLOR.items()]
    handles.append(plt.Line2D([], [], color="#444444", marker="D", ls="",
                              label="pooled (random effects)"))
    axes[0].legend(handles=handles, fontsize=7, loc="lower center", ncol=4,
                   bbox_to_anchor=(0.5, 1.15), frameon=False)
    fig.tight_layout()
    return fig


#: Colours of a budget's Holm verdict (:func:`ensel.book.protocol.budget_verdicts`); a
#: budget within the noise is drawn hollow in grey.
_BUDGET_COLOR = {"Greedy MI better": _VERDICT_COLOR["holds"],
                 "Top-k better": _VERDICT_COLOR["contradicted"],
                 "within noise": "#6e7781"}
_POOLED_AS = {"holds": "Greedy MI better", "contradicted": "Top-k better"}


def budget_differences(per_budget: Mapping[str, pd.DataFrame],
                       pooled: pd.DataFrame | None = None, *,
                       dataset_label: Any = str) -> Figure:
    """Greedy MI − Top-k (MAP) at every budget ``k``, one panel per source and one for the
    sources pooled: the mean paired difference with its 95 % interval, filled and coloured
    when the budget's Holm-adjusted verdict (:func:`ensel.book.protocol.budget_verdicts`)
    says one selector is better, hollow and grey when it is within the noise; below zero
    Greedy MI has the smaller error.

    ``pooled`` is :func:`ensel.book.protocol.pool_paired`'s table (index ``k``; columns
    ``pooled``, ``pooled_low``, ``pooled_high``, ``verdict``); its points are marked by the
    pooled interval's own verdict (no Holm adjustment: the pooled budgets share the
    sources). Each panel has its own y scale: a source with wide intervals (few items) does
    not flatten the others."""
    panels: list[tuple[str, pd.DataFrame]] = []
    for d, t in per_budget.items():
        panels.append((str(dataset_label(d)), t.assign(
            low=t["ci_low"], high=t["ci_high"], mark=t["verdict"])))
    if pooled is not None and "pooled" in pooled.columns:
        p = pooled[pooled["pooled"].notna()]
        if len(p):
            panels.append(("pooled", pd.DataFrame({
                "k": p.index.to_numpy(), "mean_diff": p["pooled"].to_numpy(float),
                "low": p["pooled_low"].to_numpy(float), "high": p["pooled_high"].to_numpy(float),
                "mark": [_POOLED_AS.get(str(v), "within noise") for v in p["verdict"]]})))
    if not panels:
        fig, ax = plt.subplots(figsize=(7.2, 1.2))
        ax.text(0.5, 0.5, "No dataset saved its paired differences in this build.",
                ha="center", va="center", fontsize=9)
        ax.set_axis_off()
        return fig
    n = len(panels)
    fig, axes = plt.subplots(1, n, squeeze=False,
                             figsize=(max(7.2, 2.3 * n), 3.4))
    for (title, t), ax in zip(panels, axes.flat, strict=True):
        t = t.sort_values("k")
        for mark, color in _BUDGET_COLOR.items():
            g = t[t["mark"] == mark]
            if g.empty:
                continue
            mean = g["mean_diff"].to_numpy(float)
            err = np.vstack([mean - g["low"].to_numpy(float), g["high"].to_numpy(float) - mean])
            ax.errorbar(g["k"].to_numpy(), mean, yerr=err, fmt="D" if title == "pooled" else "o",
                        color=color, mfc="white" if mark == "within noise" else color,
                        ms=5, capsize=2, lw=1.2, label=mark)
        ax.axhline(0.0, color="k", lw=1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("budget $k$", fontsize=9)
        ks = t["k"].to_numpy()
        step = max(1, int(np.ceil(len(ks) / 8)))
        ax.set_xticks(ks[::step])
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    axes.flat[0].set_ylabel("Greedy MI − Top-k test error", fontsize=9)
    handles = [plt.Line2D([], [], color=c, marker="o", mfc="white" if v == "within noise"
                          else c, ls="", label=v) for v, c in _BUDGET_COLOR.items()]
    fig.legend(handles=handles, fontsize=8, loc="upper center", ncol=3, frameon=False,
               bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0.03, 1, 0.9))  # room for a "synthetic" stamp below
    return fig


def budget_differences_caption(per_budget: Mapping[str, pd.DataFrame],
                               pooled: pd.DataFrame | None = None, *,
                               synthetic: bool = False, dataset_label: Any = str) -> str:
    """The caption of :func:`budget_differences` for the sources it shows: what each point
    is, how it is marked, and whether the data are real answers or stand-ins (plain text,
    no math: the front page pastes it from another page as HTML).

    Examples
    --------
    >>> t = pd.DataFrame({"k": [2], "mean_diff": [-0.01], "ci_low": [-0.02],
    ...                   "ci_high": [0.0], "verdict": ["within noise"]})
    >>> budget_differences_caption({"a": t}, synthetic=True)[:38]
    'Greedy MI − Top-k (MAP) at every budge'
    """
    names = [str(dataset_label(d)) for d in per_budget]
    if not names:
        return "No dataset saved its paired differences in this build."
    kind = ("the paper-calibrated stand-ins (synthetic answers; no real source is "
            "available in this build)" if synthetic else "the real LLM answers")
    text = (f"Greedy MI − Top-k (MAP) at every budget k on {kind}: "
            + ", ".join(names) + ". Each point is the mean paired difference of test "
            "errors over the evaluations with its 95 % interval; below zero Greedy MI has "
            "the smaller error (each panel has its own scale). Filled: one selector is "
            "better beyond the noise after Holm's adjustment over the budgets; hollow: "
            "within the noise.")
    if pooled is not None and "pooled" in pooled.columns and pooled["pooled"].notna().any():
        text += (f" Pooled: random-effects estimate over the {len(names)} sources "
                 "(Hartung-Knapp-Sidik-Jonkman interval with its scale factor floored at "
                 "1, not Holm-adjusted).")
    return text


def as_image(fig: Figure, alt: str, dpi: int = 100) -> Any:
    """The figure as one HTML ``<img>`` holding its PNG (a ``data:`` URI), with nothing else
    attached: what a page glues when another page shows the figure. MyST-NB pastes HTML
    across pages (``{glue}`` with ``:doc:``) but not images, and the figure's data and
    "Reproduce this" box stay with the page that drew it.

    Examples
    --------
    >>> fig, ax = plt.subplots(figsize=(2, 1))
    >>> as_image(fig, "an empty plot").data[:44]
    '<img alt="an empty plot" src="data:image/png'
    """
    from IPython.display import HTML

    from ensel._html import img_html, png_bytes

    return HTML(img_html(png_bytes(fig, dpi), alt))
