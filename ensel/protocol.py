"""The evaluation protocol as one object: splits, test fraction, halvings, seed, large tables.

:data:`PAPER_PROTOCOL` is the paper's (5 random 80/20 splits per condition); every default
of :func:`ensel.experiment.evaluate`, :func:`~ensel.experiment.heldout_errors`,
:func:`~ensel.experiment.half_sample_errors` and the book's stand-in pages reads it, so
changing the paper's number of splits is one edit here. :data:`SELECT_PROTOCOL` is the one
of ``ensel select`` (20 splits, 10 halvings; on a large table 10 splits and 5 halvings with
one split per half, :meth:`Protocol.for_table`).

    >>> PAPER_PROTOCOL.n_splits, PAPER_PROTOCOL.test_fraction
    (5, 0.2)
    >>> SELECT_PROTOCOL.for_table(5_000_000).n_splits
    10
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ensel._validation import check_int, check_real

__all__ = ["LARGE_POOL", "N_HALVINGS", "PAPER_PROTOCOL", "SELECT_PROTOCOL", "Protocol"]

#: Answer cells (items x models over the conditions) above which a table is large.
LARGE_POOL = 4_000_000
#: Default number of halvings of the half-sample check of the intervals.
N_HALVINGS = 10


@dataclass(frozen=True)
class Protocol:
    """How held-out errors are estimated: the one description every caller takes.

    Parameters
    ----------
    n_splits : int
        Random train/test splits per condition (:func:`ensel.experiment.split_indices`).
    test_fraction : float
        Fraction of the items in each test part, in ``(0, 1)``.
    n_halvings : int
        Halvings of the items whose half-sample replicates check the intervals
        (:func:`ensel.experiment.half_sample_errors`; 0: none).
    seed : int
        Seeds the splits and the halvings (and majority vote's tie coin, which no error
        depends on: a tie counts as half an error).
    splits_per_half : int or None
        Splits per condition on each half of a halving (``None``: enough for 4 evaluations
        per half, :func:`ensel.experiment.half_splits`).
    large_n_splits, large_n_halvings, large_splits_per_half : int or None
        The rule for a large table (more than :data:`LARGE_POOL` answer cells): these
        replace ``n_splits``, ``n_halvings`` and ``splits_per_half`` in
        :meth:`for_table` (``None``: no change).
    """

    n_splits: int = 5
    test_fraction: float = 0.2
    n_halvings: int = N_HALVINGS
    seed: int = 0
    splits_per_half: int | None = None
    large_n_splits: int | None = None
    large_n_halvings: int | None = None
    large_splits_per_half: int | None = None

    def __post_init__(self) -> None:
        check_int(self.n_splits, "n_splits", low=1)
        check_real(self.test_fraction, "test_fraction", low=0, high=1, low_open=True,
                   high_open=True)
        check_int(self.n_halvings, "n_halvings", low=0)
        check_int(self.seed, "seed", low=0)
        for name in ("splits_per_half", "large_n_splits", "large_n_halvings",
                     "large_splits_per_half"):
            if getattr(self, name) is not None:
                check_int(getattr(self, name), name, low=0 if name == "large_n_halvings" else 1)

    @staticmethod
    def is_large(cells: int) -> bool:
        """Whether a table of ``cells`` answer cells is large (``> LARGE_POOL``)."""
        return int(cells) > LARGE_POOL

    def for_table(self, cells: int) -> Protocol:
        """This protocol for a table of ``cells`` answer cells: the large-table rule applied
        when the table is large (:meth:`is_large`), else ``self``."""
        if not self.is_large(cells):
            return self
        return replace(
            self,
            n_splits=self.n_splits if self.large_n_splits is None else self.large_n_splits,
            n_halvings=(self.n_halvings if self.large_n_halvings is None
                        else self.large_n_halvings),
            splits_per_half=(self.splits_per_half if self.large_splits_per_half is None
                             else self.large_splits_per_half))

    def replace(self, **changes: Any) -> Protocol:
        """A copy with ``changes`` (``None`` values are ignored, as from optional
        command-line arguments)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


#: The paper's protocol (Section 6): 5 random 80/20 splits of each condition.
PAPER_PROTOCOL = Protocol(n_splits=5, test_fraction=0.2, n_halvings=N_HALVINGS, seed=0)
#: The protocol of ``ensel select``: 20 splits and 10 halvings; on a large table 10 splits
#: (the corrected interval is then within 8 % of the 20-split one) and 5 halvings with one
#: split per half (conservative: it overstates the half-sample variance).
SELECT_PROTOCOL = Protocol(n_splits=20, test_fraction=0.2, n_halvings=N_HALVINGS, seed=0,
                           large_n_splits=10, large_n_halvings=5, large_splits_per_half=1)
