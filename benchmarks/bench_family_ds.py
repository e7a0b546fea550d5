"""Benchmark: the family-discounted Dawid-Skene against independent Dawid-Skene, no labels.

Run: ``.venv/bin/python benchmarks/bench_family_ds.py``. For each scenario of seeded
multiple-choice pools (:func:`ensel.pools.multiclass_pool`, 4 options, 3,000 items, the
seeds ``0..REPEATS-1``), both aggregators are fitted without labels and scored against the
gold of the same items. Printed per scenario: the mean error of each, the mean paired
difference (family DS minus DS) with its standard error over the seeds, and the verdict:
``better`` / ``worse`` when the difference is beyond two standard errors, else ``within
noise``. Scenarios: one dominant family of 8 correlated models (latent correlation 0.8)
among 6 independent ones, its wrong answers spread or 90 % shared; three equal families
sharing 90 %; independent models (spread or shared wrong answers); mild families; one
common correlation for all models.

Checked: the script exits 1 if the family model is worse beyond three standard errors in
any scenario. ``ENSEL_BENCH_TINY=1``: 2 seeds, 600 items.
"""

from __future__ import annotations

import sys

import numpy as np
from _bench import size

from ensel.aggregate import DawidSkene, FamilyDawidSkene
from ensel.pools import multiclass_pool

REPEATS, N = size(20, 2), size(3_000, 600)
DOMINANT = [8, 1, 1, 1, 1, 1, 1]
SCENARIOS: dict[str, dict] = {
    "dominant family, wrong answers spread": dict(m=14, family_size=DOMINANT, within=0.7),
    "dominant family, 90% shared": dict(m=14, family_size=DOMINANT, within=0.7, share=0.9),
    "three families, 90% shared": dict(m=15, family_size=5, within=0.7, share=0.9),
    "independent, spread": dict(m=15, family_size=1, within=0.0),
    "independent, 90% shared": dict(m=15, family_size=1, within=0.0, share=0.9),
    "mild families, 30% shared": dict(m=15, family_size=5, within=0.2, share=0.3),
    "one common correlation 0.4": dict(m=15, family_size=1, common=0.4, within=0.0,
                                       share=0.5),
}


def main() -> int:
    print(f"{REPEATS} seeds x {N:,} items per scenario, 4 options, no labels; error against gold")
    ok = True
    for name, kw in SCENARIOS.items():
        kw = dict(kw)
        m = kw.pop("m")
        errs = []
        for seed in range(REPEATS):
            pool = multiclass_pool(m, N, n_options=4, random_state=seed, **kw)
            ds = DawidSkene().fit(pool.A)
            fds = FamilyDawidSkene().fit(pool.A)
            errs.append(((ds.labels_ != pool.y).mean(), (fds.labels_ != pool.y).mean()))
        e = np.asarray(errs)
        d = e[:, 1] - e[:, 0]
        se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
        verdict = ("better" if d.mean() < -2 * se else "worse" if d.mean() > 2 * se
                   else "within noise")
        print(f"{name:40s} DS {e[:, 0].mean():.4f}  family DS {e[:, 1].mean():.4f}  "
              f"difference {d.mean():+.4f} (se {se:.4f}): {verdict}")
        ok &= not d.mean() > 3 * se
    if not ok:
        print("the family model is worse than independent Dawid-Skene beyond noise",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
