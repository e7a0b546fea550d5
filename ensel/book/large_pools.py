"""Computations of the page "Beyond the paper: selection and aggregation for large pools".

Two parts, both thin layers over the library:

* :func:`gain_breakdown` -- the paper's Greedy MI estimate of ``I(Y; X_j | X_S)`` against
  the exact value on an equicorrelated Gaussian-copula law (exact by one-factor quadrature,
  :func:`ensel.theory.copula_joint_law`), along the estimator's own pick path, for several
  numbers of items; :func:`pick_path` shows the picks on a large simulated pool.
* :func:`compare` -- ensel's defaults (:data:`ensel.select.DEFAULT_SELECTOR` with
  :data:`ensel.aggregate.DEFAULT_AGGREGATOR`) against Greedy MI + MAP, Top-k + MAP and
  Top-k + W-MV on the same seeded splits (:func:`ensel.experiment.heldout_errors`), with
  the paired, overlap-corrected intervals of :func:`ensel.experiment.paired_differences`
  widened by half-sample replicates where those measure more noise, and their three-outcome
  verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtri

from ensel.aggregate import DEFAULT_AGGREGATOR
from ensel.copula import sample_equicorrelated
from ensel.experiment import (
    condition_data,
    evaluate,
    half_sample_errors,
    halvings,
    heldout_errors,
    paired_differences,
)
from ensel.info import conditional_mutual_information_table
from ensel.protocol import Protocol
from ensel.select import DEFAULT_SELECTOR, SELECTORS
from ensel.stats import CONTRADICTED, HOLDS
from ensel.theory import copula_joint_law

__all__ = [
    "ARMS",
    "above_best_topk",
    "BASELINES",
    "NEW",
    "available",
    "compare",
    "compare_all",
    "gain_breakdown",
    "page_data",
    "pick_path",
    "plot_errors",
    "plot_gains",
    "verdict_summary",
]

#: ensel's defaults: the arm the page defends.
NEW: tuple[str, str] = (DEFAULT_SELECTOR, DEFAULT_AGGREGATOR)
#: The three baselines of the issue.
BASELINES: tuple[tuple[str, str], ...] = (("greedy_mi", "map"), ("topk", "map"), ("topk", "wmv"))
#: Display names of the four arms.
ARMS: dict[tuple[str, str], str] = {
    NEW: "ensel defaults",
    ("greedy_mi", "map"): "Greedy MI + MAP",
    ("topk", "map"): "Top-k + MAP",
    ("topk", "wmv"): "Top-k + W-MV",
}


def gain_breakdown(ns: Sequence[int], *, accuracy: Sequence[float], rho: float,
                   seed: int = 0) -> pd.DataFrame:
    """Greedy MI's estimated gains against the exact ones along its pick path.

    For each ``n`` in ``ns`` a sample of ``n`` items is drawn from the equicorrelated copula
    (:func:`ensel.copula.sample_equicorrelated`, seed ``seed``), :class:`ensel.select.GreedyMI`
    picks all ``m - 1`` models it can, and the exact ``I(Y; X_j | X_S)`` of each pick given
    the picks before it is computed on the exact joint law.

    Returns
    -------
    pandas.DataFrame
        Columns ``n, step`` (``|S|`` before the pick), ``model, accuracy, estimated, exact,
        best_exact`` (the largest exact gain any remaining model had at that step).
    """
    acc = np.asarray(accuracy, dtype=float)
    m = acc.size
    tau = ndtri(1.0 - acc)
    Sigma = np.full((m, m), float(rho))
    np.fill_diagonal(Sigma, 1.0)
    joint = copula_joint_law(tau, Sigma)
    rows = []
    for n in ns:
        X, y, _ = sample_equicorrelated(acc, rho, m, int(n), random_state=seed)
        sel = SELECTORS["greedy_mi"](m - 1).fit(X, y)
        picked: list[int] = []
        for step, (j, est) in enumerate(zip(sel.selected_, sel.gains_, strict=True)):
            axes = [1 + s for s in picked]
            exact = conditional_mutual_information_table(joint, 0, 1 + j, axes)
            best = max(conditional_mutual_information_table(joint, 0, 1 + c, axes)
                       for c in range(m) if c not in picked)
            rows.append((int(n), step, int(j), float(acc[j]), float(est), float(exact),
                         float(best)))
            picked.append(int(j))
    return pd.DataFrame(rows, columns=["n", "step", "model", "accuracy", "estimated", "exact",
                                       "best_exact"])


def pick_path(X: np.ndarray, y: np.ndarray, k: int,
              selectors: Sequence[str] = ("greedy_mi", DEFAULT_SELECTOR)) -> pd.DataFrame:
    """Each selector's picks on ``(X, y)``: the model's training accuracy and its gain.

    Returns
    -------
    pandas.DataFrame
        Indexed by pick (1-based), columns ``(selector, "accuracy")``,
        ``(selector, "gain")`` (the selector's own estimate, bits) and, for a selector with a
        fallback rule, ``(selector, "fallback")``.
    """
    acc = (X == y[:, None]).mean(axis=0)
    out = {}
    for name in selectors:
        sel = SELECTORS[name](k).fit(X, y)
        out[(name, "accuracy")] = acc[sel.selected_]
        out[(name, "gain")] = sel.gains_
        if hasattr(sel, "fallback_"):  # score_mi: picks made in accuracy order (no gain)
            out[(name, "fallback")] = sel.fallback_
    df = pd.DataFrame(out, index=pd.RangeIndex(1, k + 1, name="pick"))
    df.columns = pd.MultiIndex.from_tuples(df.columns)
    return df


#: Aggregators scored along each selector's pick path at once by the evaluation loop
#: (MAP, majority and weighted vote, :func:`ensel.experiment.heldout_errors`): an extra
#: one on a selector costs little there, another aggregator a fit per budget.
_ALONG_PATH = ("map", "mv", "wmv")


def _groups() -> list[tuple[list[str], list[str]]]:
    """The evaluation calls that cover the four arms, as ``(selectors, aggregators)``: the
    arms of the path-scored aggregators in one call (every selector with every one of those
    aggregators; the rows of other pairs are dropped, :func:`_arms_only`), each other arm
    with its own selector, so no selector is fitted with an aggregator it does not need."""
    along = [(s, a) for s, a in ARMS if a in _ALONG_PATH]
    calls = [([s], [a]) for s, a in ARMS if a not in _ALONG_PATH]
    if along:
        calls.append((list(dict.fromkeys(s for s, _ in along)),
                      list(dict.fromkeys(a for _, a in along))))
    return calls


def _arms_only(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of the four arms (a call of :func:`_groups` makes a few more)."""
    keep = [(s, a) in ARMS for s, a in zip(results["selector"], results["aggregator"],
                                           strict=True)]
    return results[keep].reset_index(drop=True)


def _array_results(X: np.ndarray, y: np.ndarray, ks: Sequence[int], n_splits: int,
                   seed: int) -> pd.DataFrame:
    parts = [heldout_errors(X, y, ks=ks, protocol=Protocol(n_splits=n_splits, seed=seed),
                            selectors=sels, aggregators=aggs)
             for sels, aggs in _groups()]
    out = _arms_only(pd.concat(parts, ignore_index=True)).assign(condition="all")
    out.attrs["provenance"] = {"test_fraction": 0.2}
    return out


def _array_replicates(X: np.ndarray, y: np.ndarray, ks: Sequence[int], n_halvings: int,
                      splits_per_half: int, seed: int) -> pd.DataFrame:
    """:func:`ensel.experiment.half_sample_errors` for an answer matrix (one condition)."""
    parts, halving, which = [], [], []
    for h, (mask,) in enumerate(halvings([np.arange(len(y))], n_halvings, seed=seed)):
        for half, rows in (("A", mask), ("B", ~mask)):
            Xh, yh = X[rows], y[rows]  # one copy of the half for the three groups
            for sels, aggs in _groups():
                parts.append(heldout_errors(Xh, yh, ks=ks,
                                            protocol=Protocol(n_splits=splits_per_half,
                                                              seed=seed),
                                            condition=f"all/halving{h}{half}",
                                            selectors=sels, aggregators=aggs))
                halving.append(h)
                which.append(half)
    # the columns each part would get from part.assign(condition="all", halving=h,
    # half=half), added once to the concatenated frame
    out = pd.concat(parts, ignore_index=True)
    sizes = [len(p) for p in parts]
    out["condition"] = "all"
    out["halving"] = np.repeat(np.asarray(halving, dtype=np.int64), sizes)
    out["half"] = pd.Series(np.repeat(np.asarray(which, dtype=object), sizes),
                            index=out.index).infer_objects()
    return _arms_only(out)


def compare(data: Any, *, ks: Sequence[int], n_splits: int, n_halvings: int,
            splits_per_half: int | None = None, seed: int = 0) -> pd.DataFrame:
    """ensel's defaults against the three baselines at every budget, with verdicts.

    Parameters
    ----------
    data : pandas.DataFrame or tuple (X, y)
        A tidy table (every condition, :func:`ensel.experiment.evaluate`) or an answer
        matrix with its labels (one condition, :func:`ensel.experiment.heldout_errors`).
    ks : sequence of int
        Budgets.
    n_splits : int
        Random 80/20 splits per condition.
    n_halvings : int
        Halvings of the items for the replicates that check the interval's variance.
    splits_per_half : int, optional
        Splits per condition on each half (default: 4 evaluations per half).
    seed : int, default=0

    Returns
    -------
    pandas.DataFrame
        One row per ``(k, baseline)``: ``k, baseline, error_new, error_baseline, mean_diff,
        ci_low, ci_high, verdict, interval`` (differences are new minus baseline, so
        ``"holds"`` means the defaults are better beyond the noise, ``"contradicted"`` worse).
    """
    if isinstance(data, pd.DataFrame):
        data = condition_data(data)  # validated and pivoted once for the six protocol runs
        results = _arms_only(pd.concat([evaluate(data, ks=ks, n_splits=n_splits, seed=seed,
                                                 selectors=sels, aggregators=aggs)
                                        for sels, aggs in _groups()], ignore_index=True))
        results.attrs["provenance"] = {"test_fraction": 0.2}
        halved = Protocol(n_halvings=n_halvings, splits_per_half=splits_per_half, seed=seed)
        reps = _arms_only(pd.concat([half_sample_errors(data, ks=ks, protocol=halved,
                                                        selectors=sels, aggregators=aggs)
                                     for sels, aggs in _groups()], ignore_index=True))
    else:
        X, y = data
        results = _array_results(X, y, ks, n_splits, seed)
        reps = _array_replicates(X, y, ks, n_halvings, splits_per_half or 4, seed)
    means = results.groupby(["selector", "aggregator", "k"])["error"].mean()
    rows = []
    for base in BASELINES:
        pdiff = paired_differences(results, a=NEW[0], b=base[0], aggregator=NEW[1],
                                   aggregator_b=base[1], replicates=reps, n_boot=0, seed=seed)
        for r in pdiff.itertuples(index=False):
            rows.append((int(r.k), ARMS[base], float(means[(*NEW, r.k)]),
                         float(means[(*base, r.k)]), float(r.mean_diff), float(r.ci_low),
                         float(r.ci_high), str(r.verdict), str(r.interval)))
    return pd.DataFrame(rows, columns=["k", "baseline", "error_new", "error_baseline",
                                       "mean_diff", "ci_low", "ci_high", "verdict",
                                       "interval"])


def verdict_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per budget: the four arms' mean errors and the verdict against each baseline.

    ``table`` is the output of :func:`compare`; verdict marks: ``better`` (holds),
    ``≈`` (within noise), ``WORSE`` (contradicted).
    """
    marks = {HOLDS: "better", CONTRADICTED: "WORSE"}
    err = table.pivot(index="k", columns="baseline", values="error_baseline")
    out = pd.DataFrame({ARMS[NEW]: table.groupby("k")["error_new"].first()})
    for base in BASELINES:
        name = ARMS[base]
        out[name] = err[name]
    for base in BASELINES:
        name = ARMS[base]
        v = table[table["baseline"] == name].set_index("k")["verdict"]
        out[f"vs {name}"] = v.map(lambda s: marks.get(s, "≈"))
    return out


def above_best_topk(tables: dict[str, pd.DataFrame], names: Sequence[str]) -> pd.DataFrame:
    """Budgets where the defaults' mean error is above the best Top-k baseline's.

    For each data set in ``names`` (tables of :func:`compare`) and each budget, the best
    Top-k arm is the one of Top-k + MAP and Top-k + W-MV with the lower mean error; a row
    per budget where the defaults' error exceeds it, with the paired interval of the
    difference (defaults minus that baseline) and its verdict.

    Returns
    -------
    pandas.DataFrame
        Columns ``data, k, defaults, best Top-k, its error, diff low, diff high, verdict``
        (empty when the defaults are at most the best Top-k everywhere).
    """
    topk = [ARMS[("topk", "map")], ARMS[("topk", "wmv")]]
    rows = []
    for name in names:
        t = tables[name]
        s = verdict_summary(t)
        best = s[topk].min(axis=1)
        for k in s.index[s[ARMS[NEW]] > best]:
            base = s.loc[k, topk].astype(float).idxmin()
            r = t[(t["k"] == k) & (t["baseline"] == base)].iloc[0]
            rows.append((name, int(k), r["error_new"], base, r["error_baseline"], r["ci_low"],
                         r["ci_high"], r["verdict"]))
    return pd.DataFrame(rows, columns=["data", "k", "defaults", "best Top-k", "its error",
                                       "diff low", "diff high", "verdict"])


def available(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split dataset names into (loadable here, missing), by each dataset's own check."""
    from ensel.book.runner._config import _dataset_available

    have = [n for n in names if _dataset_available(n)]
    return have, [n for n in names if n not in have]


def plot_gains(breakdown: pd.DataFrame) -> Any:
    """Estimated (solid) and exact (dashed) gain of each Greedy MI pick, one colour per ``n``."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    for i, (n, g) in enumerate(breakdown.groupby("n", sort=True)):
        c = f"C{i}"
        ax.plot(g["step"], g["estimated"], "o-", color=c, label=f"estimated, n = {n:,}")
        ax.plot(g["step"], g["exact"], "s--", color=c, alpha=0.7, label=f"exact, n = {n:,}")
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xlabel("models already picked |S|")
    ax.set_ylabel("gain I(Y; X_j | X_S) of the pick (bits)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def plot_errors(tables: dict[str, pd.DataFrame]) -> Any:
    """Held-out error against the budget, the four arms, one panel per data set."""
    from ensel.book.figures import small_multiples

    def draw(ax: Any, name: str) -> None:
        s = verdict_summary(tables[name])
        for i, arm in enumerate(ARMS.values()):
            ax.plot(s.index, s[arm], "o-" if i == 0 else ".--", lw=2 if i == 0 else 1,
                    label=arm, color=f"C{i}")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("budget k")
        ax.set_yscale("log")

    return small_multiples(tables, draw, max_cols=4, panel=(3.2, 2.8),
                           ylabel="held-out error")


def page_data(standins: Sequence[str], real_sources: Sequence[str] | None,
              pool_models: Sequence[int], *, pool_items: int, standin_items: int | None = None,
              seed: int = 0) -> tuple[dict[str, Any], list[str]]:
    """The page's data sets: stand-ins (tidy), the real sources available here (tidy;
    ``None``: every real source of the book, :func:`ensel.book.profiles.names`) and seeded
    family pools (``(X, y)``, pool of ``m`` seeded ``seed + m``); and the missing real
    sources."""
    from ensel.book.profiles import names
    from ensel.datasets import load
    from ensel.pools import family_pool

    have, missing = available(names("real") if real_sources is None else real_sources)
    data: dict[str, Any] = {name: load(name, n_items=standin_items) for name in standins}
    data |= {name: load(name) for name in have}
    for m in pool_models:
        pool = family_pool(m, pool_items, random_state=seed + m)
        data[f"pool of {m}"] = (pool.X, pool.y)
    return data, missing


def compare_all(data: dict[str, Any], *, ks: Sequence[int], n_splits: int, pool_splits: int,
                n_halvings: int, seed: int = 0) -> dict[str, pd.DataFrame]:
    """:func:`compare` on every data set of :func:`page_data`, at the budgets ``<= m``
    (``n_splits`` per condition of a tidy table, ``pool_splits`` on a pool)."""
    out = {}
    for name, d in data.items():
        pool = isinstance(d, tuple)
        m = d[0].shape[1] if pool else d["model"].nunique()
        out[name] = compare(d, ks=[k for k in ks if k <= m],
                            n_splits=pool_splits if pool else n_splits,
                            n_halvings=n_halvings, seed=seed)
    return out
