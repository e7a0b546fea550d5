"""Which stamp every figure of an executed page must carry inside its image.

The rule (ARCHITECTURE.md, "Figures that are not real data"): a figure of stand-in data says
``synthetic (stand-in)``, a figure estimated from sampled answers (Monte Carlo, seeded pools)
``synthetic (simulated)``, one with real panels beside synthetic ones ``partly synthetic``,
one computed exactly from probability laws ``exact computation``; a figure of real answers
carries none. The stamp is written by the one hook, ``ensel.book.protocol.
mark_synthetic_figures``; ``ensel.book.figures.figure_data`` reports it as the row of kind
``stamp`` of the figure's CSV, which the runner saves beside the page. :data:`EXPECTED` is
what each page must show, written from the rule, not from the pages' own calls.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import nbformat
import pandas as pd

from ensel.book.protocol import FIGURE_STAMPS, STANDINS

_KIND_OF = {text: kind for kind, text in FIGURE_STAMPS.items()}
_PARTLY = {"simulated", "partly"}  # real sources optional: partly synthetic when present

#: page output (glob) -> {figure name (glob): allowed kinds}; ``set()``: no stamp (real data);
#: ``"none"`` among the kinds: no stamp is allowed too (the figure's data depend on the build).
EXPECTED: dict[str, dict[str, set[str]]] = {
    "system_model": {"fig-system-error-counts": {"simulated"}, "fig-system-bsc": {"exact"}},
    "correlation_sweep-*": {"*": {"simulated"}},
    "theorem_4_1": {"*": {"simulated"}},
    "theorem_4_3": {"*": {"exact"}},
    "theorem_4_4": {"*": {"exact"}},
    "theorem_d_1": {"*": {"exact"}},
    "theorem_e_1": {"*": {"exact"}},
    "large_pools": {"fig-large-pools-gains": {"simulated"}, "fig-large-pools-errors": _PARTLY},
    "budgets": {"*": _PARTLY},
    "few_labels": {"*": _PARTLY},
    "reproduction_report": {"fig-report-forest-plot": {"partly"},
                            "fig-report-pooled-forest": set(),
                            # stand-ins only when no real source has results
                            "fig-report-headline-budgets": {"none", "stand-in"}},
    "standins_card*": {"*": {"stand-in"}},
    **{f"experiments-{d}": {"*": {"stand-in"}} for d in STANDINS},
}


def expected_kinds(output: str, figure: str) -> set[str]:
    """The kinds of stamp ``figure`` of page ``output`` may carry (empty: none)."""
    for page, figures in EXPECTED.items():
        if fnmatch.fnmatch(output, page):
            for name, kinds in figures.items():
                if fnmatch.fnmatch(figure, name):
                    return kinds
            raise AssertionError(f"{output}: figure {figure!r} is not in EXPECTED")
    return set()


def figure_stamps(path: Path) -> list[tuple[str, str | None]]:
    """``(figure name, stamp kind or None)`` for every figure of the executed page ``path``,
    read from the CSV of each figure's 'Reproduce this' box."""
    nb = nbformat.read(path, as_version=4)
    out = []
    for cell in nb.cells:
        for f in cell.metadata.get("ensel", {}).get("figures", []) or []:
            data = pd.read_csv(path.parent / f["csv"])
            stamps = data.loc[data["kind"] == "stamp", "series"].tolist()
            out.append((str(f["name"]), _KIND_OF.get(stamps[0], stamps[0]) if stamps
                        else None))
    return out


def wrong_stamps(output: str, path: Path) -> list[str]:
    """Every figure of the page whose stamp is not one the rule asks for."""
    problems = []
    for name, kind in figure_stamps(path):
        want = expected_kinds(output, name)
        if (kind is None and want and "none" not in want) or (
                kind is not None and kind not in want):
            problems.append(f"{output}: {name} carries {kind or 'no stamp'}; "
                            f"expected {sorted(want) or 'none'}")
    return problems
