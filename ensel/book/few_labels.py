"""Page support of "Beyond the paper: a handful of labels" (``notebooks/few_labels.py``).

The library chooses (:func:`ensel.fewlabels.choose_with_labels`) and ranks the items to
label (:func:`ensel.fewlabels.label_next`); this module is the page's experiment around
them. On each data set and seeded repeat ``r``:

1. the items are split by their ids (:func:`ensel.experiment.split_indices`, condition the
   data set's name, split ``r``): a *labelling pool* of at most ``pool_items`` items whose
   gold is hidden, and a *held-out* part, the rest, with its full gold, on which every arm
   is scored;
2. gold is revealed for ``N`` pool items (``N`` in :data:`GRID`), in three orders:
   ``random`` (a seeded hash of the item ids), ``decisive`` (the first
   :data:`FIRST_RANDOM` labels at random, as ``label_next`` needs one label, then
   ``label_next(strategy="decisive")`` in batches of at most ``max_batch``, each batch
   asked with the labels revealed so far) and ``disagreement`` (``label_next``'s
   label-free order: most divided models first);
3. at each ``N`` the arms: the few-label choice (``choose_with_labels`` on the pool with
   those ``N`` labels; its stated error and interval), the best single model by accuracy on
   the same ``N`` labels (at ``N = 0``: by agreement with the plurality vote), and
   Dawid-Skene over all models anchored by the same ``N`` labels (label-free at ``N = 0``);
   once per repeat: the full-label choice (every pool item's gold) and the plurality vote of
   all models (no labels).

Every held-out error counts a tie among ``t`` options as ``1 - 1/t`` of an error
(:func:`ensel.aggregate.heldout_error`). Row order never matters: items and models are
sorted by name, and splits and label orders follow the item ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ensel.aggregate import aggregator_name

__all__ = ["GRID", "STRATEGIES", "FIRST_RANDOM", "ARMS", "Source", "page_sources",
           "run_source", "run_all", "curve_table", "reach_table", "versus_random",
           "calibration_table", "coverage", "coverage_verdict", "plot_curves"]

#: Numbers of revealed gold labels.
GRID = (0, 10, 20, 50, 100, 200)
#: The label orders, in the page's order.
STRATEGIES = ("random", "decisive", "disagreement")
#: Labels revealed at random before ``decisive`` takes over (it needs at least one).
FIRST_RANDOM = 10
#: Display names of the arms (the ``arm`` column of :func:`run_source`); an aggregator's by
#: the registry's name for it (:func:`ensel.aggregate.aggregator_name`).
ARMS = {"few": "few-label choice", "full": "full-label choice",
        "single": "best single (same N)", "ds": f"{aggregator_name('ds')} (same N)",
        "vote": f"{aggregator_name('plurality')} (no labels)"}


@dataclass(frozen=True)
class Source:
    """One data set of the page: answers (an OptionMatrix, or binary answers as a DataFrame
    items x models) and the full gold (codes, or ``+1``/``-1``)."""

    name: str
    answers: Any
    gold: np.ndarray
    kind: str  # "real" or "seeded"

    @property
    def binary(self) -> bool:
        return isinstance(self.answers, pd.DataFrame)

    @property
    def items(self) -> list[Any]:
        return list(self.answers.index if self.binary else self.answers.items)

    @property
    def models(self) -> list[Any]:
        return list(self.answers.columns if self.binary else self.answers.models)

    def codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Answers and gold as option codes (binary: ``1`` for ``+1``, ``0`` for ``-1``,
        ``-1`` = abstained), the input of the multi-class baselines."""
        if self.binary:
            X = self.answers.to_numpy()
            return (np.where(X == 0, -1, (X > 0).astype(np.int64)),
                    (self.gold > 0).astype(np.int64))
        return np.asarray(self.answers.A, dtype=np.int64), self.gold.astype(np.int64)

    def part(self, rows: np.ndarray, gold: np.ndarray | None = None) -> tuple[Any, Any]:
        """``(answers, gold)`` of ``rows`` in the view ``ensel.fewlabels`` reads; ``gold``
        (aligned with ``rows``, gaps ``-1``/``0``) replaces the full gold when given."""
        from ensel.data import OptionMatrix

        g = self.gold[rows] if gold is None else gold
        if self.binary:
            return self.answers.iloc[rows], np.asarray(g)
        om = self.answers
        return OptionMatrix(om.A[rows], np.asarray(g, dtype=np.int16),
                            [om.options[i] for i in rows], [om.items[i] for i in rows],
                            list(om.models), om.condition), None


def _option_source(name: str, om: Any, kind: str) -> Source:
    return Source(name, om, np.asarray(om.gold, dtype=np.int64), kind)


def page_sources(real_sources: Sequence[str] | None, *, pool_models: int, pool_items: int,
                 seed: int = 0) -> tuple[list[Source], list[str]]:
    """The real sources available here (``None``: every real source of the book; the
    multi-class ones read natively, :func:`ensel.data.answer_matrix`, LLMBar binary, its
    ``original-order`` condition) and two seeded pools of ``pool_models`` models and
    ``pool_items`` items: a binary family pool (:func:`ensel.pools.family_pool`) and a
    four-option one (:func:`ensel.pools.multiclass_pool`, wrong answers shared with
    probability 0.3); and the real sources missing here."""
    from ensel.book.large_pools import available
    from ensel.book.profiles import names
    from ensel.data import OptionMatrix, answer_matrix, to_wide
    from ensel.datasets import load
    from ensel.pools import family_pool, multiclass_pool

    have, missing = available(names("real") if real_sources is None else real_sources)
    out = []
    for name in have:
        if name == "llmbar":
            X, y = to_wide(load(name), "original-order", validate=False, sort=True)
            out.append(Source(name, X, y.to_numpy().astype(np.int64), "real"))
        else:
            om = answer_matrix(load(name, view="native"), validate=False, sort=True)
            out.append(_option_source(name, om, "real"))
    fam = family_pool(pool_models, pool_items, family_size=5, random_state=seed)
    ids = pd.Index([f"q{i:05d}" for i in range(pool_items)], name="item")
    cols = pd.Index([f"m{j:02d}" for j in range(pool_models)], name="model")
    out.append(Source(f"binary pool of {pool_models}",
                      pd.DataFrame(fam.X, index=ids, columns=cols), fam.y.astype(np.int64),
                      "seeded"))
    mc = multiclass_pool(pool_models, pool_items, n_options=4, share=0.3, family_size=5,
                         random_state=seed + 1)
    om = OptionMatrix(mc.A.astype(np.int16), mc.y.astype(np.int16),
                      [("A", "B", "C", "D")] * pool_items, list(ids), list(cols))
    out.append(_option_source(f"4-option pool of {pool_models}", om, "seeded"))
    return out, missing


def _hashed_order(ids: Sequence[Any], seed: int, repeat: int) -> np.ndarray:
    """A seeded random order of ``ids`` that depends on the ids, not on their positions."""
    keys = np.array([f"{seed}/{repeat}/{i}" for i in ids], dtype=object)
    return np.argsort(pd.util.hash_array(keys, categorize=False), kind="stable")


def _split(src: Source, repeat: int, pool_items: int, seed: int) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """Labelling pool and held-out rows of one repeat (the pool: at most ``pool_items``
    items and at most 60 % of them), each ordered by item id."""
    from ensel.experiment import split_indices

    items = np.asarray(src.items).astype(str)
    n = len(items)
    n_pool = min(pool_items, int(round(0.6 * n)))
    pool, test = split_indices(n, condition=src.name, split=repeat, seed=seed,
                               test_fraction=1.0 - n_pool / n, item_ids=items)
    # by item id: the library's draws follow the rows, so the page fixes their order
    return (pool[np.argsort(items[pool], kind="stable")],
            test[np.argsort(items[test], kind="stable")])


def _hidden(src: Source, pool: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """The pool's gold with only the positions ``labelled`` (into ``pool``) revealed."""
    g = np.full(pool.size, 0 if src.binary else -1, dtype=np.int64)
    g[labelled] = src.gold[pool[labelled]]
    return g


def _paths(src: Source, pool: np.ndarray, *, grid: Sequence[int], repeat: int, k: Any,
           n_draws: int, max_batch: int, seed: int) -> dict[str, np.ndarray]:
    """Per strategy, the pool positions in the order their gold is revealed (``max(grid)``
    of them)."""
    from ensel.fewlabels import label_next

    top = max(grid)
    items = src.items
    ids = [items[j] for j in pool]
    where = {name: i for i, name in enumerate(ids)}
    rand = _hashed_order(ids, seed, repeat)[:top]
    ans, _ = src.part(pool, _hidden(src, pool, np.array([], dtype=np.int64)))
    first = label_next(ans, _hidden(src, pool, np.array([], dtype=np.int64)), top,
                       strategy="disagreement", seed=seed)
    out = {"random": rand,
           "disagreement": np.array([where[i] for i in first["item"]], dtype=np.int64)}
    got = list(rand[:min(FIRST_RANDOM, top)])
    stops = sorted({n for n in grid if n > len(got)})
    for stop in stops:
        while len(got) < stop:
            n = min(max_batch, stop - len(got))
            part, y = src.part(pool, _hidden(src, pool, np.asarray(got)))
            nxt = label_next(part, y, n, k=k, strategy="decisive", n_draws=n_draws,
                             seed=seed + repeat)
            got += [where[i] for i in nxt["item"]]
    out["decisive"] = np.asarray(got, dtype=np.int64)
    return out


def _baselines(src: Source, pool: np.ndarray, test: np.ndarray, labelled: np.ndarray,
               seed: int) -> dict[str, float]:
    """Held-out errors of the best single model by the revealed labels and of Dawid-Skene
    anchored by them (``labelled``: positions into ``pool``)."""
    from ensel.aggregate import DawidSkene, PluralityVote, heldout_error

    A, g = src.codes()
    Ap, At, gt = A[pool], A[test], g[test]
    if labelled.size:
        right = (Ap[labelled] == g[pool][labelled, None]).sum(axis=0)
    else:  # no gold: agreement with the plurality vote of every model
        vote = PluralityVote().fit(Ap).predict(Ap)
        right = (Ap == vote[:, None]).sum(axis=0)
    j = int(np.argmax(right))  # ties: the first model by name
    single = PluralityVote().fit(Ap[:, [j]], None)
    y = np.full(pool.size, -1, dtype=np.int64)
    y[labelled] = g[pool][labelled]
    ds = DawidSkene(random_state=seed).fit(Ap, y if labelled.size else None)
    return {"single": heldout_error(single, At[:, [j]], gt), "ds": heldout_error(ds, At, gt)}


def _few(src: Source, pool: np.ndarray, test: tuple[Any, Any], labelled: np.ndarray, *,
         k: Any, n_draws: int, seed: int) -> dict[str, Any]:
    """The few-label choice with the labels ``labelled``: its held-out error (``test``: the
    held-out part, :meth:`Source.part`) and what it states about itself."""
    from ensel.fewlabels import choose_with_labels

    ans, y = src.part(pool, _hidden(src, pool, labelled))
    c = choose_with_labels(ans, y, k=k, n_draws=n_draws, seed=seed)
    held, gold = test
    held_low, held_high = c.interval_on(len(held.index if src.binary else held.items))
    return {"error": c.heldout_error(held, gold), "stated": c.error, "low": c.interval[0],
            "high": c.interval[1], "held_low": held_low, "held_high": held_high,
            "decided": c.decided, "k": c.k,
            "labels_needed": np.nan if c.labels_needed is None else c.labels_needed}


def run_source(src: Source, *, grid: Sequence[int] = GRID, n_repeats: int = 5,
               pool_items: int = 2000, k: Any = "auto", n_draws: int = 200,
               max_batch: int = 50, seed: int = 0) -> pd.DataFrame:
    """The page's experiment on one data set (see the module text): one row per (repeat,
    strategy, N, arm) with the held-out ``error``; the few-label rows add the choice's
    ``stated`` error, its interval ``low``-``high``, ``decided``, ``k`` and
    ``labels_needed``. The full-label choice and the plurality vote get one row per repeat
    (strategy ``"-"``, N the pool size and 0)."""
    from ensel.aggregate import PluralityVote, heldout_error

    A, g = src.codes()
    rows: list[dict[str, Any]] = []
    for r in range(n_repeats):
        pool, test = _split(src, r, pool_items, seed)
        grid_r = [n for n in grid if n < pool.size]
        s = seed + r
        held = src.part(test)
        full = _few(src, pool, held, np.arange(pool.size), k=k, n_draws=n_draws, seed=s)
        vote = heldout_error(PluralityVote().fit(A[pool]), A[test], g[test])
        base = {"repeat": r, "n_pool": pool.size, "n_test": test.size}
        rows += [base | {"strategy": "-", "n_labels": pool.size, "arm": "full"} | full,
                 base | {"strategy": "-", "n_labels": 0, "arm": "vote", "error": vote}]
        paths = _paths(src, pool, grid=grid_r, repeat=r, k=k, n_draws=n_draws,
                       max_batch=max_batch, seed=seed)
        done: dict[tuple[int, ...], list[dict[str, Any]]] = {}
        for strategy in STRATEGIES:
            for n in grid_r:
                lab = np.sort(paths[strategy][:n])
                key = tuple(lab.tolist())
                if key not in done:  # the same labels (N = 0; decisive's first ones)
                    arms = {a: {"error": e} for a, e in
                            _baselines(src, pool, test, lab, s).items()}
                    if n:
                        arms["few"] = _few(src, pool, held, lab, k=k, n_draws=n_draws,
                                           seed=s)
                    done[key] = [{"arm": a} | v for a, v in arms.items()]
                rows += [base | {"strategy": strategy, "n_labels": n} | v for v in done[key]]
    out = pd.DataFrame(rows)
    out.insert(0, "data", src.name)
    return out


def run_all(sources: Sequence[Source], **options: Any) -> pd.DataFrame:
    """:func:`run_source` on every source, one table."""
    return pd.concat([run_source(s, **options) for s in sources], ignore_index=True)


def _mean_interval(values: Any, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean over the repeats and its Student-t interval (the repeats' labelling pools are
    fresh draws of the items, so their results are treated as independent)."""
    from scipy.stats import t as student

    v = np.asarray(values, dtype=float)
    m = float(v.mean())
    if v.size < 2:
        return m, np.nan, np.nan
    h = float(student.ppf((1 + confidence) / 2, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))
    return m, m - h, m + h


def curve_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean held-out error of every arm with its 95 % interval over the repeats, per data
    set, strategy and ``N`` (the full-label choice and the vote: strategy ``"-"``)."""
    rows = []
    for key, g in results.groupby(["data", "strategy", "n_labels", "arm"], sort=False):
        m, lo, hi = _mean_interval(g["error"])
        rows.append(dict(zip(["data", "strategy", "n_labels", "arm"], key, strict=True))
                    | {"error": m, "low": lo, "high": hi, "repeats": len(g)})
    return pd.DataFrame(rows)


def _paired(results: pd.DataFrame, data: str, strategy: str, arm: str,
            other: pd.Series, tolerance: float = 0.0) -> pd.DataFrame:
    """Per ``N``: the mean of ``arm``'s error minus ``other`` (indexed by repeat), with its
    interval and the verdict on the difference less ``tolerance`` (``contradicted``: above
    the tolerance beyond noise)."""
    from ensel.stats import verdict

    r = results[(results["data"] == data) & (results["strategy"] == strategy)
                & (results["arm"] == arm)]
    rows = []
    for n, g in r.groupby("n_labels"):
        d = g.set_index("repeat")["error"] - other.reindex(g["repeat"]).to_numpy()
        m, lo, hi = _mean_interval(d)
        rows.append({"n_labels": int(n), "difference": m, "low": lo, "high": hi,
                     "verdict": verdict(lo - tolerance, hi - tolerance)
                     if np.isfinite(lo) else "-"})
    return pd.DataFrame(rows)


def _reached(diff: pd.DataFrame) -> int | None:
    """The smallest ``N`` from which on the difference is never above 0 beyond noise."""
    from ensel.stats import CONTRADICTED

    bad = diff["verdict"].to_numpy() == CONTRADICTED
    if bad[-1]:
        return None
    later = np.flatnonzero(bad)
    return int(diff["n_labels"].iloc[later[-1] + 1 if later.size else 0])


def reach_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per data set and strategy: the first ``N`` from which the few-label choice is within
    noise of the full-label choice (its paired excess error never above the library's
    tolerance of equivalent choices, :data:`ensel.fewlabels.TOLERANCE`, beyond noise at
    that ``N`` and every larger one; ``None``: not by the largest ``N``), and the excess
    error there with its interval."""
    from ensel.fewlabels import TOLERANCE

    rows = []
    for data in results["data"].unique():
        full = results[(results["data"] == data) & (results["arm"] == "full")]
        base = full.set_index("repeat")["error"]
        for s in STRATEGIES:
            d = _paired(results, data, s, "few", base, TOLERANCE)
            if d.empty:
                continue
            n = _reached(d)
            at = d[d["n_labels"] == n].iloc[0] if n is not None else None
            rows.append({"data": data, "strategy": s, "N within noise": n,
                         "excess error there": "-" if at is None else
                         f"{at['difference']:+.3f} [{at['low']:+.3f}, {at['high']:+.3f}]"})
    return pd.DataFrame(rows)


def versus_random(results: pd.DataFrame) -> pd.DataFrame:
    """Per data set: the ``N`` each label order needs to be within noise of the full-label
    choice (:func:`reach_table`; ``"not by <largest N>"`` when it never is), and whether
    ``decisive`` needs fewer labels than ``random`` (``fewer``, ``as many``, ``more``, or
    ``neither reaches``)."""
    reach = reach_table(results)
    top = int(results.loc[results["arm"] == "few", "n_labels"].max())
    rows = []
    for data in dict.fromkeys(reach["data"]):
        r = reach[reach["data"] == data].set_index("strategy")["N within noise"]
        n = {s: (np.inf if pd.isna(r.get(s)) else float(r[s])) for s in STRATEGIES}
        a, b = n["decisive"], n["random"]
        verdict = ("neither reaches" if a == b == np.inf else "fewer" if a < b
                   else "as many" if a == b else "more")
        rows.append({"data": data} | {s: f"not by {top}" if v == np.inf else str(int(v))
                                      for s, v in n.items()}
                    | {"decisive vs random": verdict})
    return pd.DataFrame(rows).set_index("data")


def _against_nominal(k: int, n: int, level: float) -> str:
    """``below``/``at``/``above``: where ``level`` lies against the 95 % Clopper-Pearson
    interval of ``k`` covered of ``n``."""
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(0.95)
    return "at" if ci.low <= level <= ci.high else "below" if ci.high < level else "above"


def _coverage_cell(hit: pd.Series, level: float) -> str:
    n, k = int(hit.size), int(hit.sum())
    if n == 0:
        return "-"
    where = _against_nominal(k, n, level)
    return f"{k / n:.2f} of {n}" + ("" if where == "at" else f" ({where})")


def calibration_table(results: pd.DataFrame) -> pd.DataFrame:
    """Share of the few-label choices whose stated interval contains their held-out error,
    per data set (and all together) and label order; ``(below)``/``(above)``: the nominal
    rate (:data:`ensel.fewlabels.INTERVAL_LEVEL`) is outside the share's 95 %
    Clopper-Pearson interval."""
    from ensel.fewlabels import INTERVAL_LEVEL

    f = results[results["arm"] == "few"].copy()
    f["covered"] = _covered(f)
    order = list(dict.fromkeys(f["data"]))
    out = {s: {d: _coverage_cell(f[(f["data"] == d) & (f["strategy"] == s)]["covered"],
                                 INTERVAL_LEVEL) for d in order}
           | {"all data": _coverage_cell(f[f["strategy"] == s]["covered"], INTERVAL_LEVEL)}
           for s in STRATEGIES}
    t = pd.DataFrame(out)
    held = f.groupby("data")["n_test"].median() if "n_test" in f else pd.Series(dtype=float)
    t["held-out items"] = [f"{int(held[d]):,}" if d in held.index else "" for d in t.index]
    return t


def coverage_verdict(results: pd.DataFrame, strategy: str | None = None) -> str:
    """``below``, ``at`` or ``above`` the nominal rate: the few-label intervals' coverage
    (:func:`coverage`) against :data:`ensel.fewlabels.INTERVAL_LEVEL`."""
    from ensel.fewlabels import INTERVAL_LEVEL

    share, n = coverage(results, strategy)
    return _against_nominal(int(round(share * n)), n, INTERVAL_LEVEL)


def coverage(results: pd.DataFrame, strategy: str | None = None) -> tuple[float, int]:
    """Share of few-label intervals (of one strategy, or all) that contain the held-out
    error, and how many there are."""
    f = results[(results["arm"] == "few")
                & ((results["strategy"] == strategy) if strategy else True)]
    hit = _covered(f)
    return float(hit.mean()), int(hit.size)


def _covered(few: pd.DataFrame) -> pd.Series:
    """Whether each few-label row's held-out error lies in the interval stated for an
    error measured on that many held-out items (``held_low``-``held_high``,
    :meth:`ensel.fewlabels.FewLabelChoice.interval_on`; ``low``-``high`` without them)."""
    lo, hi = ("held_low", "held_high") if "held_low" in few else ("low", "high")
    return (few[lo] <= few["error"]) & (few["error"] <= few[hi])


_STYLE = {"few": ("C0", "o-"), "single": ("C2", "s--"), "ds": ("C3", "^:")}


def plot_curves(results: pd.DataFrame, strategy: str = "random") -> Any:
    """One panel per data set: held-out error against ``N`` (labels revealed in the order
    ``strategy``, and the few-label choice of the other orders thin), with 95 % intervals;
    the full-label choice as a band, the plurality vote as a grey line."""
    from ensel.book.figures import small_multiples

    curves = curve_table(results)
    pos = {n: i for i, n in enumerate(sorted(results["n_labels"][
        results["strategy"] != "-"].unique()))}

    def draw(ax: Any, name: str) -> None:
        c = curves[curves["data"] == name]
        for arm in ("full", "vote"):
            r = c[c["arm"] == arm].iloc[0]
            if arm == "full":
                ax.axhspan(r["low"], r["high"], color="0.85", label=ARMS[arm])
            else:
                ax.axhline(r["error"], color="0.4", lw=0.8, label=ARMS[arm])
        for arm, (col, ls) in _STYLE.items():
            g = c[(c["arm"] == arm) & (c["strategy"] == strategy)]
            x = g["n_labels"].map(pos)
            ax.errorbar(x, g["error"], yerr=[g["error"] - g["low"], g["high"] - g["error"]],
                        fmt=ls, color=col, ms=3, lw=1, capsize=2,
                        label=f"{ARMS[arm]}, {strategy}" if arm == "few" else ARMS[arm])
        for s, col in zip([s for s in STRATEGIES if s != strategy], ["C1", "C4"],
                          strict=False):
            g = c[(c["arm"] == "few") & (c["strategy"] == s)]
            ax.plot(g["n_labels"].map(pos), g["error"], "o-", color=col, ms=2, lw=0.7,
                    label=f"{ARMS['few']}, {s}")
        ax.set_xticks(list(pos.values()), [str(n) for n in pos])
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("gold labels N")

    names = list(dict.fromkeys(results["data"]))
    fig = small_multiples(names, draw, max_cols=3, panel=(3.3, 2.5), ylabel="held-out error")
    axes = fig.axes
    handles, labels = axes[0].get_legend_handles_labels()
    axes[0].get_legend().remove()
    if len(axes) > len(names):  # an empty panel: the legend goes there
        axes[len(names)].legend(handles, labels, loc="center", fontsize=7, frameon=False)
    else:
        fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False)
        fig.subplots_adjust(bottom=0.32)
    return fig
