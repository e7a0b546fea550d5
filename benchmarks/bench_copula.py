"""Benchmark: Gaussian-copula fit (m = 100 models, 4,950 pairs, n = 10,000 items).

Compares ``ensel.copula.fit_gaussian_copula`` (vectorised Genz Phi_2 + all-pairs
safeguarded Newton) with the straightforward reference: for each pair,
``scipy.optimize.brentq`` on ``scipy.stats.multivariate_normal.cdf``. The reference is slow,
so by default it is timed on a random subset of pairs and extrapolated to all 4,950 pairs
(``--full`` runs every pair). Agreement of rho is checked on the pairs the reference solved.

Run: ``.venv/bin/python benchmarks/bench_copula.py [--pairs 300] [--full]``. Exits 1 when
the agreement misses 1e-6. ``ENSEL_BENCH_TINY=1``: 10 models, 2,000 items, 10 reference pairs
(see ``benchmarks/_bench.py``).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _bench import record, size
from scipy.optimize import brentq
from scipy.special import ndtri
from scipy.stats import multivariate_normal

from ensel.copula import fit_gaussian_copula, sample, tetrachoric_matrix

M, N, REPEATS = size(100, 10), size(10_000, 2_000), size(5, 1)


def _data() -> np.ndarray:
    """Errors of 100 models in 5 families (within-family rho 0.6, across 0.3)."""
    rng = np.random.default_rng(0)
    fam = np.repeat(np.arange(5), M // 5)
    Sigma = np.where(fam[:, None] == fam[None, :], 0.6, 0.3)
    np.fill_diagonal(Sigma, 1.0)
    tau = ndtri(1 - rng.uniform(0.55, 0.9, M))
    _, _, E = sample(tau, Sigma, N, random_state=1)
    return E


def _reference_rho(tau_i: float, tau_j: float, p: float) -> float:
    def f(r: float) -> float:
        return multivariate_normal.cdf([tau_i, tau_j], cov=[[1.0, r], [r, 1.0]]) - p

    return brentq(f, -0.999999, 0.999999, xtol=1e-12)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=size(300, 10), help="reference pairs to time")
    ap.add_argument("--full", action="store_true", help="run the reference on all pairs")
    args = ap.parse_args()

    E = _data()
    fit_gaussian_copula(E)  # warm-up
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fit_gaussian_copula(E)
        times.append(time.perf_counter() - t0)
    t_ours = statistics.median(times)
    print(f"m = {M}, pairs = {M * (M - 1) // 2:,}, n = {N:,}")
    print(f"fit_gaussian_copula (all phases), median of {REPEATS}: {t_ours:.3f} s "
          f"(target 5 s: {t_ours / 5:.3f}x of budget)")
    record(f"fit_gaussian_copula, {M} models ({M * (M - 1) // 2:,} pairs) x {N:,} items "
           f"(median of {REPEATS})", t_ours, "s", "< 5 s")

    R = tetrachoric_matrix(E)
    rates = E.mean(axis=0)
    tau = ndtri(np.clip(rates, 1e-6, 1 - 1e-6))
    joint = (E.T.astype(float) @ E) / N
    iu, ju = np.triu_indices(M, 1)
    n_pairs = iu.size
    if args.full:
        idx = np.arange(n_pairs)
    else:
        idx = np.random.default_rng(2).choice(n_pairs, size=min(args.pairs, n_pairs),
                                              replace=False)
    t0 = time.perf_counter()
    ref = np.array([_reference_rho(tau[iu[q]], tau[ju[q]], joint[iu[q], ju[q]]) for q in idx])
    t_ref_subset = time.perf_counter() - t0
    t_ref = t_ref_subset / idx.size * n_pairs
    diff = np.abs(ref - R[iu[idx], ju[idx]])
    label = "all" if args.full else f"{idx.size} random"
    print(f"scipy brentq + multivariate_normal.cdf on {label} pairs: {t_ref_subset:.2f} s "
          f"-> {t_ref:.1f} s for all {n_pairs:,} pairs"
          + ("" if args.full else " (extrapolated)"))
    print(f"speed-up: {t_ref / t_ours:.0f}x (target >= 20x)")
    print(f"max |rho_ours - rho_scipy| over those pairs: {diff.max():.2e} (target 1e-6)")
    return 0 if diff.max() <= 1e-6 else 1


if __name__ == "__main__":
    raise SystemExit(main())
