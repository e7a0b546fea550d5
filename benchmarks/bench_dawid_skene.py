"""Benchmark: ensel's Dawid-Skene against crowd-kit's on the same answers, without labels.

Run: ``.venv/bin/python benchmarks/bench_dawid_skene.py``. Seeded multiple-choice pools
(:func:`ensel.pools.multiclass_pool`: models in families of 10, 20,000 items, 4 options,
30 % of wrong answers on a shared distractor, 0-10 % abstentions) are aggregated without
labels by :class:`ensel.aggregate.DawidSkene` and by crowd-kit's ``DawidSkene`` (both: full
confusion matrices, EM from the plurality vote, at most 100 iterations): a hard pool of 25
weak models (accuracy 0.55-0.75), where the two can differ, and the pool of 1,000 models,
where the time is measured. Printed: each one's error against the pool's gold, the paired
difference with its standard error, how often their labels agree, the wall time of each
fit and the ratio.

The comparison is checked: the script exits 1 when the two errors differ by more than three
standard errors plus 0.002 (the two stop EM by different rules: ensel on the objective per
item, ``tol=1e-7``; crowd-kit on its evidence lower bound per answer, ``tol=1e-5``). The
time target -- ensel at least as fast -- is printed, judged at the full size only.

crowd-kit is a reference, not a dependency of ensel (``make env`` installs it pinned, without
the dependencies it declares for ``crowdkit.learning``: the Makefile's REFERENCES); when it is
not installed the script says so and exits 0. ``ENSEL_BENCH_TINY=1``: 25 and 40 models x
1,000 items (see ``benchmarks/_bench.py``).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _bench import record, size, verdict

from ensel.aggregate import DawidSkene
from ensel.pools import multiclass_pool

M, N, OPTIONS = size(1_000, 40), size(20_000, 1_000), 4
HARD = 25  # models of the hard pool


def _crowdkit_labels(A: np.ndarray) -> tuple[np.ndarray, float]:
    import pandas as pd
    from crowdkit.aggregation import DawidSkene as CrowdKitDS

    task, worker = np.nonzero(A >= 0)
    data = pd.DataFrame({"task": task.astype(np.int32), "worker": worker.astype(np.int32),
                         "label": A[task, worker].astype(np.int64)})
    del task, worker
    t0 = time.perf_counter()
    labels = CrowdKitDS(n_iter=100).fit_predict(data)
    seconds = time.perf_counter() - t0
    out = np.full(A.shape[0], -1, dtype=np.int64)
    out[labels.index.to_numpy(dtype=np.int64)] = labels.to_numpy(dtype=np.int64)
    return out, seconds


def _compare(A: np.ndarray, y: np.ndarray, title: str) -> tuple[float, float, bool]:
    """Fit both without labels; print errors, agreement and times; ``(t_ensel, t_ck, ok)``."""
    print(f"{title}: {A.shape[1]:,} models x {A.shape[0]:,} items, {OPTIONS} options, "
          f"{(A < 0).mean():.1%} abstentions, no labels")
    t0 = time.perf_counter()
    ds = DawidSkene(max_iter=100).fit(A)
    t_ensel = time.perf_counter() - t0
    ours = ds.labels_.astype(np.int64)
    theirs, t_ck = _crowdkit_labels(A)
    err_ours, err_theirs = float((ours != y).mean()), float((theirs != y).mean())
    diff = (ours != y).astype(float) - (theirs != y).astype(float)
    se = float(diff.std(ddof=1) / np.sqrt(diff.size))
    print(f"  error: ensel {err_ours:.4f} ({ds.n_iter_} iterations, converged "
          f"{ds.converged_}), crowd-kit {err_theirs:.4f}; difference "
          f"{err_ours - err_theirs:+.4f} (se {se:.4f}); labels agree on "
          f"{(ours == theirs).mean():.2%} of the items")
    print(f"  time: ensel {t_ensel:.2f} s, crowd-kit {t_ck:.2f} s "
          f"(ensel {t_ck / t_ensel:.1f}x as fast)")
    what = f"{A.shape[1]:,} models x {A.shape[0]:,} items, {OPTIONS} options, no labels"
    record(f"Dawid-Skene error, ensel minus crowd-kit, {what}", err_ours - err_theirs,
           "", f"within 3 se + 0.002 (se {se:.4f})")
    return t_ensel, t_ck, abs(err_ours - err_theirs) <= 3 * se + 0.002


def main() -> int:
    try:
        import crowdkit  # noqa: F401
    except ImportError:
        print("crowd-kit is not installed: nothing to compare with (it is a reference, not a "
              "dependency of ensel; make env installs it, see REFERENCES in the Makefile)")
        return 0
    ok = True
    hard = multiclass_pool(HARD, N, n_options=OPTIONS, share=0.3, acc_low=0.55, acc_high=0.75,
                           abstain=(0.0, 0.1), random_state=1)
    ok &= _compare(hard.A, hard.y.astype(np.int64), "hard pool")[2]
    pool = multiclass_pool(M, N, n_options=OPTIONS, share=0.3, abstain=(0.0, 0.1),
                           random_state=0)
    t_ensel, t_ck, same = _compare(pool.A, pool.y.astype(np.int64), "large pool")
    ok &= same
    what = f"{M:,} models x {N:,} items, {OPTIONS} options, no labels"
    record(f"DawidSkene fit (ensel), {what}", t_ensel, "s", "<= crowd-kit's")
    record(f"DawidSkene fit (crowd-kit 1.4.2), {what}", t_ck, "s")
    print(f"target: ensel at least as fast as crowd-kit on the large pool: "
          f"{verdict(t_ensel <= t_ck)}")
    if not ok:
        print("ensel's and crowd-kit's Dawid-Skene disagree beyond noise", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
