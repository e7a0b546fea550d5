"""Every benchmark script runs, at its tiny size, so that a moved or renamed function breaks
the test suite instead of a benchmark nobody runs (``bench_select_large.py`` once imported
``read_data`` from a module that no longer held it).

Each ``benchmarks/bench_*.py`` runs in its own process with ``ENSEL_BENCH_TINY=1``
(``benchmarks/_bench.py``): the same code path at a size of a second or two, its
comparisons with reference implementations still checked (the script exits 1 when they
disagree), its time targets printed but not judged. No timing is asserted here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))


def test_there_are_benchmarks_and_each_honours_the_tiny_size() -> None:
    assert len(SCRIPTS) >= 10, [p.name for p in SCRIPTS]
    for path in SCRIPTS:  # a script that ignores the tiny size would run at full size here
        assert "from _bench import" in path.read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_benchmark_runs_at_tiny_size(script: Path, tmp_path: Path) -> None:
    env = {**os.environ, "ENSEL_BENCH_TINY": "1", "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    assert proc.stdout.strip(), proc.stderr[-2000:]  # it reported its figures
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "MISSED" not in proc.stdout  # the tiny size judges no target
    assert list(tmp_path.iterdir()) == []  # it cleaned up what it wrote
