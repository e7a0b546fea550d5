"""The paper's numbering: the map against the compiled paper, every reference against the map.

``data/paper_map.yml`` is the book's one record of the paper's numbers. These tests hold it
against ``../shared/paper/numbers.tsv`` (the numbered objects of the compiled paper, read from
its LaTeX build; used when present, CI has it), and hold every literal reference in the book's
sources against the map: a literal "Theorem 4.3" or "Figure 5" always means the paper's object
(the book's own figures are cited only through ``{numref}``/``{ref}``; ARCHITECTURE.md).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from ensel._errors import EnselError
from ensel.paper import KINDS, check_references, find_references, paper_map, paper_object, paper_ref

ROOT = Path(__file__).resolve().parents[1]
NUMBERS = ROOT.parent / "shared" / "paper" / "numbers.tsv"
PAPER_TEX = NUMBERS.with_name("paper.tex")
THEOREM_LIKE = {"Theorem", "Lemma", "Remark", "Corollary", "Proposition", "Definition"}


def _sources() -> list[Path]:
    files = [*sorted((ROOT / "notebooks").glob("*.py")), *sorted((ROOT / "book").glob("*.md")),
             *sorted((ROOT / "ensel").rglob("*.py")), *sorted((ROOT / "data").rglob("*.yml")),
             *sorted((ROOT / "data").rglob("*.md")), ROOT / "_toc.yml"]
    # ensel/paper.py defines the scanner; its docstring shows a wrong reference on purpose
    return [f for f in files if f != ROOT / "ensel" / "paper.py"]


def _problems(paths) -> list[str]:
    problems = []
    for path in paths:
        problems += check_references(path.read_text(encoding="utf-8"),
                                     where=str(path.relative_to(ROOT)))
    return problems


def test_every_reference_in_the_sources_is_in_the_map():
    sources = _sources()
    assert len(sources) > 50
    assert sum(len(find_references(p.read_text(encoding="utf-8"))) for p in sources) > 100
    problems = _problems(sources)
    assert not problems, f"{len(problems)} reference(s) not in the paper map:\n" + "\n".join(
        problems)


@pytest.mark.parametrize("text, wrong", [
    ("the decomposition (Theorem 4.5)", "Theorem 4.5"),
    ("as in Eq. (77)", "Equation 77"),
    ("paper Figure 25", "Figure 25"),
    ("Tables 4–6, 8–16", "Table 16"),
    ("Remarks A.5–A.7", "Remark A.7"),
    ("Lemma C.1", "Lemma C.1"),          # the design notes' old name of Lemma A.3
    ("Thm 4.3 and Example 2", "Example 2"),
])
def test_a_wrong_reference_makes_the_scan_fail(text, wrong, tmp_path):
    page = tmp_path / "page.py"
    page.write_text(f"# ok: Theorem 4.3, Eq. (10), Figure 5\n# {text}\n", encoding="utf-8")
    problems = check_references(page.read_text(), where="page.py")
    assert len(problems) == 1 and problems[0].startswith("page.py:2: " + wrong)


@pytest.mark.parametrize("text, hint", [
    ("Eq. (map_equals_maj)", "Eq. (65)"),
    ("Eq. (`map_equals_maj`)", "Eq. (65)"),
    ("Alg. copula", "Algorithm 6"),
    ("Theorem thm:saturation", "Theorem 4.4"),
])
def test_a_leaked_latex_label_makes_the_scan_fail(text, hint):
    problems = check_references(f"see {text} here", where="p")
    assert len(problems) == 1 and "cites a LaTeX label" in problems[0]
    assert problems[0].endswith(f"write {hint}")


def test_the_scanner_reads_lists_ranges_and_abbreviations():
    refs = find_references("Tables 4–6, 8 and 12; Thm D.1; Eq. 9; Figs. 7, 12, 17; Eqs. (9)-(10)")
    assert [(r.kind, r.number) for r in refs] == [
        ("Table", "4"), ("Table", "5"), ("Table", "6"), ("Table", "8"), ("Table", "12"),
        ("Theorem", "D.1"), ("Equation", "9"), ("Figure", "7"), ("Figure", "12"),
        ("Figure", "17"), ("Equation", "9"), ("Equation", "10")]
    assert find_references("{numref}`fig-x`, ensel.select, Tableau 3, `Table 3`") == []


def test_the_map_names_the_results_by_their_compiled_numbers():
    assert paper_ref("thm:alignment") == "Theorem 4.1"
    assert paper_ref("thm:decomposition") == "Theorem 4.3"
    assert paper_ref("thm:saturation") == "Theorem 4.4"
    assert paper_ref("eq:correction_term") == "Eq. (9)"
    assert paper_ref("eq:decomp") == "Eq. (10)"
    assert paper_ref("eqn:mut_inf_est") == "Eq. (13)"
    assert paper_object("Remark", "4.2").page == "theorem_4_1"
    with pytest.raises(KeyError, match="no Theorem 4.5"):
        paper_object("Theorem", "4.5")
    with pytest.raises(EnselError) as err:  # one of ensel's errors, its message unquoted
        paper_ref("thm:nowhere")
    assert str(err.value) == "the paper map has no object labelled 'thm:nowhere'"
    assert set(o.kind for o in paper_map()) <= set(KINDS)


def _pages() -> dict[str, str]:
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (ROOT / "notebooks").glob("*.py")}
    pages.update({p.stem: p.read_text(encoding="utf-8") for p in (ROOT / "book").glob("*.md")})
    return pages


def test_every_object_has_a_page_and_its_anchor_is_on_it():
    pages = _pages()
    for obj in paper_map():
        assert obj.page in pages, f"{obj.ref}: page {obj.page!r} does not exist"
        if obj.anchor:
            assert f":label: {obj.anchor}\n" in pages[obj.page], (
                f"{obj.ref}: no label {obj.anchor!r} on {obj.page}")


def _generated_map(out: Path, objects) -> dict[str, str]:
    """The three tables of the map of the paper as the book's build makes them, on a build
    whose executed pages define every label the paper map names and every theorem page."""
    import nbformat

    from ensel.book.provenance import MAP_GROUPS, paper_map_table

    out.mkdir(parents=True, exist_ok=True)
    pages: dict[str, list[str]] = {}
    for obj in objects:
        for lab in obj.reproduced_by:
            pages.setdefault(lab.split("-")[1], []).append(f"({lab})=")
        if obj.page and obj.page != "figure_map":
            pages.setdefault(obj.page, []).extend([f":label: {obj.anchor}"] if obj.anchor
                                                  else [])
    for page, targets in pages.items():
        nb = nbformat.v4.new_notebook(metadata={"ensel": {
            "command": f"ensel notebooks run {page} --output {page}"}})
        nb.cells = [nbformat.v4.new_markdown_cell(t) for t in dict.fromkeys(targets)]
        nbformat.write(nb, out / f"{page}.ipynb")
    return {g: paper_map_table(out, g, objects) for g in MAP_GROUPS}


def _map_problems(tables: dict[str, str], objects) -> list[str]:
    """What the generated map gets wrong: an object of the paper map without its row, or a
    figure/table row whose links differ from ``reproduced_by``."""
    from ensel.book.provenance import MAP_GROUPS

    problems = []
    for obj in objects:
        group = next(g for g, kinds in MAP_GROUPS.items() if obj.kind in kinds)
        rows = [r for r in tables[group].splitlines() if r.startswith(f"| {obj.ref}: ")]
        if len(rows) != 1:
            problems.append(f"{obj.ref}: {len(rows)} rows on the map of the paper")
            continue
        # a figure by its number, a table by its section's title: {numref}`fig-x`, {ref}`tab-x`
        linked = set(re.findall(r"\{(?:num)?ref\}`((?:fig|tab)-[\w-]+)`", rows[0]))
        if obj.kind in ("Figure", "Table") and linked != set(obj.reproduced_by):
            problems.append(f"{obj.ref}: links {sorted(linked ^ set(obj.reproduced_by))}")
        if obj.anchor and f"<{obj.anchor}>`" not in rows[0]:
            problems.append(f"{obj.ref}: no link to its statement {obj.anchor}")
        if not all(f"<{name}>`" in rows[0] for name in obj.code):
            problems.append(f"{obj.ref}: code {obj.code} not linked")
    return problems


def test_the_generated_map_has_every_numbered_object_and_its_links(tmp_path: Path) -> None:
    """Every numbered object of the paper map has one row on the generated map of the paper,
    linking its statement, the book figures and tables that reproduce it and its code; a
    row left out, or a link lost, is found."""
    objects = paper_map()
    assert all(o.code or o.note for o in objects), "every object names the code that computes it"
    tables = _generated_map(tmp_path / "book" / "_generated", objects)
    assert _map_problems(tables, objects) == []
    assert "not in this build" not in "".join(tables.values())
    figure5 = paper_object("Figure", "5")
    broken = dict(tables, figures="\n".join(
        r for r in tables["figures"].splitlines() if not r.startswith("| Figure 5: ")))
    assert _map_problems(broken, objects) == ["Figure 5: 0 rows on the map of the paper"]
    lost = dict(tables, figures=tables["figures"].replace(
        f"`{figure5.reproduced_by[0]}`", "``"))
    assert _map_problems(lost, objects) == [f"Figure 5: links {list(figure5.reproduced_by)}"]
    # the page uses every table, and nothing of the map is written by hand on it
    page = (ROOT / "book" / "figure_map.md").read_text(encoding="utf-8")
    for group in tables:
        assert f"```{{ensel-paper-map}} {group}\n```" in page
    assert not re.search(r"(?m)^\| (Figure|Table|Theorem|Algorithm)", page)


def test_the_map_says_what_this_build_lacks(tmp_path: Path) -> None:
    from ensel.book.provenance import paper_map_table

    (tmp_path / "empty").mkdir()
    empty = paper_map_table(tmp_path / "empty", "figures")
    assert "{ref}" not in empty and "{doc}" not in empty and "not in this build" in empty
    with pytest.raises(ValueError, match="group must be one of"):
        paper_map_table(tmp_path / "empty", "lemmas")


def test_theorem_page_titles_carry_the_number_of_their_theorem():
    pages = _pages()
    for obj in paper_map():
        if obj.kind == "Theorem":
            title = re.search(r"^# # (.*)$", pages[obj.page], re.M).group(1)
            assert title.endswith(f"({obj.ref})"), f"{obj.page}: title {title!r}"
            assert obj.page == "theorem_" + obj.number.lower().replace(".", "_")


def _numbers_tsv() -> list[dict[str, str]]:
    if not NUMBERS.is_file():
        pytest.skip(f"{NUMBERS} is not present (CI has it)")
    with open(NUMBERS, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_the_map_equals_the_compiled_paper():
    rows = _numbers_tsv()
    paper = {(r["kind"], r["number"]): r for r in rows}
    mismatches = []
    for obj in paper_map():
        if obj.kind == "Example":  # tcolorbox examples: numbers.tsv lists LaTeX counters only
            tex = PAPER_TEX.read_text(encoding="utf-8")
            examples = re.findall(r"\\begin\{example\}\{([^}]*)\}\{([^}]*)\}", tex)
            appendix_a = tex.index(r"\section{Proof of \cref{thm:alignment}}")
            before = len(re.findall(r"\\begin\{example\}", tex[appendix_a:tex.index(
                rf"{{{obj.labels[0]}}}")]))
            if (obj.title, obj.labels[0]) not in examples or obj.number != f"A.{before}":
                mismatches.append(f"{obj.ref}: not the paper's example {obj.labels}")
            continue
        row = paper.get((obj.kind, obj.number))
        if row is None:
            mismatches.append(f"{obj.ref}: the compiled paper has no such object")
            continue
        tsv_labels = {label for label in row["labels"].split(",") if label}
        if tsv_labels and not set(obj.labels) <= tsv_labels:
            mismatches.append(f"{obj.ref}: labels {obj.labels} not among {sorted(tsv_labels)}")
        if obj.kind in THEOREM_LIKE and row["title"].strip() and obj.title != row["title"].strip():
            mismatches.append(f"{obj.ref}: title {obj.title!r} != {row['title'].strip()!r}")
    for kind, number in paper:
        if kind in THEOREM_LIKE | {"Figure", "Table", "Algorithm"}:
            if not any((o.kind, o.number) == (kind, number) for o in paper_map()):
                mismatches.append(f"{kind} {number}: in the paper, missing from the map")
    assert mismatches == [], "\n".join(mismatches)


def test_every_reference_in_the_sources_is_a_numbered_object_of_the_compiled_paper():
    paper = {(r["kind"], r["number"]) for r in _numbers_tsv()}
    cited = {(r.kind, r.number) for p in _sources()
             for r in find_references(p.read_text(encoding="utf-8"))}
    unknown = sorted(c for c in cited if c not in paper and c[0] != "Example")
    assert unknown == []


# The numbers that were wrong before the book followed the compiled paper exist in the paper
# with another meaning (Eq. (9) defines Lambda; Theorem 4.3 is the decomposition), so the map
# alone cannot catch them; these phrases can.
STALE = [
    (re.compile(r"(Theorem|Thm\.?) 4\.3\b[^\n]{0,60}(saturat|floor)|(saturat|floor)[^\n]{0,40}"
                r"(Theorem|Thm\.?) 4\.3\b", re.I), "saturation is Theorem 4.4"),
    (re.compile(r"Eq\. \(?9\)?[^\n]{0,40}three[- _]term|three[- _]term[^\n]{0,40}Eq\. \(?9\b",
                re.I), "the three-term form is Eq. (10)"),
    (re.compile(r"(Theorem|Thm\.?) 4\.4\b[^\n]{0,60}decompos", re.I),
     "the decomposition is Theorem 4.3"),
]


def _stale(text: str, where: str) -> list[str]:
    return [f"{where}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}: {why}"
            for pattern, why in STALE for m in pattern.finditer(text)]


def test_no_reference_keeps_the_old_numbering():
    problems = []
    for path in _sources():
        problems += _stale(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("text", ["the saturation floor of Theorem 4.3",
                                  "Eq. (9) three-term form", "the three_term (Eq. 9)",
                                  "Thm 4.4 (decomposition)"])
def test_the_old_numbering_is_caught(text):
    assert _stale(text, "p")
