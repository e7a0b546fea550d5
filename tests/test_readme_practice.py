"""The README's quickstart commands run as written, in a scratch folder that holds what a
user would have there: lm-evaluation-harness logs (the small ones of ``tests/data/``),
an answers table and a price table (the User guide's seeded stand-in,
:func:`ensel.book.guide.example`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _blocks() -> dict[str, str]:
    """The quickstart's bash blocks, by the ``ensel`` command of their first line."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Five minutes on your own answers", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    return {b.split()[1] + ("-budget" if "--budget-usd" in b else ""): b for b in blocks}


def _run(block: str, cwd: Path) -> subprocess.CompletedProcess:
    # `ensel` on the PATH, as after `pip install .`
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "PATH": path}
    return subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def _user_folder(tmp_path: Path) -> Path:
    from ensel.book.guide import example

    answers, prices = example()
    answers.to_parquet(tmp_path / "answers.parquet", index=False)
    prices.to_csv(tmp_path / "prices.csv", index=False)
    return tmp_path


def test_the_quickstart_has_the_blocks_tested_here() -> None:
    assert sorted(_blocks()) == ["import", "report", "select", "select-budget"]


def test_readme_import_example_runs(tmp_path) -> None:
    (tmp_path / "logs").symlink_to(ROOT / "tests" / "data" / "lm_eval")
    res = _run(_blocks()["import"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "answers.parquet").is_file()


def test_readme_select_example_runs(tmp_path) -> None:
    res = _run(_blocks()["select"], _user_folder(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "chosen by nested cross-validation" in res.stdout
    assert "paired differences" in res.stdout


def test_readme_budget_example_runs(tmp_path) -> None:
    res = _run(_blocks()["select-budget"], _user_folder(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "USD per query" in res.stdout
    assert (tmp_path / "frontier.png").is_file()


@pytest.mark.notebooks
def test_readme_report_example_runs(tmp_path) -> None:
    res = _run(_blocks()["report"], _user_folder(tmp_path))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "report.html").is_file()
