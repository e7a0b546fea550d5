"""Every figure carries the data it plots and a "Reproduce this" box; the list of figures and
the execution statistics are generated from the runs and the paper map (ensel.book.provenance).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from ensel.book.figures import FIGURE_DATA_MIME, figure_data  # noqa: E402
from ensel.book.provenance import (  # noqa: E402
    book_figures_table,
    figure_box,
    paper_figures_table,
    runs_table,
)
from ensel.book.runner import NotebookRun, execute_run  # noqa: E402
from ensel.book.runner._keys import _environment_digest  # noqa: E402
from ensel.paper import paper_map  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = ROOT.parent / "shared" / "paper" / "numbers.tsv"


def test_figure_data_reads_lines_points_bars_error_bars_and_cells() -> None:
    fig, (a, b, c) = plt.subplots(1, 3)
    a.plot([1, 2, 3], [0.3, 0.2, 0.1], label="MAP")
    a.errorbar([1, 2], [0.5, 0.6], yerr=[0.1, 0.2], fmt="o", label="diff")
    a.set_title("curves")
    b.scatter([0.1, 0.2], [0.3, 0.4])
    b.bar([1, 2], [5, 6], label="counts")
    c.imshow(np.arange(6.0).reshape(2, 3))
    d = figure_data(fig)
    plt.close(fig)
    line = d[(d["series"] == "MAP") & (d["kind"] == "line")]
    assert line["y"].tolist() == [0.3, 0.2, 0.1] and set(line["panel"]) == {"1: curves"}
    seg = d[d["kind"] == "segment"].sort_values("x")
    assert np.allclose(seg[["y", "y_end"]].to_numpy(), [[0.4, 0.6], [0.4, 0.8]])
    pts = d[d["kind"] == "points"]
    assert np.allclose(pts[["x", "y"]].to_numpy(), [[0.1, 0.3], [0.2, 0.4]])
    bars = d[(d["kind"] == "bar") & (d["series"] == "counts")]
    assert bars["x"].tolist() == [1, 2] and bars["y"].tolist() == [5, 6]
    assert sorted(d[d["kind"] == "cell"]["value"]) == [0, 1, 2, 3, 4, 5]


PAGE = '''# %% [markdown]
# # Demo

# %% tags=["parameters"]
n = 3

# %% tags=["hide-input"] mystnb={"figure": {"caption": "A line.", "name": "fig-demo-line"}}
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.plot(range(n), [0.5, 0.25, 0.125], label="error")
plt.show()

# %%
fig, ax = plt.subplots()
ax.bar([1, 2], [3, 4])
plt.show()

# %% tags=["remove-cell"]
fig, ax = plt.subplots()
ax.plot([0, 1], [1, 0])
plt.show()
'''


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A page with a labelled figure, an unlabelled one and a removed one, executed by the
    runner (a real kernel)."""
    root = tmp_path_factory.mktemp("repo")
    (root / "notebooks").mkdir()
    (root / "notebooks" / "demo.py").write_text(PAGE)
    out = root / "book" / "_generated"
    path = execute_run(NotebookRun("demo", "demo", {"n": 3}), out_dir=out, root=root,
                       key="f" * 64)
    return root, path


def test_a_run_writes_each_figures_data_and_a_reproduce_box(demo_run: tuple[Path, Path]
                                                            ) -> None:
    root, path = demo_run
    nb = nbformat.read(path, as_version=4)
    boxes = [(i, c) for i, c in enumerate(nb.cells) if c.metadata.get("ensel", {}).get("figures")]
    assert len(boxes) == 2, "one box per shown figure, none for the removed cell"
    for i, box in boxes:
        before = nb.cells[i - 1]
        assert any("image/png" in o.get("data", {}) for o in before.outputs), "box under figure"
        assert box.source.startswith(":::{admonition} Reproduce this figure")
        assert box.metadata["tags"] == ["ensel-provenance"]
        assert "`ensel notebooks run demo --output demo`" in box.source
        assert f"`{_environment_digest(root)[:16]}`" in box.source
        assert "`ffffffffffffffff`" in box.source
        (entry,) = box.metadata["ensel"]["figures"]
        data = (path.parent / entry["csv"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        assert f"{{download}}`CSV <{entry['csv']}>`" in box.source
        assert entry["sha256"][:16] in box.source
    first = boxes[0][1].metadata["ensel"]["figures"][0]
    assert first["name"] == "fig-demo-line" and first["caption"] == "A line."
    rows = list(csv.DictReader(io.StringIO((path.parent / first["csv"]).read_text())))
    assert [float(r["y"]) for r in rows] == [0.5, 0.25, 0.125]
    assert boxes[1][1].metadata["ensel"]["figures"][0]["name"] == "demo-figure-2"
    assert not any(FIGURE_DATA_MIME in o.get("data", {}) for c in nb.cells
                   for o in c.get("outputs", [])), "the CSV is not left in the page"
    meta = nb.metadata["ensel"]
    assert meta["key"] == "f" * 64 and meta["parameters"] == {"n": 3}
    assert meta["command"] == "ensel notebooks run demo --output demo"
    assert meta["environment"] == _environment_digest(root)


def test_list_of_figures_and_runs_tables_from_the_runs(demo_run: tuple[Path, Path]) -> None:
    _, path = demo_run
    out = path.parent
    (out / "timings.json").write_text(json.dumps([{"output": "demo", "seconds": 4.2,
                                                   "status": "executed"}]))
    table = book_figures_table(out, objects=())
    assert "A line. · {ref}`view <fig-demo-line>`" in table
    assert "{download}`CSV </book/_generated/_figdata/demo/fig-demo-line.csv>`" in table
    assert table.count("{doc}`/book/_generated/demo`") == 2
    runs = runs_table(out)
    assert "| {doc}`/book/_generated/demo` | executed | 4.2 | `n=3` | 0.1.0" in runs
    assert "`ffffffff`" in runs
    # a build where the page was unchanged: the time of the execution that made it, as the
    # runner recorded it, never the 0.0 s it took to skip
    (out / "timings.json").write_text(json.dumps([{"output": "demo", "seconds": 0.0,
                                                   "status": "cached"}]))
    (out / "durations.json").write_text(json.dumps({"demo": 17.3}))
    # and the status of the page the execution made ("ok"), so that a build that changes
    # nothing leaves the page as it was
    assert "| {doc}`/book/_generated/demo` | ok | 17.3 | `n=3`" in runs_table(out)
    # a page the last invocation did not run (make run of another page) is still listed
    (out / "timings.json").write_text(json.dumps([{"output": "other", "seconds": 3.0,
                                                   "status": "ok"}]))
    assert "| {doc}`/book/_generated/demo` | – | 17.3 | `n=3`" in runs_table(out)
    (out / "durations.json").unlink()
    assert "| {doc}`/book/_generated/demo` | – | – | `n=3`" in runs_table(out)
    # a cold build and the build after it that changed nothing give the same table: the runs
    # ended in another order there, and were skipped, not executed
    cold = [{"output": "other", "seconds": 3.0, "status": "ok"},
            {"output": "demo", "seconds": 4.2, "status": "ok"}]
    (out / "timings.json").write_text(json.dumps(cold))
    (out / "durations.json").write_text(json.dumps({"demo": 4.2, "other": 3.0}))
    table = runs_table(out)
    (out / "timings.json").write_text(json.dumps(
        [{"output": t["output"], "seconds": 0.0, "status": "cached"} for t in cold[::-1]]))
    assert runs_table(out) == table and table.index("demo") < table.index("other")


def test_a_glued_figure_gets_its_runs_box_with_absolute_downloads(
        demo_run: tuple[Path, Path]) -> None:
    """The front page glues a figure from a run: the box shown under it is the run's own
    box, its download pointing into the output folder from any page."""
    _, path = demo_run
    box = figure_box(path.parent, "fig-demo-line")
    nb = nbformat.read(path, as_version=4)
    (own,) = [c.source for c in nb.cells
              if [f["name"] for f in c.metadata.get("ensel", {}).get("figures", [])]
              == ["fig-demo-line"]]
    assert box == own.replace("<_figdata/", "</book/_generated/_figdata/")
    assert "{download}`CSV </book/_generated/_figdata/demo/fig-demo-line.csv>`" in box
    assert box.startswith(":::{admonition} Reproduce this figure")
    with pytest.raises(LookupError, match="'fig-no-such'"):
        figure_box(path.parent, "fig-no-such")


def _numbers() -> list[tuple[str, str]]:
    if not NUMBERS.is_file():
        pytest.skip(f"{NUMBERS} is not here (the paper's numbers live beside the checkout)")
    rows = [line.split("\t") for line in NUMBERS.read_text().splitlines()[1:]]
    return [(r[0], r[1]) for r in rows if r[0] in ("Figure", "Table")]


def _fake_build(out: Path, labels: list[str]) -> None:
    """Executed pages that define ``labels`` (figures with their provenance metadata)."""
    out.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    for lab in labels:
        cell = nbformat.v4.new_code_cell("plot()")
        cell.metadata["mystnb"] = {"figure": {"name": lab, "caption": lab}}
        box = nbformat.v4.new_markdown_cell("box")
        box.metadata["ensel"] = {"figures": [{"name": lab, "label": lab, "caption": lab,
                                              "csv": f"_figdata/page/{lab}.csv",
                                              "sha256": "0" * 64}]}
        nb.cells += [cell, box]
    nbformat.write(nb, out / "page.ipynb")


def test_every_paper_figure_and_table_the_book_reproduces_is_in_the_list_of_figures(
        tmp_path: Path) -> None:
    objects = paper_map()
    by_number = {(o.kind, o.number): o for o in objects}
    numbers = _numbers()
    labels = sorted({lab for o in objects for lab in o.reproduced_by})
    assert labels, "the paper map names the book figures and tables that reproduce the paper's"
    _fake_build(tmp_path / "book" / "_generated", labels)
    table = paper_figures_table(tmp_path / "book" / "_generated", objects)
    rows = table.splitlines()[2:]
    reproduced = [(k, n) for k, n in numbers if (k, n) in by_number
                  and by_number[(k, n)].reproduced_by]
    assert reproduced, "the book reproduces figures and tables of the paper"
    for kind, number in reproduced:
        obj = by_number[(kind, number)]
        start = next((i for i, r in enumerate(rows) if r.startswith(f"| {kind} {number}: ")),
                     None)
        assert start is not None, f"{kind} {number} is not in the list of figures"
        block = rows[start:start + len(obj.reproduced_by)]
        for lab in obj.reproduced_by:
            # a figure linked by its number ("Fig. 12"), never with its label as the text
            assert any(f"{{numref}}`{lab}`" in r for r in block), (kind, number, lab)
    # a paper figure whose reproduction is not in this build says so instead of a broken link
    partial = paper_figures_table(tmp_path / "book" / "_generated", objects)
    _fake_build(tmp_path / "empty", [])
    empty = paper_figures_table(tmp_path / "empty", objects)
    assert "ref}" not in empty and "not in this build" in empty and partial != empty
