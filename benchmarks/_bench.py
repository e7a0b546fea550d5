"""What the benchmark scripts share: the tiny size at which the test suite runs each one, and
the record ``make bench`` keeps of their figures.

With ``ENSEL_BENCH_TINY=1`` in the environment (``tests/test_benchmarks.py`` sets it), every
``bench_*.py`` runs its whole path at a size that takes a second or two: its default sizes
shrink (:func:`size`), its comparisons with reference implementations still run and must
agree, and its time and memory targets are printed but not judged (at that size they
measure start-up, not the code). So a moved or renamed function breaks the test suite, not a
benchmark nobody runs.

With ``ENSEL_BENCH_RECORD=<file>`` (``make bench``, through ``tools/benchrecord.py``), each
figure a script passes to :func:`record` is also appended to that file, one JSON object a
line; the tool gathers them into ``benchmarks/results.json``, from which the README's timing
table is rendered.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TypeVar

__all__ = ["TINY", "size", "judged", "verdict", "record"]

T = TypeVar("T")

#: Whether the scripts run at their tiny size (``ENSEL_BENCH_TINY`` set and not ``0``).
TINY: bool = os.environ.get("ENSEL_BENCH_TINY", "") not in ("", "0")


def size(full: T, tiny: T) -> T:
    """``tiny`` at the tiny size, else ``full`` (a default size, count or repeat)."""
    return tiny if TINY else full


def judged(met: bool) -> bool:
    """Whether a time or memory target counts as met: as measured, or always at the tiny
    size (where the script reports it without judging it)."""
    return met or TINY


def verdict(met: bool, yes: str = "met", no: str = "MISSED") -> str:
    """How a target's outcome is printed (``not judged`` at the tiny size)."""
    return "not judged (tiny size)" if TINY else yes if met else no


def record(figure: str, value: float, unit: str, target: str = "") -> None:
    """Keep one measured figure for ``make bench``'s record (``$ENSEL_BENCH_RECORD``, one JSON
    line each: the script, ``figure`` as the README's table names it, ``value`` in ``unit``,
    the ``target`` it is judged against, the tiny flag and the load average); nothing
    without the variable."""
    path = os.environ.get("ENSEL_BENCH_RECORD", "")
    if not path:
        return
    line = {"script": Path(sys.argv[0]).stem, "figure": figure, "value": float(value),
            "unit": unit, "target": target, "tiny": TINY, "load": os.getloadavg()[0]}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
