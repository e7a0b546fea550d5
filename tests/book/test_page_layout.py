"""Layout of the model and theory pages, read from their jupytext sources (no execution).

What a reader sees of a page's code is held to the lecture shape: visible code lines fit in
76 columns (the code column of the book theme at a 1280 px window shows 76 characters
before it scrolls), no visible ``assert`` (checks go
through ``ensel.book.claims.PageChecks``), the page ends with the checks report, every
figure cell is folded and carries a caption and a label, and the hidden cells stay within
the project's line length. Cell markers are exempt: they carry the figure metadata.
"""

from __future__ import annotations

import pytest
from conftest import page_code_cells, visible

pytest.importorskip("jupytext")
PAGES = ["corrections", "system_model", "correlation_sweep", "theorem_4_1", "theorem_4_3",
         "theorem_4_4", "theorem_d_1", "theorem_e_1"]


@pytest.mark.parametrize("page", PAGES)
def test_visible_code_fits_76_columns_without_asserts(page: str) -> None:
    for cell in filter(visible, page_code_cells(page)):
        for line in cell.source.splitlines():
            assert len(line) <= 76, f"{page}: visible line of {len(line)} columns: {line}"
            assert not line.lstrip().startswith("assert "), f"{page}: visible assert: {line}"


@pytest.mark.parametrize("page", PAGES)
def test_hidden_code_within_line_length(page: str) -> None:
    for cell in page_code_cells(page):
        for line in cell.source.splitlines():
            assert len(line) <= 100, f"{page}: line of {len(line)} columns: {line}"


@pytest.mark.parametrize("page", PAGES)
def test_page_ends_with_checks_report(page: str) -> None:
    last = page_code_cells(page)[-1]
    assert last.source.strip() == "checks.report()"
    assert "remove-input" in last.metadata.get("tags", [])


@pytest.mark.parametrize("page", [p for p in PAGES if p != "corrections"])  # tables only
def test_figures_are_folded_captioned_and_labelled(page: str) -> None:
    figures = [c for c in page_code_cells(page) if "plt.show()" in c.source]
    assert figures, f"{page}: no figure"
    for cell in figures:
        assert "hide-input" in cell.metadata.get("tags", []), cell.source
        fig = cell.metadata.get("mystnb", {}).get("figure", {})
        assert fig.get("caption") and fig.get("name", "").startswith("fig-"), cell.source
