"""Benchmark: ``ensel frontier`` on 1,000 models x 20,000 items with 20 budgets, and the
cascade's ``predict`` on 1 M queries (issue 30).

Run: ``.venv/bin/python benchmarks/bench_frontier.py [--m 1000] [--n 20000] [--budgets 20]
[--splits 2] [--jobs -1] [--queries 1000000]`` (``--jobs -1``, one forked process per core
over the splits, is the command's default). ``ENSEL_BENCH_TINY=1``: 40 models x 400
items, 3 budgets, 2,000 queries (see ``benchmarks/_bench.py``).

A seeded tidy Parquet file of ``m`` models x ``n`` items (one-factor Gaussian copula, latent
correlation 0.3, accuracies uniform in [0.55, 0.9], seed 1, as ``bench_select_large.py``)
and a price table by the budgets page's rule (:data:`ensel.book.budgets.POOL_PRICE_RULE`,
seed 1) are written once into a temporary folder. Then, each in its own child process:

1. :meth:`ensel.cascade.Cascade.predict` on ``--queries`` rows (the training answers tiled)
   of a cascade fitted on the first 80 % of the items (order of up to 20 models by gain per
   dollar, threshold 0.99): time of ``predict`` alone, the mean number of models asked, and
   the process's peak memory;
2. ``ensel frontier FILE --prices P --budgets 20 --splits S --jobs J --json
   [--no-cascade]``: wall time (process start included), CPU time and peak resident memory
   (``getrusage``).

The machine's load average is printed with the figures: wall times on a shared machine
vary with its load.

``--phases`` (always at the tiny size) also runs the command's steps in one process on one
thread and prints the CPU seconds of each: reading the table, each part of
:func:`ensel.frontier.frontier_errors` (every model alone, the static picks, their held-out
fits, the cascades) and :func:`ensel.frontier.frontier_summary` (its buy list), so that where
the time goes is measured, not guessed. These are not recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _bench import TINY, record, size

GENERATE = r"""
import sys
import numpy as np
import pandas as pd
from ensel.copula import sample_equicorrelated
from ensel.data import to_long
from ensel.book.budgets import pool_prices
m, n, path, prices = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
acc = np.random.default_rng(1).uniform(0.55, 0.9, m)
X, y, _ = sample_equicorrelated(acc, 0.3, m, n, random_state=1)
names = [f"model-{j:04d}" for j in range(m)]
to_long(X, y, models=names).to_parquet(path, index=False)
pd.DataFrame({"model": names, "usd_per_query": pool_prices(acc, random_state=1)}).to_csv(
    prices, index=False)
"""

MEASURE = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
res = subprocess.run(sys.argv[1:], capture_output=True, text=True)
dt = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": dt, "peak_mb": ru.ru_maxrss / 1024, "code": res.returncode,
                  "cpu": ru.ru_utime + ru.ru_stime, "out": res.stdout[-3000:],
                  "err": res.stderr[-400:]}))
"""

CASCADE = r"""
import json, resource, sys, time
import numpy as np
import pandas as pd
from ensel.cascade import Cascade
from ensel.experiment import condition_data
from ensel.costs import read_prices
path, prices, queries = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = condition_data(pd.read_parquet(path), validate=False)[0]
usd, _, _ = read_prices(prices).for_models(d.models)
ntr = int(0.8 * len(d.y))
t = time.perf_counter()
cas = Cascade(costs=usd, threshold=0.99, max_models=20).fit(d.X[:ntr], d.y[:ntr])
fit = time.perf_counter() - t
reps = -(-queries // ntr)
big = np.tile(d.X[:ntr], (reps, 1))[:queries]
t, c = time.perf_counter(), time.process_time()
pred, asked = cas.predict_with_cost(big)
dt, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"fit_seconds": fit, "predict_seconds": dt, "predict_cpu": cpu,
                  "queries": int(big.shape[0]),
                  "mean_asked": float(asked.mean()), "order_length": len(cas.order_),
                  "threshold": cas.threshold_,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


PHASES = r"""
import argparse, collections, json, sys, time
import ensel.budget as budget
from ensel.cascade import Cascade
from ensel.cli import frontier as cli
from ensel.cli._prices import prepare
spent, calls = collections.Counter(), collections.Counter()
def timed(owner, name, label):
    real = getattr(owner, name)
    def wrapper(*a, **k):
        t = time.process_time()
        try:
            return real(*a, **k)
        finally:
            spent[label] += time.process_time() - t
            calls[label] += 1
    setattr(owner, name, wrapper)
for name in ("single_rows", "alone_errors", "subset_error", "picks_within", "buy_list"):
    timed(budget, name, name)
timed(Cascade, "fit", "Cascade.fit")
timed(Cascade, "_run", "Cascade walk")
p = argparse.ArgumentParser()
cli.add_arguments(p)
args = p.parse_args(sys.argv[1:] + ["--jobs", "1", "--json"])
t0 = time.process_time()
def lap(label):
    global t0
    t = time.process_time()
    spent[label] += t - t0
    calls[label] += 1
    t0 = t
data, usd, dropped, source = prepare(args)
lap("read the table (prepare)")
from ensel.evidence import model_table
from ensel.frontier import best_single_price, budget_grid, frontier_errors, frontier_summary
from ensel.protocol import Protocol
from ensel.cli.select import table_rows
protocol = Protocol(n_splits=args.splits, seed=args.seed)
budgets = budget_grid(usd, args.budgets, max_models=args.max_models,
                      include=[best_single_price(data, usd)])
res = frontier_errors(data, usd, budgets, protocol=protocol, max_models=args.max_models,
                      n_jobs=1, singles=float(max(budgets)))
lap("frontier_errors")
frontier_summary(res, usd=usd, models=data[0].models, protocol=protocol,
                 model_table=table_rows(model_table(data, usd)))
lap("frontier_summary (and the model table)")
print(json.dumps({k: [spent[k], calls[k]] for k in spent}))
"""


def phases(path: str, prices: str, a: argparse.Namespace) -> None:
    """CPU seconds of each step of ``ensel frontier`` on one thread (see the module text)."""
    py = sys.executable
    out = subprocess.run([py, "-c", PHASES, path, "--prices", prices, "--budgets",
                          str(a.budgets), "--splits", str(a.splits)],
                         capture_output=True, text=True, check=True).stdout
    parts = json.loads(out.strip().splitlines()[-1])
    print(f"where the CPU goes (one thread) [load {os.getloadavg()[0]:.1f}]:")
    words = {"single_rows": "every model alone (single_rows)",
             "alone_errors": "every model alone, fitted at once (alone_errors)",
             "subset_error": "held-out fits of subsets (subset_error; alone ones refitted)",
             "picks_within": "static picks at each budget (picks_within)",
             "Cascade.fit": "cascade fits (order's prefixes, cross-fitted tuning)",
             "Cascade walk": "cascade walks on the test part", "buy_list": "buy list"}
    for label in ("read the table (prepare)", "frontier_errors", "single_rows",
                  "alone_errors", "subset_error", "picks_within", "Cascade.fit", "Cascade walk",
                  "frontier_summary (and the model table)", "buy_list"):
        if label in parts:
            sec, n = parts[label]
            print(f"  {'  - ' if label in words else ''}{words.get(label, label)}: "
                  f"{sec:.2f} s CPU ({n} calls)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=size(1000, 40))
    ap.add_argument("--n", type=int, default=size(20000, 400))
    ap.add_argument("--budgets", type=int, default=size(20, 3))
    ap.add_argument("--splits", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--queries", type=int, default=size(1_000_000, 2000))
    ap.add_argument("--skip-frontier", action="store_true")
    ap.add_argument("--phases", action="store_true",
                    help="also print the CPU seconds of each step on one thread")
    ap.add_argument("--no-cascade", action="store_true",
                    help="ensel frontier without the cascade arm (it fits one cascade per "
                         "budget and split)")
    a = ap.parse_args()
    py = sys.executable
    ensel = str(Path(py).with_name("ensel"))
    with tempfile.TemporaryDirectory() as tmp:
        path, prices = os.path.join(tmp, "answers.parquet"), os.path.join(tmp, "prices.csv")
        subprocess.run([py, "-c", GENERATE, str(a.m), str(a.n), path, prices], check=True)
        print(f"load average {os.getloadavg()[0]:.1f}; {a.m} models x {a.n} items")
        r = json.loads(subprocess.run([py, "-c", CASCADE, path, prices, str(a.queries)],
                                      capture_output=True, text=True, check=True).stdout)
        print(f"Cascade: fit {r['fit_seconds']:.1f} s (order of {r['order_length']}, "
              f"threshold {r['threshold']}); predict on {r['queries']:,} queries "
              f"{r['predict_seconds']:.2f} s ({r['predict_cpu']:.2f} s CPU), {r['mean_asked']:.2f} "
              "models asked on average; "
              f"peak {r['peak_mb'] / 1024:.2f} GB [load {os.getloadavg()[0]:.1f}]")
        record(f"Cascade.predict on {r['queries']:,} queries x {a.m:,} models (order of "
               f"{r['order_length']}, threshold {r['threshold']})", r["predict_seconds"],
               "s", "<= 2 s")
        if not a.skip_frontier:
            cmd = [ensel, "frontier", path, "--prices", prices, "--budgets", str(a.budgets),
                   "--splits", str(a.splits), "--jobs", str(a.jobs), "--json",
                   *(["--no-cascade"] if a.no_cascade else [])]
            r = json.loads(subprocess.run([py, "-c", MEASURE, *cmd], capture_output=True,
                                          text=True, check=True).stdout)
            if r["code"] != 0:
                print("frontier failed:", r["err"])
                return 1
            what = "without" if a.no_cascade else "with"
            print(f"ensel frontier ({what} the cascade), {a.budgets} budgets, {a.splits} "
                  f"splits, --jobs {a.jobs}: "
                  f"{r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU, peak "
                  f"{r['peak_mb'] / 1024:.2f} GB [load {os.getloadavg()[0]:.1f}]")
            what = f"ensel frontier, {a.m:,} models x {a.n:,} items, {a.budgets} budgets, " + (
                "no cascade" if a.no_cascade else "cascade included")
            record(f"{what}: wall", r["seconds"], "s", "<= 10 s")
            record(f"{what}: CPU", r["cpu"], "s")
            record(f"{what}: peak memory", r["peak_mb"] / 1024, "GB", "<= 1 GB")
        if a.phases or TINY:
            phases(path, prices, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
