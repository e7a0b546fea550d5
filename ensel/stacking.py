"""The import path of ensel's stacking aggregators, kept for the README and existing code.

The implementation lives in :mod:`ensel.aggregate._stacking`; :mod:`ensel.aggregate` is its
home (``from ensel.aggregate import BackoffMAP``).
"""

from ensel.aggregate._stacking import BackoffMAP, LogisticStacking

__all__ = ["BackoffMAP", "LogisticStacking"]
