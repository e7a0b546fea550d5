"""The pages generated from the runs (book/_ext/reader_pages.py) are read again by Sphinx only
when one of their tables would change: a build in which nothing changed reads no page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _build(src: Path) -> list[str]:
    """Build the project at ``src`` (its environment kept in ``src/_build``); the pages read."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    read: list[str] = []
    with patch_docutils(str(src)), docutils_namespace():  # as sphinx-build: one app each
        app = Sphinx(str(src), str(src), str(src / "_build" / "html"),
                     str(src / "_build" / "doctrees"), "html", status=None, warning=None,
                     freshenv=False, warningiserror=True)
        app.connect("source-read", lambda app, docname, source: read.append(docname))
        app.build()
    return read


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_parser', 'reader_pages']\nexclude_patterns = ['_build']\n")
    (tmp_path / "index.md").write_text("# Runs\n\n```{toctree}\nother\n```\n\n"
                                       "```{ensel-runs}\n```\n")
    (tmp_path / "other.md").write_text("# Other\n\nA page without tables.\n")
    out = tmp_path / "book" / "_generated"
    out.mkdir(parents=True)
    (out / "timings.json").write_text(json.dumps([{"output": "a", "status": "ok",
                                                    "seconds": 1.0}]))
    return tmp_path


def test_a_generated_page_is_read_again_only_when_its_table_changes(project: Path) -> None:
    assert sorted(_build(project)) == ["index", "other"]
    assert _build(project) == []  # nothing changed: no page read (it was every build)
    timings = project / "book" / "_generated" / "timings.json"
    timings.write_text(json.dumps([{"output": "a", "status": "ok", "seconds": 2.0}]))
    assert _build(project) == ["index"]  # its table of the runs changed; other.rst did not
    assert _build(project) == []
    timings.write_text(timings.read_text())  # written again, the same: not read again
    assert _build(project) == []
    assert "2.0" in (project / "_build" / "html" / "index.html").read_text()


def test_reading_once_reads_a_notebook_again_when_it_is_written_anew(tmp_path: Path) -> None:
    import nbformat

    from ensel.book.provenance import _read, reading_once

    path = tmp_path / "a.ipynb"
    nbformat.write(nbformat.v4.new_notebook(metadata={"ensel": {"key": "1"}}), path)
    with reading_once():
        first = _read(path)
        assert _read(path) is first  # read once
        nbformat.write(nbformat.v4.new_notebook(metadata={"ensel": {"key": "22"}}), path)
        assert _read(path).metadata["ensel"]["key"] == "22"
    assert _read(path) is not _read(path)  # outside: read every time, as before


def _table(name: str) -> str:
    return (f"```{{list-table}} Table {name}\n:name: {name}\n\n* - a\n  - b\n```\n\n"
            f"See {{numref}}`{name}`.\n")


def test_figure_numbers_kept_when_no_page_is_read_and_renumbered_when_one_is(
        project: Path) -> None:
    (project / "conf.py").write_text((project / "conf.py").read_text() + "numfig = True\n")
    (project / "other.md").write_text("# Other\n\n" + _table("second"))
    assert sorted(_build(project)) == ["index", "other"]
    other = project / "_build" / "html" / "other.html"
    assert "Table 1" in other.read_text()
    assert _build(project) == []  # the numbers of the last build are kept, not recomputed
    (project / "first.md").write_text("# First\n\n" + _table("first"))
    (project / "index.md").write_text((project / "index.md").read_text().replace(
        "```{toctree}\n", "```{toctree}\nfirst\n"))
    assert sorted(_build(project)) == ["first", "index"]
    # other.md was not read, yet its table is numbered after the new page's
    assert "Table 2" in other.read_text() and "Table 1" not in other.read_text()
