"""The stamp check of the executed pages (tests/figure_stamps.py) finds a figure without the
stamp its data call for, and a stamp on a figure of real data."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402
from figure_stamps import expected_kinds, wrong_stamps  # noqa: E402

from ensel.book import protocol  # noqa: E402
from ensel.book.figures import figure_data  # noqa: E402


def _page(tmp_path: Path, output: str, figures: dict[str, str | bool]) -> Path:
    """A page as the runner leaves it: each figure's CSV beside it, named in the cell's box."""
    cells = []
    for name, kind in figures.items():
        protocol.mark_synthetic_figures(kind)
        fig, ax = plt.subplots()
        ax.plot([1, 2], [0.2, 0.1])
        csv = f"_figdata/{name}.csv"
        (tmp_path / "_figdata").mkdir(exist_ok=True)
        figure_data(fig).to_csv(tmp_path / csv, index=False)
        plt.close(fig)
        cell = nbformat.v4.new_markdown_cell("Reproduce this")
        cell.metadata["ensel"] = {"figures": [{"name": name, "csv": csv}]}
        cells.append(cell)
    protocol.mark_synthetic_figures(False)
    path = tmp_path / f"{output}.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def test_right_stamps_pass(tmp_path: Path) -> None:
    page = _page(tmp_path, "system_model", {"fig-system-error-counts": "simulated",
                                            "fig-system-bsc": "exact"})
    assert wrong_stamps("system_model", page) == []
    real = _page(tmp_path, "experiments-mmlu_pro", {"fig-experiments-mmlu_pro-map": False})
    assert wrong_stamps("experiments-mmlu_pro", real) == []


def test_missing_or_wrong_stamps_are_found(tmp_path: Path) -> None:
    page = _page(tmp_path, "theorem_4_4", {"fig-thm43-curves": False,
                                           "fig-thm43-floor": "simulated"})
    problems = wrong_stamps("theorem_4_4", page)
    assert len(problems) == 2
    assert "fig-thm43-curves carries no stamp; expected ['exact']" in problems[0]
    stand = _page(tmp_path, "experiments-mmlu", {"fig-experiments-mmlu-map": False})
    assert "expected ['stand-in']" in wrong_stamps("experiments-mmlu", stand)[0]
    real = _page(tmp_path, "experiments-llmbar", {"fig-experiments-llmbar-map": "exact"})
    assert "carries exact; expected none" in wrong_stamps("experiments-llmbar", real)[0]
    with pytest.raises(AssertionError, match="not in EXPECTED"):
        expected_kinds("system_model", "fig-system-new")
