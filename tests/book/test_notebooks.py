"""Every notebook run of runs.yml executes (small parameters), and the book builds offline.

All runs execute once, in the order of runs.yml (later pages read earlier pages' results),
into a temporary copy of ``book/_generated``; the HTML book is then built from them with
warnings as errors and checked for external resources.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from ensel.book.runner import NotebookRunError, execute_run, load_runs
from tools.bookcheck import external_resources

ROOT = Path(__file__).resolve().parents[2]
RUNS = load_runs(ROOT / "notebooks" / "runs.yml")
pytestmark = [pytest.mark.notebooks, pytest.mark.xdist_group("notebooks")]


@pytest.fixture(scope="session")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | Exception]:
    out_dir = tmp_path_factory.mktemp("book") / "book" / "_generated"
    results: dict[str, Path | Exception] = {}
    for run in RUNS:
        try:
            results[run.output] = execute_run(run, out_dir=out_dir, test=True, root=ROOT)
        except NotebookRunError as exc:
            results[run.output] = exc
    return results


@pytest.mark.parametrize("output", [r.output for r in RUNS])
def test_notebook_run_executes(executed: dict[str, Path | Exception], output: str) -> None:
    result = executed[output]
    if isinstance(result, Exception):
        pytest.fail(str(result))
    nb = nbformat.read(result, as_version=4)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []


def _outputs(path: Path) -> list:
    nb = nbformat.read(path, as_version=4)
    return [c.get("outputs") for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("output", ["system_model", "experiments-medmcqa"])
def test_rebuild_gives_identical_outputs(executed: dict[str, Path | Exception], output: str,
                                         tmp_path: Path) -> None:
    first = executed[output]
    assert isinstance(first, Path)
    run = next(r for r in RUNS if r.output == output)
    second = execute_run(run, out_dir=tmp_path, test=True, root=ROOT)
    assert _outputs(first) == _outputs(second)
    assert first.read_bytes() == second.read_bytes()


def test_book_builds_offline_with_warnings_as_errors(executed: dict[str, Path | Exception],
                                                     tmp_path: Path) -> None:
    failed = [k for k, v in executed.items() if isinstance(v, Exception)]
    if failed:
        pytest.skip(f"notebook runs failed (reported separately): {failed}")
    site = tmp_path / "site"
    (site / "book").mkdir(parents=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, site / name)
    for md in [*(ROOT / "book").glob("*.md"), *(ROOT / "book").glob("*.bib")]:
        shutil.copy(md, site / "book" / md.name)
    for sub in (ROOT / "book").iterdir():
        if sub.is_dir() and sub.name != "_generated":
            shutil.copytree(sub, site / "book" / sub.name)
    # the build tooling beside the book, as in the repository (book/_ext/pdfbook.py's
    # {book-pdf} role asks tools.browsercheck whether Chromium can print the PDF)
    shutil.copytree(ROOT / "tools", site / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    generated = next(iter(executed.values()))
    assert isinstance(generated, Path)
    shutil.copytree(generated.parent, site / "book" / "_generated")
    jb = Path(sys.executable).parent / "jupyter-book"
    proc = subprocess.run(
        [str(jb), "build", str(site), "--builder", "html", "-W", "-n", "--keep-going"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    html = site / "_build" / "html"
    assert external_resources(html) == {}
    # math is rendered by the local MathJax copy
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    page = (html / "book" / "_generated" / "system_model.html").read_text()
    assert "_static/mathjax/tex-chtml.js" in page
    # every figure has its folded provenance box and data download; the generated pages exist
    # (Sphinx serves the run's _figdata/<run>/<figure>.csv as _downloads/<hash>/<figure>.csv)
    assert "Reproduce this figure" in page
    assert re.search(r'_downloads/[0-9a-f]+/fig-[\w-]+\.csv', page), "no CSV download"
    for name in ("list_of_figures", "execution_statistics", "bibliography", "notation"):
        assert (html / "book" / f"{name}.html").is_file(), name
    # the front page links the PDF only where Chromium can print it (no broken link)
    from tools.browsercheck import find_chromium

    intro = (html / "book" / "intro.html").read_text()
    assert ('href="../ensel-book.pdf"' in intro) == (find_chromium() is not None)
    # the API reference (book/api/) puts the library's objects in the inventory
    from test_api_reference import python_objects

    assert len(python_objects(html / "objects.inv")) >= 150
    # no dormant Thebe/Binder launcher pointing at a CDN (book/_ext/offline_only.py)
    for path in html.rglob("*.html"):
        text = path.read_text()
        assert "unpkg.com" not in text and "thebe" not in text.lower(), path
    # prose: no glued value pasted with its quote marks, no default parameter values shown
    # on a page that ran with others (every page here ran with its test parameters)
    from rendered_prose import quoted_glue, shown_defaults

    problems = []
    for path in sorted((html / "book").rglob("*.html")):
        text = path.read_text()
        problems += [f"{path.name}: glued value in quotes: {q}" for q in quoted_glue(text)]
        problems += [f"{path.name}: {p}" for p in shown_defaults(text)]
    assert problems == [], "\n".join(problems)


def test_every_figure_has_a_provenance_box_and_the_list_of_figures_covers_the_paper(
        executed: dict[str, Path | Exception]) -> None:
    import hashlib

    from ensel.book.provenance import paper_figures_table
    from ensel.paper import paper_map

    built = {k: v for k, v in executed.items() if isinstance(v, Path)}
    out_dir = next(iter(built.values())).parent
    n_figures = 0
    for output, path in built.items():
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            tags = set(cell.metadata.get("tags", []))
            shows = (cell.cell_type == "code" and not tags & {"remove-cell", "remove-output"}
                     and any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])))
            if not shows:
                continue
            box = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
            figs = box.metadata.get("ensel", {}).get("figures") if box is not None else None
            assert figs, f"{output}: cell {i} shows a figure without a 'Reproduce this' box"
            for f in figs:
                data = (out_dir / f["csv"]).read_bytes()
                assert hashlib.sha256(data).hexdigest() == f["sha256"], (output, f["name"])
                assert f"{{download}}`CSV <{f['csv']}>`" in box.source
                n_figures += 1
    assert n_figures > 20
    table = paper_figures_table(out_dir)
    for obj in paper_map():
        if obj.kind in ("Figure", "Table") and obj.reproduced_by:
            assert f"| {obj.kind} {obj.number}: " in table, f"{obj.ref} not in the list"


def test_every_figure_carries_the_stamp_its_data_call_for(
        executed: dict[str, Path | Exception]) -> None:
    """Stand-in, simulated, partly synthetic and exact-computation figures say so inside the
    image, real-data figures say nothing (the rule and the table: tests/figure_stamps.py)."""
    from figure_stamps import figure_stamps, wrong_stamps

    built = {k: v for k, v in executed.items() if isinstance(v, Path)}
    problems = [p for output, path in built.items() for p in wrong_stamps(output, path)]
    assert problems == [], "\n".join(problems)
    kinds = {k for path in built.values() for _, k in figure_stamps(path)}
    assert {"stand-in", "simulated", "exact"} <= kinds  # the rule's kinds all occur


def _text(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.extend(str(v) for v in out.get("data", {}).values())
    return "\n".join(parts)


def test_experiments_page_runs_on_a_users_own_table(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from ensel.book.runner import NotebookRun
    from ensel.datasets import load

    monkeypatch.setenv("ENSEL_RESULTS_DIR", str(tmp_path / "results"))
    df = load("imdb", n_items=400)
    mine = df[df["condition"].isin(sorted(df["condition"].unique())[:2])]
    path = tmp_path / "my_answers.csv"
    mine.to_csv(path, index=False)
    run = NotebookRun("experiments", "experiments-mine",
                      {"dataset": str(path), "n_splits": 2, "exhaustive": False})
    out = execute_run(run, out_dir=tmp_path / "out", root=ROOT)
    text = _text(out)
    assert "my_answers.csv" in text
    assert "2 conditions" in text


def _real_data_runs() -> list[tuple[str, str, str]]:
    """(output, dataset, label) of every run that requires a downloaded dataset declared in
    ``ensel.datasets.DATASETS``."""
    from ensel.book.profiles import label
    from ensel.datasets import DATASETS

    out = []
    for run in RUNS:
        for template in run.requires_data:
            name = template.format(**run.parameters)
            if name in DATASETS and DATASETS[name].registry is not None:
                out.append((run.output, name, label(name)))
    return out


@pytest.mark.parametrize("output, name, label", _real_data_runs())
def test_real_data_pages_explain_how_to_get_missing_data(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        output: str, name: str,
                                                        label: str) -> None:
    # the runs of runs.yml (requires_data), with an empty mirror and cache: each page is its
    # title and one note, not executed
    (tmp_path / "empty-mirror").mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(tmp_path / "empty-mirror"))
    monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("ENSEL_RESULTS_DIR", str(tmp_path / "results"))
    run = next(r for r in RUNS if r.output == output)
    nb = nbformat.read(execute_run(run, out_dir=tmp_path / "out", root=ROOT), as_version=4)
    assert [c.cell_type for c in nb.cells] == ["markdown", "markdown"]
    assert nb.cells[0].source.startswith("# ")
    text = nb.cells[1].source
    assert f"{label} data not available" in text
    assert f"python -m ensel.datasets fetch {name}" in text
    assert not (tmp_path / "results").exists()
