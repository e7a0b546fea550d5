"""Timing of the experiment protocol on the stand-ins (and MMLU-Pro when available).

Run: ``.venv/bin/python benchmarks/bench_experiment.py [--repeat 3]``. Prints the median wall
time of ``evaluate`` per dataset (all selectors, three aggregators, 5 splits per condition)
without and with the exhaustive scan, and the ratio of the exhaustive scan alone to a
per-subset loop with ``MAPAggregator`` (measured on a sample of subsets, extrapolated).
``ENSEL_BENCH_TINY=1``: the IMDB stand-in alone, 2 splits, one run, 20 sampled subsets (see
``benchmarks/_bench.py``).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import numpy as np
from _bench import TINY, size

from ensel import datasets, experiment
from ensel.aggregate import MAPAggregator
from ensel.data import to_wide
from ensel.protocol import PAPER_PROTOCOL


def _median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=size(3, 1))
    args = parser.parse_args()
    names = ["imdb"] if TINY else ["medmcqa", "mmlu", "imdb"]
    try:
        from ensel.datasets import mmlu_pro

        if mmlu_pro.is_available() and not TINY:
            names.append("mmlu_pro")
    except ImportError:  # pragma: no cover
        pass
    n_splits = size(PAPER_PROTOCOL.n_splits, 2)
    print(f"{'dataset':10s} {'evaluate':>10s} {'+exhaustive':>12s} {'scan/split':>11s} "
          f"{'loop/split (est.)':>18s} {'speed-up':>9s}")
    for name in names:
        df = datasets.load(name)
        base = _median_time(lambda d=df: experiment.evaluate(d, n_splits=n_splits),
                            args.repeat)
        full = _median_time(lambda d=df: experiment.evaluate(d, exhaustive=True,
                                                             n_splits=n_splits), args.repeat)
        cond = df["condition"].unique()[0]
        Xw, yw = to_wide(df, cond, validate=False)
        X, y = Xw.to_numpy(), yw.to_numpy()
        tr, te = experiment.split_indices(len(y), condition=cond, split=0)
        m = X.shape[1]
        parts = (X[tr], y[tr], X[te], y[te], range(1, m + 1))
        scan = _median_time(lambda p=parts: experiment.exhaustive_errors(*p), args.repeat)
        subsets = [c for k in range(1, m + 1) for c in itertools.combinations(range(m), k)]
        sample = [subsets[i] for i in np.linspace(0, len(subsets) - 1, size(200, 20)).astype(int)]
        t0 = time.perf_counter()
        for c in sample:
            cols = list(c)
            MAPAggregator().fit(X[tr][:, cols], y[tr]).predict(X[te][:, cols])
        loop = (time.perf_counter() - t0) / len(sample) * len(subsets)
        print(f"{name:10s} {base:9.2f}s {full:11.2f}s {scan:10.3f}s {loop:17.2f}s "
              f"{loop / scan:8.1f}x")


if __name__ == "__main__":
    main()
