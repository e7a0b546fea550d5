"""Benchmark: the README's two commands from a fresh clone (issue "lean and fast").

Run: ``.venv/bin/python benchmarks/bench_build.py [--jobs 2]`` (about 15 minutes on 2 cores)

In a fresh ``git clone`` of this repository's committed ``HEAD`` (in a temporary folder,
removed afterwards), one after the other, as a new reader would:

1. ``make env``: the virtual environment (reported, not judged: it depends on the package
   index and its cache).
2. ``make test``: wall time (target: within 5 minutes) and CPU time of the command and all it
   started (target: within 10 CPU-minutes).
3. ``make book``: the page runs, every page executed on a cold clone with ``JOBS`` at
   once, as the runner reports them (target: within 3 minutes), and the whole command
   (pages, HTML, PDF where Chromium is installed).
4. ``make book`` again, nothing changed (target: within 20 seconds).

The environment is this process's (``ENSEL_DATA_MIRROR``, the data cache), so the clone
executes the same pages as a build here. Wall-clock times vary with the machine's load: the
script prints each figure with the load average and whether its target is met, and exits 1
when one is missed or a command fails. ``ENSEL_BENCH_TINY=1``: the same steps with commands
of a second or two each (the current interpreter instead of ``make env``, one small test
file, the table of contents instead of the pages), the targets not judged (see
``benchmarks/_bench.py``).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench import TINY, judged, record, verdict

ROOT = Path(__file__).resolve().parents[1]

#: The runner's closing line: "37 run(s): 37 executed, ... 192.8 s wall time with 2 job(s)".
RUNS_LINE = re.compile(r"(\d+) run\(s\): (\d+) executed, .*?([\d.]+) s wall time with (\d+) job")


def _step(name: str, argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float,
                                                                                 str]:
    """Run ``argv`` in ``cwd``: its wall seconds, the CPU seconds of it and all it started
    (and waited for), and its output; a failure ends the benchmark with the output's tail."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"{name}: {' '.join(argv)} exited {proc.returncode}:\n{proc.stdout[-3000:]}")
    return wall, cpu, proc.stdout


def _commands(jobs: int) -> dict[str, list[str]]:
    """The command of each step: the README's, or their tiny stand-ins."""
    if TINY:
        py = sys.executable
        return {"env": [py, "-c", "import ensel"],
                "test": [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                         "tests/test_pools.py"],
                "book": [py, "-m", "ensel.book.runner", "toc"]}
    return {"env": ["make", "env"], "test": ["make", "test"],
            "book": ["make", "book", f"JOBS={jobs}"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="make book's JOBS (default 2)")
    args = ap.parse_args()
    cmd = _commands(args.jobs)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ENSEL_BENCH", "VIRTUAL_ENV", "MAKE"))}
    ok = True
    with tempfile.TemporaryDirectory(prefix="ensel-bench-build-") as tmp:
        clone = Path(tmp) / "ensel"
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)],
                       check=True, stdin=subprocess.DEVNULL)
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=clone,
                                check=True, capture_output=True, text=True).stdout.strip()
        if TINY:  # the clone's ensel, with this interpreter
            env["PYTHONPATH"] = str(clone)
        print(f"fresh clone of {commit} in {clone}; load {os.getloadavg()[0]:.1f}")

        wall, _, _ = _step("make env", cmd["env"], clone, env)
        print(f"make env: {wall:.0f} s (not judged: the package index and its cache)")

        wall, cpu, out = _step("make test", cmd["test"], clone, env)
        passed = re.findall(r"(\d+) passed", out)
        met = wall <= 300 and cpu <= 600
        ok &= judged(met)
        print(f"make test: {wall:.0f} s wall, {cpu / 60:.1f} CPU-min "
              f"({passed[-1] if passed else '?'} passed) -> target <= 5 min, <= 10 CPU-min: "
              f"{verdict(met)}")
        record("make test from a fresh clone: wall", wall, "s", "<= 300 s")
        record("make test from a fresh clone: CPU of it and all it started", cpu / 60, "min",
               "<= 10 min")

        wall, _, out = _step("make book", cmd["book"], clone, env)
        runs = RUNS_LINE.search(out)
        if runs is None and not TINY:
            sys.exit("make book: the runner's closing line '... s wall time with N job(s)' "
                     f"is missing:\n{out[-3000:]}")
        if runs is not None:
            pages = float(runs.group(3))
            met = pages <= 180
            ok &= judged(met)
            print(f"make book, cold: {runs.group(2)} page runs in {pages:.1f} s with "
                  f"{runs.group(4)} jobs -> target <= 180 s: {verdict(met)}")
            record(f"make book from a fresh clone: the {runs.group(2)} page runs, "
                   f"{runs.group(4)} jobs", pages, "s", "<= 180 s")
        pdf = "PDF" if shutil.which("chromium") else "no PDF: Chromium is not installed"
        print(f"make book, cold, the whole command: {wall:.0f} s (pages, HTML, {pdf})")
        record(f"make book from a fresh clone, the whole command ({pdf})", wall, "s")

        wall, _, _ = _step("make book, again", cmd["book"], clone, env)
        met = wall <= 20
        ok &= judged(met)
        print(f"make book, nothing changed: {wall:.1f} s -> target <= 20 s: {verdict(met)}")
        record("make book, nothing changed", wall, "s", "<= 20 s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
