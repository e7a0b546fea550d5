"""Sphinx extension: the pages generated from the runs (list of figures, execution statistics).

Directives, each replaced by a MyST table made by :mod:`ensel.book.provenance` from the executed
notebooks in ``book/_generated`` (their "Reproduce this" boxes and metadata), the last build's
``timings.json`` and the paper map (:func:`ensel.paper.paper_map`):

``{ensel-paper-figures}``
    every figure and table of the paper and the book figures/tables that reproduce it;
``{ensel-book-figures}``
    every figure of the book, in the order of the table of contents;
``{ensel-runs}``
    every run with its time, status, parameters, versions, environment digest and key;
``{ensel-paper-map} results|algorithms|figures``
    one table of the map of the paper: every object of those kinds, where it is reproduced,
    its page, its code and the command that re-runs the page;
``{ensel-figure-provenance} <figure name>``
    the "Reproduce this" box of one figure, for a page that glues the figure from its run
    (the front page).

A page that uses them is read again when one of its tables would change (its content
depends on the runs and the paper map, not on its own source): each table's Markdown is
written again at the start of every build and compared, by digest, with the one the page was
read with (:func:`_outdated`); a build in which nothing changed reads no page.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

OUT = "book/_generated"


def _out_dir(env: Any) -> Path:
    return Path(env.srcdir) / OUT


def _toc_order(env: Any) -> list[str]:
    from ensel.book.runner import toc_files

    return [f[len(OUT) + 1:] for f in toc_files(Path(env.srcdir) / "_toc.yml")
            if f.startswith(OUT + "/")]


def _paper_figures(env: Any, arguments: list[str]) -> str:
    from ensel.book.provenance import paper_figures_table

    return paper_figures_table(_out_dir(env))


def _book_figures(env: Any, arguments: list[str]) -> str:
    from ensel.book.provenance import book_figures_table

    return book_figures_table(_out_dir(env), order=_toc_order(env))


def _runs(env: Any, arguments: list[str]) -> str:
    from ensel.book.provenance import runs_table

    return runs_table(_out_dir(env))


def _paper_map(env: Any, arguments: list[str]) -> str:
    from ensel.book.provenance import paper_map_table

    return paper_map_table(_out_dir(env), arguments[0])


def _figure_box(env: Any, arguments: list[str]) -> str:
    from ensel.book.provenance import figure_box

    return figure_box(_out_dir(env), arguments[0])


#: Each directive: the function that writes its Markdown, its number of arguments and the
#: classes of its container (for the page's CSS).
DIRECTIVES = {
    "ensel-paper-figures": (_paper_figures, 0, ()),
    "ensel-book-figures": (_book_figures, 0, ()),
    "ensel-runs": (_runs, 0, ()),
    "ensel-paper-map": (_paper_map, 1, ("ensel-paper-map",)),
    "ensel-figure-provenance": (_figure_box, 1, ()),
}


def _digest(markdown: str) -> str:
    return hashlib.sha256(markdown.encode()).hexdigest()


class _Generated(SphinxDirective):
    """One table of :data:`DIRECTIVES`; the page records which tables it shows and a digest
    of each one's Markdown (``env.ensel_generated``), so that it is read again only when one
    of them would change (:func:`_outdated`)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        write, _, classes = DIRECTIVES[self.name]
        try:
            markdown = write(self.env, list(self.arguments))
        except (ValueError, LookupError) as exc:
            raise self.error(str(exc)) from None
        env: Any = self.env
        env.ensel_generated = getattr(env, "ensel_generated", {})
        env.ensel_generated.setdefault(env.docname, []).append(
            (self.name, list(self.arguments), _digest(markdown)))
        container = nodes.container(classes=["ensel-generated", *classes])
        self.state.nested_parse(StringList(markdown.splitlines()), self.content_offset,
                                container)
        return [container]


def _directive(name: str) -> type[_Generated]:
    arguments = DIRECTIVES[name][1]
    return type(f"Generated_{name}", (_Generated,), {"required_arguments": arguments})


def _changed(env: Any, tables: list[tuple[str, list[str], str]]) -> bool:
    for name, arguments, digest in tables:
        try:
            if name not in DIRECTIVES or _digest(DIRECTIVES[name][0](env, arguments)) != digest:
                return True
        except Exception:  # noqa: BLE001 - read the page again: the directive reports it
            return True
    return False


#: What the tables are written from: the runs' outputs (the top of ``book/_generated``), the
#: ``ensel`` package (its code and its data, the paper map), the table of contents and this
#: file. While none of it changed since the tables were last found current, they are not
#: written again to be compared (:func:`_outdated`).
INPUT_FILES = ("_toc.yml", "book/_ext/reader_pages.py")
INPUT_TREES = ("ensel", "data")
#: The digest of those inputs when the tables were last found current, in the doctree folder.
INPUTS_FILE = "ensel-generated-inputs"


def _inputs_digest(srcdir: Path) -> str:
    h = hashlib.sha256()
    files = [srcdir / f for f in INPUT_FILES]
    if (srcdir / OUT).is_dir():
        files += sorted(p for p in (srcdir / OUT).iterdir() if p.is_file())
    for tree in INPUT_TREES:
        files += sorted(p for p in (srcdir / tree).rglob("*")
                        if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        data = path.read_bytes() if path.is_file() else b"(none)"
        h.update(f"{path.relative_to(srcdir).as_posix()}:{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def _outdated(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """The pages one of whose tables would now be written otherwise than when the page was
    read (the runs, the paper map or the code that writes them changed): the only ones to
    read again, so that a build in which nothing changed reads no page. When no input of
    the tables changed since they were last found current (:data:`INPUT_FILES`), none is
    written; otherwise each is written and compared."""
    from ensel.book import provenance

    srcdir = Path(env.srcdir)
    app.ensel_inputs = _inputs_digest(srcdir)
    stored = Path(app.doctreedir) / INPUTS_FILE
    if stored.is_file() and stored.read_text() == app.ensel_inputs:
        return []
    with provenance.reading_once():
        return sorted(d for d, tables in getattr(env, "ensel_generated", {}).items()
                      if d in env.found_docs and d not in changed
                      and _changed(env, tables))


def _inputs_current(app: Any, exception: BaseException | None) -> None:
    """After a build that succeeded, every page's tables are those of the inputs it started
    with (a page whose table changed was read again): keep their digest."""
    if exception is None and getattr(app, "ensel_inputs", None):
        (Path(app.doctreedir) / INPUTS_FILE).write_text(app.ensel_inputs)


# Sphinx numbers the figures again on every build (``numfig``, on in Jupyter Book), which
# unpickles the doctree of every page (~20 s of an unchanged build of this book). The numbers
# depend on the pages' doctrees and the table of contents only, so when no page is read,
# added or removed they are those of the last build, kept in the environment.
def _note_read(app: Any, env: Any, docnames: list[str]) -> None:
    app.ensel_nothing_read = not docnames and not getattr(app, "ensel_removed", True)


def _note_removed(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    app.ensel_removed = bool(removed)
    return []


def _keep_figure_numbers() -> None:
    from sphinx.environment.collectors.toctree import TocTreeCollector

    assign = TocTreeCollector.assign_figure_numbers
    if getattr(assign, "ensel_kept", False):
        return

    def assign_figure_numbers(self: Any, env: Any) -> list[str]:
        if getattr(env.app, "ensel_nothing_read", False) and env.toc_fignumbers:
            return []
        return assign(self, env)

    assign_figure_numbers.ensel_kept = True  # type: ignore[attr-defined]
    TocTreeCollector.assign_figure_numbers = assign_figure_numbers  # type: ignore[method-assign]


def _purge(app: Any, env: Any, docname: str) -> None:
    getattr(env, "ensel_generated", {}).pop(docname, None)


def _merge_env(app: Any, env: Any, docnames: set, other: Any) -> None:
    theirs = getattr(other, "ensel_generated", {})
    env.ensel_generated = {**getattr(env, "ensel_generated", {}),
                           **{d: theirs[d] for d in docnames if d in theirs}}


def setup(app: Any) -> dict[str, Any]:
    for name in DIRECTIVES:
        app.add_directive(name, _directive(name))
    app.connect("env-get-outdated", _outdated)
    app.connect("env-get-outdated", _note_removed)
    app.connect("env-before-read-docs", _note_read)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge_env)
    app.connect("build-finished", _inputs_current)
    _keep_figure_numbers()
    # 2: env.ensel_generated holds each page's tables and their digests (was: a set of pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
