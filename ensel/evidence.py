"""The evidence procedure behind ``ensel select``: picks, held-out arms, comparisons, verdicts.

A thin layer: every number comes from the library's protocol (:mod:`ensel.experiment`:
:func:`~ensel.experiment.evaluate`, :func:`~ensel.experiment.half_sample_errors`,
:func:`~ensel.experiment.paired_differences`, :func:`~ensel.experiment.one_se_k`;
:data:`ensel.select.SELECTORS`, :func:`ensel.aggregate.make_aggregator`), with its one seed
scheme, so the command line and the library give the same numbers for the same seed,
whatever the order of the input's rows. The command (argument parsing, printing) is
:mod:`ensel.cli.select`; ``ensel evaluate`` and ``ensel import`` are :mod:`ensel.cli.evaluate`
and :mod:`ensel.cli.importer`.

``ensel select DATA -k K|auto [--method M] [--aggregator A] [--condition C] [--json]``
    Picks an ensemble of ``K`` models on all the data (conditions stacked) and reports the
    held-out error of the method over repeated random 80/20 splits
    (:func:`ensel.experiment.evaluate`) next to the Top-k ensemble of the same size and the
    best single model on the same splits (selector ``topk`` at ``K`` and at 1). Each
    comparison is :func:`ensel.experiment.paired_differences` (95 % interval corrected for
    the overlap of the splits, checked on half-sample replicates) with a verdict: *holds*
    (the chosen ensemble is better), *within noise*, *contradicted*. ``--method`` is any name
    of :data:`ensel.select.SELECTORS` (hyphenated spellings such as ``greedy-mi`` and
    ``top-k`` are aliases) or ``exhaustive`` (the subset of largest training ``I(Y; X_S)``,
    the ``exhaustive_mi`` selector of :func:`~ensel.experiment.evaluate`; at most 15
    models); ``--aggregator`` any name of :data:`ensel.aggregate.AGGREGATORS`. The defaults
    are :data:`ensel.select.DEFAULT_SELECTOR` and :data:`ensel.aggregate.DEFAULT_AGGREGATOR`.

``-k auto``
    Nested cross-validation with the one-standard-error rule
    (:func:`ensel.experiment.one_se_k`): inside each outer split, 5 inner splits of its
    training part give the method's held-out error at every ``k <= --max-k``, and the
    smallest ``k`` whose mean inner error is within one (overlap-corrected) standard error of
    the best is used on that outer split, so the reported errors are those of the whole
    procedure. The deployed ``k`` is the same rule on all the data, capped at the median of
    the per-split choices (never larger than what most nested splits chose), so it is
    consistent with its nested evidence; with ``k = 1`` the command says plainly that one
    model is enough. The half-sample replicates of ``-k auto`` evaluate the deployed ``k``.

Large pools
    When ``n_items x n_models`` exceeds :data:`LARGE_POOL` cells, the default number of
    splits is 10 (the corrected interval is then within 8 % of the 20-split one) and of
    halvings 5 with one split per half (one split per half overstates the half-sample
    variance: conservative); the output says so under ``defaults``. ``--splits`` and
    ``--halvings`` override.

Multi-class answers (option labels, :func:`ensel.data.is_native`)
    Read as they are (``view`` ``"native"``; ``--binary`` converts them to the paper's
    view first): the same protocol, splits and intervals with the K-ary registries
    (:data:`ensel.select.MULTICLASS_SPECS`, :data:`ensel.aggregate.MULTICLASS_SPECS`),
    defaults :data:`ensel.select.DEFAULT_MULTICLASS_SELECTOR` and
    :data:`ensel.aggregate.DEFAULT_MULTICLASS_AGGREGATOR`, a tie among ``t`` options
    counting ``1 - 1/t`` of an error (:data:`NATIVE_ERROR_RULE`).

Gold with gaps (either view; a blank label = no gold)
    :func:`select_with_gaps` runs: with some gold the few-label estimate of
    :func:`ensel.fewlabels.choose_with_labels` (``few_labels``), with none the label-free
    picks and no error; ``gold`` says which and what it means for the intervals.

JSON output (``--json``), schema ``ensel.select/2`` (``/1`` had no ``coverage`` and
``accuracy_answered`` per model: an abstaining model read as an inaccurate one; issue 39
added ``view`` and ``gold``, and ``evaluation`` and ``ensemble_beats_best_single`` are
``null`` where an item lacks gold)::

    {"schema": "ensel.select/2",
     "data": [str], "format": str, "view": "binary" | "native",
     "conditions": [str], "n_items": int, "n_models": int,
     "method": str, "aggregator": str, "defaults": [str], "dropped_models": [str],
     "k": int, "k_mode": "fixed" | "auto",
     "selected": [{"rank": int, "model": str, "accuracy": float, "gain_bits": float,
                   "coverage": float, "accuracy_answered": float | null}],
     "evaluation": {"n_splits": int, "n_evaluations": int, "test_fraction": float,
                    "seed": int, "confidence": float,
                    "correction": str, "n_halvings": int,
                    "arms": {"selected" | "top_k" | "best_single":
                             {"error": float, "low": float, "high": float, "k": int | null}},
                    "comparisons": [{"against": "top_k" | "best_single",
                                     "difference": float, "low": float, "high": float,
                                     "verdict": "holds" | "within noise" | "contradicted",
                                     "interval": "corrected" | "halves"}]},
     "auto": null | {"max_k": int, "inner_splits": int, "rule": str,
                     "inner_error": {k: float}, "inner_se": {k: float},
                     "k_all_data": int, "k_per_split": [int]},
     "ensemble_beats_best_single": bool,
     "message": str,
     "gold": {"n_items": int, "n_with_gold": int, "aggregator_fit": str,
              "statistics": str, "error": str | null, "notes": [str], "intervals": str},
     "few_labels": null | {"n_labels": int, "n_unlabelled": int, "error": float,
                           "interval": [float, float], "decided": bool | null,
                           "labels_needed": int | null, "runner_up": [str],
                           "win_rate": float | null, "reason": str,
                           "labels_only": {"error_on_labels": float,
                                           "interval": [float, float],
                                           "picks": [str] | null, "decided": bool | null,
                                           "labels_needed": int | null,
                                           "refused": str | null},
                           "unlabelled_added": str, "decision": str, "label_next": str}}

Issue 40 added ``gold["intervals"]`` (one sentence on what the intervals mean) and
``few_labels`` (gold for some items only, :func:`select_with_gaps`): the few-label estimate of
:func:`ensel.fewlabels.choose_with_labels` (``error``, ``interval``, ``decided`` against
``runner_up``, ``labels_needed``: more labels at random until decided, ``null`` when that is
not expected to help; ``decided``, ``labels_needed`` and ``win_rate`` ``null`` and
``runner_up`` empty when every model is chosen, so there is nothing to decide between), and
under ``labels_only`` the chosen ensemble's error on the labelled items with its Wilson
interval, and what the same rule (the same ``k``) picks and decides on the labelled items
alone (``refused``: why it cannot, else ``null``). The report goes by the verdict with the
unlabelled items; ``unlabelled_added`` says so where the labels alone differ.
``evaluation`` is then ``null``.

How an abstention and a tie count (:data:`ERROR_RULE`, printed by the commands)
    The error is the share of items whose answer is not the gold label. A model's
    *accuracy* counts an abstention (answer ``0``) as wrong; its *coverage* is the share of
    items it answered and its *accuracy when answered* the share right among those
    (:func:`model_table`), so a model that abstains often shows a low accuracy with a low
    coverage, not a low accuracy alone. An ensemble always answers: an abstention adds
    nothing to a vote and is its own answer value for the learned aggregators (MAP,
    backoff, stacking), which learn the label to give it; a single model on its own ("best
    single model") goes through the same aggregator, so its abstentions get the label the
    aggregator learned for them. A tie (majority vote's vote sum exactly 0, all models
    abstaining included; a weighted vote or stacking score exactly 0; a MAP or backoff
    posterior exactly 1/2) counts as half an error: the paper's random tie break in
    expectation (:func:`ensel.aggregate.heldout_error`), so no coin enters an error.

``method`` is the registry name that ran (``exhaustive`` for the exhaustive scan);
``defaults`` says which settings were defaults and why (e.g. the default method).
``comparisons`` omits ``top_k`` when the method is Top-k itself. ``difference`` is the
chosen ensemble's error minus the other arm's (negative = the chosen one is better).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from numbers import Integral, Real
from typing import Any, TypedDict, cast

import numpy as np
import pandas as pd

from ensel._errors import UsageError
from ensel._validation import Interval, StrOptions, validate_params
from ensel.protocol import LARGE_POOL, PAPER_PROTOCOL, SELECT_PROTOCOL, Protocol

__all__ = ["SCHEMA", "EXHAUSTIVE_LIMIT", "LARGE_POOL", "LABEL_NEXT", "SelectEvidence",
           "UsageError", "resolve_method", "run_select", "select_evidence", "select_with_gaps",
           "gold_summary", "option_gains", "ERROR_RULE", "NATIVE_ERROR_RULE", "model_table",
           "format_model_table", "budget_evidence", "budget_candidates", "BUDGET_METHODS"]

#: How an abstention and a tie count in the error, in one sentence (see the module text).
ERROR_RULE = ("error = share of items answered wrongly; a model's accuracy counts an "
              "abstention as wrong (coverage = share answered); an ensemble always answers "
              "(an abstention adds no vote and the aggregator learns a label for it); a tie "
              "(vote sum or score exactly 0, posterior exactly 1/2) counts as half an error, "
              "the paper's random tie break in expectation")

#: :data:`ERROR_RULE` for multi-class answers (option labels).
NATIVE_ERROR_RULE = ("error = share of items with gold answered wrongly; a model's accuracy "
                     "counts an abstention as wrong (coverage = share answered, on every "
                     "item); an ensemble always answers (an abstention adds no vote); a tie "
                     "among t options counts 1 - 1/t of an error, a fair tie break in "
                     "expectation")

SCHEMA = "ensel.select/2"
#: Largest pool ``--method exhaustive`` accepts (the scan of every subset per split).
EXHAUSTIVE_LIMIT = 15
#: Inner splits of ``-k auto``.
INNER_SPLITS = 5


def resolve_method(name: str) -> str:
    """The registry name of a ``--method`` value (``greedy-mi`` -> ``greedy_mi``).

    Examples
    --------
    >>> resolve_method("top-k"), resolve_method("greedy_mi"), resolve_method("exhaustive")
    ('topk', 'greedy_mi', 'exhaustive')
    """
    from ensel.select import SELECTORS, resolve_selector

    key = str(name).strip().lower().replace("-", "_")
    if key == "exhaustive":
        return key
    found = resolve_selector(key)
    if found is not None:
        return found
    raise UsageError(f"--method must be one of {', '.join([*SELECTORS, 'exhaustive'])} "
                     f"(hyphens allowed); got {name!r}")


def _binary_aggregators() -> list[str]:
    """The aggregators of binary answers (:data:`ensel.aggregate.AGGREGATORS`)."""
    from ensel.aggregate import AGGREGATORS

    return list(AGGREGATORS)


def _resolve_aggregator(name: str) -> str:
    from ensel.aggregate import AGGREGATORS

    key = str(name).strip().lower()
    if key in AGGREGATORS:
        return key
    raise UsageError(f"--aggregator must be one of {', '.join(AGGREGATORS)}; got {name!r}")


# --------------------------------------------------------------------------- data
def model_table(data: Any, usd: Any = None) -> pd.DataFrame:
    """Per-model accuracy, coverage and accuracy when answered (the abstention-aware table).

    Parameters
    ----------
    data : pandas.DataFrame or list of ConditionData
        A tidy table (validated by :func:`ensel.experiment.condition_data`) or its
        conditions; the conditions' items are stacked.
    usd : array-like of float, optional
        Dollars per query of each model, in the order of the conditions' models (adds a
        ``usd_per_query`` column).

    Returns
    -------
    pandas.DataFrame
        One row per model (the conditions' model order), columns ``model``, ``accuracy``
        (right / all items: an abstention counts as wrong, see :data:`ERROR_RULE`),
        ``coverage`` (answered / all items), ``accuracy_answered`` (right / answered; NaN
        for a model that never answered), both on the items with gold (NaN where none
        has), ``n_items`` (with gold) and, with ``usd``,
        ``usd_per_query``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "model": ["a", "b"] * 4,
    ...                    "answer": [1, 1, 0, -1, -1, 1, 0, 1],
    ...                    "label": [1, 1, 1, 1, -1, -1, 1, 1]})
    >>> model_table(df).round(3).to_dict("records")[0]
    {'model': 'a', 'accuracy': 0.5, 'coverage': 0.5, 'accuracy_answered': 1.0, 'n_items': 4}
    """
    from ensel.experiment import condition_data

    conds = condition_data(data, gaps=True) if isinstance(data, pd.DataFrame) else list(data)
    X = np.concatenate([d.X for d in conds])
    y = np.concatenate([d.y for d in conds])
    native = bool(conds[0].native)  # accuracy on the items with gold (binary gaps: 0)
    g = y >= 0 if native else y != 0
    right = (X[g] == y[g, None]).sum(axis=0)
    answered = (X[g] >= 0 if native else X[g] != 0).sum(axis=0)
    n = int(g.sum())
    coverage = (X >= 0 if native else X != 0).mean(axis=0)  # on every item
    with np.errstate(invalid="ignore", divide="ignore"):
        when = np.where(answered > 0, right / np.maximum(answered, 1), np.nan)
    acc = right / n if n else np.full(X.shape[1], np.nan)  # no gold: no accuracy
    out = pd.DataFrame({"model": list(conds[0].models), "accuracy": acc,
                        "coverage": coverage, "accuracy_answered": when,
                        "n_items": n})
    if usd is not None:
        out["usd_per_query"] = np.asarray(usd, dtype=float)
    return out


def format_model_table(table: pd.DataFrame, models: Any = None, *, width: int = 40) -> list[str]:
    """Text lines of :func:`model_table` (``models``: only these, in this order), with the
    rule that says how abstentions count."""
    t = table.set_index("model")
    names = list(t.index) if models is None else [str(m) for m in models]
    price = "usd_per_query" in t.columns
    lines = [f"  {'model':<{width}} {'accuracy':>8} {'coverage':>8} {'acc. when answered':>18}"
             + (f" {'USD/query':>10}" if price else "")]
    for m in names:
        r = t.loc[m]
        name = m if len(m) <= width else m[: width - 3] + "..."
        when = "-" if np.isnan(r["accuracy_answered"]) else f"{r['accuracy_answered']:.4f}"
        lines.append(f"  {name:<{width}} {r['accuracy']:>8.4f} {r['coverage']:>8.1%} "
                     f"{when:>18}" + (f" {r['usd_per_query']:>10.4g}" if price else ""))
    return lines


def _pickable(data: list[Any]) -> tuple[list[Any], list[str]]:
    """Keep the models that answered (not all blank) in every used condition."""
    from ensel.experiment import ConditionData

    answered = None
    for d in data:
        has = {m for m, j in zip(d.models, np.any(d.answered(), axis=0), strict=True) if j}
        answered = has if answered is None else answered & has
    every = sorted({m for d in data for m in d.models})
    keep = sorted(answered or set())
    if not keep:
        raise UsageError("every answer in the data is blank (abstained): no model can be "
                         "picked")
    dropped = [m for m in every if m not in set(keep)]
    if dropped:
        data = [cast(ConditionData, d).subset(cols=[d.models.index(m) for m in keep])
                for d in data]
    return data, dropped


def _check_pool(data: list[Any], k: int | None, max_k: int, test_fraction: float) -> None:
    m = len(data[0].models)
    if k is not None and k > m:
        raise UsageError(f"-k {k} is larger than the pool: the data has {m} model(s)")
    need = max(3, int(np.ceil(1.0 / test_fraction)))
    for d in data:
        if len(d.y) < need:
            raise UsageError(f"condition {d.condition!r} has {len(d.y)} item(s), fewer than "
                             f"the {need} needed for {1 - test_fraction:.0%}/"
                             f"{test_fraction:.0%} splits")
        if d.native:
            _check_native_gold(d)
        elif len(np.unique(d.y)) < 2:
            raise UsageError(f"condition {d.condition!r} has only one label class "
                             f"({int(d.y[0]):+d}); selection needs items with both labels "
                             "+1 and -1")


def _check_native_gold(d: Any) -> None:
    """A multi-class condition whose items with gold name at least two distinct options
    (the information selectors' need, as both labels are for the binary ones)."""
    gold = d.y[d.y >= 0]
    labels = {d.options[i][g] for i, g in zip(np.flatnonzero(d.y >= 0).tolist(),
                                              gold.tolist(), strict=True)}
    if len(labels) < 2:
        raise UsageError(f"condition {d.condition!r}: every item with gold has the same gold "
                         f"option ({sorted(labels)[0]!r}); selection needs gold for at least "
                         "two distinct options")


# --------------------------------------------------------------------------- select
def _picks(method: str, X: np.ndarray, y: np.ndarray, k: int, *,
           native: bool = False) -> list[int]:
    """The method's picks on all the data (the same code path as the held-out loop;
    ``native``: option codes and gold codes, ``-1`` = no gold, left out)."""
    from ensel.experiment import exhaustive_errors
    from ensel.select import SELECTORS

    if method == "exhaustive":
        t = exhaustive_errors(X, y, X[:1], y[:1], [k])[k]
        return [int(j) for j in t["combos"][int(np.argmax(t["mi"]))]]
    if native:
        from ensel.select import MULTICLASS_SELECTORS

        return [int(j) for j in MULTICLASS_SELECTORS[method](k).fit(X, y).selected_]
    return [int(j) for j in SELECTORS[method](k).fit(X, y).selected_]


def _k_auto(method: str, aggregator: str, data: list[Any], max_k: int, *, seed: int,
            test_fraction: float, key: str, rows: dict[str, np.ndarray] | None = None,
            n_jobs: int | None = None) -> tuple[int, pd.DataFrame]:
    """One-SE choice of k from ``INNER_SPLITS`` inner splits of each condition's items
    (``rows``: the training rows of an outer split, per condition)."""
    from ensel.experiment import heldout_errors, one_se_k
    from ensel.protocol import Protocol

    inner = Protocol(n_splits=INNER_SPLITS, test_fraction=test_fraction, seed=seed)
    parts = []
    for d in data:
        r = None if rows is None else rows[d.condition]
        ex = method == "exhaustive"
        e = heldout_errors(
            *d.inputs(r), ks=range(1, max_k + 1), protocol=inner,
            condition=f"{d.condition}/{key}",
            selectors=["topk"] if ex else [method], aggregators=[aggregator],
            item_ids=d.items if r is None else d.items[r], exhaustive=ex, n_jobs=n_jobs)
        parts.append(e[e["selector"] == ("exhaustive_mi" if ex else method)])
    return one_se_k(pd.concat(parts, ignore_index=True), test_fraction=test_fraction)


class _RunOptions(TypedDict):
    """The options every run of the protocol in :func:`select_evidence` shares."""

    test_fraction: float
    seed: int
    aggregators: list[str]
    n_jobs: int | None


class _Comparison(TypedDict):
    """One entry of ``evaluation.comparisons`` of the ``ensel.select/2`` document."""

    against: str
    difference: float
    low: float
    high: float
    verdict: str
    interval: str


@dataclass(frozen=True)
class SelectEvidence:
    """What ``ensel select`` found: the picks and their held-out evidence.

    The fields are the keys of the ``ensel.select/2`` document (see the module docstring) in
    its order; :meth:`to_dict` is that document (without the command's ``data`` and
    ``format``, which name its input). ``arm_errors`` is not in the document: the held-out
    error of each arm (``selected``, ``top_k``, ``best_single``) per evaluation, ordered by
    condition and split, so a caller can pair the recommendation with other choices scored
    on the same splits (the report's buy list does).
    """

    view: str
    conditions: list[str]
    n_items: int
    n_models: int
    method: str
    aggregator: str
    defaults: list[str]
    dropped_models: list[str]
    k: int
    k_mode: str
    selected: list[dict[str, Any]]
    evaluation: dict[str, Any] | None
    auto: dict[str, Any] | None
    ensemble_beats_best_single: bool | None
    message: str
    gold: dict[str, Any]
    few_labels: dict[str, Any] | None = None
    arm_errors: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False,
                                              metadata={"document": False})

    def to_dict(self) -> dict[str, Any]:
        """The ``ensel.select/2`` document: ``{"schema": ..., <fields in order>}``."""
        return {"schema": SCHEMA, **{f.name: getattr(self, f.name) for f in fields(self)
                                     if f.metadata.get("document", True)}}


def run_select(df: pd.DataFrame, *, k: int | str, **options: Any) -> dict[str, Any]:
    """:func:`select_evidence` as the ``ensel.select/2`` document (a dict)."""
    return select_evidence(df, k=k, **options).to_dict()


def _resolve_native(method: str | None, aggregator: str | None,
                    label_free: bool) -> tuple[str, str, list[str]]:
    """:func:`_resolve_choices` for option labels: the K-ary registries
    (:data:`ensel.select.MULTICLASS_SPECS`, :data:`ensel.aggregate.MULTICLASS_SPECS`) and
    their defaults; ``label_free`` (gold with gaps): the label-free default aggregator."""
    from ensel import aggregate, select

    defaults: list[str] = []
    specs = aggregate.MULTICLASS_SPECS
    if method is None:
        method = select.DEFAULT_MULTICLASS_SELECTOR
        defaults.append(f"method {method} (ensel.select.DEFAULT_MULTICLASS_SELECTOR)")
    key = resolve_method(method)
    if key not in select.MULTICLASS_SPECS:
        raise UsageError(f"--method {method}: the answers are multi-class (option labels), and "
                         f"{key} reads the binary view; multi-class answers take "
                         f"{', '.join(select.MULTICLASS_SPECS)} (or pass --binary for the "
                         "paper's view)")
    if aggregator is None:
        aggregator = (aggregate.LABEL_FREE_AGGREGATOR if label_free
                      else aggregate.DEFAULT_MULTICLASS_AGGREGATOR)
        defaults.append(f"aggregator {aggregator} (ensel.aggregate."
                        + ("LABEL_FREE_AGGREGATOR: gold is missing for some or all items)"
                           if label_free else "DEFAULT_MULTICLASS_AGGREGATOR)"))
    agg = str(aggregator).strip().lower()
    if agg not in specs:
        raise UsageError(f"--aggregator {aggregator}: the answers are multi-class (option "
                         f"labels); they take {', '.join(specs)} (or pass --binary for the "
                         "paper's view and its aggregators)")
    if defaults and (method == select.DEFAULT_MULTICLASS_SELECTOR
                     or agg == aggregate.DEFAULT_MULTICLASS_AGGREGATOR):
        defaults.append(f"why: {select.DEFAULT_MULTICLASS_REASON}")
    return key, agg, defaults


def _resolve_choices(method: str | None, aggregator: str | None, *, native: bool = False,
                     label_free: bool = False) -> tuple[str, str, list[str]]:
    """A phase of :func:`select_evidence`: the method and the aggregator (registry names),
    and the defaults taken, as the document's ``defaults`` lists them (``native``: of the
    K-ary registries, :func:`_resolve_native`)."""
    from ensel import select
    from ensel.aggregate import DEFAULT_AGGREGATOR, MULTICLASS_SPECS
    from ensel.select import DEFAULT_SELECTOR

    if native:
        return _resolve_native(method, aggregator, label_free)
    if aggregator is not None and str(aggregator).strip().lower() in MULTICLASS_SPECS:
        raise UsageError(f"--aggregator {aggregator} reads multi-class answers (option "
                         f"labels), and these are binary (+1/-1); binary answers take "
                         f"{', '.join(_binary_aggregators())}")
    defaults: list[str] = []
    if method is None:
        method = DEFAULT_SELECTOR
        defaults.append(f"method {method} (ensel.select.DEFAULT_SELECTOR)")
    # the registry names first (EXHAUSTIVE, Greedy-MI, MAP), so the rules below see them
    method = resolve_method(method)
    aggregator = None if aggregator is None else _resolve_aggregator(aggregator)
    if method == "exhaustive":  # the exhaustive scan of experiment is scored with MAP only
        if aggregator not in (None, "map"):
            raise UsageError(f"--method exhaustive is evaluated with --aggregator map only; "
                             f"got {aggregator!r}")
        if aggregator is None:
            aggregator = "map"
            defaults.append("aggregator map (the exhaustive scan's)")
    if aggregator is None:
        aggregator = DEFAULT_AGGREGATOR
        defaults.append(f"aggregator {aggregator} (ensel.aggregate.DEFAULT_AGGREGATOR)")
    reason = getattr(select, "DEFAULT_REASON", None)
    if reason and (method == DEFAULT_SELECTOR or aggregator == DEFAULT_AGGREGATOR) and \
            len(defaults):
        defaults.append(f"why: {reason}")
    return resolve_method(method), _resolve_aggregator(aggregator), defaults


def _conditions(df: Any, condition: str | None,
                validated: bool) -> tuple[list[Any], list[str]]:
    """A phase of :func:`select_evidence`: the conditions' data (one condition if asked)
    without the models that cannot be picked, and those models' names."""
    from ensel.experiment import condition_data

    try:
        if isinstance(df, pd.DataFrame):
            data = condition_data(df, None if condition is None else [condition],
                                  validate=not validated, gaps=True)
        else:
            data = [d for d in df if condition is None or d.condition == str(condition)]
            if not data:
                raise UsageError(f"condition {condition!r} not in the table")
    except ValueError as exc:
        if condition is not None and "not in the table" in str(exc):
            known = (sorted({str(c) for c in df["condition"].unique()})
                     if isinstance(df, pd.DataFrame) and "condition" in df.columns
                     else sorted(d.condition for d in df)
                     if not isinstance(df, pd.DataFrame) else ["all"])
            raise UsageError(f"--condition: unknown condition {condition!r}; the data has "
                             f"{', '.join(known)}") from None
        raise
    data, dropped = _pickable(data)
    if dropped:
        from ensel._notice import notice

        shown = ", ".join(dropped[:5]) + (f" and {len(dropped) - 5} more" if len(dropped) > 5
                                          else "")
        notice(f"{len(dropped)} model(s) dropped: no answer in condition(s) "
               f"{', '.join(d.condition for d in data)} ({shown}); they cannot be picked")
    return data, dropped


def _auto_results(method: str, aggregator: str, data: list[Any], max_k: int, n_splits: int,
                  opts: _RunOptions, step: Callable[[str], None]
                  ) -> tuple[int, pd.DataFrame, dict[str, Any]]:
    """A phase of :func:`select_evidence` with ``k="auto"``: the deployed ``k``, the held-out
    errors of the procedure (``k`` chosen inside each split, relabelled ``auto`` and
    ``topk_auto`` at the deployed ``k``) and the document's ``auto`` entry."""
    from ensel.experiment import evaluate, split_indices

    seed, test_fraction, n_jobs = opts["seed"], opts["test_fraction"], opts["n_jobs"]
    code = "exhaustive_mi" if method == "exhaustive" else method
    k_all, table = _k_auto(method, aggregator, data, max_k, seed=seed,
                           test_fraction=test_fraction, key="auto", n_jobs=n_jobs)
    step("k on all data")
    res = evaluate(data, ks=range(1, max_k + 1), n_splits=n_splits,
                   selectors=_base_selectors(method), exhaustive=method == "exhaustive",
                   **opts)
    step("held-out errors")
    per_split: list[int] = []
    chosen, topk_at = [], []
    for s in range(n_splits):
        rows = {d.condition: split_indices(len(d.y), condition=d.condition, split=s,
                                           seed=seed, test_fraction=test_fraction,
                                           item_ids=d.items)[0] for d in data}
        k_s = _k_auto(method, aggregator, data, max_k, seed=seed,
                      test_fraction=test_fraction, key=f"split{s}/auto", rows=rows,
                      n_jobs=n_jobs)[0]
        per_split.append(k_s)
        step(f"nested split {s + 1}/{n_splits}")
        at = res[(res["split"] == s) & (res["k"] == k_s)]
        chosen.append(at[at["selector"] == code])
        topk_at.append(at[at["selector"] == "topk"])
    kk = int(min(k_all, sorted(per_split)[(len(per_split) - 1) // 2]))
    # the procedure's errors (k chosen per split), relabelled at the deployed k
    results = pd.concat([
        pd.concat(chosen).assign(selector="auto", k=kk),
        pd.concat(topk_at).assign(selector="topk_auto", k=kk),
        res[(res["selector"] == "topk") & (res["k"] == 1)],
    ], ignore_index=True)
    results.attrs = res.attrs
    auto_doc = {"max_k": max_k, "inner_splits": INNER_SPLITS,
                "rule": "one standard error (corrected) of the best inner error; "
                        "deployed k = min(choice on all data, lower median of the "
                        "per-split choices)",
                "inner_error": {str(int(r.k)): float(r.mean) for r in table.itertuples()},
                "inner_se": {str(int(r.k)): float(r.se) for r in table.itertuples()},
                "k_all_data": int(k_all), "k_per_split": per_split}
    return kk, results, auto_doc


def _base_selectors(method: str) -> list[str]:
    """The selectors the held-out loop runs for ``method`` (top-k always, as the baseline)."""
    return ["topk"] if method in ("topk", "exhaustive") else [method, "topk"]


def _protocol_sizes(data: list[Any], n_splits: int | None, halvings: int | None,
                    defaults: list[str]) -> tuple[int, int, int | None]:
    """The splits, halvings and splits per half of :func:`select_evidence` (the protocol's
    rule for the table's size where not given, appended to ``defaults``)."""
    cells = sum(d.X.size for d in data)
    large = SELECT_PROTOCOL.is_large(cells)
    rule = SELECT_PROTOCOL.for_table(cells)
    splits_per_half = None
    if n_splits is None:
        n_splits = rule.n_splits
        defaults.append(f"{n_splits} splits" + (f" (large pool: {cells:,} answer cells > "
                                                f"{LARGE_POOL:,})" if large else ""))
    if halvings is None:
        halvings, splits_per_half = rule.n_halvings, rule.splits_per_half
        defaults.append(f"{halvings} halvings" + (" with one split per half (large pool)"
                                                  if large else ""))
    return n_splits, halvings, splits_per_half


def _replicates(data: list[Any], method: str, kk: int, halvings: int,
                splits_per_half: int | None, auto: bool, opts: _RunOptions) -> pd.DataFrame:
    """The half-sample replicates of :func:`select_evidence` (with ``k="auto"``, also
    labelled ``auto`` and ``topk_auto`` as the procedure's errors are)."""
    from ensel.experiment import half_sample_errors
    from ensel.protocol import Protocol

    halved = Protocol(n_halvings=halvings, splits_per_half=splits_per_half,
                      test_fraction=opts["test_fraction"], seed=opts["seed"])
    reps = half_sample_errors(data, protocol=halved, ks=sorted({1, kk}),
                              selectors=["topk"] if method == "topk" else [method, "topk"],
                              aggregators=opts["aggregators"], n_jobs=opts["n_jobs"])
    if auto:
        reps = pd.concat([reps, reps[reps["selector"] == method].assign(selector="auto"),
                          reps[reps["selector"] == "topk"].assign(selector="topk_auto")],
                         ignore_index=True)
    return reps


def _selected_rows(X: np.ndarray, y: np.ndarray, models: list[str],
                   picks: list[int], *, native: bool = False) -> list[dict[str, Any]]:
    """A phase of :func:`select_evidence`: the document's ``selected`` (one row per pick, on
    all the data; ``native``: option codes, accuracy and gains on the items with gold,
    coverage on all)."""
    from ensel.select import marginal_gains

    if native:
        g = y >= 0
        rows = _option_rows(X, g, X[g] == y[g, None], models, picks)
        for r, gain in zip(rows, option_gains(X[g], y[g], picks), strict=True):
            r["gain_bits"] = gain
        return rows
    acc = (X == y[:, None]).mean(axis=0)
    gains = marginal_gains(X, y, picks)
    answered = (X != 0).sum(axis=0)
    return [{"rank": r + 1, "model": models[j], "accuracy": float(acc[j]),
             "gain_bits": float(g), "coverage": float(answered[j] / len(y)),
             "accuracy_answered": (float((X[:, j] == y).sum() / answered[j])
                                   if answered[j] else None)}
            for r, (j, g) in enumerate(zip(picks, gains, strict=True))]


def _option_rows(A: np.ndarray, scored: np.ndarray, right: np.ndarray, models: list[str],
                 picks: list[int]) -> list[dict[str, Any]]:
    """The ``selected`` rows on option codes ``A`` (``gain_bits`` 0, filled by the caller):
    ``right`` (the ``scored`` items x models) is 1 where a model's answer is the gold, or the
    posterior probability that it is; coverage is read on every item, accuracy and accuracy
    when answered on the scored items."""
    coverage = (A >= 0).mean(axis=0)
    answered = (A[scored] >= 0).sum(axis=0)
    n = max(int(scored.sum()), 1)
    out = []
    for r, j in enumerate(picks):
        hits = float(right[:, j].sum())
        out.append({"rank": r + 1, "model": models[j], "accuracy": hits / n, "gain_bits": 0.0,
                    "coverage": float(coverage[j]),
                    "accuracy_answered": hits / int(answered[j]) if answered[j] else None})
    return out


def option_gains(A: np.ndarray, y: np.ndarray, picks: Any, alpha: float = 1.0) -> list[float]:
    """``I(Y; X_{S_t}) - I(Y; X_{S_{t-1}})`` in bits along ``picks`` on option codes: the
    K-ary form of :func:`ensel.select.marginal_gains` (the alphabet of
    :class:`ensel.select.MulticlassGreedyMI`: ``K`` options per model, ``K + 1`` where it
    abstains; ``y`` codes, every item with gold).

    Examples
    --------
    >>> from ensel.pools import multiclass_pool
    >>> from ensel.select import MulticlassGreedyMI
    >>> p = multiclass_pool(6, 1000, abstain=(0.0, 0.1), random_state=0)
    >>> g = MulticlassGreedyMI(3).fit(p.A, p.y)
    >>> np.allclose(option_gains(p.A, p.y, g.selected_), g.gains_)
    True
    """
    from ensel.info import _smoothed_mi_codes

    A = np.asarray(A, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    classes = np.unique(np.concatenate([A[A >= 0], y]))
    K = len(classes)
    yc = np.searchsorted(classes, y)
    codes = np.zeros(len(y), dtype=np.int64)
    size, prev, out = 1, 0.0, []
    for j in picks:
        col = A[:, int(j)]
        d = np.where(col >= 0, np.searchsorted(classes, np.maximum(col, 0)), K)
        radix = K + 1 if (col < 0).any() else K
        _, codes = np.unique(codes * (K + 1) + d, return_inverse=True)
        codes = codes.reshape(-1)
        size *= radix
        mi = _smoothed_mi_codes(yc, codes, K, size, alpha)
        out.append(float(mi - prev))
        prev = mi
    return out


def _arms_and_comparisons(results: pd.DataFrame, reps: pd.DataFrame | None, *, a: str,
                          method: str, aggregator: str, kk: int, auto: bool,
                          test_fraction: float, confidence: float
                          ) -> tuple[dict[str, Any], list[_Comparison], dict[str, np.ndarray]]:
    """A phase of :func:`select_evidence`: each arm's held-out error with its interval, the
    paired comparisons of the selected arm (``a``) with top-k and the best single, and each
    arm's errors per evaluation (by condition and split)."""
    from ensel.experiment import paired_differences
    from ensel.stats import paired_interval

    errors: dict[str, np.ndarray] = {}

    def arm(sel: str, kb: int, name: str) -> dict[str, Any]:
        e = results[(results["selector"] == sel) & (results["k"] == kb)]
        e = e.sort_values(["condition", "split"])["error"].to_numpy(dtype=float)
        errors[name] = e
        r = paired_interval(e, n_train=1 - test_fraction, n_test=test_fraction,
                            confidence=confidence)
        return {"error": r.mean, "low": max(r.low, 0.0), "high": min(r.high, 1.0)}

    a_top = "topk_auto" if auto else "topk"
    arms = {"selected": {**arm(a, kk, "selected"), "k": None if auto else kk},
            "top_k": {**arm(a_top, kk, "top_k"), "k": None if auto else kk},
            "best_single": {**arm("topk", 1, "best_single"), "k": 1}}
    comparisons: list[_Comparison] = []
    for other, sel_b, k_b in (("top_k", a_top, None), ("best_single", "topk", 1)):
        if other == "top_k" and method == "topk":
            continue
        row = paired_differences(results, a, sel_b, k_b=k_b, aggregator=aggregator,
                                 confidence=confidence, n_boot=0, replicates=reps)
        row = row[row["k"] == kk].iloc[0]
        comparisons.append({"against": other, "difference": float(row["mean_diff"]),
                            "low": float(row["ci_low"]), "high": float(row["ci_high"]),
                            "verdict": str(row["verdict"]), "interval": str(row["interval"])})
    return arms, comparisons, errors


def _verdict_message(kk: int, beats: bool, vs_single: _Comparison,
                     auto_doc: dict[str, Any] | None, n_splits: int, auto: bool) -> str:
    """The document's one-sentence ``message``."""
    if kk == 1:
        return ("One model is enough: the cross-validated choice of k is 1"
                + (f" ({auto_doc['k_per_split'].count(1)} of {n_splits} nested splits "
                   "chose k = 1)." if auto_doc else ".")
                if auto else "k = 1: a single model, no ensemble.")
    if not beats:
        return (f"No ensemble beats the best single model here: the {kk}-model ensemble's "
                f"error differs from the best single model's by "
                f"{vs_single['difference']:+.4f} [{vs_single['low']:+.4f}, "
                f"{vs_single['high']:+.4f}] ({vs_single['verdict']}).")
    return (f"The {kk}-model ensemble beats the best single model by "
            f"{-vs_single['difference']:.4f} error "
            f"[{-vs_single['high']:.4f}, {-vs_single['low']:.4f}].")


def select_evidence(df: pd.DataFrame, *, k: int | str, method: str | None = None,
               aggregator: str | None = None, condition: str | None = None,
               n_splits: int | None = None,
               test_fraction: float = SELECT_PROTOCOL.test_fraction, seed: int = 0,
               max_k: int = 10, confidence: float = 0.95,
               halvings: int | None = None, validated: bool = False,
               progress: bool = False, n_jobs: int | None = None) -> SelectEvidence:
    """The evidence procedure of ``ensel select`` on a tidy table (see the module docstring).

    Its phases: the method and aggregator (:func:`_resolve_choices`), the conditions
    (:func:`_conditions`), the protocol's sizes (:func:`_protocol_sizes`), the held-out
    errors (with ``k="auto"``, :func:`_auto_results`) and half-sample replicates
    (:func:`_replicates`), the picks on all the data (:func:`_selected_rows`), the arms and
    comparisons (:func:`_arms_and_comparisons`), and the document.

    Parameters
    ----------
    df : pandas.DataFrame or list of ConditionData
        Tidy table (validated by :func:`ensel.experiment.condition_data`), or its
        :func:`~ensel.experiment.condition_data` (pivoted once already).
    k : int or "auto"
    method : str, optional
        A name of :data:`ensel.select.SELECTORS` (or an alias), or ``"exhaustive"``;
        default :data:`ensel.select.DEFAULT_SELECTOR`.
    aggregator : str, optional
        A name of :data:`ensel.aggregate.AGGREGATORS`; default
        :data:`ensel.aggregate.DEFAULT_AGGREGATOR`.
    condition : str, optional
        Use one condition only (default: all, stacked for the picks).
    n_splits : int, optional
        Random 80/20 splits per condition (default 20; 10 for a large pool).
    test_fraction, seed, max_k, confidence
        As in the command line.
    halvings : int, optional
        Half-sample replicates for the intervals (0: the corrected t alone; default 10, or 5
        with one split per half for a large pool).
    validated : bool, default=False
        ``df`` comes from a reader of :mod:`ensel.datasets` (already validated): skip the
        second validation.
    progress : bool, default=False
        A tqdm progress bar on stderr, one step per phase (with ``k="auto"``, one per outer
        split of the nested choice of ``k``); never on stdout.
    n_jobs : int, optional
        Threads for the splits (:func:`ensel.experiment.heldout_errors`; ``-1``: one per
        core, the command line's default); the document is the same whatever ``n_jobs``.
    """
    if k != "auto" and int(k) < 1:
        raise UsageError(f"-k must be a positive integer or 'auto'; got {k}")
    data, dropped = _conditions(df, condition, validated)
    opts: dict[str, Any] = {"n_splits": n_splits, "test_fraction": test_fraction, "seed": seed,
            "max_k": max_k, "confidence": confidence, "halvings": halvings,
            "progress": progress, "n_jobs": n_jobs}
    if not all(d.has_gold().all() for d in data):
        return select_with_gaps(data, k=k, method=method, aggregator=aggregator,
                                dropped=dropped, **opts)
    method, aggregator, defaults = _resolve_choices(method, aggregator,
                                                    native=data[0].native)
    return _evidence(data, dropped, k=k, method=method, aggregator=aggregator,
                     defaults=defaults, **opts)


def _evidence(data: list[Any], dropped: list[str], *, k: int | str, method: str,
              aggregator: str, defaults: list[str], n_splits: int | None,
              test_fraction: float, seed: int, max_k: int, confidence: float,
              halvings: int | None, progress: bool, n_jobs: int | None) -> SelectEvidence:
    """The held-out evidence of :func:`select_evidence` on the conditions' data (every item
    with gold, or enough of them: :func:`select_with_gaps`), the method and aggregator
    resolved."""
    from ensel.experiment import evaluate, half_splits

    auto = k == "auto"
    kk = None if auto else int(k)
    native = bool(data[0].native)
    m = len(data[0].models)
    max_k = min(int(max_k), m)
    _check_pool(data, kk, max_k, test_fraction)
    if method == "exhaustive" and m > EXHAUSTIVE_LIMIT:
        raise UsageError(f"--method exhaustive scans every subset and accepts at most "
                         f"{EXHAUSTIVE_LIMIT} models; the data has {m} (use --method "
                         "greedy_mi)")
    n_splits, halvings, splits_per_half = _protocol_sizes(data, n_splits, halvings, defaults)

    X_all = np.concatenate([d.X for d in data])
    y_all = np.concatenate([d.y for d in data])
    exhaustive = method == "exhaustive"
    opts: _RunOptions = {"test_fraction": test_fraction, "seed": seed,
                         "aggregators": [aggregator], "n_jobs": n_jobs}

    from tqdm import tqdm

    # progress on stderr only (stdout may carry --json); a bar that is never closed (an
    # error below) is closed by tqdm when it is collected
    bar = tqdm(total=(n_splits + 2 if auto else 1) + (1 if halvings and not exhaustive else 0)
               + 1, desc="ensel select", unit="step", file=sys.stderr, disable=not progress,
               leave=False, dynamic_ncols=True)

    def step(what: str) -> None:
        bar.set_postfix_str(what, refresh=False)
        bar.update(1)

    auto_doc: dict[str, Any] | None = None
    if auto:
        kk, results, auto_doc = _auto_results(method, aggregator, data, max_k, n_splits,
                                              opts, step)
        a = "auto"
    else:
        assert kk is not None  # not auto: kk = int(k) above
        results = evaluate(data, ks=sorted({1, kk}), n_splits=n_splits,
                           selectors=_base_selectors(method), exhaustive=exhaustive, **opts)
        step("held-out errors")
        a = "exhaustive_mi" if exhaustive else method
    reps = None
    if halvings and not exhaustive:
        reps = _replicates(data, method, kk, halvings, splits_per_half, auto, opts)
        step("half-sample replicates")

    picks = _picks(method, X_all, y_all, kk, native=native)
    step("picks")
    bar.close()
    selected = _selected_rows(X_all, y_all, data[0].models, picks, native=native)
    arms, comparisons, arm_errors = _arms_and_comparisons(
        results, reps, a=a, method=method, aggregator=aggregator, kk=kk, auto=auto,
        test_fraction=test_fraction, confidence=confidence)
    vs_single = next(c for c in comparisons if c["against"] == "best_single")
    beats = kk > 1 and vs_single["verdict"] == "holds"
    message = _verdict_message(kk, beats, vs_single, auto_doc, n_splits, auto)
    n_eval = int(((results["selector"] == a) & (results["k"] == kk)).sum())
    return SelectEvidence(
        view="native" if native else "binary",
        conditions=[d.condition for d in data],
        n_items=int(sum(len(d.y) for d in data)),
        n_models=m,
        method=method,
        aggregator=aggregator,
        defaults=defaults,
        dropped_models=dropped,
        k=int(kk),
        k_mode="auto" if auto else "fixed",
        selected=selected,
        evaluation={
            "n_splits": int(n_splits),
            "n_evaluations": n_eval,
            "test_fraction": float(test_fraction),
            "seed": int(seed),
            "confidence": float(confidence),
            "correction": ("larger of nadeau-bengio corrected resampled t and half-sample "
                           "replicates" if reps is not None
                           else "nadeau-bengio corrected resampled t"),
            "n_halvings": int(halvings) if reps is not None else 0,
            "splits_per_half": (int(splits_per_half or half_splits(len(data)))
                                if reps is not None else 0),
            "arms": arms,
            "comparisons": comparisons,
        },
        auto=auto_doc,
        ensemble_beats_best_single=bool(beats),
        message=message,
        arm_errors=arm_errors,
        gold=gold_summary(data),
    )




# --------------------------------------------------------------------------- a dollar budget
#: The methods whose choices within a dollar budget compete (:data:`ensel.budget.PICK_METHODS`).
BUDGET_METHODS = ("budgeted", "topk_budget", "cheapest_first", "best_single")
_BUDGET_COLUMNS = ["condition", "split", "method", "budget", "error", "cost", "n_models",
                   "selected", "n_test"]


@validate_params({"usd": ["array-like"], "budget": [Real],
                  "n_budgets": [Interval(Integral, 1, None)]})
def budget_candidates(usd: Any, budget: float, n_budgets: int = 6) -> np.ndarray:
    """The budgets whose choices compete within ``budget``: every model price up to it (so
    each single model on the accuracy-price front is a candidate), a geometric grid from
    the cheapest price and ``budget`` itself.

    Examples
    --------
    >>> budget_candidates([1.0, 2.0, 8.0], 4.0, n_budgets=3).tolist()
    [1.0, 2.0, 4.0]
    """
    from ensel.costs import within

    c = np.asarray(usd, dtype=float)
    lo = float(c.min())
    grid = np.geomspace(lo, budget, n_budgets) if budget > lo else np.array([lo])
    return np.unique(np.r_[c[within(c, budget)], grid, budget])


def _budget_errors(data: list[Any], c: np.ndarray, grid: np.ndarray, budget: float, *,
                   cap: int, aggregator: str, protocol: Any) -> pd.DataFrame:
    """A phase of :func:`budget_evidence`, the one place that fits and scores the choices on
    the protocol's splits: on each split, every model alone within ``budget`` and each
    method's picks within each budget of ``grid`` (:func:`ensel.budget.picks_within` on the
    training part), aggregated, fitted on the training part and scored on its test part
    (one fit per subset and split); the rows of :func:`ensel.frontier.frontier_errors`."""
    from ensel.budget import picks_within, single_rows, subset_error
    from ensel.experiment import _mv_seed, split_indices
    from ensel.select._budgeted import shared_fits

    rows: list[tuple[Any, ...]] = []
    seed = protocol.seed
    for d in data:
        names = list(d.models)
        for s in range(protocol.n_splits):
            tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=seed,
                                   test_fraction=protocol.test_fraction, item_ids=d.items)
            part = (d.X[tr], d.y[tr], d.X[te], d.y[te])
            mv = _mv_seed(seed, d.condition, s)
            fitted: dict[tuple[int, ...], float] = {}  # error of each subset, by its columns
            rows += single_rows(d, s, part, c, budget, aggregator, mv, names, fitted)
            with shared_fits(part[0], part[1]):  # the budgets share their greedy fits
                for b in grid:
                    for name, cols in picks_within(part[0], part[1], c, b, cap).items():
                        key = tuple(sorted(cols))
                        if key not in fitted:
                            fitted[key] = subset_error(part, cols, aggregator, mv)
                        rows.append((d.condition, s, name, b, fitted[key],
                                     float(c[cols].sum()), len(cols),
                                     "|".join(names[j] for j in cols), len(te)))
    return pd.DataFrame(rows, columns=_BUDGET_COLUMNS)


def _budget_arms(at_b: pd.DataFrame, c: np.ndarray, budget: float, test_fraction: float
                 ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """A phase of :func:`budget_evidence`: each method's held-out error and cost at the
    budget with intervals (costs clipped to ``[cheapest price, budget]``), budgeted
    selection's paired differences to the baselines, and the number of evaluations."""
    from ensel.budget import mean_interval
    from ensel.frontier import _diff

    arms = {}
    for name, g in at_b.groupby("method", sort=False):
        e = mean_interval(g["error"].to_numpy(), test_fraction, 0.95)
        k = mean_interval(g["cost"].to_numpy(), test_fraction, 0.95,
                          clip=(float(np.min(c)), budget))
        arms[str(name)] = {"error": e[0], "error_low": e[1], "error_high": e[2],
                           "cost": k[0], "cost_low": k[1], "cost_high": k[2]}
    a = at_b[at_b["method"] == "budgeted"]["error"].to_numpy()
    comparisons = [{"against": other,
                    **_diff(a - at_b[at_b["method"] == other]["error"].to_numpy(),
                            test_fraction, 0.95)}
                   for other in BUDGET_METHODS[1:]]
    return arms, comparisons, int(len(a))


@validate_params({"data": ["sequence"], "usd": ["array-like"], "budget": [Real],
                  "k": [Interval(Integral, 1, None), None], "aggregator": [str],
                  "protocol": [Protocol], "max_models": [Interval(Integral, 1, None)],
                  "margin": [Interval(Real, 0, 1, closed="neither"), None]})
def budget_evidence(data: Any, usd: Any, budget: float, *, k: int | None = None,
                    aggregator: str = "backoff", protocol: Protocol = PAPER_PROTOCOL,
                    max_models: int = 20, margin: float | None = None) -> dict[str, Any]:
    """The evidence of ``ensel select --budget-usd``: the ``ensel.select-budget/2``
    document (:mod:`ensel.cli.select`) without ``schema``, ``data``, ``prices`` and
    ``dropped_models``.

    Its phases: the candidate budgets (:func:`budget_candidates`), the choices within each
    and every model alone, fitted and scored on the protocol's splits
    (:func:`_budget_errors`), each method's arm at the budget (:func:`_budget_arms`), the
    buy list's rule (:func:`ensel.budget.buy_list`: the cheapest choice as good as the
    best), and the choice deployed on all the data (:func:`ensel.budget.deployed_models`).

    Parameters
    ----------
    data : list of ConditionData
        The conditions (:func:`ensel.experiment.condition_data`), all with the same models.
    usd : array-like of shape (n_models,)
        Dollars per query of each model, in the order of the data's models.
    budget : float
        The most paid per query (every model of a choice is asked on every query).
    k : int, optional
        The most models of a choice (default ``max_models``).
    aggregator : str, default="backoff"
    protocol : ensel.protocol.Protocol, default=PAPER_PROTOCOL
        Its splits (the paper's: 5 random 80/20 splits per condition).
    max_models : int, default=20
    margin : float, optional
        The equivalence margin (default :data:`ensel.budget.EQUIVALENCE_MARGIN`).
    """
    from ensel.budget import EQUIVALENCE_MARGIN, EQUIVALENCE_RULE, buy_list, deployed_models
    from ensel.costs import COST_RTOL, check_budget

    pr = protocol
    c = np.asarray(usd, dtype=float)
    delta = EQUIVALENCE_MARGIN if margin is None else float(margin)
    b = check_budget(budget, c, name="budget")
    models = list(data[0].models)
    cap = min(len(models), max_models if k is None else int(k))
    grid = budget_candidates(c, b)
    res = _budget_errors(data, c, grid, b, cap=cap, aggregator=aggregator, protocol=pr)
    singles = res[res["method"] == "single"]
    res = res[res["method"] != "single"].sort_values(["method", "condition", "split"])
    at_b = res[np.isclose(res["budget"], b, rtol=COST_RTOL, atol=0)]
    arms, comparisons, n_eval = _budget_arms(at_b, c, b, pr.test_fraction)
    buy = buy_list(pd.concat([res, singles], ignore_index=True), [b], margin=delta,
                   test_fraction=pr.test_fraction, min_cost=float(np.min(c)))[0]
    choice = buy["choice"]
    X = np.concatenate([d.X for d in data])
    y = np.concatenate([d.y for d in data])
    picks = ([models.index(choice["models"][0])] if choice["method"] == "single"
             else deployed_models(X, y, c, choice["method"], choice["at_budget"], k=cap))
    own = deployed_models(X, y, c, "budgeted", b, k=cap)
    table = model_table(data, c)
    used = sorted(set(picks) | set(own), key=lambda j: -float(table["accuracy"].iloc[j]))
    return {"budget_usd": b, "n_items": int(sum(len(d.y) for d in data)),
            "n_models": len(models), "aggregator": aggregator,
            "selected": _price_rows(table, picks), "cost": float(c[picks].sum()),
            "recommendation": {**choice, "deployed_models": [models[j] for j in picks],
                               "test_against_best": buy["test"],
                               "why_not_cheaper": buy["why_not_cheaper"]},
            "best": buy["best"],
            "equivalence": {"margin": delta, "rule": EQUIVALENCE_RULE.format(margin=delta),
                            "n_candidates": buy["n_candidates"],
                            "candidate_budgets": [float(x) for x in grid]},
            "budgeted": {"selected": [models[j] for j in own], "cost": float(c[own].sum())},
            "arms": arms, "comparisons": comparisons,
            "model_table": _price_rows(table, used),
            "error_rule": ERROR_RULE,
            "evaluation": {"n_splits": pr.n_splits, "n_evaluations": n_eval,
                           "test_fraction": pr.test_fraction, "seed": pr.seed,
                           "confidence": 0.95,
                           "interval": "nadeau-bengio corrected resampled t",
                           "cost_interval": f"clipped to [{float(np.min(c)):.4g} (the cheapest "
                                            f"model), {b:.4g} (the budget)]"}}


def _price_rows(table: pd.DataFrame, cols: Any = None) -> list[dict[str, Any]]:
    """Rows ``cols`` of :func:`model_table` (with prices; ``None``: every row) as JSON
    values, ``accuracy_answered`` ``None`` for a model that never answered."""
    t = table if cols is None else table.iloc[list(cols)]
    keep = ["model", "usd_per_query", "accuracy", "coverage", "accuracy_answered"]
    return [{k: (None if k == "accuracy_answered" and np.isnan(r[k]) else
                 str(r[k]) if k == "model" else float(r[k]))
             for k in keep if k in t.columns} for _, r in t.iterrows()]



# --------------------------------------------------------------------------- gold with gaps
#: The command that ranks the items to label next (``DATA`` stands for the user's data).
LABEL_NEXT = "ensel label-next DATA -n 10"


def gold_summary(data: list[Any], *, aggregator: str | None = None,
                 few: dict[str, Any] | None = None) -> dict[str, Any]:
    """The document's ``gold``: how many items have gold and what that means for the figures.

    ``n_items``/``n_with_gold`` count the items of the conditions used (stacked);
    ``aggregator_fit``, ``statistics`` and ``error`` say in words how the aggregator was
    fitted, where the selection statistics (accuracy, gains) come from and how the error
    figure was obtained (``None``: there is none, ``notes`` says why); ``intervals`` is one
    plain sentence on what the intervals mean here. ``few`` is the document's
    ``few_labels`` (gold for some items).
    """
    n = int(sum(len(d.y) for d in data))
    g = int(sum(int(d.has_gold().sum()) for d in data))
    if g == n:
        return {"n_items": n, "n_with_gold": g, "aggregator_fit": "on the gold of the "
                "training part", "statistics": "on every item (all have gold)",
                "error": "on every test item", "notes": [],
                "intervals": "each interval is of the held-out error over random splits of "
                             "items that all have gold"}
    said = _said(aggregator)
    if g:
        fit = (f"label-free, by {said}: EM on all the answers, the {g:,} items with gold "
               "anchoring it")
        notes = [f"gold for {g:,} of {n:,} items: the error and its interval are estimated "
                 f"from the {g:,} labels and the label-free model's posterior on the "
                 f"{n - g:,} unlabelled items, recalibrated by the labels "
                 "(ensel.fewlabels.choose_with_labels), not measured on held-out items",
                 f"label the items that decide the choice next: {LABEL_NEXT}"]
        if few is not None:
            notes[1:1] = [few["unlabelled_added"], few["decision"]]
        return {"n_items": n, "n_with_gold": g, "aggregator_fit": fit,
                "statistics": f"accuracy and gains on the {g:,} items with gold; the picks "
                              "on the gold and the label model's most probable option "
                              "elsewhere",
                "error": "estimated from the labels and the unlabelled items' posterior",
                "notes": notes,
                "intervals": f"the intervals rest on {g:,} gold labels and widen as they get "
                             "fewer; they are the estimate's uncertainty, not the spread of "
                             "held-out errors"}
    notes = ["no error figure: no item has a gold label, and an error is measured against gold",
             f"selection statistics come from the label-free posterior of {said}: a "
             "model's accuracy is the posterior probability of its answers, the picks and "
             "gains are computed against the posterior's most probable option (the models' "
             "consensus, not the truth); coverage needs no label",
             "not available without gold: errors, their intervals, the comparisons with "
             "Top-k and the best single model, -k auto",
             f"label a first handful: {LABEL_NEXT} --strategy disagreement (the items the "
             "models disagree on most)"]
    return {"n_items": n, "n_with_gold": 0,
            "aggregator_fit": f"label-free, by {said}: EM on all the answers",
            "statistics": f"from the label-free posterior of {said}", "error": None,
            "notes": notes,
            "intervals": "there are no intervals: without any gold label nothing says how "
                         "often the consensus of the models is wrong"}


def _said(aggregator: str | None) -> str:
    """An aggregator in prose: its name and the key that selects it (``Dawid-Skene
    (ds)``)."""
    from ensel.aggregate import aggregator_name

    name = aggregator_name(aggregator) if aggregator else ""
    return f"{name} ({aggregator})" if name and name != aggregator else str(aggregator)


def _gap_data(answers: Any, gold: Any) -> list[Any]:
    """:func:`select_with_gaps`' input as conditions' data: an OptionMatrix (with ``gold``
    in place of its own when given), or conditions' data (multi-class or binary, the gaps
    ``-1`` or ``0``)."""
    from ensel.data import OptionMatrix
    from ensel.experiment import ConditionData

    if isinstance(answers, OptionMatrix):
        g = answers.gold if gold is None else np.asarray(gold)
        if g.shape != answers.gold.shape:
            raise UsageError(f"gold has {g.shape[0] if g.ndim else 0} entries; the answers have "
                             f"{answers.gold.shape[0]} items")
        g = np.where(pd.isna(g), -1, g).astype(np.int16) if g.dtype == object else \
            g.astype(np.int16)
        k = answers.n_options
        bad = (g < -1) | (g >= k)
        if bad.any():
            i = int(np.argmax(bad))
            raise UsageError(f"gold of item {answers.items[i]!r} is code {int(g[i])}, outside "
                             f"-1..{int(k[i]) - 1} (its {int(k[i])} options; -1 = no gold)")
        return [ConditionData(str(answers.condition), np.asarray(answers.A), g,
                              [str(m) for m in answers.models], np.asarray(answers.items,
                                                                           dtype=object),
                              list(answers.options))]
    data = list(answers)
    if gold is not None or not data or not all(isinstance(d, ConditionData) for d in data):
        raise UsageError("select_with_gaps takes an ensel.data.OptionMatrix and a gold vector "
                         "with gaps, or the conditions' data of a table (whose gold it "
                         "reads)")
    return data


def _codes(data: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """The stacked answers and gold as option codes (binary: ``-1`` -> 0, ``+1`` -> 1, an
    abstention or no gold ``-1``)."""
    X = np.concatenate([d.X for d in data])
    y = np.concatenate([d.y for d in data])
    if data[0].native:
        return X.astype(np.int64), y.astype(np.int64)
    return np.where(X == 0, -1, (X > 0)).astype(np.int64), np.where(y == 0, -1, (y > 0)
                                                                      ).astype(np.int64)


def _resolve_gaps(method: str | None, aggregator: str | None, *, native: bool,
                  g: int, n: int) -> tuple[str, str, list[str]]:
    """The method and aggregator of the gold-with-gaps path and the defaults taken: a
    selector of the view's registry, an aggregator of :data:`ensel.fewlabels.AGGREGATORS`
    (the label-free model and its variants, or plurality)."""
    from ensel import select
    from ensel.aggregate import LABEL_FREE_AGGREGATOR
    from ensel.fewlabels import AGGREGATORS

    defaults: list[str] = []
    if method is None:
        method = select.DEFAULT_MULTICLASS_SELECTOR if native else select.DEFAULT_SELECTOR
        defaults.append(f"method {method} (ensel.select."
                        f"{'DEFAULT_MULTICLASS_SELECTOR' if native else 'DEFAULT_SELECTOR'})")
    key = resolve_method(method)
    known = [s for s in (select.MULTICLASS_SELECTORS if native else select.SELECTORS)
             if s != "budgeted"]
    if key not in known:
        view = "multi-class (option labels)" if native else "binary"
        raise UsageError(f"--method {method}: with gold for {g:,} of {n:,} items the choice "
                         f"is made by ensel.fewlabels.choose_with_labels, whose selectors on "
                         f"{view} answers are {', '.join(known)}")
    if aggregator is None:
        aggregator = LABEL_FREE_AGGREGATOR
        defaults.append(f"aggregator {aggregator} (ensel.aggregate.LABEL_FREE_AGGREGATOR: "
                        "gold is missing for some or all items)")
    agg = str(aggregator).strip().lower()
    if agg not in AGGREGATORS:
        raise UsageError(f"--aggregator {aggregator} is fitted on gold labels, and gold is "
                         f"missing for {n - g:,} of {n:,} items; with gaps use a label-free "
                         f"one: {', '.join(AGGREGATORS)}")
    return key, agg, defaults


@validate_params({"answers": "no_validation", "gold": ["array-like", None],
                  "k": [Interval(Integral, 1, None), StrOptions({"auto"})],
                  "method": [str, None], "aggregator": [str, None],
                  "n_splits": [Interval(Integral, 2, None), None],
                  "test_fraction": [Interval(Real, 0, 1, closed="neither")],
                  "seed": [Interval(Integral, 0, None)],
                  "max_k": [Interval(Integral, 1, None)],
                  "confidence": [Interval(Real, 0, 1, closed="neither")],
                  "halvings": [Interval(Integral, 0, None), None],
                  "progress": ["boolean"], "n_jobs": [Integral, None],
                  "dropped": "no_validation"})
def select_with_gaps(answers: Any, gold: Any = None, *, k: int | str,
                     method: str | None = None, aggregator: str | None = None,
                     n_splits: int | None = None,
                     test_fraction: float = SELECT_PROTOCOL.test_fraction, seed: int = 0,
                     max_k: int = 10, confidence: float = 0.95, halvings: int | None = None,
                     progress: bool = False, n_jobs: int | None = None,
                     dropped: Any = ()) -> SelectEvidence:
    """``ensel select`` on answers whose gold has gaps (some items or all), either view.

    The one place the command line's path for missing gold lives (``ensel select`` and
    ``ensel report`` come here when an item of a multi-class or binary table lacks gold);
    one path per regime:

    * **some gold** (at least one label): :func:`ensel.fewlabels.choose_with_labels` on all
      the items, the label-free model anchored by the labels; the error of the choice and
      its interval are *estimated* from the labels and the unlabelled items' posterior, with
      whether the labels separate the choice from its runner-up and how many more labels
      that needs. The same function on the labelled items alone (``few_labels``'
      ``labels_only``) says what the unlabelled items added. ``evaluation`` is ``None``:
      nothing is measured on held-out items (with a few labels a random test part holds
      a handful of them, and a fifth of the labels would be withheld from the choice).
    * **no gold**: the label-free aggregator is fitted on all the answers, ``k`` models are
      picked against its posterior's most probable option, and a model's accuracy is the
      posterior probability of its answers; no error, and ``gold["notes"]`` says why.

    ``-k auto`` takes the size (up to :data:`ensel.fewlabels.MAX_K`) with the lowest
    estimated error; without gold it is refused, as are ``n_splits``, ``halvings`` (the
    held-out protocol's) and a gold-fitted aggregator (``UsageError``).

    Parameters
    ----------
    answers : ensel.data.OptionMatrix or list of ConditionData
        The answers as option codes (:func:`ensel.data.answer_matrix`), or the conditions'
        data of a table (:func:`ensel.experiment.condition_data` with ``gaps=True``).
    gold : array-like of shape (n_items,), optional
        Gold option codes of an ``OptionMatrix``'s items, ``-1`` (or NA) where there is
        none; default its own ``gold``.
    k, method, aggregator
        As in :func:`select_evidence`: a selector of the view's registry, an aggregator of
        :data:`ensel.fewlabels.AGGREGATORS`.
    n_splits, test_fraction, seed, max_k, confidence, halvings, progress, n_jobs
        As in :func:`select_evidence` (``seed`` seeds the draws; ``max_k`` must be
        :data:`ensel.fewlabels.MAX_K` with ``k="auto"``; ``test_fraction``, ``confidence``,
        ``progress`` and ``n_jobs`` are not used).
    dropped : sequence of str
        Models already dropped for never answering (reported under ``dropped_models``).

    Returns
    -------
    SelectEvidence
        With ``gold`` saying on how many items the figures rest and ``few_labels`` the
        few-label estimate (``None`` without gold).

    Examples
    --------
    >>> from ensel.pools import multiclass_pool
    >>> from ensel.data import OptionMatrix
    >>> p = multiclass_pool(5, 300, n_options=4, share=0.5, random_state=0)
    >>> m = OptionMatrix(p.A.astype(np.int16), p.y.astype(np.int16), [tuple("ABCD")] * 300,
    ...                  list(range(300)), list("abcde"))
    >>> gaps = np.where(np.arange(300) % 10 == 0, p.y, -1)
    >>> ev = select_with_gaps(m, gaps, k=2)
    >>> ev.gold["n_with_gold"], ev.aggregator, ev.few_labels["n_labels"], ev.evaluation
    (30, 'ds', 30, None)
    >>> select_with_gaps(m, np.full(300, -1), k=2).few_labels is None
    True
    """
    from ensel.fewlabels import MAX_K

    data = _gap_data(answers, gold)
    data, more = _pickable(data)
    dropped = [*dropped, *more]
    n = int(sum(len(d.y) for d in data))
    g = int(sum(int(d.has_gold().sum()) for d in data))
    native = bool(data[0].native)
    method, aggregator, defaults = _resolve_gaps(method, aggregator, native=native, g=g, n=n)
    why = (f"gold for {g:,} of {n:,} items" if g else "no item has a gold label")
    asked = [opt for opt, v in (("--splits", n_splits), ("--halvings", halvings))
             if v is not None]
    if asked:
        raise UsageError(f"{asked[0]} sets up the held-out error, and {why}: the error is "
                         "estimated without held-out splits; leave it out")
    m = len(data[0].models)
    if k != "auto" and int(k) > m:
        raise UsageError(f"-k {k} is larger than the pool: the data has {m} model(s)")
    if k == "auto" and int(max_k) != MAX_K:
        raise UsageError(f"--max-k {max_k}: with {why}, -k auto takes the size (up to "
                         f"{MAX_K}, ensel.fewlabels.MAX_K) with the lowest estimated error; "
                         "leave --max-k out")
    if g == 0:
        return _posterior_evidence(data, dropped, k=k, method=method, aggregator=aggregator,
                                   defaults=defaults, seed=seed)
    return _few_label_evidence(data, dropped, k=k, method=method, aggregator=aggregator,
                               defaults=defaults, seed=seed)


def _few_label_input(data: list[Any], rows: np.ndarray | None = None) -> tuple[Any, Any]:
    """The stacked conditions as :func:`ensel.fewlabels.choose_with_labels` reads them (an
    OptionMatrix, or binary answers named by model and gold with ``0`` = none); ``rows``:
    these only."""
    from ensel.data import OptionMatrix

    X = np.concatenate([d.X for d in data])
    y = np.concatenate([d.y for d in data])
    r = np.arange(len(y)) if rows is None else rows
    if not data[0].native:  # the models' names, for the choice's words (rows by position)
        return pd.DataFrame(X[r], columns=list(data[0].models)), y[r].astype(float)
    many = len(data) > 1
    items = [f"{d.condition}/{i}" if many else i for d in data for i in d.items]
    opts = [o for d in data for o in d.options]
    return OptionMatrix(X[r].astype(np.int16), y[r].astype(np.int16),
                        [opts[i] for i in r.tolist()], [items[i] for i in r.tolist()],
                        list(data[0].models), data[0].condition), None


def _wilson(err: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of an error rate ``err`` on ``n`` items."""
    from scipy.stats import norm

    z = float(norm.ppf((1 + level) / 2))
    mid = (err + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(err * (1 - err) / n + z * z / (4 * n * n))
    return max(0.0, mid - half), min(1.0, mid + half)


def _alone_words(choice: Any, alone: Any, models: list[str], n: int) -> str:
    """What the same rule decides on the ``n`` labelled items alone, and which verdict the
    report goes by when the two differ (the one with the unlabelled items)."""
    picks = [models[j] for j in alone.models]
    same = set(picks) == {models[j] for j in choice.models}
    words = ("; the same rule on the labels alone picks the same models" if same else
             f"; the same rule on the labels alone would pick {', '.join(picks)}")
    if alone.decided is None or choice.decided is None:  # no rival: nothing decided
        return words
    if alone.decided == choice.decided:
        return words + (" and decides too" if alone.decided else " and does not decide either")
    if alone.decided:
        return words + (
            " and would call its choice decided; this report goes by the estimate with the "
            f"unlabelled items, which does not: on the labels alone an ensemble is judged on "
            f"the {n:,} labelled items only, where it and its runner-up may answer alike, "
            "and the label model's uncertainty on the other items is left out")
    return words + (
        " and would not decide; this report goes by the estimate with the unlabelled items, "
        "which does: they show how the ensembles differ beyond the labelled items")


def _few_label_doc(choice: Any, alone: Any, alone_why: str | None, models: list[str],
                   on_labels: float) -> dict[str, Any]:
    """The document's ``few_labels``: the choice with labels and unlabelled items, the same
    choice's error on the labels alone (a Wilson interval), what the same rule picks and
    decides on the labels alone, and what the unlabelled items added, in words. The verdict
    (``decided``, ``decision``) is the one with the unlabelled items; ``None`` where the
    choice has no rival (every model chosen: nothing to decide between)."""
    lo, hi = choice.interval
    n = choice.n_labels
    a_lo, a_hi = _wilson(on_labels, n)
    added = (f"with the {n:,} labels alone the choice errs {on_labels:.3f} on them, 95 % "
             f"interval [{a_lo:.3f}, {a_hi:.3f}] ({a_hi - a_lo:.3f} wide); with the "
             f"{choice.n_unlabelled:,} unlabelled items too, {choice.error:.3f} "
             f"[{lo:.3f}, {hi:.3f}] ({hi - lo:.3f} wide)")
    if alone is None:
        added += f"; the labels alone cannot choose ({alone_why})"
    else:
        added += _alone_words(choice, alone, models, n)
    labels_only = {"error_on_labels": on_labels, "interval": [a_lo, a_hi],
                   "picks": None if alone is None else [models[j] for j in alone.models],
                   "decided": None if alone is None else alone.decided,
                   "labels_needed": None if alone is None else alone.labels_needed,
                   "refused": alone_why}
    runner = ", ".join(models[j] for j in choice.runner_up)
    if choice.decided is None:
        decision = (f"every model is in the choice (k = {choice.k}), so there is no other "
                    "ensemble of that size for the labels to decide between")
    elif choice.decided:
        decision = (f"the labels decide: the choice is within {_tolerance()} of the runner-up "
                    f"({runner}) or better in {choice.win_rate:.0%} of the draws")
    elif choice.labels_needed is None:
        decision = (f"the labels do not decide between the choice and the runner-up "
                    f"({runner}): the choice is within {_tolerance()} of it or better in "
                    f"{choice.win_rate:.0%} of the draws, and more labels at random are not "
                    "expected to decide")
    else:
        decision = (f"the labels do not decide between the choice and the runner-up "
                    f"({runner}): about {choice.labels_needed:,} more labels at random (fewer "
                    f"chosen by {LABEL_NEXT}) should")
    return {"n_labels": choice.n_labels, "n_unlabelled": choice.n_unlabelled,
            "error": choice.error, "interval": [float(lo), float(hi)],
            "decided": choice.decided, "labels_needed": choice.labels_needed,
            "runner_up": [models[j] for j in choice.runner_up],
            "win_rate": choice.win_rate, "reason": choice.reason,
            "labels_only": labels_only, "unlabelled_added": added, "decision": decision,
            "label_next": LABEL_NEXT}


def _tolerance() -> float:
    from ensel.fewlabels import TOLERANCE

    return TOLERANCE


def _few_label_evidence(data: list[Any], dropped: list[str], *, k: int | str, method: str,
                        aggregator: str, defaults: list[str], seed: int) -> SelectEvidence:
    """:func:`select_with_gaps` with some gold: :func:`ensel.fewlabels.choose_with_labels`
    on all the items and on the labelled ones alone."""
    from ensel.aggregate import make_aggregator
    from ensel.fewlabels import choose_with_labels

    models = list(data[0].models)
    A, y = _few_label_input(data)
    try:
        choice = choose_with_labels(A, y, k=k, method=method, aggregator=aggregator, seed=seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    lab = np.flatnonzero(np.concatenate([d.has_gold() for d in data]))
    La, Ly = _few_label_input(data, lab)
    alone, alone_why = None, None
    try:
        # the same rule (the same k, "auto" included) on other evidence: the labels alone
        alone = choose_with_labels(La, Ly, k=k, method=method, aggregator=aggregator,
                                   seed=seed)
    except ValueError as exc:  # too few labels for the model on its own
        alone_why = str(exc).split(";")[0]
    on_labels = float(choice.heldout_error(A, y))
    few = _few_label_doc(choice, alone, alone_why, models, on_labels)
    X, yc = _codes(data)
    g = yc >= 0
    picks = [int(j) for j in choice.models]
    rows = _option_rows(X, g, X[g] == yc[g, None], models, picks)
    # the gains against what the selector read: the gold, else the label model's option
    name = "ds" if aggregator == "plurality" else aggregator
    model = make_aggregator(name, random_state=seed).fit(X, yc)
    target = np.where(g, yc, np.asarray(model.classes_)[
        np.argmax(model.predict_proba(X), axis=1)]).astype(np.int64)
    for r, gain in zip(rows, option_gains(X, target, picks), strict=True):
        r["gain_bits"] = gain
    lo, hi = few["interval"]
    message = (f"Picked {choice.k} model(s) with {choice.n_labels:,} gold labels and "
               f"{choice.n_unlabelled:,} unlabelled items: estimated error "
               f"{choice.error:.3f} [{lo:.3f}, {hi:.3f}]; {few['decision']}.")
    return SelectEvidence(
        view="native" if data[0].native else "binary", conditions=[d.condition for d in data],
        n_items=len(yc), n_models=len(models), method=method, aggregator=aggregator,
        defaults=defaults, dropped_models=dropped, k=choice.k,
        k_mode="auto" if k == "auto" else "fixed", selected=rows, evaluation=None,
        auto=None, ensemble_beats_best_single=None, message=message,
        gold=gold_summary(data, aggregator=aggregator, few=few), few_labels=few)


def _posterior_evidence(data: list[Any], dropped: list[str], *, k: int | str, method: str,
                        aggregator: str, defaults: list[str], seed: int) -> SelectEvidence:
    """:func:`select_with_gaps` without gold: picks and statistics from the label-free
    posterior, no error."""
    from ensel.aggregate import make_aggregator

    summary = gold_summary(data, aggregator=aggregator)
    if k == "auto":
        raise UsageError("-k auto chooses k by the error of each size, and no item has a gold "
                         "label: give -k K (the picks then come from the label-free "
                         f"posterior), or label a few items first ({LABEL_NEXT} --strategy "
                         "disagreement)")
    A, g = _codes(data)
    m = A.shape[1]
    model = make_aggregator(aggregator, random_state=seed).fit(A, None)
    T = model.predict_proba(A)  # P(Y_i = classes_[c] | answers)
    cls = np.asarray(model.classes_)
    idx = np.minimum(np.searchsorted(cls, np.maximum(A, 0)), len(cls) - 1)
    hit = (A >= 0) & (cls[idx] == A)  # the posterior of each model's answer (0: abstained)
    right = np.where(hit, T[np.arange(len(A))[:, None], idx], 0.0)
    pseudo = cls[np.argmax(T, axis=1)].astype(np.int64)
    if len(np.unique(pseudo)) < 2 and method != "topk":
        raise UsageError(f"the label-free posterior of {aggregator} gives every item the same "
                         f"option, so --method {method} has nothing to inform; use --method "
                         "topk")
    picks = _picks(method, A, pseudo, int(k), native=True) if data[0].native else \
        _picks(method, np.where(A < 0, 0, 2 * A - 1).astype(np.int8),
               (2 * pseudo - 1).astype(np.int8), int(k))
    rows = _option_rows(A, np.ones(len(A), dtype=bool), right, data[0].models, picks)
    for r, gain in zip(rows, option_gains(A, pseudo, picks), strict=True):
        r["gain_bits"] = gain
    return SelectEvidence(
        view="native" if data[0].native else "binary",
        conditions=[d.condition for d in data], n_items=len(A), n_models=m,
        method=method, aggregator=aggregator, defaults=defaults, dropped_models=dropped,
        k=int(k), k_mode="fixed", selected=rows, evaluation=None, auto=None,
        ensemble_beats_best_single=None,
        message=(f"Picked {int(k)} model(s) without any error figure: no item has a gold "
                 "label. Whether they beat the best single model cannot be measured without "
                 f"gold labels; label the items the models disagree on most first: "
                 f"{LABEL_NEXT} --strategy disagreement."),
        gold=summary)


# --------------------------------------------------------------------------- text output
