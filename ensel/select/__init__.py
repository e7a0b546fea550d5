"""Ensemble selection under a budget ``k``: Top-k, relevance, mRMR, Greedy MI, exhaustive, ScoreMI.

Each selector exists as a function returning the picked column indices in pick order
(the public contract) and as a scikit-learn style class with fitted attributes::

    >>> import numpy as np
    >>> from ensel.select import greedy_mi, GreedyMI
    >>> rng = np.random.default_rng(0)
    >>> y = rng.choice([-1, 1], size=500)
    >>> X = np.where(rng.random((500, 4)) < [0.9, 0.8, 0.7, 0.6], y[:, None], -y[:, None])
    >>> greedy_mi(X, y, 2)
    [0, 1]
    >>> sel = GreedyMI(k=2).fit(X, y)
    >>> sel.selected_, sel.transform(X).shape
    ([0, 1], (500, 2))

The package is one private module per algorithm family and this one list:

* ``_engine`` -- the counting engine (pattern codes, smoothed entropies, the greedy loop);
* ``_base`` -- the base class every selector subclasses (``_path(Xa, ya, k)``);
* ``_greedy`` -- the paper's greedy selectors (Top-k, Term 1, Terms 1+2, Greedy MI) and the
  three-term estimate; criteria and conventions (alphabets, ties, labels, speed) are in its
  docstring;
* ``_exhaustive`` -- brute force over all subsets (small pools);
* ``_score_mi`` -- ensel's selector for large pools (beyond the paper);
* ``_multiclass`` -- Top-k, Greedy MI and ScoreMI on multiple-choice answers (option
  labels, a K-ary label), registered in :data:`MULTICLASS_SPECS`.

The registry is :data:`SPECS`: one :class:`SelectorSpec` per name, with what the command
line, :func:`ensel.experiment.evaluate` and the book read about a selector (its estimator,
display label, the paper's name, plot style, whether it is nested, whether the paper
evaluates it, aliases). :data:`SELECTORS` (name -> class) is derived from it. Adding a
selector is one module in this package plus its spec here.

:data:`MULTICLASS_SPECS` / :data:`MULTICLASS_SELECTORS` hold the selectors of multiple-choice
answers under the same names (``"topk"``, ``"greedy_mi"``, ``"score_mi"``): the same criteria
on option labels.
Which registry applies is said by the input, never guessed from its values (the codes
``{-1, 0, 1}`` are binary answers to one and options to the other):
:func:`ensel.experiment.heldout_errors` reads this one for an :class:`ensel.data.OptionMatrix`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ensel._registry import EstimatorSpec, EstimatorView
from ensel._validation import validate_params
from ensel.select._base import _BaseSelector
from ensel.select._budgeted import BudgetedScoreMI
from ensel.select._engine import TIE_TOL
from ensel.select._exhaustive import exhaustive_search
from ensel.select._greedy import (
    MRMR,
    GreedyMI,
    Relevance,
    ThreeTermGreedy,
    TopK,
    greedy_mi,
    greedy_mi_exact,
    marginal_gains,
    mrmr,
    relevance,
    three_term_greedy,
    top_k,
)
from ensel.select._multiclass import MulticlassGreedyMI, MulticlassScoreMI, MulticlassTopK
from ensel.select._score_mi import ScoreMI, score_bins, score_mi

__all__ = [
    "DEFAULT_MULTICLASS_REASON",
    "DEFAULT_MULTICLASS_SELECTOR",
    "DEFAULT_REASON",
    "DEFAULT_SELECTOR",
    "MULTICLASS_SELECTORS",
    "MULTICLASS_SPECS",
    "SELECTORS",
    "SPECS",
    "SelectorSpec",
    "TIE_TOL",
    "GreedyMI",
    "MRMR",
    "MulticlassGreedyMI",
    "MulticlassScoreMI",
    "MulticlassTopK",
    "Relevance",
    "ScoreMI",
    "ThreeTermGreedy",
    "TopK",
    "exhaustive_search",
    "greedy_mi",
    "greedy_mi_exact",
    "marginal_gains",
    "mrmr",
    "paper_selectors",
    "relevance",
    "resolve_selector",
    "selector_name",
    "score_bins",
    "score_mi",
    "three_term_greedy",
    "top_k",
]


@dataclass(frozen=True)
class SelectorSpec(EstimatorSpec):
    """What the library, the command line and the book know about one selector.

    Parameters
    ----------
    name : str
        The registry key (``ensel select --method``, ``evaluate(selectors=...)``).
    estimator : type
        A :class:`_BaseSelector` subclass; ``estimator(k).fit(X, y).selected_`` is the pick
        order.
    label : str
        Short display name (the book's table headers and legends).
    paper_name : str or None
        The paper's name for it (its tables' legends), ``None`` beyond the paper.
    style : mapping
        Matplotlib line style of its curves (``color``, ``marker``, ...).
    nested : bool
        Its first ``k`` picks at a larger budget are its size-``k`` choice, so
        :func:`ensel.experiment.evaluate` may fit it once at the largest budget. A selector
        that is not nested is refused there rather than evaluated wrongly.
    in_paper : bool
        Evaluated by the paper (:data:`ensel.experiment.PAPER_SELECTORS`, the order of
        :data:`SPECS`).
    aliases : tuple of str
        Other names the command line accepts (``top_k``); hyphens always read as
        underscores (``greedy-mi``).
    """

    estimator: type[_BaseSelector]
    paper_name: str | None = None
    style: Mapping[str, Any] = field(default_factory=dict)
    nested: bool = True
    in_paper: bool = False
    aliases: tuple[str, ...] = ()


#: The one registry of selectors, name -> :class:`SelectorSpec`, in display order.
SPECS: dict[str, SelectorSpec] = {s.name: s for s in (
    SelectorSpec("topk", TopK, "Top-k", "Top-k (Acc)", {"color": "#1f77b4", "marker": "o"},
                 in_paper=True, aliases=("top_k",)),
    SelectorSpec("relevance", Relevance, "Term 1", "Term 1 (Rel)",
                 {"color": "#ff7f0e", "marker": "s"}, in_paper=True),
    SelectorSpec("mrmr", MRMR, "Terms 1+2", "Terms 1+2 (mRMR)",
                 {"color": "#2ca02c", "marker": "^"}, in_paper=True),
    SelectorSpec("greedy_mi", GreedyMI, "Greedy MI", "Greedy MI (Ours)",
                 {"color": "#d62728", "marker": "D"}, in_paper=True),
    SelectorSpec("three_term", ThreeTermGreedy, "three_term", None,
                 {"color": "#8c564b", "marker": "v"}, aliases=("three_term_greedy",)),
    SelectorSpec("score_mi", ScoreMI, "ScoreMI", None, {"color": "#17becf", "marker": "P"}),
    # beyond the paper: within a dollar budget (unit costs and k models when used by name);
    # its picks at k are not a prefix of its picks at a larger k
    SelectorSpec("budgeted", BudgetedScoreMI, "budgeted", None,
                 {"color": "#9467bd", "marker": "X"}, nested=False),
)}

#: name -> estimator class, derived from :data:`SPECS` (``cls(k).fit(X, y).selected_`` is the
#: pick order). ``ensel.experiment`` and the command line read names from here.
SELECTORS: Mapping[str, type[_BaseSelector]] = EstimatorView(SPECS)

#: The selectors of multiple-choice answers (option labels), name -> spec, under the names of
#: the binary criteria they generalise.
MULTICLASS_SPECS: dict[str, SelectorSpec] = {s.name: s for s in (
    SelectorSpec("topk", MulticlassTopK, "Top-k", "Top-k (Acc)",
                 SPECS["topk"].style, in_paper=True),
    SelectorSpec("greedy_mi", MulticlassGreedyMI, "Greedy MI", "Greedy MI (Ours)",
                 SPECS["greedy_mi"].style, in_paper=True),
    SelectorSpec("score_mi", MulticlassScoreMI, SPECS["score_mi"].label, None,
                 SPECS["score_mi"].style),
)}

#: name -> class of the multiple-choice selectors, derived from :data:`MULTICLASS_SPECS`.
MULTICLASS_SELECTORS: Mapping[str, type[_BaseSelector]] = EstimatorView(MULTICLASS_SPECS)


@validate_params({})
def paper_selectors() -> tuple[str, ...]:
    """Names of the selectors the paper evaluates, in :data:`SPECS` order."""
    return tuple(name for name, spec in SPECS.items() if spec.in_paper)


@validate_params({"name": [str]})
def resolve_selector(name: str) -> str | None:
    """The registry name of ``name`` or one of its aliases, else ``None``.

    Case is ignored and hyphens read as underscores.

    Examples
    --------
    >>> resolve_selector("Greedy-MI"), resolve_selector("top-k"), resolve_selector("x")
    ('greedy_mi', 'topk', None)
    """
    key = str(name).strip().lower().replace("-", "_")
    for spec in SPECS.values():
        if key == spec.name or key in spec.aliases:
            return spec.name
    return None


@validate_params({"name": [str]})
def selector_name(name: str) -> str:
    """The selector ``name`` (a key of :data:`SPECS` or :data:`MULTICLASS_SPECS`) as a
    sentence or a caption names it: its spec's ``label``; a name in neither registry is
    returned as it is.

    The report's prose and captions read it (its JSON keeps the key), as they read
    :func:`ensel.aggregate.aggregator_name` for the aggregator.

    Examples
    --------
    >>> selector_name("score_mi"), selector_name("greedy_mi"), selector_name("mine")
    ('ScoreMI', 'Greedy MI', 'mine')
    """
    spec = SPECS.get(name) or MULTICLASS_SPECS.get(name)
    return name if spec is None else spec.label


#: The selector `ensel select` runs unless told otherwise (the paper's stays available as
#: "greedy_mi"); :data:`DEFAULT_REASON` says why.
DEFAULT_SELECTOR = "score_mi"
#: Why the defaults of `ensel select` are what they are (printed and recorded by the CLI).
DEFAULT_REASON = (
    "score_mi + backoff (ensel's own, beyond the paper): the paper's Greedy MI and MAP "
    "count answer patterns of the whole ensemble (2^k cells), which the data cannot fill "
    "beyond about 8 models; score_mi conditions on the binned weighted-vote score instead, "
    "and backoff answers frequent patterns from their counts (as MAP) and rare ones with an "
    "L2 logistic regression on the answers. Measured on the book page 'Beyond the paper: "
    "selection and aggregation for large pools'."
)

#: The selector `ensel select` runs on multi-class answers (option labels) unless told
#: otherwise; :data:`DEFAULT_MULTICLASS_REASON` says why.
DEFAULT_MULTICLASS_SELECTOR = "score_mi"
#: Why the multi-class defaults of `ensel select` are what they are (printed by the CLI).
DEFAULT_MULTICLASS_REASON = (
    "score_mi + ds on option labels: on MMLU-Pro and MMLU-Redux read natively "
    "(ensel.experiment.evaluate on load(name, view='native'), 10 splits, k up to 7) "
    "score_mi's picks equal Top-k's, while the K-ary Greedy MI, whose pattern alphabet grows "
    "as K^k, picks worse ensembles beyond k = 2 on MMLU-Pro's ten options; Dawid-Skene "
    "(fitted on the training gold, where it has gold) is within noise of the best "
    "aggregator on both, and is the one that also runs where gold is missing"
)
