"""The built book as a reader's browser shows it: every page opened in headless Chromium.

``python -m tools.browsercheck _build/html [--screenshots DIR]`` serves the HTML folder
from a local HTTP server on 127.0.0.1 (a free port, started and stopped here), opens every page
in headless Chromium (Debian's ``chromium``) at a 1280 px wide window, saves a full-page
screenshot of each page and prints one line per problem, ``<page>: <kind>: <detail>``:

``console``
    an error written to the browser console, or an uncaught JavaScript exception.
``broken-link``
    an ``<a href>`` to this site whose file does not exist, or whose ``#fragment`` names no
    element of the target page.
``broken-image``
    an ``<img>`` that did not load (the file is missing or is not an image).
``broken-resource``
    any other file of this site the page requested that failed (a 4xx/5xx answer or a failed
    request): a script, a stylesheet, a font.
``math``
    math left unrendered: a math element of the page without rendered MathJax output
    (``mjx-container``), a MathJax error (``mjx-merror``), or raw TeX delimiters (``$$``,
    ``\\(``, ``\\[``, ``$..\\cmd..$``) left in the visible text outside code.
``interaction``
    an interactive element that does not respond: on a page with the explorer
    (``ensel.book.explorer``), moving the accuracy slider must redraw the curve and change
    the read-out line.
``contrast``
    a mark of the explorer (its axes and tick labels, the MAP curve, the majority-vote
    markers, the floor, the read-out line) whose colour has a contrast ratio below 3:1 (WCAG's
    minimum for graphics) against the page's background in the mode checked: a colour
    written for the light mode that vanishes in the dark one.
``overflow``
    horizontal overflow at 1280 px: the document is wider than the window, or an element
    (a code cell's ``pre``/``div.highlight``, a table or its wrapper, display math) has content
    wider than its box and so shows a horizontal scrollbar. The element is named by tag, class
    and the start of its text, with both widths.

Every page is checked in the theme's light mode and, with ``--mode dark`` (or ``both``, what
``make check-browser`` runs), in its dark mode too: the reader's stored choice is set before the
page loads, as the theme's switch would, and dark-mode problems are reported as
``dark:<page>`` with screenshots under ``<DIR>/dark/``.

It exits 1 when there is a problem, 0 otherwise, and ends with a one-line summary.

``python -m tools.browsercheck _build/html --shots DIR [--shot PAGE[#ID] ...]`` checks
nothing: it saves one 1280 x 900 screenshot per page and mode (light and dark unless
``--mode`` says otherwise) under ``DIR/<mode>/``, for a closing note or a review
(:func:`take_screenshots`). With ``#ID`` the page is scrolled to that element and the first
"Reproduce this figure" box at or after it is opened. Without ``--shot`` it takes
:data:`CLOSING_SHOTS` (the front page, its headline figure with the box opened, the
corrections, the notation, the explorer, the list of figures); ``make screenshots`` runs it.

The browser is driven with Playwright for Python, launched with the system Chromium
(``executable_path``): Playwright's own browser downloads are never used. Playwright rather than
raw DevTools-protocol calls because it owns the parts that are easy to get subtly wrong by hand
(waiting for ``load``, attaching console/response listeners before navigation, full-page
screenshots of long pages, bounded timeouts on every call, clean shutdown of the browser).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import shutil
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

__all__ = ["CHROMIUM_FLAGS", "CLOSING_SHOTS", "Problem", "check_site", "contrast_ratio",
           "find_chromium", "main", "pages", "shot_name", "take_screenshots"]

#: Window size of the check: the issue's reference width.
VIEWPORT = {"width": 1280, "height": 900}
#: Flags known to work for headless Chromium on these machines (no sandbox as root, no GPU,
#: no background traffic to anywhere). The profile is a fresh temporary ``--user-data-dir``.
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
#: Bounded waits (milliseconds): a loaded 2-core machine is slow, but nothing waits forever.
LOAD_TIMEOUT_MS = 90_000
MATH_TIMEOUT_MS = 45_000
MATHJAX_START_MS = 5_000
#: Folders of a Sphinx build that hold assets, not pages.
_ASSET_DIRS = {"_static", "_sources", "_images", "_downloads", "_sphinx_design_static"}

KINDS = ("console", "broken-link", "broken-image", "broken-resource", "math", "interaction",
         "contrast", "overflow")
#: The least contrast ratio a mark of the explorer must have against the page (WCAG 2.1,
#: non-text contrast).
MIN_CONTRAST = 3.0
MODES = ("light", "dark")
#: Set before any script of the page runs: the theme (pydata-sphinx-theme) reads the reader's
#: stored light/dark choice from localStorage, as its mode switch stores it.
_MODE_SCRIPT = ("try {{ localStorage.setItem('mode', '{0}'); "
                "localStorage.setItem('theme', '{0}'); }} catch (e) {{}}")

#: Moves the explorer's first slider by one step and reports the read-out and the curve
#: before and after (``null`` when the page has no explorer).
_EXPLORER_PROBE = r"""() => {
  const root = document.querySelector('.ensel-explorer');
  if (!root) return null;
  const input = root.querySelector('input[type=range]');
  const readout = root.querySelector('.ensel-explorer-readout');
  const curve = () => {
    const p = root.querySelector('path.map');
    return p ? p.getAttribute('d') : '';
  };
  // the colour of each kind of mark against the page's background (the first opaque
  // background from the explorer up; white when none is)
  const rgb = (c) => {
    const m = (c || "").match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const v = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return v.length > 3 && v[3] === 0 ? null : v.slice(0, 3);
  };
  let background = null;
  for (let e = root; e && !background; e = e.parentElement) {
    background = rgb(getComputedStyle(e).backgroundColor);
  }
  background = background || [255, 255, 255];
  const marks = {};
  const look = (name, selector, prop) => {
    const e = root.querySelector(selector);
    const c = e ? rgb(getComputedStyle(e)[prop]) : null;
    if (c) marks[name] = c;
  };
  const before = [readout.textContent, curve()];
  look("tick labels", "svg text", "fill");
  look("axes", "svg line.axis", "stroke");
  look("MAP curve", "path.map", "stroke");
  look("majority-vote markers", "circle.majority", "stroke");
  look("floor", "line.floor", "stroke");
  look("read-out line", ".ensel-explorer-readout", "color");
  input.value = String(+input.value === +input.max ? +input.value - 1 : +input.value + 1);
  input.dispatchEvent(new Event('input', {bubbles: true}));
  return {before: before, after: [readout.textContent, curve()], marks: marks,
          background: background};
}"""


@dataclass(frozen=True)
class Problem:
    """One finding: the page (path relative to the HTML folder), its kind and a detail."""

    page: str
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.detail}"


def find_chromium() -> str | None:
    """The path of the system Chromium (``chromium`` or ``chromium-browser`` on ``PATH``, as
    ``make chromium`` looks for it), or None when it is not installed."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def contrast_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    """WCAG 2.1 contrast ratio of two sRGB colours (0-255 per channel), from 1 to 21.

    Examples
    --------
    >>> round(contrast_ratio((0, 0, 0), (255, 255, 255)), 1)
    21.0
    >>> contrast_ratio((20, 24, 30), (20, 24, 30))
    1.0
    """
    def luminance(c: Sequence[float]) -> float:
        lin = [v / 255 / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
               for v in c[:3]]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def pages(html_dir: str | Path) -> list[str]:
    """Every HTML page of a built book, as paths relative to ``html_dir`` (sorted)."""
    root = Path(html_dir)
    out = []
    for path in root.rglob("*.html"):
        rel = path.relative_to(root)
        if rel.parts[0] in _ASSET_DIRS or rel.parts[0].startswith("."):
            continue
        out.append(rel.as_posix())
    return sorted(out)


# --------------------------------------------------------------------------- local server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # The browser drops connections it no longer needs (a page closed while a font or
        # image was still streaming): not a problem of the book, and not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(html_dir: str | Path) -> Iterator[str]:
    """Serve ``html_dir`` over HTTP on 127.0.0.1 at a free port; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(Path(html_dir).resolve()))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="browsercheck-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# --------------------------------------------------------------------------- links


class _IdParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("id", "name") and value:
                self.ids.add(value)


class _Site:
    """Files and element ids of the built folder, to resolve internal links."""

    def __init__(self, root: Path, base: str) -> None:
        self.root = root.resolve()
        self.base = base
        self._ids: dict[Path, set[str]] = {}

    def local_path(self, url: str) -> Path | None:
        """The file an URL of this site points at (None: not this site's URL)."""
        if not url.startswith(self.base):
            return None
        path = unquote(urlsplit(url).path).lstrip("/")
        target = (self.root / path).resolve()
        if target.is_dir():
            target = target / "index.html"
        return target

    def ids(self, path: Path) -> set[str]:
        if path not in self._ids:
            parser = _IdParser()
            parser.feed(path.read_text(encoding="utf-8", errors="replace"))
            self._ids[path] = parser.ids
        return self._ids[path]

    def page_of(self, url: str) -> str:
        path = self.local_path(url)
        if path is None:
            return url
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return url

    def link_problem(self, href: str, page_path: Path, page_ids: set[str]) -> str | None:
        """Why an internal link is broken, or None when it resolves."""
        url, fragment = urldefrag(href)
        target = self.local_path(url)
        if target is None:
            return None
        try:
            target.relative_to(self.root)
        except ValueError:
            return f"{href} points outside the book"
        if not target.is_file():
            return f"{self.page_of(url)} does not exist"
        fragment = unquote(fragment)
        if not fragment or target.suffix != ".html":
            return None
        ids = page_ids | self.ids(target) if target == page_path else self.ids(target)
        if fragment not in ids:
            return f"{self.page_of(url)}#{fragment}: no element with this id"
        return None


# --------------------------------------------------------------------------- in-page probes

# Everything the page is asked, in one evaluation after load (and after MathJax finished).
_PROBE = r"""
() => {
  const SKIP = new Set(["PRE", "CODE", "SCRIPT", "STYLE", "TEXTAREA", "NOSCRIPT", "KBD",
                        "SAMP", "TEMPLATE", "svg", "SVG"]);
  const visible = (el) => {
    if (!el) return false;
    if (typeof el.checkVisibility === "function") {
      return el.checkVisibility({checkOpacity: false, checkVisibilityCSS: true});
    }
    return el.getClientRects().length > 0;
  };
  const cells = [...document.querySelectorAll("div.cell")];
  const describe = (el) => {
    let d = el.tagName.toLowerCase();
    if (el.id) d += "#" + el.id;
    const cls = (typeof el.className === "string" ? el.className : "").trim().split(/\s+/)
      .filter((c) => c && !c.startsWith("CtxtMenu")).slice(0, 3);
    if (cls.length) d += "." + cls.join(".");
    const cell = el.closest("div.cell");
    if (cell) {
      d += " (code cell " + (cells.indexOf(cell) + 1) + " of " + cells.length;
      d += el.closest(".cell_output, .output") ? ", its output)" : ", its input)";
    }
    const section = el.closest("section[id]");
    if (section) d += " in section #" + section.id;
    const clip = (t) => (t.length > 70 ? t.slice(0, 67) + "..." : t);
    if (el.tagName === "MJX-CONTAINER") {
      let tex = "";
      try {
        const items = window.MathJax.startup.document.getMathItemsWithin(el);
        tex = items.length ? items[0].math : "";
      } catch (e) { tex = ""; }
      return d + ": math \"" + clip(tex.replace(/\s+/g, " ").trim()) + "\"";
    }
    const table = el.tagName === "TABLE" ? el : el.querySelector("table");
    if (table) {
      const row = table.rows[0];
      const head = row ? [...row.cells].map((c) => c.innerText.trim()).join(" | ") : "";
      return d + ": table of " + (row ? row.cells.length : 0) + " columns \"" + clip(head) + "\"";
    }
    const lines = (el.innerText || el.textContent || "").split("\n");
    if (lines.length > 1 || el.querySelector("pre") || el.tagName === "PRE") {
      let longest = "";
      for (const line of lines) if (line.length > longest.length) longest = line;
      return d + ": longest line " + longest.length + " characters \""
        + clip(longest.trim()) + "\"";
    }
    const text = (lines[0] || "").trim();
    return text ? d + ' "' + clip(text) + '"' : d;
  };

  // links and images
  const links = [...document.querySelectorAll("a[href]")].map((a) => a.href)
    .filter((h) => h.startsWith("http:") || h.startsWith("https:"));
  const images = [...document.querySelectorAll("img")].map((img) => ({
    src: img.currentSrc || img.src || img.getAttribute("src") || "",
    complete: img.complete,
    broken: img.complete && img.naturalWidth === 0,
  }));
  const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);

  // math
  const mathElements = [...document.querySelectorAll(".math")];
  const unrendered = mathElements.filter((el) => !el.querySelector("mjx-container"))
    .map((el) => (el.textContent || "").trim().slice(0, 80));
  const merrors = [...document.querySelectorAll("mjx-merror")]
    .map((el) => (el.getAttribute("data-mjx-error") || el.textContent || "").slice(0, 80));
  const rawMath = [];
  const delims = /\$\$|\\\(|\\\)|\\\[|\\\]|\$[^$\n]{0,200}?\\[A-Za-z]+[^$\n]{0,200}?\$/;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue;
    if (!text || !delims.test(text)) continue;
    let skip = false;
    for (let el = node.parentElement; el; el = el.parentElement) {
      if (SKIP.has(el.tagName) || el.tagName.toLowerCase().startsWith("mjx-")) {
        skip = true;
        break;
      }
    }
    if (skip || !visible(node.parentElement)) continue;
    const m = text.match(delims);
    const start = Math.max(0, m.index - 20);
    rawMath.push(text.slice(start, m.index + 60).replace(/\s+/g, " ").trim());
  }

  // horizontal overflow
  const doc = document.documentElement;
  const overflow = [];
  if (doc.scrollWidth > doc.clientWidth + 1) {
    overflow.push({what: "document", scroll: doc.scrollWidth, client: doc.clientWidth});
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) continue;
    const ox = getComputedStyle(el).overflowX;
    if (ox !== "auto" && ox !== "scroll") continue;
    if (!visible(el)) continue;
    overflow.push({what: describe(el), scroll: el.scrollWidth, client: el.clientWidth});
  }

  return {links, images, ids, mathCount: mathElements.length,
          mjxCount: document.querySelectorAll("mjx-container").length,
          unrendered, merrors, rawMath, overflow};
}
"""

# "done" when MathJax 3 has finished typesetting the page, "timeout" after the given ms.
_MATHJAX_READY = r"""
async (ms) => {
  const mj = window.MathJax;
  const ready = (async () => {
    await mj.startup.promise;
    if (typeof mj.typesetPromise === "function") { await mj.typesetPromise(); }
    return "done";
  })();
  const late = new Promise((resolve) => setTimeout(() => resolve("timeout"), ms));
  return Promise.race([ready, late]);
}
"""


_META_REFRESH = re.compile(
    r"""<meta\s+http-equiv=["']?refresh["']?\s+content=["']\s*\d+\s*;\s*url=([^"'>]+)""",
    re.IGNORECASE)


def _meta_refresh(path: Path) -> str | None:
    """The target of a ``<meta http-equiv="refresh">`` redirect page, or None."""
    head = path.read_text(encoding="utf-8", errors="replace")[:4000]
    match = _META_REFRESH.search(head)
    return match.group(1).strip() if match else None


def _screenshot(page, shots: Path, rel: str) -> None:
    out = shots / (rel[: -len(".html")] + ".png")
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out), full_page=True, timeout=LOAD_TIMEOUT_MS)


def _check_page(context, site: _Site, base: str, rel: str, shots: Path | None) -> list[Problem]:
    from playwright.sync_api import Error as PlaywrightError

    problems: list[Problem] = []
    failed_urls: set[str] = set()

    def add(kind: str, detail: str) -> None:
        problem = Problem(rel, kind, detail)
        if problem not in problems:
            problems.append(problem)

    def on_response(response) -> None:
        if response.status >= 400 and response.url.startswith(base):
            failed_urls.add(response.url)
            kind = "broken-image" if response.request.resource_type == "image" else (
                "broken-resource")
            if response.request.resource_type != "document":
                add(kind, f"{site.page_of(response.url)} answered HTTP {response.status}")

    def on_request_failed(request) -> None:
        if request.url.startswith(base) and request.url not in failed_urls:
            failed_urls.add(request.url)
            kind = "broken-image" if request.resource_type == "image" else "broken-resource"
            add(kind, f"{site.page_of(request.url)} failed ({request.failure})")

    def on_console(message) -> None:
        if message.type != "error":
            return
        url = (message.location or {}).get("url", "")
        # A failed load of one of the site's files is reported once, by its kind, above.
        if message.text.startswith("Failed to load resource") and (
            url in failed_urls or url.startswith(base)
        ):
            return
        where = f" ({site.page_of(url)}:{message.location.get('lineNumber', 0) + 1})" if url else ""
        add("console", message.text.strip().splitlines()[0][:300] + where)

    def on_page_error(error) -> None:
        text = str(error).strip().splitlines()[0][:300] if str(error).strip() else repr(error)
        add("console", f"uncaught exception: {text}")

    page = context.new_page()
    page.set_default_timeout(LOAD_TIMEOUT_MS)
    page.on("response", on_response)
    page.on("requestfailed", on_request_failed)
    page.on("console", on_console)
    page.on("pageerror", on_page_error)
    try:
        url = base + rel
        response = page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        if response is None or response.status >= 400:
            add("broken-resource", f"the page itself answered HTTP "
                f"{response.status if response else '(none)'}")
            return problems
        redirect = _meta_refresh(site.root / rel)
        if redirect is not None:
            # A redirect page (Sphinx's index.html): its target must exist and the browser
            # must get there; the target is checked as a page of its own.
            target = urljoin(url, redirect)
            why = site.link_problem(target, (site.root / rel).resolve(), set())
            if why:
                add("broken-link", f"redirect: {why}")
            else:
                try:
                    page.wait_for_url(urldefrag(target)[0] + "*", timeout=LOAD_TIMEOUT_MS)
                    page.wait_for_load_state("load")
                except PlaywrightError:
                    add("broken-link", f"the redirect to {site.page_of(target)} did not happen")
            if shots is not None:
                _screenshot(page, shots, rel)
            return problems
        if page.evaluate("() => document.querySelector('.math') !== null"):
            # Scripts (also async/defer ones) have run at "load"; MathJax may still be
            # loading its components and typesetting. Without MathJax at all, the math
            # checks below report the page after a short grace period.
            try:
                page.wait_for_function(
                    "() => window.MathJax && window.MathJax.startup "
                    "&& window.MathJax.startup.promise", timeout=MATHJAX_START_MS)
            except PlaywrightError:
                pass
            else:
                if page.evaluate(_MATHJAX_READY, MATH_TIMEOUT_MS) != "done":
                    add("math", f"MathJax did not finish typesetting in "
                        f"{MATH_TIMEOUT_MS // 1000} s")
        try:  # web fonts change widths; wait for them (bounded) before measuring
            page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=15_000)
        except PlaywrightError:
            pass
        info = page.evaluate(_PROBE)

        page_path = (site.root / rel).resolve()
        page_ids = set(info["ids"])
        for href in dict.fromkeys(info["links"]):
            why = site.link_problem(href, page_path, page_ids)
            if why:
                add("broken-link", why)
        for img in info["images"]:
            src = img["src"]
            if img["broken"] and src not in failed_urls:
                add("broken-image", f"{site.page_of(src) or '(empty src)'} did not load")
            elif not img["complete"] and src.startswith(base):
                target = site.local_path(src)
                if target is None or not target.is_file():
                    add("broken-image", f"{site.page_of(src)} does not exist")

        if info["mathCount"] and not info["mjxCount"]:
            add("math", f"{info['mathCount']} math elements and no rendered math "
                "(no mjx-container): MathJax did not run")
        elif info["unrendered"]:
            add("math", f"{len(info['unrendered'])} of {info['mathCount']} math elements "
                f'not rendered, first: "{info["unrendered"][0]}"')
        for err in dict.fromkeys(info["merrors"]):
            add("math", f"MathJax error: {err}")
        for raw in dict.fromkeys(info["rawMath"]):
            add("math", f'raw TeX in the visible text: "{raw}"')

        moved = page.evaluate(_EXPLORER_PROBE)
        if moved is not None:
            if not moved["before"][1]:
                add("interaction", "the explorer drew no curve (explorer.js did not run)")
            elif moved["before"] == moved["after"]:
                add("interaction", "moving the explorer's slider changed neither the curve "
                    "nor the read-out")
            for what, colour in moved["marks"].items():
                ratio = contrast_ratio(colour, moved["background"])
                if ratio < MIN_CONTRAST:
                    add("contrast", f"the explorer's {what} (rgb{tuple(colour)}) has a "
                        f"contrast of {ratio:.2f}:1 against the page background "
                        f"(rgb{tuple(moved['background'])}); at least {MIN_CONTRAST:g}:1 "
                        "is needed to see it")

        for item in info["overflow"]:
            add("overflow", f"{item['what']}; content {item['scroll']} px wide in a "
                f"{item['client']} px box (horizontal scrollbar at 1280 px)")

        if shots is not None:
            _screenshot(page, shots, rel)
    except PlaywrightError as exc:
        add("console", f"the browser could not check the page: {str(exc).splitlines()[0]}")
    finally:
        page.close()
    return problems


def check_site(html_dir: str | Path, *, screenshots: str | Path | None = None,
               chromium: str | None = None, only: Sequence[str] | None = None,
               modes: Sequence[str] = ("light",)) -> tuple[list[str], list[Problem]]:
    """Open every page of a built HTML folder in headless Chromium and collect the problems.

    Parameters
    ----------
    html_dir : str or Path
        The HTML output folder (e.g. ``_build/html``); it must hold an ``index.html``.
    screenshots : str or Path, optional
        Folder for one full-page PNG per page (``<page>.png``, sub-folders as in the site).
    chromium : str, optional
        The Chromium executable; by default the system one (:func:`find_chromium`).
    only : sequence of str, optional
        Check only these pages (paths relative to ``html_dir``).
    modes : sequence of {"light", "dark"}, default ("light",)
        The theme modes to check each page in; problems and screenshots of the dark mode are
        named ``dark:<page>`` and ``<screenshots>/dark/<page>.png``.

    Returns
    -------
    (pages, problems)
        The pages checked and every problem found, page by page.
    """
    root = Path(html_dir)
    if not (root / "index.html").is_file():
        raise FileNotFoundError(f"{root} has no index.html: build the book first (make book)")
    executable = chromium or find_chromium()
    if executable is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    checked = list(only) if only is not None else pages(root)
    shots = Path(screenshots) if screenshots is not None else None
    if shots is not None:
        shutil.rmtree(shots, ignore_errors=True)
        shots.mkdir(parents=True)
    problems: list[Problem] = []
    with serve(root) as base, sync_playwright() as pw:
        # launch() starts Chromium on a fresh temporary --user-data-dir of its own (and removes
        # it afterwards); each page then gets a new context (empty storage, cookies, cache), so
        # every page is checked as a first-time reader opening it sees it, whatever the order.
        browser = pw.chromium.launch(
            executable_path=executable, headless=True, args=list(CHROMIUM_FLAGS),
            timeout=LOAD_TIMEOUT_MS,
        )
        try:
            site = _Site(root, base)
            for mode in modes:
                if mode not in MODES:
                    raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
                mode_shots = shots / "dark" if shots is not None and mode == "dark" else shots
                for rel in checked:
                    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1,
                                                  service_workers="block", color_scheme=mode)
                    context.add_init_script(_MODE_SCRIPT.format(mode))
                    try:
                        found = _check_page(context, site, base, rel, mode_shots)
                    finally:
                        context.close()
                    if mode != "light":
                        found = [Problem(f"{mode}:{p.page}", p.kind, p.detail) for p in found]
                    problems += found
        finally:
            browser.close()
    return checked, problems


#: The pages of the closing note's screenshots (``PAGE[#ID]``, relative to the HTML folder):
#: the front page, its headline figure with the "Reproduce this" box opened, the corrections,
#: the notation, the explorer and the list of figures.
CLOSING_SHOTS = (
    "book/intro.html",
    "book/intro.html#fig-front-headline",
    "book/_generated/corrections.html",
    "book/notation.html",
    "book/_generated/explorer.html#ensel-explorer",
    "book/list_of_figures.html",
)

#: Scrolls to the element ``id`` and opens the first "Reproduce this figure" box at or after
#: it (a sphinx-togglebutton admonition, or a ``<details>``); false when there is no such
#: element.
_OPEN_AT = r"""(id) => {
  const target = document.getElementById(id);
  if (!target) return false;
  const boxes = [...document.querySelectorAll('.ensel-provenance')];
  const box = boxes.find((b) => b === target || target.contains(b)
    || (target.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING));
  if (box) {
    const button = box.querySelector('.toggle-button[aria-expanded="false"]');
    if (button) button.click();
    if (box.tagName === 'DETAILS') box.open = true;
  }
  target.scrollIntoView({block: 'start'});
  window.scrollBy(0, -72);  // below the theme's fixed header
  return true;
}"""


def shot_name(spec: str) -> str:
    """The file name of the screenshot of ``PAGE[#ID]``: the page's path with ``/`` as
    ``__`` and without ``.html``, then ``--ID``.

    Examples
    --------
    >>> shot_name("book/intro.html#fig-front-headline")
    'book__intro--fig-front-headline.png'
    """
    page, _, fragment = spec.partition("#")
    stem = page.removesuffix(".html").replace("/", "__")
    return stem + (f"--{fragment}" if fragment else "") + ".png"


def take_screenshots(html_dir: str | Path, out_dir: str | Path,
                     shots: Sequence[str] = CLOSING_SHOTS, *,
                     modes: Sequence[str] = MODES, full_page: bool = False,
                     chromium: str | None = None) -> list[Path]:
    """Screenshots of given pages of a built book in light and dark mode at 1280 px.

    Parameters
    ----------
    html_dir : str or Path
        The HTML output folder (e.g. ``_build/html``).
    out_dir : str or Path
        Where the PNGs go: ``<out_dir>/<mode>/<name>`` (:func:`shot_name`); replaced.
    shots : sequence of str
        ``PAGE`` or ``PAGE#ID`` (relative to ``html_dir``): with ``#ID`` the page is
        scrolled to that element and the first "Reproduce this figure" box at or after it is
        opened first.
    modes : sequence of {"light", "dark"}
    full_page : bool, default False
        The whole page instead of the 1280 x 900 window.

    Returns
    -------
    list of Path
        The files written, mode by mode.

    Raises
    ------
    FileNotFoundError
        When a page is not in the build, or an ``#ID`` names no element of its page.
    """
    root = Path(html_dir)
    if not (root / "index.html").is_file():
        raise FileNotFoundError(f"{root} has no index.html: build the book first (make book)")
    for spec in shots:
        page = spec.partition("#")[0]
        if not (root / page).is_file():
            raise FileNotFoundError(f"{page} is not a page of {root} (--shot {spec})")
    for mode in modes:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
    executable = chromium or find_chromium()
    if executable is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    out = Path(out_dir)
    shutil.rmtree(out, ignore_errors=True)
    written: list[Path] = []
    with serve(root) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True,
                                     args=list(CHROMIUM_FLAGS), timeout=LOAD_TIMEOUT_MS)
        try:
            for mode in modes:
                for spec in shots:
                    page_rel, _, fragment = spec.partition("#")
                    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1,
                                                  service_workers="block", color_scheme=mode)
                    context.add_init_script(_MODE_SCRIPT.format(mode))
                    try:
                        page = context.new_page()
                        page.set_default_timeout(LOAD_TIMEOUT_MS)
                        page.goto(base + page_rel, wait_until="load")
                        try:  # typeset math and web fonts, bounded
                            page.wait_for_function(
                                "() => !document.querySelector('.math') || "
                                "document.querySelector('mjx-container')", timeout=MATH_TIMEOUT_MS)
                            page.wait_for_function("() => document.fonts.status === 'loaded'",
                                                   timeout=15_000)
                        except PlaywrightError:
                            pass
                        if fragment and not page.evaluate(_OPEN_AT, fragment):
                            raise FileNotFoundError(
                                f"{page_rel} has no element with id {fragment!r} (--shot {spec})")
                        page.wait_for_timeout(300)  # the box's opening transition
                        path = out / mode / shot_name(spec)
                        path.parent.mkdir(parents=True, exist_ok=True)
                        page.screenshot(path=str(path), full_page=full_page,
                                        timeout=LOAD_TIMEOUT_MS)
                        written.append(path)
                    finally:
                        context.close()
        finally:
            browser.close()
    return written


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def summary(checked: Sequence[str], problems: Sequence[Problem]) -> str:
    """One line: pages checked, problems by kind, pages with problems."""
    if not problems:
        return f"browser check: {_n(len(checked), 'page')}, no problems"
    counts = Counter(p.kind for p in problems)
    kinds = ", ".join(f"{counts[k]} {k}" for k in KINDS if counts[k])
    bad = len({p.page for p in problems})
    return (f"browser check: {_n(len(checked), 'page')}, {_n(len(problems), 'problem')} "
            f"on {_n(bad, 'page')} ({kinds})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.browsercheck",
        description="Open every page of a built book in headless Chromium and report console "
                    "errors, broken internal links and images, unrendered math and horizontal "
                    "overflow at 1280 px.")
    parser.add_argument("html_dir", help="the HTML folder, e.g. _build/html")
    parser.add_argument("--screenshots", metavar="DIR",
                        help="save a full-page PNG of each page here "
                             "(default: screenshots/ beside the HTML folder)")
    parser.add_argument("--no-screenshots", action="store_true", help="take no screenshots")
    parser.add_argument("--page", action="append", metavar="PAGE",
                        help="check only this page (relative path; repeatable)")
    parser.add_argument("--mode", choices=("light", "dark", "both"), default=None,
                        help="the theme mode(s) to check every page in (default: light; "
                             "with --shots: both)")
    parser.add_argument("--shots", metavar="DIR",
                        help="check nothing: save 1280 x 900 screenshots of the --shot pages "
                             "in DIR/<mode>/")
    parser.add_argument("--shot", action="append", metavar="PAGE[#ID]",
                        help="a page for --shots (repeatable; #ID scrolls to that element and "
                             "opens the first 'Reproduce this' box from it; default: "
                             + ", ".join(CLOSING_SHOTS) + ")")
    parser.add_argument("--full-page", action="store_true",
                        help="with --shots: the whole page, not the window")
    args = parser.parse_args(argv)
    if args.shots is not None:
        try:
            written = take_screenshots(
                args.html_dir, args.shots, args.shot or CLOSING_SHOTS,
                modes=(args.mode,) if args.mode in MODES else MODES, full_page=args.full_page)
        except FileNotFoundError as exc:
            print(f"browser check: {exc}", file=sys.stderr)
            return 2
        for path in written:
            print(path)
        print(f"screenshots: {_n(len(written), 'file')} in {args.shots}")
        return 0
    if args.shot or args.full_page:
        print("browser check: --shot and --full-page go with --shots DIR", file=sys.stderr)
        return 2
    shots = None if args.no_screenshots else (
        args.screenshots or Path(args.html_dir).resolve().parent / "screenshots")
    try:
        modes = MODES if args.mode == "both" else (args.mode or "light",)
        checked, problems = check_site(args.html_dir, screenshots=shots, only=args.page,
                                       modes=modes)
    except FileNotFoundError as exc:
        print(f"browser check: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if shots is not None:
        print(f"screenshots: {shots}")
    print(summary(checked, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
