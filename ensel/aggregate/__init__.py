"""Aggregation rules: the paper's MAP, majority vote and weighted vote; ensel's stacking rules.

* ``_paper`` -- the paper's rules (Appendix "Implementation Details"):
  :class:`MAPAggregator` (plug-in MAP over answer patterns, add-``alpha`` counts, ties ->
  ``+1``), :class:`MajorityVote` (ties broken by a fair coin of the fitted seed and the
  row's answers, so a row gets one label alone or in any batch),
  :class:`WeightedMajorityVote` (log-odds weighted vote, Theorem E.1);
* ``_stacking`` -- beyond the paper: :class:`LogisticStacking` (L2 logistic regression on
  the answers) and :class:`BackoffMAP` (the MAP table backing off to it for rare patterns).

All are scikit-learn binary classifiers (:class:`ensel._estimator.AggregatorMixin`):
``fit(X, y)`` returns ``self``, fitted attributes end in ``_``, ``predict(X)`` returns labels
in ``{-1, +1}`` (``int8``). Answers ``X`` are ``{-1, +1}`` with ``0`` for an abstention.

The registry is :data:`SPECS` (one :class:`AggregatorSpec` per name); :data:`AGGREGATORS`
(name -> class) and :func:`make_aggregator` read it.

    >>> type(make_aggregator("map")).__name__
    'MAPAggregator'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ensel._registry import EstimatorSpec, EstimatorView
from ensel._validation import StrOptions, validate_params
from ensel.aggregate._paper import MajorityVote, MAPAggregator, WeightedMajorityVote
from ensel.aggregate._stacking import BackoffMAP, LogisticStacking

__all__ = [
    "AGGREGATORS",
    "DEFAULT_AGGREGATOR",
    "SPECS",
    "AggregatorSpec",
    "BackoffMAP",
    "LogisticStacking",
    "MAPAggregator",
    "MajorityVote",
    "WeightedMajorityVote",
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
        Takes ``random_state`` (majority vote's tie break); the others are deterministic.
    """

    in_paper: bool = False
    seeded: bool = False


#: The one registry of aggregators, name -> :class:`AggregatorSpec`, in display order.
SPECS: dict[str, AggregatorSpec] = {s.name: s for s in (
    AggregatorSpec("map", MAPAggregator, "MAP", in_paper=True),
    AggregatorSpec("mv", MajorityVote, "MV", in_paper=True, seeded=True),
    AggregatorSpec("wmv", WeightedMajorityVote, "W-MV", in_paper=True),
    # ensel's own, beyond the paper
    AggregatorSpec("logistic", LogisticStacking, "logistic"),
    AggregatorSpec("backoff", BackoffMAP, "backoff"),
)}

#: name -> class, derived from :data:`SPECS` (scikit-learn style ``fit``/``predict``).
AGGREGATORS: Mapping[str, type] = EstimatorView(SPECS)

#: The aggregator `ensel select` uses unless told otherwise (the paper's MAP stays available
#: as "map"); the evidence is :data:`ensel.select.DEFAULT_REASON`.
DEFAULT_AGGREGATOR = "backoff"


@validate_params({"name": [StrOptions(AGGREGATORS)], "random_state": ["random_state", None]})
def make_aggregator(name: str, *, random_state: int | None = None) -> Any:
    """A fresh aggregator of :data:`AGGREGATORS` with the paper's settings.

    ``random_state`` seeds the tie break of majority vote (the others are deterministic).

    Examples
    --------
    >>> type(make_aggregator("mv", random_state=0)).__name__
    'MajorityVote'
    """
    spec = SPECS[name]
    if spec.seeded:
        return spec.estimator(random_state=random_state)
    return spec.estimator()
