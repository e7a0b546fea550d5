"""Print the built HTML book to one PDF, offline (``make pdf``).

``python book/_ext/pdfbook.py _build/html [-o _build/html/ensel-book.pdf]`` serves the HTML
folder on 127.0.0.1 (the browser check's server), opens every page of ``_toc.yml`` in its order
but the API reference (:data:`LEFT_OUT`, read on screen) in headless Chromium (Debian's
``chromium`` through Playwright, the browser check's flags; no network), waits for MathJax,
prints each page with the theme's print stylesheet (no sidebars), and merges the pages with
pypdf into one PDF whose outline has one entry per part (its caption) and, under it, one per
chapter (the page's title), with a chapter's sections nested under it. The print rules of
``book/_static/ensel.css`` leave the code cells, the parameters and the "Reproduce this
figure" boxes to the screen and let table cells wrap; a table still wider than the page (many
numeric columns) is scaled down to its width, and a long reference table (the list of
figures, the map of the paper) keeps its first rows in print and names the HTML page that has
them all (:data:`FOLD_MIN_ROWS`). ``make pdf`` fails when the PDF has more than
:data:`MAX_PAGES` pages or no outline (:func:`book_problems`).

Each page's PDF is kept in a cache (``--cache``, by default ``pdfcache/`` beside the HTML
folder: ``_build/pdfcache/<key>.pdf`` and its title in ``<key>.json``), keyed by a SHA-256 of
what the print depends on: the page's HTML (without Sphinx's ``?v=`` checksums), every local
file it loads (images, scripts, stylesheets; not the search index), the whole ``_static/``
folder (what scripts and stylesheets load in turn: MathJax, fonts), this file's source and
the browser check's flags (the printing), and the Chromium executable (path, size,
modification time). A rebuild reprints only the pages whose key changed, and when no key and
no part of the outline changed and the PDF is the one written last time, it writes nothing.
Entries no page uses any more are removed after each build.
What the key does not see (the system's fonts, say) needs the cache removed by hand
(``rm -rf _build/pdfcache``, or ``make clean``).

Without Chromium the PDF cannot be made: ``make pdf`` stops (exit 2) and ``make book`` passes
``--if-chromium``, which says so in one line and exits 0. The front page links to the file
(``ensel-book.pdf`` at the top of the HTML folder) through the ``{book-pdf}`` role of this
Sphinx extension, only when Chromium is there to print it; otherwise the role says how to get
it, so that a book built without the PDF has no broken link. A page that uses the role is read
again when Chromium appears or goes.

Build tooling, not library: it lives beside the book's other Sphinx helpers and is not in the
wheel.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # tools/ (the browser check) is not in the wheel
    sys.path.insert(0, str(ROOT))
from tools.bookcheck import _sha256  # noqa: E402 - the same keys as the book check's cache

PDF_NAME = "ensel-book.pdf"
CHROMIUM_MISSING = ("chromium is not installed (Debian: apt-get install chromium, as root, "
                    "or make chromium)")
#: What ``make book`` prints, in one line, when there is no Chromium to print the PDF.
NOTICE = ("pdf: not made: printing the book to PDF needs Chromium, which is not installed "
          "(Debian: apt-get install chromium, as root, then make book); the HTML book is complete")
#: Parts of ``_toc.yml`` (by caption) left out of the PDF: the book's narrative is printed,
#: the API reference (hundreds of pages of signatures) is read on screen.
LEFT_OUT = ("API reference",)
#: The most pages the printed book may have: ``make pdf`` fails beyond (:func:`book_problems`).
MAX_PAGES = 300
_CACHE_ENTRY = re.compile(r"[0-9a-f]{64}\.(pdf|json)(\.tmp)?")
#: The width of an A4 page between the print margins (210 mm - 2 x 12 mm) in CSS pixels: the
#: width pages are laid out at before printing, so that what is measured is what is printed.
_PX_PER_MM = 96 / 25.4
PRINT_WIDTH_PX = round((210 - 2 * 12) * _PX_PER_MM)
#: Tables wider than the text column (many numeric columns, which cannot wrap) are scaled down
#: to its width (CSS zoom), instead of being cut at the page's edge; how many were.
_FIT_TABLES = """() => {
  const column = document.querySelector('article') || document.body;
  const right = column.getBoundingClientRect().right;
  let fitted = 0;
  for (const t of column.querySelectorAll('table')) {
    const box = t.getBoundingClientRect();
    const room = right - box.left;
    if (box.width > room + 1 && room > 0) {
      t.style.zoom = (room / box.width).toFixed(3);
      fitted += 1;
    }
  }
  return fitted;
}"""
#: A long reference table (at least :data:`FOLD_MIN_ROWS` rows, taller than
#: :data:`FOLD_ABOVE_MM` on the printed page, whose text height is 269 mm: the list of
#: figures, the map of the paper, the claims' verdicts) is folded in print
#: (:data:`_FOLD_TABLES`): the PDF keeps its first rows, up to :data:`FOLD_KEEP_MM`, and says
#: where the rest is; the HTML book keeps every row. Shorter tables (the results) print whole.
FOLD_MIN_ROWS = 20
FOLD_ABOVE_MM = 200
FOLD_KEEP_MM = 90
#: Fold each visible table of the page taller than ``above`` CSS pixels: its body rows after
#: the first ones that fit in ``keep`` pixels are hidden and a line after the table names how
#: many rows were printed and the page of the HTML book that has them all. How many were.
_FOLD_TABLES = """([minRows, above, keep, page]) => {
  const column = document.querySelector('article') || document.body;
  let folded = 0;
  for (const t of column.querySelectorAll('table')) {
    const box = t.getBoundingClientRect();
    if (box.height <= above || t.offsetParent === null) continue;
    const rows = Array.from(t.querySelectorAll('tbody > tr'));
    if (rows.length < minRows) continue;
    const top = box.top;
    let shown = 0;
    for (const r of rows) {
      if (shown >= 1 && r.getBoundingClientRect().bottom - top > keep) break;
      shown += 1;
    }
    if (shown >= rows.length) continue;
    for (const r of rows.slice(shown)) r.style.display = 'none';
    const note = document.createElement('p');
    note.className = 'ensel-print-folded';
    note.textContent = `Printed: the first ${shown} of ${rows.length} rows of this table; ` +
      `the HTML book has them all (${page}).`;
    note.style.fontStyle = 'italic';
    note.style.fontSize = '0.85em';
    t.after(note);
    folded += 1;
  }
  return folded;
}"""
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


def _read_json(path: Path) -> dict[str, Any]:
    """A cache file, or {} when it is absent or damaged (the cache is then rebuilt)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(path)


def _file_digest(path: Path, known: dict[Path, str]) -> str:
    if path not in known:
        known[path] = _sha256(path.read_bytes())
    return known[path]


def tree_digest(folder: Path) -> str:
    """SHA-256 of every file under ``folder`` (relative paths and contents); "" when absent."""
    if not folder.is_dir():
        return ""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return _sha256(*(c for p in files for c in (p.relative_to(folder).as_posix(),
                                                   p.read_bytes())))


def printer_digest(executable: str) -> str:
    """What every page's print depends on besides the page: this file's source, the browser
    check's flags and MathJax wait, and the Chromium executable (resolved path, size, time)."""
    from tools.browsercheck import _MATHJAX_READY, CHROMIUM_FLAGS

    exe = Path(executable).resolve()
    stat = exe.stat()
    return _sha256(Path(__file__).read_bytes(), repr(CHROMIUM_FLAGS), _MATHJAX_READY,
                   f"{exe}|{stat.st_size}|{stat.st_mtime_ns}")


# Sphinx adds ``?v=<checksum>`` to an asset's URL only when the asset is on disk as it
# writes the page, so a fresh build writes pages without it and the next build with it. The
# checksum is of the asset, whose content the key holds already: it is left out of the key.
_ASSET_CHECKSUM = re.compile(rb"""(\.(?:css|js))\?v=[0-9a-f]{8}(?=["'])""")
# Files every page loads that never change its print: the search box's index (the theme loads
# it on every page), which Sphinx rewrites on every build with other contents (an incremental
# build, reading again only the pages it regenerates, leaves out the index entries of the
# others), so that with it in the key the first build after a fresh one reprinted every page.
NOT_PRINTED = ("searchindex.js",)


def page_key(html_dir: Path, page: Path, shared: str, known: dict[Path, str] | None = None,
             parsed: dict[str, list[str]] | None = None) -> str:
    """The cache key of one page: SHA-256 of ``shared`` (:func:`printer_digest` and the
    ``_static/`` :func:`tree_digest`), the page's HTML and each local file its tags load
    (:func:`tools.bookcheck.loaded_urls`; a file that does not exist counts by its name), but
    the files of :data:`NOT_PRINTED`.

    ``known`` holds the digests of files already read; ``parsed`` the URLs of pages already
    parsed, by the digest of their HTML (parsing is most of the time of an unchanged book).
    """
    from tools.bookcheck import loaded_urls

    known = {} if known is None else known
    parsed = {} if parsed is None else parsed
    text = _ASSET_CHECKSUM.sub(rb"\1", page.read_bytes())
    digest = _sha256(text)
    if digest not in parsed:
        parsed[digest] = sorted(set(loaded_urls(text.decode("utf-8", errors="replace"))))
    root = html_dir.resolve()
    chunks: list[bytes | str] = [shared, digest]
    for url in parsed[digest]:
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:  # external, data: URI, fragment
            continue
        target = (page.parent / unquote(parts.path)).resolve()
        if not target.is_relative_to(root):
            continue
        rel = target.relative_to(root).as_posix()
        if rel in NOT_PRINTED:
            continue
        chunks += [rel, _file_digest(target, known) if target.is_file() else "(missing)"]
    return _sha256(*chunks)


def page_keys(html_dir: Path, files: list[str], executable: str,
              parsed: dict[str, list[str]] | None = None) -> dict[str, str]:
    """The cache key of each page (a toc file without suffix) of the built ``html_dir``
    (``parsed``: see :func:`page_key`)."""
    shared = _sha256(printer_digest(executable), tree_digest(html_dir / "_static"))
    known: dict[Path, str] = {}
    return {f: page_key(html_dir, html_dir / f"{f}.html", shared, known, parsed)
            for f in files}


def _print_pages(html: Path, entries: list[Entry], keys: dict[str, str], store: Path,
                 executable: str) -> None:
    """Print each page to ``<store>/<key>.pdf`` with its title in ``<key>.json``."""
    from playwright.sync_api import sync_playwright

    from tools.browsercheck import (
        _MATHJAX_READY,
        CHROMIUM_FLAGS,
        LOAD_TIMEOUT_MS,
        MATH_TIMEOUT_MS,
        serve,
    )

    with serve(html) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True,
                                     args=list(CHROMIUM_FLAGS), timeout=LOAD_TIMEOUT_MS)
        try:
            context = browser.new_context(service_workers="block", viewport={
                "width": PRINT_WIDTH_PX, "height": 1000})
            context.add_init_script("try { localStorage.setItem('mode', 'light'); "
                                    "localStorage.setItem('theme', 'light'); } catch (e) {}")
            for entry in entries:
                key = keys[entry.file]
                page = context.new_page()
                try:
                    page.goto(base + f"{entry.file}.html", wait_until="load",
                              timeout=LOAD_TIMEOUT_MS)
                    if page.evaluate("() => !!(window.MathJax && window.MathJax.startup)"):
                        page.evaluate(_MATHJAX_READY, MATH_TIMEOUT_MS)
                    title = page.evaluate(_TITLE) or entry.file
                    page.emulate_media(media="print")  # measured as printed, then fitted
                    page.evaluate(_FOLD_TABLES, [FOLD_MIN_ROWS, FOLD_ABOVE_MM * _PX_PER_MM,
                                                 FOLD_KEEP_MM * _PX_PER_MM, f"{entry.file}.html"])
                    page.evaluate(_FIT_TABLES)
                    tmp_pdf = store / f"{key}.pdf.tmp"
                    page.pdf(path=str(tmp_pdf), format="A4", print_background=True,
                             margin={"top": "14mm", "bottom": "14mm", "left": "12mm",
                                     "right": "12mm"})
                finally:
                    page.close()
                tmp_pdf.replace(store / f"{key}.pdf")
                # the title last: a cache entry is complete when its .json exists
                _write_json(store / f"{key}.json", {"file": entry.file, "title": title})
        finally:
            browser.close()


def _merge(parts: list[Part], pages: list[Entry], keys: dict[str, str], store: Path,
           out: Path) -> dict[str, int]:
    """Merge the cached pages into ``out`` with the outline; its page and chapter counts."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    printed: dict[str, tuple[int, str]] = {}  # toc file -> (first PDF page, title)
    for entry in pages:
        key = keys[entry.file]
        title = _read_json(store / f"{key}.json")["title"]
        printed[entry.file] = (len(writer.pages), title)
        writer.append(PdfReader(str(store / f"{key}.pdf")))
    chapters = 0

    def add(entry: Entry, parent: Any) -> None:
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
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_suffix(".pdf.tmp")
    writer.page_mode = "/UseOutlines"
    with open(tmp_out, "wb") as fh:
        writer.write(fh)
    tmp_out.replace(out)
    return {"pages": len(writer.pages), "chapters": chapters}


def _written(out: Path) -> list[int]:
    stat = out.stat()
    return [stat.st_size, stat.st_mtime_ns]


def print_book(html_dir: str | Path, out: str | Path, *, toc: str | Path | None = None,
               chromium: str | None = None, cache: str | Path | None = None,
               leave_out: tuple[str, ...] = LEFT_OUT) -> dict[str, Any]:
    """Print every page of the table of contents (but the parts ``leave_out`` names) to one
    PDF with an outline.

    Parameters
    ----------
    html_dir, out : str or Path
        The built HTML folder and the PDF to write.
    toc : str or Path, optional
        The ``_toc.yml`` (default: the repository's).
    chromium : str, optional
        The Chromium executable (default: :func:`tools.browsercheck.find_chromium`).
    cache : str or Path, optional
        The folder of printed pages (see the module's description); None prints every page.
    leave_out : tuple of str
        Captions of the parts not printed (default :data:`LEFT_OUT`: the API reference).

    Returns
    -------
    dict
        ``{"pages": <PDF pages>, "chapters": <outline entries of chapters>, "files": <HTML
        pages in the PDF>, "printed": <pages printed by Chromium now>, "cached": <pages taken
        from the cache>, "missing": [<toc files without an HTML page>], "written": <whether
        the PDF was written (False: it was up to date)>}``.
    """
    from tools.browsercheck import find_chromium

    html = Path(html_dir)
    out = Path(out)
    parts = [p for p in toc_parts(Path(toc) if toc else ROOT / "_toc.yml")
             if p.caption not in leave_out]
    executable = chromium or find_chromium()
    if executable is None:
        raise FileNotFoundError(CHROMIUM_MISSING)
    entries = [e for part in parts for c in part.chapters for e in _walk(c)]
    pages = [e for e in entries if (html / f"{e.file}.html").is_file()]
    missing = [e.file for e in entries if not (html / f"{e.file}.html").is_file()]
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(cache) if cache is not None else Path(tmp)
        store.mkdir(parents=True, exist_ok=True)
        urls_file = store / "urls.json"  # the URLs each page's HTML loads, by its digest
        parsed = _read_json(urls_file)
        known_pages = len(parsed)
        keys = page_keys(html, [e.file for e in pages], executable, parsed)
        todo = [e for e in pages if "title" not in _read_json(store / f"{keys[e.file]}.json")
                or not (store / f"{keys[e.file]}.pdf").is_file()]
        if todo:
            _print_pages(html, todo, keys, store, executable)
        book_key = _sha256(json.dumps([asdict(p) for p in parts]),
                           json.dumps([(e.file, keys[e.file]) for e in pages]))
        last = _read_json(store / "book.json")
        current = not todo and cached_output(out, store) and last.get("key") == book_key
        counts = ({"pages": last["pages"], "chapters": last["chapters"]} if current
                  else _merge(parts, pages, keys, store, out))
        if cache is not None:
            if not current:
                _write_json(store / "book.json", {"key": book_key, "output": str(out.resolve()),
                                                  "written": _written(out), **counts})
            if len(parsed) != known_pages:  # pages changed: keep the URLs of these only
                htmls = {_sha256((html / f"{e.file}.html").read_bytes()) for e in pages}
                _write_json(urls_file, {d: u for d, u in parsed.items() if d in htmls})
            used = set(keys.values())
            for path in store.iterdir():  # entries of pages that changed or left the book
                if _CACHE_ENTRY.fullmatch(path.name) and path.name.split(".")[0] not in used:
                    path.unlink()
    return {**counts, "files": len(pages), "printed": len(todo), "cached": len(pages) - len(todo),
            "missing": missing, "written": not current}


def cached_output(out: str | Path, cache: str | Path) -> bool:
    """Whether ``out`` is the PDF this cache's last build wrote (unchanged since)."""
    out, last = Path(out), _read_json(Path(cache) / "book.json")
    return (out.is_file() and last.get("output") == str(out.resolve())
            and last.get("written") == _written(out))


def book_problems(pdf: str | Path, *, chapters: int | None = None,
                  max_pages: int = MAX_PAGES) -> list[str]:
    """What is wrong with a printed book for a reader: more than ``max_pages`` pages, no
    outline, or (``chapters`` given) fewer top-level chapter entries in the outline than
    chapters printed. Empty when nothing is."""
    from pypdf import PdfReader

    problems = []
    pages = len(PdfReader(str(pdf)).pages)
    if pages > max_pages:
        problems.append(f"{pages} pages, more than {max_pages}: a book a reader prints "
                        f"stays within {max_pages} (see the print rules in book/_static/ensel.css)")
    entries = outline(pdf)
    if not entries:
        problems.append("no outline (bookmarks)")
    elif chapters is not None:
        n = sum(1 for depth, _ in entries if depth <= 1)
        if n < chapters:
            problems.append(f"an outline of {n} part and chapter entries for {chapters} chapters")
    return problems


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
    from tools.browsercheck import find_chromium

    parser = argparse.ArgumentParser(prog="python book/_ext/pdfbook.py",
                                     description="Print the built HTML book to one PDF.")
    parser.add_argument("html_dir", nargs="?", default="_build/html")
    parser.add_argument("-o", "--output", default=None,
                        help=f"the PDF (default: <html_dir>/{PDF_NAME})")
    parser.add_argument("--cache", default=None,
                        help="the folder of printed pages (default: pdfcache/ beside html_dir)")
    parser.add_argument("--toc", default=None, help="the _toc.yml (default: the repository's)")
    parser.add_argument("--if-chromium", action="store_true",
                        help="without Chromium, say so in one line and exit 0 (make book)")
    args = parser.parse_args(argv)
    html = Path(args.html_dir)
    if not (html / "index.html").is_file():
        print(f"pdf: {html} has no index.html; build the book first (make book)",
              file=sys.stderr)
        return 2
    out = Path(args.output) if args.output else html / PDF_NAME
    cache = Path(args.cache) if args.cache else html.resolve().parent / "pdfcache"
    if find_chromium() is None:
        if not args.if_chromium:
            print(f"pdf: {CHROMIUM_MISSING}", file=sys.stderr)
            return 2
        if cached_output(out, cache):  # printed from an earlier HTML, which the book no
            out.unlink()               # longer links (see the {book-pdf} role)
        print(NOTICE)
        return 0
    try:
        info = print_book(html, out, toc=args.toc, cache=cache)
    except FileNotFoundError as exc:
        print(f"pdf: {exc}", file=sys.stderr)
        return 2
    if info["missing"]:
        print(f"pdf: {len(info['missing'])} page(s) of _toc.yml not built, left out: "
              + ", ".join(info["missing"][:5]), file=sys.stderr)
    state = "written" if info["written"] else "up to date"
    print(f"pdf: {out} {state}: {info['pages']} pages, {info['files']} HTML pages "
          f"({info['printed']} printed, {info['cached']} from the cache), "
          f"{info['chapters']} chapters in the outline "
          f"({', '.join(LEFT_OUT)} left out: it is read on screen)")
    problems = book_problems(out, chapters=info["chapters"])
    for problem in problems:
        print(f"pdf: {out}: {problem}", file=sys.stderr)
    return 2 if problems else 0


# --------------------------------------------------------------------------- Sphinx role


def _book_pdf_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                   options: dict | None = None, content: list | None = None
                   ) -> tuple[list[Any], list[Any]]:
    """``{book-pdf}`one PDF``` : a link to the book's PDF when Chromium is there to print it
    (``make book`` does), otherwise the text and how to get the PDF: no broken link."""
    from docutils import nodes

    from tools.browsercheck import find_chromium

    env = inliner.document.settings.env
    available = find_chromium() is not None
    env.ensel_book_pdf = {**getattr(env, "ensel_book_pdf", {}), env.docname: available}
    if available:
        href = "../" * env.docname.count("/") + PDF_NAME
        return [nodes.reference(rawtext, text, refuri=href), nodes.Text(" ("),
                nodes.literal("", "make pdf"), nodes.Text(")")], []
    return [nodes.Text(f"{text} (not in this build: printing it needs Chromium, "),
            nodes.literal("", "apt-get install chromium"), nodes.Text(" on Debian, then "),
            nodes.literal("", "make book"), nodes.Text(")")], []


def _outdated(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """The pages whose PDF link was made when Chromium was there and is not now, or back."""
    from tools.browsercheck import find_chromium

    available = find_chromium() is not None
    return sorted(d for d, had in getattr(env, "ensel_book_pdf", {}).items()
                  if had != available and d in env.found_docs)


def _purge(app: Any, env: Any, docname: str) -> None:
    getattr(env, "ensel_book_pdf", {}).pop(docname, None)


def _merge_env(app: Any, env: Any, docnames: set, other: Any) -> None:
    theirs = getattr(other, "ensel_book_pdf", {})
    env.ensel_book_pdf = {**getattr(env, "ensel_book_pdf", {}),
                          **{d: theirs[d] for d in docnames if d in theirs}}


def setup(app: Any) -> dict[str, Any]:
    app.add_role("book-pdf", _book_pdf_role)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge_env)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
