"""Print the built HTML book to one PDF, offline (``make pdf``).

``python book/_ext/pdfbook.py _build/html [-o _build/html/ensel-book.pdf]`` serves the HTML
folder on 127.0.0.1 (the browser check's server), opens every page of ``_toc.yml`` in its order
in headless Chromium (Debian's ``chromium`` through Playwright, the browser check's flags; no
network), waits for MathJax, prints each page with the theme's print stylesheet (no sidebars),
and merges the pages with pypdf into one PDF whose outline has one entry per part (its
caption) and, under it, one per chapter (the page's title), with a chapter's sections nested
under it. The front page links to the file (``ensel-book.pdf`` at the top of the HTML folder).

Build tooling, not library: it lives beside the book's other Sphinx helpers and is not in the
wheel.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # tools/ (the browser check) is not in the wheel
    sys.path.insert(0, str(ROOT))
PDF_NAME = "ensel-book.pdf"
#: The page's title as the reader sees it (the first heading, without its "#" link).
_TITLE = """() => {
  const h = document.querySelector('main h1, article h1, h1');
  return h ? h.textContent.replace(/[#¶]\\s*$/, '').trim() : document.title;
}"""


@dataclass
class Entry:
    """One page of the table of contents (``file`` without suffix) and its sections."""

    file: str
    sections: list[Entry] = field(default_factory=list)


@dataclass
class Part:
    caption: str
    chapters: list[Entry]


def toc_parts(toc_path: Path) -> list[Part]:
    """The parts of a jb-book ``_toc.yml``; the root page is a part of its own (no caption)."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))

    def entries(items: list[dict[str, Any]] | None) -> list[Entry]:
        return [Entry(i["file"], entries(i.get("sections"))) for i in items or [] if "file" in i]

    parts = [Part("", [Entry(toc["root"])])]
    for part in toc.get("parts", []):
        parts.append(Part(part.get("caption", ""), entries(part.get("chapters"))))
    if "chapters" in toc:
        parts.append(Part("", entries(toc["chapters"])))
    return parts


def _walk(entry: Entry) -> list[Entry]:
    return [entry] + [e for s in entry.sections for e in _walk(s)]


def print_book(html_dir: str | Path, out: str | Path, *, toc: str | Path | None = None,
               chromium: str | None = None) -> dict[str, Any]:
    """Print every page of the table of contents to one PDF with an outline.

    Returns
    -------
    dict
        ``{"pages": <PDF pages>, "chapters": <outline entries of chapters>, "files": <HTML
        pages printed>, "missing": [<toc files without an HTML page>]}``.
    """
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter

    from tools.browsercheck import (
        _MATHJAX_READY,
        CHROMIUM_FLAGS,
        LOAD_TIMEOUT_MS,
        MATH_TIMEOUT_MS,
        find_chromium,
        serve,
    )

    html = Path(html_dir)
    parts = toc_parts(Path(toc) if toc else ROOT / "_toc.yml")
    executable = chromium or find_chromium()
    if executable is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    writer = PdfWriter()
    missing: list[str] = []
    printed: dict[str, tuple[int, str]] = {}  # toc file -> (first PDF page, title)
    with tempfile.TemporaryDirectory() as tmp, serve(html) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True,
                                     args=list(CHROMIUM_FLAGS), timeout=LOAD_TIMEOUT_MS)
        try:
            context = browser.new_context(service_workers="block")
            context.add_init_script("try { localStorage.setItem('mode', 'light'); "
                                    "localStorage.setItem('theme', 'light'); } catch (e) {}")
            for entry in [e for part in parts for c in part.chapters for e in _walk(c)]:
                if not (html / f"{entry.file}.html").is_file():
                    missing.append(entry.file)
                    continue
                page = context.new_page()
                try:
                    page.goto(base + f"{entry.file}.html", wait_until="load",
                              timeout=LOAD_TIMEOUT_MS)
                    if page.evaluate("() => !!(window.MathJax && window.MathJax.startup)"):
                        page.evaluate(_MATHJAX_READY, MATH_TIMEOUT_MS)
                    title = page.evaluate(_TITLE) or entry.file
                    pdf = Path(tmp) / f"{len(printed):04d}.pdf"
                    page.pdf(path=str(pdf), format="A4", print_background=True,
                             margin={"top": "14mm", "bottom": "14mm", "left": "12mm",
                                     "right": "12mm"})
                finally:
                    page.close()
                printed[entry.file] = (len(writer.pages), title)
                writer.append(PdfReader(str(pdf)))
        finally:
            browser.close()
    chapters = 0

    def add(entry: Entry, parent: Any) -> None:
        nonlocal chapters
        if entry.file not in printed:
            return
        start, title = printed[entry.file]
        item = writer.add_outline_item(title=title, page_number=start, parent=parent)
        for section in entry.sections:
            add(section, item)

    for part in parts:
        built = [c for c in part.chapters if c.file in printed]
        if not built:
            continue
        first = printed[built[0].file][0]
        parent = (writer.add_outline_item(title=part.caption, page_number=first)
                  if part.caption else None)
        for chapter in built:
            chapters += 1
            add(chapter, parent)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_suffix(".pdf.tmp")
    writer.page_mode = "/UseOutlines"
    with open(tmp_out, "wb") as fh:
        writer.write(fh)
    tmp_out.replace(out)
    return {"pages": len(writer.pages), "chapters": chapters, "files": len(printed),
            "missing": missing}


def outline(pdf: str | Path) -> list[tuple[int, str]]:
    """The outline of a PDF as (depth, title) pairs, in order."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    found: list[tuple[int, str]] = []

    def walk(items: list[Any], depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                found.append((depth, str(item.title)))

    walk(reader.outline, 0)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python book/_ext/pdfbook.py",
                                     description="Print the built HTML book to one PDF.")
    parser.add_argument("html_dir", nargs="?", default="_build/html")
    parser.add_argument("-o", "--output", default=None,
                        help=f"the PDF (default: <html_dir>/{PDF_NAME})")
    args = parser.parse_args(argv)
    html = Path(args.html_dir)
    if not (html / "index.html").is_file():
        print(f"pdf: {html} has no index.html; build the book first (make book)",
              file=sys.stderr)
        return 2
    out = Path(args.output) if args.output else html / PDF_NAME
    try:
        info = print_book(html, out)
    except FileNotFoundError as exc:
        print(f"pdf: {exc}", file=sys.stderr)
        return 2
    if info["missing"]:
        print(f"pdf: {len(info['missing'])} page(s) of _toc.yml not built, left out: "
              + ", ".join(info["missing"][:5]), file=sys.stderr)
    print(f"pdf: {out}: {info['pages']} pages, {info['files']} HTML pages, "
          f"{info['chapters']} chapters in the outline")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
