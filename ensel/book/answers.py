"""Computations of the page "Beyond the paper: answers as they are".

Every data set of the page is held in two views of the same raw answers (:class:`Views`):

* **native** -- the option each model chose (:func:`ensel.data.answer_matrix`: codes of the
  item's options, ``-1`` for no answer) and the gold option;
* **binary** -- the paper's queries "is the answer <option>?" (the gold option and one
  seeded wrong option per question, :func:`ensel.datasets.binary.to_binary_view`), held as
  options too: two options, ``0`` = "no" and ``1`` = "yes". On two options the multiple-choice
  selectors pick what the paper's binary selectors pick (the page checks it) and plurality
  is majority vote, so one set of estimators serves both views and the view is the only
  difference. LLMBar is binary by nature: its binary view is its own loader's.

:func:`view_errors` runs :func:`ensel.experiment.heldout_errors` on both views with the same
splits of the *questions* (a binary query is split with its question: ``item_ids`` are the
question names), fitting the aggregators on gold and, for the label-free ones, without it.
:func:`claim_table` gives the paired differences "selector minus Top-k" with their
overlap-corrected intervals (:func:`ensel.experiment.paired_differences`) per view;
:func:`aggregator_table` the held-out error of every aggregator on one selection;
:func:`crowdkit_table` ensel's Dawid-Skene against crowd-kit's on the same answers.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ensel.aggregate import MULTICLASS_SPECS as AGGREGATOR_SPECS
from ensel.data import OptionMatrix, answer_matrix, conditions, to_wide
from ensel.datasets.binary import option_label, to_binary_view

__all__ = [
    "EM_ITER",
    "NOISE_SE",
    "NOISE_SLACK",
    "GOLD_AGGREGATORS",
    "LABEL_FREE",
    "RUNS",
    "SELECTORS",
    "VIEW_NAMES",
    "Views",
    "aggregator_labels",
    "aggregator_table",
    "claim_cells",
    "claim_table",
    "crowdkit_table",
    "interval_cells",
    "label_free_table",
    "llmbar_majority",
    "page_views",
    "paper_picks_agree",
    "pool_table",
    "same_questions",
    "split_overlap",
    "view_errors",
    "view_sizes",
    "views",
]

#: The two views, in display order.
VIEW_NAMES: tuple[str, ...] = ("native", "binary")
#: Top-k, the paper's Greedy MI and ensel's large-pool selector (their K-ary forms).
SELECTORS: tuple[str, ...] = ("topk", "greedy_mi", "score_mi")
#: Aggregators fitted on the training gold.
GOLD_AGGREGATORS: tuple[str, ...] = ("plurality", "wplurality", "pattern", "ds")
#: Aggregators fitted without any gold (suffix ``FREE`` in the ``aggregator`` column).
LABEL_FREE: tuple[str, ...] = ("ds", "family_ds")
#: Suffix of a label-free fit in :func:`view_errors`' ``aggregator`` column.
FREE = ":free"
#: Most EM iterations of both Dawid-Skene fits in :func:`crowdkit_table`.
EM_ITER = 100
#: ensel's and crowd-kit's errors are "within noise" when they differ by at most this many
#: standard errors of the paired difference plus :data:`NOISE_SLACK` (the two stop EM by
#: different rules; ``benchmarks/bench_dawid_skene.py`` uses the same bound).
NOISE_SE = 3
NOISE_SLACK = 0.002


def aggregator_labels() -> dict[str, str]:
    """Column names of :func:`aggregator_table`, by the ``aggregator`` of
    :func:`view_errors`, in display order: the labels of the one registry
    (:data:`ensel.aggregate.MULTICLASS_SPECS`), ", no gold" added to a label-free fit's."""
    specs = AGGREGATOR_SPECS
    return {**{name: specs[name].label for name in GOLD_AGGREGATORS},
            **{name + FREE: f"{specs[name].label}, no gold" for name in LABEL_FREE}}


@dataclass(frozen=True)
class Views:
    """One data set in both views, one :class:`ensel.data.OptionMatrix` per condition.

    ``questions[c][i]`` is the native item that binary row ``i`` of condition ``c`` asks
    about (its split key); ``synthetic`` says whether the answers were simulated and
    ``source`` names the dataset they came from (``""`` for a pool).
    """

    native: tuple[OptionMatrix, ...]
    binary: tuple[OptionMatrix, ...]
    questions: tuple[np.ndarray, ...]
    synthetic: bool = False
    source: str = ""

    @property
    def n_models(self) -> int:
        """Models of the data set."""
        return int(self.native[0].A.shape[1])


def pool_table(m: int, n: int, share: float, *, n_options: int = 4, family_size: int = 5,
               seed: int = 0) -> pd.DataFrame:
    """The native tidy table of a seeded multiple-choice pool (:func:`ensel.pools.multiclass_pool`).

    Items ``pool/<i>``, models ``model <j>``, options ``A..``, one condition ``pool``; every
    item has gold.
    """
    from ensel.pools import multiclass_pool

    p = multiclass_pool(m, n, n_options=n_options, share=share, family_size=family_size,
                        random_state=seed)
    letters = np.array([option_label(i) for i in range(n_options)] + [""], dtype=object)
    items = np.array([f"pool/{i}" for i in range(n)], dtype=object)
    return pd.DataFrame({
        "item": np.repeat(items, m),
        "model": np.tile(np.array([f"model {j}" for j in range(m)], dtype=object), n),
        "condition": "pool",
        "answer": letters[p.A.reshape(-1)],  # -1 (no answer) is the last entry, blank
        "label": np.repeat(letters[p.y.astype(np.int64)], m),
        "options": "|".join(letters[:-1]),
    })


def _binary_matrix(df: pd.DataFrame, condition: Any, *, converted: bool
                   ) -> tuple[OptionMatrix, np.ndarray]:
    """The binary answers of one condition as two options (``0`` no, ``1`` yes, ``-1`` no
    answer), and the question of each query (``<item>:<option>`` -> ``<item>`` when the
    queries were converted from a native table)."""
    X, y = to_wide(df, condition, validate=False, sort=True)
    x = X.to_numpy()
    A = np.where(x == 0, -1, (x > 0).astype(np.int16)).astype(np.int16)
    gold = (y.to_numpy() > 0).astype(np.int16)
    items = [str(i) for i in X.index]
    questions = np.array([i.rsplit(":", 1)[0] if converted else i for i in items], dtype=object)
    return (OptionMatrix(A, gold, [("no", "yes")] * len(items), items, list(X.columns),
                         condition), questions)


def views(native: pd.DataFrame, binary: pd.DataFrame | None = None, *, seed: int = 0,
          synthetic: bool = False, source: str = "") -> Views:
    """Both views of a native tidy table; the binary one is the paper's conversion of it
    (:func:`ensel.datasets.binary.to_binary_view`, seed ``seed``) unless given (a source that
    is binary by nature: its own binary table, one query per item)."""
    conds = conditions(native)
    nat = tuple(answer_matrix(native, c, sort=True) for c in conds)  # whatever the row order
    converted = binary is None
    bin_df = to_binary_view(native, seed=seed) if binary is None else binary
    pairs = [_binary_matrix(bin_df, c, converted=converted) for c in conds]
    return Views(nat, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), synthetic,
                 source)


def page_views(real_sources: Sequence[str] | None, shares: Sequence[float], *,
               pool_models: int, pool_items: int, family_size: int = 5, seed: int = 0
               ) -> tuple[dict[str, Views], list[str]]:
    """The page's data sets, keyed by display name: the real sources available here
    (``None``: every real source of the book; their labels, e.g. ``MMLU-Pro``) and one seeded
    pool per share of wrong answers on the item's distractor (``pool, share 0.5``); and the
    missing real sources."""
    from ensel.book.large_pools import available
    from ensel.book.profiles import names, profile
    from ensel.datasets import load

    have, missing = available(names("real") if real_sources is None else real_sources)
    data: dict[str, Views] = {}
    for name in have:
        native = load(name, view="native")
        two = native["options"].astype(str).str.count(r"\|").max() == 1  # binary by nature
        binary = load(name) if two else None
        data[str(profile(name)["label"])] = views(native, binary, seed=seed, source=name)
    for share in shares:
        table = pool_table(pool_models, pool_items, share, family_size=family_size,
                           seed=seed)
        data[f"pool, share {share:g}"] = views(table, seed=seed, synthetic=True)
    return data, missing


#: What :func:`view_errors` runs: (selectors, aggregators, fitted without gold). The claim
#: compares the selectors under pattern MAP; the aggregators are compared on ensel's selection.
RUNS: tuple[tuple[tuple[str, ...], tuple[str, ...], bool], ...] = (
    (("topk", "greedy_mi"), ("pattern",), False),
    (("score_mi",), GOLD_AGGREGATORS, False),
    (("score_mi",), LABEL_FREE, True),
)


def _one_view(mats: Sequence[OptionMatrix], questions: Sequence[Any] | None, *,
              ks: list[int], n_splits: int, seed: int) -> pd.DataFrame:
    """:func:`ensel.experiment.heldout_errors` on every condition of one view, for each of
    :data:`RUNS` (a label-free aggregator's name gets the suffix :data:`FREE`)."""
    from ensel.experiment import heldout_errors
    from ensel.protocol import Protocol

    protocol = Protocol(n_splits=n_splits, seed=seed)
    parts = []
    for c, mat in enumerate(mats):
        ids = None if questions is None else questions[c]
        for selectors, aggregators, free in RUNS:
            e = heldout_errors(mat, ks=ks, protocol=protocol, condition=mat.condition,
                               selectors=selectors, aggregators=aggregators, item_ids=ids,
                               label_free=free)
            if free:
                e["aggregator"] = e["aggregator"] + FREE
            parts.append(e.assign(condition=mat.condition))
    return pd.concat(parts, ignore_index=True)


def view_errors(data: dict[str, Views], *, ks: Sequence[int], n_splits: int,
                seed: int = 0) -> pd.DataFrame:
    """Held-out errors of every (selector, aggregator, k) on both views of every data set,
    at the budgets ``<= m``, on the same seeded splits of the questions.

    Returns
    -------
    pandas.DataFrame
        :func:`ensel.experiment.heldout_errors`' columns and ``data, view, condition``.
    """
    out = []
    for name, v in data.items():
        kk = sorted(k for k in set(ks) if k <= v.n_models)
        for view, mats, qs in (("native", v.native, None), ("binary", v.binary, v.questions)):
            e = _one_view(mats, qs, ks=kk, n_splits=n_splits, seed=seed)
            out.append(e.assign(data=name, view=view))
    return pd.concat(out, ignore_index=True)


def claim_table(errors: pd.DataFrame, *, aggregator: str = "pattern",
                against: str = "topk") -> pd.DataFrame:
    """"Don't pick the top-k" per data set, view and budget: each selector's error minus
    Top-k's (both aggregated by ``aggregator``), paired on the same (condition, split), with
    the overlap-corrected interval and verdict of :func:`ensel.experiment.paired_differences`
    (``holds``: the selector errs less beyond the noise).

    Returns
    -------
    pandas.DataFrame
        Columns ``data, view, selector, k, mean_diff, ci_low, ci_high, n, verdict``.
    """
    from ensel.experiment import paired_differences

    rows = []
    for (name, view), e in errors.groupby(["data", "view"], sort=False):
        for sel in SELECTORS:
            if sel == against:
                continue
            d = paired_differences(e, sel, against, aggregator, n_boot=0)
            rows.append(d[["k", "mean_diff", "ci_low", "ci_high", "n", "verdict"]]
                        .assign(data=name, view=view, selector=sel))
    cols = ["data", "view", "selector", "k", "mean_diff", "ci_low", "ci_high", "n", "verdict"]
    return pd.concat(rows, ignore_index=True)[cols]


def interval_cells(table: pd.DataFrame, *, index: list[str], columns: list[str]
                   ) -> pd.DataFrame:
    """Paired differences as compact cells ``"-0.012 ± 0.006 better"`` (the interval's centre
    and half-width; ``better`` / ``≈`` / ``WORSE`` beyond the noise), one per ``index`` x
    ``columns``, rows and columns in order of appearance."""
    from ensel.stats import CONTRADICTED, HOLDS

    mark = {HOLDS: "better", CONTRADICTED: "WORSE"}
    half = (table["ci_high"] - table["ci_low"]) / 2
    text = [f"{m:+.3f} ± {h:.3f} {mark.get(v, '≈')}"
            for m, h, v in zip(table["mean_diff"] + 0.0, half, table["verdict"], strict=True)]
    wide = table.assign(cell=text).pivot(index=index, columns=columns, values="cell")
    rows = list(dict.fromkeys(map(tuple, table[index].to_numpy().tolist())))
    cols = list(dict.fromkeys(map(tuple, table[columns].to_numpy().tolist())))
    if len(index) == 1:
        rows = [r[0] for r in rows]
    if len(columns) == 1:
        cols = [c[0] for c in cols]
    return wide.reindex(index=rows, columns=cols)


def claim_cells(claims: pd.DataFrame) -> pd.DataFrame:
    """:func:`claim_table` as one cell per (data, k) x (view, "<selector> − Top-k")
    (:func:`interval_cells`)."""
    from ensel.select import MULTICLASS_SPECS

    arm = claims["selector"].map(lambda s: f"{MULTICLASS_SPECS[s].label} − Top-k")
    return interval_cells(claims.assign(arm=arm), index=["data", "k"],
                          columns=["view", "arm"])


def view_sizes(data: dict[str, Views]) -> pd.DataFrame:
    """Per data set: models, conditions, questions (native items) and binary queries (all
    conditions), and the fewest and most options of a question."""
    rows = []
    for name, v in data.items():
        k = np.concatenate([m.n_options for m in v.native])
        rows.append((name, v.n_models, len(v.native), sum(len(m.items) for m in v.native),
                     sum(len(m.items) for m in v.binary),
                     f"{k.min()}" if k.min() == k.max() else f"{k.min()}-{k.max()}"))
    return pd.DataFrame(rows, columns=["data", "models", "conditions", "questions",
                                       "binary queries", "options"]).set_index("data")


def aggregator_table(errors: pd.DataFrame, *, selector: str = "score_mi",
                     k: int = 5) -> pd.DataFrame:
    """Mean held-out error of every aggregator on ``selector``'s first ``min(k, m)`` picks,
    per data set and view (columns :func:`aggregator_labels`; a label-free one was fitted
    without gold)."""
    labels = aggregator_labels()
    e = errors[errors["selector"] == selector]
    kmax = e.groupby("data", sort=False)["k"].transform(lambda s: min(k, int(s.max())))
    e = e[e["k"] == kmax]
    t = (e.groupby(["data", "view", "aggregator"], sort=False)["error"].mean()
         .unstack("aggregator").rename(columns=labels))
    return t[[c for c in labels.values() if c in t.columns]]


def label_free_table(errors: pd.DataFrame, *, selector: str = "score_mi",
                     k: int = 5) -> pd.DataFrame:
    """Label-free aggregation against the gold-fitted one on ``selector``'s first ``min(k,
    m)`` picks: paired differences (same condition and split) of DS and family DS without
    gold minus DS and pattern MAP with gold, per data set and view.

    Returns
    -------
    pandas.DataFrame
        Columns ``data, view, k, free, fitted, contrast, mean_diff, ci_low, ci_high,
        verdict`` (``contrast``: "<free> − <fitted>"; ``holds``: the label-free fit errs less
        beyond the noise).
    """
    from ensel.experiment import paired_differences

    labels, rows = aggregator_labels(), []
    for (name, view), e in errors[errors["selector"] == selector].groupby(
            ["data", "view"], sort=False):
        kk = min(k, int(e["k"].max()))
        for free in LABEL_FREE:
            for fitted in ("ds", "pattern"):
                d = paired_differences(e, selector, selector, free + FREE, aggregator_b=fitted,
                                       n_boot=0)
                r = d[d["k"] == kk].iloc[0]
                rows.append((name, view, kk, labels[free + FREE], labels[fitted],
                             float(r["mean_diff"]),
                             float(r["ci_low"]), float(r["ci_high"]), str(r["verdict"])))
    t = pd.DataFrame(rows, columns=["data", "view", "k", "free", "fitted", "mean_diff",
                                    "ci_low", "ci_high", "verdict"])
    t.insert(5, "contrast", t["free"] + " − " + t["fitted"])
    return t


def _stacked(mats: Sequence[OptionMatrix]) -> tuple[np.ndarray, np.ndarray]:
    """The answers and gold of every condition, one below the other (the same models)."""
    return (np.vstack([m.A for m in mats]).astype(np.int64),
            np.concatenate([m.gold for m in mats]).astype(np.int64))


def _crowdkit_labels(A: np.ndarray) -> tuple[np.ndarray, float]:
    """crowd-kit's ``DawidSkene(n_iter=EM_ITER)`` on the answers (long format), without labels:
    the option code of each item (``-1`` where nobody answered) and the fit's seconds. Its
    warnings (pandas deprecations, tqdm's notebook widgets) are silenced here only: a
    reference's, not ensel's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from crowdkit.aggregation import DawidSkene as CrowdKitDS

        task, worker = np.nonzero(A >= 0)
        long = pd.DataFrame({"task": task, "worker": worker, "label": A[task, worker]})
        t0 = time.perf_counter()
        labels = CrowdKitDS(n_iter=EM_ITER).fit_predict(long)
        seconds = time.perf_counter() - t0
    out = np.full(A.shape[0], -1, dtype=np.int64)
    out[labels.index.to_numpy(dtype=np.int64)] = labels.to_numpy(dtype=np.int64)
    return out, seconds


def crowdkit_table(data: dict[str, Views]) -> pd.DataFrame:
    """ensel's :class:`~ensel.aggregate.DawidSkene` against crowd-kit's on the same native
    answers of each data set (every model, every item, the conditions stacked), both without
    labels, both full confusion matrices from the plurality vote, at most :data:`EM_ITER` EM
    iterations.

    Returns
    -------
    pandas.DataFrame
        Index ``data``; columns ``ensel, crowd-kit`` (errors against gold),
        ``difference`` (ensel minus crowd-kit), ``se`` (its standard error over items),
        ``agree`` (share of items given the same option), ``ensel s, crowd-kit s`` (wall time
        of each fit; machine-dependent).
    """
    from ensel.aggregate import DawidSkene

    rows = []
    for name, v in data.items():
        A, y = _stacked(v.native)
        t0 = time.perf_counter()
        ours = DawidSkene(max_iter=EM_ITER).fit(A).labels_.astype(np.int64)
        t_ours = time.perf_counter() - t0
        theirs, t_theirs = _crowdkit_labels(A)
        d = (ours != y).astype(float) - (theirs != y).astype(float)
        rows.append((name, float((ours != y).mean()), float((theirs != y).mean()),
                     float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size)),
                     float((ours == theirs).mean()), t_ours, t_theirs))
    return pd.DataFrame(rows, columns=["data", "ensel", "crowd-kit", "difference", "se",
                                       "agree", "ensel s", "crowd-kit s"]).set_index("data")


def same_questions(v: Views) -> bool:
    """Whether, in every condition, the binary queries ask about exactly the native questions
    that have gold (every one of them)."""
    return all({str(i) for i, g in zip(n.items, n.gold.tolist(), strict=True) if g >= 0}
               == {str(q) for q in qs} for n, qs in zip(v.native, v.questions, strict=True))


def split_overlap(v: Views, *, n_splits: int, seed: int = 0) -> pd.DataFrame:
    """Whether the two views are split alike: per condition and split, the native test items
    missing from the binary test questions and the binary test questions beyond the native
    ones (at most the one question at the cut, whose two queries may fall apart)."""
    from ensel.experiment import split_indices

    rows = []
    for nat, qs in zip(v.native, v.questions, strict=True):
        for s in range(n_splits):
            _, te_n = split_indices(len(nat.items), condition=nat.condition, split=s,
                                    seed=seed, item_ids=nat.items)
            _, te_b = split_indices(len(qs), condition=nat.condition, split=s, seed=seed,
                                    item_ids=qs)
            a = {str(nat.items[i]) for i in te_n}
            b = {str(q) for q in qs[te_b]}
            rows.append((nat.condition, s, len(a - b), len(b - a)))
    return pd.DataFrame(rows, columns=["condition", "split", "native_only", "binary_only"])


def paper_picks_agree(v: Views, k: int) -> bool:
    """On the binary view, the two-option Top-k and Greedy MI pick what the paper's binary
    :class:`~ensel.select.TopK` and :class:`~ensel.select.GreedyMI` pick (first condition,
    budget ``min(k, m)``)."""
    from ensel.select import MULTICLASS_SELECTORS
    from ensel.select import SELECTORS as BINARY

    mat = v.binary[0]
    k = min(k, v.n_models)
    X = np.where(mat.A < 0, 0, 2 * mat.A.astype(np.int64) - 1)
    y = 2 * mat.gold.astype(np.int64) - 1
    return all(list(BINARY[s](k).fit(X, y).selected_)
               == list(MULTICLASS_SELECTORS[s](k).fit(mat.A, mat.gold).selected_)
               for s in ("topk", "greedy_mi"))


def llmbar_majority(v: Views) -> dict[str, float]:
    """Why label-free Dawid-Skene errs on LLMBar (as in :func:`crowdkit_table`: every judge,
    the orders stacked, at most :data:`EM_ITER` iterations), checked against the gold: on
    the adversarial items the plurality of judges is wrong, and DS, fitted on agreement
    alone, sides with it and rates the judges that follow it as the accurate ones.

    Returns
    -------
    dict
        ``adversarial`` (share of the items), ``pv_adv`` (plurality vote's error there),
        ``ds_adv`` and ``ds_natural`` (DS's errors), ``agree_pv`` (share of items where DS
        gives plurality's answer), ``below_chance`` (judges right less than half the time
        when answering), ``rank`` (Spearman correlation of DS's estimated accuracy of each
        judge with its accuracy against gold), ``ll_free`` and ``ll_gold`` (log-likelihood
        of the answers per item under the label-free fit's prior and confusions, and under
        those fitted with every gold label: the first higher means the likelihood itself,
        not EM's convergence, prefers following the majority).
    """
    from scipy.special import logsumexp
    from scipy.stats import spearmanr

    from ensel.aggregate import DawidSkene, PluralityVote

    A, y = _stacked(v.native)
    adv = np.concatenate([["/Adversarial/" in str(i) for i in m.items] for m in v.native])
    ds = DawidSkene(max_iter=EM_ITER).fit(A)
    pv = PluralityVote().fit(A).predict(A)  # a tie: the first tied option
    answered = A >= 0
    gold_acc = ((A == y[:, None]) & answered).sum(axis=0) / answered.sum(axis=0)
    ds_acc = (ds.confusions_.diagonal(axis1=1, axis2=2) * ds.prior_).sum(axis=1)
    ll = {}
    for name, fit in (("ll_free", ds), ("ll_gold", DawidSkene(max_iter=EM_ITER).fit(A, y))):
        L = np.log(fit.prior_)[None, :] + sum(
            np.where(answered[:, j, None], np.log(fit.confusions_[j][:, A[:, j]]).T, 0.0)
            for j in range(A.shape[1]))
        ll[name] = float(logsumexp(L, axis=1).mean())
    return {"adversarial": float(adv.mean()),
            "pv_adv": float((pv[adv] != y[adv]).mean()),
            "ds_adv": float((ds.labels_[adv] != y[adv]).mean()),
            "ds_natural": float((ds.labels_[~adv] != y[~adv]).mean()),
            "agree_pv": float((ds.labels_ == pv).mean()),
            "below_chance": int((gold_acc < 0.5).sum()),
            "rank": float(spearmanr(ds_acc, gold_acc).statistic), **ll}

