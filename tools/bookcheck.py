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

``--cache FILE`` (``make html``: ``_build/bookcheck.json``) keeps each file's verdict and
checks again only the files whose key changed (:func:`check_files`): the file's bytes, its
page's executed notebook, and the source of the checks and of every module of the repository
they import (:func:`checker_digest`). Every check reads one file (and its notebook), none
compares pages with each other, so a kept verdict is the verdict the check would give now;
what the book as a whole is checked for (its ``index.html``, the count of pages) is
recomputed on every run. A check that compares pages (links between them, say) must stay out
of the cache, or key each page's verdict by every page it reads.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

__all__ = ["CHECKERS", "CHECKS", "check_files", "checker_digest", "external_resources",
           "loaded_urls", "main", "unrendered_pages"]

ROOT = Path(__file__).resolve().parents[1]

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


def _external_in(path: Path) -> list[str]:
    """The external resources one built file loads ([] for a file neither HTML nor CSS)."""
    if path.suffix == ".html":
        parser = _ResourceParser()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        return parser.found
    if path.suffix == ".css":
        text = path.read_text(encoding="utf-8", errors="replace")
        return ([f"url({u})" for u in _CSS_URL.findall(text)]
                + [f"@import {u}" for u in _CSS_IMPORT.findall(text)])
    return []


def _built_files(root: Path, suffixes: tuple[str, ...] = (".html", ".css")) -> list[Path]:
    if not (root / "index.html").is_file():
        raise FileNotFoundError(f"{root} has no index.html: build the book first (make book)")
    return [p for p in sorted(root.rglob("*")) if p.suffix in suffixes and p.is_file()]


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
    found = {str(p.relative_to(root)): _external_in(p) for p in _built_files(root)}
    return {rel: items for rel, items in found.items() if items}


def _unrendered_in(root: Path, rel: Path) -> list[str]:
    from ensel._html import unrendered_markup

    if rel.suffix != ".html" or "_static" in rel.parts:
        return []
    return unrendered_markup((root / rel).read_text(encoding="utf-8", errors="replace"))


def unrendered_pages(html_dir: str | Path) -> dict[str, list[str]]:
    """Map each built HTML page to what it shows unrendered (see
    ``ensel._html.unrendered_markup``); pages with nothing are left out."""
    root = Path(html_dir)
    found = {}
    for path in sorted(root.rglob("*.html")):
        items = _unrendered_in(root, path.relative_to(root))
        if items:
            found[str(path.relative_to(root))] = items
    return found


# ----------------------------------------------------------------- the verdicts' cache
#: The checks of one built file, in the order they are reported; each looks at that file
#: (and, for the prose, at its page's executed notebook) and at nothing else of the book.
CHECKS = ("external", "unrendered", "prose")
#: The modules whose source the verdicts depend on: these and every module of the
#: repository they import, followed import by import (:func:`checker_digest`).
CHECKERS = ("tools/bookcheck.py", "tools/prose.py")
_REPO_PACKAGES = ("ensel", "tools")


def _file_verdict(root: Path, rel: Path, checks: Sequence[str]) -> dict[str, list[str]]:
    from tools.prose import prose_page

    verdict: dict[str, list[str]] = {}
    if "external" in checks:
        verdict["external"] = _external_in(root / rel)
    if "unrendered" in checks:
        verdict["unrendered"] = _unrendered_in(root, rel)
    if "prose" in checks:
        verdict["prose"] = prose_page(root, rel) if rel.suffix == ".html" else []
    return verdict


def _sha256(*chunks: bytes | str) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        data = chunk.encode() if isinstance(chunk, str) else chunk
        h.update(len(data).to_bytes(8, "big"))  # length-prefixed: chunks cannot run together
        h.update(data)
    return h.hexdigest()


def _module_file(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported(path: Path) -> tuple[set[str], set[str]]:
    """The modules of the repository (dotted names) and the other top-level modules that the
    source at ``path`` imports anywhere (in functions too)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    ours = {n for n in names if _module_file(n) is not None}
    others = {n.split(".")[0] for n in names if n.split(".")[0] not in _REPO_PACKAGES}
    return ours, others


def _installed(module: str) -> str:
    """Which installation of a top-level module is imported: its file, size and time
    (installing another version writes the file anew), or "-" when it is not installed."""
    from importlib.util import find_spec

    try:
        spec = find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        return f"{module}: -"
    stat = Path(spec.origin).stat()
    return f"{module}: {spec.origin} {stat.st_size} {stat.st_mtime_ns}"


def checker_digest() -> str:
    """SHA-256 of what every verdict depends on besides the file checked: the source of the
    checks (:data:`CHECKERS`) and of every module of the repository they import, followed
    import by import (``ensel._html`` ...; not the packages' ``__init__`` Python runs on the
    way), the installation of the other packages they import (BeautifulSoup, MyST-NB ...)
    and Python's version."""
    todo = [ROOT / c for c in CHECKERS]
    seen: dict[Path, bytes] = {}
    others: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen[path] = path.read_bytes()
        ours, theirs = _imported(path)
        others |= theirs - set(sys.stdlib_module_names)
        todo += [f for f in map(_module_file, sorted(ours)) if f is not None]
    return _sha256(sys.version, *map(_installed, sorted(others)),
                   *(c for p in sorted(seen) for c in (p.relative_to(ROOT).as_posix(),
                                                        seen[p])))


def _read_cache(path: Path) -> dict[str, Any]:
    """The cache file, or {} when it is absent or damaged (every file is then checked)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def check_files(html_dir: str | Path, checks: Sequence[str] = CHECKS,
                cache: str | Path | None = None) -> tuple[dict[str, dict[str, list[str]]], int]:
    """The verdict of every built HTML or CSS file, ``{relative path: {check: [problem,
    ...]}}`` for the ``checks`` of :data:`CHECKS`, and how many files were checked now.

    With ``cache`` (a JSON file), a file's verdict is kept under the SHA-256 of its path, its
    bytes, its page's executed notebook (``_sources/<page>.ipynb``, which the prose checks
    read) and :func:`checker_digest`; a file whose key is in the cache is not checked again.
    Every check reads only the file it checks and that notebook, so a verdict holds for as
    long as its key. Failing verdicts are kept too, and reported again from the cache.
    """
    from tools.prose import page_notebook

    root = Path(html_dir)
    files = _built_files(root)
    store = _read_cache(Path(cache)) if cache is not None else {}
    kept: dict[str, Any] = store.get("files", {}) if isinstance(store.get("files"), dict) else {}
    checker = checker_digest() if cache is not None else ""
    verdicts, entries, checked = {}, {}, 0
    for path in files:
        rel = path.relative_to(root)
        key = ""
        if cache is not None:
            notebook = page_notebook(root, rel)
            key = _sha256(checker, rel.as_posix(), path.read_bytes(),
                          notebook.read_bytes() if notebook.is_file() else "(none)")
        entry = kept.get(rel.as_posix()) or {}
        verdict = {c: entry[c] for c in checks if entry.get("key") == key and c in entry}
        missing = [c for c in checks if c not in verdict]
        if missing or cache is None:
            verdict.update(_file_verdict(root, rel, missing))
            checked += 1
        verdicts[rel.as_posix()] = verdict
        old = entry if entry.get("key") == key else {}
        entries[rel.as_posix()] = {**old, **verdict, "key": key}
    if cache is not None:  # entries of files the book no longer has are dropped
        path = Path(cache)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps({"checker": checker, "files": entries}), encoding="utf-8")
        tmp.replace(path)
    return verdicts, checked


def _failed(title: str, problems: dict[str, list[str]]) -> int:
    print(title, file=sys.stderr)
    for page, items in problems.items():
        for item in items:
            print(f"  {page}: {item}", file=sys.stderr)
    return 1


_FAILED = {
    "external": "loads external resources (it must work offline)",
    "unrendered": "shows unrendered markup on {n} page(s)",
    "prose": "has prose a reader trips on, on {n} page(s) (tools/prose.py)",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m tools.bookcheck [HTML_DIR] [--no-markup]
    [--cache FILE]`` (``--cache``: keep each file's verdict, see :func:`check_files`)."""
    parser = argparse.ArgumentParser(prog="python -m tools.bookcheck")
    parser.add_argument("html_dir", nargs="?", default="_build/html")
    parser.add_argument("--no-markup", action="store_true")
    parser.add_argument("--cache", default=None)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    html_dir = Path(args.html_dir)
    checks = ("external",) if args.no_markup else CHECKS
    verdicts, checked = check_files(html_dir, checks, args.cache)
    for check in checks:
        problems = {rel: v[check] for rel, v in verdicts.items() if v[check]}
        if problems:
            what = _FAILED[check].format(n=len(problems))
            return _failed(f"The book at {html_dir} {what}:", problems)
    n = sum(1 for rel in verdicts if rel.endswith(".html"))
    print(f"offline check: {n} HTML pages, no external resources"
          + (", nothing unrendered, no names for values, raw labels, numbers rounded two "
             "ways or '1 are'" if not args.no_markup else "")
          + (f" ({checked} file(s) checked now, {len(verdicts) - checked} from the cache)"
             if args.cache else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
