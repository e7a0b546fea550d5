"""Benchmark: how fast ``ensel evaluate`` refuses bad input (issue 28: "fails in under a
second with the same messages as ``ensel select``").

Run: ``.venv/bin/python benchmarks/bench_refusal.py [--reps 15]``

Each refusal runs as a user runs it, the ``ensel`` program in its own process, ``--reps``
times; the script prints the median, the fastest and the slowest wall time. Two references
run the same way: an empty Python (``python -c pass``: the interpreter's start) and
``python -c "import pandas"`` (the floor of any refusal that reads the data: ensel reads
every table with pandas). Refusals of the arguments alone (``--splits 1``, ``--ks 0-2``)
come before the data are read and need neither. Target: every median under 1 s; the script
exits 1 when one is missed (wall times on a shared machine vary with its load), or when a
refusal exits other than 2. ``ENSEL_BENCH_TINY=1``: one run each, the target not judged (see
``benchmarks/_bench.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench import judged, record, size, verdict

TARGET_S = 1.0


def _tables() -> dict[str, str]:
    """Four small tidy tables: valid, too few items, one label class, one model."""
    head = "item,model,answer,label\n"
    valid = head + "".join(f"q{i},{m},{1 if (i + j) % 3 else -1},{1 if i < 6 else -1}\n"
                           for i in range(10) for j, m in enumerate("ab"))
    return {
        "valid.csv": valid,
        "few.csv": head + "q1,a,1,1\nq1,b,1,1\nq2,a,-1,-1\nq2,b,1,-1\n",
        "one_class.csv": head + "".join(f"q{i},{m},{1 if (i + j) % 3 else -1},1\n"
                                        for i in range(10) for j, m in enumerate("ab")),
        "one_model.csv": head + "".join(f"q{i},a,{1 if i % 3 else -1},{1 if i % 2 else -1}\n"
                                        for i in range(10)),
    }


CASES = {
    "--splits 1 (arguments)": ["evaluate", "valid.csv", "-o", "r.html", "--splits", "1"],
    "--ks 0-2 (arguments)": ["evaluate", "valid.csv", "-o", "r.html", "--ks", "0-2"],
    "too few items": ["evaluate", "few.csv", "-o", "r.html"],
    "one label class": ["evaluate", "one_class.csv", "-o", "r.html"],
    "one model": ["evaluate", "one_model.csv", "-o", "r.html"],
    "unknown dataset": ["evaluate", "no_such_dataset", "-o", "r.html"],
    "ensel select, too few items": ["select", "few.csv", "-k", "2"],
}


def _times(argv: list[str], cwd: Path, reps: int, code: int) -> list[float]:
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
        out.append(time.perf_counter() - t)
        if proc.returncode != code:
            raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}, expected {code}: "
                             f"{proc.stderr.strip()[-300:]}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=size(15, 1))
    args = ap.parse_args()
    ensel = shutil.which("ensel", path=str(Path(sys.executable).parent)) or "ensel"
    print(f"load average {os.getloadavg()[0]:.2f}; {args.reps} runs each; wall s: "
          "median [fastest-slowest]")
    missed, medians = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        for name, text in _tables().items():
            (cwd / name).write_text(text, encoding="utf-8")
        floor = {}
        for name, code in (("python -c pass", "pass"), ('python -c "import pandas"',
                                                         "import pandas")):
            ts = _times([sys.executable, "-c", code], cwd, args.reps, 0)
            floor[name] = statistics.median(ts)
            print(f"  reference {name:36s} {floor[name]:.2f} [{min(ts):.2f}-{max(ts):.2f}]")
        pandas_floor = floor['python -c "import pandas"']
        for name, argv in CASES.items():
            ts = _times([ensel, *argv], cwd, args.reps, 2)
            med = statistics.median(ts)
            medians.append(med)
            missed += not judged(med < TARGET_S)
            print(f"  {name:46s} {med:.2f} [{min(ts):.2f}-{max(ts):.2f}]  "
                  f"{med / pandas_floor:.2f} x import pandas  "
                  f"{verdict(med < TARGET_S, 'ok')} (< {TARGET_S:g} s)")
    record(f"ensel evaluate refusing bad input: the slowest of {len(medians)} cases "
           f"(median of {args.reps} runs each)", max(medians), "s", f"< {TARGET_S:g} s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
