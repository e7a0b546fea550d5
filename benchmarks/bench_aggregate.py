"""Benchmark: MAP / MV / W-MV fit + predict at n = 10^6 items, k = 20 models.

Run: ``.venv/bin/python benchmarks/bench_aggregate.py``. Prints medians over repeats and
the ratio to the 1 s target for MAP (no asserts). ``ENSEL_BENCH_TINY=1``: 20,000 items, one
run (see ``benchmarks/_bench.py``).
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from _bench import record, size

from ensel.aggregate import MajorityVote, MAPAggregator, WeightedMajorityVote
from ensel.copula import sample_equicorrelated

N, K, REPEATS = size(1_000_000, 20_000), 20, size(5, 1)


def _median_time(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    X, y, _ = sample_equicorrelated(np.linspace(0.6, 0.8, K), 0.3, K, N, random_state=0)
    Xa = X.copy()
    Xa[::50, 3] = 0  # 2 % abstentions in one column -> base-3 patterns (3^20, sparse table)
    print(f"n = {N:,}, k = {K}, int8 answers; median of {REPEATS} runs")
    cases = [
        ("MAP fit+predict (2^20 dense)", lambda: MAPAggregator().fit(X, y).predict(X)),
        ("MAP fit+predict (3^20 sparse, abstentions)",
         lambda: MAPAggregator().fit(Xa, y).predict(Xa)),
        ("MV fit+predict", lambda: MajorityVote(random_state=0).fit(X, y).predict(X)),
        ("W-MV fit+predict", lambda: WeightedMajorityVote().fit(X, y).predict(X)),
    ]
    for name, fn in cases:
        fn()  # warm-up
        t = _median_time(fn)
        print(f"{name:45s} {t:7.3f} s   (target 1 s: {t / 1.0:5.2f}x of budget)")
        record(f"{name}, {N:,} items x {K} models (median of {REPEATS})", t, "s", "< 1 s")


if __name__ == "__main__":
    main()
