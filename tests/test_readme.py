"""The README's Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_examples_run(capsys) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert blocks, "the README has no Python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102
    out = capsys.readouterr().out
    assert "held-out error of the Greedy MI ensemble" in out
