"""The user's report: which of your models to use, what to buy, and the evidence behind it.

:func:`build_report` runs what ``ensel select`` recommends by default on your answers
(:func:`ensel.evidence.select_evidence` with ``k="auto"``: the default selector and
aggregator, the number of models chosen by nested cross-validation), adds the ensemble of
all your models on the same random splits, a per-model table that keeps abstentions apart
(accuracy, coverage, accuracy when answered) and, given a price per query for each model,
the cost-error frontier of :mod:`ensel.frontier` with the models budgeted selection buys at
each budget. :func:`report_html` renders it as one self-contained offline HTML page
(``ensel._html``, the rendering path ``ensel evaluate`` shares); ``ensel report`` is the
command (``ensel.cli.report``).

A multi-class table (option labels) is read as it is: the K-ary selectors and aggregators
of :func:`ensel.evidence.select_evidence`, a tie among ``t`` options counting ``1 - 1/t``,
the errors measured on the items with gold. The page's first screen says which view it read
(and why a binary one: ``--binary``, or ``--prices``, whose buy list reads the binary view).

Gold with gaps or none (either view, no prices): the report runs the label-free path of
``ensel select`` (:func:`ensel.evidence.select_with_gaps`) itself, never refuses for want
of gold: with some gold the few-label choice of ``-k auto`` with its *estimated* error and
interval (labels used, what the unlabelled items added, whether the labels decide, labels
needed), with none :data:`NO_GOLD_K` models picked by the models' consensus and no error;
one sentence (``select.gold.intervals``) says what that means for the intervals, and the
page gives the ``ensel label-next`` command for the data.

How an abstention and a tie count in the binary view: in a model's *accuracy* an
abstention (answer ``0``) is a wrong answer; *coverage* is the share of items a model
answered and *accuracy when answered* its accuracy on those. Every held-out error (of an
ensemble, and of a single model) is the error of the aggregator's answers, fitted on the
training part: an aggregator answers every item, an abstention being one more value of the
answers it reads (for a single model: the label the training part gives its abstentions)
and a tie broken by its own rule (:mod:`ensel.aggregate`).

The recommendation: the ensemble ``ensel select -k auto`` deploys when it beats the best
single model beyond the noise of the evaluation (or when the cross-validated ``k`` is 1);
otherwise all the models together where they beat the best single model beyond the noise;
otherwise "one model is enough": the best single model, with the ensemble's held-out error
beside it. It is cost-blind: given prices, the report's first line is instead what to buy
(``purchase``): the buy list's choice at its largest budget, the cheapest choice as good as
the most accurate one within it, and the cost-blind recommendation follows as the reference.
The cost-blind recommendation is itself a candidate of the buy list (its held-out errors on
the same splits, its models' price), so the purchase never costs more than it when it is as
good.

JSON (:meth:`UserReport.to_dict`, schema ``ensel.report/1``): ``source``, ``n_items``,
``n_models``, ``conditions``, ``recommendation`` (``models``, ``aggregator``,
``one_model_enough``, ``error``, ``low``, ``high``, ``headline``), ``all_models`` (``error``,
``low``, ``high``, ``vs_best_single``), ``no_model`` (``error``, ``low``, ``high`` of
always answering the training part's majority label), ``models`` (one row per model: ``model``,
``accuracy``, ``coverage``, ``accuracy_answered``, ``rank``, ``usd_per_query``), ``path``
(``k``, ``model``, ``gain_bits``, ``inner_error``, ``inner_se``), ``select`` (the
``ensel.select/1`` document), ``prices``, ``dropped_models``, ``purchase`` (``models``,
``method``, ``cost``, ``cost_low``, ``cost_high``, ``error``, ``low``, ``high``, ``budget``,
``best``, ``as_good``, ``recommendation_cost``, ``headline``), ``buy_list`` and ``frontier``
(the ``ensel.frontier/1`` document), the three ``null`` without prices; ``view_reason``
(why the binary view was read, ``null``: yes/no answers as given). With gold gaps
``all_models`` and ``no_model`` are ``null``, ``recommendation``'s ``error``/``low``/``high``
the few-label estimate (``null`` without gold) and its comparison keys ``null``; the
evidence is ``select.few_labels`` and ``select.gold``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["SCHEMA", "NO_GOLD_K", "UserReport", "build_report", "report_html"]

SCHEMA = "ensel.report/1"


@dataclass(frozen=True)
class UserReport:
    """What :func:`build_report` found (see the module text); its JSON is
    :meth:`UserReport.to_dict`."""

    source: list[str]
    n_items: int
    n_models: int
    conditions: list[str]
    recommendation: dict[str, Any]
    all_models: dict[str, Any] | None
    no_model: dict[str, Any] | None
    models: pd.DataFrame = field(repr=False)
    path: list[dict[str, Any]] = field(repr=False)
    select: dict[str, Any] = field(repr=False)
    prices: str | None = None
    dropped_models: list[str] = field(default_factory=list)
    buy_list: list[dict[str, Any]] | None = field(default=None, repr=False)
    frontier: dict[str, Any] | None = field(default=None, repr=False)
    purchase: dict[str, Any] | None = None
    view_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``ensel.report/1`` document (plain JSON types)."""
        rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v)
                 for k, v in r.items()} for r in self.models.to_dict("records")]
        return {"schema": SCHEMA, "source": self.source, "n_items": self.n_items,
                "n_models": self.n_models, "conditions": self.conditions,
                "recommendation": self.recommendation, "all_models": self.all_models,
                "no_model": self.no_model,
                "models": rows, "path": self.path, "select": self.select,
                "prices": self.prices, "dropped_models": self.dropped_models,
                "purchase": self.purchase, "buy_list": self.buy_list,
                "frontier": self.frontier, "view_reason": self.view_reason}


def _kept(usd: Any, before: list[str], data: Sequence[Any]) -> np.ndarray:
    """The prices of the models kept (those that answered), in the conditions' order."""
    c = np.asarray(usd, dtype=float)
    return c[[before.index(m) for m in data[0].models]]


def _stack(data: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([d.X for d in data]), np.concatenate([d.y for d in data])


def _all_models(data: Sequence[Any], ev: Any, *, seed: int, n_jobs: int | None
                ) -> tuple[dict[str, Any] | None, np.ndarray | None]:
    """Every model aggregated by the recommended aggregator, on the splits of ``ev``, and
    its paired difference to the best single model (Top-k at ``k = m`` and at 1); and its
    errors per evaluation (by condition and split)."""
    from ensel.experiment import evaluate, paired_differences
    from ensel.info import MAX_PATTERN_SIZE
    from ensel.stats import paired_interval

    m = len(data[0].models)
    if data[0].native:  # option codes: only the pattern table codes answer patterns
        K = max(max(len(o) for o in d.options) for d in data)
        radix = K + 1 if ev.aggregator == "pattern" else 1
    else:
        radix = 3 if any((d.X == 0).any() for d in data) else 2
    if m < 2 or float(radix) ** m > MAX_PATTERN_SIZE:  # the aggregators' pattern codes
        return None, None
    e = ev.evaluation
    res = evaluate(list(data), ks=[1, m], n_splits=e["n_splits"], seed=seed,
                   test_fraction=e["test_fraction"], selectors=["topk"],
                   aggregators=[ev.aggregator], n_jobs=n_jobs)
    err = res[res["k"] == m].sort_values(["condition", "split"])["error"].to_numpy(float)
    r = paired_interval(err, n_train=1 - e["test_fraction"], n_test=e["test_fraction"],
                        confidence=e["confidence"])
    d = paired_differences(res, "topk", "topk", ev.aggregator, k_b=1, n_boot=0,
                           confidence=e["confidence"])
    d = d[d["k"] == m].iloc[0]
    return {"k": m, "error": float(r.mean), "low": max(float(r.low), 0.0),
            "high": min(float(r.high), 1.0),
            "vs_best_single": {"difference": float(d["mean_diff"]), "low": float(d["ci_low"]),
                               "high": float(d["ci_high"]), "verdict": str(d["verdict"])}}, err


def _no_model(data: Sequence[Any], ev: Any, *, seed: int) -> dict[str, Any]:
    """The error of asking no model, on the splits of ``ev``: always the majority label of
    the training part (the zero-cost point of :func:`ensel.frontier.frontier_errors`)."""
    from ensel.experiment import split_indices
    from ensel.frontier import _majority_error
    from ensel.stats import paired_interval

    e = ev.evaluation
    err = []
    for d in sorted(data, key=lambda d: d.condition):
        for s in range(e["n_splits"]):
            tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=seed,
                                   test_fraction=e["test_fraction"], item_ids=d.items)
            err.append(_option_majority_error(d, tr, te) if d.native
                       else _majority_error(d.y[tr], d.y[te]))
    r = paired_interval(np.asarray(err), n_train=1 - e["test_fraction"],
                        n_test=e["test_fraction"], confidence=e["confidence"])
    return {"error": float(r.mean), "low": max(float(r.low), 0.0),
            "high": min(float(r.high), 1.0)}


def _option_majority_error(d: Any, tr: np.ndarray, te: np.ndarray) -> float:
    """:func:`_no_model` on option labels: always the gold label most frequent among the
    training items with gold (ties: the first in text order), scored on the test items with
    gold."""
    def labels(rows: np.ndarray) -> np.ndarray:
        rows = rows[d.y[rows] >= 0]
        return np.asarray([d.options[i][d.y[i]] for i in rows.tolist()], dtype=object)

    seen, counts = np.unique(labels(tr).astype(str), return_counts=True)
    test = labels(te).astype(str)
    return float(np.mean(test != seen[int(np.argmax(counts))])) if len(test) else float("nan")


def _path(data: Sequence[Any], ev: Any) -> list[dict[str, Any]]:
    """The selector's picks in order up to ``-k auto``'s largest ``k``, with each pick's
    information gain and the nested cross-validated error at that ``k``."""
    from ensel.evidence import option_gains
    from ensel.select import MULTICLASS_SPECS, SPECS, marginal_gains

    X, y = _stack(data)
    auto = ev.auto or {}
    native = bool(data[0].native)
    if native:  # option codes: the items with gold
        X, y = X[y >= 0], y[y >= 0]
    spec = (MULTICLASS_SPECS if native else SPECS).get(ev.method)
    k_max = int(auto.get("max_k", ev.k)) if spec is not None and spec.nested else ev.k
    if spec is not None and spec.nested:
        picks = [int(j) for j in spec.estimator(k_max).fit(X, y).selected_]
    else:
        picks = [data[0].models.index(s["model"]) for s in ev.selected]
    gains = option_gains(X, y, picks) if native else marginal_gains(X, y, picks)
    inner, se = auto.get("inner_error", {}), auto.get("inner_se", {})
    return [{"k": i + 1, "model": data[0].models[j], "gain_bits": float(g),
             "inner_error": inner.get(str(i + 1)), "inner_se": se.get(str(i + 1))}
            for i, (j, g) in enumerate(zip(picks, gains, strict=True))]


def _recommended_arm(ev: Any, all_models: dict[str, Any] | None) -> str:
    """Which arm the cost-blind recommendation is: ``selected`` (the ensemble of ``-k
    auto``), ``all_models`` or ``best_single``."""
    everyone = (all_models is not None and not ev.ensemble_beats_best_single
                and all_models["vs_best_single"]["high"] < 0)
    if (ev.k == 1 and not everyone) or ev.ensemble_beats_best_single:
        return "selected"
    # the selected ensemble is not better beyond the noise: all models if they are, else
    # the best single model alone
    return "all_models" if everyone else "best_single"


def _recommendation(ev: Any, table: pd.DataFrame, all_models: dict[str, Any] | None = None,
                    every_model: Sequence[str] = ()) -> dict[str, Any]:
    arms = ev.evaluation["arms"]
    chosen = [s["model"] for s in ev.selected]
    best_model = str(table.sort_values(["accuracy", "model"],
                                       ascending=[False, True]).iloc[0]["model"])
    which = _recommended_arm(ev, all_models)
    everyone = which == "all_models"
    if which == "selected":
        arm, models = arms["selected"], chosen
    elif everyone:
        assert all_models is not None
        arm, models = all_models, [str(m) for m in every_model]
    else:
        arm, models = arms["best_single"], [best_model]
    one = len(models) == 1
    vs = next(c for c in ev.evaluation["comparisons"] if c["against"] == "best_single")
    by = _aggregator_words(ev.aggregator)
    if everyone:
        headline = (f"Use all {len(models)} models together, aggregated by {by}: "
                    "they beat the best single model beyond the noise of the evaluation, "
                    f"and the {ev.k}-model choice of ensel select -k auto does not.")
    elif ev.k == 1:
        headline = (f"One model is enough: use {models[0]}. The cross-validated number of "
                    f"models is 1.")
    elif one:
        headline = (f"One model is enough: use {models[0]}, the most accurate. The "
                    f"{ev.k}-model ensemble ({', '.join(chosen)}) is not better beyond the "
                    "noise of the evaluation.")
    else:
        headline = (f"Use these {len(models)} models together, aggregated by "
                    f"{by}: {', '.join(models)}. They beat the best single model "
                    "beyond the noise of the evaluation.")
    return {"models": models, "aggregator": None if one else ev.aggregator,
            "best_single_model": best_model,
            "one_model_enough": one, "error": arm["error"], "low": arm["low"],
            "high": arm["high"], "ensemble": chosen, "ensemble_error": arms["selected"],
            "best_single_error": arms["best_single"],
            "vs_best_single": dict(arm["vs_best_single"] if everyone else vs),
            "headline": headline}


def _purchase(buy_list: list[dict[str, Any]], rec: dict[str, Any],
              price: dict[str, float]) -> dict[str, Any]:
    """What to buy with the prices: the buy list's choice at its largest budget (the cheapest
    choice as good as the most accurate one within it), with the cost of the cost-blind
    recommendation beside it."""
    from ensel.budget import METHOD_WORDS

    row = buy_list[-1]
    ch, best = row["choice"], row["best"]
    words = METHOD_WORDS.get(ch["method"], ch["method"])
    rec_cost = float(sum(price[m] for m in rec["models"]))
    if ch == best:
        why = (f"the most accurate choice within the largest budget ({_usd(row['budget'])} per "
               "query); nothing cheaper is as good")
    else:
        why = (f"the cheapest choice as good as the most accurate one within the largest "
               f"budget, {_usd(row['budget'])} per query (error {best['error']:.3f} for "
               f"{_usd(best['cost'])})")
    headline = (f"Buy {_names(ch)} ({words}): {_usd(ch['cost'])} per query, held-out error "
                f"{ch['error']:.3f}, {why}.")
    if rec_cost > ch["cost"] * (1 + 1e-9):
        headline += (f" The cost-blind recommendation, shown below, costs {_usd(rec_cost)} "
                     "per query.")
    return {"models": list(ch["models"]), "method": ch["method"], "cost": ch["cost"],
            "cost_low": ch["cost_low"], "cost_high": ch["cost_high"], "error": ch["error"],
            "low": ch["error_low"], "high": ch["error_high"], "budget": row["budget"],
            "best": {k: best[k] for k in ("models", "method", "cost", "error", "error_low",
                                          "error_high")},
            "as_good": dict(row["test"]), "recommendation_cost": rec_cost,
            "headline": headline}


def _cost_blind_rows(res: pd.DataFrame, errors: np.ndarray, models: list[str],
                     price: dict[str, float]) -> pd.DataFrame:
    """The cost-blind recommendation as a candidate of the buy list (method
    ``"cost_blind"``): its held-out errors on the frontier's evaluations (the same
    conditions and splits, ordered by condition and split, as the buy list pairs them) and
    the price of the models it deploys, in the rows of
    :func:`ensel.frontier.frontier_errors`."""
    evals = (res[["condition", "split", "n_test"]].drop_duplicates(["condition", "split"])
             .sort_values(["condition", "split"]))
    if len(evals) != len(errors):  # not the same evaluations: not comparable, not a candidate
        return res.iloc[:0]
    cost = float(sum(price[m] for m in models))
    return evals.assign(method="cost_blind", budget=cost, error=np.asarray(errors, float),
                        cost=cost, n_models=len(models), selected="|".join(models))[
        list(res.columns)]


def _frontier(data: Sequence[Any], ev: Any, c: np.ndarray, table: pd.DataFrame,
              cost_blind: tuple[np.ndarray | None, list[str]], *, dropped: Sequence[str],
              seed: int, n_budgets: int, max_models: int,
              n_jobs: int | None) -> tuple[dict[str, Any], pd.DataFrame]:
    """The frontier document of ``ensel frontier`` on the splits of ``ev`` (the same
    protocol), its buy list's candidates with the cost-blind recommendation among them
    (``cost_blind``: its errors per evaluation and its models, ``None`` errors: left out),
    so that nothing the report shows as good is cheaper than what it buys; and the rows
    the buy list chose from."""
    from ensel.frontier import (
        METHODS,
        best_single_price,
        budget_grid,
        frontier_errors,
        frontier_summary,
    )
    from ensel.protocol import Protocol

    e = ev.evaluation
    budgets = budget_grid(c, n_budgets, max_models=max_models,
                          include=[best_single_price(data, c)])
    pr = Protocol(n_splits=e["n_splits"], test_fraction=e["test_fraction"], seed=seed)
    res = frontier_errors(data, c, budgets, methods=METHODS, aggregator=ev.aggregator,
                          protocol=pr, max_models=max_models, n_jobs=n_jobs,
                          singles=float(max(budgets)))
    errors, models = cost_blind
    if errors is not None:
        price = dict(zip(table["model"], table["usd_per_query"], strict=True))
        res = pd.concat([res, _cost_blind_rows(res, errors, models, price)],
                        ignore_index=True)
    keep = ["model", "usd_per_query", "accuracy", "coverage", "accuracy_answered"]
    rows = [{k: (None if isinstance(r[k], float) and math.isnan(r[k]) else r[k])
             for k in keep} for r in table[keep].to_dict("records")]
    return frontier_summary(res, usd=c, models=data[0].models, protocol=pr,
                            aggregator=ev.aggregator, dropped=list(dropped),
                            model_table=rows), res


#: The ensemble size of a report on answers without any gold label: nothing measures which
#: size is best without gold, so the report says it used this default.
NO_GOLD_K = 3


def _gap_recommendation(ev: Any, source: Sequence[str]) -> dict[str, Any]:
    """The recommendation of a report whose gold has gaps: the few-label choice with its
    estimated error (``ensel.evidence.select_with_gaps``), or the label-free picks without
    one."""
    from ensel.evidence import LABEL_NEXT

    models = [s["model"] for s in ev.selected]
    few = ev.few_labels
    one = len(models) == 1
    use = (f"Use {models[0]} alone" if one else
           f"Use these {len(models)} models together, aggregated by "
           f"{_aggregator_words(ev.aggregator)}: "
           f"{', '.join(models)}")
    if few is None:
        headline = (f"{use}, picked by the models' consensus: no item has a gold label, so "
                    f"no error can be given (k = {ev.k} is a default, not a measured choice). "
                    f"Label a first handful: {LABEL_NEXT} --strategy disagreement.")
        err: dict[str, Any] = {"error": None, "low": None, "high": None}
    else:
        lo, hi = few["interval"]
        headline = (f"{use}. Estimated error {few['error']:.3f} [{lo:.3f}, {hi:.3f}] from "
                    f"{few['n_labels']:,} gold labels and {few['n_unlabelled']:,} unlabelled "
                    f"items; {few['decision']}.")
        err = {"error": few["error"], "low": lo, "high": hi}
    headline = headline.replace(LABEL_NEXT, LABEL_NEXT.replace("DATA", " ".join(source)))
    return {"models": models, "aggregator": None if one else ev.aggregator,
            "best_single_model": None, "one_model_enough": one, **err, "ensemble": models,
            "ensemble_error": None, "best_single_error": None, "vs_best_single": None,
            "headline": headline}


def _gap_report(data: list[Any], *, source: Sequence[str], usd: Any, prices: str | None,
                dropped: list[str], seed: int, view_reason: str | None) -> UserReport:
    """:func:`build_report` where gold is missing for some items or all: the label-free path
    of ``ensel select`` (:func:`ensel.evidence.select_with_gaps`), no held-out arms."""
    from ensel._errors import UsageError
    from ensel.evidence import model_table, select_with_gaps

    n = sum(len(d.y) for d in data)
    g = sum(int(d.has_gold().sum()) for d in data)
    if usd is not None:
        raise UsageError(f"gold for {g:,} of {n:,} items: the buy list compares held-out "
                         "errors, which need gold for every item; leave out --prices (the "
                         "report then uses the few-label estimate) or give every item gold")
    k: int | str = "auto" if g else min(NO_GOLD_K, len(data[0].models))
    ev = select_with_gaps(data, k=k, seed=seed)
    table = model_table(data)
    ranks = {s["model"]: s["rank"] for s in ev.selected}
    table["rank"] = [ranks.get(m) for m in table["model"]]
    path = [{"k": s["rank"], "model": s["model"], "gain_bits": s["gain_bits"],
             "inner_error": None, "inner_se": None} for s in ev.selected]
    return UserReport(
        source=[str(x) for x in source], n_items=ev.n_items, n_models=ev.n_models,
        conditions=ev.conditions, recommendation=_gap_recommendation(ev, source), all_models=None,
        no_model=None, models=table, path=path, select=ev.to_dict(), prices=prices,
        dropped_models=dropped, view_reason=view_reason)


def build_report(data: Any, *, source: Sequence[str] = ("data",), usd: Any = None,
                 prices: str | None = None, dropped: Sequence[str] = (), seed: int = 0,
                 n_budgets: int = 8, max_models: int = 20, n_jobs: int | None = None,
                 progress: bool = False, view_reason: str | None = None) -> UserReport:
    """The report on a tidy table or its :func:`~ensel.experiment.condition_data`.

    Parameters
    ----------
    data : pandas.DataFrame or list of ConditionData
    source : sequence of str
        What the data is (file names or a dataset name), for the page.
    usd : array-like of shape (n_models,), optional
        Dollars per query of each model, in the order of the conditions' models; adds the
        buy list and the frontier.
    prices : str, optional
        Where the prices come from, for the page.
    dropped : sequence of str
        Models left out for want of a price.
    seed : int, default=0
    n_budgets : int, default=8
        Budgets of the frontier (a geometric grid, plus the best single model's price).
    max_models : int, default=20
        Largest subset the frontier buys.
    n_jobs : int, optional
        Threads for the splits; the report is the same whatever ``n_jobs``.
    progress : bool, default=False
        ``ensel select``'s progress bar on stderr.
    view_reason : str, optional
        Why the answers are in the binary view (e.g. ``"--binary"``, or ``--prices``), for
        the page's line on the view; default: they are yes/no answers.

    Where gold is missing for some items or all (either view), the report runs the
    label-free path of ``ensel select`` itself (:func:`ensel.evidence.select_with_gaps`,
    ``-k auto`` with some gold, :data:`NO_GOLD_K` models without any) and says what that
    means for its intervals; ``all_models`` and ``no_model`` are then ``None``, and prices
    are refused (the buy list compares held-out errors).
    """
    from ensel.evidence import _pickable, model_table, select_evidence
    from ensel.experiment import condition_data

    if isinstance(data, pd.DataFrame):
        data = condition_data(data, None, gaps=True)
    before = list(data[0].models)
    data, blank = _pickable(list(data))
    if not all(d.has_gold().all() for d in data):
        return _gap_report(data, source=source, usd=usd, prices=prices,
                           dropped=[*dropped, *blank], seed=seed, view_reason=view_reason)
    ev = select_evidence(data, k="auto", seed=seed, n_jobs=n_jobs, progress=progress)
    table = model_table(data, usd if usd is None else _kept(usd, before, data))
    ranks = {s["model"]: s["rank"] for s in ev.selected}
    table["rank"] = [ranks.get(m) for m in table["model"]]
    every, every_errors = _all_models(data, ev, seed=seed, n_jobs=n_jobs)
    rec = _recommendation(ev, table, every, data[0].models)
    front = None
    if usd is not None:  # what ensel frontier computes: its buy list is the library's
        cost_blind = ({**ev.arm_errors, "all_models": every_errors}[_recommended_arm(ev, every)],
                      rec["models"])
        front = _frontier(data, ev, _kept(usd, before, data), table, cost_blind,
                          dropped=dropped, seed=seed, n_budgets=n_budgets,
                          max_models=max_models, n_jobs=n_jobs)[0]
    buy = None
    if front is not None and front["buy_list"]:
        buy = _purchase(front["buy_list"], rec,
                        dict(zip(table["model"], table["usd_per_query"], strict=True)))
    return UserReport(
        source=[str(s) for s in source], n_items=ev.n_items, n_models=ev.n_models,
        conditions=ev.conditions, recommendation=rec, purchase=buy,
        all_models=every,
        no_model=_no_model(data, ev, seed=seed), models=table,
        path=_path(data, ev), select=ev.to_dict(), prices=prices,
        dropped_models=[*dropped, *blank],
        buy_list=None if front is None else front["buy_list"], frontier=front,
        view_reason=view_reason)


# --------------------------------------------------------------------------- HTML
def _e(x: float | None) -> str:
    """An error rate with 3 decimals."""
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _ci(d: dict[str, Any], lo: str = "low", hi: str = "high") -> str:
    return f"{_e(d['error'])} [{_e(d[lo])}, {_e(d[hi])}]"


def _usd(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3g} USD"


def _pct(x: float) -> str:
    return "n/a" if isinstance(x, float) and math.isnan(x) else f"{100 * x:.1f} %"


def _diff(c: dict[str, Any]) -> str:
    return (f"{c['difference']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}], "
            f"{c['verdict']}").replace("-", "−")


def _figures(rep: UserReport) -> dict[str, str]:
    """The report's figures as inlined PNG, each with an alt text that says what it shows."""
    from matplotlib.figure import Figure

    from ensel._html import esc, figure_html

    out: dict[str, str] = {}
    t, name = rep.models, _source_name(rep)
    rec = set(rep.recommendation["models"])
    if t["accuracy_answered"].isna().all():  # no gold at all: nothing to plot
        return out
    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.subplots()
    picked = t["model"].isin(rec).to_numpy()
    ax.scatter(t["coverage"][~picked], t["accuracy_answered"][~picked], s=22, color="0.55",
               label="other models")
    ax.scatter(t["coverage"][picked], t["accuracy_answered"][picked], s=60, marker="*",
               color="C3", label="recommended")
    for _, r in (t if len(t) <= 15 else t[picked]).iterrows():  # few models: every name
        ax.annotate(str(r["model"]), (r["coverage"], r["accuracy_answered"]), fontsize=7,
                    xytext=(4, 3), textcoords="offset points",
                    color="C3" if r["model"] in rec else "0.3")
    ax.set_xlabel("coverage (share of items answered)")
    ax.set_ylabel("accuracy when answered")
    ax.legend(fontsize=8)
    alt = (f"Scatter plot of the {len(t)} models of {name}: coverage (share of items "
           f"answered, {t['coverage'].min():.0%} to {t['coverage'].max():.0%}) against "
           f"accuracy when answered ({t['accuracy_answered'].min():.0%} to "
           f"{t['accuracy_answered'].max():.0%}); the recommended "
           f"{'model is' if len(rec) == 1 else 'models are'} marked with a star.")
    out["models"] = figure_html(fig, alt, esc("Coverage against accuracy when answered, one "
                                              "point per model; stars: recommended."))
    path = [p for p in rep.path if p["inner_error"] is not None]
    if path:
        fig = Figure(figsize=(6.4, 3.8))
        ax = fig.subplots()
        k = np.array([p["k"] for p in path])
        e = np.array([p["inner_error"] for p in path])
        se = np.array([p["inner_se"] or 0.0 for p in path])
        ax.fill_between(k, e - se, e + se, color="C0", alpha=0.2, label="± 1 standard error")
        ax.plot(k, e, "o-", color="C0", label="nested cross-validated error")
        k_dep = rep.select["k"]
        ax.axvline(k_dep, color="C3", ls="--", label=f"deployed k = {k_dep}")
        ax.set_xlabel("number of models k (in the selector's order)")
        ax.set_ylabel("held-out error")
        ax.set_xticks(k)
        ax.legend(fontsize=8)
        alt = (f"Line chart of the nested cross-validated held-out error of "
               f"{_selector_words(rep.select['method'])} with "
               f"{_aggregator_words(rep.select['aggregator'])} "
               f"on {name} against "
               f"the number of models k = 1 to {k[-1]} (from {e.min():.3f} to "
               f"{e.max():.3f}), with a one-standard-error band; a dashed line marks the "
               f"deployed k = {k_dep}.")
        out["path"] = figure_html(fig, alt, esc(
            "Held-out error along the selection path (inner splits of -k auto); the "
            "smallest k within one standard error of the best is deployed."))
    if rep.frontier is not None:
        from ensel.frontier import draw_frontier, frontier_alt

        fig = Figure(figsize=(7, 4.5))
        ax = fig.subplots()
        draw_frontier(ax, rep.frontier)
        ax.legend(fontsize=8)
        out["frontier"] = figure_html(fig, frontier_alt(rep.frontier, name), esc(
            "The cost-error frontier: held-out error against dollars per query, one colour "
            "per method (points: the budgets; lines: each method's hull)."))
    return out


def _view_words(sel: dict[str, Any], reason: str | None = None, notes: bool = True) -> str:
    """The report's line on the view of the answers (and their gold) it read; ``reason``:
    why a binary view was used (:attr:`UserReport.view_reason`)."""
    from ensel.evidence import NATIVE_ERROR_RULE

    if sel.get("view") != "native":
        words = ("View: binary (yes/no answers against a +1/-1 label, the paper's view; "
                 + (f"used because of {reason})." if reason else "the answers are yes/no "
                    "as given)."))
    else:
        words = ("View: native (multiple-choice answers as they are, option labels; the "
                 "K-ary selectors and aggregators; --binary gives the paper's yes/no view). "
                 f"Here {NATIVE_ERROR_RULE}.")
    gold = sel["gold"]
    if gold.get("source"):  # --labels: where the gold came from
        line = gold["source"]["words"]
        words += f" {line[:1].upper()}{line[1:]}."
    if notes and gold["n_with_gold"] < gold["n_items"]:
        words += " " + " ".join(n[:1].upper() + n[1:] + "." for n in gold["notes"])
    return words


def _source_name(rep: UserReport) -> str:
    """What the report is on, for its title (the files' names, or a dataset's)."""
    return ", ".join(Path(s).name or s for s in rep.source)


def _models_html(rep: UserReport, figs: dict[str, str], *, gaps: bool) -> list[str]:
    """The "Your models" section of both pages: one row per model (the recommended ones
    marked), then the coverage figure. Measured, the rows go by accuracy with each model's
    rank in the ensemble (and price); with gold gaps the accuracy rests on the items with
    gold (a few, or none), so the rows go by coverage and the picks' ranks are in the picks'
    table above."""
    from ensel._html import esc, table_html

    t = rep.models.sort_values(["coverage" if gaps else "accuracy", "model"],
                               ascending=[False, True])
    priced = "usd_per_query" in t.columns
    head = ["model", "accuracy on the items with gold" if gaps else "accuracy", "coverage",
            "accuracy when answered", *([] if gaps else ["rank in the ensemble"]),
            *(["price / query"] if priced else [])]
    rows = []
    for _, m in t.iterrows():
        row = [esc(m["model"]), _e(m["accuracy"]), _pct(m["coverage"]),
               _e(m["accuracy_answered"])]
        if not gaps:
            row.append("" if pd.isna(m["rank"]) else str(int(m["rank"])))
        if priced:
            row.append(_usd(m["usd_per_query"]))
        rows.append(row)
    picked = set(rep.recommendation["models"])
    return ["<h3>Your models</h3>",
            table_html(head, rows, numeric=[False] + [True] * (len(head) - 1),
                       row_class=["pick" if m in picked else "" for m in t["model"]],
                       caption="Per model (coverage over all items)" if gaps else
                       "Per model, over all items"),
            *([figs["models"]] if "models" in figs else [])]


def _page_end(rep: UserReport, parts: list[str], settings: list[str], name: str, *,
              json_link: str | None, command: str | None) -> str:
    """The end of a report page (settings, the command, the JSON link) and the page."""
    from ensel._html import esc, page

    if rep.dropped_models:
        settings.append(f"left out: {', '.join(rep.dropped_models)}")
    parts.append("<h3>Settings</h3><ul>" + "".join(f"<li>{esc(s)}</li>" for s in settings)
                 + "</ul>")
    if command:
        parts.append(f"<p>Reproduce: <code>{esc(command)}</code></p>")
    if json_link:
        parts.append(f'<p>Every number of this page as JSON: <a href="{esc(json_link)}">'
                     f"{esc(json_link)}</a> (schema {SCHEMA}).</p>")
    return page(f"ensel report: {name}", "\n".join(parts))


def _gap_page(rep: UserReport, figs: dict[str, str], *, json_link: str | None,
              command: str | None) -> str:
    """:func:`report_html` of a report whose gold has gaps: the answer, one sentence on
    what the gold means for the intervals, the few-label evidence, the models."""
    from ensel._html import esc, table_html
    from ensel.evidence import LABEL_NEXT

    r, sel = rep.recommendation, rep.select
    gold, few = sel["gold"], sel.get("few_labels")
    name = _source_name(rep)

    def here(text: str) -> str:  # the label-next command on this report's data
        return text.replace(LABEL_NEXT, LABEL_NEXT.replace("DATA", " ".join(rep.source)))

    parts = [f"<h1>Which models to use: {esc(name)}</h1>",
             f'<p class="muted">{rep.n_models} models, {rep.n_items:,} items, gold for '
             f"{gold['n_with_gold']:,} of them; no held-out split (too few or no labels to "
             "hold any out).</p>",
             f'<p class="muted" id="view">'
             f"{esc(_view_words(sel, rep.view_reason, notes=False))}</p>",
             '<div class="answer">'
             f'<p class="lead">{esc(here(r["headline"]))}</p>'
             f'<p id="intervals"><b>What this means for the intervals:</b> '
             f"{esc(gold['intervals'][:1].upper() + gold['intervals'][1:])}.</p>"]
    if few is not None:  # (the decision is in the headline)
        parts.append(f"<p>What the unlabelled items added: {esc(few['unlabelled_added'])}."
                     "</p>")
    nxt = here(LABEL_NEXT) + ("" if few is not None else " --strategy disagreement")
    parts.append(f"<p>Next: <code>{esc(nxt)}</code> ranks the items whose gold would "
                 + ("help most to decide the choice" if few is not None else
                    "help most (without any gold, those the models disagree on most)")
                 + ".</p></div>")
    parts.append("<h2 id=\"evidence\">The evidence</h2>")
    acc = ("accuracy on the items with gold" if few is not None else
           "accuracy (estimate: the label-free posterior)")
    parts.append(table_html(["rank", "model", acc, "coverage"],
                            [[str(p["rank"]), esc(p["model"]), _e(p["accuracy"]),
                              _pct(p["coverage"])] for p in sel["selected"]],
                            numeric=[True, False, True, True],
                            caption=f"Picks of {esc(_selector_words(sel['method']))} "
                                    f"(aggregated by "
                                    f"{esc(_aggregator_words(sel['aggregator']))})"))
    parts += _models_html(rep, figs, gaps=True)
    settings = [f"selector {_keyed(sel['method'], _selector_words(sel['method']))}, "
                f"aggregator {_keyed(sel['aggregator'], _aggregator_words(sel['aggregator']))}, "
                f"k = {sel['k']}"
                + (" (the size with the lowest estimated error)" if few is not None else
                   " (a default, ensel.report.NO_GOLD_K: without gold no size is measured "
                   "better)")]
    return _page_end(rep, parts, settings, name, json_link=json_link, command=command)


def report_html(rep: UserReport, *, json_link: str | None = None,
                command: str | None = None) -> str:
    """The report as one self-contained offline HTML page (needs matplotlib for its
    figures): the answer first (with prices, what the buy list buys, and the cost-blind
    recommendation below it as the reference), then the buy list, then the evidence; where
    gold has gaps (no held-out evaluation), the few-label or label-free answer and what it
    means for the intervals."""
    figs = _figures(rep)
    page_of = _gap_page if rep.select["evaluation"] is None else _measured_page
    return page_of(rep, figs, json_link=json_link, command=command)


def _measured_page(rep: UserReport, figs: dict[str, str], *, json_link: str | None,
                   command: str | None) -> str:
    """:func:`report_html` of a report measured on held-out splits."""
    from ensel._html import esc, table_html

    r, sel = rep.recommendation, rep.select
    ev = sel["evaluation"]
    name = _source_name(rep)
    n_eval, conf = ev["n_evaluations"], ev["confidence"]
    how = (f"{n_eval} random {1 - ev['test_fraction']:.0%}/{ev['test_fraction']:.0%} splits, "
           f"{conf:.0%} intervals corrected for the overlap of the splits")
    parts = [f"<h1>Which models to use: {esc(name)}</h1>",
             f'<p class="muted">{rep.n_models} models, {rep.n_items:,} items, '
             f"{len(rep.conditions)} condition{'s' if len(rep.conditions) > 1 else ''}; "
             f"held-out errors over {esc(how)}.</p>",
             f'<p class="muted" id="view">{esc(_view_words(sel, rep.view_reason))}</p>']
    use = ", ".join(f"<b>{esc(m)}</b>" for m in r["models"])
    buy, ans = rep.purchase, []
    if buy is not None:  # with prices: the buy list's answer first, the cost-blind one below
        from ensel.budget import METHOD_WORDS

        best = buy["best"]
        ans += [f'<p class="lead">{esc(buy["headline"])}</p>',
                f'<p>To buy, by <a href="#buy">the buy list</a>: <b>{esc(_names(buy))}</b> '
                f"({esc(METHOD_WORDS.get(buy['method'], buy['method']))}), "
                f"{_usd(buy['cost'])} per query [{buy['cost_low']:.3g}, "
                f"{buy['cost_high']:.3g}], held-out error <b>{_ci(buy)}</b>"
                + ("" if best["models"] == buy["models"] and best["method"] == buy["method"]
                   else f"; the most accurate choice within {_usd(buy['budget'])} per query:"
                        f" {esc(_names(best))}, {_usd(best['cost'])}, "
                        f"{_ci(best, 'error_low', 'error_high')}") + ".</p>",
                f"<p>For reference, prices aside: the recommendation of <code>ensel select "
                f"-k auto</code>, {_usd(buy['recommendation_cost'])} per query "
                f"({esc(rep.prices)}):</p>",
                f"<p><b>{esc(r['headline'])}</b></p>"]
    else:
        ans.append(f'<p class="lead">{esc(r["headline"])}</p>')
    ans += [f"<p>Use: {use}" + (f", aggregated by "
                                f"<b>{esc(_aggregator_words(r['aggregator']))}</b>"
                                if r["aggregator"] else " alone") + ".</p>",
            f"<p>Held-out error: <b>{_ci(r)}</b>.</p>"]
    bs = r["best_single_error"]
    if r["one_model_enough"] and sel["k"] > 1:
        ans.append(f"<p>The {sel['k']}-model ensemble of <code>ensel select -k auto</code> "
                   f"({esc(', '.join(r['ensemble']))}, aggregated by "
                   f"{esc(_aggregator_words(sel['aggregator']))}): "
                   f"{_ci(r['ensemble_error'])}; minus the best single model: "
                   f"{esc(_diff(r['vs_best_single']))}.</p>")
    elif not r["one_model_enough"]:
        ans.append(f"<p>Against the best single model ({esc(r['best_single_model'])}: "
                   f"{_ci(bs)}): "
                   f"{esc(_diff(r['vs_best_single']))} (negative: the ensemble is "
                   "better).</p>")
    if rep.all_models is None and rep.n_models > 1:
        from ensel.info import MAX_PATTERN_SIZE

        most = [int(math.log(MAX_PATTERN_SIZE, r) + 1e-9) for r in (2, 3)]
        ans.append(f"<p>All {rep.n_models} models together: not evaluated (the aggregators "
                   f"code the answer patterns of at most {most[0]} models, {most[1]} with "
                   "abstentions).</p>")
    if rep.all_models is not None:
        a = rep.all_models
        ans.append(f"<p>All {a['k']} models together (aggregated by "
                   f"{esc(_aggregator_words(sel['aggregator']))}): "
                   f"{_ci(a)}; minus the best single model: "
                   f"{esc(_diff(a['vs_best_single']))}.</p>")
    assert rep.no_model is not None  # measured: the majority label's held-out error
    ans.append(f"<p>No model at all (always the majority label of the training part): "
               f"{_ci(rep.no_model)}.</p>")
    parts.append('<div class="answer">' + "".join(ans) + "</div>")
    parts.append(
        '<p class="muted">How abstentions count: in a model\'s accuracy an abstention is a '
        "wrong answer; coverage is the share of items a model answered, accuracy when "
        "answered its accuracy on those. A held-out error (of an ensemble or of a single "
        "model) is that of the aggregator's answers, fitted on the training part: it answers "
        "every item, reading an abstention as one more value of the answers (a single model's "
        "abstentions get the label the training part gives them) and breaking ties by its "
        "own rule. An interval is a 95 % interval of the mean held-out error; a difference "
        "is <i>holds</i> or <i>contradicted</i> when its interval excludes zero, <i>within "
        "noise</i> otherwise.</p>")
    if rep.buy_list:
        from ensel.budget import METHOD_WORDS

        rows = []
        for b in rep.buy_list:
            ch, best = b["choice"], b["best"]
            rows.append([_usd(b["budget"]), esc(_names(ch)),
                         esc(METHOD_WORDS.get(ch["method"], ch["method"])),
                         f"{_usd(ch['cost'])} [{ch['cost_low']:.3g}, {ch['cost_high']:.3g}]",
                         _ci(ch, "error_low", "error_high"),
                         "the same" if ch == best else
                         f"{esc(_names(best))}: {_ci(best, 'error_low', 'error_high')}, "
                         f"{_usd(best['cost'])}",
                         esc(b["why_not_cheaper"] or "")])
        rule = rep.frontier["equivalence"]["rule"] if rep.frontier else ""
        parts += ["<h2 id=\"buy\">Buy list</h2>",
                  f"<p>At each budget (dollars per query): the cheapest choice as good as the "
                  f"most accurate one within it ({esc(rule)}), among budgeted selection, "
                  "Top-k under the budget, cheapest first, each model alone, the cascade and "
                  "the cost-blind recommendation (on the same splits); "
                  "its cost and held-out error with 95 % intervals.</p>",
                  table_html(["budget", "buy", "found by", "cost / query", "held-out error",
                              "most accurate within the budget", "why not cheaper"], rows,
                             numeric=[True, False, False, True, True, False, False],
                             caption="Buy list")]
    parts.append("<h2 id=\"evidence\">The evidence</h2>")
    parts.append(f"<h3>Selection path</h3><p>{esc(_selector_words(sel['method']))} adds "
                 "models in this order; <code>-k auto</code> picks the number by nested "
                 "cross-validation (the smallest k within one standard error of the best): "
                 f"k = {sel['k']}"
                 + (f" ({esc(_auto_words(sel['auto']))})" if sel["auto"] else "") + ".</p>")
    prow = [[str(p["k"]), esc(p["model"]), f"{p['gain_bits']:.4f}", _e(p["inner_error"]),
             _e(p["inner_se"])] for p in rep.path]
    parts.append(table_html(["k", "model added", "information gain (bits)",
                             "nested error", "± standard error"], prow,
                            numeric=[True, False, True, True, True],
                            row_class=["pick" if p["k"] <= sel["k"] else "" for p in rep.path],
                            caption="Selection path"))
    if "path" in figs:
        parts.append(figs["path"])
    parts += _models_html(rep, figs, gaps=False)
    if "frontier" in figs:
        parts += ["<h3>Cost and error</h3>", figs["frontier"]]
    settings = [f"selector {_keyed(sel['method'], _selector_words(sel['method']))}, "
                f"aggregator {_keyed(sel['aggregator'], _aggregator_words(sel['aggregator']))} "
                "(the defaults of ensel select)",
                f"{ev['n_splits']} splits per condition, seed {ev['seed']}",
                f"interval: {ev['correction']}"]
    return _page_end(rep, parts, settings, name, json_link=json_link, command=command)


def _aggregator_words(name: str) -> str:
    """An aggregator's key as the prose names it (:func:`ensel.aggregate.aggregator_name`)."""
    from ensel.aggregate import aggregator_name

    return str(aggregator_name(name))


def _selector_words(name: str) -> str:
    """A selector's key as the prose names it (:func:`ensel.select.selector_name`)."""
    from ensel.select import selector_name

    return str(selector_name(name))


def _keyed(name: str, words: str) -> str:
    """A selector or an aggregator in the settings: the key that selects it and its name."""
    return name if words == name else f"{name} ({words})"


def _names(choice: dict[str, Any]) -> str:
    """A buy-list choice's models (the cascade's in its order)."""
    ms = choice["models"]
    return (f"{ms[0]} alone" if len(ms) == 1 else ", ".join(ms)) if ms else "no model"


def _auto_words(auto: dict[str, Any]) -> str:
    ks = auto["k_per_split"]
    counts = ", ".join(f"k = {v} in {ks.count(v)}" for v in sorted(set(ks)))
    return (f"on all the data the rule chose k = {auto['k_all_data']}; inside the {len(ks)} "
            f"outer splits, whose held-out errors are reported, it chose {counts}; the "
            "deployed k is the smaller of the choice on all the data and the median of the "
            "per-split choices")
