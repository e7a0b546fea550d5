"""Benchmark: selection on a pool of a thousand models (issue "your own models").

Run: ``.venv/bin/python benchmarks/bench_select_cli.py [--m 1000] [--n 20000] [--k 20]``

Two measurements, each in a fresh child process (so the peak resident memory is its own):

1. ``greedy_mi``: ``ensel.select.greedy_mi(X, y, k)`` with ``m`` models, ``n`` items and
   budget ``k`` (targets: under 5 s and under 2 GB). ``X`` comes from a one-factor Gaussian
   copula (latent correlation 0.3, accuracies uniform in [0.55, 0.9], seed 0); the time
   excludes sampling.
2. ``ensel select``: the command end to end (process start, reading a tidy Parquet file of
   ``m`` models x ``--select-n`` items, validation, the final picks, 20 random 80/20 splits
   with Greedy MI, Top-k and the best single model, intervals, the table) on
   ``ensel select FILE -k 10`` (target: under 15 s).

Wall-clock times on a shared machine vary with its load; the script prints the figures and
whether each target is met, and exits 1 when one is missed. ``ENSEL_BENCH_TINY=1``: 30 models
x 500 items (200 for ``ensel select``), k = 5 (3), the targets not judged (see
``benchmarks/_bench.py``).
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

from _bench import judged, size, verdict

CHILD_GREEDY = r"""
import json, resource, sys, time
import numpy as np
from ensel.copula import sample_equicorrelated
from ensel.select import greedy_mi
m, n, k = map(int, sys.argv[1:4])
acc = np.random.default_rng(0).uniform(0.55, 0.9, m)
X, y, _ = sample_equicorrelated(acc, 0.3, m, n, random_state=0)
t = time.perf_counter()
picks = greedy_mi(X, y, k)
dt = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": dt, "peak_mb": rss, "picks": picks[:5]}))
"""


def _write_pool(path: Path, m: int, n: int) -> None:
    import numpy as np

    from ensel.copula import sample_equicorrelated
    from ensel.data import to_long

    acc = np.random.default_rng(1).uniform(0.55, 0.9, m)
    X, y, _ = sample_equicorrelated(acc, 0.3, m, n, random_state=1)
    to_long(X, y, models=[f"model-{j:04d}" for j in range(m)]).to_parquet(path, index=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=size(1000, 30))
    ap.add_argument("--n", type=int, default=size(20_000, 500))
    ap.add_argument("--k", type=int, default=size(20, 5))
    ap.add_argument("--select-n", type=int, default=size(2000, 200),
                    help="items of the file given to ensel select")
    ap.add_argument("--select-k", type=int, default=size(10, 3))
    args = ap.parse_args()
    ok = True

    out = subprocess.run([sys.executable, "-c", CHILD_GREEDY, str(args.m), str(args.n),
                          str(args.k)], capture_output=True, text=True, check=True)
    g = json.loads(out.stdout)
    met = g["seconds"] < 5 and g["peak_mb"] < 2048
    ok &= judged(met)
    print(f"greedy_mi m={args.m} n={args.n} k={args.k}: {g['seconds']:.2f} s, peak RSS "
          f"{g['peak_mb']:.0f} MB (process incl. data) -> target <5 s, <2 GB: "
          f"{verdict(met)}")

    ensel = Path(sys.executable).with_name("ensel")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pool.parquet"
        _write_pool(path, args.m, args.select_n)
        t = time.perf_counter()
        res = subprocess.run([str(ensel), "select", str(path), "-k", str(args.select_k)],
                             capture_output=True, text=True,
                             env={**os.environ, "PYTHONWARNINGS": "ignore"})
        dt = time.perf_counter() - t
    if res.returncode != 0:
        print(res.stderr)
        return 1
    met = dt < 15
    ok &= judged(met)
    print(f"ensel select on {args.m} models x {args.select_n} items, -k {args.select_k}, "
          f"20 splits: {dt:.2f} s end to end -> target <15 s: {verdict(met)}")
    print(res.stdout.strip().splitlines()[-1])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
