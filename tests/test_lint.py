"""The code is ruff clean (the style rules are in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    paths = [p for p in ("ensel", "tests", "benchmarks", "notebooks") if (ROOT / p).exists()]
    proc = subprocess.run([ruff, "check", *paths], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
