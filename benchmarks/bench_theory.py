"""Benchmark of ``ensel.theory.ensemble_error`` for m = 10,001 models.

Prints, for a few (alpha, rho):

* the median wall time of ``ensemble_error`` (MAP and majority; target < 1 s), its law of
  ``K`` computed afresh each run (the library remembers it: a repeat would time the cache);
* the agreement with an *independent* high-resolution computation of the majority error,
  ``E_U[P(Bin(m, p(U)) > m/2)]`` via the regularised incomplete beta function and adaptive
  ``scipy.integrate.quad`` on panels around the transition ``p(u) = 1/2`` (target 1e-6);
* the largest difference of ``P(K = e)`` from per-``e`` adaptive quadrature at 41 values of
  ``e`` spread over the bulk of the law (both tails and the middle);
* the raw total-mass error of the law of ``K`` before normalisation.

Run: ``.venv/bin/python benchmarks/bench_theory.py``. Exits 1 when the agreement with the
references misses 1e-6. ``ENSEL_BENCH_TINY=1``: m = 101, two cases, one run, m = 1,001 for the
large case (see ``benchmarks/_bench.py``).
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np
from _bench import record, size
from scipy import integrate
from scipy.special import betainc, gammaln, log_ndtr, ndtr, ndtri

from ensel import theory as T
from ensel.theory.saturation import _count_law_quadrature

M = size(10_001, 101)
CASES = size([(0.7, 0.3), (0.6, 0.9), (0.9, 0.05), (0.8, 0.999), (0.55, 0.01), (0.75, 0.5)],
             [(0.7, 0.3), (0.6, 0.9)])
REPEATS = size(5, 1)
BIG = size(100_001, 1_001)


def _panels(center: float, width: float) -> list[float]:
    pts = set(np.arange(-12.0, 12.1, 1.0).tolist())
    for j in (0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256):
        pts.update((center - j * width, center + j * width))
    pts.add(center)
    return [-39.0] + sorted(p for p in pts if -39.0 < p < 39.0) + [39.0]


def reference_majority_error(alpha: float, rho: float, m: int) -> float:
    """E_U[P(Bin(m, p(U)) >= m//2 + 1)] by adaptive quadrature (odd m)."""
    tau = float(ndtri(1 - alpha))
    sr, sc = math.sqrt(rho), math.sqrt(1 - rho)
    h = m // 2

    def f(u: float) -> float:
        p = float(ndtr((tau - sr * u) / sc))
        return float(betainc(h + 1, m - h, p)) * math.exp(-0.5 * u * u) / math.sqrt(2 * math.pi)

    width = (sc / sr) * 0.5 / math.sqrt(m) / 0.3989
    edges = _panels(tau / sr, width)
    return sum(integrate.quad(f, a, b, epsabs=1e-16, epsrel=1e-12, limit=200)[0]
               for a, b in zip(edges[:-1], edges[1:], strict=True))


def reference_pmf(alpha: float, rho: float, m: int, e: int) -> float:
    """P(K = e) by adaptive quadrature on panels around the binomial peak."""
    tau = float(ndtri(1 - alpha))
    sr, sc = math.sqrt(rho), math.sqrt(1 - rho)
    lc = gammaln(m + 1) - gammaln(e + 1) - gammaln(m - e + 1)

    def f(u: float) -> float:
        z = (tau - sr * u) / sc
        return math.exp(lc + e * log_ndtr(z) + (m - e) * log_ndtr(-z) - 0.5 * u * u
                        - 0.5 * math.log(2 * math.pi))

    q = min(max(e / m, 0.5 / m), 1 - 0.5 / m)
    center = (tau - sc * float(ndtri(q))) / sr
    phi = math.exp(-0.5 * float(ndtri(q)) ** 2) / math.sqrt(2 * math.pi)
    width = (sc / sr) * math.sqrt(q * (1 - q) / m) / phi
    edges = _panels(center, width)
    return sum(integrate.quad(f, a, b, epsabs=1e-17, epsrel=1e-12, limit=200)[0]
               for a, b in zip(edges[:-1], edges[1:], strict=True))


def main() -> int:
    print(f"ensemble_error for m = {M} (median of {REPEATS} runs)")
    header = (f"{'alpha':>6} {'rho':>6} {'t_map[s]':>9} {'t_mv[s]':>8} {'P_e (MAP)':>14} "
              f"{'|MAP-ref|':>10} {'|MV-ref|':>10} {'max|pmf-ref|':>12} {'mass err':>9} "
              f"{'floor':>10}")
    print(header)
    worst_t, worst_err, worst_pmf = 0.0, 0.0, 0.0
    for alpha, rho in CASES:
        times = {}
        vals = {}
        for rule in ("map", "majority"):
            ts = []
            for _ in range(REPEATS):
                _count_law_quadrature.cache_clear()  # time the computation, not the cache
                t0 = time.perf_counter()
                vals[rule] = T.ensemble_error(alpha, rho, M, rule)
                ts.append(time.perf_counter() - t0)
            times[rule] = statistics.median(ts)
        ref = reference_majority_error(alpha, rho, M)
        pmf, info = T.error_count_distribution(alpha, rho, M, return_info=True)
        cdf = np.cumsum(pmf)
        es = {int(np.searchsorted(cdf, q)) for q in np.linspace(1e-6, 1 - 1e-6, 37)}
        es |= {1, M // 2, M // 2 + 1, M - 1}
        dpmf = max(abs(pmf[e] - reference_pmf(alpha, rho, M, e)) for e in sorted(es))
        d_map, d_mv = abs(vals["map"] - ref), abs(vals["majority"] - ref)
        worst_t = max(worst_t, times["map"], times["majority"])
        worst_err = max(worst_err, d_map, d_mv)
        worst_pmf = max(worst_pmf, dpmf)
        print(f"{alpha:6.2f} {rho:6.3f} {times['map']:9.3f} {times['majority']:8.3f} "
              f"{vals['map']:14.10f} {d_map:10.2e} {d_mv:10.2e} {dpmf:12.2e} "
              f"{info.total_mass_error:9.1e} {T.saturation_floor(alpha, rho):10.6f}")
    print(f"worst time {worst_t:.3f} s (target < 1 s, ratio {worst_t / 1.0:.2f}); "
          f"worst |P_e - reference| {worst_err:.2e} (target 1e-6); "
          f"worst |pmf - reference| {worst_pmf:.2e}")
    record(f"ensemble_error, m = {M:,} models: the slowest of {len(CASES)} (alpha, rho) "
           f"(median of {REPEATS})", worst_t, "s", "< 1 s")
    t0 = time.perf_counter()
    big = T.ensemble_error(0.7, 0.3, BIG)
    print(f"m = {BIG:,}: P_e = {big:.10f} in {time.perf_counter() - t0:.3f} s "
          f"(floor {T.saturation_floor(0.7, 0.3):.10f})")
    return 0 if worst_err <= 1e-6 else 1


if __name__ == "__main__":
    raise SystemExit(main())
