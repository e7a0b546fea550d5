"""The paper's numbering as data: every numbered object the book cites, and a reference scanner.

The compiled paper numbers remarks, definitions, lemmas, corollaries and propositions on the
theorem counter, so section 4 reads Theorem 4.1, Remark 4.2, Theorem 4.3 (decomposition) and
Theorem 4.4 (saturation); equations are numbered through the whole paper (Eq. (9) defines the
correction term, Eq. (10) is the label-invariant three-term form, Eq. (13) the Greedy MI
estimator). Rather than typing these numbers, the book reads them from one file,
``data/paper_map.yml`` (shipped as ``ensel._data``), through :func:`paper_map`.

Convention for text (pages, docstrings, data files): a literal "Theorem 4.3", "Eq. (10)",
"Figure 5", "Table 12", "Algorithm 6" always means **the paper's** object. The book's own
figures and tables are cited only through cross-reference roles (``{numref}``, ``{ref}``),
which have no number in the source, so :func:`find_references` sees only the paper's numbers
and :func:`check_references` can hold every one of them against the map.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ensel._errors import NotFoundError

__all__ = ["KINDS", "PaperObject", "Reference", "check_references", "find_references",
           "paper_map", "paper_object", "paper_ref"]

#: The kinds of numbered objects and the words (with abbreviations and plurals) that cite them.
KINDS: dict[str, tuple[str, ...]] = {
    "Theorem": ("Theorems", "Theorem", "Thms.", "Thm.", "Thm"),
    "Lemma": ("Lemmas", "Lemma"),
    "Remark": ("Remarks", "Remark"),
    "Corollary": ("Corollaries", "Corollary"),
    "Proposition": ("Propositions", "Proposition", "Prop."),
    "Definition": ("Definitions", "Definition", "Def."),
    "Example": ("Examples", "Example"),
    "Equation": ("Equations", "Equation", "Eqs.", "Eq."),
    "Figure": ("Figures", "Figure", "Figs.", "Fig."),
    "Table": ("Tables", "Table", "Tab."),
    "Algorithm": ("Algorithms", "Algorithm", "Alg."),
}
_WORD_KIND = {word: kind for kind, words in KINDS.items() for word in words}
_WORDS = "|".join(re.escape(w) for w in sorted(_WORD_KIND, key=len, reverse=True))
_NUM = r"\(?(?:[A-Z]\.)?\d+(?:\.\d+)?\)?"
_SEP = r"(?:\s*[,–-]\s*|\s+and\s+|\s+or\s+)"
_REF_RE = re.compile(rf"(?<![\w`-])({_WORDS})(?!\w)\s?({_NUM}(?:{_SEP}{_NUM})*)")
_LABEL_RE = re.compile(rf"(?<![\w-])({_WORDS})\s?\(?`*([A-Za-z][A-Za-z0-9_:]*)`*\)?")


@dataclass(frozen=True)
class PaperObject:
    """One numbered object of the compiled paper.

    Attributes
    ----------
    kind : str
        ``"Theorem"``, ``"Remark"``, ``"Equation"``, ``"Figure"``, ... (the keys of
        :data:`KINDS`).
    number : str
        The number the compiled paper prints (``"4.3"``, ``"A.5"``, ``"10"``).
    title : str
        The paper's title of a theorem-like object, or a short description.
    labels : tuple of str
        Its ``\\label`` names in ``paper.tex``.
    page : str or None
        The book page (notebook or ``book/*.md`` name) that reproduces it.
    anchor : str or None
        The label of its statement on that page.
    reproduced_by : tuple of str
        Labels of the book's figures and tables that reproduce a paper figure or table.
    code : tuple of str
        Dotted names of the ``ensel`` modules, functions and classes that compute it (the
        map of the paper lists them).
    note : str
        What the map of the paper says of an object the book does not reproduce (a
        schematic, an overview), in MyST Markdown.
    """

    kind: str
    number: str
    title: str
    labels: tuple[str, ...] = ()
    page: str | None = None
    anchor: str | None = None
    reproduced_by: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    note: str = ""

    @property
    def ref(self) -> str:
        """How the book cites it: ``"Theorem 4.3"``, ``"Eq. (10)"``, ``"Figure 5"``."""
        return f"Eq. ({self.number})" if self.kind == "Equation" else f"{self.kind} {self.number}"


@dataclass(frozen=True)
class Reference:
    """A reference to a numbered object of the paper found in a text.

    Attributes
    ----------
    kind, number : str
        The object cited (``number`` without parentheses).
    text : str
        The matched text (``"Tables 4–6"`` yields one Reference per table).
    line : int
        1-based line of the match in the text scanned.
    """

    kind: str
    number: str
    text: str
    line: int


def _map_path() -> Path:
    from ensel.datasets._paths import package_data

    return package_data("paper_map.yml")


def paper_map() -> tuple[PaperObject, ...]:
    """Every numbered object of the paper that the book cites, in the paper's order.

    Returns
    -------
    tuple of PaperObject
        Read from ``data/paper_map.yml`` (the package data ``ensel._data``).

    Examples
    --------
    >>> paper_object("Theorem", "4.3").title
    'Accuracy-Redundancy-Error Decomposition'
    """
    return _read_map()


@functools.lru_cache(maxsize=1)
def _read_map() -> tuple[PaperObject, ...]:
    with open(_map_path(), encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    return tuple(PaperObject(kind=o["kind"], number=str(o["number"]), title=o.get("title") or "",
                             labels=tuple(o.get("labels") or ()), page=o.get("page"),
                             anchor=o.get("anchor"),
                             reproduced_by=tuple(o.get("reproduced_by") or ()),
                             code=tuple(o.get("code") or ()), note=o.get("note") or "")
                 for o in document["objects"])


@functools.lru_cache(maxsize=1)
def _index() -> dict[tuple[str, str], PaperObject]:
    return {(o.kind, o.number): o for o in paper_map()}


def paper_object(kind: str, number: str) -> PaperObject:
    """The map's entry for ``kind`` and ``number`` (``paper_object("Equation", "10")``).

    Raises
    ------
    ensel._errors.NotFoundError
        (a ``KeyError``) When the paper has no such object in the map; the message names it.
    """
    try:
        return _index()[(kind, str(number))]
    except KeyError:
        raise NotFoundError(f"the paper map has no {kind} {number}") from None


def paper_ref(label: str) -> str:
    """How the book cites the object that carries a ``paper.tex`` label.

    ``paper_ref("thm:saturation")`` is ``"Theorem 4.4"``; ``paper_ref("eq:decomp")`` is
    ``"Eq. (10)"``.

    Raises
    ------
    ensel._errors.NotFoundError
        (a ``KeyError``) When no object in the map carries ``label``.
    """
    for obj in paper_map():
        if label in obj.labels:
            return obj.ref
    raise NotFoundError(f"the paper map has no object labelled {label!r}")


def _expand(first: str, last: str) -> list[str]:
    """The numbers of a range: every one of "4–6"; only the ends of "A.1–A.4" (theorem-like
    objects share one counter, so "Definitions A.1–A.4" skips Lemma A.3)."""
    if first.isdigit() and last.isdigit() and int(first) < int(last) <= int(first) + 30:
        return [str(i) for i in range(int(first), int(last) + 1)]
    return [first, last]


def find_references(text: str) -> list[Reference]:
    """Every reference to a numbered paper object in ``text``, one per object.

    Recognises the words of :data:`KINDS` followed by a number (``Theorem 4.3``, ``Thm D.1``,
    ``Eq. (10)``, ``Eq. 9``) or a list or range of numbers (``Tables 4–6, 8–10``,
    ``Figures 5 and 6``, ``Remarks A.5–A.6``).

    Parameters
    ----------
    text : str
        Any text: a page source, a module, a data file.

    Returns
    -------
    list of Reference
    """
    found: list[Reference] = []
    for match in _REF_RE.finditer(text):
        kind = _WORD_KIND[match.group(1)]
        line = text.count("\n", 0, match.start()) + 1
        parts = re.split(rf"({_SEP})", match.group(2))
        numbers: list[str] = []
        for i in range(0, len(parts), 2):
            number = parts[i].strip("() ")
            if i >= 2 and re.fullmatch(r"\s*[–-]\s*", parts[i - 1]) and numbers:
                numbers[-1:] = _expand(numbers[-1], number)
            else:
                numbers.append(number)
        found.extend(Reference(kind, n, match.group(0), line) for n in numbers)
    return found


@functools.lru_cache(maxsize=1)
def _bare_labels() -> frozenset[str]:
    return frozenset(label.split(":", 1)[-1] for o in paper_map() for label in o.labels)


def check_references(text: str, *, where: str = "text") -> list[str]:
    """Problems with the paper references in ``text``: objects not in the map, leaked labels.

    Parameters
    ----------
    text : str
        The text to check.
    where : str, default="text"
        Name of the text in the messages (a file path).

    Returns
    -------
    list of str
        One line per problem (``"notebooks/x.py:12: Theorem 4.5 is not in the paper map"``);
        empty when every reference is a numbered object of the map.

    Examples
    --------
    >>> check_references("the decomposition (Theorem 4.3), Eq. (10)")
    []
    >>> check_references("see Eq. (map_equals_maj)", where="page.py")
    ["page.py:1: 'Eq. (map_equals_maj)' cites a LaTeX label; write Eq. (65)"]
    """
    index = _index()
    problems = []
    for ref in find_references(text):
        if (ref.kind, ref.number) not in index:
            problems.append(f"{where}:{ref.line}: {ref.kind} {ref.number} (in {ref.text!r}) "
                            "is not in the paper map (data/paper_map.yml)")
    bare = _bare_labels()
    for match in _LABEL_RE.finditer(text):
        token = match.group(2)
        name = token.split(":", 1)[-1]
        if ":" in token or name in bare:
            line = text.count("\n", 0, match.start()) + 1
            hint = next((o.ref for o in paper_map()
                         if any(lab.split(":", 1)[-1] == name for lab in o.labels)), None)
            problems.append(f"{where}:{line}: {match.group(0)!r} cites a LaTeX label"
                            + (f"; write {hint}" if hint else ""))
    return problems
