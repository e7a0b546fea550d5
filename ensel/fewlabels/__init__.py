"""Choosing an ensemble with a handful of gold labels, and which items to label next.

A team deploying LLMs on its own task has the models' answers on thousands of its queries
and gold answers for a few. :func:`choose_with_labels` chooses the ensemble from both: the
label-free model (:class:`ensel.aggregate.DawidSkene`; gold anchors the items that have it)
gives every unlabelled item a posterior, the selector runs on the gold and the posterior's
most probable option, and each candidate ensemble's error is estimated
*prediction-powered*: the model's expected error on every item, corrected by the labelled
items' gold within strata of the model's uncertainty. Bayesian-bootstrap draws (seeded) of
the items, of the labelled items and of one model-drawn pseudo-item per stratum give an
interval that widens as labels get fewer, and say whether the labels separate the choice
from its runner-up (:attr:`FewLabelChoice.decided`) or how many more they need.
:func:`label_next` ranks the unlabelled items by how much their gold would help decide
(``"decisive"``), or by the baselines ``"disagreement"`` and ``"random"``.

* ``_gold`` -- the two views (an :class:`ensel.data.OptionMatrix`, binary answers) and the
  gold with gaps, aligned by item name for a Series;
* ``_model`` -- the label model, the candidates' errors under it, the draws;
* ``_choose`` -- :func:`choose_with_labels`, :class:`FewLabelChoice`;
* ``_next`` -- :func:`label_next`.

The command line is ``ensel label-next DATA -n 10`` (:mod:`ensel.cli.label_next`).
"""

from __future__ import annotations

from ensel.fewlabels._choose import (
    AGGREGATORS,
    DECIDE_LEVEL,
    INTERVAL_LEVEL,
    MAX_K,
    TOLERANCE,
    FewLabelChoice,
    choose_with_labels,
)
from ensel.fewlabels._model import STRATA
from ensel.fewlabels._next import STRATEGIES, label_next

__all__ = [
    "AGGREGATORS",
    "DECIDE_LEVEL",
    "INTERVAL_LEVEL",
    "MAX_K",
    "STRATA",
    "STRATEGIES",
    "TOLERANCE",
    "FewLabelChoice",
    "choose_with_labels",
    "label_next",
]
