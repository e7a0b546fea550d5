"""Where each figure of the book comes from: the list of figures and the list of runs.

Both are generated from what the runs left in the output folder (``book/_generated``), never
written by hand:

* every figure a page shows has, under it, a "Reproduce this" box written by the runner
  (:func:`ensel.book.runner.execute_run`), whose cell metadata ``ensel.figures`` names the
  figure, its caption, the CSV of the data it plots and that file's SHA-256; the executed
  notebook's metadata ``ensel`` holds the run's command, parameters, key, ensel version,
  commit and environment digest;
* ``timings.json`` holds the last build's time and status of every run;
* the paper map (:func:`ensel.paper.paper_map`) says which book figure or table reproduces
  which figure or table of the paper.

:func:`paper_figures_table`, :func:`book_figures_table` and :func:`runs_table` return MyST
Markdown tables; the book's Sphinx extension ``book/_ext/reader_pages.py`` puts them on the
list of figures and the execution statistics pages when the book is built.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BookFigure", "RunRecord", "book_figures", "defined_labels", "runs",
           "paper_figures_table", "book_figures_table", "runs_table", "figure_box",
           "MAP_GROUPS", "paper_map_table", "code_role", "resolve_name"]

_TARGET = re.compile(r"(?m)^\((\S+)\)=\s*$|^:label:\s*(\S+)\s*$")
_PAGE_ORDER_SKIP = (".staging", "_failed")


@dataclass(frozen=True)
class BookFigure:
    """One figure shown on a page of the book."""

    page: str  #: the run's output name (``book/_generated/<page>.ipynb``)
    name: str  #: the figure's name (its label, or ``<page>-figure-<n>``)
    label: str  #: its cross-reference label ("" when it has none)
    caption: str
    csv: str  #: the data it plots, relative to the output folder
    sha256: str  #: SHA-256 of that CSV
    command: str  #: the command that remakes it


@dataclass(frozen=True)
class RunRecord:
    """One executed run, as its notebook and the last build's ``timings.json`` record it."""

    output: str
    status: str
    seconds: float | None
    parameters: dict[str, Any]
    command: str
    key: str
    version: str
    commit: str
    environment: str


def _notebooks(out_dir: Path) -> list[Path]:
    return sorted(p for p in Path(out_dir).glob("*.ipynb"))


#: The notebooks read so far inside :func:`reading_once`, by file and version on disk.
_READ: dict[tuple[str, int, int, int], Any] | None = None


@contextmanager
def reading_once() -> Iterator[None]:
    """Within it, each executed notebook is read once, however many tables read it (a file
    written anew in the meantime is read again): what the book's extension does when it
    writes every generated table at the start of a build to see which changed."""
    global _READ
    outer, _READ = _READ, ({} if _READ is None else _READ)
    try:
        yield
    finally:
        _READ = outer


def _read(path: Path) -> Any:
    import nbformat

    if _READ is None:
        return nbformat.read(path, as_version=4)
    stat = Path(path).stat()
    key = (str(Path(path).resolve()), stat.st_ino, stat.st_mtime_ns, stat.st_size)
    if key not in _READ:
        _READ[key] = nbformat.read(path, as_version=4)
    return _READ[key]


def book_figures(out_dir: str | Path, order: Sequence[str] = ()) -> list[BookFigure]:
    """Every figure of the executed pages in ``out_dir``, page by page (pages in ``order``
    first, e.g. the table of contents; then the rest by name) and in page order."""
    paths = {p.stem: p for p in _notebooks(Path(out_dir))}
    names = [n for n in order if n in paths] + sorted(set(paths) - set(order))
    found = []
    for name in names:
        nb = _read(paths[name])
        command = nb.metadata.get("ensel", {}).get("command", "")
        for cell in nb.cells:
            for f in cell.metadata.get("ensel", {}).get("figures", []):
                found.append(BookFigure(name, f["name"], f.get("label", ""),
                                        f.get("caption", ""), f["csv"], f["sha256"], command))
    return found


def defined_labels(out_dir: str | Path) -> set[str]:
    """The cross-reference labels the executed pages define (figure names and ``(label)=``
    targets), so that generated links never point at a page that was not built."""
    labels: set[str] = set()
    for path in _notebooks(Path(out_dir)):
        for cell in _read(path).cells:
            name = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
            if name:
                labels.add(name)
            if cell.cell_type == "markdown":
                labels.update(a or b for a, b in _TARGET.findall(cell.source))
    return labels


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (one line, no column bars)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _short(caption: str, limit: int = 140) -> str:
    text = _cell(caption)
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    if cut.count("$") % 2:  # never cut inside inline math
        cut = cut[:cut.rfind("$")].rstrip()
    return cut + " …"


def _doc(page: str) -> str:
    return f"{{doc}}`/book/_generated/{page}`"


def _download(out_dir_name: str, csv: str) -> str:
    return f"{{download}}`CSV </book/{out_dir_name}/{csv}>`"


def paper_figures_table(out_dir: str | Path, objects: Sequence[Any] | None = None, *,
                        out_dir_name: str = "_generated") -> str:
    """The paper's figures and tables, each with the book figures and tables that reproduce
    it (from the paper map's ``reproduced_by``), their pages, data and commands. Objects whose
    reproductions are not in this build say so."""
    if objects is None:
        from ensel.paper import paper_map

        objects = paper_map()
    figs = {f.label: f for f in book_figures(out_dir) if f.label}
    labels = defined_labels(out_dir)
    page_of = _label_pages(out_dir)
    rows = ["| paper | reproduced in the book | page | data | command |",
            "|---|---|---|---|---|"]
    for obj in objects:
        if obj.kind not in ("Figure", "Table"):
            continue
        built = [lab for lab in obj.reproduced_by if lab in labels]
        paper = f"{obj.kind} {obj.number}: {_cell(obj.title)}"
        if not obj.reproduced_by:
            rows.append(f"| {paper} | not reproduced (a schematic or an overview; see the "
                        "{doc}`map of the paper </book/figure_map>`) | | | |")
            continue
        if not built:
            rows.append(f"| {paper} | not in this build ({', '.join(obj.reproduced_by)}: "
                        "their pages were not built, e.g. their data was not available) "
                        "| | | |")
            continue
        for i, lab in enumerate(built):
            f = figs.get(lab)
            page = page_of.get(lab, "")
            rows.append("| " + " | ".join([
                paper if i == 0 else "",
                _label_link(lab, figs),
                _doc(page) if page else "",
                _download(out_dir_name, f.csv) if f else "(a table)",
                f"`{f.command}`" if f and f.command else "",
            ]) + " |")
    return "\n".join(rows) + "\n"


def _label_link(label: str, figures: Sequence[str] | set[str]) -> str:
    """A link to a book figure or table whose text a reader can read: a figure by its number
    ("Fig. 12"), a labelled section by its title; never the label itself."""
    return f"{{numref}}`{label}`" if label in figures else f"{{ref}}`{label}`"


def _label_pages(out_dir: str | Path) -> dict[str, str]:
    pages = {}
    for path in _notebooks(Path(out_dir)):
        for cell in _read(path).cells:
            name = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
            if name:
                pages[name] = path.stem
            if cell.cell_type == "markdown":
                for a, b in _TARGET.findall(cell.source):
                    pages[a or b] = path.stem
    return pages


def book_figures_table(out_dir: str | Path, objects: Sequence[Any] | None = None, *,
                       order: Sequence[str] = (), out_dir_name: str = "_generated") -> str:
    """Every figure of the book in reading order: its caption, page, the paper figures it
    reproduces (from the paper map), its data (CSV) and the command that remakes it."""
    if objects is None:
        from ensel.paper import paper_map

        objects = paper_map()
    reproduces: dict[str, list[str]] = {}
    for obj in objects:
        for lab in obj.reproduced_by:
            reproduces.setdefault(lab, []).append(f"{obj.kind} {obj.number}")
    rows = ["| # | figure | page | paper | data | command |", "|---|---|---|---|---|---|"]
    for n, f in enumerate(book_figures(out_dir, order), start=1):
        # the caption as Markdown (its math renders), then a link to the figure
        title = _short(f.caption, 110) or f.name
        if f.label:
            title += f" · {{ref}}`view <{f.label}>`"
        rows.append("| " + " | ".join([
            str(n), title, _doc(f.page), ", ".join(reproduces.get(f.label, [])) or "–",
            _download(out_dir_name, f.csv), f"`{f.command}`" if f.command else "",
        ]) + " |")
    return "\n".join(rows) + "\n"


_DOWNLOAD = re.compile(r"\{download\}`([^`<]*)<([^>`]+)>`")


def figure_box(out_dir: str | Path, name: str, *, out_dir_name: str = "_generated") -> str:
    """The "Reproduce this figure" box the runner put under the figure ``name`` (its label
    or generated name), as MyST Markdown for another page: the same command, versions,
    digests and data download, the download's path made absolute (``/book/<out_dir_name>/
    ...``). Shown where a figure is glued onto another page, e.g. the front page.

    Raises
    ------
    LookupError
        When no executed page in ``out_dir`` has a box for ``name`` (the run that draws it
        was not executed, or the figure lost its name).
    """
    for path in _notebooks(Path(out_dir)):
        for cell in _read(path).cells:
            names = [f.get("name") for f in cell.metadata.get("ensel", {}).get("figures", [])]
            if name in names:
                return _DOWNLOAD.sub(
                    lambda m: f"{{download}}`{m.group(1)}</book/{out_dir_name}/{m.group(2)}>`",
                    cell.source)
    raise LookupError(f"no executed page in {out_dir} has a 'Reproduce this' box for the "
                      f"figure {name!r}: run the page that draws it (make run NB=...)")


#: The tables of the map of the paper (``book/figure_map.md``): which kinds of numbered
#: objects each lists.
MAP_GROUPS: dict[str, tuple[str, ...]] = {
    "results": ("Theorem", "Definition", "Lemma", "Example", "Remark", "Corollary",
                "Proposition", "Equation"),
    "algorithms": ("Algorithm",),
    "figures": ("Figure", "Table"),
}


def resolve_name(name: str) -> Any:
    """The object a dotted name denotes (the longest importable module prefix, then its
    attributes), or ``None`` when no prefix imports.

    Examples
    --------
    >>> resolve_name("ensel.select.greedy_mi").__name__
    'greedy_mi'
    >>> resolve_name("nosuchmodule.x") is None
    True
    """
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    return None


def code_role(name: str) -> str:
    """A cross-reference to the ``ensel`` object ``name`` (dotted), by its kind: ``py:mod``,
    ``py:class`` or ``py:func``, shown without the leading ``ensel.``.

    Examples
    --------
    >>> code_role("ensel.select.greedy_mi")
    '{py:func}`select.greedy_mi <ensel.select.greedy_mi>`'
    >>> code_role("ensel.copula")
    '{py:mod}`copula <ensel.copula>`'
    """
    import inspect

    obj = resolve_name(name)
    if obj is None:
        raise LookupError(f"{name!r} (a code name of the paper map) does not import")
    role = "mod" if inspect.ismodule(obj) else "class" if inspect.isclass(obj) else "func"
    return f"{{py:{role}}}`{name.removeprefix('ensel.')} <{name}>`"


def paper_map_table(out_dir: str | Path, group: str, objects: Sequence[Any] | None = None,
                    ) -> str:
    """One table of the map of the paper: every object of the paper map whose kind is in
    :data:`MAP_GROUPS` ``[group]``, one row each, in the paper's order: the paper object, where
    the book reproduces it (its statement's label, or the book figures and tables of
    ``reproduced_by``), the page, the code that computes it and the command that re-runs
    the page. Links only to what this build has: a page or a label that was not built says
    so instead."""
    if group not in MAP_GROUPS:
        raise ValueError(f"group must be one of {sorted(MAP_GROUPS)}; got {group!r}")
    if objects is None:
        from ensel.paper import paper_map

        objects = paper_map()
    out = Path(out_dir)
    labels = defined_labels(out)
    figures = {f.label for f in book_figures(out) if f.label}
    page_of = _label_pages(out)
    commands = {p.stem: _read(p).metadata.get("ensel", {}).get("command", "")
                for p in _notebooks(out)}

    def page_cell(page: str) -> str:
        return _doc(page) if page in commands else f"`{page}` (not in this build)"

    def command_cell(pages: Sequence[str]) -> str:
        return "<br>".join(f"`{commands[p]}`" for p in dict.fromkeys(pages)
                           if commands.get(p))

    rows = ["| paper | reproduced in | page | code | command |", "|---|---|---|---|---|"]
    for obj in objects:
        if obj.kind not in MAP_GROUPS[group]:
            continue
        paper = f"{obj.ref}: {_cell(obj.title)}"
        code = " · ".join(code_role(n) for n in obj.code)
        if obj.kind in ("Figure", "Table"):
            built = [lab for lab in obj.reproduced_by if lab in labels]
            pages = [page_of[lab] for lab in built if lab in page_of]
            if not obj.reproduced_by:
                where = _cell(obj.note) or "not reproduced"
            elif not built:
                where = (f"not in this build ({', '.join(obj.reproduced_by)}: their pages "
                         "were not built, e.g. their data was not available)")
            else:
                where = " · ".join(_label_link(lab, figures) for lab in built)
            rows.append(f"| {paper} | {where} | "
                        f"{' · '.join(_doc(p) for p in dict.fromkeys(pages))} | {code} | "
                        f"{command_cell(pages)} |")
            continue
        page = obj.page or ""
        on_run = page in commands
        if page == "figure_map":
            where, page_text = _cell(obj.note) or "the code (no page of its own)", ""
        elif obj.anchor and on_run and obj.anchor in labels:
            where, page_text = f"{{prf:ref}}`statement <{obj.anchor}>`", page_cell(page)
        else:
            where, page_text = ("the page" if on_run else "not in this build"), page_cell(page)
        rows.append(f"| {paper} | {where} | {page_text} | {code} | "
                    f"{command_cell([page] if on_run else [])} |")
    return "\n".join(rows) + "\n"


def runs(out_dir: str | Path) -> list[RunRecord]:
    """Every run of the last build (``timings.json``), then every other executed page, with
    its parameters, key, versions and commit from its executed notebook. ``seconds`` is the
    time of the run's last execution: this build's when it executed, else the one the runner
    recorded when it last did (``durations.json``; a cached run took no time to skip)."""
    from ensel.book.runner import read_durations

    out = Path(out_dir)
    durations = read_durations(out)
    timings: list[dict[str, Any]] = []
    path = out / "timings.json"
    if path.is_file():
        try:
            timings = json.loads(path.read_text())
        except (OSError, ValueError):
            timings = []
    # every executed page, also those the last invocation did not run (``make run`` of one
    # page rewrites timings.json): status unknown, the time of its last execution
    listed = {t.get("output") for t in timings}
    timings += [{"output": p.stem, "status": "", "seconds": None} for p in _notebooks(out)
                if p.stem not in listed]
    records = []
    for t in timings:
        nb_path = out / f"{t['output']}.ipynb"
        meta = _read(nb_path).metadata.get("ensel", {}) if nb_path.is_file() else {}
        executed = t.get("status") in ("ok", "executed") and t.get("seconds") is not None
        records.append(RunRecord(
            t["output"], str(t.get("status", "")),
            t.get("seconds") if executed else durations.get(t["output"]),
            dict(meta.get("parameters", {})), str(meta.get("command", "")),
            str(meta.get("key") or ""), str(meta.get("version", "")),
            str(meta.get("commit", "")), str(meta.get("environment", ""))))
    return records


#: How the runs table shows a run's status in the last build: a run the runner skipped
#: because its inputs had not changed ("cached") has the page its last execution made, as
#: one it executed ("ok") has; one word for both keeps the page the same when a build
#: changes nothing, so that build rewrites no page and reprints nothing.
_SHOWN_STATUS = {"cached": "ok"}


def runs_table(out_dir: str | Path) -> str:
    """One row per run, by page name: page, status (``ok``: its page comes from a successful
    execution of its current inputs, in the last build or an earlier one), seconds of its
    last execution, parameters, ensel version and commit, environment digest and run key
    (the first 8 hex digits of each)."""
    rows = ["| page | status | execution (s) | parameters | ensel | environment | run key |",
            "|---|---|---|---|---|---|---|"]
    # by page name: the runs' order in timings.json is the order they ended in, which a
    # build that executed pages and one that skipped them all do not share
    for r in sorted(runs(out_dir), key=lambda r: r.output):
        exists = (Path(out_dir) / f"{r.output}.ipynb").is_file()
        params = ", ".join(f"`{k}={json.dumps(v, default=str)}`"
                           for k, v in sorted(r.parameters.items()))
        version = r.version + (f" (`{r.commit}`)" if r.commit else "")
        rows.append("| " + " | ".join([
            _doc(r.output) if exists else f"`{r.output}`",
            _SHOWN_STATUS.get(r.status, r.status) or "–",
            "–" if r.seconds is None else f"{r.seconds:.1f}", _cell(params) or "–",
            version or "–", f"`{r.environment[:8]}`" if r.environment else "–",
            f"`{r.key[:8]}`" if r.key else "–"]) + " |")
    return "\n".join(rows) + "\n"
