"""ensel: information-theoretic LLM ensemble selection.

Reproducible companion to the paper *Don't Always Pick the Highest-Performing Model:
An Information Theoretic View of LLM Ensemble Selection*.

Submodules (imported lazily, so ``import ensel`` stays cheap):

``ensel.info``        entropies and (smoothed) mutual information
``ensel.select``      Top-k, relevance, mRMR, Greedy MI and exhaustive selection
``ensel.aggregate``   MAP, majority vote and log-odds weighted vote
``ensel.copula``      Gaussian-copula fitting, sampling and diagnostics
``ensel.theory``      closed forms and exact computations behind the theorems
``ensel.data``        answer/label containers, tidy <-> wide conversion
``ensel.datasets``    stand-in and real (MMLU-Pro) datasets
``ensel.experiment``  the paper's evaluation protocol
``ensel.stats``       paired differences over overlapping splits: corrected intervals, verdicts
``ensel.practice``    ``ensel select|evaluate|import``: your own models
``ensel.report``      tables; ``ensel.plots`` figures
``ensel.montecarlo``, ``ensel.theory_checks``, ``ensel.theory_extra``, ``ensel.modelcheck``
                      helpers behind the book's numerical checks
``ensel.runner``      executes the book's notebooks (papermill); ``ensel.bookcheck`` offline check
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_SUBMODULES = (
    "aggregate",
    "bookcheck",
    "cli",
    "copula",
    "data",
    "datasets",
    "experiment",
    "info",
    "modelcheck",
    "montecarlo",
    "plots",
    "practice",
    "report",
    "runner",
    "select",
    "stats",
    "theory",
    "theory_checks",
    "theory_extra",
)

__all__ = [*_SUBMODULES, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"ensel.{name}")
    raise AttributeError(f"module 'ensel' has no attribute {name!r}")
