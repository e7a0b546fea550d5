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

The pages that use them are read again on every build (their content depends on the runs,
not on their own source).
"""

from __future__ import annotations

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


class _Generated(SphinxDirective):
    has_content = False
    required_arguments = 0
    classes: tuple[str, ...] = ()  # more classes of the container, for the page's CSS

    def markdown(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        self.env.ensel_generated = getattr(self.env, "ensel_generated", set())
        self.env.ensel_generated.add(self.env.docname)
        container = nodes.container(classes=["ensel-generated", *self.classes])
        self.state.nested_parse(StringList(self.markdown().splitlines()), self.content_offset,
                                container)
        return [container]


class PaperFigures(_Generated):
    def markdown(self) -> str:
        from ensel.book.provenance import paper_figures_table

        return paper_figures_table(_out_dir(self.env))


class BookFigures(_Generated):
    def markdown(self) -> str:
        from ensel.book.provenance import book_figures_table

        return book_figures_table(_out_dir(self.env), order=_toc_order(self.env))


class Runs(_Generated):
    def markdown(self) -> str:
        from ensel.book.provenance import runs_table

        return runs_table(_out_dir(self.env))


class PaperMap(_Generated):
    required_arguments = 1
    classes = ("ensel-paper-map",)

    def markdown(self) -> str:
        from ensel.book.provenance import paper_map_table

        try:
            return paper_map_table(_out_dir(self.env), self.arguments[0])
        except (ValueError, LookupError) as exc:
            raise self.error(str(exc)) from None


class FigureProvenance(_Generated):
    required_arguments = 1

    def markdown(self) -> str:
        from ensel.book.provenance import figure_box

        try:
            return figure_box(_out_dir(self.env), self.arguments[0])
        except LookupError as exc:
            raise self.error(str(exc)) from None


def _always_read(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    return sorted(d for d in getattr(env, "ensel_generated", set()) if d in env.found_docs)


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("ensel-paper-figures", PaperFigures)
    app.add_directive("ensel-book-figures", BookFigures)
    app.add_directive("ensel-runs", Runs)
    app.add_directive("ensel-paper-map", PaperMap)
    app.add_directive("ensel-figure-provenance", FigureProvenance)
    app.connect("env-get-outdated", _always_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
