"""The README starts with the user: short, the quickstart first, its Python example runs,
and no measured number typed into it (those live on the book's pages, glued from code)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
QUICKSTART = "## Five minutes on your own answers"


def section(heading: str) -> tuple[int, int, str]:
    """First and last line (1-based) and text of the README section under ``heading``."""
    lines = README.splitlines()
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
               len(lines))
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start + 1, end, "\n".join(lines[start:end])


def test_readme_is_short_with_the_quickstart_in_its_first_60_lines() -> None:
    assert len(README.splitlines()) <= 200
    first, last, text = section(QUICKSTART)
    assert last <= 60, f"the quickstart runs from line {first} to line {last}"
    for column in ("item", "model", "condition", "answer", "label"):
        assert f"| {column} |" in text or f"`{column}`" in text, column
    order = ["ensel select answers.parquet -k auto", "ensel report answers.parquet -o report.html",
             "--budget-usd", "ensel frontier"]
    positions = [text.index(command) for command in order]
    assert positions == sorted(positions), "the quickstart's steps are out of order"


def test_the_two_commands_stay_make_book_and_make_test() -> None:
    _, _, text = section("## The two commands")
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL)
    assert block is not None
    assert [line.split("#")[0].strip() for line in block.group(1).splitlines()] == \
        ["make book", "make test"]


def typed_text(readme: str) -> str:
    """The README without its timing table, which ``make bench`` renders from its record
    (tools/benchrecord.py; checked against the record below)."""
    from tools.benchrecord import BEGIN, END

    return readme[:readme.index(BEGIN)] + readme[readme.index(END):]


def test_no_measured_number_is_typed_into_the_readme() -> None:
    # timings, sizes in memory, percentages and results with 3+ decimals come from code
    # (benchmarks, pages); the README links to them instead
    text = typed_text(README)
    units = r"\d[\d.,]*\s?(?:ms|s|sec|min|minutes|h|hours|GB|GiB|MB|%)(?![\w-])"
    found = re.findall(units, text) + re.findall(r"(?<![\w.])\d*\.\d{3,}(?![\w.])",
                                                 text.replace("0.002", ""))
    assert found == []


def test_the_readme_states_no_claim_count_and_sends_the_reader_to_the_front_page() -> None:
    """The README agrees with the front page by stating none of its counts: how many claims
    hold, are contradicted or corrected is the front page's five-line verdict, computed by
    the build (ensel.book.front); a count typed here could only drift from it."""
    text = typed_text(README)
    tallies = re.findall(r"\b\d+\s+(?:of|out of)\s+\d+\b|\b\d+\s+(?:claims?|corrections?)\b"
                         r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten)\s+of\s+"
                         r"(?:the\s+)?\w+\s+claims\b", text, re.IGNORECASE)
    assert tallies == []
    assert "[front page](book/intro.md)" in text
    intro = (ROOT / "book" / "intro.md").read_text()
    assert "ensel-verdict" in intro  # the verdict the README points to is there


def test_the_timing_table_is_the_rendering_of_the_benchmarks_record() -> None:
    """make bench writes benchmarks/results.json and renders the README's table from it: the
    committed table is that rendering, of full-size figures (never ENSEL_BENCH_TINY), each
    from a benchmark script that exists, on a machine and date the record names."""
    import json

    from tools.benchrecord import RECORD, readme_block, render, scripts

    record = json.loads(RECORD.read_text(encoding="utf-8"))
    assert readme_block(README) == render(record), (
        "README.md's timing table is not the rendering of benchmarks/results.json: "
        "python -m tools.benchrecord readme")
    assert record["figures"] and record["date"] and record["machine"]["cores"]
    assert not any(f["tiny"] for f in record["figures"])
    assert {f["script"] for f in record["figures"]} <= set(scripts())
    assert set(record["left_out"]) <= set(scripts())


def test_readme_python_examples_run(tmp_path, monkeypatch, capsys) -> None:
    from ensel.book.guide import example

    blocks = re.findall(r"```python\n(.*?)```", README, re.DOTALL)
    assert blocks, "the README has no Python example"
    answers, _ = example()
    answers.to_parquet(tmp_path / "answers.parquet", index=False)
    monkeypatch.chdir(tmp_path)  # the examples read answers.parquet from the current folder
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102
    out = capsys.readouterr().out
    assert re.search(r"use \[.+\] held-out error 0\.\d+", out), out


@pytest.mark.parametrize("link", re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README))
def test_readme_links_point_to_files(link: str) -> None:
    assert (ROOT / link).is_file(), link
