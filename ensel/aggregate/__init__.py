"""Aggregation rules: the paper's MAP, majority vote and weighted vote; ensel's stacking rules.

* ``_paper`` -- the paper's rules (Appendix "Implementation Details"):
  :class:`MAPAggregator` (plug-in MAP over answer patterns, add-``alpha`` counts, ties ->
  ``+1``), :class:`MajorityVote` (``predict`` breaks ties by a fair coin of the fitted seed
  and the row's answers, so a row gets one label alone or in any batch),
  :class:`WeightedMajorityVote` (log-odds weighted vote, Theorem E.1);
* ``_stacking`` -- beyond the paper: :class:`LogisticStacking` (L2 logistic regression on
  the answers) and :class:`BackoffMAP` (the MAP table backing off to it for rare patterns).

All are scikit-learn binary classifiers (:class:`ensel._estimator.AggregatorMixin`):
``fit(X, y)`` returns ``self``, fitted attributes end in ``_``, ``predict(X)`` returns labels
in ``{-1, +1}`` (``int8``). Answers ``X`` are ``{-1, +1}`` with ``0`` for an abstention.

Multiple-choice answers (option labels: integer codes with ``-1``, or strings with
``None``/``NaN``/``""`` for an abstention; :mod:`ensel.aggregate._multiclass`) have their own
aggregators, scikit-learn classifiers with the labels as ``classes_``:

* ``_plurality`` -- :class:`PluralityVote` (label-free);
* ``_weighted_plurality`` -- :class:`WeightedPluralityVote` (weights ``log((K-1) p/(1-p))``);
* ``_pattern_map`` -- :class:`PatternBackoffMAP` (the MAP table over answer patterns backing
  off to the weighted vote's posterior, K-ary);
* ``_dawid_skene`` -- :class:`DawidSkene`, :class:`OneCoinDawidSkene` (EM, label-free, gold
  anchors the items that have it);
* ``_family_ds`` -- :class:`FamilyDawidSkene` (label-free, discounts families of models that
  share their errors).

The registry is :data:`SPECS` (one :class:`AggregatorSpec` per name) for the binary view and
:data:`MULTICLASS_SPECS` for option labels; :data:`AGGREGATORS` / :data:`MULTICLASS_AGGREGATORS`
(name -> class), :func:`make_aggregator` and :func:`aggregator_name` (the name in prose)
read them.

Evaluations score an aggregator with :func:`heldout_error`: the share of items predicted
wrongly, a tie (a vote sum or score of exactly 0, a posterior of exactly 1/2) counting as half
an error -- the paper's random tie break in expectation, deterministic and without coin noise.


    >>> type(make_aggregator("map")).__name__
    'MAPAggregator'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ensel._registry import EstimatorSpec, EstimatorView
from ensel._validation import HasMethods, StrOptions, validate_params
from ensel.aggregate._dawid_skene import DawidSkene, OneCoinDawidSkene
from ensel.aggregate._family_ds import FamilyDawidSkene
from ensel.aggregate._multiclass import MulticlassAggregatorMixin
from ensel.aggregate._paper import MajorityVote, MAPAggregator, WeightedMajorityVote
from ensel.aggregate._pattern_map import PatternBackoffMAP
from ensel.aggregate._plurality import PluralityVote
from ensel.aggregate._stacking import BackoffMAP, LogisticStacking
from ensel.aggregate._weighted_plurality import WeightedPluralityVote

__all__ = [
    "AGGREGATORS",
    "DEFAULT_AGGREGATOR",
    "DEFAULT_MULTICLASS_AGGREGATOR",
    "LABEL_FREE_AGGREGATOR",
    "SPECS",
    "AggregatorSpec",
    "BackoffMAP",
    "DawidSkene",
    "FamilyDawidSkene",
    "LogisticStacking",
    "MAPAggregator",
    "MULTICLASS_AGGREGATORS",
    "MULTICLASS_SPECS",
    "MajorityVote",
    "OneCoinDawidSkene",
    "PatternBackoffMAP",
    "PluralityVote",
    "WeightedMajorityVote",
    "WeightedPluralityVote",
    "aggregator_name",
    "half_tie_error",
    "heldout_error",
    "make_aggregator",
]


@dataclass(frozen=True)
class AggregatorSpec(EstimatorSpec):
    """What the library, the command line and the book know about one aggregator.

    Parameters
    ----------
    name : str
        The registry key (``ensel select --aggregator``, ``evaluate(aggregators=...)``).
    estimator : type
        A scikit-learn style classifier class.
    label : str
        Display name (the paper's: ``MAP``, ``MV``, ``W-MV``).
    in_paper : bool
        Evaluated by the paper (:data:`ensel.experiment.PAPER_AGGREGATORS`).
    seeded : bool
        Takes ``random_state`` (majority vote's tie break; Dawid-Skene's random start); the
        others are deterministic.
    label_free : bool
        Fits without gold labels (``fit(X)``); gold given for some items is used.
    words : str
        Its name in a sentence, for the commands' and the report's prose ("aggregated by
        Dawid-Skene"; :func:`aggregator_name`); empty: the ``label``.
    """

    in_paper: bool = False
    seeded: bool = False
    label_free: bool = False
    words: str = ""


#: The one registry of aggregators, name -> :class:`AggregatorSpec`, in display order.
SPECS: dict[str, AggregatorSpec] = {s.name: s for s in (
    AggregatorSpec("map", MAPAggregator, "MAP", in_paper=True, words="the MAP table"),
    AggregatorSpec("mv", MajorityVote, "MV", in_paper=True, seeded=True,
                   words="majority vote"),
    AggregatorSpec("wmv", WeightedMajorityVote, "W-MV", in_paper=True,
                   words="weighted majority vote"),
    # ensel's own, beyond the paper
    AggregatorSpec("logistic", LogisticStacking, "logistic", words="logistic stacking"),
    AggregatorSpec("backoff", BackoffMAP, "backoff",
                   words="the MAP table backing off to logistic stacking"),
)}

#: name -> class, derived from :data:`SPECS` (scikit-learn style ``fit``/``predict``).
AGGREGATORS: Mapping[str, type] = EstimatorView(SPECS)

#: The aggregators of multiple-choice answers (option labels), name -> spec.
MULTICLASS_SPECS: dict[str, AggregatorSpec] = {s.name: s for s in (
    AggregatorSpec("plurality", PluralityVote, "PV", label_free=True,
                   words="plurality vote"),
    AggregatorSpec("wplurality", WeightedPluralityVote, "W-PV",
                   words="weighted plurality vote"),
    AggregatorSpec("pattern", PatternBackoffMAP, "pattern MAP",
                   words="the pattern MAP table backing off to the weighted vote"),
    AggregatorSpec("ds", DawidSkene, "DS", seeded=True, label_free=True, words="Dawid-Skene"),
    AggregatorSpec("ds1", OneCoinDawidSkene, "DS one-coin", seeded=True, label_free=True,
                   words="one-coin Dawid-Skene"),
    AggregatorSpec("family_ds", FamilyDawidSkene, "family DS", seeded=True, label_free=True,
                   words="Dawid-Skene discounting families of models"),
)}

#: name -> class of the multiple-choice aggregators, derived from :data:`MULTICLASS_SPECS`.
MULTICLASS_AGGREGATORS: Mapping[str, type] = EstimatorView(MULTICLASS_SPECS)

#: The aggregator `ensel select` uses unless told otherwise (the paper's MAP stays available
#: as "map"); the evidence is :data:`ensel.select.DEFAULT_REASON`.
DEFAULT_AGGREGATOR = "backoff"
#: The aggregator `ensel select` uses on multi-class answers with gold for every item; the
#: evidence is :data:`ensel.select.DEFAULT_MULTICLASS_REASON`.
DEFAULT_MULTICLASS_AGGREGATOR = "ds"
#: The aggregator `ensel select` uses on multi-class answers when gold is missing for some
#: items or all: Dawid-Skene, fitted without labels (the items with gold anchor it).
LABEL_FREE_AGGREGATOR = "ds"


@validate_params({"name": [StrOptions({**AGGREGATORS, **MULTICLASS_AGGREGATORS})],
                  "random_state": ["random_state", None]})
def make_aggregator(name: str, *, random_state: int | None = None) -> Any:
    """A fresh aggregator of :data:`AGGREGATORS` or :data:`MULTICLASS_AGGREGATORS` with the
    default settings (the paper's for the binary ones).

    ``random_state`` seeds the tie break of majority vote and Dawid-Skene's random start
    (the others are deterministic).

    Examples
    --------
    >>> type(make_aggregator("mv", random_state=0)).__name__
    'MajorityVote'
    """
    spec = SPECS[name] if name in SPECS else MULTICLASS_SPECS[name]
    if spec.seeded:
        return spec.estimator(random_state=random_state)
    return spec.estimator()


@validate_params({"name": [str]})
def aggregator_name(name: str) -> str:
    """The aggregator ``name`` (a key of :data:`SPECS` or :data:`MULTICLASS_SPECS`) as a
    sentence names it: its spec's ``words``, else its ``label``; a name in neither registry
    is returned as it is.

    The one place the commands' and the report's prose reads (their JSON keeps the key).

    Examples
    --------
    >>> aggregator_name("ds"), aggregator_name("mv"), aggregator_name("mine")
    ('Dawid-Skene', 'majority vote', 'mine')
    """
    spec = SPECS.get(name) or MULTICLASS_SPECS.get(name)
    return name if spec is None else spec.words or spec.label


@validate_params({"y": ["array-like"], "pred": ["array-like"], "ties": ["array-like", None]})
def half_tie_error(y: Any, pred: Any, ties: Any = None) -> float:
    """Share of items predicted wrongly, a tied item counting as half an error.

    The one error rule of ensel's evaluations (:data:`ensel.evidence.ERROR_RULE`): an item
    whose prediction is a tie (``ties``) is right with probability 1/2 under the paper's
    random tie break, so it counts 0.5 whatever label ``pred`` gave it; the others count
    ``pred != y``.

    Parameters
    ----------
    y : array-like of shape (n_items,)
        Labels.
    pred : array-like of shape (n_items,)
        Predicted labels (any label for a tied item).
    ties : array-like of bool of shape (n_items,), optional
        The tied items (default: none).

    Returns
    -------
    float

    Examples
    --------
    >>> half_tie_error([1, -1, 1, 1], [1, 1, -1, 1], ties=[False, False, True, False])
    0.375
    """
    wrong = (np.asarray(pred) != np.asarray(y)).astype(np.float64)
    if ties is not None:
        wrong[np.asarray(ties, dtype=bool)] = 0.5
    return float(wrong.mean())


@validate_params({"model": [HasMethods(["predict"])], "X": ["array-like"],
                  "y": ["array-like"]})
def heldout_error(model: Any, X: Any, y: Any) -> float:
    """Error of a fitted aggregator on answers ``X`` with labels ``y``, a tie counting half.

    The error every evaluation of ensel reports (:func:`ensel.experiment.heldout_errors`,
    the frontier, the budget baselines): :func:`half_tie_error` of ``model.predict(X)`` with
    the rows the model cannot decide (``model._ties(X)``: a vote sum or score of exactly 0,
    a posterior of exactly 1/2). So majority vote's coin never enters an evaluation: the
    error is the same under every tie seed.

    Examples
    --------
    >>> X = np.array([[1, -1], [1, 1], [-1, -1]])  # the first row is a tie
    >>> mv = MajorityVote(random_state=0).fit(X, [1, 1, -1])
    >>> heldout_error(mv, X, [1, 1, -1]), heldout_error(mv, X, [-1, 1, -1])
    (0.16666666666666666, 0.16666666666666666)

    A multiple-choice aggregator counts ``1 - 1/t`` of an error where the gold is one of ``t``
    tied options (:meth:`~ensel.aggregate._multiclass.MulticlassAggregatorMixin.tie_error`).
    """
    if isinstance(model, MulticlassAggregatorMixin):  # option labels: 1 - 1/t for t tied
        return float(np.nanmean(model.tie_error(X, y)))
    pred, ties = (model._predict_ties(X) if hasattr(model, "_predict_ties")
                  else (model.predict(X), model._ties(X)))
    return half_tie_error(y, pred, ties)
