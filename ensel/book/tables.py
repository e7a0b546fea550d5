"""Tables in the paper's format and comparisons with the paper (book layer).

* :func:`format_mean_std_table` / :func:`results_table` -- "0.171 ± 0.004" cells per ``k``
  with the best per row in bold, in the layouts of the paper's MAP, MV-vs-MAP and
  W-MV-vs-MAP tables; :func:`to_html` renders them in a notebook.
* :func:`pool_statistics` / :func:`model_pool_table` -- the model-pool tables (accuracy ±
  std over conditions, ``tau = Phi^-1(error)``, average fitted copula correlation).
* :func:`compare_results` / :func:`compare_pool` / :func:`compare_selections` -- paper value,
  our value, difference, from :func:`ensel.datasets.paper_tables.load_paper_table`.
* :data:`CLAIMS` and :func:`verdicts` -- the experiments section's claims, each with the place
  in the paper and a check that is run on the paper's own numbers and on ours. Nothing is
  typed in: every number shown comes from a table or a results file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtri

from ensel._errors import DataError, UsageError
from ensel.aggregate import SPECS as AGGREGATOR_SPECS
from ensel.select import SPECS as SELECTOR_SPECS

__all__ = [
    "AGGREGATOR_NAMES",
    "LABELS",
    "SELECTOR_NAMES",
    "column_label",
    "counted",
    "format_mean_std",
    "format_mean_std_table",
    "results_table",
    "table_layout",
    "to_html",
    "PoolStatistics",
    "pool_statistics",
    "model_pool_table",
    "format_model_pool_table",
    "format_selection_table",
    "paper_summary",
    "compare_results",
    "compare_pool",
    "compare_selections",
    "comparison_table",
    "format_pool_comparison",
    "format_selection_comparison",
    "format_paired_differences",
    "format_number",
    "format_numbers",
    "caption_html",
    "short_path",
    "dataset_banner",
    "dataset_label",
]

class _SpecField(Mapping[str, Any]):
    """A read-only, always current view ``selector name -> field of its spec``
    (:data:`ensel.select.SPECS`; specs where the field is ``None`` are left out), followed by
    fixed ``extra`` entries (the exhaustive subsets of ``evaluate``, which have no spec)."""

    def __init__(self, field: str, extra: Mapping[str, Any] | None = None) -> None:
        self._field, self._extra = field, dict(extra or {})

    def _items(self) -> dict[str, Any]:
        own = {name: getattr(spec, self._field) for name, spec in SELECTOR_SPECS.items()}
        return {**{k: v for k, v in own.items() if v is not None}, **self._extra}

    def __getitem__(self, name: str) -> Any:
        return self._items()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


#: Short display names of selectors (the paper's column headers), from the registry's specs
#: and the two exhaustive subsets of ``evaluate``.
LABELS: Mapping[str, str] = _SpecField("label", {"exhaustive": "Test-split minimum (bound)",
                                                "exhaustive_mi": "Exhaustive max-MI",
                                                "exhaustive_nested": "Best subset, nested"})
#: The paper's names of the selectors (its tables' legends).
SELECTOR_NAMES: Mapping[str, str] = _SpecField("paper_name")
#: The paper's names of the aggregators.
AGGREGATOR_NAMES: dict[str, str] = {
    name: spec.label for name, spec in AGGREGATOR_SPECS.items() if spec.in_paper}


def column_label(selector: str, aggregator: str) -> str:
    """``"Top-k (MV)"`` style header for a (selector, aggregator) pair."""
    return f"{LABELS.get(selector, selector)} ({AGGREGATOR_NAMES.get(aggregator, aggregator)})"


def _decimals_for(values: np.ndarray) -> int:
    """3 decimals as in the paper, 4 when errors are below 0.05 (the paper's IMDB table)."""
    finite = values[np.isfinite(values)]
    return 4 if finite.size and float(np.max(finite)) < 0.05 else 3


def format_mean_std(mean: float, std: float, decimals: int = 3) -> str:
    """``"0.171 ± 0.008"``."""
    return f"{mean:.{decimals}f} ± {std:.{decimals}f}"


_BOLD = {"html": ("<b>", "</b>"), "markdown": ("**", "**"), "latex": (r"$\mathbf{", "}$"),
         "none": ("", "")}


#: The transcription of each of the paper's results tables (:mod:`ensel.datasets.paper_tables`).
_PAPER_RESULTS = {"map": "results_map", "mv": "results_mv_vs_map", "wmv": "results_wmv_vs_map"}


def table_layout(kind: str) -> list[tuple[str, str]]:
    """Columns of the paper's results tables, (selector, aggregator) in the paper's order,
    read from their transcription (``data/paper/results_*.csv``), so the layout is the
    paper's data, not code: ``"map"`` (the four selectors with MAP), ``"mv"`` / ``"wmv"``
    (the three baselines with MV / W-MV beside Greedy MI with MAP).

    Examples
    --------
    >>> table_layout("wmv")
    [('topk', 'wmv'), ('relevance', 'wmv'), ('mrmr', 'wmv'), ('greedy_mi', 'map')]
    """
    from ensel.datasets.paper_tables import load_paper_table

    if kind not in _PAPER_RESULTS:
        raise UsageError(f"unknown table kind {kind!r}; expected 'map', 'mv' or 'wmv'")
    t = load_paper_table(_PAPER_RESULTS[kind])
    return list(dict.fromkeys(zip(t["method"].astype(str), t["aggregator"].astype(str),
                                  strict=True)))


def format_mean_std_table(summary: pd.DataFrame, columns: Sequence[tuple[str, str]], *,
                          ks: Iterable[int] | None = None, decimals: int | None = None,
                          markup: str = "html") -> pd.DataFrame:
    """Strings ``"mean ± std"`` per ``k`` (rows) and (selector, aggregator) (columns).

    The best (smallest rounded mean) of each row is in bold; ties for best are all bold; a
    row where every column ties has no bold (the paper's usual convention).

    Parameters
    ----------
    summary : pandas.DataFrame
        Columns ``selector, aggregator, k, mean, std`` (from
        :func:`ensel.experiment.summarise` or :func:`paper_summary`).
    columns : sequence of (selector, aggregator)
        Table columns in order.
    ks : iterable of int, optional
        Rows (default: every ``k`` present).
    decimals : int, optional
        Default: 3, or 4 when every error is below 0.05.
    markup : {"html", "markdown", "latex", "none"}, default="html"

    Returns
    -------
    pandas.DataFrame
        Index ``k``; columns labelled by :func:`column_label`. ``attrs["bold"]`` holds the
        boolean mask of bold cells.
    """
    if markup not in _BOLD:
        raise UsageError(f"unknown markup {markup!r}; expected one of {list(_BOLD)}")
    cols = [tuple(c) for c in columns]
    if not cols:
        raise UsageError("columns must name at least one (selector, aggregator) pair")
    idx = summary.set_index(["selector", "aggregator", "k"])
    missing = [c for c in cols if c not in set(zip(summary["selector"], summary["aggregator"],
                                                   strict=True))]
    if missing:
        raise UsageError(f"summary has no rows for (selector, aggregator) {missing[0]}")
    kk = sorted(set(summary["k"])) if ks is None else sorted(set(int(k) for k in ks))
    means = np.full((len(kk), len(cols)), np.nan)
    stds = np.full_like(means, np.nan)
    for c, (sel, agg) in enumerate(cols):
        for r, k in enumerate(kk):
            if (sel, agg, k) in idx.index:
                row = idx.loc[(sel, agg, k)]
                means[r, c], stds[r, c] = float(row["mean"]), float(row["std"])
    dec = _decimals_for(means) if decimals is None else int(decimals)
    rounded = np.round(means, dec)
    bold = np.zeros_like(means, dtype=bool)
    for r in range(len(kk)):
        row = rounded[r]
        ok = np.isfinite(row)
        if ok.sum() >= 2 and np.nanmin(row) < np.nanmax(row):
            bold[r] = ok & (row == np.nanmin(row))
    left, right = _BOLD[markup]
    cells = [[("—" if not np.isfinite(means[r, c]) else
               (left + format_mean_std(means[r, c], stds[r, c], dec) + right if bold[r, c]
                else format_mean_std(means[r, c], stds[r, c], dec)))
              for c in range(len(cols))] for r in range(len(kk))]
    out = pd.DataFrame(cells, index=pd.Index(kk, name="k"),
                       columns=[column_label(s, a) for s, a in cols])
    out.attrs["bold"] = pd.DataFrame(bold, index=out.index, columns=out.columns)
    return out


def results_table(summary: pd.DataFrame, kind: str = "map", *, extra: Sequence[tuple[str, str]]
                  = (), **kwargs: Any) -> pd.DataFrame:
    """One of the paper's results tables (:func:`table_layout`), plus optional ``extra``
    columns (e.g. ``[("exhaustive", "map")]``; extra columns take part in the bold rule)."""
    return format_mean_std_table(summary, [*table_layout(kind), *extra], **kwargs)


def caption_html(text: str) -> str:
    """A table caption as HTML: bold, with space above so it reads as the heading of the table
    below it (not as a footnote of the one above)."""
    return (f'<p style="margin: 1.6em 0 0.4em 0; font-weight: bold">{text}</p>')


def to_html(table: pd.DataFrame, *, caption: str | None = None, index: bool = True,
            note: str | None = None, small: bool = False, justify: str | None = None) -> str:
    """HTML of a formatted table, without escaping the bold tags (for ``IPython.display.HTML``).

    ``caption`` goes *above* the table (:func:`caption_html`), ``note`` in small print below.
    Missing values show as ``"n/a"``. ``small=True`` sets a smaller font (wide numeric tables);
    ``justify`` aligns the column labels (e.g. ``"left"`` for text tables).
    """
    html = table.to_html(escape=False, index=index, na_rep="n/a", border=0, justify=justify)
    parts = [caption_html(caption)] if caption else []
    parts.append(f'<div style="font-size: 0.82em">{html}</div>' if small else html)
    if note:
        parts.append(f'<p style="font-size: 0.85em; margin-top: 0.3em">{note}</p>')
    return "\n".join(parts)


def format_number(x: Any, decimals: int = 3, *, signed: bool = False,
                  missing: str = "n/a") -> str:
    """A number for a reader: fixed decimals, ``missing`` for NaN/None, no ``-0.000``, and a
    proper minus sign (``"−0.004"``); ``signed=True`` also writes ``"+"`` for positives.
    Values equal to 12 significant digits print identically (``0.28175 ± 1e-15`` is
    ``"0.2818"`` both times, never ``"0.2817"`` once)."""
    if x is None:
        return missing
    v = float(x)
    if not np.isfinite(v):
        return missing
    # one rounded value: values that differ only by floating-point noise (0.28175 computed
    # two ways) print the same digits, rounded from their 12-significant-digit value
    txt = f"{abs(float(f'{v:.12g}')):.{decimals}f}"
    if float(txt) == 0.0:
        return txt
    if v < 0:
        return "−" + txt
    return ("+" + txt) if signed else txt


def counted(n: int, singular: str, plural: str) -> str:
    """A count with the word that agrees with it, for prose built from values.

    Examples
    --------
    >>> counted(1, "is", "are"), counted(3, "is", "are"), counted(0, "model", "models")
    ('1 is', '3 are', '0 models')
    """
    return f"{n} {singular if n == 1 else plural}"


# ----------------------------------------------------------------------------- model pool
@dataclass
class PoolStatistics:
    """Per-condition model accuracies and the fitted Gaussian copula of each condition.

    Attributes
    ----------
    models : list of str
        Model names (columns of every condition, in the order of the first condition).
    conditions : list of str
    accuracy : numpy.ndarray of shape (n_conditions, m)
        Accuracy of each model on all items of each condition (abstention = wrong).
    tau : numpy.ndarray of shape (n_conditions, m)
        Fitted thresholds ``Phi^-1(error rate)``.
    sigma : numpy.ndarray of shape (n_conditions, m, m)
        Fitted copula correlation matrices.
    """

    models: list[str]
    conditions: list[str]
    accuracy: np.ndarray
    tau: np.ndarray
    sigma: np.ndarray

    @property
    def mean_sigma(self) -> np.ndarray:
        """Correlation matrix averaged over conditions (the paper's heatmaps)."""
        return self.sigma.mean(axis=0)

    @property
    def avg_rho(self) -> float:
        """Mean off-diagonal entry of :attr:`mean_sigma` (the paper's ``rho-bar``)."""
        from ensel.copula import average_correlation

        return float(average_correlation(self.mean_sigma))


def pool_statistics(df: pd.DataFrame) -> PoolStatistics:
    """Accuracies and Gaussian-copula fits (:func:`ensel.copula.fit_gaussian_copula`) on all
    items of every condition of a tidy table."""
    from ensel.copula import errors_from, fit_gaussian_copula
    from ensel.experiment import condition_arrays, prepare_table

    df, conds = prepare_table(df)
    models: list[str] | None = None
    accs, taus, sigmas = [], [], []
    for c in conds:
        X, y, names, _ = condition_arrays(df, c)
        if models is None:
            models = names
        order = [names.index(m) for m in models] if set(names) == set(models) else None
        if order is None:
            raise DataError(f"condition {c!r} has models {names}, not the same set as the "
                             f"first condition ({models})")
        X = X[:, order]
        E = errors_from(X, y)
        tau, Sigma = fit_gaussian_copula(E)
        accs.append(1.0 - E.mean(axis=0))
        taus.append(tau)
        sigmas.append(Sigma)
    return PoolStatistics(models=list(models or []), conditions=[str(c) for c in conds],
                          accuracy=np.array(accs), tau=np.array(taus), sigma=np.array(sigmas))


def model_pool_table(pool: PoolStatistics) -> pd.DataFrame:
    """The paper's model-pool table as numbers, sorted by mean accuracy.

    Columns ``model, accuracy, accuracy_std`` (fractions; std over conditions, ``ddof=0`` when
    there is one condition), ``tau`` (``Phi^-1`` of the mean error rate) and ``avg_rho`` (mean
    correlation with the other models in the condition-averaged fitted ``Sigma``).
    """
    acc = pool.accuracy
    m = acc.shape[1]
    S = pool.mean_sigma
    avg_rho = (S.sum(axis=1) - np.diag(S)) / max(m - 1, 1)
    out = pd.DataFrame({
        "model": pool.models,
        "accuracy": acc.mean(axis=0),
        "accuracy_std": acc.std(axis=0, ddof=1) if acc.shape[0] > 1 else np.zeros(m),
        "tau": ndtri(np.clip(1.0 - acc.mean(axis=0), 1e-12, 1 - 1e-12)),
        "avg_rho": avg_rho,
    })
    out = out.sort_values("accuracy", ascending=False, kind="stable").reset_index(drop=True)
    out.attrs["n_conditions"] = int(acc.shape[0])
    out.attrs["avg_accuracy"] = float(acc.mean())
    out.attrs["avg_rho"] = pool.avg_rho
    return out


def format_model_pool_table(table: pd.DataFrame) -> pd.DataFrame:
    """Strings as in the paper: ``"83.1% ± 0.1%"`` (no ``±`` part for a single condition),
    ``tau`` and ``avg rho`` to 2 decimals, plus an "Average" row."""
    pct = 2 if table["accuracy"].min() > 0.9 else 1
    one = table.attrs.get("n_conditions", 2) == 1  # no spread over conditions to show
    rows = [[r.model, f"{100 * r.accuracy:.{pct}f}%" if one else
             f"{100 * r.accuracy:.{pct}f}% ± {100 * r.accuracy_std:.{pct}f}%",
             format_number(r.tau, 2), format_number(r.avg_rho, 2)] for r in table.itertuples()]
    avg_acc = table.attrs.get("avg_accuracy", table["accuracy"].mean())
    avg_rho = table.attrs.get("avg_rho", table["avg_rho"].mean())
    rows.append(["Average", f"{100 * avg_acc:.{pct}f}%", "", f"ρ̄ = {avg_rho:.2f}"])
    return pd.DataFrame(rows, columns=["Model", "Accuracy", "threshold τ", "avg. ρ"])


def format_selection_table(selections: pd.DataFrame) -> pd.DataFrame:
    """Paper Tables 1-2 layout from :func:`ensel.experiment.selection_table`:
    one row per ``k``, one column per selector, cells ``"+ model (acc%)"``."""
    pivot: dict[str, dict[int, str]] = {}
    for r in selections.itertuples():
        prefix = "" if r.k == selections["k"].min() else "+ "
        pivot.setdefault(LABELS.get(r.selector, r.selector), {})[int(r.k)] = (
            f"{prefix}{r.model} ({100 * r.accuracy:.1f}%)")
    out = pd.DataFrame(pivot)
    out.index.name = "k"
    return out.sort_index()


# ----------------------------------------------------------------------------- paper comparisons
def paper_summary(dataset: str) -> pd.DataFrame:
    """The paper's three results tables of ``dataset`` as a summary (``selector, aggregator,
    k, mean, std``), Greedy MI (MAP) de-duplicated."""
    from ensel.datasets.paper_tables import load_paper_table

    t = load_paper_table("results", dataset=dataset)
    t = t.rename(columns={"method": "selector"})
    t = t.drop_duplicates(["selector", "aggregator", "k"], keep="first")
    return t[["selector", "aggregator", "k", "mean", "std"]].reset_index(drop=True)


def compare_results(summary: pd.DataFrame, dataset: str, kind: str = "map") -> pd.DataFrame:
    """Paper value, our value and difference for every cell of one of the paper's tables.

    Returns
    -------
    pandas.DataFrame
        Columns ``k, selector, aggregator, paper_mean, paper_std, ours_mean, ours_std,
        diff`` (ours minus paper).
    """
    cols = table_layout(kind)
    paper = paper_summary(dataset)
    keep = pd.MultiIndex.from_tuples(cols, names=["selector", "aggregator"])
    p = paper.set_index(["selector", "aggregator"]).loc[
        lambda d: d.index.isin(keep)].reset_index()
    o = summary[["selector", "aggregator", "k", "mean", "std"]]
    out = p.merge(o, on=["selector", "aggregator", "k"], how="left",
                  suffixes=("_paper", "_ours"))
    out = out.rename(columns={"mean_paper": "paper_mean", "std_paper": "paper_std",
                              "mean_ours": "ours_mean", "std_ours": "ours_std"})
    out["diff"] = out["ours_mean"] - out["paper_mean"]
    order = {c: i for i, c in enumerate(cols)}
    out["_o"] = [order[(s, a)] for s, a in zip(out["selector"], out["aggregator"], strict=True)]
    out = out.sort_values(["k", "_o"]).drop(columns="_o").reset_index(drop=True)
    return out[["k", "selector", "aggregator", "paper_mean", "paper_std", "ours_mean",
                "ours_std", "diff"]]


def compare_pool(table: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Model-pool table against the paper's (matched by model name).

    Columns ``model, paper_accuracy, ours_accuracy, diff_accuracy, paper_tau, ours_tau,
    paper_avg_rho, ours_avg_rho, diff_avg_rho``.
    """
    from ensel.datasets.paper_tables import load_paper_table

    p = load_paper_table("model_pools", dataset=dataset)[["model", "accuracy", "tau", "avg_rho"]]
    out = p.merge(table[["model", "accuracy", "tau", "avg_rho"]], on="model", how="left",
                  suffixes=("_paper", "_ours"))
    out = out.rename(columns=lambda c: c if c == "model" else
                     ("paper_" if c.endswith("_paper") else "ours_") + c.rsplit("_", 1)[0])
    out["diff_accuracy"] = out["ours_accuracy"] - out["paper_accuracy"]
    out["diff_avg_rho"] = out["ours_avg_rho"] - out["paper_avg_rho"]
    return out[["model", "paper_accuracy", "ours_accuracy", "diff_accuracy", "paper_tau",
                "ours_tau", "paper_avg_rho", "ours_avg_rho", "diff_avg_rho"]]


def compare_selections(selections: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Our picks (:func:`ensel.experiment.selection_table`) next to the paper's, per ``k`` and
    selector: ``k, selector, paper_model, paper_accuracy, ours_model, ours_accuracy, same``."""
    from ensel.datasets.paper_tables import load_paper_table

    p = load_paper_table("selections", dataset=dataset).rename(columns={"method": "selector"})
    out = p[["k", "selector", "model", "accuracy"]].merge(
        selections[["k", "selector", "model", "accuracy"]], on=["k", "selector"], how="left",
        suffixes=("_paper", "_ours"))
    out = out.rename(columns={"model_paper": "paper_model", "accuracy_paper": "paper_accuracy",
                              "model_ours": "ours_model", "accuracy_ours": "ours_accuracy"})
    out["same"] = out["paper_model"] == out["ours_model"]
    return out.sort_values(["selector", "k"]).reset_index(drop=True)


def format_numbers(frame: pd.DataFrame, decimals: int = 4, *, signed: bool | Sequence[str]
                   = False) -> pd.DataFrame:
    """Every float column of ``frame`` as :func:`format_number` strings (integer and text
    columns unchanged); ``signed`` is ``True`` or the names of the columns to sign."""
    out = frame.copy()
    for c in out.columns:
        if pd.api.types.is_float_dtype(out[c]):
            sg = signed if isinstance(signed, bool) else c in set(signed)
            out[c] = [format_number(x, decimals, signed=sg) for x in frame[c]]
    return out


def comparison_table(comparison: pd.DataFrame, *, decimals: int | None = None
                     ) -> pd.DataFrame:
    """Compact "paper | ours | Δ" table from :func:`compare_results` output.

    One row per ``k``; two header levels: the paper's column (e.g. ``"Top-k (MV)"``) over
    ``paper``, ``ours`` and ``Δ`` (ours − paper). Cells are strings (3 decimals as in the
    paper, 4 when every error is below 0.05; signed differences; ``"n/a"`` when missing).
    """
    need = {"k", "selector", "aggregator", "paper_mean", "ours_mean", "diff"}
    if not need <= set(comparison.columns):
        raise DataError(f"comparison must have columns {sorted(need)}; got "
                         f"{list(comparison.columns)}")
    dec = (_decimals_for(comparison["paper_mean"].to_numpy(dtype=float)) if decimals is None
           else int(decimals))
    labels: list[str] = []
    for s_, a_ in zip(comparison["selector"], comparison["aggregator"], strict=True):
        lab = column_label(s_, a_)
        if lab not in labels:
            labels.append(lab)
    ks = sorted(set(int(k) for k in comparison["k"]))
    cols = pd.MultiIndex.from_tuples([(lab, w) for lab in labels for w in ("paper", "ours", "Δ")])
    out = pd.DataFrame("n/a", index=pd.Index(ks, name="k"), columns=cols)
    for r in comparison.itertuples():
        lab = column_label(r.selector, r.aggregator)
        out.loc[int(r.k), (lab, "paper")] = format_number(r.paper_mean, dec)
        out.loc[int(r.k), (lab, "ours")] = format_number(r.ours_mean, dec)
        out.loc[int(r.k), (lab, "Δ")] = format_number(r.diff, dec, signed=True)
    out.index.name = None  # "k" labels the second header row instead of an extra row
    out.columns.names = [None, "k"]
    return out


def format_pool_comparison(comparison: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare_pool` output for reading: model as index; accuracy in % (paper, ours, Δ),
    threshold τ (paper, ours) and average correlation ρ (paper, ours, Δ), rounded."""
    out = pd.DataFrame(index=pd.Index(comparison["model"].astype(str), name="model"))
    acc = {"paper": comparison["paper_accuracy"], "ours": comparison["ours_accuracy"],
           "Δ": comparison["diff_accuracy"]}
    for w, col in acc.items():
        out[("accuracy (%)", w)] = [format_number(100 * x, 1, signed=(w == "Δ"))
                                    for x in col.to_numpy(dtype=float)]
    for w in ("paper", "ours"):
        out[("threshold τ", w)] = [format_number(x, 2)
                                   for x in comparison[f"{w}_tau"].to_numpy(dtype=float)]
    for w, col in (("paper", "paper_avg_rho"), ("ours", "ours_avg_rho"), ("Δ", "diff_avg_rho")):
        out[("avg. ρ", w)] = [format_number(x, 2, signed=(w == "Δ"))
                              for x in comparison[col].to_numpy(dtype=float)]
    out.columns = pd.MultiIndex.from_tuples(out.columns, names=[None, "model"])
    out.index.name = None
    return out


def format_selection_comparison(comparison: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare_selections` output for reading: index (selector, ``k``), the paper's and
    our ``k``-th pick as ``"model (acc%)"`` and ✓/✗ for the same model."""
    def cell(model: Any, acc: Any) -> str:
        if model is None or (isinstance(model, float) and np.isnan(model)):
            return "n/a"
        return f"{model} ({format_number(100 * float(acc), 1)}%)"

    rows = [(LABELS.get(r.selector, r.selector), int(r.k), cell(r.paper_model, r.paper_accuracy),
             cell(r.ours_model, r.ours_accuracy), "✓" if bool(r.same) else "✗")
            for r in comparison.itertuples()]
    return pd.DataFrame(rows, columns=["selector", "k", "paper's pick", "our pick", "same"]
                        ).set_index(["selector", "k"])


def format_paired_differences(diffs: pd.DataFrame, a: str = "Greedy MI", b: str = "Top-k",
                              decimals: int = 4, holm: pd.DataFrame | None = None
                              ) -> pd.DataFrame:
    """:func:`ensel.experiment.paired_differences` output for reading: mean difference, the
    95 % interval as ``"[lo, hi]"`` and which variance it used (``"halves"`` or
    ``"corrected"``), the verdict, and wins/ties counts; with ``holm``
    (:func:`ensel.book.protocol.budget_verdicts` of the same table) the Holm-adjusted
    p-value and verdict of each budget."""
    def iv(lo: float, hi: float) -> str:
        return f"[{format_number(lo, decimals)}, {format_number(hi, decimals)}]"

    out = pd.DataFrame({
        "mean Δ": [format_number(x, decimals, signed=True) for x in diffs["mean_diff"]],
        "95% interval": [iv(lo, hi) for lo, hi in
                         zip(diffs["ci_low"], diffs["ci_high"], strict=True)],
        "variance": (diffs["interval"].to_numpy() if "interval" in diffs else ""),
        "verdict": diffs["verdict"].to_numpy() if "verdict" in diffs else "",
        f"{a} wins": diffs["a_wins"].astype(int).to_numpy(),
        f"{b} wins": diffs["b_wins"].astype(int).to_numpy(),
        "ties": diffs["ties"].astype(int).to_numpy(),
    }, index=pd.Index(diffs["k"].astype(int).to_numpy(), name="k"))
    if holm is not None:
        h = holm.set_index("k").reindex(out.index)
        out["Holm p"] = ["–" if np.isnan(x) else f"{x:.3g}" for x in h["p_holm"]]
        out["Holm verdict"] = h["verdict"].to_numpy()
    return out


def short_path(path: str | Any, root: str | Any | None = None) -> str:
    """``path`` relative to ``root`` (default: the repository holding :mod:`ensel`) when it
    lies inside it, else just its last two parts -- never an absolute build path."""
    from pathlib import Path

    p = Path(path).resolve()
    r = Path(root).resolve() if root is not None else Path(__file__).resolve().parents[2]
    try:
        return p.relative_to(r).as_posix()
    except ValueError:
        return "/".join(p.parts[-2:])


def dataset_label(dataset: str | Any) -> str:
    """Display name of a dataset: ``"MEDMCQA"``, ``"MMLU-Pro"``, or a user file's name
    (from the dataset's profile, :func:`ensel.book.profiles.label`)."""
    from ensel.book.profiles import label

    return label(dataset)


def dataset_banner(dataset: str | Any, df: pd.DataFrame, *, n_splits: int, seed: int) -> str:
    """Markdown banner of an experiments page: what the data is (paper-calibrated stand-in,
    real published answers, or the user's table, from the dataset's profile), its size, and
    the protocol as it applies to *this* data (one condition or several; how many evaluations
    each mean is over).

    Plain text only (no ``$...$``): math is not typeset in generated outputs.
    """
    from ensel.book.profiles import profile

    prof = profile(dataset)
    label = str(prof["label"])
    conds = [str(c) for c in pd.unique(df["condition"].astype(str))]
    n_models = int(df["model"].nunique())
    nq = df.groupby(df["condition"].astype(str))["item"].nunique()
    queries = (f"{int(nq.iloc[0]):,}" if nq.nunique() == 1
               else f"{int(nq.min()):,}–{int(nq.max()):,}")
    if prof["kind"] == "stand-in":
        what = (
            f"**Data: paper-calibrated stand-in for {label}.** Synthetic answers sampled from a "
            "Gaussian copula whose accuracies and correlations are fitted to the paper's "
            "model-pool table (appendix). It reproduces the *mechanism* the paper studies "
            "(correlated errors, family structure), **not the paper's numbers**: the paper's raw "
            "LLM answers are not public. Differences from the paper's tables are expected.")
    elif prof["kind"] == "real":
        what = (
            f"**Data: real, public LLM outputs ({label}, {prof['licence']}, {prof['url']}).** "
            f"Models: {prof['models']}. Queries: {prof['conversion']}. Items: {prof['items']}. "
            "These are independent real data, not the paper's; there is no paper table to "
            "compare with.")
    else:
        what = (f"**Data: your table `{label}`.** Results are computed on the answers in that "
                "file; there is no paper table to compare with.")
    split = (f"split {n_splits} times at random into 80 % (selection statistics, MAP table, "
             "vote weights) and 20 % (test error)")
    if len(conds) == 1:
        protocol = (f"One condition (`{conds[0]}`): its {queries} binary queries are {split}, "
                    f"so every mean ± std below is over {n_splits} evaluations (seed {seed}).")
    else:
        kind = (" (3 temperatures × 2 runs, as in the paper)"
                if prof["kind"] == "stand-in" and len(conds) == 6
                else f" ({prof['conditions']})" if prof["kind"] == "real" else "")
        protocol = (f"{len(conds)} conditions{kind}: {', '.join(f'`{c}`' for c in conds)}. "
                    f"The {queries} binary queries of each condition are {split}, so every "
                    f"mean ± std below is over {len(conds)} × {n_splits} = "
                    f"{len(conds) * n_splits} evaluations (seed {seed}).")
    return f"{what}\n\n**{n_models} models.** {protocol}"
