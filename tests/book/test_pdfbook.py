"""make pdf: every page of the table of contents printed by headless Chromium into one PDF
whose outline has one entry per part and chapter (book/_ext/pdfbook.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tools.browsercheck import find_chromium

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed")


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


def _page(title: str, paragraphs: int) -> str:
    body = "".join(f"<p>{title}: paragraph {i} " + "word " * 60 + "</p>"
                   for i in range(paragraphs))
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head>"
            f"<body><main><h1>{title}<a class='headerlink' href='#'>#</a></h1>{body}"
            "</main></body></html>")


def test_pdf_has_every_built_chapter_in_its_outline_and_the_pages_of_all(tmp_path: Path
                                                                          ) -> None:
    pdfbook = _pdfbook()
    from pypdf import PdfReader

    html = tmp_path / "html"
    (html / "book").mkdir(parents=True)
    (html / "index.html").write_text(_page("Home", 1))
    sizes = {"intro": 1, "notation": 2, "one": 30, "one_a": 1, "two": 1}
    for name, n in sizes.items():
        (html / "book" / f"{name}.html").write_text(_page(name.capitalize(), n))
    toc = tmp_path / "_toc.yml"
    toc.write_text(TOC)
    out = tmp_path / "book.pdf"
    info = pdfbook.print_book(html, out, toc=toc)
    assert info["missing"] == ["book/never_built"]
    assert info["files"] == 5 and info["chapters"] == 4  # intro, notation, one, two
    pages = len(PdfReader(str(out)).pages)
    assert pages == info["pages"] and pages >= 6  # "one" is long enough for two pages
    assert pdfbook.outline(out) == [
        (0, "Intro"), (0, "Start here"), (1, "Notation"), (0, "Theory"), (1, "One"),
        (2, "One_a"), (1, "Two")]


def test_the_real_toc_gives_one_outline_entry_per_chapter() -> None:
    pdfbook = _pdfbook()
    parts = pdfbook.toc_parts(ROOT / "_toc.yml")
    captions = [p.caption for p in parts if p.caption]
    assert captions[:3] == ["Start here", "User guide", "Theory"]
    assert captions[-1] == "API reference"
    api = next(p for p in parts if p.caption == "API reference")
    assert len(api.chapters) == 1 and len(api.chapters[0].sections) > 10
