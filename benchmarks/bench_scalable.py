"""Benchmark: ensel's selector for large pools (``score_mi``) against the paper's ``greedy_mi``.

Run: ``.venv/bin/python benchmarks/bench_scalable.py [--m 1000] [--n 20000] [--k 20]``

Same input for both: a one-factor Gaussian copula pool (latent correlation 0.3, accuracies
uniform in [0.55, 0.9], seed 0), the input of ``benchmarks/bench_select_cli.py``; the time
excludes sampling. Target (issue "Selection and aggregation that scale"): ``score_mi``
within 2x of ``greedy_mi``. Also times the aggregators on the ``k`` picks (fit on all items,
predict on all items): ``backoff`` (ensel's default) and ``logistic`` against the paper's
``map`` and ``wmv``.

Times are medians over ``--repeats`` runs; wall-clock times on a shared machine vary with its
load, so the script prints the load average with the figures and exits 1 when the target is
missed. ``ENSEL_BENCH_TINY=1``: 30 models x 500 items, k = 5, one run, the target not judged
(see ``benchmarks/_bench.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from _bench import judged, record, size, verdict

from ensel.aggregate import make_aggregator
from ensel.copula import sample_equicorrelated
from ensel.select import greedy_mi, score_mi

T = TypeVar("T")


def median_time(fn: Callable[[], T], repeats: int) -> tuple[float, T]:
    times: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out  # repeats >= 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=size(1000, 30))
    ap.add_argument("--n", type=int, default=size(20000, 500))
    ap.add_argument("--k", type=int, default=size(20, 5))
    ap.add_argument("--repeats", type=int, default=size(3, 1))
    a = ap.parse_args()
    acc = np.random.default_rng(0).uniform(0.55, 0.9, a.m)
    X, y, _ = sample_equicorrelated(acc, 0.3, a.m, a.n, random_state=0)
    t_g, p_g = median_time(lambda: greedy_mi(X, y, a.k), a.repeats)
    t_s, p_s = median_time(lambda: score_mi(X, y, a.k), a.repeats)
    ratio = t_s / t_g
    print(f"m = {a.m}, n = {a.n}, k = {a.k}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'selector':<12}{'median s':>10}  first picks")
    print(f"{'greedy_mi':<12}{t_g:>10.2f}  {p_g[:6]}")
    print(f"{'score_mi':<12}{t_s:>10.2f}  {p_s[:6]}")
    cols = p_s
    for name in ("backoff", "logistic", "wmv", "map"):
        agg = make_aggregator(name)
        t_a, _ = median_time(lambda agg=agg: agg.fit(X[:, cols], y).predict(X[:, cols]),
                             a.repeats)
        print(f"aggregator {name:<9}{t_a:>8.3f} s (fit + predict, k = {a.k}, n = {a.n})")
    record(f"greedy_mi (the paper's selector), {a.m:,} models x {a.n:,} items, k = {a.k}",
           t_g, "s")
    record(f"score_mi (ensel's selector), {a.m:,} models x {a.n:,} items, k = {a.k}", t_s, "s",
           "<= 2x greedy_mi")
    ok = ratio <= 2.0
    print(f"score_mi / greedy_mi = {ratio:.2f} (target <= 2): {verdict(ok)}")
    return 0 if judged(ok) else 1


if __name__ == "__main__":
    raise SystemExit(main())
