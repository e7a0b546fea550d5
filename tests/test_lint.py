"""The code is ruff clean (the style rules are in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    candidates = ("ensel", "tests", "benchmarks", "notebooks", "book/_ext", "tools")
    paths = [p for p in candidates if (ROOT / p).exists()]
    proc = subprocess.run([ruff, "check", *paths], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
