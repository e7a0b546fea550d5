"""The import path of ensel's large-pool selector, kept for the README and existing code.

The implementation lives in :mod:`ensel.select._score_mi`; :mod:`ensel.select` is its home
(``from ensel.select import ScoreMI``).
"""

from ensel.select._score_mi import ScoreMI, score_bins, score_mi

__all__ = ["ScoreMI", "score_bins", "score_mi"]
