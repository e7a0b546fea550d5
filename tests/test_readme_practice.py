"""The README's "Your own models" commands run as written (in a scratch folder)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Your own models", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, re.DOTALL)


def _run(block: str, cwd: Path) -> subprocess.CompletedProcess:
    # the README's paths are relative to the repository: give the scratch folder the same view
    (cwd / "tests").symlink_to(ROOT / "tests")
    (cwd / ".venv").symlink_to(Path(sys.executable).parents[1])
    return subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_readme_select_example_runs(tmp_path) -> None:
    blocks = _blocks()
    assert len(blocks) == 2, "expected the import/select block and the evaluate block"
    res = _run(blocks[0], tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "my_answers.parquet").is_file()
    assert "paired differences" in res.stdout
    doc = json.loads((tmp_path / "picks.json").read_text())
    assert doc["schema"] == "ensel.select/2" and doc["k_mode"] == "auto"


@pytest.mark.notebooks
def test_readme_evaluate_example_runs(tmp_path) -> None:
    blocks = _blocks()
    res = _run(blocks[0] + "\n" + blocks[1], tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "report.html").is_file() and (tmp_path / "report.ipynb").is_file()
