"""Executing pages: the runner's determinism, a reader's own table, a missing dataset.

Every run of runs.yml is executed by ``make book`` (which fails on an error, a failed check or
a printed warning), and the tests that inspect the executed pages and the HTML read that build
(tests/book/test_built_book.py, ``make test-book``). Here, pages are executed only where the
test is about executing them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from ensel.book.runner import execute_run, load_runs

ROOT = Path(__file__).resolve().parents[2]
RUNS = load_runs(ROOT / "notebooks" / "runs.yml")
pytestmark = pytest.mark.notebooks


def _outputs(path: Path) -> list:
    nb = nbformat.read(path, as_version=4)
    return [c.get("outputs") for c in nb.cells if c.cell_type == "code"]


@pytest.mark.slow
def test_rebuild_gives_identical_outputs(tmp_path: Path) -> None:
    """The stand-in experiments page (parallel evaluation, exhaustive search, halvings,
    verdicts) executed twice at test size: the same outputs, the same file. About a minute:
    CI runs it (make test-slow); make test executes the page twice on a reader's table (the
    next tests), and a book page at its book size is re-executed against the build in
    tests/book/test_built_book.py."""
    run = next(r for r in RUNS if r.output == "experiments-medmcqa")
    first = execute_run(run, out_dir=tmp_path / "first", test=True, root=ROOT)
    second = execute_run(run, out_dir=tmp_path / "second", test=True, root=ROOT)
    assert _outputs(first) == _outputs(second)
    assert first.read_bytes() == second.read_bytes()


def _text(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.extend(str(v) for v in out.get("data", {}).values())
    return "\n".join(parts)


def test_experiments_page_runs_on_a_users_own_table_and_again_identically(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ensel.book.runner import NotebookRun
    from ensel.datasets import load

    monkeypatch.setenv("ENSEL_RESULTS_DIR", str(tmp_path / "results"))
    df = load("imdb", n_items=400)
    mine = df[df["condition"].isin(sorted(df["condition"].unique())[:2])]
    path = tmp_path / "my_answers.csv"
    mine.to_csv(path, index=False)
    run = NotebookRun("experiments", "experiments-mine",
                      {"dataset": str(path), "n_splits": 2, "exhaustive": False,
                      "n_halvings": 3})  # the page's test size (runs.yml), not the book's 10
    out = execute_run(run, out_dir=tmp_path / "out", root=ROOT)
    text = _text(out)
    assert "my_answers.csv" in text
    assert "2 conditions" in text
    # a rebuild gives the same outputs and the same file
    again = execute_run(run, out_dir=tmp_path / "again", root=ROOT)
    assert _outputs(out) == _outputs(again)
    assert out.read_bytes() == again.read_bytes()


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
