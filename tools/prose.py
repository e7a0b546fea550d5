"""Checks of the rendered HTML pages for prose that a reader trips on: text that misreports
its numbers or shows the code's names where the reader needs values. ``tools.bookcheck`` runs
them on every page of the built book (:func:`prose_pages`) and fails the build on any.

* :func:`quoted_glue` -- a glued value pasted into a sentence with its quote marks (``{glue:}``
  pastes the ``repr`` of a string: "'2,102,352' requests"; ``{glue:text}`` does not);
* :func:`shown_defaults` -- a page run with other parameters that still shows the notebook's
  default values (``rho = 0.3`` on the ρ = 0.6 page) where the reader reads the code;
* :func:`parameter_names` -- a name printed where its value belongs: a parameter of the page
  as inline code in the prose ("(seed ``seed``)", "ρ = ``rho_sample``"), or a snake_case
  identifier in running text outside code ("at the budget k_budget");
* :func:`raw_labels` -- a LaTeX label ("tab:models_imdb") shown as text, or a cross-reference
  id ("fig-thm41-regret") as the text of a link;
* :func:`rounded_two_ways` -- one quantity rounded two ways on one page: two glued numbers
  that agree to a tenth of the last digit shown, printed with different digits (0.2817 beside
  0.2818 for two values that are both 0.28175); it reads the page's executed notebook, which
  holds every glued value at full precision;
* :func:`number_agreement` -- a count of one with a plural ("1 are contradicted", "1 models").
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup, Tag

_QUOTED = re.compile(r"""^\s*(['"‘“]).*(['"’”])\s*$""", re.S)
_FOLDED = {"tag_hide-cell", "tag_hide-input", "tag_remove-cell", "tag_remove-input"}


def quoted_glue(html: str) -> list[str]:
    """The inline glued values of a page whose text is wrapped in quote marks."""
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for span in soup.find_all("span"):
        classes = set(span.get("class") or ())
        if "pasted-text" in classes or {"output", "text_plain"} <= classes:
            text = span.get_text()
            if _QUOTED.match(text):
                found.append(text.strip())
    return found


def _assignments(code: str) -> dict[str, str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    return {t.id: ast.unparse(node.value) for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def shown_defaults(html: str) -> list[str]:
    """Default parameter values a reader sees although the page ran with other values."""
    soup = BeautifulSoup(html, "html.parser")

    def cells(tag: str) -> list:
        return [d for d in soup.find_all("div") if f"tag_{tag}" in (d.get("class") or ())]

    injected = {}
    for cell in cells("injected-parameters"):
        injected.update(_assignments(cell.find("pre").get_text() if cell.find("pre") else ""))
    problems = []
    for cell in cells("parameters"):
        if _FOLDED & set(cell.get("class") or ()) or not cell.find("pre"):
            continue
        for name, default in _assignments(cell.find("pre").get_text()).items():
            if name in injected and injected[name] != default:
                problems.append(f"{name} = {default} shown; the page ran with "
                                f"{name} = {injected[name]}")
    return problems


# --------------------------------------------------------------------- names for values
#: Where the reader reads code, not prose: code blocks, cell inputs, math, and the signatures
#: and descriptions of the API reference (``dl.py``: there a snake_case name *is* the subject,
#: e.g. a parameter or the shape ``(n_items, n_models)``).
_CODE_BLOCKS = ("pre", "script", "style", "math", "svg")
_CODE_CLASSES = {"cell_input", "highlight", "math", "formula"}
_SNAKE = re.compile(r"(?<![\w./:@=<>'\"\\-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/(=-]|\.\w)")


def _inside(node: Any, names: tuple[str, ...] = (),
            classes: frozenset[str] | set[str] = frozenset(), api: bool = False) -> bool:
    for parent in node.parents:
        if not isinstance(parent, Tag):
            continue
        cls = set(parent.get("class") or ())
        if parent.name in names or cls & classes or (api and parent.name == "dl" and "py" in cls):
            return True
    return False


def _parameters(soup: BeautifulSoup) -> set[str]:
    names: set[str] = set()
    for tag in ("parameters", "injected-parameters"):
        for cell in soup.find_all("div", class_=f"tag_{tag}"):
            pre = cell.find("pre")
            if pre is not None:
                names.update(_assignments(pre.get_text()))
    return names


def value_names(notebook: Mapping[str, Any]) -> set[str]:
    """The names a notebook's code cells bind to a literal value at top level (``seed = 0``,
    ``asym_low, asym_high = 0.05, 0.45``): names whose value the prose should show instead."""
    names: set[str] = set()
    for cell in notebook.get("cells", ()):
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse("".join(cell.get("source", "")))
        except SyntaxError:  # IPython magics
            continue
        for node in tree.body:
            if not isinstance(node, ast.Assign):
                continue
            try:
                ast.literal_eval(node.value)
            except (ValueError, SyntaxError, TypeError):
                continue
            for target in node.targets:
                elts = target.elts if isinstance(target, ast.Tuple) else [target]
                names.update(e.id for e in elts if isinstance(e, ast.Name))
    return names


def parameter_names(html: str, notebook: Mapping[str, Any] | None = None) -> list[str]:
    """Names printed where their values belong: a parameter of the page (an assignment of its
    ``parameters`` or injected-parameters cell), or a name its notebook binds to a literal
    (:func:`value_names`), as inline code in the prose, captions or displayed Markdown; and
    any snake_case identifier in running text outside code (API descriptions excepted)."""
    soup = BeautifulSoup(html, "html.parser")
    params = _parameters(soup) | (value_names(notebook) if notebook else set())
    found = []
    for code in soup.find_all("code"):
        text = code.get_text().strip()
        if text in params and not _inside(code, _CODE_BLOCKS, _CODE_CLASSES):
            found.append(f"parameter name {text!r} where its value belongs: "
                         f"{_context(code)}")
    for s in soup.find_all(string=_SNAKE):
        if _inside(s, (*_CODE_BLOCKS, "code", "kbd", "samp"),
                   _CODE_CLASSES | {"cell_output"}, api=True):
            continue
        for name in _SNAKE.findall(s):
            found.append(f"identifier {name!r} in running text: {_context(s)}")
    return found


def _context(node: Any, width: int = 90) -> str:
    block = node.find_parent(["p", "li", "figcaption", "td", "th", "dd", "h1", "h2", "h3",
                              "h4", "caption"]) or node.parent
    return " ".join(block.get_text(" ").split())[:width]


# --------------------------------------------------------------------------- raw labels
_LATEX_LABEL = re.compile(r"(?<![\w-])(?:tab|fig|sec|subsec|eq|thm|lem|lemma|def|rem|app|alg|cor"
                          r"|prop|ex|assum):(?!(?:blue|orange|green|red|purple|brown|pink|gr[ae]y"
                          r"|olive|cyan)\b)[A-Za-z][\w.:-]*")  # not matplotlib's "tab:blue"
_ID_TEXT = re.compile(r"(?:fig|tab|eq|sec|thm)-[a-z0-9][\w-]*")


def raw_labels(html: str) -> list[str]:
    """LaTeX labels shown as text ("tab:models_imdb"; in code only when the code is the
    label alone: ``paper_ref("thm:saturation")`` documents a call) and cross-reference ids as
    the text of a link ("fig-thm41-regret")."""
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for s in soup.find_all(string=_LATEX_LABEL):
        if _inside(s, ("script", "style"), {"cell_input", "highlight"}):
            continue
        code = s.find_parent("code")
        for label in _LATEX_LABEL.findall(s):
            if code is None or code.get_text().strip() == label:
                found.append(f"raw LaTeX label {label!r}: {_context(s)}")
    for a in soup.find_all("a"):
        text = " ".join(a.get_text(" ").split())
        if _ID_TEXT.fullmatch(text):
            found.append(f"link text is an id: {text!r} -> {a.get('href', '')}")
    return found


# ------------------------------------------------------------------ rounded two ways
_GLUE_REF = re.compile(r"\{glue(?::text)?\}`([^`]+)`")
_FIXED = re.compile(r"[+−-]?\d[\d,]*(?:\.(\d+))?(%?)")


def glued_values(notebook: Mapping[str, Any]) -> dict[str, str]:
    """The glued values of an executed notebook (key -> their ``text/plain``)."""
    values = {}
    for cell in notebook.get("cells", ()):
        for out in cell.get("outputs", ()) or ():
            name = (out.get("metadata") or {}).get("scrapbook", {}).get("name")
            data = out.get("data") or {}
            text = next((v for k, v in data.items() if k.endswith("text/plain")), None)
            if name and text is not None:
                values[name] = "".join(text) if isinstance(text, list) else text
    return values


def _glue_references(notebook: Mapping[str, Any]) -> list[tuple[str, str]]:
    refs = []
    for cell in notebook.get("cells", ()):
        sources = ["".join(cell.get("source", ""))]
        caption = (cell.get("metadata") or {}).get("mystnb", {}).get("figure", {}).get("caption")
        if cell.get("cell_type") == "code":
            sources = [caption] if caption else []
        for text in sources:
            for ref in _GLUE_REF.findall(text):
                key, _, fmt = ref.partition(":")
                refs.append((key.strip(), fmt.strip()))
    return refs


def rounded_two_ways(notebook: Mapping[str, Any]) -> list[str]:
    """Glued numbers of one page that are one quantity printed two ways: the same number of
    decimals, different digits, although the values agree to a tenth of the last digit
    shown (values that straddle a rounding boundary; format them from one rounded value)."""
    from myst_nb.core.variables import format_plain_text

    values = glued_values(notebook)
    shown: dict[str, tuple[str, float, int, bool]] = {}
    for key, fmt in _glue_references(notebook):
        if "::" in key or key not in values:
            continue
        try:
            value = ast.literal_eval(values[key])
            text = format_plain_text(values[key], fmt)
        except (ValueError, SyntaxError, TypeError):
            continue
        m = _FIXED.fullmatch(text.strip())
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not m:
            continue
        pct = m.group(2) == "%"
        # a shown "+" is a sign convention, not a digit: "+0.000" and "0.000" agree
        shown[f"{key}:{fmt}"] = (text.strip().lstrip("+"), float(value) * (100 if pct else 1),
                                 len(m.group(1) or ""), pct)
    found = []
    for (a, (ta, va, da, pa)), (b, (tb, vb, db, pb)) in itertools.combinations(
            sorted(shown.items()), 2):
        if pa == pb and da == db and ta != tb and abs(va - vb) < 0.1 * 10.0 ** -da:
            found.append(f"one quantity rounded two ways: {a} shows {ta}, {b} shows {tb} "
                         f"(values {va:.10g} and {vb:.10g})")
    return found


# --------------------------------------------------------------------- number agreement
#: A count of one followed by a plural: "1 are", "1 claims". Not after a name that the
#: number completes ("Term 1 ranks", "model 1 errs", "Algorithm 1 uses", "near 1 carries").
_ONE_PLURAL = re.compile(r"(?:^|(?<=\s))(?P<before>\S*)\s?(?<![\d.,−+-])1\s+"
                         r"(?P<word>are|were|have|do|[a-z]{2,}s)\b(?![-\d])")
_SINGULAR_S = {"is", "has", "was", "does", "this", "plus", "minus", "its", "as", "us", "thus",
               "less", "across", "versus", "yes", "class", "bias", "focus", "process",
               "basis", "analysis", "gauss", "ms", "bps", "unless", "whereas",
               # verbs that agree with a count of one ("1 holds", "1 fails")
               "holds", "fails", "remains", "shows", "passes", "matches", "reaches", "loses",
               "wins", "beats", "differs", "agrees", "lies", "needs", "goes", "gives",
               "takes", "makes", "uses", "picks", "ranks", "errs", "counts", "stays"}
_NAMING = {"model", "models", "term", "step", "class", "option", "near", "column", "row",
           "index", "split", "seed", "rank", "pool", "source", "stand-in", "fold", "level"}


def number_agreement(html: str) -> list[str]:
    """A count of one with a plural noun or verb, in running text outside code and math."""
    from ensel._html import _TextScan

    scan = _TextScan()
    scan.feed(html)
    scan.close()
    found = []
    for line in "".join(scan.text).split("\n"):
        line = " ".join(line.replace("\x01", " \x01 ").split())  # \x01: math or code
        for m in _ONE_PLURAL.finditer(line):
            before, word = m.group("before").lstrip("([{\"'“‘"), m.group("word")
            if (word in _SINGULAR_S or before[:1].isupper() or before.lower() in _NAMING
                    or before in ("=", "≤", "<", ">", "≥", "\x01")):  # "$K =$ 1 errors"
                continue
            shown = line[max(0, m.start() - 40):m.end() + 20].replace(" \x01 ", " … ")
            found.append(f"number agreement: {shown!r}")
    return found


# --------------------------------------------------------------------------- every page
def page_problems(html: str, notebook: Mapping[str, Any] | None = None) -> list[str]:
    """Every problem the checks above find on one page (``notebook``: its executed notebook,
    for :func:`rounded_two_ways`)."""
    return ([f"glued value in quotes: {q}" for q in quoted_glue(html)] + shown_defaults(html)
            + parameter_names(html, notebook) + raw_labels(html) + number_agreement(html)
            + (rounded_two_ways(notebook) if notebook else []))


#: Built pages that are not prose: the theme's files, the sources, the index pages.
_NOT_PROSE_DIRS = ("_static", "_sources")
_NOT_PROSE_PAGES = ("genindex.html", "search.html", "py-modindex.html")


def page_notebook(root: Path, rel: Path) -> Path:
    """Where the executed notebook of the built page ``rel`` is (``_sources/<page>.ipynb``,
    which Jupyter Book copies there); the file exists only for a page made from a notebook."""
    return root / "_sources" / rel.with_suffix(".ipynb")


def prose_page(root: Path, rel: Path) -> list[str]:
    """:func:`page_problems` of the built page ``rel`` of the book at ``root``, read with its
    executed notebook (:func:`page_notebook`) when it has one; [] for a page that is not prose."""
    if rel.parts[0] in _NOT_PROSE_DIRS or rel.name in _NOT_PROSE_PAGES:
        return []
    source = page_notebook(root, rel)
    notebook = json.loads(source.read_text(encoding="utf-8")) if source.is_file() else None
    return page_problems((root / rel).read_text(encoding="utf-8", errors="replace"), notebook)


def prose_pages(html_dir: str | Path) -> dict[str, list[str]]:
    """:func:`prose_page` of every page of a built book, by page. Pages without problems are
    left out; the index pages are not prose."""
    root = Path(html_dir)
    problems = {}
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root)
        found = prose_page(root, rel)
        if found:
            problems[str(rel)] = found
    return problems
