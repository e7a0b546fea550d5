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


def test_the_record_keeps_each_figure_a_script_records_and_renders_the_readme_table(
        tmp_path: Path, monkeypatch) -> None:
    """tools/benchrecord.py (make bench): each script runs in its own process, the figures it
    passes to _bench.record land in the record with the machine, the date and the load, the
    scripts left out are named with why, and the README's block is rewritten between its
    markers only."""
    from tools import benchrecord

    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "_bench.py").write_text((BENCHMARKS / "_bench.py").read_text())
    (folder / "bench_fake.py").write_text(
        "from _bench import record\n"
        "record('fake sum of 10 numbers', 1.25, 's', '< 2 s')\n"
        "record('fake peak memory', 0.5, 'GB')\n")
    (folder / "bench_heavy.py").write_text("raise SystemExit('never run')\n")
    monkeypatch.setattr(benchrecord, "BENCHMARKS", folder)
    monkeypatch.delenv("ENSEL_BENCH_TINY", raising=False)
    record = benchrecord.run(["fake"], {"heavy": "too heavy for a shared machine"})
    assert [s["script"] for s in record["scripts"]] == ["fake"]
    assert record["scripts"][0]["exit"] == 0
    assert [(f["figure"], f["value"], f["unit"], f["target"], f["tiny"])
            for f in record["figures"]] == [("fake sum of 10 numbers", 1.25, "s", "< 2 s", False),
                                            ("fake peak memory", 0.5, "GB", "", False)]
    assert record["left_out"] == {"heavy": "too heavy for a shared machine"}
    assert record["machine"]["cores"] == os.cpu_count() and "UTC" in record["date"]
    table = benchrecord.render(record)
    assert "| fake sum of 10 numbers (`fake`) | 1.25 s | < 2 s |" in table
    assert "`heavy` (too heavy for a shared machine)" in table
    readme = f"# x\n\nbefore\n{benchrecord.BEGIN}\nold table\n{benchrecord.END}\nafter\n"
    new = benchrecord.replace_block(readme, table)
    assert new.startswith("# x\n\nbefore\n") and new.endswith(f"{benchrecord.END}\nafter\n")
    assert benchrecord.readme_block(new) == table and "old table" not in new
    with pytest.raises(benchrecord.BenchUsageError, match="bench:end"):
        benchrecord.replace_block("# no markers\n", table)
    with pytest.raises(benchrecord.BenchUsageError, match="unknown benchmark.*nope"):
        benchrecord.run(["nope"])
    # make bench BENCH=heavy: its entry joins the record, the other scripts' figures stay
    merged = benchrecord.merge(record, benchrecord.run(["heavy"]))
    assert [(s["script"], s["exit"]) for s in merged["scripts"]] == [("fake", 0), ("heavy", 1)]
    assert merged["figures"] == record["figures"] and merged["left_out"] == {}
    again = benchrecord.merge(record, benchrecord.run(["fake"]))  # heavy: not run this time
    assert again["left_out"] == {"heavy": "too heavy for a shared machine"}  # the reason stays
    assert "Exited with an error (a missed target or a failure): `heavy`." in \
        benchrecord.render(merged)


def test_the_record_refuses_the_tiny_size(monkeypatch, capsys) -> None:
    from tools import benchrecord

    monkeypatch.setenv("ENSEL_BENCH_TINY", "1")
    assert benchrecord.main(["run", "--only", "aggregate"]) == 2
    assert "ENSEL_BENCH_TINY is set" in capsys.readouterr().err
    monkeypatch.delenv("ENSEL_BENCH_TINY")
    assert benchrecord.main(["run", "--leave-out", "frontier"]) == 2
    assert "expected NAME=WHY" in capsys.readouterr().err
