"""make pdf: every page of the table of contents printed by headless Chromium into one PDF
whose outline has one entry per part and chapter, each page printed once and kept in a cache
keyed by its content (book/_ext/pdfbook.py); make book without Chromium: one line, exit 0,
and a front page without a link to a PDF that is not there."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.browsercheck import find_chromium

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "book" / "_ext" / "pdfbook.py"
needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed")


def _pdfbook():
    spec = importlib.util.spec_from_file_location("pdfbook", ROOT / "book" / "_ext" / "pdfbook.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["pdfbook"] = module
    spec.loader.exec_module(module)
    return module


TOC = """format: jb-book
root: book/intro
parts:
  - caption: Start here
    chapters:
      - file: book/notation
  - caption: Theory
    chapters:
      - file: book/one
        sections:
          - file: book/one_a
      - file: book/two
      - file: book/never_built
"""
OUTLINE = [(0, "Intro"), (0, "Start here"), (1, "Notation"), (0, "Theory"), (1, "One"),
           (2, "One_a"), (1, "Two")]


def _page(title: str, paragraphs: int) -> str:
    body = "".join(f"<p>{title}: paragraph {i} " + "word " * 60 + "</p>"
                   for i in range(paragraphs))
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head>"
            f"<body><main><h1>{title}<a class='headerlink' href='#'>#</a></h1>{body}"
            "</main></body></html>")


def _site(tmp_path: Path, sizes: dict[str, int] | None = None) -> tuple[Path, Path]:
    """A built HTML folder of the pages of TOC (``never_built`` left out) and its toc."""
    html = tmp_path / "html"
    (html / "book").mkdir(parents=True)
    (html / "index.html").write_text(_page("Home", 1))
    sizes = sizes or {"intro": 1, "notation": 2, "one": 30, "one_a": 1, "two": 1}
    for name, n in sizes.items():
        (html / "book" / f"{name}.html").write_text(_page(name.capitalize(), n))
    toc = tmp_path / "_toc.yml"
    toc.write_text(TOC)
    return html, toc


@needs_chromium
def test_pdf_has_every_built_chapter_in_its_outline_and_the_pages_of_all(tmp_path: Path
                                                                          ) -> None:
    pdfbook = _pdfbook()
    from pypdf import PdfReader

    html, toc = _site(tmp_path)
    out = tmp_path / "book.pdf"
    info = pdfbook.print_book(html, out, toc=toc)
    assert info["missing"] == ["book/never_built"]
    assert info["files"] == 5 and info["chapters"] == 4  # intro, notation, one, two
    pages = len(PdfReader(str(out)).pages)
    assert pages == info["pages"] and pages >= 6  # "one" is long enough for two pages
    assert pdfbook.outline(out) == OUTLINE


def test_the_real_toc_gives_one_outline_entry_per_chapter() -> None:
    pdfbook = _pdfbook()
    parts = pdfbook.toc_parts(ROOT / "_toc.yml")
    captions = [p.caption for p in parts if p.caption]
    assert captions[:3] == ["Start here", "User guide", "Theory"]
    assert captions[-1] == "API reference"
    api = next(p for p in parts if p.caption == "API reference")
    assert len(api.chapters) == 1 and len(api.chapters[0].sections) > 10


def _fake_chromium(folder: Path, body: str = "exit 1") -> Path:
    """An executable named chromium that is never launched by these tests (its path and
    size are part of the cache key, see printer_digest)."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "chromium"
    exe.write_text(f"#!/bin/sh\n{body}\n")
    exe.chmod(0o755)
    return exe


def test_a_page_key_changes_with_the_page_and_what_it_loads_only(tmp_path: Path) -> None:
    pdfbook = _pdfbook()
    html, _ = _site(tmp_path)
    (html / "_images").mkdir()
    (html / "_images" / "a.png").write_bytes(b"png a")
    (html / "_images" / "unused.png").write_bytes(b"png b")
    (html / "_static").mkdir()
    (html / "_static" / "theme.css").write_text("body {}")
    one = html / "book" / "one.html"
    one.write_text(one.read_text().replace("</main>", "<img src='../_images/a.png?v=1'></main>"))
    exe = _fake_chromium(tmp_path / "bin")
    files = ["book/intro", "book/notation", "book/one", "book/one_a", "book/two"]

    def keys() -> dict[str, str]:
        return pdfbook.page_keys(html, files, str(exe))

    base = keys()
    assert len(set(base.values())) == 5 and base == keys()  # distinct pages, stable keys
    parsed: dict[str, list[str]] = {}  # the URLs of each HTML parsed, kept by make book
    assert pdfbook.page_keys(html, files, str(exe), parsed) == base
    assert sorted(u for urls in parsed.values() for u in urls) == ["../_images/a.png?v=1"]

    def changed() -> set[str]:
        now = keys()
        return {f for f in files if now[f] != base[f]}

    (html / "_images" / "unused.png").write_bytes(b"png b, redrawn")
    assert changed() == set()  # no page loads it
    (html / "_images" / "a.png").write_bytes(b"png a, redrawn")
    assert changed() == {"book/one"}
    base = keys()
    two = html / "book" / "two.html"
    two.write_text(two.read_text().replace("paragraph 0", "paragraph zero"))
    assert changed() == {"book/two"}
    base = keys()
    (html / "_static" / "theme.css").write_text("body { color: black }")  # all pages load it
    assert changed() == set(files)
    base = keys()
    _fake_chromium(tmp_path / "bin", "exit 2  # another version")
    assert changed() == set(files)
    assert pdfbook.page_keys(html, files, str(exe), parsed) == keys()  # parsed: same keys


def _seed(pdfbook, html: Path, cache: Path, exe: Path, pages: dict[str, int]) -> None:
    """Cache entries as a print would leave them: a PDF of ``pages[file]`` pages and the
    page's title, under the page's key."""
    from pypdf import PdfWriter

    cache.mkdir(parents=True, exist_ok=True)
    for file, key in pdfbook.page_keys(html, list(pages), str(exe)).items():
        writer = PdfWriter()
        for _ in range(pages[file]):
            writer.add_blank_page(width=595, height=842)
        with open(cache / f"{key}.pdf", "wb") as fh:
            writer.write(fh)
        title = file.split("/")[-1].capitalize()
        (cache / f"{key}.json").write_text(json.dumps({"file": file, "title": title}))


def test_a_book_of_cached_pages_is_merged_without_printing_and_then_left_alone(
        tmp_path: Path) -> None:
    pdfbook = _pdfbook()
    from pypdf import PdfReader

    html, toc = _site(tmp_path)
    exe = _fake_chromium(tmp_path / "bin")  # launching it would fail: nothing may be printed
    cache, out = tmp_path / "pdfcache", tmp_path / "book.pdf"
    sizes = {"book/intro": 1, "book/notation": 2, "book/one": 3, "book/one_a": 1, "book/two": 1}
    _seed(pdfbook, html, cache, exe, sizes)
    stale = cache / f"{'0' * 64}.pdf"  # a page that changed since: its old print goes
    stale.write_bytes(b"%PDF-")
    (cache / f"{'1' * 64}.pdf.tmp").write_bytes(b"%PDF-")  # left by a stopped print: goes
    (cache / "notes.txt").write_text("not a cache entry: kept")
    info = pdfbook.print_book(html, out, toc=toc, chromium=str(exe), cache=cache)
    assert (info["printed"], info["cached"], info["written"]) == (0, 5, True)
    assert info["pages"] == len(PdfReader(str(out)).pages) == 8
    assert pdfbook.outline(out) == OUTLINE
    reader = PdfReader(str(out))

    def starts(items: list) -> list[int]:
        return [n for i in items for n in (starts(i) if isinstance(i, list)
                                           else [reader.get_destination_page_number(i)])]

    assert starts(reader.outline) == [0, 1, 1, 3, 3, 6, 7]  # each page's first PDF page
    assert not stale.exists() and (cache / "notes.txt").exists()
    assert not (cache / f"{'1' * 64}.pdf.tmp").exists()
    assert len(json.loads((cache / "urls.json").read_text())) == 5  # each page parsed once
    written = out.stat().st_mtime_ns
    again = pdfbook.print_book(html, out, toc=toc, chromium=str(exe), cache=cache)
    assert (again["printed"], again["written"], again["pages"]) == (0, False, 8)
    assert out.stat().st_mtime_ns == written
    out.write_bytes(out.read_bytes())  # touched since: merged again, still nothing printed
    third = pdfbook.print_book(html, out, toc=toc, chromium=str(exe), cache=cache)
    assert (third["printed"], third["written"], third["pages"]) == (0, True, 8)
    (cache / "book.json").write_text("{")  # damaged (a build stopped while writing it)
    fourth = pdfbook.print_book(html, out, toc=toc, chromium=str(exe), cache=cache)
    assert (fourth["printed"], fourth["written"], fourth["pages"]) == (0, True, 8)


def _run_script(html: Path, path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(html), *args],
                          env={**os.environ, "PATH": str(path)}, capture_output=True, text=True)


def test_the_book_step_without_chromium_says_so_in_one_line_and_succeeds(tmp_path: Path
                                                                         ) -> None:
    pdfbook = _pdfbook()
    html, _ = _site(tmp_path)
    no_browser = tmp_path / "bin"  # PATH without chromium: find_chromium finds none
    no_browser.mkdir()
    book = _run_script(html, no_browser, "--if-chromium")
    assert (book.returncode, book.stderr) == (0, "")
    assert book.stdout.splitlines() == [pdfbook.NOTICE]
    assert "Chromium" in book.stdout and "apt-get install chromium" in book.stdout
    pdf = _run_script(html, no_browser)  # make pdf, asked for explicitly
    assert pdf.returncode == 2 and pdf.stdout == ""
    assert pdf.stderr.strip() == f"pdf: {pdfbook.CHROMIUM_MISSING}"
    # a PDF there that this step did not write is not touched; one it printed from an
    # earlier build, which the new HTML no longer links, is removed
    out = html / pdfbook.PDF_NAME
    out.write_bytes(b"%PDF- somebody's file")
    assert _run_script(html, no_browser, "--if-chromium").returncode == 0 and out.is_file()
    cache = tmp_path / "pdfcache"
    cache.mkdir()
    (cache / "book.json").write_text(json.dumps({"output": str(out.resolve()),
                                                 "written": pdfbook._written(out)}))
    assert pdfbook.cached_output(out, cache)
    assert _run_script(html, no_browser, "--if-chromium").returncode == 0
    assert not out.exists()


@needs_chromium
def test_a_second_print_reuses_every_page_and_a_changed_page_is_printed_again(
        tmp_path: Path) -> None:
    pdfbook = _pdfbook()
    html, toc = _site(tmp_path)
    cache = tmp_path / "pdfcache"
    first = pdfbook.print_book(html, tmp_path / "book.pdf", toc=toc, cache=cache)
    assert (first["printed"], first["cached"]) == (5, 0)
    printed = pdfbook.outline(tmp_path / "book.pdf")
    assert printed == OUTLINE
    second = pdfbook.print_book(html, tmp_path / "book.pdf", toc=toc, cache=cache)
    assert (second["printed"], second["cached"], second["written"]) == (0, 5, False)
    two = html / "book" / "two.html"
    two.write_text(two.read_text().replace("paragraph 0", "paragraph zero"))
    third = pdfbook.print_book(html, tmp_path / "book.pdf", toc=toc, cache=cache)
    assert (third["printed"], third["cached"], third["written"]) == (1, 4, True)
    for info in (second, third):  # the same book as printed afresh
        assert (info["pages"], info["chapters"]) == (first["pages"], first["chapters"])
    assert pdfbook.outline(tmp_path / "book.pdf") == printed
    assert len(list(cache.glob("*.pdf"))) == 5  # the old print of "two" is gone


def test_the_front_page_links_the_pdf_only_when_chromium_can_print_it(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "html"
    (src / "book").mkdir(parents=True)
    (src / "conf.py").write_text(f"import sys\nsys.path.insert(0, {str(SCRIPT.parent)!r})\n"
                                 "extensions = ['myst_parser', 'pdfbook']\n")
    (src / "index.md").write_text("# Home\n\n```{toctree}\nbook/intro\n```\n")
    (src / "book" / "intro.md").write_text("# Intro\n\nThe book is also "  # as book/intro.md
                                           "{book-pdf}`one PDF`.\n")
    no_browser, browser = tmp_path / "empty", tmp_path / "bin"
    no_browser.mkdir()
    _fake_chromium(browser)  # find_chromium looks on PATH; the role never launches it

    def build(path: Path) -> str:  # incremental, as make book runs Sphinx
        proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W",
                               str(src), str(out)], env={**os.environ, "PATH": str(path)},
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return (out / "book" / "intro.html").read_text()

    page = build(no_browser)
    text = re.sub(r"<[^>]+>", "", page)
    assert "ensel-book.pdf" not in page
    assert ("one PDF (not in this build: printing it needs Chromium, apt-get install chromium "
            "on Debian, then make book)") in text
    page = build(browser)  # the page is read again: Chromium appeared
    assert 'href="../ensel-book.pdf"' in page and "not in this build" not in page
    assert "ensel-book.pdf" not in build(no_browser)


def test_a_page_key_ignores_the_asset_checksums_sphinx_adds_on_a_second_build(
        tmp_path: Path) -> None:
    """A fresh Sphinx build writes ``theme.css``, the next one ``theme.css?v=<checksum>``: the
    same print, so the same key (the asset's content is in the key already); any other change
    of the page still changes it."""
    pdfbook = _pdfbook()
    html, _ = _site(tmp_path)
    (html / "_static").mkdir()
    (html / "_static" / "theme.css").write_text("body {}")
    one = html / "book" / "one.html"
    head = '<link rel="stylesheet" href="../_static/theme.css" /></main>'
    one.write_text(one.read_text().replace("</main>", head))
    exe = _fake_chromium(tmp_path / "bin")

    def key() -> str:
        return pdfbook.page_keys(html, ["book/one"], str(exe))["book/one"]

    fresh = key()
    one.write_text(one.read_text().replace("theme.css\"", "theme.css?v=8c6b312c\""))
    assert "?v=8c6b312c" in one.read_text() and key() == fresh
    one.write_text(one.read_text().replace("theme.css?v=8c6b312c", "other.css?v=8c6b312c"))
    assert key() != fresh


def test_the_api_reference_is_left_out_of_the_printed_book(tmp_path: Path) -> None:
    """The PDF is the narrative: a part captioned "API reference" is neither printed (its
    pages need no cache entry, and the fake Chromium would fail if launched) nor in the
    outline."""
    pdfbook = _pdfbook()
    html, toc = _site(tmp_path, {"intro": 1, "notation": 1, "one": 1, "one_a": 1, "two": 1,
                                 "api_index": 40})
    toc.write_text(TOC + "  - caption: API reference\n    chapters:\n"
                         "      - file: book/api_index\n")
    exe = _fake_chromium(tmp_path / "bin")
    cache, out = tmp_path / "pdfcache", tmp_path / "book.pdf"
    _seed(pdfbook, html, cache, exe, {"book/intro": 1, "book/notation": 1, "book/one": 1,
                                      "book/one_a": 1, "book/two": 1})
    info = pdfbook.print_book(html, out, toc=toc, chromium=str(exe), cache=cache)
    assert (info["printed"], info["files"]) == (0, 5)
    assert pdfbook.outline(out) == OUTLINE  # no "API reference" entry
    assert "API reference" in pdfbook.LEFT_OUT


def _blank_pdf(path: Path, pages: int, *, bookmark: bool) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=595, height=842)
    if bookmark:
        writer.add_outline_item(title="Intro", page_number=0)
    with open(path, "wb") as fh:
        writer.write(fh)
    return path


def test_a_book_over_the_page_limit_or_without_an_outline_is_refused(tmp_path: Path) -> None:
    pdfbook = _pdfbook()
    limit = pdfbook.MAX_PAGES
    assert limit == 300
    fine = _blank_pdf(tmp_path / "fine.pdf", limit, bookmark=True)
    assert pdfbook.book_problems(fine) == []
    assert pdfbook.book_problems(fine, chapters=1) == []
    long = _blank_pdf(tmp_path / "long.pdf", limit + 1, bookmark=True)
    assert pdfbook.book_problems(long) == [
        f"{limit + 1} pages, more than {limit}: a book a reader prints stays within {limit} "
        "(see the print rules in book/_static/ensel.css)"]
    bare = _blank_pdf(tmp_path / "bare.pdf", 2, bookmark=False)
    assert pdfbook.book_problems(bare) == ["no outline (bookmarks)"]
    assert pdfbook.book_problems(fine, chapters=3) == [
        "an outline of 1 part and chapter entries for 3 chapters"]


def test_the_print_rules_fold_code_parameters_and_provenance_and_fit_tables() -> None:
    """The print stylesheet the PDF is made with hides what is for the screen and fits
    wide tables to the page (the selectors are those the book's HTML uses)."""
    css = (ROOT / "book" / "_static" / "ensel.css").read_text()
    block = css[css.index("@media print"):]
    for selector in ("div.cell div.cell_input", "div.cell.tag_parameters",
                     "div.dropdown.ensel-provenance", "details.ensel-checks"):
        assert selector in block.split("display: none")[0], selector
    assert "width: 100% !important" in block and "white-space: normal !important" in block


def test_a_page_key_ignores_the_search_index_sphinx_rewrites_on_every_build(
        tmp_path: Path) -> None:
    """Every page loads ``searchindex.js``, which an incremental Sphinx build rewrites with
    other contents (it drops the index entries of the pages it does not read again): with it
    in the key, the first make book after a fresh one reprinted all pages. The search index
    never changes a print; any other file a page loads still changes its key."""
    pdfbook = _pdfbook()
    html, _ = _site(tmp_path)
    (html / "searchindex.js").write_text('Search.setIndex({"indexentries": {"a": [1]}})')
    (html / "_static").mkdir()
    (html / "_static" / "theme.js").write_text("var x = 1;")
    one = html / "book" / "one.html"
    one.write_text(one.read_text().replace(
        "</main>", '<script src="../searchindex.js"></script>'
                   '<script src="../_static/theme.js"></script></main>'))
    exe = _fake_chromium(tmp_path / "bin")

    def key() -> str:
        return pdfbook.page_keys(html, ["book/one"], str(exe))["book/one"]

    fresh = key()
    (html / "searchindex.js").write_text('Search.setIndex({"indexentries": {}})')
    assert key() == fresh
    (html / "searchindex.js").unlink()
    assert key() == fresh
    (html / "_static" / "theme.js").write_text("var x = 2;")
    assert key() != fresh


@needs_chromium
def test_a_table_wider_than_the_page_is_scaled_to_fit_it(tmp_path: Path) -> None:
    """Numeric columns cannot wrap: a table of 24 of them is wider than an A4 page. Printed, it
    is scaled down to the page's width, so its last column is on the page, where without the
    fitting it is cut off at the page's edge."""
    pdfbook = _pdfbook()
    from pypdf import PdfReader

    html, toc = _site(tmp_path)
    row = "".join(f"<td>{1234567.891 + i:.3f}</td>" for i in range(24))
    head = "".join(f"<th>col{i:02d}</th>" for i in range(24))
    two = html / "book" / "two.html"
    two.write_text(two.read_text().replace(
        "</main>", f"<article><table><tr>{head}</tr><tr>{row}</tr></table></article></main>"))

    def printed(out: Path) -> str:
        pdfbook.print_book(html, out, toc=toc)
        return " ".join(p.extract_text() for p in PdfReader(str(out)).pages)

    assert "col00" in (text := printed(tmp_path / "fitted.pdf")) and "col23" in text
    pdfbook._FIT_TABLES = "() => 0"  # no fitting: the last columns fall off the page
    assert "col23" not in printed(tmp_path / "cut.pdf")


@needs_chromium
def test_a_long_table_is_folded_in_print_and_kept_whole_in_the_html(tmp_path: Path) -> None:
    """A reference table of 60 rows (two printed pages) keeps its first rows in the PDF and a
    line naming the HTML page that has them all; a table of 12 rows prints whole; the HTML
    file is not touched (the fold happens in the printing browser only)."""
    pdfbook = _pdfbook()
    from pypdf import PdfReader

    html, toc = _site(tmp_path)
    long_rows = "".join(f"<tr><td>long{i:02d}</td><td>{'words ' * 12}</td></tr>"
                        for i in range(60))
    short_rows = "".join(f"<tr><td>short{i:02d}</td><td>x</td></tr>" for i in range(12))
    two = html / "book" / "two.html"
    two.write_text(two.read_text().replace(
        "</main>", f"<article><table><tbody>{long_rows}</tbody></table>"
                   f"<table><tbody>{short_rows}</tbody></table></article></main>"))
    before = two.read_bytes()
    out = tmp_path / "book.pdf"
    pdfbook.print_book(html, out, toc=toc)
    text = " ".join(p.extract_text() for p in PdfReader(str(out)).pages)
    assert "long00" in text and "long59" not in text
    assert "of 60 rows of this table" in text and "book/two.html" in text
    assert "short00" in text and "short11" in text
    assert two.read_bytes() == before
