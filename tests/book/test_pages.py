"""The data and experiment pages have the lecture shape: short visible cells that call the
library, no visible asserts or availability guards, figures captioned and labelled, checks
reported by the last cell (ensel.book.claims.PageChecks)."""

from __future__ import annotations

import re

import pytest
from conftest import page_code_cells, visible

PAGES = ["standins_card", "mmlu_pro_card", "mmlu_pro_modelling", "experiments",
         "reproduction_report", "realdata_card", "standins_dataset", "large_pools",
         "budgets", "answers_as_they_are", "few_labels", "guide_your_answers",
         "guide_select", "guide_report", "guide_budgets", "guide_collect"]


@pytest.mark.parametrize("name", PAGES)
def test_visible_cells_are_short_and_fit_the_column(name: str) -> None:
    for cell in filter(visible, page_code_cells(name)):
        lines = [line for line in cell.source.split("\n") if line.strip()]
        if "parameters" not in cell.metadata.get("tags", []):
            assert len(lines) <= 10, cell.source
        # the code column holds about 75 characters at a 1280 px wide window
        assert all(len(line) <= 72 for line in lines), cell.source
        assert not re.search(r"^\s*assert\b|np\.testing\.assert", cell.source, re.M), \
            cell.source


@pytest.mark.parametrize("name", PAGES)
def test_no_guards_figures_labelled_and_checks_reported(name: str) -> None:
    cells = page_code_cells(name)
    source = "\n".join(c.source for c in cells)
    assert "if RUN" not in source and "is_available()" not in source
    assert not re.search(r"display\(Markdown\(\s*f", source)  # numbers in prose: glue
    for cell in cells:
        if re.search(r"plt\.show\(\)", cell.source):
            assert "hide-input" in cell.metadata.get("tags", []), cell.source
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            assert figure.get("caption") and figure.get("name", "").startswith("fig-"), \
                cell.source
            # one output per labelled cell, or its label is duplicated
            assert "display(" not in cell.source, cell.source
    last = cells[-1]
    assert last.source.strip() == "checks.report()"
    assert last.metadata.get("tags") == ["remove-input"]
