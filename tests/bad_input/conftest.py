"""Shared helpers of the bad-input suite: run the command line, assert one clear error.

Every case asserts either the correct result or exit code 2 with exactly one line on
stderr that starts with ``ensel <command>: error:`` and names the file, line, column or
parameter at fault, and never a traceback.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_cli(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> Result:
    """``ensel ARGV`` in this process (fast); SystemExit is turned into its code."""
    from ensel.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse and friends
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    captured = capsys.readouterr()
    return Result(int(code), captured.out, captured.err)


def run_subprocess(argv: Sequence[str], *, cwd: Path | None = None,
                   env: dict[str, str] | None = None) -> Result:
    """``python -m ensel ARGV`` in a fresh process (for what only a real process shows)."""
    proc = subprocess.run([sys.executable, "-m", "ensel", *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def assert_usage_error(result: Result, command: str, *fragments: str) -> str:
    """Exit 2, one stderr line ``ensel <command>: error: ...`` holding every fragment."""
    assert "Traceback" not in result.err, result.err
    lines = [line for line in result.err.splitlines() if line.strip()]
    # argparse prints a usage line first; the error itself must be a single line
    errors = [line for line in lines if line.startswith(f"ensel {command}: error:")]
    assert result.code == 2, (result.code, result.err)
    assert len(errors) == 1, result.err
    assert not [line for line in lines if line not in errors and not line.startswith("usage:")
                and not line.startswith(" ")], result.err
    for fragment in fragments:
        assert fragment in errors[0], (fragment, errors[0])
    return errors[0]
