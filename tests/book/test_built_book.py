"""The book that ``make book`` built: what its executed pages and its HTML must show.

The book build is the execution test: ``make book`` executes every run of runs.yml (failing on
an error, a failed check or a printed warning) and builds the HTML with warnings as errors
and the offline check (``tools.bookcheck``). These tests read that build, ``book/_generated``
and ``_build/html``, instead of executing the pages again: every run's page is there, current
(its run key is this checkout's) and free of errors; every figure carries its provenance box,
its data and the stamp its data call for; the HTML is offline and complete.

They are marked ``built_book``: ``make test`` deselects them, ``make test-book`` runs them
after ``make book`` (CI does). Without a build they are skipped (they fail under ``CI=true``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import nbformat
import pytest
from conftest import require_built_book

from ensel.book.runner import cached, load_runs, run_keys, unavailable_data

ROOT = Path(__file__).resolve().parents[2]
RUNS = load_runs(ROOT / "notebooks" / "runs.yml")
GENERATED = ROOT / "book" / "_generated"
pytestmark = pytest.mark.built_book


@pytest.fixture(scope="module")
def generated() -> dict[str, Path]:
    """The executed page of every run, once it is known to be this checkout's build."""
    require_built_book()
    keys = run_keys(RUNS, root=ROOT, out_dir=GENERATED)
    # a run whose data is not on this machine is a note on how to get it, never cached
    stale = [r.output for r in RUNS if not cached(r, keys[r.output], GENERATED)
             and not (unavailable_data(r, r.effective_parameters(test=False))
                      and (GENERATED / f"{r.output}.ipynb").is_file())]
    assert stale == [], ("book/_generated is not the build of this checkout (make book "
                         f"re-executes what changed); missing or stale: {stale}")
    return {r.output: GENERATED / f"{r.output}.ipynb" for r in RUNS}


@pytest.fixture(scope="module")
def html(generated: dict[str, Path]) -> Path:
    return require_built_book()


def test_every_run_has_its_page_and_no_cell_failed(generated: dict[str, Path]) -> None:
    problems = []
    for output, path in generated.items():
        nb = nbformat.read(path, as_version=4)
        errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
        problems += [f"{output}: {e.get('ename')}: {e.get('evalue')}" for e in errors]
    assert problems == [], "\n".join(problems)


def test_the_html_is_offline_and_complete(html: Path) -> None:
    from tools.bookcheck import external_resources

    assert external_resources(html) == {}
    # math is rendered by the local MathJax copy
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    page = (html / "book" / "_generated" / "system_model.html").read_text()
    assert "_static/mathjax/tex-chtml.js" in page
    # every figure has its folded provenance box and data download; the generated pages exist
    # (Sphinx serves the run's _figdata/<run>/<figure>.csv as _downloads/<hash>/<figure>.csv)
    assert "Reproduce this figure" in page
    assert re.search(r'_downloads/[0-9a-f]+/fig-[\w-]+\.csv', page), "no CSV download"
    for name in ("list_of_figures", "execution_statistics", "bibliography", "notation"):
        assert (html / "book" / f"{name}.html").is_file(), name
    # the front page links the PDF only where Chromium can print it (no broken link)
    from tools.browsercheck import find_chromium

    intro = (html / "book" / "intro.html").read_text()
    assert ('href="../ensel-book.pdf"' in intro) == (find_chromium() is not None)
    # (the API reference's objects in the inventory: tests/test_api_reference.py, built_book)
    # no dormant Thebe/Binder launcher pointing at a CDN (book/_ext/offline_only.py)
    for path in html.rglob("*.html"):
        text = path.read_text()
        assert "unpkg.com" not in text and "thebe" not in text.lower(), path


def test_no_prose_a_reader_trips_on(html: Path) -> None:
    """Prose (tools/prose.py): no glued value pasted with its quote marks, no default
    parameter values shown on a page that ran with others, no name where its value belongs,
    no raw label, no quantity rounded two ways on a page, no "1 are"."""
    from tools.prose import prose_pages

    problems = [f"{page}: {p}" for page, found in prose_pages(html).items() for p in found]
    assert problems == [], "\n".join(problems)


def _code_links(page: Path) -> list[tuple[str, str | None]]:
    """(code name, href or None) of every name in a "code" column of a page's tables."""
    from bs4 import BeautifulSoup

    found = []
    for table in BeautifulSoup(page.read_text(), "html.parser").find_all("table"):
        head = [th.get_text(strip=True) for th in table.find_all("th")]
        if "code" not in head:
            continue
        col = head.index("code")
        for tr in table.find_all("tr")[1:]:
            cells = tr.find_all("td")
            for code in cells[col].find_all("code") if len(cells) > col else ():
                a = code.find_parent("a")
                found.append((code.get_text(), a.get("href") if a else None))
    return found


def test_every_code_name_on_the_map_of_the_paper_links_to_its_entry(html: Path) -> None:
    page = html / "book" / "figure_map.html"
    links = _code_links(page)
    assert len(links) > 100, "the map of the paper lists the code of every object"
    ids: dict[Path, set[str]] = {}
    broken = []
    for name, href in links:
        target, _, anchor = (href or "").partition("#")
        path = (page.parent / target).resolve()
        if href is None or not path.is_file():
            broken.append((name, href))
            continue
        if path not in ids:
            ids[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text()))
        if anchor and anchor not in ids[path]:
            broken.append((name, href))
    assert broken == [], broken


def test_the_execution_statistics_show_real_run_times(html: Path) -> None:
    """Each run's row shows the seconds of its last execution, also when this build found it
    unchanged (cached): never 0.0 for a page that took time to make."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((html / "book" / "execution_statistics.html").read_text(),
                         "html.parser")
    rows = [[td.get_text(" ", strip=True) for td in tr.find_all("td")]
            for tr in soup.find("table").find_all("tr")[1:]]
    assert len(rows) == len(RUNS)
    seconds = [float(r[2]) for r in rows if r[2] != "–"]
    assert len(seconds) == len(rows) and min(seconds) > 0, rows


def test_every_figure_has_a_provenance_box_and_the_list_of_figures_covers_the_paper(
        generated: dict[str, Path]) -> None:
    from ensel.book.provenance import paper_figures_table
    from ensel.paper import paper_map

    n_figures = 0
    for output, path in generated.items():
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            tags = set(cell.metadata.get("tags", []))
            shows = (cell.cell_type == "code" and not tags & {"remove-cell", "remove-output"}
                     and any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])))
            if not shows:
                continue
            box = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
            figs = box.metadata.get("ensel", {}).get("figures") if box is not None else None
            assert figs, f"{output}: cell {i} shows a figure without a 'Reproduce this' box"
            for f in figs:
                data = (GENERATED / f["csv"]).read_bytes()
                assert hashlib.sha256(data).hexdigest() == f["sha256"], (output, f["name"])
                assert f"{{download}}`CSV <{f['csv']}>`" in box.source
                n_figures += 1
    assert n_figures > 20
    table = paper_figures_table(GENERATED)
    for obj in paper_map():
        if obj.kind in ("Figure", "Table") and obj.reproduced_by:
            assert f"| {obj.kind} {obj.number}: " in table, f"{obj.ref} not in the list"


def test_every_figure_carries_the_stamp_its_data_call_for(generated: dict[str, Path]) -> None:
    """Stand-in, simulated, partly synthetic and exact-computation figures say so inside the
    image, real-data figures say nothing (the rule and the table: tests/figure_stamps.py)."""
    from figure_stamps import figure_stamps, wrong_stamps

    problems = [p for output, path in generated.items() for p in wrong_stamps(output, path)]
    assert problems == [], "\n".join(problems)
    kinds = {k for path in generated.values() for _, k in figure_stamps(path)}
    assert {"stand-in", "simulated", "exact"} <= kinds  # the rule's kinds all occur


def test_a_published_page_is_reproduced_byte_for_byte(generated: dict[str, Path],
                                                      tmp_path: Path) -> None:
    """Re-executing a built page (system_model, at its book parameters) gives the same cell
    outputs and the same file; only the commit its provenance names may differ, when the
    checkout moved since the build. (The experiments page, too slow at book size, is
    executed twice at test size in tests/book/test_notebooks.py.)"""
    from ensel.book.runner import execute_run

    run = next(r for r in RUNS if r.output == "system_model")
    built = generated[run.output]
    key = nbformat.read(built, as_version=4).metadata["ensel"]["key"]
    again = execute_run(run, out_dir=tmp_path, root=ROOT, key=key)
    first, second = (nbformat.read(p, as_version=4) for p in (built, again))
    assert _code_outputs(first) == _code_outputs(second)
    commits = first.metadata["ensel"]["commit"], second.metadata["ensel"]["commit"]
    text = built.read_text(encoding="utf-8")
    if all(commits):
        text = text.replace(*commits)
    assert text == again.read_text(encoding="utf-8")


def _code_outputs(nb) -> list:
    return [c.get("outputs") for c in nb.cells if c.cell_type == "code"]


def _text(html: str) -> str:
    from html import unescape

    text = unescape(re.sub(r"<[^>]+>", "", html))  # Sphinx's smart quotes made plain again
    return " ".join(text.translate(str.maketrans("‘’“”", "''\"\"")).split())


def test_the_front_page_opens_with_the_five_line_verdict_of_the_report_and_corrections(
        generated: dict[str, Path], html: Path, monkeypatch) -> None:
    """The front page's first block is the five-line verdict (book/intro.md, glued from
    ensel.book.front), before the headline figure and any section; each line equals what
    front.verdict_lines gives on the verdicts the experiments runs of this build saved (the
    values the report's tables are made of) and front.corrections_line on the rows of the
    corrections page's summary table."""
    from ensel.book import front, protocol
    from ensel.book.results import load_results, results_path

    intro = (html / "book" / "intro.html").read_text()
    block = re.search(r'<div class="[^"]*ensel-verdict[^"]*"[^>]*>(.*?)</div>', intro,
                      re.DOTALL)
    assert block is not None, "no five-line verdict on the front page"
    items = [_text(li) for li in re.findall(r"<li>(.*?)</li>", block.group(1), re.DOTALL)]
    labels = list(front.VERDICT_LABELS.values())
    assert [i.split(":", 1)[0] for i in items] == labels
    start = block.start()
    article = intro.index('<article class="bd-article">')  # its title, then the verdict
    assert article < start < intro.index("ensel-front-figure") < intro.index("<h2", article)

    monkeypatch.setenv("ENSEL_RESULTS_DIR", str(GENERATED / "results"))
    sources = [d for d in protocol.report_sources() if results_path(d).is_file()]
    v = protocol.gather_verdicts({d: load_results(d, kind="verdicts") for d in sources})
    per_budget = {d: protocol.budget_verdicts(load_results(d, kind="paired")) for d in sources
                  if results_path(d, "paired").is_file()}
    expected = front.verdict_lines(v, per_budget)
    nb = nbformat.read(generated["corrections"], as_version=4)
    table = next(o["data"]["text/markdown"] for c in nb.cells for o in c.get("outputs", [])
                 if re.search(r"\|\s*severity\s*\|", o.get("data", {}).get("text/markdown", "")))
    lines = [r for r in table.splitlines() if r.startswith("|")]
    def cells(row: str) -> list[str]:  # "\|" is a bar inside a cell
        return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]

    head = cells(lines[0])
    rows = [dict(zip(head, cells(r), strict=True)) for r in lines[2:]]
    expected["verdict_corrections"] = front.corrections_line(rows)
    shown = dict(zip(front.VERDICT_LABELS, (i.split(":", 1)[1].strip() for i in items),
                     strict=True))
    assert shown == {k: _text(t) for k, t in expected.items()}


def test_the_printed_book_has_an_outline_and_at_most_the_page_limit(html: Path) -> None:
    """The PDF make book printed (where Chromium is): the narrative, at most
    pdfbook.MAX_PAGES pages, with an outline, and no API reference in it."""
    from tools.browsercheck import find_chromium

    pdf = html / "ensel-book.pdf"
    if find_chromium() is None:
        pytest.skip("no Chromium: make book prints no PDF (tests/book/test_pdfbook.py)")
    assert pdf.is_file(), "make book printed no PDF although Chromium is installed"
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("pdfbook", ROOT / "book/_ext/pdfbook.py")
    pdfbook = importlib.util.module_from_spec(spec)
    sys.modules["pdfbook"] = pdfbook  # its dataclasses look their module up there
    spec.loader.exec_module(pdfbook)
    assert pdfbook.book_problems(pdf) == []
    titles = [t for _, t in pdfbook.outline(pdf)]
    assert "Reproduction report" in titles and not any("API reference" in t for t in titles)
