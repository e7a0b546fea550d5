"""The front page's five-line verdict (ensel.book.front, book/intro.md): built from the
report's own counts, one line per label, in the order of the page. The built page against
this build's saved results: tests/book/test_built_book.py."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ensel.book import front, protocol

ROOT = Path(__file__).resolve().parents[2]


def _verdicts() -> pd.DataFrame:
    """Planted verdicts: two stand-ins and two real sources; one duplicate and one control,
    which the report does not count, and one equivalence claim (counted as holding)."""
    rows = [("G3", "medmcqa", "holds", "testable"), ("G3", "mmlu_pro", "holds", "testable"),
            ("G3", "llmbar", "holds", "testable"), ("G5", "mmlu_pro", "holds", "testable"),
            ("G5", "llmbar", "within noise", "testable"),
            ("G3-WMV", "llmbar", "within noise", "control"),
            ("G1", "mmlu_pro", "contradicted", "testable"),
            ("MED9", "medmcqa", "different", "testable"),
            ("MED5", "medmcqa", "holds", "duplicate"),
            ("MMLU3", "mmlu", "equivalent", "testable"),
            ("MMLU1", "mmlu", "within noise", "testable")]
    v = pd.DataFrame(rows, columns=["id", "dataset", "verdict", "class"])
    return v.assign(holds=v["verdict"].isin(["holds", "equivalent"]))


def test_the_lines_count_what_the_reports_table_counts() -> None:
    v = _verdicts()
    t = front.claim_tallies(v)
    counts = protocol.verdict_counts(v)
    got = (t.groupby("dataset")["tally"].value_counts().unstack(fill_value=0)
           .reindex(index=counts.index, columns=["holds", "within noise", "contradicted"],
                    fill_value=0))
    assert got.to_numpy().tolist() == counts[["holds", "within noise",
                                              "contradicted"]].to_numpy().tolist()
    lines = front.verdict_lines(v, {})
    assert list(lines) == list(front.VERDICT_LABELS)[:4]
    assert lines["verdict_real"] == (
        "across 2 public sources (MMLU-Pro, LLMBar), 3 of 5 testable claims hold beyond the "
        "noise, 1 is within noise, 1 is contradicted; holding: G3 (using all models is worse "
        "than the best subset) on MMLU-Pro and LLMBar; G5 (the best ensemble beats the best "
        "single model) on MMLU-Pro.")
    assert lines["verdict_standins"].startswith(
        "2 of 4 testable claims hold beyond the noise, 1 is within noise, 1 is contradicted;")
    assert lines["verdict_contradicted"].startswith("G1 (") and "on MMLU-Pro; MED9 (" in \
        lines["verdict_contradicted"]
    assert "MED5" not in " ".join(lines.values())  # a duplicate is not counted
    assert "G3-WMV" not in " ".join(lines.values())  # nor the book's control


def test_the_budget_line_names_every_budget_beyond_the_noise_after_holm() -> None:
    per_budget = {"mmlu_pro": pd.DataFrame({"k": [10, 11, 12], "verdict": [
        "within noise", "Top-k better", "Top-k better"]}),
        "llmbar": pd.DataFrame({"k": [2, 3], "verdict": ["Greedy MI better", "within noise"]})}
    text = front.verdict_lines(_verdicts(), per_budget)["verdict_budgets"]
    assert text == ("Top-k beats Greedy MI on MMLU-Pro at k = 11, 12; Greedy MI beats Top-k on "
                    "LLMBar at k = 2 (MAP rule, Holm over each dataset's budgets); at every "
                    "other budget of the 2 datasets the data cannot tell them apart.")
    quiet = {"llmbar": pd.DataFrame({"k": [2], "verdict": ["within noise"]})}
    assert "neither selector" in front.verdict_lines(_verdicts(), quiet)["verdict_budgets"]


def test_the_corrections_line_groups_by_severity_most_severe_first() -> None:
    rows = [{"paper": "Remark A.5", "severity": "minor"},
            {"paper": "Remark 4.2", "severity": "major"},
            {"paper": "Theorem E.1", "severity": "moderate"},
            {"paper": "Theorem 4.4", "severity": "minor"},
            {"paper": "Remark D.2", "severity": "scope note"}]
    assert front.corrections_line(rows) == (
        "5 statements of the paper are corrected by exact computation: 1 major (Remark 4.2), "
        "1 moderate (Theorem E.1), 2 minor (Remark A.5, Theorem 4.4) and 1 scope note "
        "(Remark D.2).")
    assert front.corrections_line(rows[:1]).startswith("1 statement of the paper is corrected")
    assert front.corrections_line([]).startswith("none")


def test_the_front_page_shows_the_five_lines_first_under_their_labels() -> None:
    """book/intro.md: the verdict is the first block after the opening paragraph, one item
    per line of VERDICT_LABELS, each glued from the page that computes it; the findings
    table is left to the report."""
    intro = (ROOT / "book" / "intro.md").read_text()
    items = re.findall(r"^- \*\*(.+?):\*\* \{glue:text\}`_generated/(\w+)\.ipynb::(\w+):s`$",
                       intro, re.MULTILINE)
    assert [(key, label) for label, _, key in items] == list(front.VERDICT_LABELS.items())
    assert {page for _, page, key in items if key != "verdict_corrections"} == {
        "reproduction_report"}
    assert intro.index("ensel-verdict") < intro.index("headline_figure") < intro.index("\n## ")
    assert "findings_table" not in intro
    for page in ("reproduction_report", "corrections"):  # every key is glued by its page
        source = (ROOT / "notebooks" / f"{page}.py").read_text()
        keys = [k for _, p, k in items if p == page]
        assert all(f'glue("{k}"' in source or "glue(name, line" in source for k in keys), page
