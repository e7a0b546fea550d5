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


def _outdated(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """The pages one of whose tables would now be written otherwise than when the page was
    read (the runs, the paper map or the code that writes them changed): the only ones to
    read again, so that a build in which nothing changed reads no page."""
    from ensel.book import provenance

    with provenance.reading_once():
        return sorted(d for d, tables in getattr(env, "ensel_generated", {}).items()
                      if d in env.found_docs and d not in changed
                      and _changed(env, tables))


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
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge_env)
    # 2: env.ensel_generated holds each page's tables and their digests (was: a set of pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
