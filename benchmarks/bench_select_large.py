"""Benchmark: ``ensel select`` end to end on 1,000 models x 20,000 items (issue 19).

Run: ``.venv/bin/python benchmarks/bench_select_large.py [--m 1000] [--n 20000] [--no-old]``

A seeded tidy Parquet file of ``m`` models x ``n`` items (one-factor Gaussian copula,
latent correlation 0.3, accuracies uniform in [0.55, 0.9], seed 1; ``ensel.copula``) is
written once into a temporary folder. Each measurement runs in its own child process, in
the caller's environment (as a user runs it: ``ensel select`` spreads its splits over one
thread per core, pyarrow reads with its own threads), and its wall time (process start
included), CPU time (user + system, all threads) and peak resident memory (``getrusage`` of
that child) are printed:

1. ``ensel select FILE -k 10``   (targets: <= 5 s and <= 1.5 GB on an idle machine)
2. ``ensel select FILE -k 10 --jobs 1`` (no target: the same on one thread)
3. ``ensel select FILE -k auto`` (target: <= 20 s)
4. the phases of (2) in one process: imports, reading (+ validation), the pivot
   (:func:`ensel.experiment.condition_data`), and everything after the pivot
   (:func:`ensel.evidence.run_select` on the pivoted data: picks, splits, halvings,
   intervals), so the command line's own part is visible apart from ingestion;
5. the old code path (``ensel/practice.py`` as of commit ``4589f2c``, before the command
   line was rebuilt on the library), on the same file, ``-k 10`` and ``-k auto``, when git
   can show it (``--no-old`` skips it: about 80 s).

The machine's load average is printed with the figures: wall times on a shared machine
vary with its load. The targets are judged on the wall time (and the peak memory); exit
status 1 when one is missed. ``ENSEL_BENCH_TINY=1``: 30 models x 300 items, ``-k 3`` and
``-k auto --max-k 3``, 3 splits and 2 halvings, without the old code path, the targets not
judged (see ``benchmarks/_bench.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench import TINY, judged, record, size, verdict

ROOT = Path(__file__).resolve().parents[1]
#: ``-k`` of the fixed runs, and the options every run adds (smaller work at the tiny size).
K = size("10", "3")
SMALL = size([], ["--splits", "3", "--halvings", "2", "--max-k", "3"])
OLD_COMMIT = "4589f2c"

GENERATE = r"""
import sys
import numpy as np
from ensel.copula import sample_equicorrelated
from ensel.data import to_long
m, n, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
acc = np.random.default_rng(1).uniform(0.55, 0.9, m)
X, y, _ = sample_equicorrelated(acc, 0.3, m, n, random_state=1)
to_long(X, y, models=[f"model-{j:04d}" for j in range(m)]).to_parquet(path, index=False)
"""

MEASURE = r"""
import json, os, resource, subprocess, sys, time
t = time.perf_counter()
res = subprocess.run(sys.argv[1:], capture_output=True, text=True)
dt = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = ru.ru_maxrss / 1024
print(json.dumps({"seconds": dt, "peak_mb": peak, "code": res.returncode,
                  "cpu": ru.ru_utime + ru.ru_stime,
                  "last": (res.stdout.strip().splitlines() or [""])[-1],
                  "err": res.stderr[-400:]}))
"""

PHASES = r"""
import os
os.environ.update({"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
import json, sys, time
t0 = time.perf_counter()
from ensel.datasets import read_data
from ensel.experiment import condition_data
from ensel.evidence import run_select
t1 = time.perf_counter()
df = read_data(sys.argv[1])
t2 = time.perf_counter()
data = condition_data(df, validate=False)
t3 = time.perf_counter()
c3 = time.process_time()
doc = run_select(data, k=int(sys.argv[2]), **json.loads(sys.argv[3]))
t4 = time.perf_counter()
cpu = time.process_time() - c3
print(json.dumps({"imports": t1 - t0, "read": t2 - t1, "pivot": t3 - t2,
                  "after_pivot": t4 - t3, "after_pivot_cpu": cpu, "defaults": doc["defaults"]}))
"""

OLD = r"""
import sys
sys.path.insert(0, sys.argv[1])
import old_practice
sys.exit(old_practice.select_main(sys.argv[2:]))
"""


def _measure(cmd: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return json.loads(out.stdout)


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def _report(label: str, r: dict, target_s: float | None, target_mb: float | None) -> bool:
    ok = r["code"] == 0
    if ok and target_s is not None:
        record(f"{label}: wall", r["seconds"], "s", f"<= {target_s:g} s")
        record(f"{label}: peak memory", r["peak_mb"] / 1024, "GB",
               f"<= {target_mb / 1024:g} GB" if target_mb else "")
    met = ok and judged((target_s is None or r["seconds"] <= target_s)
                        and (target_mb is None or r["peak_mb"] <= target_mb))
    targets = ", ".join(t for t in (f"<= {target_s:g} s" if target_s else "",
                                    f"<= {target_mb / 1024:g} GB" if target_mb else "") if t)
    said = f" -> target {targets}: {verdict(met)}" if targets else ""
    print(f"{label}: {r['seconds']:.2f} s wall ({r['cpu']:.2f} s CPU), peak RSS "
          f"{r['peak_mb']:.0f} MB{said} (load average {_load()})")
    if not ok:
        print(f"   failed (exit {r['code']}): {r['err']}")
    elif r["last"]:
        print(f"   {r['last'][:150]}")
    return met or target_s is None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=size(1000, 30))
    ap.add_argument("--n", type=int, default=size(20_000, 300))
    ap.add_argument("--no-old", action="store_true", default=TINY,
                    help="skip the old code path (skipped at the tiny size)")
    args = ap.parse_args()
    ensel = [sys.executable, "-m", "ensel"]
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-select-") as tmp:
        path = Path(tmp) / "pool.parquet"
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", GENERATE, str(args.m), str(args.n), str(path)],
                       check=True)
        print(f"pool: {args.m} models x {args.n} items ({args.m * args.n:,} answers), "
              f"{path.stat().st_size / 1e6:.1f} MB Parquet, written in "
              f"{time.perf_counter() - t:.1f} s")
        select = [*ensel, "select", str(path), *SMALL]
        pool = f"{args.m:,} models x {args.n:,} items"
        ok &= _report(f"ensel select -k {K}, {pool}", _measure([*select, "-k", K]), 5, 1536)
        _report(f"ensel select -k {K} --jobs 1 (new, one thread)",
                _measure([*select, "-k", K, "--jobs", "1"]), None, None)
        ok &= _report(f"ensel select -k auto, {pool}", _measure([*select, "-k", "auto"]), 20,
                      1536)
        small = {"n_splits": 3, "halvings": 2} if SMALL else {}
        ph = subprocess.run([sys.executable, "-c", PHASES, str(path), K, json.dumps(small)],
                            capture_output=True, text=True, check=True)
        p = json.loads(ph.stdout)
        print(f"phases of -k {K} in one process: imports {p['imports']:.2f} s, read + validate "
              f"{p['read']:.2f} s, pivot {p['pivot']:.2f} s, after the pivot (picks, "
              f"splits, halvings, intervals) {p['after_pivot']:.2f} s "
              f"({p['after_pivot_cpu']:.2f} s CPU); defaults: "
              f"{'; '.join(p['defaults'])} (load average {_load()})")
        if not args.no_old:
            src = subprocess.run(["git", "-C", str(ROOT), "show",
                                  f"{OLD_COMMIT}:ensel/practice.py"],
                                 capture_output=True, text=True)
            if src.returncode != 0:
                print(f"old code path: not available ({src.stderr.strip()[:100]})")
            else:
                (Path(tmp) / "old_practice.py").write_text(src.stdout)
                old = [sys.executable, "-c", OLD, tmp]
                for k in ("10", "auto"):
                    _report(f"old ensel select -k {k} ({OLD_COMMIT})",
                            _measure([*old, str(path), "-k", k]), None, None)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
