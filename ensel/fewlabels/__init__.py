"""Choosing an ensemble with a handful of gold labels, and which items to label next.

A team deploying LLMs on its own task has the models' answers on thousands of its queries
and gold answers for a few. :func:`choose_with_labels` chooses the ensemble from both: the
label-free model (:class:`ensel.aggregate.DawidSkene`; gold anchors the items that have it)
gives every unlabelled item a posterior, the selector runs on the gold and the posterior's
most probable option, and each candidate ensemble's error is *prediction-powered*: its
expected error under the model's posterior over every item, plus the mean over the labelled
items of its gold error minus that expected error (the rectifier, which removes the label
model's bias when the labels are a random sample; the posterior of an item comes from the
model fitted on the other half of the items, so that its own gold is not in it). The
posterior is recalibrated by the labels (per bin of the model's confidence, :data:`BINS`, a
temperature and a share of confident mistakes), which narrows the interval where the model
is good. Bayesian-bootstrap draws (seeded) of the labelled items, so of the calibration and
the rectifier, and of the items give an interval of the population error that widens as
labels get fewer (``FewLabelChoice.interval_on`` adds the noise of an error measured on
``n`` items), and say whether the labels separate the choice from its runner-up
(``FewLabelChoice.decided``) or how many more they need. Labels chosen from the answers
(by :func:`label_next`) are not a random sample: the intervals' coverage holds for random
labels.
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
from ensel.fewlabels._model import BINS, NOISE, PRIOR_SD, TEMPERATURES
from ensel.fewlabels._next import STRATEGIES, label_next

__all__ = [
    "AGGREGATORS",
    "BINS",
    "DECIDE_LEVEL",
    "INTERVAL_LEVEL",
    "MAX_K",
    "NOISE",
    "PRIOR_SD",
    "STRATEGIES",
    "TEMPERATURES",
    "TOLERANCE",
    "FewLabelChoice",
    "choose_with_labels",
    "label_next",
]
