"""The code is ruff clean (the style rules are in pyproject.toml) and has no function over
150 lines."""

from __future__ import annotations

import ast
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


#: The longest function (``def`` line to last line, docstring included) the house accepts.
MAX_FUNCTION_LINES = 150


def long_functions(paths: list[Path], root: Path = ROOT,
                   limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``file:line name (n lines)`` for every function or method longer than ``limit``."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({n} lines)")
    return found


def test_no_function_over_150_lines() -> None:
    paths = sorted(p for d in ("ensel", "tools", "book/_ext") if (ROOT / d).exists()
                   for p in (ROOT / d).rglob("*.py"))
    assert any(p.name == "evidence.py" for p in paths)
    assert long_functions(paths) == [], "split these into phases"


def test_long_functions_finds_a_long_one(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f"def short():\n    pass\n\n\ndef long():\n{body}\n")
    assert long_functions([tmp_path / "long.py"], tmp_path) == ["long.py:5 long (151 lines)"]
