"""ensel: information-theoretic LLM ensemble selection.

Reproducible companion to the paper *Don't Always Pick the Highest-Performing Model:
An Information Theoretic View of LLM Ensemble Selection*.

The library (submodules imported lazily, so ``import ensel`` stays cheap):

``ensel.info``         entropies and (smoothed) mutual information
``ensel.select``       Top-k, relevance, mRMR, Greedy MI, exhaustive and ensel's ScoreMI
                       (one registry of specs)
``ensel.aggregate``    MAP, majority vote, log-odds weighted vote and ensel's stacking rules
``ensel.protocol``     the evaluation protocol as one object (splits, halvings, seed)
``ensel.copula``       Gaussian-copula fitting, sampling and diagnostics
``ensel.theory``       exact computations behind the theorems, one module per result
``ensel.data``         answer/label containers, tidy <-> wide conversion
``ensel.datasets``     stand-in and real (MMLU-Pro, MMLU-Redux, LLMBar) datasets, your tables
``ensel.experiment``   the paper's evaluation protocol (the one held-out loop)
``ensel.diagnostics``  checks of the paper's modelling assumptions on real answers
``ensel.pools``        seeded simulated family-structured pools of many models
``ensel.stats``        paired differences over overlapping splits: corrected intervals, verdicts
``ensel.costs``        price tables (dollars per query), validated; the shipped list prices
``ensel.budget``       selection within a dollar budget (cost-aware greedy, best of two)
``ensel.cascade``      an adaptive cascade: ask the next model only while unsure
``ensel.frontier``     the cost-error frontier: hull, area, reach table, intervals, figure
``ensel.meta``         random-effects meta-analysis: one effect pooled over several sources
``ensel.paper``        the paper's numbering as data (its numbered objects, a reference scanner)
``ensel.evidence``     the evidence procedure behind ``ensel select`` (your own models)
``ensel.fewlabels``    choosing with a handful of gold labels; which items to label next
``ensel.collect``      ``ensel collect``: regenerate the paper's raw answers from LLM endpoints
``ensel.cli``          the ``ensel`` command line (also ``select --budget-usd``, ``frontier``,
                       ``cascade``)

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
    "costs",
    "data",
    "datasets",
    "diagnostics",
    "evidence",
    "experiment",
    "fewlabels",
    "frontier",
    "info",
    "meta",
    "paper",
    "pools",
    "protocol",
    "report",
    "select",
    "stats",
    "theory",
)

__all__ = [*_SUBMODULES, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"ensel.{name}")
    raise AttributeError(f"module 'ensel' has no attribute {name!r}")
