"""Use it on your own models: ``ensel select``, ``ensel evaluate`` and ``ensel import``.

``ensel select DATA -k K|auto [--method M] [--aggregator A] [--condition C] [--json]``
    Picks an ensemble of ``K`` models (or chooses ``K`` by nested cross-validation) on all
    the data, and reports its held-out error over repeated random 80/20 splits (the paper's
    protocol, :func:`ensel.experiment.split_indices`) next to the Top-k ensemble and the best
    single model on the same splits. Each comparison is a paired difference with a 95 %
    interval corrected for the overlap of the splits (:mod:`ensel.stats`, Nadeau & Bengio)
    and a verdict: *holds* (the chosen ensemble is better), *within noise*, *contradicted*.

``ensel evaluate DATA -o report.html [--ks 1-10]``
    Runs the book's experiments notebook on DATA (jupytext + papermill) and writes a
    standalone HTML report (nbconvert) and the executed notebook beside it.

``ensel import FORMAT PATH... -o tidy.parquet``
    Converts lm-evaluation-harness logs, a wide matrix, MMLU-Pro outputs or a tidy table
    (:mod:`ensel.datasets.importers`) to the tidy table.

DATA is a file (format detected, or ``--format``), several files (lm-evaluation-harness
logs of several models), or a dataset name of :func:`ensel.datasets.load`. Bad input exits
with code 2 and one message naming the file, the line or column and the problem.

How ``select`` works
--------------------
* **Picks** are made on every item of the chosen condition(s) (conditions stacked), with
  each pick's training accuracy and its marginal information gain
  ``I(Y; X_S+j) - I(Y; X_S)`` in bits (smoothed, the paper's estimator; for Greedy MI this
  is its criterion).
* **Held-out error**: for each condition and split ``s = 0..J-1`` the items are split
  80/20 as :func:`ensel.experiment.split_indices` does (seeded per condition and split);
  the method picks on the 80 %, the aggregator is fitted there and scored on the 20 %. The
  Top-k ensemble of the same size and the best single model (the most accurate on the 80 %,
  under the same aggregator) are scored on the same splits.
* **Intervals**: the chosen ensemble's mean error and the paired differences
  (chosen - Top-k, chosen - best single) get the corrected resampled t interval of
  :func:`ensel.stats.paired_interval`, pooling conditions x splits. For the differences the
  same procedure also runs on both halves of ``--halvings`` (default 10) random halvings of
  the items (at least 4 splits per half); the interval's variance is the larger of the
  corrected one and the one measured on the halves (``interval`` says which).
* ``-k auto``: nested cross-validation. Inside each outer split, 5 inner 80/20 splits of
  the training part give the held-out error of the method at every ``k <= --max-k``; the
  smallest ``k`` with the lowest inner error is used on the outer split. The deployed ``k``
  is chosen the same way on all the data. The command says plainly when no ensemble beats
  the best single model.

JSON output (``--json``), schema ``ensel.select/1``::

    {"schema": "ensel.select/1",
     "data": [str], "format": str, "conditions": [str], "n_items": int, "n_models": int,
     "method": str, "aggregator": str, "k": int, "k_mode": "fixed" | "auto",
     "selected": [{"rank": int, "model": str, "accuracy": float, "gain_bits": float}],
     "evaluation": {"n_splits": int, "n_evaluations": int, "test_fraction": float,
                    "seed": int, "confidence": float,
                    "correction": str, "n_halvings": int,
                    "arms": {"selected" | "top_k" | "best_single":
                             {"error": float, "low": float, "high": float, "k": int | null}},
                    "comparisons": [{"against": "top_k" | "best_single",
                                     "difference": float, "low": float, "high": float,
                                     "verdict": "holds" | "within noise" | "contradicted",
                                     "interval": "corrected" | "halves"}]},
     "auto": null | {"max_k": int, "inner_splits": int, "inner_error": {k: float},
                     "k_per_split": [int]},
     "ensemble_beats_best_single": bool,
     "message": str}

``comparisons`` omits ``top_k`` when the method is Top-k itself. ``difference`` is the
chosen ensemble's error minus the other arm's (negative = the chosen one is better).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from ensel.experiment import N_HALVINGS, half_splits
from ensel.experiment import halvings as halve

__all__ = ["METHODS", "EXHAUSTIVE_LIMIT", "evaluate_main", "import_main", "select_main",
           "run_select"]

#: Methods of ``ensel select`` and the library function behind each.
METHODS = ("greedy-mi", "top-k", "relevance", "mrmr", "exhaustive")
AGGREGATORS = ("map", "mv", "wmv")
#: Largest number of subsets ``--method exhaustive`` enumerates (per split).
EXHAUSTIVE_LIMIT = 20_000
_INNER_SPLITS = 5
SCHEMA = "ensel.select/1"
CORRECTION = ("larger of nadeau-bengio corrected resampled t and half-sample replicates")


class UsageError(ValueError):
    """Bad input or arguments: reported as one line, exit code 2."""


# --------------------------------------------------------------------------- data
@dataclass
class _Pool:
    Xs: list[np.ndarray]       # per condition (n_c, m) int8, common model order
    ys: list[np.ndarray]       # per condition (n_c,) int8
    conditions: list[str]
    models: list[str]
    items: list[np.ndarray]    # per condition (n_c,) item ids as str


def _pool(df: pd.DataFrame, condition: str | None) -> _Pool:
    from ensel.data import conditions as list_conditions
    from ensel.data import to_wide

    conds = [str(c) for c in list_conditions(df)]
    if condition is not None:
        if condition not in conds:
            raise UsageError(f"unknown condition {condition!r}; the data has {conds}")
        conds = [condition]
    df = df.assign(condition=df["condition"].astype(str))
    models = [str(m) for m in pd.unique(df["model"])]
    Xs, ys, items = [], [], []
    for c in conds:
        Xw, yw = to_wide(df, c, validate=False)
        Xw = Xw.set_axis([str(m) for m in Xw.columns], axis=1).reindex(columns=models,
                                                                        fill_value=0)
        Xs.append(Xw.to_numpy(dtype=np.int8))
        ys.append(yw.to_numpy(dtype=np.int8))
        items.append(np.asarray(Xw.index).astype(str))
    return _Pool(Xs, ys, conds, models, items)


def _check_pool(pool: _Pool, k: int | None, test_fraction: float) -> None:
    m = len(pool.models)
    if k is not None and k > m:
        raise UsageError(f"k={k} is larger than the pool: the data has {m} model(s)")
    need = max(3, int(math.ceil(1.0 / test_fraction)))
    for c, y in zip(pool.conditions, pool.ys, strict=True):
        if len(y) < need:
            raise UsageError(f"condition {c!r} has {len(y)} item(s), fewer than the {need} "
                             f"needed for {1 - test_fraction:.0%}/{test_fraction:.0%} splits")
        if len(np.unique(y)) < 2:
            raise UsageError(f"condition {c!r} has only one label class ({int(y[0]):+d}); "
                             "selection needs items with both labels +1 and -1")


# --------------------------------------------------------------------------- selection
def _select(method: str, X: np.ndarray, y: np.ndarray, k: int) -> list[int]:
    from ensel import select

    if method == "greedy-mi":
        return select.greedy_mi(X, y, k)
    if method == "top-k":
        return select.top_k(X, y, k)
    if method == "relevance":
        return select.relevance(X, y, k)
    if method == "mrmr":
        return select.mrmr(X, y, k)
    return list(select.exhaustive_search(X, y, k, objective="mi",
                                         max_subsets=EXHAUSTIVE_LIMIT))  # type: ignore[arg-type]


def _aggregator(name: str, seed: int) -> Any:
    from ensel import aggregate

    if name == "map":
        return aggregate.MAPAggregator(alpha=1.0)
    if name == "mv":
        return aggregate.MajorityVote(random_state=seed)
    return aggregate.WeightedMajorityVote()


def _error(agg: str, seed: int, Xtr, ytr, Xte, yte, cols: Sequence[int]) -> float:
    model = _aggregator(agg, seed).fit(Xtr[:, list(cols)], ytr)
    return float(np.mean(np.asarray(model.predict(Xte[:, list(cols)])) != yte))


def marginal_gains(X: np.ndarray, y: np.ndarray, picks: Sequence[int]) -> list[float]:
    """``I(Y; X_{S_t}) - I(Y; X_{S_{t-1}})`` in bits along ``picks`` (smoothed estimator).

    The pattern alphabet has radix 2 per column (3 for a column with an abstention), as in
    :func:`ensel.select.greedy_mi`, whose gains these are for its own picks.
    """
    from ensel.info import smoothed_mutual_information

    yc = ((y.astype(np.int64) + 1) // 2)
    codes = np.zeros(len(y), dtype=np.int64)
    size, prev, out = 1, 0.0, []
    for j in picks:
        col = X[:, j]
        d = np.where(col == 0, 2, (col.astype(np.int64) + 1) // 2)
        radix = 3 if (col == 0).any() else 2
        _, codes = np.unique(codes * 3 + d, return_inverse=True)  # relabel (size stays nominal)
        codes = codes.reshape(-1)
        size *= radix
        mi = smoothed_mutual_information(yc, codes, size_a=2, size_b=size)
        out.append(mi - prev)
        prev = mi
    return out


def _auto_k(method: str, agg: str, X: np.ndarray, y: np.ndarray, max_k: int, *, key: str,
            seed: int, test_fraction: float) -> tuple[int, np.ndarray]:
    """Smallest k with the lowest mean inner held-out error; the errors per k."""
    from ensel.experiment import split_indices

    errs = np.zeros(max_k)
    for s in range(_INNER_SPLITS):
        tr, te = split_indices(len(y), condition=key, split=s, seed=seed,
                               test_fraction=test_fraction)
        Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
        if len(np.unique(ytr)) < 2:
            picks = list(range(max_k))
        else:
            picks = _select(method, Xtr, ytr, max_k)
        for k in range(1, max_k + 1):
            errs[k - 1] += _error(agg, seed + s, Xtr, ytr, Xte, yte, picks[:k])
    errs /= _INNER_SPLITS
    return int(np.argmin(errs)) + 1, errs


def _arm_errors(run: dict[str, Any], c: str, X: np.ndarray, y: np.ndarray,
                splits: Iterable[int], errs: dict[str, list[float]],
                sizes: list[tuple[int, int]] | None, auto_doc: dict[str, Any] | None,
                bar: Any) -> None:
    """Held-out errors of the chosen, Top-k and best single arms on the given splits of one
    condition (appended to ``errs``)."""
    from ensel.experiment import split_indices

    method, agg, seed, frac = run["method"], run["aggregator"], run["seed"], run["test_fraction"]
    for s in splits:
        tr, te = split_indices(len(y), condition=c, split=s, seed=seed, test_fraction=frac)
        Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
        if sizes is not None:
            sizes.append((len(tr), len(te)))
        k_s = run["k"]
        if run["auto"]:
            k_s = _auto_k(method, agg, Xtr, ytr, run["max_k"], key=f"{c}/{s}/auto",
                          seed=seed, test_fraction=frac)[0]
            if auto_doc is not None:
                auto_doc["k_per_split"].append(k_s)
        if len(np.unique(ytr)) < 2:
            raise UsageError(f"condition {c!r}: a training part holds one label class "
                             "only; the data has too few items of one label")
        p = _select(method, Xtr, ytr, k_s)
        t = p if method == "top-k" else _select("top-k", Xtr, ytr, k_s)
        b = _select("top-k", Xtr, ytr, 1)
        mv_seed = seed * 1_000_003 + s
        errs["selected"].append(_error(agg, mv_seed, Xtr, ytr, Xte, yte, p))
        errs["top_k"].append(_error(agg, mv_seed, Xtr, ytr, Xte, yte, t))
        errs["best_single"].append(_error(agg, mv_seed, Xtr, ytr, Xte, yte, b))
        bar.update(1)


def _half_sample_means(run: dict[str, Any], pool: _Pool, halvings: int,
                       bar: Any) -> dict[str, np.ndarray] | None:
    """Each arm's mean error on the two halves of each halving of the items (the same
    procedure on independent half-size data sets; :func:`ensel.stats.paired_interval`)."""
    if not halvings:
        return None
    per_half = half_splits(len(pool.conditions))
    out = {arm: np.zeros((halvings, 2)) for arm in ("selected", "top_k", "best_single")}
    for h, masks in enumerate(halve(pool.items, halvings, seed=int(run["seed"]))):
        for j, half in enumerate(("A", "B")):
            errs: dict[str, list[float]] = {arm: [] for arm in out}
            for c, X, y, in_a in zip(pool.conditions, pool.Xs, pool.ys, masks, strict=True):
                rows = in_a if half == "A" else ~in_a
                try:
                    _arm_errors(run, f"{c}/halving{h}{half}", X[rows], y[rows],
                                range(per_half), errs, None, None, bar)
                except UsageError as exc:
                    raise UsageError(f"{exc} (in half {half} of halving {h}; use --halvings 0 "
                                     "on data this small)") from None
            for arm in out:
                out[arm][h, j] = float(np.mean(errs[arm]))
    return out


def run_select(df: pd.DataFrame, *, k: int | str, method: str = "greedy-mi",
               aggregator: str = "map", condition: str | None = None, n_splits: int = 20,
               test_fraction: float = 0.2, seed: int = 0, max_k: int = 10,
               confidence: float = 0.95, progress: bool = True,
               halvings: int = N_HALVINGS) -> dict[str, Any]:
    """The computation behind ``ensel select``; returns the JSON document (see the module).

    Parameters
    ----------
    df : pandas.DataFrame
        Validated tidy table.
    k : int or "auto"
    method : one of :data:`METHODS`
    aggregator : {"map", "mv", "wmv"}
    condition : str, optional
        Use one condition only (default: all, pooled).
    n_splits : int, default=20
        Random 80/20 splits per condition.
    test_fraction, seed, max_k, confidence
        As in the command line.
    progress : bool
        Show a tqdm bar on stderr when the evaluation takes more than about a second.
    halvings : int, default=10
        Half-sample replicates for the intervals (0: the corrected t alone).
    """
    from tqdm import tqdm

    from ensel.stats import paired_interval

    if method not in METHODS:
        raise UsageError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    if aggregator not in AGGREGATORS:
        raise UsageError(f"unknown aggregator {aggregator!r}; expected one of "
                         f"{', '.join(AGGREGATORS)}")
    auto = k == "auto"
    pool = _pool(df, condition)
    m = len(pool.models)
    kk = None if auto else int(k)
    if kk is not None and kk < 1:
        raise UsageError(f"k must be a positive integer or 'auto'; got {k}")
    _check_pool(pool, kk, test_fraction)
    max_k = min(int(max_k), m)
    if method == "exhaustive":
        worst = (max(math.comb(m, j) for j in range(1, max_k + 1)) if auto
                 else math.comb(m, int(kk or 0)))
        if worst > EXHAUSTIVE_LIMIT:
            kdesc = f"k up to {max_k}" if auto else f"k={kk}"
            raise UsageError(
                f"--method exhaustive with {m} models and {kdesc} means C({m}, "
                f"{max_k if auto else kk}) = {worst:,} subsets per split, beyond the limit of "
                f"{EXHAUSTIVE_LIMIT:,}; use --method greedy-mi (or fewer models / a smaller k)")

    X_all = np.concatenate(pool.Xs)
    y_all = np.concatenate(pool.ys)
    auto_doc: dict[str, Any] | None = None
    if auto:
        inner = np.zeros(max_k)
        for c, X, y in zip(pool.conditions, pool.Xs, pool.ys, strict=True):
            inner += _auto_k(method, aggregator, X, y, max_k, key=f"{c}/auto", seed=seed,
                             test_fraction=test_fraction)[1]
        inner /= len(pool.conditions)
        kk = int(np.argmin(inner)) + 1
        auto_doc = {"max_k": max_k, "inner_splits": _INNER_SPLITS,
                    "inner_error": {str(j + 1): float(e) for j, e in enumerate(inner)},
                    "k_per_split": []}
    assert kk is not None
    picks = _select(method, X_all, y_all, kk)
    acc = (X_all == y_all[:, None]).mean(axis=0)
    gains = marginal_gains(X_all, y_all, picks)
    selected = [{"rank": r + 1, "model": pool.models[j], "accuracy": float(acc[j]),
                 "gain_bits": float(g)} for r, (j, g) in enumerate(zip(picks, gains,
                                                                          strict=True))]

    run = {"method": method, "aggregator": aggregator, "k": kk, "auto": auto,
           "max_k": max_k, "seed": seed, "test_fraction": test_fraction}
    n_cond = len(pool.conditions)
    total = n_cond * (n_splits + 2 * halvings * half_splits(n_cond))
    bar = tqdm(total=total, desc="ensel select", unit="split", file=sys.stderr, delay=1.5,
               leave=False, disable=None if progress else True)
    errs: dict[str, list[float]] = {"selected": [], "top_k": [], "best_single": []}
    sizes: list[tuple[int, int]] = []
    for c, X, y in zip(pool.conditions, pool.Xs, pool.ys, strict=True):
        _arm_errors(run, c, X, y, range(n_splits), errs, sizes, auto_doc, bar)
    halves = _half_sample_means(run, pool, halvings, bar)
    bar.close()
    n_train = float(np.mean([a for a, _ in sizes]))
    n_test = float(np.mean([b for _, b in sizes]))

    def interval(values: Sequence[float], other: str | None = None) -> Any:
        h = None
        if other is not None and halves is not None:
            h = halves["selected"] - halves[other]
        return paired_interval(values, n_train=n_train, n_test=n_test, confidence=confidence,
                               halves=h)

    arms = {}
    for name, ks in (("selected", kk), ("top_k", kk), ("best_single", 1)):
        r = interval(errs[name])  # an error rate's interval, clipped to [0, 1]
        arms[name] = {"error": r.mean, "low": max(r.low, 0.0), "high": min(r.high, 1.0),
                      "k": None if (auto and name != "best_single") else ks}
    comparisons = []
    for other in ("top_k", "best_single"):
        if other == "top_k" and method == "top-k":
            continue
        d = np.asarray(errs["selected"]) - np.asarray(errs[other])
        r = interval(d, other)
        comparisons.append({"against": other, "difference": r.mean, "low": r.low,
                            "high": r.high, "verdict": r.verdict, "interval": r.method})
    vs_single = next(c for c in comparisons if c["against"] == "best_single")
    beats = kk > 1 and vs_single["verdict"] == "holds"
    if kk == 1:
        message = ("No ensemble beats the best single model here: the cross-validated choice "
                   "of k is 1." if auto else "k=1: a single model, no ensemble.")
    elif not beats:
        message = (f"No ensemble beats the best single model here: the {kk}-model ensemble's "
                   f"error differs from the best single model's by "
                   f"{vs_single['difference']:+.4f} [{vs_single['low']:+.4f}, "
                   f"{vs_single['high']:+.4f}] ({vs_single['verdict']}).")
    else:
        message = (f"The {kk}-model ensemble beats the best single model by "
                   f"{-vs_single['difference']:.4f} error "
                   f"[{-vs_single['high']:.4f}, {-vs_single['low']:.4f}].")
    return {
        "schema": SCHEMA,
        "conditions": pool.conditions,
        "n_items": int(sum(len(y) for y in pool.ys)),
        "n_models": m,
        "method": method,
        "aggregator": aggregator,
        "k": int(kk),
        "k_mode": "auto" if auto else "fixed",
        "selected": selected,
        "evaluation": {
            "n_splits": int(n_splits),
            "n_evaluations": len(errs["selected"]),
            "test_fraction": float(test_fraction),
            "seed": int(seed),
            "confidence": float(confidence),
            "correction": CORRECTION if halvings else "nadeau-bengio corrected resampled t",
            "n_halvings": int(halvings),
            "arms": arms,
            "comparisons": comparisons,
        },
        "auto": auto_doc,
        "ensemble_beats_best_single": bool(beats),
        "message": message,
    }


# --------------------------------------------------------------------------- text output
def format_select(doc: dict[str, Any]) -> str:
    """The plain-text report of ``ensel select``."""
    ev = doc["evaluation"]
    lines = [
        f"{doc['n_models']} models, {doc['n_items']} items, condition(s) "
        f"{', '.join(doc['conditions'])}",
        f"method {doc['method']}, aggregator {doc['aggregator']}, k = {doc['k']}"
        + (" (chosen by nested cross-validation)" if doc["k_mode"] == "auto" else ""),
        "",
        f"{'rank':>4}  {'model':<40} {'accuracy':>8}  {'gain (bits)':>11}",
    ]
    for s in doc["selected"]:
        name = s["model"] if len(s["model"]) <= 40 else s["model"][:37] + "..."
        lines.append(f"{s['rank']:>4}  {name:<40} {s['accuracy']:>8.4f}  {s['gain_bits']:>11.4f}")
    lines += [
        "",
        f"held-out error over {ev['n_evaluations']} random "
        f"{1 - ev['test_fraction']:.0%}/{ev['test_fraction']:.0%} splits "
        f"({ev['confidence']:.0%} intervals, corrected for overlapping splits"
        + (f", differences checked on {ev['n_halvings']} halvings" if ev["n_halvings"] else "")
        + "):",
    ]
    labels = {"selected": "chosen ensemble", "top_k": "top-k ensemble",
              "best_single": "best single model"}
    for name, arm in ev["arms"].items():
        if name == "top_k" and doc["method"] == "top-k":
            continue
        lines.append(f"  {labels[name]:<18} {arm['error']:.4f}  "
                     f"[{arm['low']:.4f}, {arm['high']:.4f}]")
    lines.append("paired differences (chosen minus other; negative = chosen is better):")
    for c in ev["comparisons"]:
        lines.append(f"  vs {labels[c['against']]:<18} {c['difference']:+.4f}  "
                     f"[{c['low']:+.4f}, {c['high']:+.4f}]  {c['verdict']}")
    if doc["auto"]:
        ks = doc["auto"]["k_per_split"]
        lines.append(f"k chosen inside the splits: {', '.join(map(str, ks[:20]))}"
                     + (" ..." if len(ks) > 20 else ""))
    lines += ["", doc["message"]]
    return "\n".join(lines)


# --------------------------------------------------------------------------- commands
class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # exit code 2, one line, no traceback
        self.print_usage(sys.stderr)
        raise SystemExit(_fail(f"{self.prog}: {message}"))


def _fail(message: str) -> int:
    print(f"ensel: error: {message}", file=sys.stderr)
    return 2


def _read(data: Sequence[str], fmt: str | None, **options: Any) -> pd.DataFrame:
    from ensel.datasets.importers import read_data

    if len(data) == 1:
        return read_data(data[0], format=fmt, **options)
    return read_data(list(data), format=fmt, **options)


def _k_arg(value: str) -> int | str:
    if value == "auto":
        return value
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer or 'auto', got {value!r}"
                                         ) from None
    if k < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer or 'auto', got {value!r}")
    return k


def _non_negative(value: str) -> int:
    try:
        v = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0; got {value!r}") from None
    if v < 0 or v == 1:
        raise argparse.ArgumentTypeError(f"expected 0 or a whole number >= 2; got {value!r}")
    return v


def _positive(value: str) -> int:
    try:
        v = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value!r}")
    return v


def _run(fn: Any, argv: Sequence[str]) -> int:
    from ensel.datasets._fetch import DataUnavailableError

    try:
        return fn(argv)
    except (UsageError, ValueError, FileNotFoundError, IsADirectoryError,
            DataUnavailableError) as exc:
        return _fail(str(exc))
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else 2
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _add_format(p: argparse.ArgumentParser) -> None:
    from ensel.datasets.importers import FORMATS

    p.add_argument("--format", choices=list(FORMATS), default=None,
                   help="input format (default: detected from the file)")


def select_main(argv: Sequence[str]) -> int:
    """``ensel select`` (see the module docstring)."""
    return _run(_select_main, argv)


def _select_main(argv: Sequence[str]) -> int:
    p = _Parser(prog="ensel select",
                description="Pick an ensemble of your models and show held-out evidence.")
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) or a dataset name (medmcqa, mmlu, imdb, mmlu_pro)")
    p.add_argument("-k", required=True, type=_k_arg, help="ensemble size, or 'auto'")
    p.add_argument("--method", choices=METHODS, default="greedy-mi")
    p.add_argument("--aggregator", choices=AGGREGATORS, default="map")
    p.add_argument("--condition", default=None, help="use one condition only")
    p.add_argument("--splits", type=_positive, default=20,
                   help="random 80/20 splits per condition (default 20)")
    p.add_argument("--max-k", type=_positive, default=10, help="largest k tried by -k auto")
    p.add_argument("--halvings", type=_non_negative, default=N_HALVINGS,
                   help="half-sample replicates checking the intervals (0: corrected t only)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="JSON output (schema ensel.select/1)")
    _add_format(p)
    args = p.parse_args(list(argv))
    if args.splits < 2:
        raise UsageError("--splits must be at least 2 (an interval needs two evaluations)")
    df = _read(args.data, args.format)
    try:
        doc = run_select(df, k=args.k, method=args.method, aggregator=args.aggregator,
                         condition=args.condition, n_splits=args.splits, seed=args.seed,
                         max_k=args.max_k, halvings=args.halvings)
    except UsageError as exc:
        raise UsageError(f"{', '.join(args.data)}: {exc}") from None
    doc = {"schema": doc.pop("schema"), "data": list(args.data),
           "format": args.format or _detected(args.data), **doc}
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print(format_select(doc))
    return 0


def _detected(data: Sequence[str]) -> str:
    from ensel.datasets import _DESCRIPTIONS
    from ensel.datasets.importers import detect

    if len(data) == 1 and data[0] in _DESCRIPTIONS and not Path(data[0]).exists():
        return "dataset"
    return detect(list(data))


def _parse_ks(text: str) -> list[int]:
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                out.update(range(a, b + 1))
            elif part:
                out.add(int(part))
        except ValueError:
            raise UsageError(f"--ks {text!r}: expected budgets like 1-10 or 1,3,5") from None
    if not out or min(out) < 1:
        raise UsageError(f"--ks {text!r}: expected positive budgets like 1-10 or 1,3,5")
    return sorted(out)


def _repo_root() -> Path:
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parents[1]):
        if (base / "notebooks" / "experiments.py").is_file():
            return base
    raise UsageError("cannot find notebooks/experiments.py (ensel evaluate runs the book's "
                     "experiments notebook): run it from the ensel repository")


def _refuse_book_folders(out: Path, root: Path) -> None:
    forbidden = [root / "book" / "_generated"]
    if os.environ.get("ENSEL_RESULTS_DIR", "").strip():  # the folder the book's runs use
        forbidden.append(Path(os.environ["ENSEL_RESULTS_DIR"]).expanduser())
    for folder in forbidden:
        f = folder.resolve()
        if out == f or f in out.parents:
            raise UsageError(f"{out}: refusing to write into {f} (the book's folders); choose "
                             "another output path")


def evaluate_main(argv: Sequence[str]) -> int:
    """``ensel evaluate`` (see the module docstring)."""
    return _run(_evaluate_main, argv)


def _evaluate_main(argv: Sequence[str]) -> int:
    p = _Parser(prog="ensel evaluate",
                description="Run the experiments notebook on DATA and write an HTML report.")
    p.add_argument("data", nargs="+", metavar="DATA")
    p.add_argument("-o", "--output", required=True, help="the HTML report to write")
    p.add_argument("--ks", default=None, help="budgets, e.g. 1-10 or 1,3,5 (default 1..m)")
    p.add_argument("--splits", type=_positive, default=None,
                   help="random splits per condition (default: chosen by the page, the "
                        "smallest number whose interval is within 20%% of the narrowest "
                        "possible)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-exhaustive", action="store_true",
                   help="skip the exhaustive optimum (faster)")
    _add_format(p)
    args = p.parse_args(list(argv))
    out = Path(args.output).expanduser().resolve()
    if out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"{args.output}: the report must be an .html file")
    root = _repo_root()
    _refuse_book_folders(out, root)
    ks = _parse_ks(args.ks) if args.ks else None
    df = _read(args.data, args.format)
    m = df["model"].nunique()
    if ks and ks[-1] > m:
        raise UsageError(f"--ks asks for k={ks[-1]} but the data has {m} model(s)")
    stem = Path(args.data[0]).name.split(".")[0] or "data"
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ensel-evaluate-") as tmp:
        tmpd = Path(tmp)
        data_path = tmpd / f"{stem}.parquet"
        df.to_parquet(data_path, index=False)
        params = {"dataset": str(data_path),
                  "n_splits": None if args.splits is None else int(args.splits),
                  "seed": int(args.seed), "ks": ks, "exhaustive": not args.no_exhaustive}
        nb_path = out.with_suffix(".ipynb")
        executed = _execute(root, params, tmpd, keep_failed=nb_path)
        import nbformat

        nbformat.write(executed, nb_path)
        out.write_text(_to_html(executed), encoding="utf-8")
    print(f"wrote {out} and {nb_path}", file=sys.stderr)
    return 0


def _execute(root: Path, params: dict[str, Any], tmp: Path, *, keep_failed: Path) -> Any:
    import jupytext
    import papermill as pm

    nb = jupytext.read(root / "notebooks" / "experiments.py")
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    src = tmp / "experiments.ipynb"
    import nbformat

    nbformat.write(nb, src)
    saved = os.environ.get("ENSEL_RESULTS_DIR")
    os.environ["ENSEL_RESULTS_DIR"] = str(tmp / "results")  # inherited by the kernel
    try:
        return pm.execute_notebook(str(src), str(tmp / "executed.ipynb"), parameters=params,
                                   kernel_name="python3", cwd=str(root), progress_bar=False,
                                   log_output=False,
                                   extra_arguments=["--IPKernelApp.log_level=ERROR"])
    except pm.PapermillExecutionError as exc:
        partial = tmp / "executed.ipynb"
        if partial.is_file():
            keep_failed.write_bytes(partial.read_bytes())
        raise UsageError(f"the experiments notebook failed in cell {exc.exec_count}: "
                         f"{exc.ename}: {exc.evalue} (the partly executed notebook is "
                         f"{keep_failed})") from None
    finally:
        if saved is None:
            os.environ.pop("ENSEL_RESULTS_DIR", None)
        else:
            os.environ["ENSEL_RESULTS_DIR"] = saved


def _to_html(nb: Any) -> str:
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor
    from traitlets.config import Config

    c = Config()
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_cell_tags = {"remove-cell"}
    c.TagRemovePreprocessor.remove_input_tags = {"hide-input", "remove-input", "parameters",
                                                 "injected-parameters"}
    exporter = HTMLExporter(config=c)
    exporter.register_preprocessor(TagRemovePreprocessor(config=c), enabled=True)
    body, _ = exporter.from_notebook_node(nb)
    return _offline(body)


def _offline(html: str) -> str:
    """The report works offline: nbconvert's template loads require.js, MathJax 2 and
    mermaid from a CDN; the report needs none of require.js and mermaid, and gets MathJax 3
    (SVG output, no font files) inlined from the copy the book build ships."""
    import re

    html = re.sub(r'<script src="https?://[^"]*require[^"]*"></script>\s*', "", html)
    mathjax = _local_mathjax()
    inline = ("<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], "
              "processEscapes: true}, svg: {fontCache: 'global'}};</script>\n"
              f"<script>{mathjax}</script>" if mathjax else "")
    html = re.sub(r'<script src="https?://[^"]*mathjax[^"]*">\s*</script>.*?'
                  r'<script type="text/x-mathjax-config">.*?</script>',
                  lambda _m: inline, html, count=1, flags=re.S)
    html = re.sub(r'<script type="module">(?:(?!</script>).)*mermaid(?:(?!</script>).)*'
                  r"</script>", "", html, flags=re.S)
    return html


def _local_mathjax() -> str:
    """MathJax 3's self-contained ``tex-svg.js`` from sphinx-mathjax-offline (a dependency of
    the book), or ``""`` when it is not installed (the math then shows as TeX source)."""
    import importlib.util

    spec = importlib.util.find_spec("sphinx-mathjax-offline") or importlib.util.find_spec(
        "sphinx_mathjax_offline")
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        f = Path(root) / "static" / "mathjax" / "tex-svg.js"
        if f.is_file():
            return f.read_text(encoding="utf-8").replace("</script", "<\\/script")
    return ""


def import_main(argv: Sequence[str]) -> int:
    """``ensel import`` (see the module docstring)."""
    return _run(_import_main, argv)


def _import_main(argv: Sequence[str]) -> int:
    from ensel.datasets.importers import FORMATS, read

    p = _Parser(prog="ensel import",
                description="Convert your models' answers to the tidy table.")
    p.add_argument("format", choices=[*FORMATS, "auto"], metavar="FORMAT",
                   help=f"one of {', '.join(FORMATS)}, or auto")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("-o", "--output", required=True, help="tidy table to write (.parquet/.csv)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of each question's negative option (multiple choice)")
    p.add_argument("--condition", default=None, help="condition written on every row")
    p.add_argument("--gold", default=None, help="wide: name of the gold column")
    p.add_argument("--item", default=None, help="wide: name of the item column")
    p.add_argument("--options", default=None, help="wide: the option set, e.g. A,B,C,D")
    p.add_argument("--correctness", action="store_true",
                   help="wide, binary task: model columns hold 1/0 = right/wrong")
    p.add_argument("--null-pred", choices=["abstain", "false"], default="abstain",
                   help="a choice that could not be parsed (default: abstain)")
    args = p.parse_args(list(argv))
    out = Path(args.output)
    if not out.name.lower().endswith((".parquet", ".pq", ".csv")):
        raise UsageError(f"{args.output}: the output must be a .parquet, .pq or .csv file")
    fmt = None if args.format == "auto" else args.format
    options: dict[str, Any] = {}
    if fmt != "tidy":
        options = {"seed": args.seed, "null_pred": args.null_pred}
        if args.condition:
            options["condition"] = args.condition
    wide_only = {"gold": args.gold, "item": args.item, "correctness": args.correctness or None,
                 "options": args.options.split(",") if args.options else None}
    given = {k: v for k, v in wide_only.items() if v is not None}
    if given:
        if fmt not in ("wide", None):
            raise UsageError(f"--{next(iter(given))} applies to the wide format only")
        options.update(given)
    df = read(args.paths, format=fmt, **options)
    if args.condition and fmt == "tidy":
        df = df.assign(condition=args.condition)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.name.lower().endswith(".csv"):
        df.to_csv(out, index=False)
    else:
        df.to_parquet(out, index=False)
    print(f"wrote {out}: {len(df):,} answers, {df['item'].nunique():,} items x "
          f"{df['model'].nunique()} models x {df['condition'].nunique()} condition(s)",
          file=sys.stderr)
    return 0
