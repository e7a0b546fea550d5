"""ensel: information-theoretic LLM ensemble selection.

Reproducible companion to the paper *Don't Always Pick the Highest-Performing Model:
An Information Theoretic View of LLM Ensemble Selection*.

The library (submodules imported lazily, so ``import ensel`` stays cheap):

``ensel.info``         entropies and (smoothed) mutual information
``ensel.select``       Top-k, relevance, mRMR, Greedy MI and exhaustive selection
``ensel.aggregate``    MAP, majority vote and log-odds weighted vote
``ensel.copula``       Gaussian-copula fitting, sampling and diagnostics
``ensel.theory``       exact computations behind the theorems, one module per result
``ensel.data``         answer/label containers, tidy <-> wide conversion
``ensel.datasets``     stand-in and real (MMLU-Pro, MMLU-Redux, LLMBar) datasets, your tables
``ensel.experiment``   the paper's evaluation protocol (the one held-out loop)
``ensel.diagnostics``  checks of the paper's modelling assumptions on real answers
``ensel.score_mi``     ensel's selector for large pools (binned weighted-vote score)
``ensel.stacking``     ensel's aggregator for large ensembles (L2 logistic stacking)
``ensel.pools``        seeded simulated family-structured pools of many models
``ensel.stats``        paired differences over overlapping splits: corrected intervals, verdicts
``ensel.costs``        price tables (dollars per query), validated; the shipped list prices
``ensel.budget``       selection within a dollar budget (cost-aware greedy, best of two)
``ensel.cascade``      an adaptive cascade: ask the next model only while unsure
``ensel.frontier``     the cost-error frontier: hull, area, reach table, intervals
``ensel.cost_cli``     ``ensel select --budget-usd``, ``ensel frontier``, ``ensel cascade``
``ensel.meta``         random-effects meta-analysis: one effect pooled over several sources
``ensel.practice``     ``ensel select|evaluate|import``: your own models' answers
``ensel.collect``      ``ensel collect``: regenerate the paper's raw answers from LLM endpoints
``ensel.cli``          the ``ensel`` command line

``ensel.book`` (tables, claims, figures, simulations, results, the notebook runner and the
offline check) serves the book's pages only: nothing in the library imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_SUBMODULES = (
    "aggregate",
    "budget",
    "cascade",
    "cli",
    "collect",
    "copula",
    "cost_cli",
    "costs",
    "data",
    "datasets",
    "diagnostics",
    "experiment",
    "frontier",
    "info",
    "meta",
    "pools",
    "practice",
    "score_mi",
    "select",
    "stacking",
    "stats",
    "theory",
)

__all__ = [*_SUBMODULES, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"ensel.{name}")
    raise AttributeError(f"module 'ensel' has no attribute {name!r}")
