"""Checks on the built HTML book: it must load nothing from outside this machine, and show
nothing unrendered.

``python -m tools.bookcheck _build/html`` exits non-zero and lists every page and tag that
refers to an external resource (``<script src>``, ``<link href>`` of a stylesheet/font/icon,
``<img src>``, ``<iframe src>``, ``<source src>``, ``url(...)`` in CSS), so that the book reads
the same offline as online. Ordinary hyperlinks (``<a href>``) are allowed: following them is
the reader's choice, not a resource the page loads.

It also lists, per page, what a reader must not see (:func:`unrendered_pages`, the check of
``ensel._html.unrendered_markup`` that the reports of ``ensel report`` and ``ensel evaluate``
pass too): a raw ``{role}``, a ``(label)=`` target, a ``$...$`` formula outside a math
element, an image without a real ``alt`` text; and the prose a reader trips on
(:func:`tools.prose.prose_pages`): a parameter name where its value belongs, a raw LaTeX label
or an id as link text, one quantity rounded two ways on a page, "1 are". ``--no-markup`` skips
both.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

__all__ = ["external_resources", "loaded_urls", "main", "unrendered_pages"]

_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
_CSS_URL = re.compile(r"""url\(\s*['"]?((?:[a-z][a-z0-9+.-]*:)?//[^'")\s]+)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"""@import\s+['"]((?:[a-z][a-z0-9+.-]*:)?//[^'"]+)""", re.IGNORECASE)
_LOADED_LINK_RELS = {"stylesheet", "preload", "prefetch", "modulepreload", "icon",
                     "shortcut", "manifest", "preconnect", "dns-prefetch"}


class _ResourceParser(HTMLParser):
    """Every resource a page's tags load, ``loaded`` as (description, URL), local or external;
    ``found``: the external ones, with the external ``url(...)``/``@import`` of inline CSS."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loaded: list[tuple[str, str]] = []
        self._css: list[str] = []
        self._in_style = False

    @property
    def found(self) -> list[str]:
        return [what for what, url in self.loaded if _EXTERNAL.match(url)] + self._css

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag in ("script", "img", "iframe", "source", "audio", "video", "embed"):
            if a.get("src"):
                self.loaded.append((f"<{tag} src={a['src']}>", a["src"]))
        elif tag == "link":
            rels = set(a.get("rel", "").lower().split())
            if rels & _LOADED_LINK_RELS and a.get("href"):
                self.loaded.append((f"<link rel={a.get('rel')} href={a['href']}>", a["href"]))
        elif tag == "object" and a.get("data"):
            self.loaded.append((f"<object data={a['data']}>", a["data"]))
        if "style" in a:
            self._css.extend(f"style url({u})" for u in _CSS_URL.findall(a["style"]))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self._css.extend(f"<style> url({u})" for u in _CSS_URL.findall(data))
            self._css.extend(f"<style> @import {u}" for u in _CSS_IMPORT.findall(data))


def loaded_urls(page: str) -> list[str]:
    """The URLs an HTML page's tags load (``src`` of scripts, images, frames, media;
    ``href`` of stylesheets, fonts and icons; ``data`` of objects), local or external, in
    order; ordinary hyperlinks are not loaded.

    Examples
    --------
    >>> loaded_urls('<script src="_static/a.js"></script><a href="x.html">x</a>'
    ...             '<img src="https://example.org/b.png">')
    ['_static/a.js', 'https://example.org/b.png']
    """
    parser = _ResourceParser()
    parser.feed(page)
    return [url for _, url in parser.loaded]


def external_resources(html_dir: str | Path) -> dict[str, list[str]]:
    """Map each built file (HTML or CSS) to the external resources it loads.

    Parameters
    ----------
    html_dir : str or Path
        The HTML output folder (e.g. ``_build/html``).

    Returns
    -------
    dict
        ``{relative path: [description, ...]}`` for files with at least one external resource.
    """
    root = Path(html_dir)
    if not (root / "index.html").is_file():
        raise FileNotFoundError(f"{root} has no index.html: build the book first (make book)")
    problems: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*")):
        if path.suffix == ".html":
            parser = _ResourceParser()
            parser.feed(path.read_text(encoding="utf-8", errors="replace"))
            found = parser.found
        elif path.suffix == ".css":
            text = path.read_text(encoding="utf-8", errors="replace")
            found = [f"url({u})" for u in _CSS_URL.findall(text)]
            found += [f"@import {u}" for u in _CSS_IMPORT.findall(text)]
        else:
            continue
        if found:
            problems[str(path.relative_to(root))] = found
    return problems


def unrendered_pages(html_dir: str | Path) -> dict[str, list[str]]:
    """Map each built HTML page to what it shows unrendered (see
    ``ensel._html.unrendered_markup``); pages with nothing are left out."""
    from ensel._html import unrendered_markup

    root = Path(html_dir)
    found = {}
    for path in sorted(root.rglob("*.html")):
        if "_static" in path.relative_to(root).parts:
            continue
        items = unrendered_markup(path.read_text(encoding="utf-8", errors="replace"))
        if items:
            found[str(path.relative_to(root))] = items
    return found


def _failed(title: str, problems: dict[str, list[str]]) -> int:
    print(title, file=sys.stderr)
    for page, items in problems.items():
        for item in items:
            print(f"  {page}: {item}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m tools.bookcheck [HTML_DIR] [--no-markup]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    markup = "--no-markup" not in args
    args = [a for a in args if a != "--no-markup"]
    html_dir = Path(args[0] if args else "_build/html")
    problems = external_resources(html_dir)
    if problems:
        return _failed(f"The book at {html_dir} loads external resources (it must work "
                       "offline):", problems)
    n = sum(1 for _ in html_dir.rglob("*.html"))
    shown = unrendered_pages(html_dir) if markup else {}
    if shown:
        return _failed(f"The book at {html_dir} shows unrendered markup on {len(shown)} "
                       "page(s):", shown)
    if markup:
        from tools.prose import prose_pages

        prose = prose_pages(html_dir)
        if prose:
            return _failed(f"The book at {html_dir} has prose a reader trips on, on "
                           f"{len(prose)} page(s) (tools/prose.py):", prose)
    print(f"offline check: {n} HTML pages, no external resources"
          + (", nothing unrendered, no names for values, raw labels, numbers rounded two "
             "ways or '1 are'" if markup else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
