"""Benchmark: ``ensel.select.greedy_mi`` against the same greedy loop built on library routines.

Run: ``.venv/bin/python benchmarks/bench_greedy_mi.py [--n 200000] [--m 100] [--k 10]``

Problem: ``m`` models, ``n`` items, budget ``k``; answers from a Gaussian copula with
family structure (10 families, within-family latent correlation 0.5), error rates in
[0.15, 0.40], balanced labels. Every greedy loop below runs the paper's Greedy MI: at each
step, for every remaining candidate ``j``, score ``I(Y; X_j | X_S)`` and take the argmax
(ties -> lowest index); ``X_S`` is the integer code of the answer pattern of the picks.

References (the *same* loop, only the per-candidate estimator differs):

1. ``loop+ensel.info``: two calls of ``ensel.info.smoothed_mutual_information`` per
   candidate (``I(Y; X_j, X_S) - I(Y; X_S)``), i.e. the definition in DESIGN.md, one
   candidate at a time. Same quantity -> same picks and gains.
2. ``loop+sklearn-contingency``: counts from ``sklearn.metrics.cluster.contingency_matrix``
   on ``(y, code)``, then the add-one smoothed formula. Same quantity -> same picks.
3. ``loop+sklearn-MI``: ``sklearn.metrics.mutual_info_score(y, code(X_j, X_S)) -
   mutual_info_score(y, code(X_S))``: the *unsmoothed* plug-in CMI in nats. Different
   estimator; the script reports whether its picks coincide (they do when smoothing does
   not change the argmax, which is typical at this n).
4. ``loop+pyitlib``: ``pyitlib.discrete_random_variable.information_mutual_conditional(
   y, x_j, code_S, estimator=1.0, Alphabet_*=...)``: additive (add-one) smoothing on every
   joint entropy over the declared alphabets, which equals ensel's chain-rule estimate
   whenever neither MI term is clipped at 0 (the script checks the values). pyitlib
   takes ~0.25 s per call at n = 200,000, so by default it is timed on a sample of
   candidates at every step (the candidate ensel picked plus ``--pyitlib-sample - 1``
   others, along ensel's pick path) and its full-loop time is *extrapolated* as
   ``sum over steps of (mean time per call at that step) x (number of candidates)``.
   ``--pyitlib-full`` runs the full loop instead (about 4 minutes).

Exits 1 when a loop computing the same quantity (1, 2 and 4) picks differently from ensel.
``ENSEL_BENCH_TINY=1``: n = 2,000, m = 12, k = 3, one run (see ``benchmarks/_bench.py``).

Times are medians over ``--repeats`` runs for ensel and the cheaper references
(single runs for the slow ones, as printed).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np
from _bench import size
from scipy.stats import norm

from ensel.info import smoothed_mutual_information
from ensel.select import TIE_TOL, GreedyMI


def make_data(n: int, m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Correlated binary answers: Gaussian copula, 10 families, rho_within = 0.5."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array([-1, 1], dtype=np.int8), size=n)
    eps = rng.uniform(0.15, 0.40, size=m)
    family = np.arange(m) % 10
    U = rng.standard_normal((n, 10)).astype(np.float32)
    Z = np.sqrt(0.5) * U[:, family] + np.sqrt(0.5) * rng.standard_normal((n, m),
                                                                         dtype=np.float32)
    E = Z < norm.ppf(eps).astype(np.float32)
    X = np.where(E, -y[:, None], y[:, None]).astype(np.int8)
    return X, y


def median_time(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def greedy_loop(X: np.ndarray, y: np.ndarray, k: int,
                score: Callable[[np.ndarray, np.ndarray, int, np.ndarray, int], float]
                ) -> tuple[list[int], list[float]]:
    """Generic Greedy MI loop; ``score(yc, xj, code_S, size_S, ...)`` -> I(Y; X_j | X_S)."""
    n, m = X.shape
    yc = (y.astype(np.int64) + 1) // 2
    B = (X.astype(np.int64) + 1) // 2  # bits
    code_S = np.zeros(n, dtype=np.int64)
    size_S = 1
    selected: list[int] = []
    gains: list[float] = []
    for _ in range(k):
        best_v, best_j = -np.inf, -1
        for j in range(m):
            if j in selected:
                continue
            v = score(yc, B[:, j], code_S, size_S)
            if v > best_v + TIE_TOL:
                best_v, best_j = v, j
        selected.append(best_j)
        gains.append(best_v)
        code_S = code_S + B[:, best_j] * size_S
        size_S *= 2
    return selected, gains


def score_ensel(yc, xj, code_S, size_S):
    joint = code_S * 2 + xj
    return (smoothed_mutual_information(yc, joint, size_a=2, size_b=2 * size_S)
            - smoothed_mutual_information(yc, code_S, size_a=2, size_b=size_S))


def _smoothed_from_table(table: np.ndarray, Ka: int, Kb: int, alpha: float = 1.0) -> float:
    """Add-alpha MI from an observed (rows x cols) count table, empty cells in closed form."""
    N = table.sum()

    def h(counts, K):
        q = (counts + alpha) / (N + alpha * K)
        q0 = alpha / (N + alpha * K)
        return -(q * np.log2(q)).sum() - (K - counts.size) * q0 * np.log2(q0)

    return max(h(table.sum(axis=1), Ka) + h(table.sum(axis=0), Kb) - h(table.ravel(), Ka * Kb),
               0.0)


def score_sklearn_contingency(yc, xj, code_S, size_S):
    from sklearn.metrics.cluster import contingency_matrix

    t_js = contingency_matrix(yc, code_S * 2 + xj)
    t_s = contingency_matrix(yc, code_S)
    return (_smoothed_from_table(t_js, 2, 2 * size_S)
            - _smoothed_from_table(t_s, 2, size_S))


def score_sklearn_mi(yc, xj, code_S, size_S):
    from sklearn.metrics import mutual_info_score

    return mutual_info_score(yc, code_S * 2 + xj) - mutual_info_score(yc, code_S)


def score_pyitlib(yc, xj, code_S, size_S):
    from pyitlib import discrete_random_variable as drv

    return float(drv.information_mutual_conditional(
        yc, xj, code_S, estimator=1.0, Alphabet_X=np.arange(2), Alphabet_Y=np.arange(2),
        Alphabet_Z=np.arange(size_S)))


def pyitlib_sampled(X, y, path, sample, ensel_scores):
    """Time pyitlib along ensel's pick path on a sample of candidates per step."""
    n, m = X.shape
    yc = (y.astype(np.int64) + 1) // 2
    B = (X.astype(np.int64) + 1) // 2
    code_S = np.zeros(n, dtype=np.int64)
    size_S = 1
    rng = np.random.default_rng(1)
    total, max_dev, agree = 0.0, 0.0, True
    for t, pick in enumerate(path):
        cand = [j for j in range(m) if j not in path[:t]]
        others = [j for j in cand if j != pick]
        chosen = [pick, *rng.choice(others, size=min(sample - 1, len(others)),
                                    replace=False).tolist()]
        times, vals = [], {}
        for j in chosen:
            t0 = time.perf_counter()
            vals[j] = score_pyitlib(yc, B[:, j], code_S, size_S)
            times.append(time.perf_counter() - t0)
            max_dev = max(max_dev, abs(vals[j] - ensel_scores[t, j]))
        agree &= max(vals, key=lambda j: (vals[j], -j)) == pick
        total += statistics.mean(times) * len(cand)
        code_S = code_S + B[:, pick] * size_S
        size_S *= 2
    return total, max_dev, agree


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=size(200_000, 2_000))
    ap.add_argument("--m", type=int, default=size(100, 12))
    ap.add_argument("--k", type=int, default=size(10, 3))
    ap.add_argument("--repeats", type=int, default=size(5, 1))
    ap.add_argument("--pyitlib-sample", type=int, default=size(6, 3))
    ap.add_argument("--pyitlib-full", action="store_true")
    ap.add_argument("--skip-sklearn-mi", action="store_true",
                    help="skip the ~45 s plug-in sklearn loop")
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    X, y = make_data(args.n, args.m)
    print(f"Greedy MI, m={args.m}, n={args.n:,}, k={args.k} "
          f"(Gaussian copula, 10 families, rho_within=0.5)")
    GreedyMI(args.k).fit(X[:1000], y[:1000])  # warm-up (imports)

    t_ens, sel = median_time(lambda: GreedyMI(args.k).fit(X, y), args.repeats)
    picks = sel.selected_
    print(f"\n{'method':32s} {'time [s]':>10s} {'x ensel':>9s}  picks == ensel")
    print(f"{'ensel.select.greedy_mi':32s} {t_ens:10.3f} {1.0:9.1f}  {picks}")
    print(f"  (median of {args.repeats}; limit 5 s: {'OK' if t_ens < 5 else 'EXCEEDED'})")

    rows = []
    same_quantity = []  # picks of the loops that compute ensel's quantity: must agree
    t_lit, (p_lit, g_lit) = median_time(lambda: greedy_loop(X, y, args.k, score_ensel),
                                        max(1, args.repeats // 2))
    rows.append(("loop+ensel.info (exact same MI)", t_lit, p_lit,
                 float(np.max(np.abs(np.array(g_lit) - sel.gains_)))))
    t_ct, (p_ct, g_ct) = median_time(
        lambda: greedy_loop(X, y, args.k, score_sklearn_contingency), 1)
    rows.append(("loop+sklearn contingency+smooth", t_ct, p_ct,
                 float(np.max(np.abs(np.array(g_ct) - sel.gains_)))))
    if not args.skip_sklearn_mi:
        t_mi, (p_mi, _) = median_time(lambda: greedy_loop(X, y, args.k, score_sklearn_mi), 1)
        rows.append(("loop+sklearn mutual_info_score", t_mi, p_mi, None))
    for name, t, p, dev in rows:
        same = p == picks
        if dev is not None:
            same_quantity.append(same)
        extra = "" if dev is None else f"  (max |gain diff| {dev:.1e} bits)"
        print(f"{name:32s} {t:10.2f} {t / t_ens:9.1f}  {same}{extra}")
        if not same:
            print(f"{'':32s} picks: {p}")
    if not args.skip_sklearn_mi:
        print("  sklearn mutual_info_score is the unsmoothed plug-in CMI (nats): its picks are "
              "compared, not its values.")

    if args.pyitlib_full:
        t_py, (p_py, g_py) = median_time(lambda: greedy_loop(X, y, args.k, score_pyitlib), 1)
        dev = float(np.max(np.abs(np.array(g_py) - sel.gains_)))
        print(f"{'loop+pyitlib (full run)':32s} {t_py:10.2f} {t_py / t_ens:9.1f}  "
              f"{p_py == picks}  (max |gain diff| {dev:.1e} bits)")
        ratios = [t_ct, t_py]
        same_quantity.append(p_py == picks)
    else:
        t_py, dev, agree = pyitlib_sampled(X, y, picks, args.pyitlib_sample, sel.scores_)
        print(f"{'loop+pyitlib (extrapolated)':32s} {t_py:10.2f} {t_py / t_ens:9.1f}  "
              f"{agree} on the sample  (max |score diff| {dev:.1e} bits)")
        print(f"  pyitlib timed on {args.pyitlib_sample} candidates per step (ensel's pick + "
              "random others) along ensel's path; time = sum_t mean(call time) x "
              "#candidates_t. Use --pyitlib-full for a full run.")
        ratios = [t_ct, t_py]
        same_quantity.append(agree)
    if not args.skip_sklearn_mi:
        ratios.append(t_mi)
    print(f"\nspeed-up of ensel over the library-based loops (sklearn, pyitlib): "
          f"{min(ratios) / t_ens:.0f}x .. {max(ratios) / t_ens:.0f}x "
          f"(required >= 10x: {'OK' if min(ratios) / t_ens >= 10 else 'NOT MET'})")
    if not all(same_quantity):
        print("a loop computing ensel's quantity picked differently: see above")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
